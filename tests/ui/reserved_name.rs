use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Oscillator {
        parameters: m = 1.0, k = 1.0, pi = 3.0;
        coordinates: x, t;
        let dot = x;

        kinetic = m/2 * dot(x)^2;
        potential = k/2 * x^2;
    }
}

fn main() {}
