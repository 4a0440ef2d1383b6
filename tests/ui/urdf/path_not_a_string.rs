use lagrange_runtime::prelude::*;

lagrangian! {
    /// The path without its quotes.
    pub struct Arm {
        urdf: tests/ui/urdf/arm.urdf;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
