use lagrange_runtime::prelude::*;

lagrangian! {
    /// A frame contact without its point.
    pub struct Box {
        parameters: m = 1.0;
        coordinates: theta;
        contact sole = frame(rot_z(theta));
        kinetic = m/2 * dot(theta)^2;
    }
}

fn main() {}
