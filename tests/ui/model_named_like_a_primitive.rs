use lagrange_runtime::prelude::*;

lagrangian! {
    struct f64 {
        coordinates: x;
        kinetic = dot(x)^2 / 2;
    }
}

fn main() {}
