use lagrange_runtime::prelude::*;

lagrangian! {
    struct Roots {
        parameters: m = 1.0 [kg], k = 4.0 [N/m], A = 0.01 [m^2];
        coordinates: x [m];
        let side = sqrt(A);
        let wrong = sqrt(A * x);
        let cube = cbrt(A * x);
        let bad_cube = cbrt(A);
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * (x - side)^2;
    }
}

fn main() {}
