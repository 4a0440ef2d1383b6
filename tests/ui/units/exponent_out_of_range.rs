use lagrange_runtime::prelude::*;

lagrangian! {
    struct Nested {
        parameters: k = 1.0 [((m^64)^64)^64];
        coordinates: x [m];
        kinetic = dot(x)^2 / 2 * k;
    }
}

fn main() {}
