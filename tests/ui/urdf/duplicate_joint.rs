use lagrange_runtime::prelude::*;

lagrangian! {
    /// Two joints of one name.
    pub struct Arm {
        urdf: "tests/ui/urdf/duplicate_joint.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
