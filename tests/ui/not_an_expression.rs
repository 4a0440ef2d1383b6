use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Oscillator {
        parameters: m = 1.0;
        coordinates: x;
        let b = x as f64;
        let d = "one";
        let e = sin(, x);
        let f = x.;

        kinetic = m/2 * dot(x)^2 + b + d + e + f;
    }
}

fn main() {}
