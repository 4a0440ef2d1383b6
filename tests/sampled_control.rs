//! Sampled controllers in a simulation: a discrete LQR on a linear plant against the
//! discrete-time recursion it was designed for, the zero-order hold, the controller's state
//! in the trajectory (columns, CSV, serde), events and samples at one time, and the
//! settings that are checked; the discrete closed loop's multipliers against closed forms
//! and against the simulated loop.

use lagrange_runtime::control::{c2d, dlqr, dlqr_gain, ControlError, DiscreteSpectrum, Gain};
use lagrange_runtime::linearize::{linearize, Linearization};
use lagrange_runtime::nalgebra::{DMatrix, DVector};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{
    DormandPrince, Event, Integrator, Projected, Rk4, Sampled, SampledController, Simulation,
    StepError, Trajectory, Variational,
};
use lagrange_runtime::stability::Stability;
use std::ops::ControlFlow;

lagrangian! {
    /// A damped mass on a spring pushed by the force f: a linear plant,
    /// ẍ = (f + push − k x − c ẋ)/m, with a constant push that is zero unless a test sets
    /// it (a disturbance the design does not know of).
    struct Plant {
        parameters: m = 1.0, k = 4.0, c = 0.3, push = 0.0;
        coordinates: x;
        inputs: f;
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * x^2;
        dissipation = c/2 * dot(x)^2;
        force f + push on x;
    }
}

const PERIOD: f64 = 0.05;

/// The plant's linearization at rest (exact: the plant is linear), its ZOH discretization
/// at [`PERIOD`] and the discrete LQR gain K on it (Q = I, R = 0.1).
fn design() -> (
    Linearization<1, 1>,
    DMatrix<f64>,
    DMatrix<f64>,
    DMatrix<f64>,
) {
    let lin = linearize(
        &Plant::default(),
        &State::at_rest(SVector::zeros()),
        &SVector::zeros(),
    )
    .unwrap();
    let (ad, bd) = c2d(&lin.a(), &lin.b(), PERIOD).unwrap();
    let (k, _p) = dlqr(
        &ad,
        &bd,
        &DMatrix::identity(2, 2),
        &DMatrix::from_element(1, 1, 0.1),
    )
    .unwrap();
    (lin, ad, bd, k)
}

/// x_k = (A_d − B_d K)^k x₀ for k = 0..=samples.
fn recursion(
    ad: &DMatrix<f64>,
    bd: &DMatrix<f64>,
    k: &DMatrix<f64>,
    x0: [f64; 2],
    samples: usize,
) -> Vec<DVector<f64>> {
    let closed = ad - bd * k;
    let mut x = DVector::from_column_slice(&x0);
    let mut all = vec![x.clone()];
    for _ in 0..samples {
        x = &closed * x;
        all.push(x.clone());
    }
    all
}

/// The largest distance between the simulated state and the recursion at the sample
/// times, and the number of sample times found in the trajectory.
fn distance_at_samples(run: &Trajectory<1, 1>, expected: &[DVector<f64>]) -> (f64, usize) {
    let mut worst = 0.0f64;
    let mut found = 0;
    for (i, want) in expected.iter().enumerate() {
        let t = PERIOD * i as f64;
        let Some(s) = run.states().iter().find(|s| s.t == t) else {
            continue;
        };
        found += 1;
        worst = worst.max((s.q[0] - want[0]).abs().max((s.qd[0] - want[1]).abs()));
    }
    (worst, found)
}

/// The check: the sampled simulation of a linear plant under a discrete gain from
/// `dlqr` on `c2d` follows x_{k+1} = (A_d − B_d K) x_k at the samples, to 1e-10, with RK4
/// at a step that divides the period and with Dormand–Prince at tight tolerances (whose
/// first-same-as-last slope must be forgotten at each sample, where the input jumps).
#[test]
fn a_discrete_lqr_follows_the_discrete_recursion_at_the_samples() {
    let (lin, ad, bd, k) = design();
    let gain = Gain::from_matrix(&k, &lin).unwrap();
    let samples = 60; // 3 s
    let expected = recursion(&ad, &bd, &k, [1.0, -0.5], samples);
    let start = State::new(0.0, SVector::from([1.0]), SVector::from([-0.5]));
    let t_end = PERIOD * samples as f64;
    let rk4 = Simulation::new(&Plant::default(), start)
        .controller(Sampled::new(PERIOD, gain.law()))
        .run(&Rk4::new(PERIOD / 20.0), t_end)
        .unwrap();
    let dopri = Simulation::new(&Plant::default(), start)
        .controller(Sampled::new(PERIOD, gain.law()))
        .run(&DormandPrince::new(1e-13, 1e-15), t_end)
        .unwrap();
    // Measured: 5.0e-12 (RK4), 1.8e-14 (Dormand–Prince; 3.9e-11 when it reused the slope
    // of the old input after each sample).
    for (name, run, bound) in [("RK4", &rk4, 1e-10), ("Dormand-Prince", &dopri, 1e-12)] {
        let (distance, found) = distance_at_samples(run, &expected);
        println!("{name}: largest distance from the recursion {distance:e}");
        assert_eq!(
            found,
            samples + 1,
            "{name}: every sample time is a step's end"
        );
        assert!(distance < bound, "{name}: {distance:e}");
    }
    // The closed loop decays: the design is stable.
    assert!(expected[samples].amax() < 0.05 * expected[0].amax());
    // The recorded input at each sample time is −K x_k, and it is held until the next.
    let k_row = [k[(0, 0)], k[(0, 1)]];
    let f = rk4.column("f").unwrap();
    for (s, f) in rk4.states().iter().zip(&f) {
        // The last sample time at or before t, t_k = k Ts as the simulation computes it.
        let mut sample = (s.t / PERIOD).floor() as usize;
        while PERIOD * (sample + 1) as f64 <= s.t {
            sample += 1;
        }
        while PERIOD * sample as f64 > s.t {
            sample -= 1;
        }
        let x = &expected[sample];
        let want = -(k_row[0] * x[0] + k_row[1] * x[1]);
        assert!((f - want).abs() < 1e-9, "t = {}: f = {f}, want {want}", s.t);
    }
}

/// Without the sampled controller's hold the same gain applied continuously gives another
/// motion: the hold is what the recursion describes (a check that the test above can fail).
#[test]
fn a_continuous_law_with_the_same_gain_misses_the_recursion() {
    let (lin, ad, bd, k) = design();
    let gain = Gain::from_matrix(&k, &lin).unwrap();
    let expected = recursion(&ad, &bd, &k, [1.0, -0.5], 20);
    let start = State::new(0.0, SVector::from([1.0]), SVector::from([-0.5]));
    let times: Vec<f64> = (0..=20).map(|i| PERIOD * f64::from(i)).collect();
    let run = Simulation::new(&Plant::default(), start)
        .inputs(gain.law())
        .run_at(&Rk4::new(PERIOD / 10.0), &times)
        .unwrap();
    let (distance, found) = distance_at_samples(&run, &expected);
    assert_eq!(found, 21);
    assert!(distance > 1e-3, "{distance:e}");
}

/// A controller with state: a discrete integrator z_k = z_{k−1} + Ts x_k, u_k = −z_k,
/// counting its updates and remembering when they happened.
#[derive(Default)]
struct Integral {
    z: [f64; 2],
    times: Vec<f64>,
}

impl SampledController<1, 1> for Integral {
    fn period(&self) -> f64 {
        0.1
    }

    fn update(&mut self, t: f64, s: &State<1>) -> SVector<f64, 1> {
        self.times.push(t);
        self.z[0] += 0.1 * s.q[0];
        self.z[1] = self.times.len() as f64;
        SVector::from([-self.z[0]])
    }

    fn state_names(&self) -> &[&str] {
        &["z", "updates"]
    }

    fn state(&self) -> &[f64] {
        &self.z
    }
}

/// The controller's state is recorded at every sample (held between sample times), by
/// name in `column`, in the CSV header and rows, and through serde.
#[test]
fn the_controllers_state_is_recorded_with_every_sample() {
    let mut controller = Integral::default();
    let start = State::new(0.0, SVector::from([0.5]), SVector::zeros());
    let run = Simulation::new(&Plant::default(), start)
        .controller(&mut controller)
        .run(&Rk4::new(0.03), 1.0)
        .unwrap();
    // Borrowed, the controller is left to be read: sampled at 0, 0.1, …, 1.0.
    let want: Vec<f64> = (0..=10).map(|k| 0.1 * f64::from(k)).collect();
    assert_eq!(controller.times, want);
    assert_eq!(run.controller_names(), ["z", "updates"]);
    let (z, updates, x) = (
        run.column("z").unwrap(),
        run.column("updates").unwrap(),
        run.column("x").unwrap(),
    );
    // z at each sample is Ts Σ x over the samples so far, recomputed from the trajectory;
    // between samples it is held.
    let mut sum = 0.0;
    for (i, s) in run.states().iter().enumerate() {
        let k = (s.t / 0.1 + 1e-9).floor();
        if s.t == 0.1 * k {
            sum += 0.1 * x[i];
        }
        assert_eq!(z[i], sum, "t = {}", s.t);
        assert_eq!(updates[i], k + 1.0, "t = {}", s.t);
        assert_eq!(run.controller_states().nth(i).unwrap(), [z[i], updates[i]]);
        assert_eq!(run.inputs()[i][0], -z[i]);
    }
    let mut csv = Vec::new();
    run.write_csv(&mut csv).unwrap();
    let csv = String::from_utf8(csv).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("t,x,dot(x),f,energy,z,updates"));
    let row: Vec<f64> = lines
        .last()
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(row[5..], [*z.last().unwrap(), 11.0]);
    let json = serde_json::to_string(&run).unwrap();
    let back: Trajectory<1, 1> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, run);
    // A trajectory without a controller serializes as before, without the fields.
    let plain = Simulation::new(&Plant::default(), start)
        .run(&Rk4::new(0.1), 0.2)
        .unwrap();
    assert!(!serde_json::to_string(&plain)
        .unwrap()
        .contains("controller"));
    // Values that do not fit the names are refused.
    let cut = json.replace("\"controller\":[", "\"controller\":[1.0,");
    let error = serde_json::from_str::<Trajectory<1, 1>>(&cut).unwrap_err();
    assert!(
        error.to_string().contains("controller state names"),
        "{error}"
    );
}

/// Steps end on every sample time: a fixed step that does not divide the period is
/// shortened before each sample, and the grid restarts there; Dormand–Prince and the
/// variational integrator land on them too.
#[test]
fn every_integrator_lands_on_the_sample_times() {
    let law = || Sampled::new(0.1, |_t: f64, s: &State<1>| SVector::from([-s.q[0]]));
    let start = State::new(0.0, SVector::from([0.5]), SVector::zeros());
    let plant = Plant::default();
    let sim = || Simulation::new(&plant, start).controller(law());
    let samples: Vec<f64> = (0..=10).map(|k| 0.1 * f64::from(k)).collect();
    let rk4 = sim().run(&Rk4::new(0.03), 1.0).unwrap();
    let times: Vec<f64> = rk4.times().collect();
    // 0, 0.03, 0.06, 0.09, 0.1, 0.13, …: four steps per period.
    assert_eq!(rk4.len(), 41);
    assert!((times[1] - 0.03).abs() < 1e-15 && times[4] == 0.1 && (times[5] - 0.13).abs() < 1e-15);
    let runs = [
        ("RK4", rk4),
        (
            "Dormand-Prince",
            sim().run(&DormandPrince::default(), 1.0).unwrap(),
        ),
        (
            "variational",
            sim().run(&Variational::new(0.03), 1.0).unwrap(),
        ),
    ];
    for (name, run) in &runs {
        for t in &samples {
            assert!(run.times().any(|s| s == *t), "{name}: no step ends at {t}");
        }
    }
    // run_at: samples happen between output times as well.
    let mut controller = Integral::default();
    let run = Simulation::new(&Plant::default(), start)
        .controller(&mut controller)
        .run_at(&DormandPrince::default(), &[0.25, 0.5])
        .unwrap();
    assert_eq!(run.len(), 2);
    assert_eq!(
        controller.times,
        [0.0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5]
    );
    assert_eq!(run.column("updates").unwrap(), [3.0, 6.0]);
}

/// A recording event and a sample at one time both happen, as do a stopping event and the
/// sample at its time.
#[test]
fn an_event_and_a_sample_at_one_time_both_happen() {
    let start = State::new(0.0, SVector::from([0.5]), SVector::zeros());
    let mut controller = Integral::default();
    let run = Simulation::new(&Plant::default(), start)
        .controller(&mut controller)
        .event(Event::record("half", |t, _s| t - 0.5))
        .event(Event::record("between", |t, _s| t - 0.35))
        .run(&Rk4::new(0.05), 1.0)
        .unwrap();
    let crossings = run.crossings();
    assert_eq!(crossings.len(), 2);
    assert_eq!(crossings[0].event, "between");
    assert!((crossings[0].state.t - 0.35).abs() < 1e-15);
    // The sample time 5 · 0.1 is 0.5 exactly: the crossing is at the sample.
    assert_eq!(
        (crossings[1].event.as_str(), crossings[1].state.t),
        ("half", 0.5)
    );
    assert!(controller.times.contains(&0.5));
    assert_eq!(controller.times.len(), 11);

    let mut controller = Integral::default();
    let run = Simulation::new(&Plant::default(), start)
        .controller(&mut controller)
        .event(Event::stop("stop", |t, _s| t - 0.30000000000000004))
        .run(&Rk4::new(0.05), 1.0)
        .unwrap();
    let stop = run.stopped_by().unwrap();
    assert_eq!(stop.state.t, 0.30000000000000004);
    assert_eq!(run.last().t, stop.state.t);
    // The sample at the stop was taken, and the last record shows its output.
    assert_eq!(controller.times.len(), 4);
    assert_eq!(run.column("updates").unwrap().last(), Some(&4.0));
    assert_eq!(run.inputs().last().unwrap()[0], -controller.z[0]);
    // A stop between samples takes none there.
    let mut controller = Integral::default();
    Simulation::new(&Plant::default(), start)
        .controller(&mut controller)
        .event(Event::stop("stop", |t, _s| t - 0.27))
        .run(&Rk4::new(0.05), 1.0)
        .unwrap();
    assert_eq!(controller.times.len(), 3);
}

/// Cancellation and the step budget count the steps shortened to a sample like any other.
#[test]
fn cancellation_and_the_step_budget_behave_as_before() {
    let start = State::new(0.0, SVector::from([0.5]), SVector::zeros());
    let error = Simulation::new(&Plant::default(), start)
        .controller(Integral::default())
        .progress(|p| {
            if p.steps == 7 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .run(&Rk4::new(0.03), 1.0)
        .unwrap_err();
    assert_eq!(error.reason, StepError::Cancelled);
    assert_eq!(error.trajectory.len(), 8);
    assert_eq!(error.trajectory.controller_states().len(), 8);
    let error = Simulation::new(&Plant::default(), start)
        .controller(Integral::default())
        .max_steps(5)
        .run(&Rk4::new(0.03), 1.0)
        .unwrap_err();
    assert_eq!(error.reason, StepError::StepBudgetExhausted { steps: 5 });
    // Steps 0.03, 0.06, 0.09, 0.1, 0.13.
    assert!((error.time - 0.13).abs() < 1e-15, "{}", error.time);
}

/// A controller with a given period and state names, for the settings checks.
struct Settings {
    period: f64,
    names: &'static [&'static str],
    state: Vec<f64>,
}

impl SampledController<1, 1> for Settings {
    fn period(&self) -> f64 {
        self.period
    }
    fn update(&mut self, _t: f64, _s: &State<1>) -> SVector<f64, 1> {
        SVector::zeros()
    }
    fn state_names(&self) -> &[&str] {
        self.names
    }
    fn state(&self) -> &[f64] {
        &self.state
    }
}

fn invalid(controller: Settings) -> &'static str {
    let start = State::at_rest(SVector::from([0.1]));
    let error = Simulation::new(&Plant::default(), start)
        .controller(controller)
        .run(&Rk4::new(0.01), 0.1)
        .unwrap_err();
    assert!(error.trajectory.is_empty());
    match error.reason {
        StepError::InvalidSettings(why) => why,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_sample_period_that_is_not_positive_and_finite_is_invalid() {
    for period in [0.0, -0.1, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let why = invalid(Settings {
            period,
            names: &[],
            state: vec![],
        });
        assert_eq!(
            why, "the sample period of a sampled controller must be positive and finite",
            "{period}"
        );
    }
}

/// A period too short for the run's times to resolve is refused before the first step,
/// naming the period and the spacing of the times: t₀ = 10⁶ with Ts = 10⁻¹² (the times
/// are 2⁻³³ ≈ 1.16e-10 apart there), and Ts = 5e-324 from t₀ = 0 to t_end = 1, which
/// t₀ = 0 alone would resolve (the times are 5e-324 apart at 0) but t = 1 does not
/// (2⁻⁵² apart): before, it spent the whole step budget on samples a few 5e-324 apart and
/// then asked for larger steps. A period just above 4 spacings runs.
#[test]
fn a_sample_period_below_the_time_resolution_is_refused() {
    for (t0, end, period, resolution) in [
        (1e6, 1e6 + 1.0, 1e-12, 2f64.powi(-33)),
        (0.0, 1.0, 5e-324, f64::EPSILON),
        (0.0, 1.0, 4.0 * f64::EPSILON, f64::EPSILON),
        (-1e3, 0.0, 1e-14, 2f64.powi(-43)),
    ] {
        let start = State::new(t0, SVector::from([0.1]), SVector::zeros());
        let error = Simulation::new(&Plant::default(), start)
            .controller(Settings {
                period,
                names: &[],
                state: vec![],
            })
            .run(&Rk4::new(0.01), end)
            .unwrap_err();
        assert!(error.trajectory.is_empty());
        assert_eq!(
            error.reason,
            StepError::SamplePeriodTooShort { period, resolution },
            "{t0} {end} {period:e}"
        );
        let message = error.reason.to_string();
        assert!(message.contains(&format!("{period:e}")), "{message}");
    }
    // Above 4 spacings at t = 1: 1.25 · 4 · 2⁻⁵² per sample, 4 samples over 2⁻⁴⁸.
    let period = 5.0 * f64::EPSILON;
    let run = Simulation::new(&Plant::default(), State::at_rest(SVector::from([0.1])))
        .controller(Settings {
            period,
            names: &[],
            state: vec![],
        })
        .run(&Rk4::new(0.01), 1.0)
        .map(|_| ());
    // The run itself needs 1/period samples, far beyond the budget: it fails for that, not
    // for the period.
    assert!(
        matches!(
            run,
            Err(ref e) if matches!(e.reason, StepError::StepBudgetExhausted { .. })
        ),
        "{run:?}"
    );
}

/// A controller whose state names change after `after` updates: `a` at first, then `b`.
struct Renaming {
    updates: usize,
    after: usize,
    state: [f64; 1],
}

impl SampledController<1, 1> for Renaming {
    fn period(&self) -> f64 {
        0.1
    }
    fn update(&mut self, _t: f64, _s: &State<1>) -> SVector<f64, 1> {
        self.updates += 1;
        // `a` counts up, `b` counts down: a mixed column would show it.
        self.state[0] = if self.updates > self.after {
            -(self.updates as f64)
        } else {
            self.updates as f64
        };
        SVector::zeros()
    }
    fn state_names(&self) -> &[&str] {
        if self.updates > self.after {
            &["b"]
        } else {
            &["a"]
        }
    }
    fn state(&self) -> &[f64] {
        &self.state
    }
}

/// State names that change mid-run are an error naming both lists and the time (before,
/// the run went on and filed `b`'s values in the column `a`); the trajectory up to the
/// change keeps `a`'s values, 1, 2, 3 at t = 0, 0.1, 0.2.
#[test]
fn state_names_that_change_during_the_run_are_an_error() {
    let start = State::at_rest(SVector::from([0.1]));
    let error = Simulation::new(&Plant::default(), start)
        .controller(Renaming {
            updates: 0,
            after: 3,
            state: [0.0],
        })
        .run(&Rk4::new(0.01), 1.0)
        .unwrap_err();
    let StepError::ControllerStateNamesChanged {
        ref before,
        ref after,
        t,
    } = error.reason
    else {
        panic!("{:?}", error.reason);
    };
    assert_eq!(
        (before.as_slice(), after.as_slice()),
        (&["a".to_string()][..], &["b".to_string()][..])
    );
    assert!((t - 0.3).abs() < 1e-12, "{t}");
    assert!((error.time - 0.3).abs() < 1e-12, "{}", error.time);
    let a = error.trajectory.column("a").unwrap();
    assert!(!a.is_empty());
    assert!(a.iter().all(|v| *v >= 0.0), "{a:?}");
    assert_eq!(error.trajectory.controller_names(), &["a".to_string()]);
    assert!(error.reason.to_string().contains("[\"a\"]"));
}

#[test]
fn state_names_that_do_not_fit_the_trajectory_are_invalid() {
    for names in [
        &["x"][..],
        &["dot(x)"],
        &["f"],
        &["energy"],
        &["t"],
        &["a", "a"],
        &["a,b"],
        &[""],
    ] {
        let why = invalid(Settings {
            period: 0.1,
            names,
            state: vec![0.0; names.len()],
        });
        assert!(why.contains("state names"), "{names:?}: {why}");
    }
    let why = invalid(Settings {
        period: 0.1,
        names: &["a", "b"],
        state: vec![0.0],
    });
    assert_eq!(
        why,
        "a sampled controller's state must have one value per state name"
    );
}

/// A continuous law and a sampled controller together: which should drive the plant is
/// ambiguous, so the run refuses, naming both.
#[test]
fn a_continuous_law_and_a_controller_together_are_invalid() {
    let start = State::at_rest(SVector::from([0.1]));
    let error = Simulation::new(&Plant::default(), start)
        .inputs(|_, _| SVector::from([1.0]))
        .controller(Integral::default())
        .run(&Rk4::new(0.01), 0.1)
        .unwrap_err();
    let StepError::InvalidSettings(why) = error.reason else {
        panic!("{:?}", error.reason);
    };
    assert!(
        why.contains("`inputs`") && why.contains("`controller`"),
        "{why}"
    );
    assert!(error.trajectory.is_empty());
}

/// An output that is not finite fails the run at that sample, naming the input.
#[test]
fn a_controller_output_that_is_not_finite_names_the_input() {
    let law = Sampled::new(0.1, |t: f64, _s: &State<1>| {
        SVector::from([if t > 0.25 { f64::NAN } else { 0.0 }])
    });
    let start = State::at_rest(SVector::from([0.1]));
    let error = Simulation::new(&Plant::default(), start)
        .controller(law)
        .run(&Rk4::new(0.01), 1.0)
        .unwrap_err();
    assert!(
        matches!(
            error.reason,
            StepError::Dynamics(DynamicsError::NonFiniteState { name: "f", .. })
        ),
        "{:?}",
        error.reason
    );
    assert!((error.time - 0.3).abs() < 1e-12, "{}", error.time);
}

/// The memory an integrator keeps is told when the inputs jump; an integrator that keeps
/// nothing evaluated with them needs to do nothing (the default).
#[test]
fn integrators_are_told_when_the_inputs_jump() {
    struct Counting<'c>(&'c std::cell::Cell<usize>, Rk4);
    impl<T: Dynamics<1, 1>> Integrator<T, 1, 1> for Counting<'_> {
        type Memory = ();
        fn start(
            &self,
            model: &T,
            s: &State<1>,
            inputs: &mut lagrange_runtime::simulate::Inputs<'_, 1, 1>,
        ) -> Result<(), StepError> {
            self.1.start(model, s, inputs)
        }
        fn step(
            &self,
            model: &T,
            memory: &mut (),
            s: &State<1>,
            inputs: &mut lagrange_runtime::simulate::Inputs<'_, 1, 1>,
            t_max: f64,
        ) -> Result<State<1>, StepError> {
            self.1.step(model, memory, s, inputs, t_max)
        }
        fn inputs_changed(&self, _: &mut ()) {
            self.0.set(self.0.get() + 1);
        }
    }
    let count = std::cell::Cell::new(0);
    let start = State::at_rest(SVector::from([0.1]));
    Simulation::new(&Plant::default(), start)
        .controller(Integral::default())
        .run(&Counting(&count, Rk4::new(0.03)), 1.0)
        .unwrap();
    // The samples after the start: 0.1, …, 1.0.
    assert_eq!(count.get(), 10);
}

lagrangian! {
    /// A pendulum with a torque at its pivot, theta from the upward vertical.
    struct Inverted {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: theta;
        inputs: tau;
        kinetic = m/2 * l^2 * dot(theta)^2;
        potential = m * g * l * cos(theta);
        force tau on theta;
    }
}

lagrangian! {
    /// A pendulum in Cartesian coordinates, the rod a constraint, pushed sideways by f.
    struct Cartesian {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: x, y;
        inputs: f;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = m * g * y;
        force f on x;
        constraint rod = x^2 + y^2 - l^2;
    }
}

/// Open loop (K = 0) the sampled system's multipliers are e^{λ Ts} exactly, so their
/// logarithms over Ts are the continuous eigenvalues: the damped spring's
/// −c/2m ± i√(k/m − c²/4m²), and a constrained pendulum's ±i√(g/l) in the independent
/// coordinates (two multipliers, none for the constraint directions).
#[test]
fn open_loop_multipliers_are_the_exponentials_of_the_eigenvalues() {
    let (lin, ..) = design();
    let zero = Gain::from_matrix(&DMatrix::zeros(1, 2), &lin).unwrap();
    let spectrum = zero.sampled_closed_loop_spectrum(&lin, PERIOD).unwrap();
    let s = spectrum.continuous_eigenvalues();
    let (re, im) = (-0.15, (4.0f64 - 0.0225).sqrt());
    assert_eq!(s.len(), 2);
    for s in &s {
        assert!(
            (s.re - re).abs() < 1e-12 && (s.im.abs() - im).abs() < 1e-12,
            "{s}"
        );
    }
    assert!((spectrum.spectral_radius() - (re * PERIOD).exp()).abs() < 1e-14);
    assert_eq!(spectrum.stability(), Stability::AsymptoticallyStable);
    // The same matrix, in the state (q, q̇), from sampled_closed_loop.
    let phi = zero.sampled_closed_loop(&lin, PERIOD).unwrap();
    let again = DiscreteSpectrum::new(&phi, PERIOD).unwrap();
    for (a, b) in again.eigenvalues.iter().zip(&spectrum.eigenvalues) {
        assert!((a - b).norm() < 1e-15, "{a} {b}");
    }

    let hanging = State::at_rest(SVector::from([0.0, -1.0]));
    let lin = linearize(&Cartesian::default(), &hanging, &SVector::zeros()).unwrap();
    let zero = Gain::from_matrix(&DMatrix::zeros(1, 4), &lin).unwrap();
    let spectrum = zero.sampled_closed_loop_spectrum(&lin, 0.1).unwrap();
    assert_eq!(spectrum.eigenvalues.len(), 2);
    assert_eq!(spectrum.stability(), Stability::Marginal);
    for s in spectrum.continuous_eigenvalues() {
        assert!(
            s.re.abs() < 1e-12 && (s.im.abs() - 9.81f64.sqrt()).abs() < 1e-12,
            "{s}"
        );
    }
}

/// The multipliers of a discrete design against the simulation: the nonlinear inverted
/// pendulum under its 50 Hz `dlqr_gain`, started 1e-6 from upright, gives samples x_k
/// from which Φ is fitted by least squares (x_{k+1} = Φ x_k); its eigenvalues are those of
/// `sampled_closed_loop_spectrum`. Sampled ten times slower, the same gain is unstable.
#[test]
fn a_discrete_designs_multipliers_are_those_of_the_simulated_loop() {
    let model = Inverted::default();
    let ts = 0.02;
    let lin = linearize(&model, &State::at_rest(SVector::zeros()), &SVector::zeros()).unwrap();
    let q = DMatrix::from_diagonal(&DVector::from_vec(vec![10.0, 1.0]));
    let (gain, p) = dlqr_gain(&lin, ts, &q, &SMatrix::<f64, 1, 1>::new(0.1)).unwrap();
    // Without constraints: dlqr on c2d of (A, B).
    let (ad, bd) = c2d(&lin.a(), &lin.b(), ts).unwrap();
    let (k, p_direct) = dlqr(&ad, &bd, &q, &DMatrix::from_element(1, 1, 0.1)).unwrap();
    assert!((gain.matrix() - &k).amax() < 1e-14 && (p - p_direct).amax() < 1e-14);
    let spectrum = gain.sampled_closed_loop_spectrum(&lin, ts).unwrap();
    assert_eq!(spectrum.stability(), Stability::AsymptoticallyStable);

    let start = State::new(0.0, SVector::from([1e-6]), SVector::from([-2e-6]));
    let times: Vec<f64> = (0..=40).map(|k| ts * f64::from(k)).collect();
    let run = Simulation::new(&model, start)
        .controller(Sampled::new(ts, gain.law()))
        .run_at(&DormandPrince::new(1e-12, 1e-20), &times)
        .unwrap();
    let x: Vec<DVector<f64>> = run
        .states()
        .iter()
        .map(|s| DVector::from_vec(vec![s.q[0], s.qd[0]]))
        .collect();
    let before = DMatrix::from_columns(&x[..40]);
    let after = DMatrix::from_columns(&x[1..]);
    // Φ̂ = argmin ‖Φ X₀ − X₁‖: X₁ X₀ᵀ (X₀ X₀ᵀ)⁻¹.
    let fitted =
        &after * before.transpose() * (&before * before.transpose()).try_inverse().unwrap();
    let simulated = DiscreteSpectrum::new(&fitted, ts).unwrap();
    for (a, b) in simulated.eigenvalues.iter().zip(&spectrum.eigenvalues) {
        println!("multiplier: simulated {a:.9}, designed {b:.9}");
        assert!((a - b).norm() < 1e-6, "{a} vs {b}");
    }
    // ρ = 0.53 at 0.2 s, 2.3 at 0.4 s.
    let slow = gain.sampled_closed_loop_spectrum(&lin, 20.0 * ts).unwrap();
    assert_eq!(slow.stability(), Stability::Unstable);
}

/// A constrained model is designed in the independent coordinates: the Cartesian pendulum
/// pushed sideways, brought back to hanging still by a 20 Hz discrete LQR.
#[test]
fn a_constrained_model_is_stabilized_by_its_discrete_design() {
    let model = Cartesian::default();
    let hanging = State::at_rest(SVector::from([0.0, -1.0]));
    let lin = linearize(&model, &hanging, &SVector::zeros()).unwrap();
    let r = SMatrix::<f64, 1, 1>::new(0.01);
    let (gain, p) = dlqr_gain(&lin, 0.05, &DMatrix::identity(4, 4), &r).unwrap();
    assert_eq!(p.shape(), (2, 2));
    let spectrum = gain.sampled_closed_loop_spectrum(&lin, 0.05).unwrap();
    assert_eq!(spectrum.eigenvalues.len(), 2);
    assert_eq!(spectrum.stability(), Stability::AsymptoticallyStable);
    let angle: f64 = 0.1;
    let start = State::at_rest(SVector::from([angle.sin(), -angle.cos()]));
    let run = Simulation::new(&model, start)
        .controller(Sampled::new(0.05, gain.law()))
        .run(&Projected::new(Rk4::new(1e-3)), 10.0)
        .unwrap();
    let end = run.last();
    // The slowest multiplier (ρ = 0.92) sets the decay over the 200 samples: measured
    // 1.5e-8 in x and 2.3e-8 in ẋ from 0.1, against ρ²⁰⁰ · 0.1 = 1.2e-8.
    let rho = spectrum.spectral_radius();
    let bound = 10.0 * rho.powi(200) * angle;
    assert!(
        end.q[0].abs() < bound && end.qd.amax() < bound,
        "{end:?}, ρ = {rho}"
    );
}

/// Settings of the discrete analysis that are checked, with the cause named.
#[test]
fn discrete_spectra_check_their_settings() {
    let (lin, ..) = design();
    let zero = Gain::from_matrix(&DMatrix::zeros(1, 2), &lin).unwrap();
    for period in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            zero.sampled_closed_loop_spectrum(&lin, period),
            Err(ControlError::InvalidSetting(_))
        ));
        assert!(matches!(
            dlqr_gain(&lin, period, &DMatrix::identity(2, 2), &SMatrix::identity()),
            Err(ControlError::InvalidSetting(_))
        ));
    }
    assert!(matches!(
        DiscreteSpectrum::new(&DMatrix::zeros(2, 3), 0.1),
        Err(ControlError::NotSquare { matrix: "Φ", .. })
    ));
    assert!(matches!(
        DiscreteSpectrum::new(&DMatrix::from_element(1, 1, f64::NAN), 0.1),
        Err(ControlError::NonFinite { matrix: "Φ" })
    ));
    assert!(matches!(
        dlqr_gain(&lin, 0.1, &DMatrix::identity(3, 3), &SMatrix::identity()),
        Err(ControlError::DimensionMismatch { matrix: "Q", .. })
    ));
    // On the unit circle within the margin: marginal.
    let rotation = DMatrix::from_row_slice(2, 2, &[0.6, -0.8, 0.8, 0.6]);
    let spectrum = DiscreteSpectrum::new(&rotation, 0.1).unwrap();
    assert_eq!(spectrum.stability(), Stability::Marginal);
    assert_eq!(spectrum.classify(f64::NAN), Stability::Marginal);
    assert_eq!(
        DiscreteSpectrum::new(&(&rotation * 1.001), 0.1)
            .unwrap()
            .stability(),
        Stability::Unstable
    );
}

/// The plant pushed by a constant 0.5 N besides the force f.
fn pushed() -> Plant {
    Plant {
        push: 0.5,
        ..Plant::default()
    }
}

/// A digital LQI with a Kalman observer: it measures x only, estimates (x, ẋ), and
/// integrates the error of x from the reference.
struct Tracker {
    ad: SMatrix<f64, 2, 2>,
    bd: SVector<f64, 2>,
    /// K = [K_x, K_ξ] of `dlqi`, M of `dlqe`.
    k: SVector<f64, 3>,
    m: SVector<f64, 2>,
    reference: f64,
    /// The predicted estimate (x̂⁻, v̂⁻) and the integral ξ.
    state: [f64; 3],
}

impl SampledController<1, 1> for Tracker {
    fn period(&self) -> f64 {
        PERIOD
    }

    fn update(&mut self, _t: f64, s: &State<1>) -> SVector<f64, 1> {
        let y = s.q[0];
        let prior = SVector::<f64, 2>::new(self.state[0], self.state[1]);
        let estimate = prior + self.m * (y - prior[0]);
        let xi = self.state[2];
        let u = -(self.k[0] * estimate[0] + self.k[1] * estimate[1] + self.k[2] * xi);
        let next = self.ad * estimate + self.bd * u;
        self.state = [next[0], next[1], xi + PERIOD * (self.reference - y)];
        SVector::from([u])
    }

    fn state_names(&self) -> &[&str] {
        &["x_hat", "v_hat", "xi"]
    }

    fn state(&self) -> &[f64] {
        &self.state
    }
}

/// The discrete LQI (`dlqi`) with a Kalman observer (`dlqe`) from the position alone holds
/// the position at the reference with no steady error, against a push the design does not
/// know of (the observer's estimate is biased by it; the integral, driven by the measured
/// position, is not).
#[test]
fn a_digital_lqi_with_an_observer_tracks_a_reference_against_a_push() {
    let (_, ad, bd, _) = design();
    let c = DMatrix::from_row_slice(1, 2, &[1.0, 0.0]);
    let r = DMatrix::from_element(1, 1, 0.1);
    let (k, _) =
        lagrange_runtime::control::dlqi(&ad, &bd, &c, &DMatrix::identity(3, 3), &r, PERIOD)
            .unwrap();
    let w = DMatrix::from_diagonal(&DVector::from_vec(vec![1e-6, 1e-4]));
    let (m, _) =
        lagrange_runtime::control::dlqe(&ad, &c, &w, &DMatrix::from_element(1, 1, 1e-6)).unwrap();
    let tracker = |k: SVector<f64, 3>| Tracker {
        ad: SMatrix::from_fn(|i, j| ad[(i, j)]),
        bd: SVector::from_fn(|i, _| bd[(i, 0)]),
        k,
        m: SVector::from_fn(|i, _| m[(i, 0)]),
        reference: 0.3,
        state: [0.0; 3],
    };
    let start = State::at_rest(SVector::zeros());
    let run = Simulation::new(&pushed(), start)
        .controller(tracker(SVector::from_fn(|i, _| k[(0, i)])))
        .run(&Rk4::new(PERIOD / 10.0), 40.0)
        .unwrap();
    let end = run.last();
    println!("LQI: x = {}, ẋ = {}", end.q[0], end.qd[0]);
    assert!(
        (end.q[0] - 0.3).abs() < 1e-9 && end.qd[0].abs() < 1e-9,
        "{end:?}"
    );
    // The integral settles where the force balances spring and push: k x = f + 0.5.
    let f = run.inputs().last().unwrap()[0];
    assert!((f - (4.0 * 0.3 - 0.5)).abs() < 1e-8, "f = {f}");
    let xi = run.column("xi").unwrap();
    assert!((xi[xi.len() - 1] - xi[xi.len() - 2]).abs() < 1e-12);
    // Without the integral (dlqr's gain on the same estimate) nothing knows of the
    // reference: the mass settles where spring, push and regulator balance (measured
    // x = 0.145), and the integral action is what brings it to 0.3 (measured to 3e-12).
    let (kr, _) = dlqr(&ad, &bd, &DMatrix::identity(2, 2), &r).unwrap();
    let mut plain = tracker(SVector::from([kr[(0, 0)], kr[(0, 1)], 0.0]));
    let run = Simulation::new(&pushed(), start)
        .controller(&mut plain)
        .run(&Rk4::new(PERIOD / 10.0), 40.0)
        .unwrap();
    println!("LQR: x = {}", run.last().q[0]);
    assert!((run.last().q[0] - 0.3).abs() > 0.05);
}

lagrangian! {
    /// The plant of [`Plant`] with two inputs: a disturbance w (first) and the motor force f.
    struct TwoInputs {
        parameters: m = 1.0, k = 4.0, c = 0.3;
        coordinates: x;
        inputs: w, f;
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * x^2;
        dissipation = c/2 * dot(x)^2;
        force f + w on x;
    }
}

/// A design that names the input it drives (the motor f, not the disturbance w) gives the
/// gain of the one-input design on that input and zero on the other; a run adds the
/// disturbance beside the controller, and moves as the one-input plant pushed by the same
/// force inside its model. Unknown and repeated names, and an R of the wrong size, are
/// refused, naming the cause.
#[test]
fn a_design_on_named_inputs_leaves_the_others_to_the_run() {
    use lagrange_runtime::control::{
        dlqr_gain_driving, lqr_gain_driving, DrivenInputs, LinearSystem,
    };
    let model = TwoInputs::default();
    let lin = linearize(&model, &State::at_rest(SVector::zeros()), &SVector::zeros()).unwrap();
    match DrivenInputs::named(&model, &["force"]) {
        Err(ControlError::UnknownInput { name, inputs }) => {
            assert_eq!((name.as_str(), inputs), ("force", vec!["w", "f"]));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        DrivenInputs::named(&model, &["f", "f"]),
        Err(ControlError::InvalidSetting(_))
    ));
    let motor = DrivenInputs::named(&model, &["f"]).unwrap();
    assert_eq!((motor.indices(), motor.undriven()), (&[1][..], vec![0]));
    let (q, r) = (DMatrix::identity(2, 2), DMatrix::from_element(1, 1, 0.1));
    let (gain, _) = dlqr_gain_driving(&lin, &motor, PERIOD, &q, &r).unwrap();
    let (_, _, _, k) = design();
    let full = gain.matrix();
    assert_eq!(full.row(0).amax(), 0.0);
    assert!((full.row(1) - k.row(0)).amax() < 1e-12 * k.amax(), "{full}");
    // The same design through a linear system restricted to the motor.
    let sampled = LinearSystem::from_linearization(&lin)
        .unwrap()
        .select_inputs(motor.indices())
        .unwrap()
        .c2d(PERIOD)
        .unwrap();
    let (k_system, _) = sampled.dlqr(&q, &r).unwrap();
    assert!((k_system - &k).amax() < 1e-12 * k.amax());
    assert!(matches!(
        dlqr_gain_driving(&lin, &motor, PERIOD, &q, &DMatrix::identity(2, 2)),
        Err(ControlError::DimensionMismatch { matrix: "R", .. })
    ));
    let (continuous, _) = lqr_gain_driving(&lin, &motor, &q, &r).unwrap();
    assert_eq!(continuous.velocities[(0, 0)], 0.0);
    assert_eq!(
        continuous.closed_loop_spectrum(&lin).unwrap().stability(),
        Stability::AsymptoticallyStable
    );

    // The disturbance beside the controller, against the push inside the one-input model.
    let start = State::at_rest(SVector::from([0.2]));
    let run = Simulation::new(&model, start)
        .controller(Sampled::new(PERIOD, gain.law()))
        .disturbances(|_t, _s| SVector::from([0.5, 0.0]))
        .run(&Rk4::new(PERIOD / 10.0), 5.0)
        .unwrap();
    let plant_lin = design().0;
    let one = Gain::from_matrix(&k, &plant_lin).unwrap();
    let reference = Simulation::new(&pushed(), start)
        .controller(Sampled::new(PERIOD, one.law()))
        .run(&Rk4::new(PERIOD / 10.0), 5.0)
        .unwrap();
    assert_eq!(run.len(), reference.len());
    for ((a, b), (ua, ub)) in run
        .states()
        .iter()
        .zip(reference.states())
        .zip(run.inputs().iter().zip(reference.inputs()))
    {
        assert!(
            (a.q - b.q).amax() < 1e-12 && (a.qd - b.qd).amax() < 1e-12,
            "{a:?} {b:?}"
        );
        assert_eq!(ua[0], 0.5); // the disturbance, recorded
        assert!((ua[1] - ub[0]).abs() < 1e-12);
    }
    // Beside a continuous law too.
    let run = Simulation::new(&model, start)
        .inputs(continuous.law())
        .disturbances(|t, _s| SVector::from([if t < 1.0 { 0.0 } else { 0.5 }, 0.0]))
        .run(&Rk4::new(1e-3), 20.0)
        .unwrap();
    let (end, u) = (run.last(), run.inputs().last().unwrap());
    assert!(end.qd[0].abs() < 1e-8 && (u[1] + u[0] - 4.0 * end.q[0]).abs() < 1e-8);
}

lagrangian! {
    /// A pendulum balanced upside down (θ = 0 upright) by a torque τ at its pivot, and
    /// pushed at its bob by a horizontal force w (a disturbance).
    struct Balanced {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: theta;
        inputs: tau, w;
        kinetic = m/2 * l^2 * dot(theta)^2;
        potential = m * g * l * cos(theta);
        force tau + l * w * cos(theta) on theta;
    }
}

/// An observer-based controller of the inverted pendulum at 100 Hz, measuring θ, with the
/// torque limited to ±`limit`.
fn balancer(limit: f64) -> lagrange_runtime::control::ObserverController<1, 2> {
    use lagrange_runtime::control::{DrivenInputs, ObserverController};
    let model = Balanced::default();
    let lin = linearize(&model, &State::at_rest(SVector::zeros()), &SVector::zeros()).unwrap();
    let motor = DrivenInputs::named(&model, &["tau"]).unwrap();
    let angle = DMatrix::from_row_slice(1, 2, &[1.0, 0.0]);
    let plant = ObserverController::plant(&lin, &motor, 0.01, &angle).unwrap();
    let (k, _) = plant
        .dlqr(&DMatrix::identity(2, 2), &DMatrix::from_element(1, 1, 0.1))
        .unwrap();
    let (m, _) = plant
        .dlqe(
            &(DMatrix::identity(2, 2) * 1e-4),
            &DMatrix::from_element(1, 1, 1e-6),
        )
        .unwrap();
    ObserverController::new(&lin, &motor, 0.01, &angle, &[], &k, &m)
        .unwrap()
        .with_limits(SVector::from([-limit, 0.0]), SVector::from([limit, 0.0]))
        .unwrap()
}

/// A run that falls over: the torque is limited below what holding a tilt of 0.3 rad needs
/// (m g l sin 0.3 = 2.9 N·m against 2 N·m), so the pendulum falls. Without a check the run
/// returns `Ok` with the pendulum hanging; with `Event::require` on |θ| < π/2 it fails
/// where |θ| reaches π/2, naming the check, with the trajectory up to there (and the
/// crossings recorded before it). A generous limit passes the check; a start outside it
/// fails at once.
#[test]
fn a_run_that_falls_over_fails_its_check() {
    use std::f64::consts::FRAC_PI_2;
    let model = Balanced::default();
    let tilted = State::at_rest(SVector::from([0.3]));
    let upright = || Event::require("upright", |_t, s: &State<1>| FRAC_PI_2 - s.q[0].abs());
    let silent = Simulation::new(&model, tilted)
        .controller(balancer(2.0))
        .run(&Rk4::new(1e-3), 10.0)
        .unwrap();
    assert!(silent.states().iter().any(|s| s.q[0].abs() > FRAC_PI_2));

    let error = Simulation::new(&model, tilted)
        .controller(balancer(2.0))
        .event(Event::record("half way", |_t, s: &State<1>| {
            0.75 - s.q[0].abs()
        }))
        .event(upright())
        .run(&Rk4::new(1e-3), 10.0)
        .unwrap_err();
    let StepError::CheckFailed { check, t } = error.reason else {
        panic!("{:?}", error.reason);
    };
    assert_eq!(check, "upright");
    let last = error.trajectory.last();
    assert_eq!((last.t, error.time), (t, t));
    assert!((last.q[0].abs() - FRAC_PI_2).abs() < 1e-9, "{last:?}");
    assert!(t < 10.0);
    assert_eq!(error.trajectory.stopped_by().unwrap().event, "upright");
    assert_eq!(error.trajectory.crossings().len(), 1);
    assert!(error.to_string().contains("`upright`"), "{error}");

    let held = Simulation::new(&model, tilted)
        .controller(balancer(20.0))
        .event(upright())
        .run(&Rk4::new(1e-3), 10.0)
        .unwrap();
    assert!(held.stopped_by().is_none() && held.last().q[0].abs() < 1e-3);

    let fallen = Simulation::new(&model, State::at_rest(SVector::from([2.0])))
        .event(upright())
        .run(&Rk4::new(1e-3), 1.0)
        .unwrap_err();
    assert_eq!(
        fallen.reason,
        StepError::CheckFailed {
            check: "upright",
            t: 0.0
        }
    );
    assert_eq!(fallen.trajectory.len(), 1);
}

/// The observer-based controller on a constrained model works in the independent
/// coordinates (two states for the Cartesian pendulum, not four): measuring the bob's x
/// alone, it moves the bob to x = 0.1 and holds it there (the force balancing the rod's
/// pull, f = m g x / √(l² − x²)), its recorded estimate of (x, y, ẋ, ẏ) on the
/// constraint.
#[test]
fn an_observer_controller_holds_a_constrained_model_at_a_reference() {
    use lagrange_runtime::control::{DrivenInputs, ObserverController};
    let model = Cartesian::default();
    let hanging = State::at_rest(SVector::from([0.0, -1.0]));
    let lin = linearize(&model, &hanging, &SVector::zeros()).unwrap();
    let all = DrivenInputs::all();
    let x = DMatrix::from_row_slice(1, 4, &[1.0, 0.0, 0.0, 0.0]);
    let plant = ObserverController::plant(&lin, &all, 0.02, &x).unwrap();
    assert_eq!(plant.states(), 2);
    let (k, _) = plant
        .dlqi(&DMatrix::identity(3, 3), &DMatrix::from_element(1, 1, 0.01))
        .unwrap();
    let (m, _) = plant
        .dlqe(
            &(DMatrix::identity(2, 2) * 1e-3),
            &DMatrix::from_element(1, 1, 1e-6),
        )
        .unwrap();
    let controller = ObserverController::new(&lin, &all, 0.02, &x, &[0], &k, &m)
        .unwrap()
        .with_reference(&[0.1])
        .unwrap()
        .recording(&["x_hat", "y_hat", "dx_hat", "dy_hat", "xi"])
        .unwrap();
    assert_eq!(controller.closed_loop().states(), 5);
    assert!(controller.spectrum().spectral_radius() < 1.0);
    let run = Simulation::new(&model, hanging)
        .controller(controller)
        .run(&Projected::new(Rk4::new(1e-3)), 30.0)
        .unwrap();
    let end = run.last();
    let y = -(1.0f64 - 0.01).sqrt();
    assert!(
        (end.q[0] - 0.1).abs() < 1e-6 && (end.q[1] - y).abs() < 1e-6,
        "{end:?}"
    );
    let f = run.inputs().last().unwrap()[0];
    assert!((f - 9.81 * 0.1 / -y).abs() < 1e-4, "f = {f}");
    // The estimate at the last sample: near the state, to the linearization's accuracy
    // in y (x* + V ẑ lies on the tangent, not on the circle).
    let (xh, yh) = (run.column("x_hat").unwrap(), run.column("y_hat").unwrap());
    assert!((xh.last().unwrap() - 0.1).abs() < 1e-6);
    assert!((yh.last().unwrap() - y).abs() < 0.01);
}
