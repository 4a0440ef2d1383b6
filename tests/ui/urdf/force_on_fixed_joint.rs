use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Arm {
        urdf: "tests/ui/urdf/force_on_fixed_joint.urdf";
        inputs: tau;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        force tau on tool_mount;
    }
}

fn main() {}
