//! A differential-drive robot: two wheels that roll without slipping sideways.

use lagrange_runtime::prelude::*;

lagrangian! {
    /// A cart of mass m and yaw inertia J on two driven wheels a half-track b apart; the
    /// wheels' forces push it along its heading and turn it.
    pub struct Rolling {
        parameters: m = 4.0, J = 0.1, b = 0.15, c = 0.5;
        coordinates: x, y, heading;
        inputs: left, right;
        kinetic = m / 2 * (dot(x)^2 + dot(y)^2) + J / 2 * dot(heading)^2;
        dissipation = c / 2 * (dot(x)^2 + dot(y)^2);
        force (left + right) * [cos(heading), sin(heading)] on [x, y];
        force b * (right - left) on heading;
        constraint no_skid = -sin(heading) * dot(x) + cos(heading) * dot(y);
    }
}
