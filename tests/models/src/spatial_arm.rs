//! The two-link spatial arm of `examples/spatial_arm.rs` (written with rotations, as in the
//! README) without its units, shared by `tests/spatial_arm.rs`, which checks it against a
//! scalar form and two independent truths, and `benches/spatial_arm.rs`, which times it
//! against a scalar form. Each keeps its own scalar form: the test's leaves out the terms
//! that are identically zero, the bench's writes every term as a user would.

use lagrange_runtime::prelude::*;

lagrangian! {
    /// Two-link spatial arm: a yaw joint about the vertical, a pitch joint, rigid links.
    pub struct SpatialArm {
        parameters: m2 = 0.8, l1 = 0.5, a2 = 0.2, I1z = 0.01,
                    I2x = 0.01, I2y = 0.015, I2z = 0.015, g = 9.81, c = 0.05;
        coordinates: yaw, pitch;
        inputs: tau1, tau2;

        let R1 = rot_z(yaw);                       // link 1 turns about the vertical axis
        let R2 = R1 * rot_y(-pitch);               // link 2 pitches up from the horizontal
        let p2 = [0, 0, l1] + R2 * [a2, 0, 0];     // centre of mass of link 2
        let w1 = body_angular_velocity(R1);
        let w2 = body_angular_velocity(R2);

        kinetic = I1z/2 * w1.z^2
                + m2/2 * dot(p2)^2 + inner(w2, diag(I2x, I2y, I2z) * w2) / 2;
        potential = m2 * g * p2.z;
        dissipation = c/2 * (dot(yaw)^2 + dot(pitch)^2);
        force tau1 on yaw;
        force tau2 on pitch;
    }
}
