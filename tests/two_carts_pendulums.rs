//! Two carts on a line (positions x1, x2, masses m1, m2), spring k1 from the wall to cart 1
//! and k2 from cart 1 to cart 2 (both relaxed at x = 0). Each cart carries a rigid
//! pendulum on a pivot: mass m3/m4, moment of inertia J3/J4 about the pivot, centre of
//! mass at L1/L2 from it, angles th1/th2 from the downward vertical, gravity g.
//!
//! In the model, T is written the König way (centre-of-mass translation plus rotation
//! about the centre of mass, J_c = J − m L² by Steiner). The hand derivation below
//! instead uses the pivot form T_body = ½ m v_P² + m v_P·(ω × r_c) + ½ J_P ω², giving, with
//! q = (x1, x2, th1, th2):
//!   M = [[m1+m3, 0, m3 L1 c1, 0], [0, m2+m4, 0, m4 L2 c2],
//!        [m3 L1 c1, 0, J3, 0], [0, m4 L2 c2, 0, J4]]            (ci = cos thi, si = sin thi)
//!   M q̈ = [m3 L1 s1 th1'² − k1 x1 + k2 (x2 − x1),  m4 L2 s2 th2'² − k2 (x2 − x1),
//!          −m3 g L1 s1,  −m4 g L2 s2]
//!   h = T + V, V = ½ k1 x1² + ½ k2 (x2 − x1)² − m3 g L1 c1 − m4 g L2 c2.
use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

lagrangian! {
    /// Two spring-coupled carts, each carrying a physical pendulum.
    pub struct TwoCarts {
        parameters: m1 = 1.5, m2 = 0.8, m3 = 0.4, m4 = 0.3, J3 = 0.05, J4 = 0.04,
            L1 = 0.3, L2 = 0.25, k1 = 40.0, k2 = 25.0, g = 9.81;
        coordinates: x1, x2, th1, th2;

        let xc1 = x1 + L1 * sin(th1);
        let yc1 = -L1 * cos(th1);
        let xc2 = x2 + L2 * sin(th2);
        let yc2 = -L2 * cos(th2);

        kinetic = m1/2 * dot(x1)^2 + m2/2 * dot(x2)^2
            + m3/2 * (dot(xc1)^2 + dot(yc1)^2) + (J3 - m3*L1^2)/2 * dot(th1)^2
            + m4/2 * (dot(xc2)^2 + dot(yc2)^2) + (J4 - m4*L2^2)/2 * dot(th2)^2;
        potential = k1/2 * x1^2 + k2/2 * (x2 - x1)^2 + g * (m3*yc1 + m4*yc2);
    }
}

/// The model has no inputs.
const U: SVector<f64, 0> =
    SVector::from_array_storage(lagrange_runtime::nalgebra::ArrayStorage([[]]));

/// Irregular states [x1, x2, th1, th2, ẋ1, ẋ2, th1', th2'].
const STATES: [[f64; 8]; 5] = [
    [0.0; 8],
    [0.1, -0.05, 0.3, -0.2, 0.0, 0.0, 0.0, 0.0],
    [0.23, 0.61, 1.1, -2.4, -0.7, 1.3, 2.9, -0.35],
    [-0.4, 0.02, -0.77, 2.95, 2.2, -1.1, -4.6, 3.8],
    [1.05, -0.9, 3.1, 0.5, -0.15, 0.45, 0.8, 7.1],
];

fn state(x: [f64; 8]) -> State<4> {
    State::new(
        0.0,
        SVector::from([x[0], x[1], x[2], x[3]]),
        SVector::from([x[4], x[5], x[6], x[7]]),
    )
}

/// The hand-derived M, right-hand side and V (see the module docs).
fn hand(p: &TwoCarts, s: &State<4>) -> (SMatrix<f64, 4, 4>, SVector<f64, 4>, f64) {
    let ([x1, x2, th1, th2], [_, _, w1, w2]) = (s.q.into(), s.qd.into());
    let (s1, c1, s2, c2) = (th1.sin(), th1.cos(), th2.sin(), th2.cos());
    let (a1, a2) = (p.m3 * p.L1, p.m4 * p.L2); // first moments of the pendulums
    #[rustfmt::skip]
    let mm = SMatrix::<f64, 4, 4>::new(
        p.m1 + p.m3, 0.0,         a1 * c1, 0.0,
        0.0,         p.m2 + p.m4, 0.0,     a2 * c2,
        a1 * c1,     0.0,         p.J3,    0.0,
        0.0,         a2 * c2,     0.0,     p.J4,
    );
    let rhs = SVector::from([
        a1 * s1 * w1 * w1 - p.k1 * x1 + p.k2 * (x2 - x1),
        a2 * s2 * w2 * w2 - p.k2 * (x2 - x1),
        -a1 * p.g * s1,
        -a2 * p.g * s2,
    ]);
    let v = 0.5 * p.k1 * x1 * x1 + 0.5 * p.k2 * (x2 - x1).powi(2) - p.g * (a1 * c1 + a2 * c2);
    (mm, rhs, v)
}

fn models() -> [TwoCarts; 2] {
    [
        TwoCarts::default(),
        TwoCarts::new(
            2.1, 0.6, 0.9, 0.25, 0.12, 0.031, 0.35, 0.33, 17.0, 52.0, 9.81,
        ),
    ]
}

#[test]
fn mass_matrix_and_accelerations_match_hand_derivation() {
    for model in models() {
        for x in STATES {
            let s = state(x);
            let (mm_hand, rhs, _) = hand(&model, &s);
            let mm = model.mass_matrix(&s, &U);
            assert_eq!(mm, mm.transpose(), "mass matrix must be symmetric");
            assert!(
                (mm - mm_hand).abs().max() <= 1e-12 * mm_hand.abs().max(),
                "M = {mm}"
            );
            let qdd_hand = mm_hand.lu().solve(&rhs).unwrap();
            let qdd = model.accelerations(&s, &U).unwrap();
            let err = (qdd - qdd_hand).abs().max();
            assert!(
                err <= 1e-12 * (1.0 + qdd_hand.abs().max()),
                "q̈ = {qdd}, want {qdd_hand}"
            );
            // The same equations as residuals: M q̈ − rhs = 0 (this is −inverse dynamics).
            let tau = model.inverse_dynamics(&s, &qdd, &U);
            assert!(
                tau.abs().max() <= 1e-12 * (1.0 + rhs.abs().max()),
                "τ = {tau}"
            );
            let tau = model.inverse_dynamics(&s, &SVector::zeros(), &U);
            assert!(
                (tau + rhs).abs().max() <= 1e-12 * (1.0 + rhs.abs().max()),
                "τ0 = {tau}"
            );
        }
    }
}

#[test]
fn energy_matches_hand_form_and_is_conserved() {
    for p in models() {
        for x in &STATES[2..] {
            let s = state(*x);
            let [_, _, th1, th2, v1, v2, w1, w2] = *x;
            // Pivot form T = Σ ½(m_cart + m_body) v² + m L cos th v th' + ½ J_P th'²,
            // which must equal ½ q̇ᵀ M q̇ of the hand mass matrix.
            let t = 0.5 * (p.m1 + p.m3) * v1 * v1
                + 0.5 * (p.m2 + p.m4) * v2 * v2
                + p.m3 * p.L1 * th1.cos() * v1 * w1
                + p.m4 * p.L2 * th2.cos() * v2 * w2
                + 0.5 * p.J3 * w1 * w1
                + 0.5 * p.J4 * w2 * w2;
            let (mm, _, v) = hand(&p, &s);
            let scale = 1.0 + t + v.abs();
            assert!((0.5 * s.qd.dot(&(mm * s.qd)) - t).abs() <= 1e-12 * scale);
            assert!((p.energy(&s, &U) - (t + v)).abs() <= 1e-12 * scale, "h");
            assert!((p.lagrangian(&s, &U) - (t - v)).abs() <= 1e-12 * scale, "L");
            // dh/dt = 0 along the flow (no forces, ∂L/∂t = 0); central differences.
            let qdd = p.accelerations(&s, &U).unwrap();
            let eps = 1e-6;
            let at = |e: f64| State::new(s.t + e, s.q + s.qd * e, s.qd + qdd * e);
            let dh = (p.energy(&at(eps), &U) - p.energy(&at(-eps), &U)) / (2.0 * eps);
            let power = s.qd.dot(&(p.mass_matrix(&s, &U) * qdd)).abs();
            assert!(dh.abs() <= 1e-6 * power, "dh/dt = {dh:e}, power {power:e}");
        }
    }
}

#[test]
fn named_coordinates_equilibrium_and_release_from_rest() {
    let p = TwoCarts::default();
    assert_eq!(TwoCarts::COORDINATES, ["x1", "x2", "th1", "th2"]);
    // Everything at rest at zero is an equilibrium.
    let rest = State::at_rest(TwoCartsCoordinates::default().into());
    assert!(p.accelerations(&rest, &U).unwrap().abs().max() <= 1e-15);
    // Pendulums hanging straight down, carts displaced and released from rest: the th rows
    // give th'' = −m L ẍ / J (the pendulums lag behind), so each cart responds to its spring
    // force f with the reduced mass m_cart + m_body − (m_body L)²/J.
    let q = TwoCartsCoordinates {
        x1: 0.1,
        x2: -0.2,
        th1: 0.0,
        th2: 0.0,
    };
    let acc = p.accelerations(&State::at_rest(q.into()), &U).unwrap();
    let acc = TwoCartsCoordinates::from(acc);
    let f1 = -p.k1 * q.x1 + p.k2 * (q.x2 - q.x1);
    let f2 = -p.k2 * (q.x2 - q.x1);
    let a1 = f1 / (p.m1 + p.m3 - (p.m3 * p.L1).powi(2) / p.J3);
    let a2 = f2 / (p.m2 + p.m4 - (p.m4 * p.L2).powi(2) / p.J4);
    let close = |got: f64, want: f64| (got - want).abs() <= 1e-12 * (1.0 + want.abs());
    assert!(close(acc.x1, a1) && close(acc.x2, a2), "{acc:?}");
    assert!(close(acc.th1, -p.m3 * p.L1 * a1 / p.J3), "{acc:?}");
    assert!(close(acc.th2, -p.m4 * p.L2 * a2 / p.J4), "{acc:?}");
}

/// Exact derivatives against central differences (`common::derivatives`).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("TwoCarts", &TwoCarts::default())
        .standard()
        .check();
}
