use lagrange_runtime::prelude::*;

lagrangian! {
    /// Limits with lower above upper: no position is within them.
    pub struct Arm {
        urdf: "tests/ui/urdf/crossed_limits.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
