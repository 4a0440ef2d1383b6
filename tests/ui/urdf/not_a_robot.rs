use lagrange_runtime::prelude::*;

lagrangian! {
    /// The root element is not `<robot>`.
    pub struct Arm {
        urdf: "tests/ui/urdf/not_a_robot.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
