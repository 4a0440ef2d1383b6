use lagrange_runtime::prelude::*;

lagrangian! {
    /// A misspelt `floating` after the path.
    pub struct Arm {
        urdf: "tests/ui/urdf/arm.urdf" floatng;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
