//! The planar double pendulum of `examples/double_pendulum.rs` without its units (units
//! change no number, `tests/units.rs`), used by the tests that check it (`double_pendulum`,
//! `equilibria`, `fast_path`, `linearization`, `long_run_energy`) and the benches that time
//! it (`accelerations`, `integrators`). Tests that need another form of it (other
//! parameters, Cartesian coordinates, dissipation, vector `let`s) write their own.

use lagrange_runtime::prelude::*;

lagrangian! {
    /// Planar double pendulum with point masses, angles from the downward vertical.
    pub struct DoublePendulum {
        parameters: m1 = 1.0, m2 = 1.0, l1 = 1.0, l2 = 1.0, g = 9.81;
        coordinates: theta1, theta2;

        let x1 = l1 * sin(theta1);
        let y1 = -l1 * cos(theta1);
        let x2 = x1 + l2 * sin(theta2);
        let y2 = y1 - l2 * cos(theta2);

        kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * (dot(x2)^2 + dot(y2)^2);
        potential = g * (m1*y1 + m2*y2);
    }
}
