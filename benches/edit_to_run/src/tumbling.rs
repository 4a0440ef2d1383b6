//! A box tumbling freely, its orientation a unit quaternion (for RATTLE).

use lagrange_runtime::prelude::*;

lagrangian! {
    /// A rigid box with principal moments I1 < I2 < I3.
    pub struct Tumbling {
        parameters: I1 = 0.1, I2 = 0.2, I3 = 0.25;
        coordinates: w, x, y, z;
        let R = quat(w, x, y, z);
        let omega = body_angular_velocity(R);
        kinetic = inner(omega, diag(I1, I2, I3) * omega) / 2;
        constraint unit = w^2 + x^2 + y^2 + z^2 - 1;
    }
}
