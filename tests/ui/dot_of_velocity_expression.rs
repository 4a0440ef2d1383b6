use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Oscillator {
        parameters: m = 1.0, k = 1.0;
        coordinates: x;
        let v = m * dot(x);

        kinetic = m/2 * dot(x)^2 + dot(v) * x;
        potential = k/2 * x^2;
    }
}

fn main() {}
