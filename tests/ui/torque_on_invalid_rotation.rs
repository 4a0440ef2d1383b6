use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Body {
        parameters: m = 1.0, b = 0.3;
        coordinates: a;
        inputs: tau, steer;
        let R = rot_z(a);
        kinetic = m/2 * dot(a)^2;
        torque [0, 0, tau] on rot_z(dot(a));
        torque [0, 0, tau] on rot_z(steer);
        torque [0, 0, tau] on rot_z(b);
    }
}

fn main() {}
