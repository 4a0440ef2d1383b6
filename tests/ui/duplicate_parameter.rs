use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Pendulum {
        parameters: m = 1.0, l = 1.0, m = 2.0;
        coordinates: theta;

        kinetic = m/2 * l^2 * dot(theta)^2;
    }
}

fn main() {}
