use lagrange_runtime::prelude::*;

lagrangian! {
    /// The file's joint `sin` would be a coordinate named like a function of the language.
    pub struct Arm {
        urdf: "tests/ui/urdf/joint_named_like_a_function.urdf";
        kinetic = urdf_kinetic;
    }
}

fn main() {}
