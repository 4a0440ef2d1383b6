use lagrange_runtime::prelude::*;

lagrangian! {
    /// Two links that no joint connects: two trees.
    pub struct Arm {
        urdf: "tests/ui/urdf/two_roots.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
