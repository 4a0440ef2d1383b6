use lagrange_runtime::prelude::*;

lagrangian! {
    /// Every link has a parent: the joints close a loop and there is no root.
    pub struct Arm {
        urdf: "tests/ui/urdf/joints_form_a_loop.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
