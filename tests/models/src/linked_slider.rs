//! A slider kept under a pendulum's bob by a constraint that rounds at q = 0 (issue 45,
//! item 1), shared by `constraint_drift` (simulations start there) and `equilibria` (the
//! equilibrium there).

use lagrange_runtime::prelude::*;

lagrangian! {
    /// A pendulum (bob mb on a rod l, θ from the downward vertical) and a slider (mass ms,
    /// position x, on a spring k to the origin) kept under the bob: x = l sin θ, written
    /// as x + l cos(θ + π/2) = 0. At q = 0 the constraint rounds to l·6.1e-17 (the cosine
    /// of the rounded π/2), where max|∂φ/∂q| max|q| is 0.
    pub struct LinkedSlider {
        parameters: mb = 1.0, ms = 0.5, l = 0.8, k = 3.0, g = 9.81;
        coordinates: x, theta;
        kinetic = ms/2 * dot(x)^2 + mb/2 * l^2 * dot(theta)^2;
        potential = k/2 * x^2 - mb * g * l * cos(theta);
        constraint link = x + l*cos(theta + pi/2);
    }
}
