use lagrange_runtime::prelude::*;

lagrangian! {
    struct Arm {
        parameters: m = 1.0 [kg], l = 1.0 [m];
        coordinates: x [m], theta [rad];
        let p = [x, theta, 0];
        let q = [x, l * theta, 0];
        let J = diag(m * l^2, m * l^2, m);
        let A = [[l, x], [theta, l]];
        kinetic = m/2 * dot(q)^2;
    }
}

fn main() {}
