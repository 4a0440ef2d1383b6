use lagrange_runtime::prelude::*;

lagrangian! {
    /// The file's joint `g` would be a coordinate named like gravity, which this model
    /// declares itself (so the import does not): the file's joint is the name to change.
    pub struct Arm {
        urdf: "tests/ui/urdf/joint_named_like_gravity.urdf";
        parameters: g = 9.81;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
