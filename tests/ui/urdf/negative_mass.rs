use lagrange_runtime::prelude::*;

lagrangian! {
    /// A link of negative mass.
    pub struct Arm {
        urdf: "tests/ui/urdf/negative_mass.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
