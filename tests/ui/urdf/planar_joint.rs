use lagrange_runtime::prelude::*;

lagrangian! {
    /// A planar joint, which the import does not support.
    pub struct Arm {
        urdf: "tests/ui/urdf/planar_joint.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
