use lagrange_runtime::prelude::*;

lagrangian! {
    /// The model declares `elbow`, which is already the coordinate of the file's joint `elbow`.
    pub struct Arm {
        urdf: "tests/ui/urdf/arm.urdf";
        inputs: elbow;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        force elbow on shoulder;
    }
}

fn main() {}
