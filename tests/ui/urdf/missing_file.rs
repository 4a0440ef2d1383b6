use lagrange_runtime::prelude::*;

lagrangian! {
    /// A path to no file (absolute: a relative one is looked for under trybuild's own crate
    /// in the target directory, a path that would make this output depend on the machine).
    pub struct Arm {
        urdf: "/nonexistent/robots/arm.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {}
