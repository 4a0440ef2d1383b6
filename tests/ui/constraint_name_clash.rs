use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Bead {
        parameters: m = 1.0, r = 1.0;
        coordinates: x, y;

        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        constraint x = x^2 + y^2 - r^2;
    }
}

fn main() {}
