use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Pendulum {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: theta;
        let x = l * sin(theta, 2);
        let y = -l * theta.cos(1);
        let r = hypot(x);
        let s = x.atan2();

        kinetic = m/2 * (dot(x)^2 + dot(y)^2) + r + s + dot(x, y);
        potential = m * g * y;
    }
}

fn main() {}
