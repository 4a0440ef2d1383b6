use lagrange_runtime::prelude::*;

lagrangian! {
    /// A joint whose damping would feed energy in.
    pub struct Arm {
        urdf: "tests/ui/urdf/negative_damping.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
