use lagrange_runtime::prelude::*;

lagrangian! {
    /// Two links joined in a loop of their own, beside the root link.
    pub struct Arm {
        urdf: "tests/ui/urdf/loop_beside_the_root.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
