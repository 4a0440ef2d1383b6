use lagrange_runtime::prelude::*;

lagrangian! {
    /// A joint that mimics a joint the file does not have.
    pub struct Arm {
        urdf: "tests/ui/urdf/mimic_unknown_joint.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
