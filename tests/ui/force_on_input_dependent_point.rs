use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Cart {
        parameters: m = 1.0;
        coordinates: x;
        inputs: u;
        kinetic = m/2 * dot(x)^2;
        force 1 on u * x;
    }
}

fn main() {}
