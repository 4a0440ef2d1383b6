//! Settings that are checked and errors that name their cause, at every public entry point
//! of the simulation and projection APIs (regressions of a reliability review: each of
//! these returned a wrong value, hid the cause, or ran without end before).

use crate::common;

use common::derivatives::{Derivatives, Part};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{
    DormandPrince, Projected, Rattle, Rk4, Simulation, SimulationError, StepError, Variational,
    DEFAULT_MAX_STEPS,
};
use lagrange_runtime::StatePart;

lagrangian! {
    /// x(t) = x₀ cos 2t + (v₀/2) sin 2t, pushed by the input `tau`.
    struct Oscillator {
        parameters: m = 1.0, k = 4.0;
        coordinates: x;
        inputs: tau;
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * x^2;
        force tau on x;
    }
}

lagrangian! {
    /// A pendulum in Cartesian coordinates, the rod as a constraint.
    struct Cartesian {
        parameters: m = 1.0, g = 9.81, l = 1.0;
        coordinates: x, y;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = m * g * y;
        constraint rod = x^2 + y^2 - l^2;
    }
}

fn start(t: f64, x: f64, v: f64) -> State<1> {
    State::new(t, SVector::from([x]), SVector::from([v]))
}

fn time_error<const N: usize, const M: usize>(
    result: Result<impl Sized, SimulationError<N, M>>,
) -> bool {
    matches!(
        result.map(|_| ()).unwrap_err().reason,
        StepError::Dynamics(DynamicsError::NonFiniteState {
            part: StatePart::Time,
            ..
        })
    )
}

#[test]
fn dormand_prince_with_pure_relative_tolerance_starts_from_a_zero_component() {
    // atol = 0 and v₀ = 0: the velocity's error scale is 0 at the start.
    let model = Oscillator::default();
    for (x0, v0) in [(1.0, 0.0), (0.0, 1.0)] {
        let run = Simulation::new(&model, start(0.0, x0, v0))
            .run(&DormandPrince::new(1e-10, 0.0), 2.0)
            .unwrap();
        let exact = x0 * 4f64.cos() + v0 / 2.0 * 4f64.sin();
        assert!(
            (run.last().q[0] - exact).abs() < 1e-8,
            "{x0} {v0}: {:?}",
            run.last()
        );
    }
}

#[test]
fn every_integrator_rejects_a_start_that_is_not_finite() {
    let model = Oscillator::default();
    for t0 in [f64::NAN, f64::NEG_INFINITY, f64::INFINITY] {
        let s = start(t0, 1.0, 0.0);
        assert!(time_error(
            Simulation::new(&model, s).run(&Rk4::new(0.1), 1.0)
        ));
        assert!(time_error(
            Simulation::new(&model, s).run_at(&Rk4::new(0.1), &[1.0])
        ));
        assert!(time_error(
            Simulation::new(&model, s).run(&DormandPrince::default(), 1.0)
        ));
        assert!(time_error(
            Simulation::new(&model, s).run(&Variational::new(0.1), 1.0)
        ));
    }
    let error = Simulation::new(&model, start(0.0, f64::NAN, 0.0))
        .run(&Rk4::new(0.1), 1.0)
        .unwrap_err();
    assert_eq!(
        error.reason,
        StepError::Dynamics(DynamicsError::NonFiniteState {
            part: StatePart::Coordinate,
            name: "x"
        })
    );
    assert!(error.trajectory.is_empty());
}

#[test]
fn dormand_prince_names_a_control_law_that_fails_mid_run() {
    // The law turns NaN at t = 0.5: RK4 names the input, and so must the adaptive method
    // (it used to shrink its step on the NaN stages and report a step-size underflow).
    let model = Oscillator::default();
    let law = |t: f64, _: &State<1>| SVector::from([if t > 0.5 { f64::NAN } else { 1.0 }]);
    let want = StepError::Dynamics(DynamicsError::NonFiniteState {
        part: StatePart::Input,
        name: "tau",
    });
    let rk4 = Simulation::new(&model, start(0.0, 1.0, 0.0))
        .inputs(law)
        .run(&Rk4::new(0.01), 1.0)
        .unwrap_err();
    assert_eq!(rk4.reason, want);
    let dp = Simulation::new(&model, start(0.0, 1.0, 0.0))
        .inputs(law)
        .run(&DormandPrince::default(), 1.0)
        .unwrap_err();
    assert_eq!(dp.reason, want, "{dp}");
    assert!((dp.time - 0.5).abs() < 1e-6, "{}", dp.time);
    assert!(dp.to_string().contains("input `tau` is not finite"), "{dp}");
}

#[test]
fn variational_tolerances_outside_zero_to_one_are_rejected() {
    let model = Oscillator::default();
    let constrained = Cartesian::default();
    let on_circle = State::new(0.0, SVector::from([1.0, 0.0]), SVector::zeros());
    for tolerance in [f64::INFINITY, f64::NAN, 1.0, 0.0, -1e-12] {
        let v = Variational {
            tolerance,
            ..Variational::new(0.01)
        };
        let error = Simulation::new(&model, start(0.0, 1.0, 0.0))
            .run(&v, 1.0)
            .unwrap_err();
        assert!(
            matches!(error.reason, StepError::InvalidSettings(why) if why.contains("tolerance")),
            "{tolerance}: {error}"
        );
        let r = Rattle {
            tolerance,
            ..Rattle::new(0.01)
        };
        let error = Simulation::new(&constrained, on_circle)
            .run(&r, 1.0)
            .unwrap_err();
        assert!(
            matches!(error.reason, StepError::InvalidSettings(why) if why.contains("tolerance")),
            "{tolerance}: {error}"
        );
    }
    let v = Variational {
        max_iterations: 0,
        ..Variational::new(0.01)
    };
    let error = Simulation::new(&model, start(0.0, 1.0, 0.0))
        .run(&v, 1.0)
        .unwrap_err();
    assert!(error.to_string().contains("Newton iteration"), "{error}");
}

#[test]
fn a_failed_run_at_keeps_the_last_state_reached() {
    let model = Oscillator::default();
    let law = |t: f64, _: &State<1>| SVector::from([if t > 0.95 { f64::NAN } else { 0.0 }]);
    let error = Simulation::new(&model, start(0.0, 1.0, 0.0))
        .inputs(law)
        .run_at(&Rk4::new(0.01), &[0.2, 2.0])
        .unwrap_err();
    let states = error.trajectory.states();
    assert_eq!(states.len(), 2, "{:?}", states);
    assert_eq!(states[0].t, 0.2);
    // The trajectory goes up to the error's time, as its docs promise, on the exact motion.
    let last = error.trajectory.last();
    assert_eq!(last.t, error.time);
    assert!((error.time - 0.95).abs() < 0.011, "{}", error.time);
    assert!((last.q[0] - (2.0 * last.t).cos()).abs() < 1e-8, "{last:?}");
}

#[test]
fn a_run_has_a_step_budget() {
    let model = Oscillator::default();
    // 1e-300 s steps would need 10³⁰⁰ of them: the default budget stops the run.
    let error = Simulation::new(&model, start(0.0, 1.0, 0.0))
        .run_at(&Rk4::new(1e-300), &[1.0])
        .unwrap_err();
    assert_eq!(
        error.reason,
        StepError::StepBudgetExhausted {
            steps: DEFAULT_MAX_STEPS
        }
    );
    assert!(error.to_string().contains("step budget"), "{error}");
    assert_eq!(error.trajectory.last().t, error.time);
    // A budget the user sets, with the trajectory of every step taken (and the start).
    let mut steps = 0;
    let error = Simulation::new(&model, start(0.0, 1.0, 0.0))
        .max_steps(250)
        .progress(|p| steps = p.steps)
        .run(&Rk4::new(1e-3), 1.0)
        .unwrap_err();
    assert_eq!(error.reason, StepError::StepBudgetExhausted { steps: 250 });
    assert_eq!(error.trajectory.len(), 251);
    assert!((error.time - 0.25).abs() < 1e-12, "{}", error.time);
    assert_eq!(steps, 250);
    // Enough budget: the same run succeeds.
    let run = Simulation::new(&model, start(0.0, 1.0, 0.0))
        .max_steps(1000)
        .run(&Rk4::new(1e-3), 1.0)
        .unwrap();
    assert!((run.last().q[0] - 2f64.cos()).abs() < 1e-10);
    let error = Simulation::new(&model, start(0.0, 1.0, 0.0))
        .max_steps(0)
        .run(&Rk4::new(1e-3), 1.0)
        .unwrap_err();
    assert!(matches!(error.reason, StepError::InvalidSettings(_)));
}

#[test]
fn projection_checks_its_settings() {
    let model = Cartesian::default();
    let s = State::new(0.0, SVector::from([0.8, -0.7]), SVector::zeros());
    let u = SVector::zeros();
    for tolerance in [f64::NAN, -1e-12, 0.0, f64::INFINITY] {
        let error = model.project(&s, &u, &[], tolerance).unwrap_err();
        assert!(
            matches!(error, DynamicsError::InvalidSetting(why) if why.contains("tolerance")),
            "{tolerance}: {error}"
        );
    }
    let error = model.project(&s, &u, &[2], 1e-12).unwrap_err();
    assert!(matches!(error, DynamicsError::InvalidSetting(why) if why.contains("index")));
    // Valid settings: onto the circle of radius 1 along the radius.
    let p = model.project(&s, &u, &[], 1e-12).unwrap();
    let r = s.q.norm();
    assert!((p.q - s.q / r).norm() < 1e-10, "{:?}", p.q);
}

#[test]
fn projection_reports_overflow_as_overflow() {
    // l² overflows: the residual is infinite. It used to be reported as redundant
    // constraints; a velocity of f64::MAX used to come back as ±inf with Ok.
    let u = SVector::zeros();
    let huge = Cartesian {
        l: 1e308,
        ..Cartesian::default()
    };
    let s = State::new(0.0, SVector::from([1.0, 0.0]), SVector::zeros());
    assert_eq!(
        huge.project(&s, &u, &[], 1e-12),
        Err(DynamicsError::NonFiniteResult {
            quantity: "constraint residuals"
        })
    );
    let fast = State::new(
        0.0,
        SVector::from([0.6, -0.8]),
        SVector::from([f64::MAX, 0.0]),
    );
    let error = Cartesian::default()
        .project(&fast, &u, &[], 1e-12)
        .unwrap_err();
    assert!(
        matches!(error, DynamicsError::NonFiniteResult { .. }),
        "{error}"
    );
}

// ---------------------------------------------------------------------------------------
// Found by the second probe
// ---------------------------------------------------------------------------------------

use lagrange_test_models::FreeParticle as Free;

#[test]
fn fixed_steps_integrate_over_the_time_their_label_advances() {
    // At t = 10¹⁷ the spacing of f64 is 16: a step of 10 advances the clock by 16, and the
    // state must move by 16 too (it moved by 10 and was labelled +16).
    let t0 = 1e17;
    let s = State::new(t0, SVector::from([0.0]), SVector::from([1.0]));
    for result in [
        Simulation::new(&Free, s).run(&Rk4::new(10.0), t0 + 160.0),
        Simulation::new(&Free, s).run(&Variational::new(10.0), t0 + 160.0),
        Simulation::new(&Free, s).run(&DormandPrince::default(), t0 + 160.0),
    ] {
        let end = *result.unwrap().last();
        assert_eq!(end.t, t0 + 160.0);
        assert!((end.q[0] - 160.0).abs() < 1e-9, "{end:?}");
    }
}

#[test]
fn dormand_prince_starts_with_extreme_tolerances() {
    let model = Oscillator::default();
    let run = Simulation::new(&model, start(0.0, 1.0, 0.0))
        .run(&DormandPrince::new(1e-8, 1e-100), 1.0)
        .unwrap();
    assert!(
        (run.last().q[0] - 2f64.cos()).abs() < 1e-6,
        "{:?}",
        run.last()
    );
    // An absolute tolerance of 1e-300 alone cannot be met; the error says so instead of
    // blaming the time.
    let error = Simulation::new(&model, start(0.0, 1.0, 0.0))
        .run(&DormandPrince::new(0.0, 1e-300), 1.0)
        .unwrap_err();
    assert!(
        matches!(error.reason, StepError::StepSizeUnderflow { .. }),
        "{error}"
    );
}

#[test]
fn a_control_law_that_fails_at_a_sample_fails_the_run() {
    // The variational integrator evaluates the law at midpoints only; the driver reads it
    // again at each sample and must not record NaN inputs (and a NaN energy) silently.
    let model = Oscillator::default();
    let law = |t: f64, _: &State<1>| SVector::from([if t >= 1.0 { f64::NAN } else { 0.0 }]);
    let error = Simulation::new(&model, start(0.0, 1.0, 0.0))
        .inputs(law)
        .run(&Variational::new(0.1), 1.0)
        .unwrap_err();
    assert_eq!(
        error.reason,
        StepError::Dynamics(DynamicsError::NonFiniteState {
            part: StatePart::Input,
            name: "tau"
        })
    );
    assert!(error.trajectory.energies().iter().all(|h| h.is_finite()));
}

#[test]
fn energy_drift_is_nan_when_an_energy_is() {
    let mut trajectory = lagrange_runtime::simulate::Trajectory::new(&["x"], &[]);
    for h in [1.0, f64::NAN, 1.5] {
        trajectory.push(start(0.0, 0.0, 0.0), SVector::zeros(), h);
    }
    assert!(trajectory.energy_drift().is_nan());
}

#[test]
fn a_stopped_run_records_its_last_state_once_and_its_start_always() {
    let model = Oscillator::default();
    let error = Simulation::new(&model, start(0.0, 1.0, 0.0))
        .max_steps(5)
        .run_at(&Rk4::new(0.1), &[0.5, 1.0])
        .unwrap_err();
    let times: Vec<f64> = error.trajectory.times().collect();
    assert_eq!(times, [0.5]);
    // A model whose first evaluation fails: the start is still in the trajectory.
    lagrangian! {
        struct Singular { coordinates: x, y; kinetic = (dot(x) + dot(y))^2 / 2; }
    }
    let s = State::new(0.0, SVector::from([0.0, 0.0]), SVector::from([1.0, -1.0]));
    for error in [
        Simulation::new(&Singular, s)
            .run(&DormandPrince::default(), 1.0)
            .unwrap_err(),
        Simulation::new(&Singular, s)
            .run_at(&DormandPrince::default(), &[1.0])
            .unwrap_err(),
    ] {
        assert!(
            matches!(error.reason, StepError::Dynamics(_)),
            "{}",
            error.reason
        );
        assert_eq!(error.trajectory.states(), [s]);
    }
    // Its equations' derivatives, as every model's (`common::derivatives`); it has no
    // accelerations.
    let singular = "singular mass matrix: no accelerations";
    Derivatives::new("Singular", &Singular)
        .standard()
        .without(Part::Linearize, singular)
        .check();
}

/// An integrator that breaks the contract of `Integrator::step`: it steps past `t_max`.
struct Overshoot;

impl<T, const N: usize, const M: usize> lagrange_runtime::simulate::Integrator<T, N, M>
    for Overshoot
{
    type Memory = ();
    fn start(
        &self,
        _: &T,
        _: &State<N>,
        _: &mut lagrange_runtime::simulate::Inputs<'_, N, M>,
    ) -> Result<(), StepError> {
        Ok(())
    }
    fn step(
        &self,
        _: &T,
        _: &mut (),
        s: &State<N>,
        _: &mut lagrange_runtime::simulate::Inputs<'_, N, M>,
        _t_max: f64,
    ) -> Result<State<N>, StepError> {
        Ok(State::new(s.t + 0.6, s.q, s.qd))
    }
}

#[test]
fn an_integrator_that_steps_past_an_output_time_is_an_error() {
    let error = Simulation::new(&Free, start(0.0, 0.0, 1.0))
        .run_at(&Overshoot, &[0.5, 1.0])
        .unwrap_err();
    assert!(
        matches!(error.reason, StepError::InvalidSettings(why) if why.contains("past the output time")),
        "{error}"
    );
}

#[test]
fn a_cancelled_run_keeps_its_trajectory() {
    let model = Oscillator::default();
    let error = Simulation::new(&model, start(0.0, 1.0, 0.0))
        .progress(|p| {
            if p.t >= 0.25 {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        })
        .run_at(&Rk4::new(0.01), &[0.1, 1.0])
        .unwrap_err();
    assert_eq!(error.reason, StepError::Cancelled);
    let times: Vec<f64> = error.trajectory.times().collect();
    assert_eq!(times.len(), 2);
    assert_eq!(times[0], 0.1);
    assert!((times[1] - 0.25).abs() < 1e-12 && times[1] == error.time);
    let last = error.trajectory.last();
    assert!((last.q[0] - (2.0 * last.t).cos()).abs() < 1e-8);
}

/// Exact derivatives against central differences (`common::derivatives`). The Cartesian
/// pendulum's structured states hang (at q = 0 the rod's gradient vanishes); `Singular` is
/// checked where it is defined, in the test above.
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("Oscillator", &Oscillator::default())
        .standard()
        .check();
    let cartesian = Cartesian::default();
    Derivatives::new("Cartesian", &cartesian)
        .structured_at(SVector::from([0.0, -cartesian.l]))
        .random(3)
        .check();
    Derivatives::new("Free", &Free).standard().check();
}

// ---------------------------------------------------------------------------------------
// Issue 29
// ---------------------------------------------------------------------------------------

/// Issue 29, item 15: a start 0.077 off the rod ran without a word (Dormand–Prince kept the
/// violation, `Projected` recorded it and jumped, RATTLE jumped). Every integrator now
/// refuses it at the start, naming the constraint, its residual and `project`; the
/// trajectory keeps the start.
#[test]
fn a_start_off_the_constraints_is_refused_by_every_integrator() {
    let model = Cartesian::default();
    let (x, y) = (0.6f64, -0.8f64);
    let off = State::new(0.0, SVector::from([x * 1.04, y * 1.04]), SVector::zeros());
    let phi = off.q.norm_squared() - 1.0;
    assert!((phi - 0.0816).abs() < 1e-12);
    let want = StepError::Dynamics(DynamicsError::OffConstraints {
        positions: vec![("rod", phi)],
        velocities: vec![],
    });
    let check = |error: SimulationError<2>| {
        assert_eq!(error.reason, want);
        assert_eq!(error.trajectory.states(), &[off]);
        let message = error.to_string();
        assert!(
            message.contains("`rod` = 8.16") && message.contains("project"),
            "{message}"
        );
    };
    check(
        Simulation::new(&model, off)
            .run(&DormandPrince::default(), 1.0)
            .unwrap_err(),
    );
    check(
        Simulation::new(&model, off)
            .run(&Projected::new(Rk4::new(1e-3)), 1.0)
            .unwrap_err(),
    );
    check(
        Simulation::new(&model, off)
            .run(&Rattle::new(1e-3), 1.0)
            .unwrap_err(),
    );
    // On the circle but moving across it: the velocity form 2(x ẋ + y ẏ) is violated.
    let across = State::new(0.0, SVector::from([x, y]), SVector::from([0.3, 0.0]));
    let error = Simulation::new(&model, across)
        .run(&Rk4::new(1e-3), 1.0)
        .unwrap_err();
    assert_eq!(
        error.reason,
        StepError::Dynamics(DynamicsError::OffConstraints {
            positions: vec![],
            velocities: vec![("rod", 2.0 * x * 0.3)],
        })
    );
    assert!(
        error.to_string().contains("`rod` (velocity form) = 3.6"),
        "{error}"
    );
    // The fix the message gives: projected, the same start runs.
    let on = model.project(&off, &SVector::zeros(), &[], 1e-12).unwrap();
    assert!(Simulation::new(&model, on)
        .run(&Rattle::new(1e-3), 0.1)
        .is_ok());
    // A start on the circle computed in f64 (rounding only) runs.
    let a = 0.7f64;
    let exact = State::new(
        0.0,
        SVector::from([a.sin(), -a.cos()]),
        SVector::from([a.cos(), a.sin()]),
    );
    assert!(Simulation::new(&model, exact)
        .run(&Rk4::new(1e-3), 0.1)
        .is_ok());
}

/// Issue 29, item 5: `Projected` held |φ| ≤ 1e-12 absolutely, below the rounding of φ for
/// a pendulum of 100 m (stopped at t = 0.2 s) or 1000 m (at t = 0). Its tolerance is now
/// relative to the constraint's scale.
#[test]
fn projection_holds_a_pendulum_of_any_length() {
    for l in [1e-3, 1.0, 100.0, 1000.0, 1e5] {
        let model = Cartesian {
            l,
            ..Cartesian::default()
        };
        let a = 0.5f64;
        let start = State::new(
            0.0,
            SVector::from([l * a.sin(), -l * a.cos()]),
            SVector::zeros(),
        );
        let period = 2.0 * std::f64::consts::PI * (l / 9.81).sqrt();
        let run = Simulation::new(&model, start)
            .run(&Projected::new(Rk4::new(period / 200.0)), period)
            .unwrap_or_else(|e| panic!("l = {l}: {e}"));
        let drift = model.violation(run.last(), &SVector::zeros());
        assert!(drift.position <= 1e-11 * l * l, "l = {l}: {drift:?}");
        // Back near its start after one (small-ish amplitude) period.
        let angle = run.last().q[0].atan2(-run.last().q[1]);
        assert!((angle - a).abs() < 0.03, "l = {l}: {angle}");
    }
}

lagrangian! {
    /// T has no term in ẏ: y's motion is undetermined.
    struct NoYVelocity {
        parameters: m = 1.0, k = 1.0;
        coordinates: x, y;
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * (x^2 + y^2);
    }
}

/// Issue 29, item 3: `Variational` returned `Ok` with an invented motion of y where
/// `accelerations` and RK4 refuse the model. It now fails at the start with the error
/// `accelerations` gives.
#[test]
fn variational_refuses_undetermined_dynamics_at_the_start() {
    let model = NoYVelocity::default();
    let s = State::new(0.0, SVector::from([1.0, 0.5]), SVector::from([0.0, 0.2]));
    let want = model.accelerations(&s, &SVector::zeros()).unwrap_err();
    assert_eq!(want, DynamicsError::MissingVelocity { coordinate: "y" });
    let error = Simulation::new(&model, s)
        .run(&Variational::new(1e-2), 1.0)
        .unwrap_err();
    assert_eq!(error.reason, StepError::Dynamics(want));
    assert_eq!(error.time, 0.0);
    assert_eq!(error.trajectory.states(), &[s]);
}
