//! Bead of mass m on a hoop of radius R spinning at the constant rate ω about its vertical
//! diameter; θ is the bead's angle from the bottom. Rheonomic: the positions depend on t.
//!   x = R sin θ cos ωt,  y = R sin θ sin ωt,  z = −R cos θ
//!   T = ½ m R² θ̇² + ½ m R² ω² sin²θ = T2 + T1 + T0 with T1 = 0 (the θ-velocity is
//!       orthogonal to the spin velocity), V = −m g R cos θ.
//! Textbook truth (Goldstein §2.7, Taylor §7.6):
//!   θ̈ = (ω² cos θ − g/R) sin θ,
//!   Jacobi integral h = T2 − T0 + V, conserved since ∂L/∂t = 0, while T + V is not:
//!   d(T+V)/dt = 2 dT0/dt = 2 m R² ω² sin θ cos θ θ̇ (the motor does work);
//!   for ω² > g/R a stable equilibrium at cos θ* = g/(R ω²), where ∂θ̈/∂θ = −ω² sin²θ*.
use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

lagrangian! {
    /// Bead sliding without friction on a hoop spinning about a vertical diameter.
    pub struct BeadOnHoop {
        parameters: m = 0.2, R = 0.5, omega = 7.0, g = 9.81;
        coordinates: theta;

        let x = R * sin(theta) * cos(omega * t);
        let y = R * sin(theta) * sin(omega * t);
        let z = -R * cos(theta);

        kinetic = m/2 * (dot(x)^2 + dot(y)^2 + dot(z)^2);
        potential = m * g * z;
    }
}

/// The model has no inputs.
const U: SVector<f64, 0> =
    SVector::from_array_storage(lagrange_runtime::nalgebra::ArrayStorage([[]]));

/// Irregular states (t, θ, θ̇): the reduced dynamics must not depend on t.
const STATES: [(f64, f64, f64); 6] = [
    (0.0, 0.0, 0.0),
    (0.0, 0.8, 0.0),
    (0.37, 1.2, -2.3),
    (1.91, -0.45, 4.1),
    (-3.3, 2.75, 0.6),
    (12.5, -1.6, -7.7),
];

fn state(t: f64, th: f64, thd: f64) -> State<1> {
    State::new(t, SVector::from([th]), SVector::from([thd]))
}

fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: got {got:e}, want {want:e}"
    );
}

/// d/dt of `f` along the exact flow direction (1, θ̇, θ̈), by central differences.
fn rate(model: &BeadOnHoop, s: &State<1>, f: impl Fn(&State<1>) -> f64) -> f64 {
    let qdd = model.accelerations(s, &U).unwrap();
    let eps = 1e-6;
    let at = |e: f64| State::new(s.t + e, s.q + s.qd * e, s.qd + qdd * e);
    (f(&at(eps)) - f(&at(-eps))) / (2.0 * eps)
}

#[test]
fn accelerations_mass_matrix_and_inverse_dynamics() {
    for model in [BeadOnHoop::default(), BeadOnHoop::new(1.3, 0.9, 2.2, 9.81)] {
        let BeadOnHoop { m, R, omega, g } = model;
        for (t, th, thd) in STATES {
            let s = state(t, th, thd);
            let acc = model.accelerations(&s, &U).unwrap()[0];
            assert_close(
                acc,
                (omega * omega * th.cos() - g / R) * th.sin(),
                1e-12,
                "θ̈",
            );
            // M = ∂²L/∂θ̇² = m R² (1×1, symmetric), p = m R² θ̇.
            let mm = model.mass_matrix(&s, &U);
            assert_close(mm[(0, 0)], m * R * R, 1e-12, "M");
            assert_eq!(mm, mm.transpose());
            assert_close(model.momenta(&s, &U)[0], m * R * R * thd, 1e-12, "p");
            let tau = model.inverse_dynamics(&s, &SVector::from([acc]), &U)[0];
            assert_close(tau, 0.0, 1e-12, "inverse dynamics");
        }
    }
}

#[test]
fn lagrangian_and_jacobi_integral_closed_forms() {
    let model = BeadOnHoop::new(0.7, 1.4, 3.1, 9.81);
    let BeadOnHoop { m, R, omega, g } = model;
    for (t, th, thd) in STATES {
        let s = state(t, th, thd);
        let t2 = 0.5 * m * R * R * thd * thd;
        let t0 = 0.5 * m * R * R * omega * omega * th.sin().powi(2);
        let v = -m * g * R * th.cos();
        // L = T2 + T1 + T0 − V and h = q̇ ∂L/∂q̇ − L = T2 − T0 + V, which is not T + V.
        assert_close(model.lagrangian(&s, &U), t2 + t0 - v, 1e-12, "L");
        assert_close(model.energy(&s, &U), t2 - t0 + v, 1e-12, "h");
    }
}

#[test]
fn jacobi_integral_is_conserved_but_mechanical_energy_is_not() {
    let model = BeadOnHoop::new(0.3, 0.6, 5.5, 9.81);
    let BeadOnHoop { m, R, omega, g } = model;
    for (t, th, thd) in &STATES[2..] {
        let s = state(*t, *th, *thd);
        let dh = rate(&model, &s, |s| model.energy(s, &U));
        // T + V = L + 2V, with V = −m g R cos θ written by hand.
        let e = |s: &State<1>| model.lagrangian(s, &U) - 2.0 * m * g * R * s.q[0].cos();
        let de = rate(&model, &s, e);
        let de_hand = 2.0 * m * R * R * omega * omega * th.sin() * th.cos() * thd;
        assert!(dh.abs() <= 1e-6 * de_hand.abs(), "dh/dt = {dh:e}");
        assert!(
            (de - de_hand).abs() <= 1e-6 * de_hand.abs(),
            "d(T+V)/dt = {de:e} vs {de_hand:e}"
        );
    }
}

#[test]
fn equilibria_and_their_stability() {
    // ω² = 49 > g/R = 19.62: θ = 0 is unstable and cos θ* = g/(R ω²) is stable.
    let model = BeadOnHoop::default();
    let BeadOnHoop { R, omega, g, .. } = model;
    let w2 = omega * omega;
    let theta_star = (g / (R * w2)).acos();
    // Stiffness ∂θ̈/∂θ at rest by central differences; built from named coordinates.
    let slope = |model: &BeadOnHoop, th: f64| {
        let acc = |th: f64| {
            let q = BeadOnHoopCoordinates { theta: th };
            let a = model.accelerations(&State::at_rest(q.into()), &U).unwrap();
            BeadOnHoopCoordinates::from(a).theta
        };
        (acc(th + 1e-6) - acc(th - 1e-6)) / 2e-6
    };
    for th in [theta_star, -theta_star, 0.0] {
        let acc = model
            .accelerations(&State::at_rest(SVector::from([th])), &U)
            .unwrap();
        assert_close(acc[0], 0.0, 1e-12, "θ̈ at equilibrium");
    }
    let k_star = -w2 * theta_star.sin().powi(2);
    assert!((slope(&model, theta_star) - k_star).abs() <= 1e-6 * k_star.abs());
    assert!(k_star < 0.0, "θ* is stable: small oscillations at ω sin θ*");
    let k0 = w2 - g / R;
    assert!((slope(&model, 0.0) - k0).abs() <= 1e-6 * k0.abs() && k0 > 0.0);
    // Below the critical spin ω² < g/R the bottom θ = 0 is the stable equilibrium.
    let slow = BeadOnHoop {
        omega: 3.0,
        ..model
    };
    let k0 = 9.0 - g / R;
    assert!((slope(&slow, 0.0) - k0).abs() <= 1e-6 * k0.abs() && k0 < 0.0);
}

/// Exact derivatives (linearization, sensitivities, the sweep, the variational Jacobian)
/// against central differences (`common::derivatives`), at structured and random states,
/// the spinning equilibrium θ* and the top of the hoop.
#[test]
fn derivatives_match_finite_differences() {
    let model = BeadOnHoop::default();
    let star = (model.g / (model.R * model.omega * model.omega)).acos();
    Derivatives::new("BeadOnHoop", &model)
        .standard()
        .state("equilibrium θ*", state(0.0, star, 0.0), U)
        .state(
            "top of the hoop, later",
            state(1.3, std::f64::consts::PI, 0.0),
            U,
        )
        .check();
}
