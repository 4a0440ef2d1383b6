use lagrange_runtime::prelude::*;

lagrangian! {
    struct Prefixed {
        parameters: m = 500 [g], l = 300 [mm], k = 2 [kN/m], w = 60 [rpm], a = 30 [deg];
        coordinates: x [m], t0 [ms];
        kinetic = m/2 * dot(x)^2;
    }
}

fn main() {}
