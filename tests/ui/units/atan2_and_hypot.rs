use lagrange_runtime::prelude::*;

lagrangian! {
    struct Polar {
        parameters: m = 1.0 [kg], k = 4.0 [N/m], l = 1.0 [m];
        coordinates: x [m], y [m], theta [rad];
        let phi = atan2(y, theta);
        let r = hypot(x, l * theta) + hypot(x, theta);
        kinetic = m/2 * (dot(x)^2 + dot(y)^2) + m/2 * l^2 * dot(theta)^2;
        potential = k/2 * r^2 + k/2 * l^2 * phi^2;
    }
}

fn main() {}
