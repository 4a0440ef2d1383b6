use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Pendulum {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: theta, l;

        kinetic = m/2 * l^2 * dot(theta)^2;
        potential = -m * g * l * cos(theta);
    }
}

fn main() {}
