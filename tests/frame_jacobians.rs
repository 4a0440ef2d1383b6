//! Frame Jacobians (`Name::jacobians`, DSL.md "Frame Jacobians"): each against its closed
//! form, and every one against finite differences of the `let` it differentiates (∂p/∂q,
//! ∂v/∂q̇, and the drift as the second difference of p, or the first of v, along the
//! motion), at structured states (all zero, at rest, upright) and random ones.

use crate::common;

use common::Rng;
use lagrange_runtime::nalgebra::{Matrix3, Vector3};
use lagrange_runtime::prelude::*;
use std::f64::consts::PI;

lagrangian! {
    /// A double pendulum of point masses; the bob positions and velocities as `let`s, and
    /// quantities that have no Jacobian (a matrix, a speed).
    struct Pendulum2 {
        parameters: m1 = 1.0, m2 = 2.0, l1 = 0.7, l2 = 1.3, g = 9.81;
        coordinates: q1, q2;
        let p1 = [l1 * sin(q1), -l1 * cos(q1)];
        let p2 = p1 + [l2 * sin(q2), -l2 * cos(q2)];
        let height = p2.y;
        let v2 = dot(p2);
        let R = rot_z(q1);
        let speed = norm(dot(p2));
        kinetic = m1/2 * dot(p1)^2 + m2/2 * v2^2;
        potential = g * (m1 * p1.y + m2 * p2.y);
    }
}

lagrangian! {
    /// A body oriented by roll, pitch, yaw on a cart driven along x by a prescribed motion,
    /// pushed by an input: position and velocity `let`s that depend on t and u.
    struct DrivenBody {
        parameters: a = 0.4, w = 3.0, I1 = 1.0, I2 = 2.0, I3 = 3.0;
        coordinates: roll, pitch, yaw, s;
        inputs: f;
        let R = rpy(roll, pitch, yaw);
        let omega = body_angular_velocity(R);
        let cart = [s + a * cos(w * t), 0, 0];
        let marker = cart + R * [0.2, 0.1, f];
        kinetic = (I1 * omega.x^2 + I2 * omega.y^2 + I3 * omega.z^2) / 2 + dot(s)^2 / 2;
        force f on s;
    }
}

fn state<const N: usize>(t: f64, q: [f64; N], qd: [f64; N]) -> State<N> {
    State::new(t, SVector::from(q), SVector::from(qd))
}

/// The Jacobian of `value` (a let as a vector) against central differences, as the module
/// docs say; `velocity` for a velocity-level `let`.
fn check_against_differences<const N: usize, const M: usize, const R: usize>(
    what: &str,
    value: impl Fn(&State<N>, &SVector<f64, M>) -> SVector<f64, R>,
    jacobian: &Jacobian<R, N>,
    s: &State<N>,
    u: &SVector<f64, M>,
    velocity: bool,
) {
    let h = 1e-5;
    let scale = 1.0 + jacobian.matrix.amax() + jacobian.drift.amax();
    for j in 0..N {
        let moved = |d: f64| {
            let mut m = *s;
            if velocity {
                m.qd[j] += d;
            } else {
                m.q[j] += d;
            }
            value(&m, u)
        };
        let difference = (moved(h) - moved(-h)) / (2.0 * h);
        let err = (difference - jacobian.matrix.column(j)).amax();
        assert!(
            err < 1e-8 * scale,
            "{what}: column {j} off by {err:e} at {s:?}"
        );
    }
    // Along the motion: q moves with q̇, t with 1, q̇ and u stay.
    let along = |d: f64| {
        let m = State::new(s.t + d, s.q + s.qd * d, s.qd);
        value(&m, u)
    };
    let h = 1e-4;
    let drift = if velocity {
        (along(h) - along(-h)) / (2.0 * h)
    } else {
        (along(h) - along(0.0) * 2.0 + along(-h)) / (h * h)
    };
    let err = (drift - jacobian.drift).amax();
    assert!(err < 1e-5 * scale, "{what}: drift off by {err:e} at {s:?}");
}

/// Structured states (all zero; at rest; upright; one coordinate moving) and random ones.
fn states<const N: usize>(rng: &mut Rng, t: f64) -> Vec<State<N>> {
    let mut out = vec![
        state(0.0, [0.0; N], [0.0; N]),
        state(t, [0.0; N], [0.0; N]),
        state(t, [PI; N], [0.0; N]),
    ];
    let mut one = [0.0; N];
    one[0] = 1.3;
    out.push(state(t, [0.0; N], one));
    for _ in 0..4 {
        let q = std::array::from_fn(|_| rng.uniform(-2.0, 2.0));
        let qd = std::array::from_fn(|_| rng.uniform(-2.0, 2.0));
        out.push(state(rng.uniform(0.0, 3.0), q, qd));
    }
    out
}

#[test]
fn double_pendulum_bobs_match_the_closed_form() {
    let model = Pendulum2::default();
    let (l1, l2) = (model.l1, model.l2);
    let none = SVector::<f64, 0>::zeros();
    let mut rng = Rng(7);
    for s in states::<2>(&mut rng, 0.5) {
        let j = model.jacobians(&s, &none);
        let (q1, q2, w1, w2) = (s.q[0], s.q[1], s.qd[0], s.qd[1]);
        // p2 = (l1 sin q1 + l2 sin q2, −l1 cos q1 − l2 cos q2).
        let matrix =
            SMatrix::<f64, 2, 2>::new(l1 * q1.cos(), l2 * q2.cos(), l1 * q1.sin(), l2 * q2.sin());
        let drift = SVector::from([
            -l1 * q1.sin() * w1 * w1 - l2 * q2.sin() * w2 * w2,
            l1 * q1.cos() * w1 * w1 + l2 * q2.cos() * w2 * w2,
        ]);
        assert!((j.p2.matrix - matrix).amax() < 1e-15, "{s:?}");
        assert!((j.p2.drift - drift).amax() < 1e-14, "{s:?}");
        // The height is p2's second row; v2 = J q̇ has the same Jacobian with respect to q̇,
        // and its drift is p2's.
        assert_eq!(j.height.matrix.row(0), j.p2.matrix.row(1));
        assert!((j.v2.matrix - matrix).amax() < 1e-15);
        assert!((j.v2.drift - drift).amax() < 1e-14);
        // Every one against differences of the lets.
        let lets = |s: &State<2>, u: &SVector<f64, 0>| model.lets(s, u);
        check_against_differences("p1", |s, u| lets(s, u).p1, &j.p1, &s, &none, false);
        check_against_differences("p2", |s, u| lets(s, u).p2, &j.p2, &s, &none, false);
        check_against_differences(
            "height",
            |s, u| SVector::from([lets(s, u).height]),
            &j.height,
            &s,
            &none,
            false,
        );
        check_against_differences("v2", |s, u| lets(s, u).v2, &j.v2, &s, &none, true);
    }
}

#[test]
fn angular_velocity_and_time_dependent_points_match_differences() {
    let model = DrivenBody::default();
    let mut rng = Rng(11);
    for (k, s) in states::<4>(&mut rng, 1.1).into_iter().enumerate() {
        let u = SVector::from([if k % 2 == 0 {
            0.0
        } else {
            rng.uniform(-1.0, 1.0)
        }]);
        let j = model.jacobians(&s, &u);
        let lets = |s: &State<4>, u: &SVector<f64, 1>| model.lets(s, u);
        check_against_differences("omega", |s, u| lets(s, u).omega, &j.omega, &s, &u, true);
        check_against_differences("cart", |s, u| lets(s, u).cart, &j.cart, &s, &u, false);
        check_against_differences("marker", |s, u| lets(s, u).marker, &j.marker, &s, &u, false);
        // ω_b of Z-Y-X angles is E(roll, pitch) times the rates: E in closed form.
        let (r, p) = (s.q[0], s.q[1]);
        let e = Matrix3::new(
            1.0,
            0.0,
            -p.sin(),
            0.0,
            r.cos(),
            p.cos() * r.sin(),
            0.0,
            -r.sin(),
            p.cos() * r.cos(),
        );
        let omega = j.omega.matrix.fixed_view::<3, 3>(0, 0);
        assert!((omega - e).amax() < 1e-15, "E at {s:?}");
        assert_eq!(j.omega.matrix.column(3), Vector3::zeros());
        // The cart's prescribed motion a cos(w t): its drift is −a w² cos(w t).
        let want = -model.a * model.w * model.w * (model.w * s.t).cos();
        assert!(
            (j.cart.drift[0] - want).abs() < 1e-13,
            "cart drift at {s:?}"
        );
    }
}

#[test]
fn jacobians_along_a_trajectory_are_those_at_each_sample() {
    use lagrange_runtime::simulate::{Rk4, Simulation};
    let model = Pendulum2::default();
    let start = state(0.0, [0.4, -0.2], [0.0, 1.0]);
    let trajectory = Simulation::new(&model, start)
        .run(&Rk4::new(0.01), 1.0)
        .expect("runs");
    let along = model.jacobians_along(&trajectory);
    assert_eq!(along.len(), trajectory.len());
    let none = SVector::<f64, 0>::zeros();
    for (j, s) in along.iter().zip(trajectory.states()) {
        assert_eq!(*j, model.jacobians(s, &none));
    }
    // p̈2 = J q̈ + drift, with q̈ from the dynamics: the bob's acceleration.
    let s = trajectory.states()[40];
    let j = model.jacobians(&s, &none);
    let qdd = model.accelerations(&s, &none).expect("regular");
    let acceleration = j.p2.matrix * qdd + j.p2.drift;
    let h = 1e-4;
    let p = |d: f64| {
        let m = State::new(s.t, s.q + s.qd * d + qdd * (d * d / 2.0), s.qd + qdd * d);
        model.lets(&m, &none).p2
    };
    let second = (p(h) - p(0.0) * 2.0 + p(-h)) / (h * h);
    assert!(
        (acceleration - second).amax() < 1e-5,
        "{acceleration} vs {second}"
    );
}
