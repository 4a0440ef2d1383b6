//! Planar double pendulum with point masses m1, m2 on massless rods l1, l2; angles θ1, θ2
//! from the downward vertical. Truth: the textbook equations (Δ = θ1 − θ2)
//!   (m1+m2) l1² θ̈1 + m2 l1 l2 cos Δ θ̈2 + m2 l1 l2 sin Δ θ̇2² + (m1+m2) g l1 sin θ1 = 0
//!   m2 l1 l2 cos Δ θ̈1 + m2 l2² θ̈2 − m2 l1 l2 sin Δ θ̇1² + m2 g l2 sin θ2 = 0
//! i.e. M(θ) θ̈ = f(θ, θ̇) with M = [[(m1+m2) l1², m2 l1 l2 cos Δ], [m2 l1 l2 cos Δ, m2 l2²]].
use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

use lagrange_test_models::double_pendulum::*;

/// The model has no inputs.
const U: SVector<f64, 0> =
    SVector::from_array_storage(lagrange_runtime::nalgebra::ArrayStorage([[]]));

/// Irregular states [θ1, θ2, θ̇1, θ̇2], with nonzero and large velocities.
const STATES: [[f64; 4]; 6] = [
    [0.0, 0.0, 0.0, 0.0],
    [0.4, -0.25, 0.0, 0.0],
    [1.1, 2.3, -0.8, 1.7],
    [-2.2, 0.37, 3.1, -2.4],
    [3.0, -3.0, 0.05, 6.2],
    [0.123, 1.4903, -4.4, -0.9],
];

fn state([a, b, ad, bd]: [f64; 4]) -> State<2> {
    State::new(0.0, SVector::from([a, b]), SVector::from([ad, bd]))
}

fn models() -> [DoublePendulum; 3] {
    [
        DoublePendulum::default(),
        DoublePendulum::new(0.7, 1.9, 1.3, 0.55, 9.81),
        DoublePendulum::new(2.5, 0.3, 0.4, 1.7, 3.71),
    ]
}

/// Hand-derived M and f of the equations above, and θ̈ = M⁻¹ f by Cramer's rule.
fn hand(p: &DoublePendulum, [a, b, ad, bd]: [f64; 4]) -> ([[f64; 2]; 2], [f64; 2]) {
    let DoublePendulum { m1, m2, l1, l2, g } = *p;
    let (sd, cd) = (a - b).sin_cos();
    let mm = [
        [(m1 + m2) * l1 * l1, m2 * l1 * l2 * cd],
        [m2 * l1 * l2 * cd, m2 * l2 * l2],
    ];
    let f = [
        -m2 * l1 * l2 * sd * bd * bd - (m1 + m2) * g * l1 * a.sin(),
        m2 * l1 * l2 * sd * ad * ad - m2 * g * l2 * b.sin(),
    ];
    let det = mm[0][0] * mm[1][1] - mm[0][1] * mm[1][0];
    let qdd = [
        (f[0] * mm[1][1] - mm[0][1] * f[1]) / det,
        (mm[0][0] * f[1] - mm[1][0] * f[0]) / det,
    ];
    (mm, qdd)
}

/// Energy h = T + V, T = ½(m1+m2) l1² θ̇1² + ½ m2 l2² θ̇2² + m2 l1 l2 θ̇1 θ̇2 cos Δ,
/// V = −(m1+m2) g l1 cos θ1 − m2 g l2 cos θ2.
fn hand_energy(p: &DoublePendulum, [a, b, ad, bd]: [f64; 4]) -> f64 {
    let DoublePendulum { m1, m2, l1, l2, g } = *p;
    let t = 0.5 * (m1 + m2) * l1 * l1 * ad * ad
        + 0.5 * m2 * l2 * l2 * bd * bd
        + m2 * l1 * l2 * ad * bd * (a - b).cos();
    t - (m1 + m2) * g * l1 * a.cos() - m2 * g * l2 * b.cos()
}

fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: got {got:e}, want {want:e}"
    );
}

#[test]
fn mass_matrix_and_accelerations_match_hand_derivation() {
    for model in models() {
        for x in STATES {
            let s = state(x);
            let (mm, qdd) = hand(&model, x);
            let got = model.mass_matrix(&s, &U);
            for (i, j) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                assert_close(got[(i, j)], mm[i][j], 1e-12, "M_ij");
            }
            assert_eq!(got, got.transpose(), "mass matrix must be symmetric");
            let acc = model.accelerations(&s, &U).unwrap();
            assert_close(acc[0], qdd[0], 1e-12, "θ̈1");
            assert_close(acc[1], qdd[1], 1e-12, "θ̈2");
            // h = T + V for a scleronomic system with T quadratic in θ̇.
            assert_close(model.energy(&s, &U), hand_energy(&model, x), 1e-12, "h");
        }
    }
}

#[test]
fn inverse_dynamics_of_forward_dynamics_vanishes() {
    for model in models() {
        for x in STATES {
            let s = state(x);
            let qdd = model.accelerations(&s, &U).unwrap();
            let tau = model.inverse_dynamics(&s, &qdd, &U);
            let scale = (model.mass_matrix(&s, &U) * qdd).norm();
            assert!(tau.norm() <= 1e-12 * (1.0 + scale), "τ = {tau}");
        }
    }
}

#[test]
fn energy_is_conserved_along_the_flow() {
    // No forces and ∂L/∂t = 0, so dh/dt = ∂h/∂q·q̇ + ∂h/∂q̇·q̈ = 0 (Jacobi integral = T + V).
    // Central difference of `energy` along the exact flow direction (q̇, q̈).
    for model in models() {
        for x in &STATES[2..] {
            let s = state(*x);
            let qdd = model.accelerations(&s, &U).unwrap();
            let eps = 1e-6;
            let at = |e: f64| State::new(s.t + e, s.q + s.qd * e, s.qd + qdd * e);
            let dh = (model.energy(&at(eps), &U) - model.energy(&at(-eps), &U)) / (2.0 * eps);
            // Scale: the rate of change of T alone, |q̇ᵀ M q̈| (nonzero here).
            let power = s.qd.dot(&(model.mass_matrix(&s, &U) * qdd)).abs();
            assert!(dh.abs() <= 1e-6 * power, "dh/dt = {dh:e}, power {power:e}");
        }
    }
}

#[test]
fn named_coordinates_small_oscillation_and_momenta() {
    let model = DoublePendulum::default();
    // Named coordinates: a state built from, and accelerations read into, the generated struct.
    let q: SVector<f64, 2> = DoublePendulumCoordinates {
        theta1: 1e-4,
        theta2: -2e-4,
    }
    .into();
    let s = State::at_rest(q);
    let acc = DoublePendulumCoordinates::from(model.accelerations(&s, &U).unwrap());
    // Linearisation for m1 = m2, l1 = l2 = l at rest: 2 θ̈1 + θ̈2 = −2 (g/l) θ1 and
    // θ̈1 + θ̈2 = −(g/l) θ2 ⇒ θ̈1 = −(g/l)(2θ1 − θ2), θ̈2 = (g/l)(2θ1 − 2θ2); error O(θ³).
    let (lin1, lin2) = (-9.81 * (2e-4 + 2e-4), 9.81 * (2e-4 + 4e-4));
    assert!(
        (acc.theta1 - lin1).abs() <= 1e-6 * lin1.abs(),
        "θ̈1 {}",
        acc.theta1
    );
    assert!(
        (acc.theta2 - lin2).abs() <= 1e-6 * lin2.abs(),
        "θ̈2 {}",
        acc.theta2
    );
    assert_eq!(DoublePendulum::COORDINATES, ["theta1", "theta2"]);
    // Momenta p = M θ̇ (T is a homogeneous quadratic in θ̇).
    for model in models() {
        for x in STATES {
            let s = state(x);
            let p = model.momenta(&s, &U);
            let want = model.mass_matrix(&s, &U) * s.qd;
            assert_close(p[0], want[0], 1e-12, "p1");
            assert_close(p[1], want[1], 1e-12, "p2");
        }
    }
}

/// Exact derivatives (linearization, sensitivities, the sweep, the variational Jacobian)
/// against central differences at structured, random and the equilibrium states.
#[test]
fn derivatives_match_finite_differences() {
    let pi = std::f64::consts::PI;
    Derivatives::new("DoublePendulum", &DoublePendulum::default())
        .standard()
        .state("inverted", State::at_rest(SVector::from([pi, pi])), U)
        .state(
            "one up, one down",
            State::at_rest(SVector::from([pi, 0.0])),
            U,
        )
        .check();
}
