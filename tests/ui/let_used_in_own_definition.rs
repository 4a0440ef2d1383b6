use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Pendulum {
        parameters: m = 1.0, l = 1.0;
        coordinates: theta;
        let x = l * sin(theta) + x;

        kinetic = m/2 * dot(x)^2;
    }
}

fn main() {}
