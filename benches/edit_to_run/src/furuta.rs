//! The model `measure.sh` edits (a parameter's default toggles).

use lagrange_runtime::prelude::*;

lagrangian! {
    /// A Furuta pendulum (arm φ, pendulum θ from upright), as examples/furuta_digital.rs.
    pub struct Furuta {
        parameters: r = 0.085, jr = 2.3e-4, mp = 0.024, lp = 0.129, br = 5e-4, bp = 2e-5,
                    g = 9.81;
        coordinates: phi, theta;
        inputs: tau;
        let c = [r * cos(phi) - lp / 2 * sin(theta) * sin(phi),
                 r * sin(phi) + lp / 2 * sin(theta) * cos(phi),
                 lp / 2 * cos(theta)];
        kinetic = jr / 2 * dot(phi)^2 + mp / 2 * dot(c)^2
                + mp * lp^2 / 24 * (dot(theta)^2 + sin(theta)^2 * dot(phi)^2);
        potential = mp * g * c.z;
        dissipation = br / 2 * dot(phi)^2 + bp / 2 * dot(theta)^2;
        force tau on phi;
    }
}
