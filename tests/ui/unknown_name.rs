use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Pendulum {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: theta1, theta2;

        kinetic = m/2 * l^2 * (dot(theta1)^2 + dot(tehta2)^2);
        potential = -m * g * l * cos(theta1);
    }
}

fn main() {}
