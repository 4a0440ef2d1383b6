use lagrange_runtime::prelude::*;

lagrangian! {
    /// A joint without its `type` attribute.
    pub struct Arm {
        urdf: "tests/ui/urdf/joint_without_type.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
