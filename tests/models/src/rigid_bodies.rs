//! Rigid bodies in Euler angles and unit quaternions, and a wheel rolling without
//! slipping.

use lagrange_runtime::prelude::*;

lagrangian! {
    /// A free rigid body with principal moments I1 < I2 < I3, z-y-x Euler angles. At
    /// pitch = roll = 0 the body z axis is the fixed z axis, and yaw, on which nothing
    /// depends, turns the body about it.
    pub struct FreeBody {
        parameters: I1 = 0.1, I2 = 0.2, I3 = 0.25;
        coordinates: yaw, pitch, roll;

        let R = rot_z(yaw) * rot_y(pitch) * rot_x(roll);
        let w = body_angular_velocity(R);

        kinetic = inner(w, diag(I1, I2, I3) * w) / 2;
    }
}

lagrangian! {
    /// A free rigid body, orientation by a unit quaternion.
    pub struct QuaternionBody {
        parameters: I1 = 0.1, I2 = 0.2, I3 = 0.25;
        coordinates: w, x, y, z;

        let R = quat(w, x, y, z);
        let omega = body_angular_velocity(R);

        kinetic = inner(omega, diag(I1, I2, I3) * omega) / 2;
        constraint unit = w^2 + x^2 + y^2 + z^2 - 1;
    }
}

lagrangian! {
    /// A rigid body hanging from a fixed pivot, orientation by a unit quaternion: centre of
    /// mass at l below the pivot along the body z axis, moments I1, I2, I3 about the pivot.
    pub struct QuaternionPendulum {
        parameters: m = 2.0, l = 0.3, I1 = 0.4, I2 = 0.25, I3 = 0.1, g = 9.81;
        coordinates: w, x, y, z;

        let R = quat(w, x, y, z);
        let omega = body_angular_velocity(R);

        kinetic = inner(omega, diag(I1, I2, I3) * omega) / 2;
        potential = -m * g * l * (R * [0, 0, 1]).z;
        constraint unit = w^2 + x^2 + y^2 + z^2 - 1;
    }
}

lagrangian! {
    /// Issue 25's rear wheel rolling without slipping, with a frame pitching about its axle.
    pub struct Unicycle {
        parameters: g = 9.81, r = 0.3, m = 2.0, Ixx = 0.06, Iyy = 0.12,
                    xB = 0.3, zB = -0.9, mB = 85.0, IBxx = 9.2, IByy = 11.0, IBzz = 2.8, IBxz = 2.4;
        coordinates: x, y, psi, phi, thetaB, thetaR;
        let RY = rot_z(psi) * rot_x(phi);
        let RB = RY * rot_y(thetaB);
        let RW = RB * rot_y(thetaR);
        let c = [x, y, 0] + RY * [0, 0, -r];
        let pB = c + RB * [xB, 0, zB + r];
        let wB = body_angular_velocity(RB);
        let wW = body_angular_velocity(RW);
        let IB = [[IBxx, 0, IBxz], [0, IByy, 0], [IBxz, 0, IBzz]];
        let v = dot(c) + cross(angular_velocity(RW), [x, y, 0] - c);
        kinetic = m/2 * dot(c)^2 + inner(wW, diag(Ixx, Iyy, Ixx) * wW)/2
                + mB/2 * dot(pB)^2 + inner(wB, IB * wB)/2;
        potential = -g * (m * c.z + mB * pB.z);
        constraint roll = [v.x, v.y];
    }
}
