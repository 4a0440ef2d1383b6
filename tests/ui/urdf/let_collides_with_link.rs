use lagrange_runtime::prelude::*;

lagrangian! {
    /// The model defines `lower_p`, which is already the origin of the file's link `lower`.
    pub struct Arm {
        urdf: "tests/ui/urdf/arm.urdf";
        let lower_p = upper_p + upper_R * [0, 0, 0.4];
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
