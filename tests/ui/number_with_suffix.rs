use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Oscillator {
        parameters: m = 1.0, k = 1.0;
        coordinates: x;

        kinetic = m/2 * dot(x)^2;
        potential = k/2_f64 * x^2;
    }
}

fn main() {}
