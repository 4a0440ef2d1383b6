//! Events: zero crossings located on the dense output, against closed forms (a falling
//! body with every integrator, a pendulum's period from the complete elliptic integral, a
//! bouncing ball restarted after each impact), direction filtering, and the inputs a
//! control law gave recorded along the trajectory.

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{
    DormandPrince, Event, Projected, Rattle, Rk4, Simulation, StepError, Trajectory, Variational,
};

const G: f64 = 9.81;

lagrangian! {
    /// A body falling in y.
    struct Fall {
        parameters: m = 1.0, g = 9.81;
        coordinates: y;
        kinetic = m/2 * dot(y)^2;
        potential = m * g * y;
    }
}

lagrangian! {
    /// The same body as a bead on a vertical wire x = 0 in the plane (a constraint).
    struct Bead {
        parameters: m = 1.0, g = 9.81;
        coordinates: x, y;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = m * g * y;
        constraint wire = x;
    }
}

lagrangian! {
    struct Pendulum {
        parameters: l = 1.0, g = 9.81;
        coordinates: theta;
        kinetic = l^2/2 * dot(theta)^2;
        potential = -g * l * cos(theta);
    }
}

/// Dropped from 2 m at rest: the floor at t = √(2·2/g), with every integrator and steps
/// that do not land on it.
#[test]
fn a_falling_body_reaches_the_floor_at_the_closed_form_time() {
    let exact = (4.0 / G).sqrt();
    let floor = || Event::stop("floor", |_t, s: &State<1>| s.q[0]).falling();
    let start = State::at_rest(SVector::from([2.0]));
    let runs: Vec<Trajectory<1>> = vec![
        Simulation::new(&Fall::default(), start)
            .event(floor())
            .run(&Rk4::new(0.07), 5.0)
            .unwrap(),
        Simulation::new(&Fall::default(), start)
            .event(floor())
            .run(&DormandPrince::default(), 5.0)
            .unwrap(),
        Simulation::new(&Fall::default(), start)
            .event(floor())
            .run(&Variational::new(0.07), 5.0)
            .unwrap(),
        Simulation::new(&Fall::default(), start)
            .event(floor())
            .run_at(&Rk4::new(0.07), &[1.0, 5.0])
            .unwrap(),
    ];
    for run in &runs {
        let hit = run.stopped_by().expect("stopped by the floor");
        assert!((hit.state.t - exact).abs() < 1e-10, "{hit:?}");
        assert!(hit.state.q[0].abs() < 1e-12, "{hit:?}");
        assert!((hit.state.qd[0] + G * exact).abs() < 1e-9, "{hit:?}");
        assert_eq!(run.last(), &hit.state);
        assert!(!hit.rising);
    }
    // Constrained: the bead on its wire, with RATTLE and with projected RK4.
    let start = State::at_rest(SVector::from([0.0, 2.0]));
    let floor = || Event::stop("floor", |_t, s: &State<2>| s.q[1]);
    for run in [
        Simulation::new(&Bead::default(), start)
            .event(floor())
            .run(&Rattle::new(0.07), 5.0)
            .unwrap(),
        Simulation::new(&Bead::default(), start)
            .event(floor())
            .run(&Projected::new(Rk4::new(0.07)), 5.0)
            .unwrap(),
    ] {
        let hit = run.stopped_by().unwrap();
        assert!((hit.state.t - exact).abs() < 1e-10, "{hit:?}");
    }
}

/// The arithmetic–geometric mean, for the complete elliptic integral K(k) = π / (2 AGM(1, √(1 − k²))).
fn agm(mut a: f64, mut b: f64) -> f64 {
    while (a - b).abs() > 1e-15 * a {
        (a, b) = ((a + b) / 2.0, (a * b).sqrt());
    }
    a
}

/// Released at θ₀ = 2 rad, the pendulum's period is T = 2π / (ω₀ AGM(1, cos(θ₀/2))).
/// Recorded upward crossings of θ = 0 are one period apart; downward ones are filtered out.
#[test]
fn a_pendulums_crossings_give_its_period() {
    let theta0: f64 = 2.0;
    let period = 2.0 * std::f64::consts::PI / (G.sqrt() * agm(1.0, (theta0 / 2.0).cos()));
    let start = State::at_rest(SVector::from([theta0]));
    let run = Simulation::new(&Pendulum::default(), start)
        .event(Event::record("upward", |_t, s: &State<1>| s.q[0]).rising())
        .event(Event::record("either", |_t, s: &State<1>| s.q[0]))
        .run(&DormandPrince::new(1e-12, 1e-14), 5.5 * period)
        .unwrap();
    assert!(run.stopped_by().is_none());
    let upward: Vec<f64> = run
        .crossings()
        .iter()
        .filter(|c| c.event == "upward")
        .map(|c| c.state.t)
        .collect();
    assert_eq!(upward.len(), 5, "{upward:?}");
    assert!(run
        .crossings()
        .iter()
        .filter(|c| c.event == "upward")
        .all(|c| c.rising && c.state.qd[0] > 0.0));
    // The first upward crossing is at three quarters of a period, the rest a period apart.
    assert!((upward[0] - 0.75 * period).abs() < 1e-9, "{upward:?}");
    for w in upward.windows(2) {
        assert!(
            (w[1] - w[0] - period).abs() < 1e-9,
            "{} {period}",
            w[1] - w[0]
        );
    }
    // Without a direction: both ways, eleven crossings in 5.5 periods, alternating.
    let either: Vec<bool> = run
        .crossings()
        .iter()
        .filter(|c| c.event == "either")
        .map(|c| c.rising)
        .collect();
    assert_eq!(either.len(), 11);
    assert!(either.windows(2).all(|w| w[0] != w[1]));
    // Crossings are in time order.
    assert!(run
        .crossings()
        .windows(2)
        .all(|w| w[0].state.t <= w[1].state.t));
}

/// A ball dropped from h bounces with restitution e: impact k (from 0) comes at
/// t₀ + 2 v₀ (e + … + e^k) / g, with t₀ = √(2h/g) and v₀ = g t₀. Each run stops at the
/// floor, the impact law reverses the velocity, and a new run starts from there.
#[test]
fn a_bouncing_ball_restarts_after_each_impact() {
    let (h, e) = (1.5, 0.8);
    let model = Fall::default();
    let mut s = State::at_rest(SVector::from([h]));
    let t0 = (2.0 * h / G).sqrt();
    let v0 = G * t0;
    let mut expected = t0;
    for k in 0..6 {
        let run = Simulation::new(&model, s)
            .event(Event::stop("floor", |_t, s: &State<1>| s.q[0]).falling())
            .run(&DormandPrince::default(), 100.0)
            .unwrap();
        let hit = run.stopped_by().unwrap();
        assert!((hit.state.t - expected).abs() < 1e-9, "impact {k}: {hit:?}");
        s = hit.state;
        s.qd[0] *= -e; // the impact law
        expected += 2.0 * v0 * e.powi(k + 1) / G;
    }
}

use lagrange_test_models::Cart as Pushed;

#[test]
fn the_inputs_of_the_control_law_are_recorded_at_every_sample() {
    let law = |t: f64, s: &State<1>| SVector::from([(3.0 * t).sin() - 0.5 * s.qd[0]]);
    let run = Simulation::new(&Pushed::default(), State::at_rest(SVector::from([0.0])))
        .inputs(law)
        .run(&DormandPrince::default(), 2.0)
        .unwrap();
    assert_eq!(run.inputs().len(), run.len());
    assert!(run.len() > 5);
    for (s, u) in run.states().iter().zip(run.inputs()) {
        assert_eq!(*u, law(s.t, s));
    }
    assert_eq!(run.column("f").unwrap(), run.map(|s, _| law(s.t, s)[0]));
    assert_eq!(run.column("dot(x)").unwrap(), run.map(|s, _| s.qd[0]));
    assert!(run.column("y").is_none());
    let mut csv = Vec::new();
    run.write_csv(&mut csv).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert!(text.starts_with("t,x,dot(x),f,energy\n"), "{text}");
    // Extra columns may not repeat a name or be empty.
    let values = run.column("x").unwrap();
    for name in ["x", "energy", "f", ""] {
        assert!(
            run.write_csv_with(Vec::new(), &[(name, &values)]).is_err(),
            "{name}"
        );
    }
    let twice = [("y", &values[..]), ("y", &values[..])];
    assert!(run.write_csv_with(Vec::new(), &twice).is_err());
}

/// A run that starts on the floor (the event function exactly 0) with a hop shorter than
/// one step: the landing inside the first step is still found, at 2v/g.
#[test]
fn a_hop_shorter_than_a_step_is_found_from_a_zero_start() {
    // A hop of 2v/g = 0.02 s in a step of 0.1 s, and one of 2e-4 s in a step of 0.01 s
    // (shorter than a sixteenth of the step).
    let tiny = State::new(0.0, SVector::from([0.0]), SVector::from([1e-3]));
    let mut hooked = 0;
    let run = Simulation::new(&Fall::default(), tiny)
        .event(Event::stop("floor", |_t, s: &State<1>| s.q[0]).falling())
        .progress(|_| hooked += 1)
        .run(&Rk4::new(0.01), 1.0)
        .unwrap();
    let hit = run.stopped_by().expect("the landing");
    assert!((hit.state.t - 2e-3 / G).abs() < 1e-12, "{hit:?}");
    assert_eq!(hooked, 1); // the progress hook sees the step that ended the run
    let v = 0.1;
    let start = State::new(0.0, SVector::from([0.0]), SVector::from([v]));
    for run in [
        Simulation::new(&Fall::default(), start)
            .event(Event::stop("floor", |_t, s: &State<1>| s.q[0]).falling())
            .run(&Rk4::new(0.1), 1.0)
            .unwrap(),
        Simulation::new(&Fall::default(), start)
            .event(Event::stop("floor", |_t, s: &State<1>| s.q[0]).falling())
            .run(&Variational::new(0.1), 1.0)
            .unwrap(),
    ] {
        let hit = run.stopped_by().expect("the landing");
        assert!((hit.state.t - 2.0 * v / G).abs() < 1e-10, "{hit:?}");
    }
    // Leaving the floor downward is not a falling crossing of 0: the run goes on.
    let down = State::new(0.0, SVector::from([0.0]), SVector::from([-v]));
    let run = Simulation::new(&Fall::default(), down)
        .event(Event::stop("floor", |_t, s: &State<1>| s.q[0]).falling())
        .run(&Rk4::new(0.1), 1.0)
        .unwrap();
    assert!(
        run.stopped_by().is_none(),
        "leaving zero downward is no falling crossing"
    );
}

use lagrange_test_models::UnitOscillator as Osc;

/// Found by a probe: a function exactly 0 at a step's end was counted twice; a NaN inside
/// the bracket was returned as the crossing (now an error naming the event, issue 29); a
/// stop and a record at one crossing depended on the order the events were added.
#[test]
fn crossings_at_step_ends_nan_brackets_and_simultaneous_events() {
    let start = State::at_rest(SVector::from([1.0]));
    let run = Simulation::new(&Osc, start)
        .event(Event::record("one", |t, _: &State<1>| t - 1.0))
        .run(&Rk4::new(0.25), 2.0)
        .unwrap();
    assert_eq!(run.crossings().len(), 1, "{:?}", run.crossings());
    assert_eq!(run.crossings()[0].state.t, 1.0);

    let g = |t: f64, _: &State<1>| {
        if t > 0.3 && t < 0.6 {
            f64::NAN
        } else {
            t * t * t - 0.5
        }
    };
    let error = Simulation::new(&Osc, start)
        .event(Event::stop("nan", g))
        .run(&Rk4::new(1.0), 2.0)
        .unwrap_err();
    assert!(
        matches!(error.reason, StepError::EventIsNaN { event: "nan", t } if t > 0.3 && t < 0.6),
        "{error}"
    );

    // x = cos t crosses 0 at π/2: recorded once, whichever event is added first.
    for stop_first in [true, false] {
        let stop = Event::stop("stop", |_t, s: &State<1>| s.q[0]);
        let record = Event::record("record", |_t, s: &State<1>| s.q[0]);
        let sim = Simulation::new(&Osc, start);
        let sim = if stop_first {
            sim.event(stop).event(record)
        } else {
            sim.event(record).event(stop)
        };
        let run = sim.run(&DormandPrince::new(1e-12, 1e-14), 5.0).unwrap();
        assert_eq!(run.crossings().len(), 1, "stop first: {stop_first}");
        let t = run.stopped_by().unwrap().state.t;
        assert!((t - std::f64::consts::FRAC_PI_2).abs() < 1e-10, "{t}");
    }
}

/// Exact derivatives against central differences (`common::derivatives`).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("Fall", &Fall::default())
        .standard()
        .check();
    Derivatives::new("Bead", &Bead::default())
        .standard()
        .check();
    Derivatives::new("Pendulum", &Pendulum::default())
        .standard()
        .check();
    Derivatives::new("Pushed", &Pushed::default())
        .standard()
        .check();
    Derivatives::new("Osc", &Osc).standard().check();
}

/// Issue 29, item 7: an event function that was NaN at a step's end was skipped, and the
/// run returned `Ok` with the crossing of x = cos t through 1/√2 at 0.79000 instead of
/// π/4 = 0.78540. A NaN wherever the function is evaluated now fails the run, naming the
/// event and the time, and the trajectory keeps the steps before it.
#[test]
fn a_nan_event_function_fails_the_run_naming_the_event() {
    let start = State::at_rest(SVector::from([1.0]));
    let g = |t: f64, s: &State<1>| {
        if t == 0.75 {
            f64::NAN
        } else {
            s.q[0] - std::f64::consts::FRAC_1_SQRT_2
        }
    };
    let error = Simulation::new(&Osc, start)
        .event(Event::stop("half", g))
        .run(&Rk4::new(0.25), 2.0)
        .unwrap_err();
    assert_eq!(
        error.reason,
        StepError::EventIsNaN {
            event: "half",
            t: 0.75
        }
    );
    assert_eq!(
        error.to_string(),
        "simulation stopped at t = 0.5: the function of the event `half` is NaN at t = 0.75: \
         its crossings cannot be found"
    );
    let times: Vec<f64> = error.trajectory.states().iter().map(|s| s.t).collect();
    assert_eq!(times, [0.0, 0.25, 0.5]);
    // NaN at the start.
    let error = Simulation::new(&Osc, start)
        .event(Event::record("start", |_t, _s: &State<1>| f64::NAN))
        .run(&Rk4::new(0.25), 2.0)
        .unwrap_err();
    assert_eq!(
        error.reason,
        StepError::EventIsNaN {
            event: "start",
            t: 0.0
        }
    );
    // Without the NaN, the crossing is at π/4.
    let run = Simulation::new(&Osc, start)
        .event(Event::stop("half", |_t, s: &State<1>| {
            s.q[0] - std::f64::consts::FRAC_1_SQRT_2
        }))
        .run(&Rk4::new(0.25), 2.0)
        .unwrap();
    let t = run.stopped_by().unwrap().state.t;
    assert!((t - std::f64::consts::FRAC_PI_4).abs() < 1e-4, "{t}"); // RK4 at h = 0.25: 2e-5
}
