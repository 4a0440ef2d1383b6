//! Measured convergence orders of the three integrators on the harmonic oscillator,
//! against its exact solution.
//!
//! ```text
//! L = m/2 ẋ² − k/2 x²,   ω = √(k/m)
//! x(t) = x0 cos ωt + (v0/ω) sin ωt,   ẋ(t) = −x0 ω sin ωt + v0 cos ωt
//! ```
//!
//! The error of a run is the distance at t_end between the computed and the exact point of
//! phase space, in the scaled variables (x, ẋ/ω) in which the exact flow is a rotation:
//!
//! ```text
//! e(h) = √((x − x(t_end))² + ((ẋ − ẋ(t_end))/ω)²)
//! ```
//!
//! (measuring only x could hit a zero crossing of the error at an unlucky t_end).
//! A method of order p has e(h) ≈ C h^p, so halving h divides e by 2^p and the observed
//! order is log2(e(h)/e(h/2)). Each halving and the least-squares slope of log e against
//! log h must lie within ±0.3 of the theoretical order.
//!
//! Expected leading errors on this linear problem, with z = ωh and n = t_end/h steps
//! (the stability function R(z) of each method against e^z):
//!
//! ```text
//! RK4:             R = Σ_{k≤4} z^k/k!,          phase error/step ≈ (ωh)^5/120
//!                  → e ≈ A (ωh)^4 ω t_end / 120                       order 4
//! Dormand–Prince:  R = Σ_{k≤5} z^k/k! + z^6/600, |R| − 1 ≈ −(ωh)^6/3600 per step
//!                  → e ≈ A (ωh)^5 ω t_end / 3600                      order 5
//! midpoint VI:     m(x₂ − 2x₁ + x₀)/h² = −k(x₀ + 2x₁ + x₂)/4, phase error/step ≈ (ωh)³/12
//!                  → e ≈ A (ωh)² ω t_end / 12                         order 2
//! ```

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::*;

// m ẍ = −k x.
use lagrange_test_models::Oscillator;

const X0: f64 = 1.0;
const V0: f64 = 0.5;
/// ω t_end = 20: about three periods.
const T_END: f64 = 10.0;
/// The step sizes h, h/2, h/4, h/8 with ωh = 0.2 … 0.025.
const STEPS: [f64; 4] = [0.1, 0.05, 0.025, 0.0125];

fn omega(model: &Oscillator) -> f64 {
    (model.k / model.m).sqrt()
}

fn start() -> State<1> {
    State::new(0.0, SVector::from([X0]), SVector::from([V0]))
}

/// The phase-space error e at the end of a run (see the module comment).
fn error<I: Integrator<Oscillator, 1, 0>>(integrator: &I) -> f64 {
    let model = Oscillator::default();
    let w = omega(&model);
    let trajectory = Simulation::new(&model, start())
        .run(integrator, T_END)
        .expect("the oscillator integrates without error");
    let end = trajectory.last();
    assert_eq!(end.t, T_END, "the run ends exactly at t_end");
    let x = X0 * (w * T_END).cos() + V0 / w * (w * T_END).sin();
    let v = -X0 * w * (w * T_END).sin() + V0 * (w * T_END).cos();
    (end.q[0] - x).hypot((end.qd[0] - v) / w)
}

/// Observed orders log2(e(h)/e(h/2)) of each halving and the least-squares slope of
/// log2 e against log2 h over all of them.
fn observed_orders(errors: &[f64]) -> (Vec<f64>, f64) {
    let pairs = errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
    // Slope of y = log2 e against x = log2 h: the steps halve, so x_i = x_0 − i.
    let n = errors.len() as f64;
    let xs: Vec<f64> = (0..errors.len()).map(|i| -(i as f64)).collect();
    let ys: Vec<f64> = errors.iter().map(|e| e.log2()).collect();
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    (pairs, sxy / sxx)
}

fn assert_order(name: &str, errors: &[f64], theory: f64) {
    let (pairs, slope) = observed_orders(errors);
    let shown: Vec<String> = errors.iter().map(|e| format!("{e:.3e}")).collect();
    println!("{name}: errors {shown:?}, halving orders {pairs:.3?}, fitted order {slope:.3}");
    for (i, p) in pairs.iter().enumerate() {
        assert!(
            (p - theory).abs() <= 0.3,
            "{name}: halving {i} gives order {p:.3}, theory {theory} (errors {errors:?})"
        );
    }
    assert!(
        (slope - theory).abs() <= 0.3,
        "{name}: fitted order {slope:.3}, theory {theory} (errors {errors:?})"
    );
}

#[test]
fn rk4_is_fourth_order() {
    let errors: Vec<f64> = STEPS.iter().map(|&h| error(&Rk4::new(h))).collect();
    // Leading term A (ωh)^4 ω t_end / 120 with A = √(x0² + (v0/ω)²): 2.1e-4 at ωh = 0.2.
    let a = X0.hypot(V0 / 2.0);
    let predicted = a * 0.2f64.powi(4) * 20.0 / 120.0;
    assert!(
        (errors[0] / predicted - 1.0).abs() < 0.1,
        "RK4 error {:e}, leading term predicts {predicted:e}",
        errors[0]
    );
    assert_order("RK4", &errors, 4.0);
}

/// Dormand–Prince is adaptive: left alone, it picks its own steps from the tolerances, and
/// the error it reaches for a tolerance says nothing direct about its order (the step
/// controller aims the *embedded fourth-order* estimate at the tolerance, so error against
/// tolerance has slope ≈ 5/5 = 1, whatever the order). To measure the order of the
/// fifth-order solution it advances with, it is run as a fixed-step method: with
/// `initial_step = max_step = h` and tolerances so loose that every error estimate is far
/// below 1, every step is accepted and the controller's proposal (≥ h) is clamped back
/// to `max_step`, so every step is exactly h (the last one clipped to land on t_end).
/// Then e(h) = C h^5 + …, measured exactly like the fixed-step methods.
#[test]
fn dormand_prince_is_fifth_order() {
    let fixed = |h: f64| DormandPrince {
        rtol: 1e6,
        atol: 1e6,
        initial_step: Some(h),
        max_step: h,
    };
    // Check that the runs really are fixed-step: n = t_end/h steps of length h.
    let model = Oscillator::default();
    for &h in &STEPS {
        let trajectory = Simulation::new(&model, start())
            .run(&fixed(h), T_END)
            .unwrap();
        let n = (T_END / h).round() as usize;
        assert_eq!(trajectory.len(), n + 1, "h = {h}: {n} steps");
        let times: Vec<f64> = trajectory.times().collect();
        for w in times.windows(2) {
            assert!(
                ((w[1] - w[0]) / h - 1.0).abs() < 1e-9,
                "h = {h}: step {}",
                w[1] - w[0]
            );
        }
    }
    let errors: Vec<f64> = STEPS.iter().map(|&h| error(&fixed(h))).collect();
    // Leading term A (ωh)^5 ω t_end / 3600: 1.0e-6 at ωh = 0.2; the phase error
    // (ωh)^7/5040-ish per step is two orders higher.
    let a = X0.hypot(V0 / 2.0);
    let predicted = a * 0.2f64.powi(5) * 20.0 / 3600.0;
    assert!(
        (errors[0] / predicted - 1.0).abs() < 0.1,
        "Dormand–Prince error {:e}, leading term predicts {predicted:e}",
        errors[0]
    );
    assert_order("Dormand–Prince (fixed step)", &errors, 5.0);
}

/// In its adaptive mode the error must follow the tolerance: tightening `rtol` (with
/// `atol` a fixed fraction of it) by 10^5 must shrink the error by roughly as much (the
/// global error of a tolerance-proportional controller is ∝ tol), and the number of steps
/// needed must grow like tol^(−1/5): ×10^(5/5) = ×10 — the order-5 signature of the
/// adaptive method (error ∝ n^(−5)).
#[test]
fn dormand_prince_adaptive_error_follows_tolerance() {
    let model = Oscillator::default();
    let run = |tol: f64| {
        let trajectory = Simulation::new(&model, start())
            .run(&DormandPrince::new(tol, tol), T_END)
            .unwrap();
        let steps = trajectory.len() - 1;
        (error(&DormandPrince::new(tol, tol)), steps)
    };
    let (e_loose, n_loose) = run(1e-6);
    let (e_tight, n_tight) = run(1e-11);
    println!("Dormand–Prince adaptive: tol 1e-6: e = {e_loose:.3e} in {n_loose} steps; tol 1e-11: e = {e_tight:.3e} in {n_tight} steps");
    // Both errors within a modest factor of their tolerance times ω t_end.
    assert!(e_loose < 20.0 * 1e-6 && e_tight < 20.0 * 1e-11);
    let error_ratio = (e_loose / e_tight).log10();
    assert!(
        (3.5..=6.0).contains(&error_ratio),
        "error ratio 10^{error_ratio:.2} for a tolerance ratio 10^5"
    );
    // Error ∝ n^(−p): p = log(e_loose/e_tight) / log(n_tight/n_loose).
    let p = (e_loose / e_tight).ln() / (n_tight as f64 / n_loose as f64).ln();
    assert!(
        (p - 5.0).abs() <= 0.7,
        "error against number of steps gives order {p:.2}"
    );
}

#[test]
fn variational_midpoint_is_second_order() {
    let errors: Vec<f64> = STEPS.iter().map(|&h| error(&Variational::new(h))).collect();
    // Leading term A (ωh)² ω t_end / 12: 0.075 at ωh = 0.2.
    let a = X0.hypot(V0 / 2.0);
    let predicted = a * 0.2f64.powi(2) * 20.0 / 12.0;
    assert!(
        (errors[0] / predicted - 1.0).abs() < 0.1,
        "variational error {:e}, leading term predicts {predicted:e}",
        errors[0]
    );
    assert_order("variational midpoint", &errors, 2.0);
}

lagrangian! {
    /// m ẍ + c ẋ + k x = F0 cos(w t): dissipation and a force inside the model.
    pub struct Driven {
        parameters: m = 1.5, k = 6.0, c = 0.6, F0 = 0.9, w = 1.7;
        coordinates: x;
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * x^2;
        dissipation = c/2 * dot(x)^2;
        force F0 * cos(w * t) on x;
    }
}

/// Forces and dissipation enter the variational integrator through the discrete
/// Lagrange–d'Alembert principle, evaluated at the midpoint (t + h/2, (q₀ + q₁)/2,
/// (q₁ − q₀)/h): the method stays second order. Truth: the steady state
/// x = A cos(wt − δ), A = F0/√((k − m w²)² + (c w)²), reached once the transient
/// e^{−c t/(2m)} = e^{−0.2 t} has decayed (e^{−26} ≈ 5e-12 at t = 130); the error is
/// |√(x² + (ẋ/w)²)/A − 1| at t = 130.
#[test]
fn variational_with_forces_and_dissipation_is_second_order() {
    let model = Driven::default();
    let amplitude = model.F0
        / ((model.k - model.m * model.w.powi(2)).powi(2) + (model.c * model.w).powi(2)).sqrt();
    let start = State::new(0.0, SVector::from([0.2]), SVector::from([0.0]));
    let errors: Vec<f64> = [0.04, 0.02, 0.01]
        .iter()
        .map(|&h| {
            let end = *Simulation::new(&model, start)
                .run(&Variational::new(h), 130.0)
                .unwrap()
                .last();
            (end.q[0].hypot(end.qd[0] / model.w) / amplitude - 1.0).abs()
        })
        .collect();
    assert_order("variational, forced and damped", &errors, 2.0);
}

/// Exact derivatives against central differences (`common::derivatives`).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("Oscillator", &Oscillator::default())
        .standard()
        .check();
    Derivatives::new("Driven", &Driven::default())
        .standard()
        .check();
}
