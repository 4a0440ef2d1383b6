use lagrange_runtime::prelude::*;

lagrangian! {
    struct Damped {
        parameters: m = 1.0 [kg], k = 4.0 [N/m], c = 0.1 [N*s/m];
        coordinates: x [m];
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * x^2;
        dissipation = c/2 * x * dot(x);
    }
}

fn main() {}
