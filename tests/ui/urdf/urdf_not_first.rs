use lagrange_runtime::prelude::*;

lagrangian! {
    /// `urdf:` after another statement.
    pub struct Arm {
        inputs: tau;
        urdf: "tests/ui/urdf/arm.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        force tau on shoulder;
    }
}

fn main() {}
