use lagrange_runtime::prelude::*;

lagrangian! {
    /// A joint origin with two coordinates.
    pub struct Arm {
        urdf: "tests/ui/urdf/not_three_numbers.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
