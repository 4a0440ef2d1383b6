use lagrange_runtime::prelude::*;

lagrangian! {
    /// A joint whose child is a link the file does not have (a misspelling).
    pub struct Arm {
        urdf: "tests/ui/urdf/unknown_link.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
