use lagrange_runtime::prelude::*;

lagrangian! {
    struct Hung {
        parameters: m = 1.0 [kg], l = 0.5 [m], g = 9.81 [m/s^2];
        coordinates: q [rad];
        // A fixed offset written as a bare number, then as a vector of them.
        let p = l * [sin(q), -cos(q)] + [0.3, 0];
        let h = p.y + 0.1;
        kinetic = m/2 * dot(p)^2;
        potential = m * g * h;
    }
}

fn main() {}
