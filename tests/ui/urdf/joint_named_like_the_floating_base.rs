use lagrange_runtime::prelude::*;

lagrangian! {
    /// With `floating`, a joint named `base_x` meets the free base's first coordinate.
    pub struct Arm {
        urdf: "tests/ui/urdf/joint_named_like_the_floating_base.urdf" floating;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
