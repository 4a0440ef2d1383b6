use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Oscillator {
        parameters: m = 1.0, k = m, c = 1.0 + 2.0;
        coordinates: x;

        kinetic = m/2 * dot(x)^2;
    }
}

fn main() {}
