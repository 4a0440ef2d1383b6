use lagrange_runtime::prelude::*;

lagrangian! {
    /// A revolute joint about the zero vector.
    pub struct Arm {
        urdf: "tests/ui/urdf/zero_axis.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
