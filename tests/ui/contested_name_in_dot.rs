// A name declared twice, or a reserved name declared, is reported where it is declared,
// and only there: `dot(x)` and `dot(t)` below say nothing more (which `x` was meant, the
// parameter or the coordinate, is a guess; `t` is the time, which was not meant).
use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Cart {
        parameters: m = 1.0, x = 1.0;
        coordinates: x;

        kinetic = m/2 * dot(x)^2;
    }
}

lagrangian! {
    pub struct Slider {
        parameters: m = 1.0;
        coordinates: t;

        kinetic = m/2 * dot(t)^2;
    }
}

fn main() {}
