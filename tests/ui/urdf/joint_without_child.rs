use lagrange_runtime::prelude::*;

lagrangian! {
    /// A joint without its `<child>` element.
    pub struct Arm {
        urdf: "tests/ui/urdf/joint_without_child.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
