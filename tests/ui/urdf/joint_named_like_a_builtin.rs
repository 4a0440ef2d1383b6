use lagrange_runtime::prelude::*;

lagrangian! {
    /// A joint named `t`, the language's name for time.
    pub struct Arm {
        urdf: "tests/ui/urdf/joint_named_like_a_builtin.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
