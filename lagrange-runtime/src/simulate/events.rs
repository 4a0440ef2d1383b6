//! Events: zero crossings of functions of (t, state), located between steps on a dense
//! output of the motion: the `Event` a user adds, the `Crossing` a run records, and the
//! root finding in a step that the simulation driver (`mod.rs`) calls after each step.

use super::{Simulation, StepError, Trajectory};
use crate::{Dynamics, State};
use nalgebra::SVector;

/// An event function g(t, state).
type Function<'a, const N: usize> = dyn FnMut(f64, &State<N>) -> f64 + 'a;

/// Which sign changes of an event function count as crossings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From negative to zero or positive.
    Rising,
    /// From positive to zero or negative.
    Falling,
    /// Both.
    Either,
}

/// A function g(t, state) whose zero crossings a simulation watches: it either stops the
/// run there ([`Event::stop`]), records the crossing and goes on ([`Event::record`], for
/// Poincaré sections and counting), or is a check the run must pass, which fails it with
/// an error naming the check where g stops being positive ([`Event::require`]).
///
/// After every step the function is evaluated at the new state; where its sign has changed
/// (in the event's [`Direction`]), the crossing time is located by root finding on a
/// quintic Hermite interpolant of the step (positions, velocities and accelerations at both
/// ends), so its accuracy does not depend on where the step happened to end. A function
/// that is exactly zero at the start of a run does not count as crossing there; the first
/// step is sampled (geometrically close to the start, then evenly) to find the side it
/// leaves zero to and whether it comes back. The state of a stopping event lies just past
/// the crossing, where the function has (to rounding) crossed: a run restarted from it
/// after an impact law that reverses the motion should put the function back to exactly
/// zero (the ball on the floor, `y = 0`), or give the event a direction, or it stops again
/// at once.
///
/// Crossings are seen from the signs at the ends of steps: a function that crosses zero
/// twice within one step (a fast oscillation, a grazing touch) is not seen there. Keep the
/// steps short against the function's own time scale (`max_step` of
/// [`DormandPrince`](super::DormandPrince)). A function that is NaN wherever it is
/// evaluated (the start, the end of a step, a point sampled or tried inside one) fails the
/// run with [`StepError::EventIsNaN`](super::StepError::EventIsNaN), naming the event:
/// its sign, and so its crossings, would be unknown. On a constrained model
/// the located state lies on the constraints to the interpolation's accuracy, not to the
/// integrator's tolerance.
///
/// # Example
/// A ball dropped from 1 m, stopped at the floor, and restarted after the impact law (it
/// bounces back with 80 % of its speed):
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::simulate::{Event, Rk4, Simulation};
///
/// lagrangian! {
///     struct Ball { parameters: g = 9.81; coordinates: y; kinetic = dot(y)^2 / 2; potential = g * y; }
/// }
///
/// let ball = Ball::default();
/// let floor = || Event::stop("floor", |_t, s: &State<1>| s.q[0]).falling();
/// let fall = Simulation::new(&ball, State::at_rest(SVector::from([1.0])))
///     .event(floor())
///     .run(&Rk4::new(0.01), 10.0)
///     .unwrap();
/// let impact = fall.stopped_by().unwrap().state;
/// let t1 = (2.0 / 9.81f64).sqrt(); // 1 = g t²/2
/// assert!((impact.t - t1).abs() < 1e-12);
///
/// // Restarted on the floor (y = 0 exactly, so the start is no crossing), moving up.
/// let bounce = State::new(impact.t, SVector::zeros(), -0.8 * impact.qd);
/// let flight = Simulation::new(&ball, bounce).event(floor()).run(&Rk4::new(0.01), 10.0).unwrap();
/// // In the air for 2 · 0.8 v₁ / g = 1.6 t₁.
/// assert!((flight.stopped_by().unwrap().state.t - 2.6 * t1).abs() < 1e-12);
/// ```
pub struct Event<'a, const N: usize> {
    pub(crate) name: &'static str,
    pub(crate) function: Box<Function<'a, N>>,
    pub(crate) direction: Direction,
    pub(crate) terminal: bool,
    /// Whether its crossing fails the run ([`Event::require`]) rather than ends it.
    pub(crate) fails: bool,
}

impl<'a, const N: usize> Event<'a, N> {
    /// An event that ends the run at the first crossing of `function`; the trajectory ends
    /// at the located state and [`Trajectory::stopped_by`](super::Trajectory::stopped_by)
    /// names the event.
    pub fn stop(name: &'static str, function: impl FnMut(f64, &State<N>) -> f64 + 'a) -> Self {
        Event {
            name,
            function: Box::new(function),
            direction: Direction::Either,
            terminal: true,
            fails: false,
        }
    }

    /// A check the run must pass: `function` must stay positive (a bound,
    /// `|θ| < π/2` as `π/2 − |θ|`; a clearance; a `let` of the model, read with its
    /// `lets`), and the run **fails** where it reaches zero or below: it ends at the located
    /// crossing with the error [`StepError::CheckFailed`](super::StepError::CheckFailed)
    /// naming the check, the trajectory up to there in the
    /// [`SimulationError`](super::SimulationError) (its
    /// [`stopped_by`](super::Trajectory::stopped_by) is the crossing). A run that starts
    /// where the function is not positive fails at once. Unlike a [`stop`](Self::stop)
    /// event, which ends a run with `Ok` where it is meant to end, this says that the run
    /// left the region where its results mean anything (a balancing robot that fell over).
    ///
    /// # Example
    /// An inverted pendulum left to itself falls over; the run fails when it passes 1 rad
    /// from upright instead of returning the fall as a result.
    /// ```
    /// use lagrange_runtime::prelude::*;
    /// use lagrange_runtime::simulate::{Event, Rk4, Simulation, StepError};
    ///
    /// lagrangian! {
    ///     struct Pendulum { parameters: g = 9.81; coordinates: theta; kinetic = dot(theta)^2 / 2; potential = g * cos(theta); }
    /// }
    ///
    /// let start = State::at_rest(SVector::from([0.01]));
    /// let error = Simulation::new(&Pendulum::default(), start)
    ///     .event(Event::require("upright", |_t, s| 1.0 - s.q[0].abs()))
    ///     .run(&Rk4::new(1e-3), 10.0)
    ///     .unwrap_err();
    /// let StepError::CheckFailed { check, t } = error.reason else { panic!("{}", error.reason) };
    /// assert_eq!(check, "upright");
    /// assert!((error.trajectory.last().q[0] - 1.0).abs() < 1e-9 && t < 2.0);
    /// ```
    pub fn require(name: &'static str, function: impl FnMut(f64, &State<N>) -> f64 + 'a) -> Self {
        Event {
            direction: Direction::Falling,
            fails: true,
            ..Event::stop(name, function)
        }
    }

    /// An event that records every crossing of `function`
    /// ([`Trajectory::crossings`](super::Trajectory::crossings)) and lets the run go on.
    pub fn record(name: &'static str, function: impl FnMut(f64, &State<N>) -> f64 + 'a) -> Self {
        Event {
            terminal: false,
            ..Event::stop(name, function)
        }
    }

    /// Counts only crossings from negative to positive.
    #[must_use]
    pub fn rising(mut self) -> Self {
        self.direction = Direction::Rising;
        self
    }

    /// Counts only crossings from positive to negative.
    #[must_use]
    pub fn falling(mut self) -> Self {
        self.direction = Direction::Falling;
        self
    }

    /// Whether a change from `before` (nonzero) to `after` is a crossing of this event.
    pub(crate) fn crosses(&self, before: f64, after: f64) -> bool {
        let rising = before < 0.0 && after >= 0.0;
        let falling = before > 0.0 && after <= 0.0;
        match self.direction {
            Direction::Rising => rising,
            Direction::Falling => falling,
            Direction::Either => rising || falling,
        }
    }
}

/// A located zero crossing of an event function.
///
/// # Example
/// Recording the upward passes of an oscillator x = cos 2t through x = 0, at t = 3π/4 + kπ:
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::simulate::{DormandPrince, Event, Simulation};
/// use std::f64::consts::PI;
///
/// lagrangian! {
///     struct Oscillator { parameters: m = 1.0, k = 4.0; coordinates: x; kinetic = m/2 * dot(x)^2; potential = k/2 * x^2; }
/// }
///
/// let run = Simulation::new(&Oscillator::default(), State::at_rest(SVector::from([1.0])))
///     .event(Event::record("up", |_t, s| s.q[0]).rising())
///     .run(&DormandPrince::default(), 10.0)
///     .unwrap();
/// let crossings = run.crossings();
/// assert_eq!(crossings.len(), 3);
/// for (k, c) in crossings.iter().enumerate() {
///     assert_eq!((c.event.as_str(), c.rising), ("up", true));
///     assert!((c.state.t - (0.75 + k as f64) * PI).abs() < 1e-8);
///     assert!((c.state.qd[0] - 2.0).abs() < 1e-7); // ẋ = −2 sin 2t = 2 there
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Crossing<const N: usize> {
    /// The event's name.
    pub event: String,
    /// Whether the function went from negative to positive.
    pub rising: bool,
    /// The state at the crossing (its time is the crossing time).
    pub state: State<N>,
}

/// Where an event function that is zero at the start of a run first crosses in the run's
/// first step: it is sampled at this many points geometrically close to the start (down to
/// 2⁻²⁰ of the step) and this many evenly across it, the first nonzero sample giving the
/// side it leaves zero to (a ball bouncing off the floor may rise and fall back within one
/// step).
pub(crate) const START_SAMPLES: usize = 16;

/// One step of the motion as a quintic Hermite interpolant: (q, q̇, q̈) at both ends.
pub(crate) struct Dense<const N: usize> {
    pub(crate) a: State<N>,
    pub(crate) acc_a: SVector<f64, N>,
    pub(crate) b: State<N>,
    pub(crate) acc_b: SVector<f64, N>,
}

impl<const N: usize> Dense<N> {
    /// The interpolated state at `t` in [a.t, b.t]: positions to order h⁶, velocities h⁵.
    pub(crate) fn at(&self, t: f64) -> State<N> {
        let (a, b) = (&self.a, &self.b);
        let h = b.t - a.t;
        if t <= a.t {
            return *a;
        }
        if t >= b.t {
            return *b;
        }
        let x = (t - a.t) / h;
        let (x2, x3, x4, x5) = (x * x, x * x * x, x * x * x * x, x * x * x * x * x);
        // Values and derivatives (in x) of the six basis polynomials: value, slope and
        // curvature at x = 0, then at x = 1.
        let v = [
            1.0 - 10.0 * x3 + 15.0 * x4 - 6.0 * x5,
            x - 6.0 * x3 + 8.0 * x4 - 3.0 * x5,
            0.5 * (x2 - 3.0 * x3 + 3.0 * x4 - x5),
            10.0 * x3 - 15.0 * x4 + 6.0 * x5,
            -4.0 * x3 + 7.0 * x4 - 3.0 * x5,
            0.5 * (x3 - 2.0 * x4 + x5),
        ];
        let d = [
            -30.0 * x2 + 60.0 * x3 - 30.0 * x4,
            1.0 - 18.0 * x2 + 32.0 * x3 - 15.0 * x4,
            0.5 * (2.0 * x - 9.0 * x2 + 12.0 * x3 - 5.0 * x4),
            30.0 * x2 - 60.0 * x3 + 30.0 * x4,
            -12.0 * x2 + 28.0 * x3 - 15.0 * x4,
            0.5 * (3.0 * x2 - 8.0 * x3 + 5.0 * x4),
        ];
        let combine = |w: &[f64; 6]| {
            a.q * w[0]
                + a.qd * (h * w[1])
                + self.acc_a * (h * h * w[2])
                + b.q * w[3]
                + b.qd * (h * w[4])
                + self.acc_b * (h * h * w[5])
        };
        State::new(t, combine(&v), combine(&d) / h)
    }

    /// The crossing of `g` in [t0, t1], where `g` has the nonzero value `g0` at t0 and `g1`
    /// (of the other sign, or zero) at t1: the Illinois variant of regula falsi, to the
    /// precision of the time.
    ///
    /// # Errors
    /// The time at which `g` is NaN, if it is at a point tried.
    pub(crate) fn locate(
        &self,
        g: &mut Function<'_, N>,
        (mut t0, mut g0): (f64, f64),
        (mut t1, mut g1): (f64, f64),
    ) -> Result<State<N>, f64> {
        if g1 == 0.0 {
            return Ok(self.at(t1));
        }
        let mut side = 0;
        for _ in 0..200 {
            let width = t1 - t0;
            if width <= 4.0 * f64::EPSILON * t0.abs().max(t1.abs()).max(1.0) {
                break;
            }
            let mut t = t1 - g1 * width / (g1 - g0);
            if !(t > t0 && t < t1) {
                t = 0.5 * (t0 + t1);
            }
            let gt = g(t, &self.at(t));
            if gt == 0.0 {
                return Ok(self.at(t));
            }
            if gt.is_nan() {
                return Err(t);
            }
            if (gt > 0.0) == (g1 > 0.0) {
                // The new point replaces the end on its side; halving the other end's
                // value when the same side moves twice keeps convergence superlinear.
                t1 = t;
                g1 = gt;
                if side == 1 {
                    g0 *= 0.5;
                }
                side = 1;
            } else {
                t0 = t;
                g0 = gt;
                if side == -1 {
                    g1 *= 0.5;
                }
                side = -1;
            }
        }
        // The end past the crossing: the function there has the sign it crossed to.
        Ok(self.at(t1))
    }
}

// ---------------------------------------------------------------- root finding in a step

impl<T: Dynamics<N, M>, const N: usize, const M: usize> Simulation<'_, T, N, M> {
    /// The crossings of the events in the step from `a` to `b`, in time order: recording
    /// ones go to the trajectory, and the first stopping one (if any) moves `b` back to its
    /// state and is returned, with the name of the check if it is a failing one
    /// ([`Event::require`]).
    pub(super) fn events_in_step(
        &mut self,
        a: &State<N>,
        b: &mut State<N>,
        signs: &mut [f64],
        trajectory: &mut Trajectory<N, M>,
    ) -> Result<Option<(Crossing<N>, Option<&'static str>)>, StepError> {
        if self.events.is_empty() {
            return Ok(None);
        }
        let values: Vec<f64> = self
            .events
            .iter_mut()
            .map(|e| number(e.name, b.t, (e.function)(b.t, b)))
            .collect::<Result<_, _>>()?;
        let mut dense = None;
        let mut found: Vec<(Crossing<N>, bool, Option<&'static str>)> = Vec::new();
        for (k, event) in self.events.iter_mut().enumerate() {
            let (before, after) = (signs[k], values[k]);
            let crosses = before != 0.0 && event.crosses(before, after);
            // A function zero at the start (sign 0) is sampled across the step instead.
            if !(crosses || before == 0.0) {
                continue;
            }
            if dense.is_none() {
                // The inputs over the step: a sampled controller's output is held, and
                // the step ends at a sample time at the latest.
                let model = self.model;
                let mut acc = |s: &State<N>| {
                    let u = self.law.at(s);
                    model.accelerations(s, &u)
                };
                dense = Some(Dense {
                    a: *a,
                    acc_a: acc(a)?,
                    b: *b,
                    acc_b: acc(b)?,
                });
            }
            let dense = dense.as_ref().expect("just built");
            let name = event.name;
            let nan = |t: f64| StepError::EventIsNaN { event: name, t };
            let bracket = if crosses {
                Some(((a.t, before), (b.t, after)))
            } else {
                first_crossing(dense, event, &mut signs[k], after).map_err(nan)?
            };
            if let Some((start, end)) = bracket {
                let state = dense
                    .locate(&mut *event.function, start, end)
                    .map_err(nan)?;
                let crossing = Crossing {
                    event: event.name.to_owned(),
                    rising: start.1 < 0.0,
                    state,
                };
                found.push((crossing, event.terminal, event.fails.then_some(event.name)));
            }
        }
        // A value of exactly 0 at the step's end restarts the function's sign (as at the
        // start of a run), so that the crossing into 0 is not counted again after it.
        signs.copy_from_slice(&values);
        // Everything recorded up to the first stop, a recording event at the very time of
        // the stop included, whatever the order the events were added in.
        found.sort_by(|x, y| x.0.state.t.total_cmp(&y.0.state.t));
        let stop = found
            .iter()
            .position(|(_, terminal, _)| *terminal)
            .map(|i| (found[i].0.clone(), found[i].2));
        for (crossing, terminal, _) in found {
            let after_stop = stop
                .as_ref()
                .is_some_and(|s| crossing.state.t > s.0.state.t);
            if !terminal && !after_stop {
                trajectory.push_crossing(crossing);
            }
        }
        if let Some((crossing, _)) = &stop {
            *b = crossing.state;
        }
        Ok(stop)
    }

    /// The first check ([`Event::require`]) whose function is not positive at the start,
    /// where the run fails at once.
    pub(super) fn failed_at_start(&self, signs: &[f64]) -> Option<&'static str> {
        self.events
            .iter()
            .zip(signs)
            .find(|(e, g)| e.fails && **g <= 0.0)
            .map(|(e, _)| e.name)
    }
}

/// The value `g` of the event `event`'s function at `t`, or the error naming the event if
/// it is NaN.
pub(super) fn number(event: &'static str, t: f64, g: f64) -> Result<f64, StepError> {
    if g.is_nan() {
        Err(StepError::EventIsNaN { event, t })
    } else {
        Ok(g)
    }
}

/// A time and an event function's value there.
type Sample = (f64, f64);

/// The first crossing, within the step of `dense`, of an event whose function was zero at
/// the start: the bracket (time, value) before and after it, from samples of the step.
/// Sets `sign` to the side the function left zero to, if it did.
///
/// # Errors
/// The time of a sample at which the function is NaN.
fn first_crossing<const N: usize>(
    dense: &Dense<N>,
    event: &mut Event<'_, N>,
    sign: &mut f64,
    at_end: f64,
) -> Result<Option<(Sample, Sample)>, f64> {
    let (ta, tb) = (dense.a.t, dense.b.t);
    let h = tb - ta;
    // Geometrically close to the start (the side it leaves zero to, even for a hop far
    // shorter than the step), then evenly across the step.
    let near = (1..=START_SAMPLES)
        .rev()
        .map(|k| ta + h * 0.5f64.powi(i32::try_from(k + 4).unwrap_or(i32::MAX)));
    let even = (1..START_SAMPLES).map(|i| ta + h * i as f64 / START_SAMPLES as f64);
    let mut previous: Option<(f64, f64)> = None;
    for t in near.chain(even).chain([tb]) {
        if t <= ta {
            continue;
        }
        let g = if t == tb {
            at_end
        } else {
            (event.function)(t, &dense.at(t))
        };
        if g.is_nan() {
            return Err(t);
        }
        match previous {
            None if g != 0.0 => {
                previous = Some((t, g));
                *sign = g;
            }
            Some(p) if event.crosses(p.1, g) => return Ok(Some((p, (t, g)))),
            Some(_) if g != 0.0 => previous = Some((t, g)),
            _ => {}
        }
    }
    Ok(None)
}
