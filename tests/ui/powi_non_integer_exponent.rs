use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Oscillator {
        parameters: m = 1.0, k = 1.0, n = 2.0;
        coordinates: x;

        kinetic = m/2 * powi(dot(x), 2.5);
        potential = k/2 * x.powi(n);
    }
}

fn main() {}
