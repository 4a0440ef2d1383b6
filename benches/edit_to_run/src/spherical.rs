//! A spherical pendulum in its two angles.

use lagrange_runtime::prelude::*;

lagrangian! {
    /// A point mass on a massless rod of length l, θ from the downward vertical.
    pub struct Spherical {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: theta, phi;
        let bob = [l * sin(theta) * cos(phi), l * sin(theta) * sin(phi), -l * cos(theta)];
        kinetic = m / 2 * dot(bob)^2;
        potential = m * g * bob.z;
    }
}
