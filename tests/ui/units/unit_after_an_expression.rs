use lagrange_runtime::prelude::*;

lagrangian! {
    struct Offset {
        parameters: m = 1.0 [kg], a = 0.3;
        coordinates: x [m];
        // A unit follows a literal or a declaration, not an expression.
        let p = x + a [m];
        kinetic = m/2 * dot(p)^2;
    }
}

fn main() {}
