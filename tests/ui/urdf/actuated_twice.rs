use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Arm {
        urdf: "tests/ui/urdf/arm.urdf" actuated floating actuated;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
