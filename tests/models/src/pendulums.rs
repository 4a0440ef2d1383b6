//! Pendulums in angles and in Cartesian coordinates (the rod a constraint), the slider
//! with a pendulum, and the two-link arm.

use lagrange_runtime::prelude::*;

lagrangian! {
    /// Point mass m on a massless rod l, θ from the downward vertical, torque tau.
    pub struct Pendulum {
        parameters: m = 1.3, l = 0.7, g = 9.81;
        coordinates: theta;
        inputs: tau;
        kinetic = m/2 * l^2 * dot(theta)^2;
        potential = -m * g * l * cos(theta);
        force tau on theta;
    }
}

lagrangian! {
    /// A pendulum in Cartesian coordinates: a point on a circle of radius l, the rod a
    /// constraint (the parameter l enters it), y up.
    pub struct CartesianPendulum {
        parameters: m = 0.7, l = 1.3, g = 9.81;
        coordinates: x, y;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = m * g * y;
        constraint rod = x^2 + y^2 - l^2;
    }
}

lagrangian! {
    /// Pendulum in Cartesian coordinates of the bob, y up, with a horizontal force fx.
    pub struct ForcedCartesianPendulum {
        parameters: m = 1.3, l = 0.9, g = 9.81;
        coordinates: x, y;
        inputs: fx;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = m * g * y;
        force fx on x;
        constraint rod = x^2 + y^2 - l^2;
    }
}

lagrangian! {
    /// Slider on a horizontal rail with a pendulum, Cartesian coordinates, y pointing
    /// down; the slider is free along the rail.
    pub struct SliderPendulum {
        parameters: m1 = 2.0, m2 = 0.5, l = 0.8, g = 9.81;
        coordinates: x1, y1, x2, y2;

        kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * (dot(x2)^2 + dot(y2)^2);
        potential = -g * (m1*y1 + m2*y2);

        constraint rail = y1;
        constraint rod = (x1 - x2)^2 + (y1 - y2)^2 - l^2;
    }
}

lagrangian! {
    /// Two-link planar arm with distributed link inertia, joint damping and torques.
    pub struct TwoLinkArm {
        parameters: m1 = 1.3, m2 = 0.9, l1 = 0.8, lc1 = 0.35, lc2 = 0.42,
                    I1 = 0.07, I2 = 0.045, g = 9.81, b1 = 0.3, b2 = 0.17;
        coordinates: q1, q2;
        inputs: tau1, tau2;
        let xc1 = lc1 * cos(q1);
        let yc1 = lc1 * sin(q1);
        let xc2 = l1 * cos(q1) + lc2 * cos(q1 + q2);
        let yc2 = l1 * sin(q1) + lc2 * sin(q1 + q2);
        kinetic = m1/2 * (dot(xc1)^2 + dot(yc1)^2) + I1/2 * dot(q1)^2
                + m2/2 * (dot(xc2)^2 + dot(yc2)^2) + I2/2 * (dot(q1) + dot(q2))^2;
        potential = g * (m1*yc1 + m2*yc2);
        dissipation = b1/2 * dot(q1)^2 + b2/2 * dot(q2)^2;
        force tau1 on q1;
        force tau2 on q2;
    }
}
