use lagrange_runtime::prelude::*;

lagrangian! {
    /// A floating joint inside the tree: a free base is `urdf: "..." floating;`, not a joint.
    pub struct Arm {
        urdf: "tests/ui/urdf/floating_joint.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
