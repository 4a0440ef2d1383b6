use lagrange_runtime::prelude::*;

lagrangian! {
    /// A fixed joint has no coordinate, so it cannot mimic another joint.
    pub struct Gripper {
        urdf: "tests/ui/urdf/fixed_joint_mimics.urdf";
        kinetic = urdf_kinetic;
    }
}

fn main() {}
