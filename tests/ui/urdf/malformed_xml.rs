use lagrange_runtime::prelude::*;

lagrangian! {
    /// The file is not well-formed XML: a tag closed by another's end.
    pub struct Arm {
        urdf: "tests/ui/urdf/malformed_xml.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
