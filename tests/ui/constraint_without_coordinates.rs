use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Particle {
        parameters: m = 1.0, a = 2.0;
        coordinates: x;

        kinetic = m/2 * dot(x)^2;
        constraint clock = t - 1;
        constraint constant = a * pi;
    }
}

fn main() {}
