use lagrange_runtime::prelude::*;

lagrangian! {
    /// A robot without links.
    pub struct Arm {
        urdf: "tests/ui/urdf/no_links.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
