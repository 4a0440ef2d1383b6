use lagrange_runtime::prelude::*;

lagrangian! {
    /// Two joints that mimic each other: neither moves on its own.
    pub struct Arm {
        urdf: "tests/ui/urdf/mimic_cycle.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
