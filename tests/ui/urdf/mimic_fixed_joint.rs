use lagrange_runtime::prelude::*;

lagrangian! {
    /// A joint that mimics a fixed joint.
    pub struct Arm {
        urdf: "tests/ui/urdf/mimic_fixed_joint.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
