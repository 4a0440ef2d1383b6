use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Cart {
        parameters: m = 1.0;
        coordinates: x;
        inputs: f;

        kinetic = m/2 * dot(x)^2;
        force f on pos;
    }
}

fn main() {}
