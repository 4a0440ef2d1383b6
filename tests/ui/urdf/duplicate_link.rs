use lagrange_runtime::prelude::*;

lagrangian! {
    /// Two links of one name.
    pub struct Arm {
        urdf: "tests/ui/urdf/duplicate_link.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
