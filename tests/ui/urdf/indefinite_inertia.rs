use lagrange_runtime::prelude::*;

lagrangian! {
    /// An inertia with a negative principal moment.
    pub struct Arm {
        urdf: "tests/ui/urdf/indefinite_inertia.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
