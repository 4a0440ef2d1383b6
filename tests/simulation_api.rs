//! The simulation driver: control laws, trajectories (CSV, interpolation, exact output
//! times), errors and the progress hook — each checked against a closed form.

use crate::common;

use common::derivatives::{order_one, Derivatives};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::*;
use std::f64::consts::{E, PI};

lagrangian! {
    /// m ẍ + k x = u: an undamped oscillator pushed by the input u.
    pub struct Forced {
        parameters: m = 1.5, k = 6.0;
        coordinates: x;
        inputs: u;
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * x^2;
        force u on x;
    }
}

use lagrange_test_models::Oscillator;

lagrangian! {
    /// A planet around a sun, in polar coordinates (for a two-coordinate CSV header).
    pub struct Kepler {
        parameters: mu = 1.0;
        coordinates: r, phi;
        kinetic = 1/2 * (dot(r)^2 + r^2 * dot(phi)^2);
        potential = -mu / r;
    }
}

lagrangian! {
    /// A body whose mass m(t) = m0 (1 − t/τ) is gone at t = τ:
    /// d/dt (m(t) ẋ) = 0 ⇒ ẋ = v0 / (1 − t/τ), x = x0 − v0 τ ln(1 − t/τ).
    /// At t = τ the mass matrix m(t) is zero: the velocity of x is missing from T.
    pub struct Vanishing {
        parameters: m0 = 2.0, tau = 1.0;
        coordinates: x;
        kinetic = m0/2 * (1 - t/tau) * dot(x)^2;
    }
}

lagrangian! {
    /// ẍ = x²: with x0 = 1, ẋ0 = 2/√6 (zero energy) the solution x = 6/(√6 − t)² blows
    /// up at t* = √6.
    pub struct BlowUp {
        coordinates: x;
        kinetic = dot(x)^2/2;
        potential = -x^3/3;
    }
}

fn oscillator_exact(t: f64, x0: f64, v0: f64, w: f64) -> (f64, f64) {
    let (s, c) = (w * t).sin_cos();
    (x0 * c + v0 / w * s, -x0 * w * s + v0 * c)
}

// ---------------------------------------------------------------------------------------
// Control law
// ---------------------------------------------------------------------------------------

/// The damping and the drive both come from the control law u(t, s) = F0 cos ωt − c ẋ, so
/// the closed loop is m ẍ + c ẋ + k x = F0 cos ωt. Its steady state is
///
/// ```text
/// x(t) = A cos(ωt − δ),   A = F0 / √((k − m ω²)² + (c ω)²),   δ = atan2(c ω, k − m ω²)
/// ```
///
/// and the transient decays like e^{−c t/(2m)} = e^{−0.2 t}: below 1e-11 by t = 130.
/// A pure sinusoid has √(x² + (ẋ/ω)²) = A at every instant.
#[test]
fn control_law_gives_the_steady_state_amplitude() {
    let model = Forced::default();
    let (f0, w, c) = (0.9, 1.7, 0.6);
    let detuning = model.k - model.m * w * w;
    let amplitude = f0 / (detuning.powi(2) + (c * w).powi(2)).sqrt();
    let delta = (c * w).atan2(detuning);

    let mut calls = 0usize;
    let start = State::new(0.0, SVector::from([0.2]), SVector::from([-0.4]));
    let period = 2.0 * PI / w;
    let times: Vec<f64> = (0..=16).map(|i| 130.0 + i as f64 * period / 16.0).collect();
    let trajectory = Simulation::new(&model, start)
        .inputs(|t, s| {
            calls += 1;
            SVector::from([f0 * (w * t).cos() - c * s.qd[0]])
        })
        .run_at(&DormandPrince::new(1e-11, 1e-13), &times)
        .unwrap();
    assert!(
        calls > 1000,
        "the control law is evaluated at every stage ({calls} calls)"
    );
    assert_eq!(trajectory.len(), times.len());
    let mut worst = 0.0f64;
    for s in trajectory.states() {
        let (x, xd) = (s.q[0], s.qd[0]);
        worst = worst.max((x.hypot(xd / w) / amplitude - 1.0).abs());
        let want = amplitude * (w * s.t - delta).cos();
        assert!(
            (x - want).abs() < 1e-8,
            "x({}) = {x}, steady state {want}",
            s.t
        );
    }
    println!("steady-state amplitude A = {amplitude:.9}, worst relative error {worst:.2e}");
    assert!(worst < 1e-8);
}

/// RK4 also evaluates the control law at its stages, so it keeps its fourth order with a
/// time- and state-dependent input: halving h divides the error by ≈ 16.
#[test]
fn rk4_keeps_its_order_with_a_control_law() {
    let model = Forced::default();
    let (f0, w, c) = (0.9, 1.7, 0.6);
    let detuning = model.k - model.m * w * w;
    let amplitude = f0 / (detuning.powi(2) + (c * w).powi(2)).sqrt();
    let start = State::new(0.0, SVector::from([0.2]), SVector::from([-0.4]));
    let error = |h: f64| {
        let end = *Simulation::new(&model, start)
            .inputs(|t, s| SVector::from([f0 * (w * t).cos() - c * s.qd[0]]))
            .run(&Rk4::new(h), 130.0)
            .unwrap()
            .last();
        (end.q[0].hypot(end.qd[0] / w) / amplitude - 1.0).abs()
    };
    let (e1, e2) = (error(0.02), error(0.01));
    let order = (e1 / e2).log2();
    println!("RK4 with a control law: e(0.02) = {e1:.2e}, e(0.01) = {e2:.2e}, order {order:.2}");
    assert!((order - 4.0).abs() < 0.3, "observed order {order}");
}

// ---------------------------------------------------------------------------------------
// Trajectory: CSV, interpolation, exact output times
// ---------------------------------------------------------------------------------------

#[test]
fn csv_has_named_columns_and_round_trips_every_value() {
    let model = Oscillator::default();
    let start = State::new(0.0, SVector::from([1.0]), SVector::from([0.5]));
    let trajectory = Simulation::new(&model, start)
        .run(&Rk4::new(0.1), 1.0)
        .unwrap();
    let mut out = Vec::new();
    trajectory.write_csv(&mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("t,x,dot(x),energy"));
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), trajectory.len());
    assert_eq!(rows.len(), 11);
    for ((row, s), h) in rows
        .iter()
        .zip(trajectory.states())
        .zip(trajectory.energies())
    {
        // Values are written in Rust's shortest round-trip form: parsing gives them back
        // bit for bit.
        assert_eq!(row, &vec![s.t, s.q[0], s.qd[0], *h]);
    }
    // First row: t = 0, x = 1, ẋ = 0.5, h = m ẋ²/2 + k x²/2 = 0.125 + 2.
    assert_eq!(rows[0], vec![0.0, 1.0, 0.5, 2.125]);

    let kepler = Kepler::default();
    let start = State::new(0.0, SVector::from([1.0, 0.0]), SVector::from([0.0, 1.0]));
    let orbit = Simulation::new(&kepler, start)
        .run(&Rk4::new(0.5), 1.0)
        .unwrap();
    let mut out = Vec::new();
    orbit.write_csv(&mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.lines().next(), Some("t,r,phi,dot(r),dot(phi),energy"));
    // The circular orbit r = 1, φ̇ = 1 of μ = 1 has h = 1/2 − 1.
    assert_eq!(text.lines().nth(1), Some("0,1,0,0,1,-0.5"));
    assert_eq!(text.lines().count(), 4);
}

/// Cubic Hermite interpolation between exact samples of x = cos ωt + (v0/ω) sin ωt spaced
/// Δ apart: the position error is f⁗(ξ) Δ⁴/384 at the middle of an interval (≤ A ω⁴ Δ⁴/384
/// everywhere), so halving Δ divides it by 16; the velocity, the derivative of that cubic,
/// is third order (÷ 8). At the samples themselves `at` returns them exactly.
#[test]
fn hermite_interpolation_is_fourth_order_between_samples() {
    let (x0, v0, w) = (1.0, 0.5, 2.0);
    let amplitude = f64::hypot(x0, v0 / w);
    let errors = |spacing: f64| {
        let mut trajectory = Trajectory::new(&["x"], &[]);
        let n = (4.0 / spacing).round() as usize;
        for i in 0..=n {
            let t = i as f64 * spacing;
            let (x, v) = oscillator_exact(t, x0, v0, w);
            trajectory.push(
                State::new(t, SVector::from([x]), SVector::from([v])),
                SVector::zeros(),
                0.0,
            );
        }
        let (mut ex, mut ev) = (0.0f64, 0.0f64);
        for i in 0..n {
            for frac in [0.17, 0.5, 0.81] {
                let t = (i as f64 + frac) * spacing;
                let s = trajectory.at(t).unwrap();
                assert_eq!(s.t, t);
                let (x, v) = oscillator_exact(t, x0, v0, w);
                ex = ex.max((s.q[0] - x).abs());
                ev = ev.max((s.qd[0] - v).abs());
            }
        }
        // Exact at the samples, including the first and the last.
        for s in trajectory.states() {
            assert_eq!(trajectory.at(s.t).unwrap(), *s);
        }
        assert!(trajectory.at(-1e-9).is_none() && trajectory.at(4.0 + 1e-9).is_none());
        (ex, ev)
    };
    let (ex1, ev1) = errors(0.1);
    let (ex2, ev2) = errors(0.05);
    let bound = amplitude * w.powi(4) * 0.1f64.powi(4) / 384.0;
    let (px, pv) = ((ex1 / ex2).log2(), (ev1 / ev2).log2());
    println!("Hermite: position error {ex1:.2e} (bound {bound:.2e}) → {ex2:.2e}, order {px:.2}; velocity {ev1:.2e} → {ev2:.2e}, order {pv:.2}");
    assert!(ex1 <= bound * (1.0 + 1e-9) && ex1 > 0.5 * bound);
    assert!((px - 4.0).abs() < 0.3, "position order {px}");
    assert!((pv - 3.0).abs() < 0.3, "velocity order {pv}");
}

/// `at` on a simulated trajectory (Dormand–Prince at 1e-9, steps up to ≈ 0.05): the
/// interpolant of the computed samples differs from the exact solution by at most the
/// interpolation bound A ω⁴ Δ⁴/384 for the largest step Δ plus what the samples' own errors
/// contribute (the Hermite basis weights: |h00| + |h01| = 1 on the positions,
/// |h10| + |h11| ≤ 4/27·2 on Δ × the velocities).
#[test]
fn interpolated_simulation_matches_the_exact_solution() {
    let model = Oscillator::default();
    let (x0, v0, w) = (1.0, 0.5, 2.0);
    let start = State::new(0.0, SVector::from([x0]), SVector::from([v0]));
    let trajectory = Simulation::new(&model, start)
        .run(&DormandPrince::new(1e-9, 1e-9), 10.0)
        .unwrap();
    let times: Vec<f64> = trajectory.times().collect();
    let largest = times.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
    let (mut node_x, mut node_v) = (0.0f64, 0.0f64);
    for s in trajectory.states() {
        let (x, v) = oscillator_exact(s.t, x0, v0, w);
        node_x = node_x.max((s.q[0] - x).abs());
        node_v = node_v.max((s.qd[0] - v).abs());
    }
    let interpolation = f64::hypot(x0, v0 / w) * w.powi(4) * largest.powi(4) / 384.0;
    let bound = interpolation + node_x + 8.0 / 27.0 * largest * node_v;
    let mut worst = 0.0f64;
    for i in 0..1000 {
        let t = 10.0 * (i as f64 + 0.5) / 1000.0;
        let s = trajectory.at(t).unwrap();
        let (x, _) = oscillator_exact(t, x0, v0, w);
        worst = worst.max((s.q[0] - x).abs());
    }
    println!(
        "DP samples: {} with largest step {largest:.3}, sample errors {node_x:.1e}; at() error {worst:.2e} ≤ {bound:.2e} (interpolation part {interpolation:.2e})",
        times.len()
    );
    assert!(
        worst <= bound,
        "interpolation error {worst:e}, bound {bound:e}"
    );
    // The interpolation, not the integration, dominates between samples here.
    assert!(worst > 5.0 * node_x);
}

/// `run_at` lands exactly on the requested times — bit for bit, including times such as
/// 0.1 + 0.2 that no sum of steps reproduces — with every integrator, and the samples are
/// the solution there (not interpolations).
#[test]
fn run_at_records_exactly_the_requested_times() {
    let model = Oscillator::default();
    let (x0, v0, w) = (1.0, 0.5, 2.0);
    let start = State::new(0.0, SVector::from([x0]), SVector::from([v0]));
    let times = [0.1 + 0.2, 1.0 / 3.0, 1.0, E, PI, 2.0 * E, 7.3];

    fn check<I: Integrator<Oscillator, 1, 0>>(
        name: &str,
        integrator: &I,
        start: State<1>,
        times: &[f64],
        tolerance: f64,
    ) {
        let model = Oscillator::default();
        let trajectory = Simulation::new(&model, start)
            .run_at(integrator, times)
            .unwrap();
        let got: Vec<u64> = trajectory.times().map(f64::to_bits).collect();
        let want: Vec<u64> = times.iter().map(|t| t.to_bits()).collect();
        assert_eq!(got, want, "{name}: sample times");
        for s in trajectory.states() {
            let (x, v) = oscillator_exact(s.t, 1.0, 0.5, 2.0);
            assert!(
                (s.q[0] - x).abs() < tolerance && (s.qd[0] - v).abs() < 2.0 * tolerance,
                "{name}: at t = {} x = {}, exact {x}",
                s.t,
                s.q[0]
            );
        }
    }
    // Tolerances from the leading errors at t = 7.3 (ω t ≈ 15, see integrator_orders.rs):
    // RK4 A (ωh)⁴ ωt/120 ≈ 2e-8, variational A (ωh)² ωt/12 ≈ 5e-6.
    check("RK4", &Rk4::new(0.01), start, &times, 5e-8);
    check(
        "Dormand–Prince",
        &DormandPrince::new(1e-11, 1e-12),
        start,
        &times,
        1e-9,
    );
    check("variational", &Variational::new(0.001), start, &times, 2e-5);

    // The initial time is recorded only when asked for.
    let with_start = Simulation::new(&model, start)
        .run_at(&Rk4::new(0.1), &[0.0, 0.5])
        .unwrap();
    assert_eq!(with_start.times().collect::<Vec<_>>(), [0.0, 0.5]);
    assert_eq!(with_start.states()[0], start);
    let (x, _) = oscillator_exact(0.5, x0, v0, w);
    assert!((with_start.last().q[0] - x).abs() < 1e-5);
}

/// Output times built by accumulating a step (0.1 ten times is 0.9999999999999999) and
/// then the end time 1.0: two requested times one ulp apart. RK4 and the variational
/// integrator take the tiny step; Dormand–Prince must too — the solution is perfectly
/// regular there.
#[test]
fn run_at_with_output_times_one_ulp_apart() {
    let model = Oscillator::default();
    let start = State::new(0.0, SVector::from([1.0]), SVector::from([0.5]));
    let mut times = Vec::new();
    let mut t = 0.0;
    for _ in 0..10 {
        t += 0.1;
        times.push(t);
    }
    times.push(1.0);
    assert_eq!(times[9], 0.9999999999999999);
    let rk4 = Simulation::new(&model, start).run_at(&Rk4::new(0.01), &times);
    assert_eq!(rk4.unwrap().len(), 11);
    let vi = Simulation::new(&model, start).run_at(&Variational::new(0.01), &times);
    assert_eq!(vi.unwrap().len(), 11);
    let dp = Simulation::new(&model, start)
        .run_at(&DormandPrince::default(), &times)
        .map_err(|e| e.to_string());
    assert_eq!(dp.map(|t| t.len()), Ok(11));
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/// RK4 with h = 0.125 (exact in binary) on the vanishing mass: the step from t = 0.875
/// evaluates its last stage at t = 1 exactly, where m(t) = 0. The run stops there, names
/// the time of the last state reached and the coordinate whose velocity is missing, and
/// keeps the 8 samples t = 0, 0.125, …, 0.875, which follow x = x0 − v0 τ ln(1 − t/τ).
#[test]
fn singular_mass_matrix_stops_the_run_with_the_trajectory_so_far() {
    let model = Vanishing::default();
    let (x0, v0) = (0.0, 1.0);
    let start = State::new(0.0, SVector::from([x0]), SVector::from([v0]));
    for (name, result) in [
        (
            "RK4",
            Simulation::new(&model, start).run(&Rk4::new(0.125), 2.0),
        ),
        (
            // Its midpoint equations hold at t = 0.9375, but the velocity at t = 1 solves
            // m(1) ẋ = p with m(1) = 0.
            "variational",
            Simulation::new(&model, start).run(&Variational::new(0.125), 2.0),
        ),
    ] {
        let error = result.unwrap_err();
        assert_eq!(error.time, 0.875, "{name}");
        assert_eq!(
            error.reason,
            StepError::Dynamics(DynamicsError::MissingVelocity { coordinate: "x" }),
            "{name}"
        );
        let message = error.to_string();
        assert!(
            message.contains("t = 0.875") && message.contains("dot(x)"),
            "{name}: {message}"
        );
        let kept = &error.trajectory;
        let times: Vec<f64> = kept.times().collect();
        assert_eq!(
            times,
            (0..8).map(|i| i as f64 * 0.125).collect::<Vec<_>>(),
            "{name}"
        );
        assert_eq!(kept.last().t, error.time);
        for s in kept.states() {
            let x = x0 - v0 * model.tau * (1.0 - s.t / model.tau).ln();
            let v = v0 / (1.0 - s.t / model.tau);
            // Both are accurate early; near t = 0.875 the velocity is 8 v0 and the steps
            // are coarse, so 2 % there.
            assert!(
                (s.q[0] - x).abs() < 0.02 * x.abs().max(0.1),
                "{name}: x({}) = {}",
                s.t,
                s.q[0]
            );
            assert!(
                (s.qd[0] / v - 1.0).abs() < 0.02,
                "{name}: ẋ({}) = {}",
                s.qd[0],
                s.t
            );
        }
    }
}

/// Dormand–Prince on ẍ = x², which blows up at t* = √6: the steps shrink like (t* − t)
/// until they fall below what t resolves, and the run stops with StepSizeUnderflow just
/// before t*. The samples kept follow x = 6/(√6 − t)².
#[test]
fn finite_time_blow_up_stops_dormand_prince_with_step_size_underflow() {
    let t_star = 6f64.sqrt();
    let start = State::new(0.0, SVector::from([1.0]), SVector::from([2.0 / t_star]));
    let error = Simulation::new(&BlowUp {}, start)
        .run(&DormandPrince::default(), 5.0)
        .unwrap_err();
    println!(
        "blow-up: {error}; t* − t = {:.2e}, {} samples",
        t_star - error.time,
        error.trajectory.len()
    );
    assert!(
        matches!(error.reason, StepError::StepSizeUnderflow { step } if step > 0.0 && step < 1e-13),
        "{:?}",
        error.reason
    );
    assert!(
        error.time < t_star && t_star - error.time < 1e-6,
        "stopped at {}",
        error.time
    );
    assert!(error
        .to_string()
        .starts_with(&format!("simulation stopped at t = {}", error.time)));
    let kept = &error.trajectory;
    assert_eq!(kept.last().t, error.time);
    assert!(kept.last().q[0] > 1e12, "x = {}", kept.last().q[0]);
    for s in kept.states().iter().filter(|s| s.q[0] < 1e6) {
        let x = 6.0 / (t_star - s.t).powi(2);
        assert!(
            (s.q[0] / x - 1.0).abs() < 1e-5,
            "x({}) = {}, exact {x}",
            s.t,
            s.q[0]
        );
    }
}

/// Settings that make no sense are refused before any step, with the trajectory empty.
#[test]
fn invalid_settings_are_refused() {
    let model = Oscillator::default();
    let start = State::new(0.5, SVector::from([1.0]), SVector::from([0.0]));
    let invalid = |result: Result<Trajectory<1>, SimulationError<1>>, what: &str| {
        let error = result.expect_err(what);
        assert!(
            matches!(error.reason, StepError::InvalidSettings(_)),
            "{what}: {:?}",
            error.reason
        );
        assert_eq!(error.time, 0.5, "{what}");
        assert!(error.trajectory.is_empty(), "{what}");
        assert!(
            error.to_string().contains("invalid settings"),
            "{what}: {error}"
        );
    };
    let sim = || Simulation::new(&model, start);
    for h in [-0.1, 0.0, f64::NAN, f64::INFINITY] {
        invalid(sim().run(&Rk4::new(h), 1.0), &format!("RK4 step {h}"));
        invalid(
            sim().run(&Variational::new(h), 1.0),
            &format!("variational step {h}"),
        );
    }
    let dp = DormandPrince::default();
    for (bad, what) in [
        (DormandPrince { rtol: -1e-6, ..dp }, "negative rtol"),
        (
            DormandPrince {
                rtol: 0.0,
                atol: 0.0,
                ..dp
            },
            "zero tolerances",
        ),
        (
            DormandPrince {
                atol: f64::NAN,
                ..dp
            },
            "NaN atol",
        ),
        (
            DormandPrince {
                max_step: 0.0,
                ..dp
            },
            "zero max_step",
        ),
        (
            DormandPrince {
                max_step: -1.0,
                ..dp
            },
            "negative max_step",
        ),
        (
            DormandPrince {
                initial_step: Some(-0.1),
                ..dp
            },
            "negative initial_step",
        ),
    ] {
        invalid(sim().run(&bad, 1.0), what);
    }
    let rk4 = Rk4::new(0.1);
    invalid(sim().run_at(&rk4, &[0.6, 0.55, 0.7]), "unsorted times");
    invalid(sim().run_at(&rk4, &[0.4, 0.6]), "a time before the start");
    invalid(sim().run_at(&rk4, &[0.6, f64::NAN]), "a NaN time");
    invalid(
        sim().run_at(&rk4, &[0.6, f64::INFINITY]),
        "an infinite time",
    );
    invalid(sim().run(&rk4, 0.2), "an end before the start");
}

// ---------------------------------------------------------------------------------------
// Progress
// ---------------------------------------------------------------------------------------

/// The hook is called once per step, with the step count, increasing times and a
/// fraction that rises to exactly 1 at the end.
#[test]
fn progress_hook_reports_every_step_up_to_completion() {
    let model = Oscillator::default();
    let start = State::new(1.0, SVector::from([1.0]), SVector::from([0.0]));

    let mut seen = Vec::new();
    let trajectory = Simulation::new(&model, start)
        .progress(|p| seen.push(p))
        .run(&Rk4::new(0.1), 3.0)
        .unwrap();
    assert_eq!(seen.len(), 20);
    assert_eq!(seen.len(), trajectory.len() - 1);
    check_progress(&seen, 1.0, 3.0);
    for (p, s) in seen.iter().zip(&trajectory.states()[1..]) {
        assert_eq!(p.t, s.t);
    }

    // Adaptive steps and output times: the span ends at the last requested time.
    let mut seen = Vec::new();
    let trajectory = Simulation::new(&model, start)
        .progress(|p| seen.push(p))
        .run_at(&DormandPrince::default(), &[1.5, 2.0, 4.0])
        .unwrap();
    assert_eq!(trajectory.len(), 3);
    assert!(seen.len() > 3);
    check_progress(&seen, 1.0, 4.0);
}

fn check_progress(seen: &[Progress], t_start: f64, t_end: f64) {
    for (i, p) in seen.iter().enumerate() {
        assert_eq!(p.steps, i + 1);
        assert_eq!((p.t_start, p.t_end), (t_start, t_end));
        assert!((0.0..=1.0).contains(&p.fraction()));
        assert!((p.fraction() - (p.t - t_start) / (t_end - t_start)).abs() < 1e-15);
    }
    for w in seen.windows(2) {
        assert!(w[1].t > w[0].t, "times {} then {}", w[0].t, w[1].t);
        assert!(w[1].fraction() >= w[0].fraction());
    }
    let last = seen.last().unwrap();
    assert_eq!(last.t, t_end);
    assert_eq!(last.fraction(), 1.0);
}

/// Exact derivatives against central differences (`common::derivatives`). Kepler is
/// defined for r > 0 (states with r in [0.5, 1.5], structured around (1, 0)); Vanishing's
/// mass m0 (1 − t/τ) vanishes at t = τ = 1 (states at t < 0.8).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("Forced", &Forced::default())
        .standard()
        .check();
    Derivatives::new("Oscillator", &Oscillator::default())
        .standard()
        .check();
    Derivatives::new("Kepler", &Kepler::default())
        .sampler(|rng| {
            let (mut s, u) = order_one::<2, 0>(rng);
            s.q[0] = 1.0 + 0.5 * s.q[0];
            (s, u)
        })
        .structured_at(SVector::from([1.0, 0.0]))
        .random(3)
        .check();
    Derivatives::new("Vanishing", &Vanishing::default())
        .sampler(|rng| {
            let (mut s, u) = order_one::<1, 0>(rng);
            s.t *= 0.4;
            (s, u)
        })
        .standard()
        .check();
    Derivatives::new("BlowUp", &BlowUp).standard().check();
}

/// Issue 29, item 9: `Trajectory::new` takes any names; one with a comma or a line break
/// made `write_csv` return `Ok` with a header of more fields than its rows. It is now an
/// `InvalidInput` error naming the name, and nothing is written.
#[test]
fn write_csv_refuses_names_that_would_break_its_columns() {
    for name in ["x,y", "x\ny", "say \"x\"", ""] {
        let mut tr = Trajectory::new(&[name], &["f"]);
        tr.push(
            State::at_rest(SVector::from([1.0])),
            SVector::from([0.0]),
            0.0,
        );
        let mut out = Vec::new();
        let error = tr.write_csv(&mut out).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput, "{name:?}");
        assert!(error.to_string().contains(&format!("`{name}`")), "{error}");
        assert!(out.is_empty());
        // The same for an input name.
        let mut tr = Trajectory::new(&["x"], &[name]);
        tr.push(
            State::at_rest(SVector::from([1.0])),
            SVector::from([0.0]),
            0.0,
        );
        assert!(tr.write_csv(&mut Vec::new()).is_err(), "{name:?}");
    }
}
