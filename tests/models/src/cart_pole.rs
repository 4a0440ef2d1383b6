//! The cart-pole of `examples/cart_pole.rs` and `examples/cart_pole_lqr.rs`, shared with
//! `tests/linearization.rs`, which checks its linearization upright against the closed
//! form: the examples steer the model the tests check. With its units, which change no
//! number (`tests/units.rs`).

use lagrange_runtime::prelude::*;

lagrangian! {
    /// A cart pushed by a force f, carrying a uniform pole; theta from the upward vertical.
    pub struct CartPole {
        parameters: M = 1.0 [kg], m = 0.3 [kg], L = 1.0 [m], g = 9.81 [m/s^2];
        coordinates: x [m], theta [rad];
        inputs: f [N];

        // Centre of mass of the pole.
        let xc = x + L/2 * sin(theta);
        let yc = L/2 * cos(theta);

        // Cart, pole's centre of mass, pole's rotation about it (m L²/12).
        kinetic = M/2 * dot(x)^2 + m/2 * (dot(xc)^2 + dot(yc)^2) + m*L^2/24 * dot(theta)^2;
        potential = m * g * yc;
        force f on x;
    }
}
