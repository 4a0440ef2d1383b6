use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Driven {
        parameters: m = 1.0, w = 2.0;
        coordinates: x;
        kinetic = m/2 * dot(x)^2;
        potential = x * t(w);
    }
}

fn main() {}
