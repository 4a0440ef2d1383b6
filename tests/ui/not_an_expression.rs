use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Oscillator {
        parameters: m = 1.0;
        coordinates: x;
        let a = [x];
        let b = x as f64;
        let c = x.y;
        let d = "one";
        let e = sin(, x);
        let f = x.;

        kinetic = m/2 * dot(x)^2 + a + b + c + d + e + f;
    }
}

fn main() {}
