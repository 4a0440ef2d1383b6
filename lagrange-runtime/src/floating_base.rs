//! The velocities of a floating base as estimators and controllers write them.
//!
//! `urdf: "path" floating;` gives a robot's root seven coordinates, its position p in the
//! world frame and a unit quaternion n = (w, x, y, z), then the joints: its velocities are
//! their rates (ṗ, ṅ), and [`Dynamics::accelerations`](crate::Dynamics::accelerations)
//! returns their second derivatives. State estimators, whole-body controllers and
//! Pinocchio speak of the base's twist instead, in the base's own axes: v = Rᵀ ṗ (the
//! velocity of the base's origin) and ω (its angular velocity), with R the base's
//! orientation. This module maps one to the other, both ways, for velocities and for
//! accelerations; the joints' rates are the same in both.
//!
//! With r = (x, y, z) and G = 2 (−r | w I − r×) (3 × 4, r× the cross product by r),
//! ω = G ṅ; G n = 0 and G Gᵀ = 4 |n|² I, so ṅ = Gᵀ ω / (4 |n|²) is the rate of the
//! quaternion that turns at ω and keeps its length. R is the model's own, `quat(w, x, y, z)` (its homogeneous form, exact for a
//! unit n). For accelerations, a = (Rᵀ p̈ − ω × v, G n̈) is Pinocchio's `a` (the time
//! derivative of v in the base's moving axes, and of ω), and back p̈ = R (a_v + ω × v),
//! n̈ = Gᵀ ω̇ / (4 |n|²) − |ṅ|² n / |n|² (which keeps |n| constant to second order).
//!
//! # Example
//! The base of a robot turning about its own z axis at 2 rad/s while moving forward along
//! its x axis at 1 m/s, with its base turned a quarter about z in the world:
//! ```
//! use lagrange_runtime::floating_base::{self, BaseTwist};
//! use lagrange_runtime::{SVector, State};
//!
//! let h = std::f64::consts::FRAC_PI_4; // half of the quarter turn
//! // base_x base_y base_z base_qw base_qx base_qy base_qz, then one joint.
//! let q = SVector::from([0.0, 0.0, 0.5, h.cos(), 0.0, 0.0, h.sin(), 0.3]);
//! let mut s = State::at_rest(q);
//! let twist = BaseTwist {
//!     linear: SVector::from([1.0, 0.0, 0.0]),
//!     angular: SVector::from([0.0, 0.0, 2.0]),
//! };
//! floating_base::set_twist(&mut s, &twist);
//! // The base's x axis points along the world's y: ṗ = (0, 1, 0).
//! assert!((s.qd[0] - 0.0).abs() < 1e-15 && (s.qd[1] - 1.0).abs() < 1e-15);
//! // ṅ = ½ n ⊗ (0, ω): (−sin(h), 0, 0, cos(h)) for ω = 2 about z.
//! assert!((s.qd[3] + h.sin()).abs() < 1e-15 && (s.qd[6] - h.cos()).abs() < 1e-15);
//! let back = floating_base::twist(&s);
//! assert!((back.linear - twist.linear).amax() < 1e-15);
//! assert!((back.angular - twist.angular).amax() < 1e-15);
//! ```

use crate::State;
use nalgebra::{SMatrix, SVector};

/// The coordinates of a floating base: position (3) and quaternion (4).
const BASE: usize = 7;

/// A floating base's twist, or its time derivative, in the base's own axes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BaseTwist {
    /// The velocity of the base's origin, v = Rᵀ ṗ (or its derivative in the moving axes,
    /// Rᵀ p̈ − ω × v).
    pub linear: SVector<f64, 3>,
    /// The angular velocity ω = G ṅ (or ω̇ = G n̈).
    pub angular: SVector<f64, 3>,
}

/// The base's orientation R (the model's `quat`, homogeneous form) and G, at q.
fn frame<const N: usize>(q: &SVector<f64, N>) -> (SMatrix<f64, 3, 3>, SMatrix<f64, 3, 4>, f64) {
    const {
        assert!(
            N >= BASE,
            "a floating base has 7 coordinates before the joints"
        )
    };
    let (w, x, y, z) = (q[3], q[4], q[5], q[6]);
    let rotation = SMatrix::<f64, 3, 3>::new(
        w * w + x * x - y * y - z * z,
        2.0 * (x * y - w * z),
        2.0 * (x * z + w * y),
        2.0 * (x * y + w * z),
        w * w - x * x + y * y - z * z,
        2.0 * (y * z - w * x),
        2.0 * (x * z - w * y),
        2.0 * (y * z + w * x),
        w * w - x * x - y * y + z * z,
    );
    let g = 2.0 * SMatrix::<f64, 3, 4>::new(-x, w, z, -y, -y, -z, w, x, -z, y, -x, w);
    (rotation, g, w * w + x * x + y * y + z * z)
}

/// The quaternion's part of q̇ or q̈.
fn quaternion<const N: usize>(v: &SVector<f64, N>) -> SVector<f64, 4> {
    v.fixed_rows::<4>(3).into_owned()
}

/// The base's twist at the state: v = Rᵀ ṗ and ω = G ṅ, in the base's axes.
pub fn twist<const N: usize>(s: &State<N>) -> BaseTwist {
    let (rotation, g, _) = frame(&s.q);
    BaseTwist {
        linear: rotation.transpose() * s.qd.fixed_rows::<3>(0),
        angular: g * quaternion(&s.qd),
    }
}

/// Sets the base's rates in `s.qd` to those of the twist: ṗ = R v, ṅ = Gᵀ ω / (4 |n|²)
/// (the joints' rates are left as they are).
pub fn set_twist<const N: usize>(s: &mut State<N>, twist: &BaseTwist) {
    let (rotation, g, length) = frame(&s.q);
    let p = rotation * twist.linear;
    let n = g.transpose() * twist.angular / (4.0 * length);
    s.qd.fixed_rows_mut::<3>(0).copy_from(&p);
    s.qd.fixed_rows_mut::<4>(3).copy_from(&n);
}

/// The base's acceleration for the model's q̈ at the state (Pinocchio's `a`): Rᵀ p̈ − ω × v
/// and ω̇ = G n̈.
pub fn acceleration<const N: usize>(s: &State<N>, qdd: &SVector<f64, N>) -> BaseTwist {
    let (rotation, g, _) = frame(&s.q);
    let v = twist(s);
    BaseTwist {
        linear: rotation.transpose() * qdd.fixed_rows::<3>(0) - v.angular.cross(&v.linear),
        angular: g * quaternion(qdd),
    }
}

/// Sets the base's part of `qdd` to the second derivatives of its coordinates for the
/// base's acceleration `a` at the state: p̈ = R (a_v + ω × v), n̈ = Gᵀ ω̇ / (4 |n|²) −
/// |ṅ|² n / |n|² (the joints' accelerations are left as they are).
pub fn set_acceleration<const N: usize>(s: &State<N>, a: &BaseTwist, qdd: &mut SVector<f64, N>) {
    let (rotation, g, length) = frame(&s.q);
    let v = twist(s);
    let p = rotation * (a.linear + v.angular.cross(&v.linear));
    let nd = quaternion(&s.qd);
    let n = g.transpose() * a.angular / (4.0 * length)
        - quaternion(&s.q) * (nd.norm_squared() / length);
    qdd.fixed_rows_mut::<3>(0).copy_from(&p);
    qdd.fixed_rows_mut::<4>(3).copy_from(&n);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit quaternion in a random direction, and a state with it.
    fn state(seed: u64) -> State<9> {
        let mut x = seed;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let mut q = SVector::<f64, 9>::from_fn(|_, _| next());
        let n = q.fixed_rows::<4>(3).normalize();
        q.fixed_rows_mut::<4>(3).copy_from(&n);
        let mut s = State::new(0.0, q, SVector::from_fn(|_, _| next()));
        let twist = BaseTwist {
            linear: SVector::from_fn(|_, _| next()),
            angular: SVector::from_fn(|_, _| next()),
        };
        set_twist(&mut s, &twist);
        s
    }

    /// Round trips, both ways, and the twist's meaning: R after a short time is R exp(ω×),
    /// and the base's origin moves along R v (central differences of the rotation and the
    /// position along the rates, at random states and at the identity at rest).
    #[test]
    fn twists_and_rates_are_one_motion() {
        for seed in [3, 17, 29, 41] {
            let s = state(seed);
            let t = twist(&s);
            let mut again = s;
            again.qd.fixed_rows_mut::<7>(0).fill(0.0);
            set_twist(&mut again, &t);
            assert!((again.qd - s.qd).amax() < 1e-14, "{seed}");
            // |n| is kept: n · ṅ = 0.
            assert!(quaternion(&s.q).dot(&quaternion(&s.qd)).abs() < 1e-15);
            // Ṙ = R [ω]× by central differences.
            let h = 1e-6;
            let at = |dt: f64| frame(&(s.q + s.qd * dt)).0;
            let rdot = (at(h) - at(-h)) / (2.0 * h);
            let (rotation, _, _) = frame(&s.q);
            let w = t.angular;
            let cross =
                SMatrix::<f64, 3, 3>::new(0.0, -w[2], w[1], w[2], 0.0, -w[0], -w[1], w[0], 0.0);
            assert!((rdot - rotation * cross).amax() < 1e-8, "{seed}");
            assert!((rotation * t.linear - s.qd.fixed_rows::<3>(0)).amax() < 1e-15);
        }
        let mut identity = SVector::<f64, 9>::zeros();
        identity[3] = 1.0;
        let s = State::at_rest(identity);
        assert_eq!(twist(&s).linear, SVector::<f64, 3>::zeros());
        assert_eq!(twist(&s).angular, SVector::<f64, 3>::zeros());
    }

    /// Accelerations: round trips, |n| kept to second order (n · n̈ + |ṅ|² = 0), and the
    /// twist's derivative by central differences along the motion with those accelerations.
    #[test]
    fn accelerations_are_the_twists_rate() {
        for seed in [5, 11, 23] {
            let s = state(seed);
            let a = BaseTwist {
                linear: SVector::from([0.3, -0.2, 0.9]),
                angular: SVector::from([-0.5, 0.4, 0.1]),
            };
            let mut qdd = SVector::<f64, 9>::from_fn(|i, _| i as f64);
            set_acceleration(&s, &a, &mut qdd);
            assert_eq!(qdd[7], 7.0, "the joints' accelerations are kept");
            let back = acceleration(&s, &qdd);
            assert!((back.linear - a.linear).amax() < 1e-14, "{seed}");
            assert!((back.angular - a.angular).amax() < 1e-14, "{seed}");
            let n = quaternion(&s.q);
            let nd = quaternion(&s.qd);
            assert!((n.dot(&quaternion(&qdd)) + nd.norm_squared()).abs() < 1e-14);
            // d/dt of (v, ω) along q(t) = q + q̇ t + q̈ t²/2: v = Rᵀ ṗ changes at
            // Ṙᵀ ṗ + Rᵀ p̈ = Rᵀ p̈ − ω × v, and ω = G ṅ at G n̈ (G(ṅ) ṅ = 0).
            let h = 1e-5;
            let at = |dt: f64| {
                let q = s.q + s.qd * dt + qdd * (dt * dt / 2.0);
                let qd = s.qd + qdd * dt;
                twist(&State::new(0.0, q, qd))
            };
            let (plus, minus) = (at(h), at(-h));
            let wdot = (plus.angular - minus.angular) / (2.0 * h);
            assert!((wdot - a.angular).amax() < 1e-8, "{seed}: {wdot}");
            let vdot = (plus.linear - minus.linear) / (2.0 * h);
            assert!((vdot - a.linear).amax() < 1e-8, "{seed}: {vdot}");
        }
    }
}
