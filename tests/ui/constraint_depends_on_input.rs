use lagrange_runtime::prelude::*;

lagrangian! {
    /// A bead on a circle whose radius is an input.
    pub struct Bead {
        parameters: m = 1.0;
        coordinates: x, y;
        inputs: r;

        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        constraint circle = x^2 + y^2 - r^2;
    }
}

fn main() {}
