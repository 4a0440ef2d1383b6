//! Planar two-link arm (Spong, Hutchinson & Vidyasagar, "Robot Modeling and Control",
//! §7.4.2): joint angles q1 (from the horizontal) and q2 (relative), links of length
//! l1, l2 with centres of mass at lc1, lc2 and inertias I1, I2 about them, gravity g
//! along −y, viscous joint damping b1, b2 and joint torques τ1, τ2.
//!
//! ```text
//! M(q) q̈ + c(q, q̇) + φ(q) + b q̇ = τ
//! M11 = m1 lc1² + m2 (l1² + lc2² + 2 l1 lc2 cos q2) + I1 + I2
//! M12 = M21 = m2 (lc2² + l1 lc2 cos q2) + I2
//! M22 = m2 lc2² + I2
//! h   = −m2 l1 lc2 sin q2
//! c   = ( h (2 q̇1 q̇2 + q̇2²),  −h q̇1² )
//! φ   = ( (m1 lc1 + m2 l1) g cos q1 + m2 lc2 g cos(q1+q2),  m2 lc2 g cos(q1+q2) )
//! Q   = τ − b q̇
//! ```

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

// Two-link planar arm with distributed link inertia.
use lagrange_test_models::pendulums::{
    TwoLinkArm as Arm, TwoLinkArmCoordinates as ArmCoordinates, TwoLinkArmInputs as ArmInputs,
};

type V2 = SVector<f64, 2>;
type M2 = SMatrix<f64, 2, 2>;

/// Irregular states (q1, q2, q̇1, q̇2), all moving.
const STATES: [[f64; 4]; 5] = [
    [0.3, -1.2, 0.9, 0.4],
    [-2.7, 0.55, -0.13, 1.7],
    [1.9, 3.1, 2.4, -0.8],
    [0.01, 1.57, -0.61, -2.29],
    [-0.44, -2.71, 0.05, 3.3],
];

fn state([q1, q2, qd1, qd2]: [f64; 4]) -> State<2> {
    let q: V2 = ArmCoordinates { q1, q2 }.into();
    State::new(0.25, q, ArmCoordinates { q1: qd1, q2: qd2 }.into())
}

/// The textbook terms M, c, φ at a state.
fn spong(a: &Arm, [q1, q2, qd1, qd2]: [f64; 4]) -> (M2, V2, V2) {
    let c2 = q2.cos();
    let m11 = a.m1 * a.lc1.powi(2)
        + a.m2 * (a.l1.powi(2) + a.lc2.powi(2) + 2.0 * a.l1 * a.lc2 * c2)
        + a.I1
        + a.I2;
    let m12 = a.m2 * (a.lc2.powi(2) + a.l1 * a.lc2 * c2) + a.I2;
    let m22 = a.m2 * a.lc2.powi(2) + a.I2;
    let h = -a.m2 * a.l1 * a.lc2 * q2.sin();
    let c = V2::new(h * (2.0 * qd1 * qd2 + qd2 * qd2), -h * qd1 * qd1);
    let g12 = a.m2 * a.lc2 * a.g * (q1 + q2).cos();
    let phi = V2::new((a.m1 * a.lc1 + a.m2 * a.l1) * a.g * q1.cos() + g12, g12);
    (M2::new(m11, m12, m12, m22), c, phi)
}

fn assert_vec_close(got: &[f64], want: &[f64], scale: f64, what: &str) {
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-12 * scale.max(w.abs()),
            "{what}: got {got:?}, want {want:?}"
        );
    }
}

/// The same arm with gravity and damping switched off (to isolate c).
fn frictionless_in_space(a: &Arm) -> Arm {
    Arm {
        g: 0.0,
        b1: 0.0,
        b2: 0.0,
        ..*a
    }
}

fn arms() -> [Arm; 2] {
    [
        Arm::default(),
        Arm::new(2.1, 0.4, 1.1, 0.6, 0.2, 0.3, 0.01, 3.7, 1.4, 0.02),
    ]
}

#[test]
fn mass_matrix_matches_spong() {
    let u = V2::zeros();
    for a in arms() {
        for st in STATES {
            let (m, _, _) = spong(&a, st);
            let got = a.mass_matrix(&state(st), &u);
            assert_vec_close(got.as_slice(), m.as_slice(), m[(0, 0)], "M(q)");
        }
    }
}

#[test]
fn gravity_and_coriolis_match_spong() {
    let (u, zero) = (V2::zeros(), V2::zeros());
    for a in arms() {
        for st in STATES {
            let (_, c, phi) = spong(&a, st);
            // At rest, the torque holding the arm still is φ(q).
            let rest = State::at_rest(state(st).q);
            let got = a.inverse_dynamics(&rest, &zero, &u);
            assert_vec_close(got.as_slice(), phi.as_slice(), phi.amax(), "φ(q)");
            // Without gravity or damping, the torque for q̈ = 0 is c(q, q̇).
            let free = frictionless_in_space(&a);
            let got = free.inverse_dynamics(&state(st), &zero, &u);
            let scale = a.m2 * a.l1 * a.lc2 * (st[2].abs() + st[3].abs()).powi(2);
            assert_vec_close(got.as_slice(), c.as_slice(), scale, "c(q, q̇)");
        }
    }
}

#[test]
fn generalized_forces_are_torques_minus_damping() {
    for a in arms() {
        for (i, st) in STATES.into_iter().enumerate() {
            let (tau1, tau2) = (1.7 - 0.9 * i as f64, -0.35 + 0.6 * i as f64);
            let u: V2 = ArmInputs { tau1, tau2 }.into();
            let got = a.generalized_forces(&state(st), &u);
            let want = [tau1 - a.b1 * st[2], tau2 - a.b2 * st[3]];
            assert_vec_close(got.as_slice(), &want, 1.0, "Q = τ − b q̇");
        }
    }
}

#[test]
fn accelerations_solve_the_textbook_equations() {
    for a in arms() {
        for st in STATES {
            let u: V2 = ArmInputs {
                tau1: 0.8,
                tau2: -1.3,
            }
            .into();
            let (m, c, phi) = spong(&a, st);
            let damping = V2::new(a.b1 * st[2], a.b2 * st[3]);
            // q̈ = M⁻¹ (τ − c − φ − b q̇)
            let rhs = u - c - phi - damping;
            let want = m.try_inverse().unwrap() * rhs;
            let got = a.accelerations(&state(st), &u).unwrap();
            let scale = want.amax().max(rhs.amax() / m[(1, 1)]);
            assert_vec_close(got.as_slice(), want.as_slice(), scale, "q̈");
        }
    }
}

#[test]
fn computed_torque() {
    for a in arms() {
        for st in STATES {
            let s = state(st);
            let qdd_des = V2::new(0.7 - st[0], -1.9 + 0.5 * st[1]);
            // τ = M q̈_des + c + φ + b q̇
            let (m, c, phi) = spong(&a, st);
            let damping = V2::new(a.b1 * st[2], a.b2 * st[3]);
            let tau = m * qdd_des + c + phi + damping;
            let got = a.inverse_dynamics(&s, &qdd_des, &V2::zeros());
            assert_vec_close(got.as_slice(), tau.as_slice(), tau.amax(), "τ");
            // Applying it through the inputs produces q̈_des, and nothing more is missing.
            let u: V2 = ArmInputs {
                tau1: tau[0],
                tau2: tau[1],
            }
            .into();
            let qdd = a.accelerations(&s, &u).unwrap();
            let scale = qdd_des.amax().max(tau.amax() / m[(1, 1)]);
            assert_vec_close(qdd.as_slice(), qdd_des.as_slice(), scale, "q̈ under τ");
            let rest = a.inverse_dynamics(&s, &qdd_des, &u);
            assert!(rest.amax() <= 1e-12 * tau.amax(), "left over: {rest}");
        }
    }
}

/// Exact derivatives against central differences (`common::derivatives`).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("Arm", &Arm::default())
        .standard()
        .state(
            "straight up, holding",
            State::at_rest(SVector::from([std::f64::consts::FRAC_PI_2, 0.0])),
            SVector::from([1.0, 0.5]),
        )
        .check();
}
