use lagrange_runtime::prelude::*;

lagrangian! {
    struct Powers {
        parameters: m = 1.0 [kg], k = 4.0 [N/m], n = 1.5 [1], l = 1.0 [m];
        coordinates: x [m];
        let a = x^n;
        let b = x^0.5;
        let c = (x/l)^n * l;
        let d = powf(x, 2.5);
        let e = x^(-2) * l^3;
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * c^2;
    }
}

fn main() {}
