use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Pendulum {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: theta;
        let x = l * sin(theta);

        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = m * g * y;

        let y = -l * cos(theta);
    }
}

fn main() {}
