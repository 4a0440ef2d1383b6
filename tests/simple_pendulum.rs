//! Simple pendulum: a point mass m on a massless rod of length l, angle θ from the
//! downward vertical, under gravity g. Truth is the textbook closed form
//!   L = ½ m l² θ̇² + m g l cos θ,   m l² θ̈ = −m g l sin θ   ⇒   θ̈ = −(g/l) sin θ.
use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

lagrangian! {
    /// Point mass on a rigid massless rod, written in Cartesian coordinates of the bob.
    pub struct Pendulum {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: theta;

        let x = l * sin(theta);
        let y = -l * cos(theta);

        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = m * g * y;
    }
}

/// The model has no inputs.
const U: SVector<f64, 0> =
    SVector::from_array_storage(lagrange_runtime::nalgebra::ArrayStorage([[]]));

/// Irregular states (θ, θ̇), including large angles and nonzero velocities.
const STATES: [(f64, f64); 6] = [
    (0.0, 0.0),
    (0.3, 0.0),
    (-0.7, 1.9),
    (1.234, -2.71),
    (2.9, 0.45),
    (-3.05, -5.3),
];

fn state(theta: f64, theta_dot: f64, t: f64) -> State<1> {
    State::new(t, SVector::from([theta]), SVector::from([theta_dot]))
}

/// |got − want| ≤ tol · (1 + |want|): relative for large values, absolute near zero.
fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: got {got:e}, want {want:e}"
    );
}

#[test]
fn accelerations_match_closed_form() {
    // θ̈ = −(g/l) sin θ, independent of θ̇ and t.
    for model in [Pendulum::default(), Pendulum::new(0.37, 2.3, 1.62)] {
        for (i, &(th, thd)) in STATES.iter().enumerate() {
            let s = state(th, thd, 0.1 * i as f64);
            let qdd = model.accelerations(&s, &U).unwrap();
            assert_close(qdd[0], -(model.g / model.l) * th.sin(), 1e-12, "θ̈");
        }
    }
}

#[test]
fn mass_matrix_momentum_lagrangian_energy() {
    let model = Pendulum::new(1.7, 0.8, 9.81);
    let (m, l, g) = (model.m, model.l, model.g);
    for &(th, thd) in &STATES {
        let s = state(th, thd, 0.0);
        // M = ∂²L/∂θ̇² = m l² (constant, trivially symmetric as a 1×1 matrix).
        let mm = model.mass_matrix(&s, &U);
        assert_close(mm[(0, 0)], m * l * l, 1e-12, "M");
        assert_eq!(mm, mm.transpose());
        // p = ∂L/∂θ̇ = m l² θ̇.
        assert_close(model.momenta(&s, &U)[0], m * l * l * thd, 1e-12, "p");
        // L = T − V = ½ m l² θ̇² + m g l cos θ.
        let lag = 0.5 * m * l * l * thd * thd + m * g * l * th.cos();
        assert_close(model.lagrangian(&s, &U), lag, 1e-12, "L");
        // h = T + V = ½ m l² θ̇² − m g l cos θ (scleronomic, T quadratic in θ̇).
        let h = 0.5 * m * l * l * thd * thd - m * g * l * th.cos();
        assert_close(model.energy(&s, &U), h, 1e-12, "h");
        // No forces, no dissipation: Q = 0.
        assert_eq!(model.generalized_forces(&s, &U), SVector::<f64, 1>::zeros());
    }
}

#[test]
fn inverse_dynamics_of_forward_dynamics_vanishes() {
    // M q̈ − (∂L/∂q − …) = 0 when q̈ is the solution of the forward problem; and the force
    // needed for q̈ = 0 is the static torque m g l sin θ that holds the bob still.
    let model = Pendulum::new(0.9, 1.3, 9.81);
    for &(th, thd) in &STATES {
        let s = state(th, thd, 0.5);
        let qdd = model.accelerations(&s, &U).unwrap();
        assert_close(model.inverse_dynamics(&s, &qdd, &U)[0], 0.0, 1e-12, "τ");
        let hold = model.inverse_dynamics(&s, &SVector::zeros(), &U)[0];
        assert_close(hold, 0.9 * 9.81 * 1.3 * th.sin(), 1e-12, "holding τ");
    }
}

#[test]
fn energy_is_conserved_along_the_flow() {
    // dh/dt = ∂h/∂θ θ̇ + ∂h/∂θ̇ θ̈ = m g l sin θ θ̇ + m l² θ̇ θ̈ = 0 with θ̈ = −(g/l) sin θ.
    // Second opinion: central difference of `energy` along the exact flow direction.
    let model = Pendulum::new(1.1, 0.6, 9.81);
    for &(th, thd) in &STATES[2..] {
        let s = state(th, thd, 0.0);
        let qdd = model.accelerations(&s, &U).unwrap();
        let eps = 1e-6;
        let at = |e: f64| State::new(s.t + e, s.q + s.qd * e, s.qd + qdd * e);
        let dh = (model.energy(&at(eps), &U) - model.energy(&at(-eps), &U)) / (2.0 * eps);
        // Scale: the power exchanged between T and V, |θ̇ M θ̈|.
        let power = (thd * model.mass_matrix(&s, &U)[(0, 0)] * qdd[0]).abs();
        assert!(dh.abs() <= 1e-6 * power, "dh/dt = {dh:e}, power {power:e}");
    }
}

#[test]
fn named_coordinates_and_equilibria() {
    // The generated `PendulumCoordinates` names the components of q, q̇ and q̈.
    let q: SVector<f64, 1> = PendulumCoordinates { theta: 0.25 }.into();
    let s = State::new(0.0, q, PendulumCoordinates { theta: -1.5 }.into());
    let model = Pendulum::default();
    let acc = PendulumCoordinates::from(model.accelerations(&s, &U).unwrap());
    assert_close(acc.theta, -9.81 * 0.25_f64.sin(), 1e-12, "θ̈");
    assert_eq!(Pendulum::COORDINATES, ["theta"]);
    // Equilibria θ = 0 and θ = π: θ̈ = 0 at rest.
    for th in [0.0, std::f64::consts::PI] {
        let qdd = model
            .accelerations(&State::at_rest(SVector::from([th])), &U)
            .unwrap();
        assert_close(qdd[0], 0.0, 1e-12, "θ̈ at equilibrium");
    }
    // A non-finite state is an error, not a panic.
    assert!(model.accelerations(&state(f64::NAN, 0.0, 0.0), &U).is_err());
}

/// Exact derivatives against central differences (`common::derivatives`).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("Pendulum", &Pendulum::default())
        .standard()
        .state(
            "inverted",
            State::at_rest(SVector::from([std::f64::consts::PI])),
            U,
        )
        .check();
}
