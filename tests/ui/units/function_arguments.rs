use lagrange_runtime::prelude::*;

lagrangian! {
    struct Driven {
        parameters: m = 1.0 [kg], k = 4.0 [N/m], a = 0.1 [m], w = 2.0 [rad/s], L = 1.0 [m];
        coordinates: x [m];
        kinetic = m/2 * dot(x)^2;
        // `w` is a rate: its argument must be `w*t`, and `x` needs a length to compare with.
        potential = k/2 * (x - a * sin(w))^2 + k * a^2 * exp(x) + k * a^2 * cos(w*t) + k * a^2 * ln(x/L);
    }
}

fn main() {}
