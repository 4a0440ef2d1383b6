// An index too large for any vector is out of range, not a parser overflow message.
use lagrange_runtime::prelude::*;

lagrangian! {
    struct Indexed {
        coordinates: x, y;
        let p = [x, y];
        kinetic = dot(x)^2 / 2 + dot(y)^2 / 2;
        potential = p[99999999999999999999];
    }
}

fn main() {}
