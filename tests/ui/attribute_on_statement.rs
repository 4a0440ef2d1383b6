use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Oscillator {
        parameters: m = 1.0;
        coordinates: x;

        #[inline]
        kinetic = m/2 * dot(x)^2;
    }
}

fn main() {}
