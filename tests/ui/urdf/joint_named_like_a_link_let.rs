use lagrange_runtime::prelude::*;

lagrangian! {
    /// A joint named `upper_p`, the name of link `upper`'s origin.
    pub struct Arm {
        urdf: "tests/ui/urdf/joint_named_like_a_link_let.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
