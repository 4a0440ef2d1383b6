use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct DrivenOscillator {
        parameters: m = 1.0, k = 1.0;
        coordinates: x;
        inputs: u;

        kinetic = m/2 * dot(x)^2;
        potential = k/2 * x^2 - dot(u) * x;
    }
}

fn main() {}
