use lagrange_runtime::prelude::*;

lagrangian! {
    /// No link that moves has mass, so the robot has no centre of mass to name.
    pub struct Wheel {
        urdf: "tests/ui/urdf/com_without_mass.urdf";
        let height = urdf_com[2];
        kinetic = urdf_kinetic;
    }
}

fn main() {}
