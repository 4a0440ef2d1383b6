use lagrange_runtime::prelude::*;

lagrangian! {
    /// Two declarations of the model take names the import declares: the `let` every URDF
    /// model has for its kinetic energy, and a coordinate of the floating base. Both are
    /// reported, each at the path and at the declaration.
    pub struct Arm {
        urdf: "tests/ui/urdf/arm.urdf" floating;
        parameters: base_z = 1.0;
        let urdf_kinetic = 0.0;
        kinetic = urdf_kinetic;
    }
}

fn main() {}
