use lagrange_runtime::prelude::*;

lagrangian! {
    /// A robot whose joints are all fixed: the model has no coordinates.
    pub struct Arm {
        urdf: "tests/ui/urdf/only_fixed_joints.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
