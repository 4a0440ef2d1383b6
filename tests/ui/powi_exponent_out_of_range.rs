// An integer literal too large for `powi`'s `i32` exponent is called out of range, not
// "not an integer".
use lagrange_runtime::prelude::*;

lagrangian! {
    struct Power {
        coordinates: x;
        kinetic = dot(x)^2 / 2;
        potential = powi(x, 2147483648);
    }
}

fn main() {}
