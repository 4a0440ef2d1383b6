use lagrange_runtime::prelude::*;

lagrangian! {
    /// A link that is the child of two joints.
    pub struct Arm {
        urdf: "tests/ui/urdf/two_parents.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
