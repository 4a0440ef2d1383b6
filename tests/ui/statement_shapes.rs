use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Body {
        parameters: m = 1.0, g = 9.81;
        coordinates: x, y, a;
        inputs: f, tau;
        let p = [x, y, 0];
        let R = rot_z(a);
        kinetic = m/2 * dot(p);
        potential = m * g * R;
        force [f, 0] on p;
        force R on p;
        torque tau on R;
        torque [0, 0, tau] on p;
        constraint plane = R;
    }
}

fn main() {}
