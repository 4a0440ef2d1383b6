// `r#a` and `a` are one identifier in Rust, so one name in a model.
use lagrange_runtime::prelude::*;

lagrangian! {
    struct Lets {
        coordinates: x;
        let a = 3 * x;
        let r#a = x;
        kinetic = dot(x)^2 / 2;
        potential = a^2 / 2;
    }
}

lagrangian! {
    struct Coordinates {
        coordinates: r#x, x;
        kinetic = dot(x)^2 / 2;
    }
}

fn main() {}
