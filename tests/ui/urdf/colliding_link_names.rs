use lagrange_runtime::prelude::*;

lagrangian! {
    /// Two links whose names become one identifier: `upper-arm` and `upper.arm` are both `upper_arm`.
    pub struct Arm {
        urdf: "tests/ui/urdf/colliding_link_names.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
