use lagrange_runtime::prelude::*;

lagrangian! {
    struct Sums {
        parameters: m = 1.0 [kg], l = 1.0 [m], g = 9.81 [m/s^2];
        coordinates: x [m], theta [rad];
        let y = x + l * cos(theta) + theta;
        let h = x - 1;
        constraint c = x - l * theta^2 + 0;
        kinetic = m/2 * dot(x)^2;
        potential = m * g * (y + l * sin(theta));
    }
}

fn main() {}
