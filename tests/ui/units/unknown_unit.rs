use lagrange_runtime::prelude::*;

lagrangian! {
    struct Unknown {
        parameters: m = 1.0 [kilogram], k = 4.0 [Nm], c = 1 [furlong];
        coordinates: x [m];
        kinetic = m/2 * dot(x)^2;
    }
}

fn main() {}
