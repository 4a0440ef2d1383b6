use lagrange_runtime::prelude::*;

lagrangian! {
    /// Two joints whose names become one identifier: `elbow-1` and `elbow 1` are both `elbow_1`.
    pub struct Arm {
        urdf: "tests/ui/urdf/colliding_joint_names.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
