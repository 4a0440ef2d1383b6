use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Pendulum {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: theta;
        let x = l * sine(theta);
        let y = -l * theta.cosine();

        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = m * g * y;
    }
}

fn main() {}
