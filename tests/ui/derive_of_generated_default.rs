// `Default` is generated from the declared defaults when every parameter has one: deriving
// it too is an error. (`Debug`, `Clone`, `Copy`, `PartialEq` may be derived.)
use lagrange_runtime::prelude::*;

lagrangian! {
    #[derive(Debug, Default)]
    struct Spring {
        parameters: k = 2.0;
        coordinates: x;
        kinetic = dot(x)^2 / 2;
        potential = k / 2 * x^2;
    }
}

fn main() {}
