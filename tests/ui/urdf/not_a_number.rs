use lagrange_runtime::prelude::*;

lagrangian! {
    /// A mass written with a decimal comma.
    pub struct Arm {
        urdf: "tests/ui/urdf/not_a_number.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
