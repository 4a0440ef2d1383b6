use lagrange_runtime::prelude::*;

lagrangian! {
    struct Partly {
        parameters: m = 1.0 [kg], k = 4.0, c;
        coordinates: x [m], theta;
        inputs: f [N];
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * x^2;
    }
}

fn main() {}
