use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Cart {
        parameters: m = 1.0;
        coordinates: x;
        let v = dot(x);

        kinetic = m/2 * velocity^2;
    }
}

fn main() {}
