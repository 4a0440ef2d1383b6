//! Simulating a model: integrators, a driver with a control law and a progress hook, and
//! the [`Trajectory`] it records.
//!
//! Three integrators implement [`Integrator`]:
//!
//! - [`Rk4`]: the classic fixed-step fourth-order Runge–Kutta method.
//! - [`DormandPrince`]: the adaptive Dormand–Prince 5(4) pair with error control by
//!   `rtol`/`atol`. The ODE crates of the ecosystem depend on other nalgebra versions than
//!   this crate, so it is implemented here, on the stack.
//! - [`Variational`]: the midpoint variational integrator. Its discrete Euler–Lagrange
//!   equations are solved by Newton's method with exact AD Jacobians; forces and
//!   dissipation enter through the discrete Lagrange–d'Alembert principle. It is
//!   symplectic and conserves the momenta of symmetries exactly, and its energy error stays
//!   bounded over very long runs.
//!
//! For models with constraints: [`Rattle`], the constrained variational integrator, and
//! [`Projected`], which wraps any integrator and projects onto the constraints after each
//! step (or simulate a [`Baumgarte`](crate::constrained::Baumgarte)-stabilized model).
//!
//! Each integrator asks of the model what its method needs, and no more: [`Rk4`] and
//! [`DormandPrince`] integrate the ODE q̈ = f(t, q, q̇, u) of any
//! [`Dynamics`]; [`Variational`] and [`Rattle`] discretize the action, so
//! they need the Lagrangian itself, a [`Model`](crate::model::Model); [`Projected`] needs
//! the projection of a [`ConstraintSolver`](crate::ConstraintSolver). A
//! [`Baumgarte`](crate::constrained::Baumgarte) wrapper changes the equations of motion, not
//! the Lagrangian, so it is a `Dynamics` and not a `Model`: the variational methods, which
//! would integrate the unstabilized Lagrangian, do not accept it.
//!
//! A run's inputs come from a continuous law u(t, state) ([`Simulation::inputs`]), or
//! from a digital controller with its own state, sampled every Ts and held in between
//! ([`Simulation::controller`], a [`SampledController`] or a [`Sampled`] closure): every
//! integrator ends a step on each sample time, and the trajectory records the controller's
//! state. Inputs from outside the controller (disturbances, a feedforward) are added
//! beside either with [`Simulation::disturbances`].
//!
//! # Example
//! ```
//! use lagrange_runtime::prelude::*;
//! use lagrange_runtime::simulate::{Rk4, Simulation};
//!
//! lagrangian! {
//!     struct Oscillator {
//!         parameters: m = 1.0, k = 4.0;
//!         coordinates: x;
//!         kinetic = m/2 * dot(x)^2;
//!         potential = k/2 * x^2;
//!     }
//! }
//!
//! let start = State::new(0.0, SVector::from([1.0]), SVector::from([0.0]));
//! let trajectory = Simulation::new(&Oscillator::default(), start)
//!     .run(&Rk4::new(1e-3), 1.0)
//!     .unwrap();
//! let end = trajectory.last();
//! assert!((end.q[0] - 2.0f64.cos()).abs() < 1e-10); // x(t) = cos(ω t), ω = √(k/m) = 2
//! ```

mod discrete;
mod dopri;
mod events;
mod projected;
mod rattle;
mod rk4;
mod sampled;
mod stepping;
mod trajectory;
mod variational;

pub use discrete::VariationalMemory;
pub use dopri::{DormandPrince, DormandPrinceMemory};
use events::number;
pub use events::{Crossing, Direction, Event};
pub use projected::Projected;
pub use rattle::Rattle;
pub use rk4::Rk4;
pub use sampled::{Sampled, SampledController};
pub use trajectory::Trajectory;
pub use variational::Variational;

use crate::eval::check_finite;
use crate::{Dynamics, DynamicsError, State};
use nalgebra::SVector;
use sampled::Sampler;
use std::fmt;
use std::ops::ControlFlow;

/// A control law u(t, state), evaluated by the integrators wherever they evaluate the
/// dynamics.
pub type Inputs<'a, const N: usize, const M: usize> =
    dyn FnMut(f64, &State<N>) -> SVector<f64, M> + 'a;

/// A method that advances a state of a model of type `T` in time.
///
/// # Example
/// Code written once for every method takes the integrator as a type parameter:
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::simulate::{DormandPrince, Integrator, Rk4, Simulation, Variational};
///
/// lagrangian! {
///     struct Oscillator { parameters: m = 1.0, k = 4.0; coordinates: x; kinetic = m/2 * dot(x)^2; potential = k/2 * x^2; }
/// }
///
/// /// x at t = 1, released from x = 1.
/// fn end<I: Integrator<Oscillator, 1, 0>>(integrator: &I) -> f64 {
///     let start = State::at_rest(SVector::from([1.0]));
///     let run = Simulation::new(&Oscillator::default(), start).run(integrator, 1.0).unwrap();
///     run.last().q[0]
/// }
///
/// let exact = 2f64.cos(); // x = cos(ω t), ω = √(k/m) = 2
/// assert!((end(&Rk4::new(1e-3)) - exact).abs() < 1e-11);
/// assert!((end(&DormandPrince::default()) - exact).abs() < 1e-7);
/// assert!((end(&Variational::new(1e-3)) - exact).abs() < 1e-6);
/// ```
pub trait Integrator<T, const N: usize, const M: usize> {
    /// What the method carries from one step to the next: the step size of an adaptive
    /// method, the discrete momentum of the variational one.
    type Memory;

    /// Prepares a run starting at `s`.
    ///
    /// # Errors
    /// Invalid settings, or a state where the model cannot be evaluated.
    fn start(
        &self,
        model: &T,
        s: &State<N>,
        inputs: &mut Inputs<'_, N, M>,
    ) -> Result<Self::Memory, StepError>;

    /// One step from `s`, never past `t_max`; a step that ends at `t_max` returns a state
    /// whose time is exactly `t_max`.
    ///
    /// # Errors
    /// Why the step could not be taken.
    fn step(
        &self,
        model: &T,
        memory: &mut Self::Memory,
        s: &State<N>,
        inputs: &mut Inputs<'_, N, M>,
        t_max: f64,
    ) -> Result<State<N>, StepError>;

    /// The inputs jump at the state the last step ended at (a [`SampledController`] has
    /// taken a sample there): forget what `memory` holds that was evaluated with the old
    /// ones, such as the slope a first-same-as-last method reuses. By default nothing: a
    /// method whose memory holds no evaluation of the inputs keeps it.
    fn inputs_changed(&self, memory: &mut Self::Memory) {
        let _ = memory;
    }
}

/// Why an integration step failed.
///
/// # Example
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::simulate::{Rk4, Simulation, StepError};
///
/// lagrangian! {
///     struct Fall { parameters: g = 9.81; coordinates: y; kinetic = dot(y)^2 / 2; potential = g * y; }
/// }
///
/// let error = Simulation::new(&Fall::default(), State::at_rest(SVector::from([0.0])))
///     .max_steps(10)
///     .run(&Rk4::new(0.01), 1.0)
///     .unwrap_err();
/// match error.reason {
///     StepError::StepBudgetExhausted { steps } => assert_eq!(steps, 10),
///     other => panic!("unexpected: {other}"),
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StepError {
    /// The model could not be evaluated.
    Dynamics(DynamicsError),
    /// Newton's method of the variational integrator did not converge.
    NewtonDidNotConverge {
        /// Iterations made.
        iterations: usize,
        /// Size of the last residual of the discrete Euler–Lagrange equations.
        residual: f64,
    },
    /// The adaptive step size fell below what the time's precision can resolve.
    StepSizeUnderflow {
        /// The step size that was too small.
        step: f64,
    },
    /// The new state holds a NaN or an infinity.
    NonFiniteState,
    /// The integrator or the output times are set up wrongly.
    InvalidSettings(&'static str),
    /// The run took as many steps as its budget ([`Simulation::max_steps`]) allows
    /// without reaching its end time.
    StepBudgetExhausted {
        /// The budget.
        steps: usize,
    },
    /// The progress hook returned [`ControlFlow::Break`].
    Cancelled,
    /// An event function was NaN: where its sign is unknown, so are its crossings.
    EventIsNaN {
        /// The event's name.
        event: &'static str,
        /// Where it was NaN.
        t: f64,
    },
    /// A sampled controller's [`period`](SampledController::period) is too short for the
    /// times the run covers: at the largest of |t₀| and |t_end| the floating-point times
    /// are `resolution` apart, and a period not above 4 times that could give sample times
    /// t₀ + k·Ts, each rounded, that do not advance (5e-324 after t₀ = 0 and before t_end = 1 is 0 at the
    /// precision of t = 1), so the run could only spend its step budget.
    SamplePeriodTooShort {
        /// The controller's period.
        period: f64,
        /// The spacing of the floating-point numbers at max(|t₀|, |t_end|).
        resolution: f64,
    },
    /// A sampled controller's [`state_names`](SampledController::state_names) changed
    /// during the run: the trajectory's columns are those the run started with, and a
    /// state recorded under other names would be filed under the wrong columns.
    ControllerStateNamesChanged {
        /// The names when the run started, the trajectory's columns.
        before: Vec<String>,
        /// The names at `t`.
        after: Vec<String>,
        /// Where they were found changed.
        t: f64,
    },
    /// A check the run must pass ([`Event::require`]) failed: its function reached zero or
    /// below at `t` (the run ends at the located crossing), or was not positive at the
    /// start.
    CheckFailed {
        /// The check's name.
        check: &'static str,
        /// Where it failed.
        t: f64,
    },
}

impl From<DynamicsError> for StepError {
    fn from(e: DynamicsError) -> Self {
        StepError::Dynamics(e)
    }
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::Dynamics(e) => write!(f, "{e}"),
            StepError::NewtonDidNotConverge {
                iterations,
                residual,
            } => write!(
                f,
                "Newton's method did not converge in {iterations} iterations (residual {residual:e}): the step may be too large for the model's fastest motion, or too small for the coordinates to resolve"
            ),
            StepError::StepSizeUnderflow { step } => write!(
                f,
                "the step size fell to {step:e}: the solution may be singular or the tolerances too tight"
            ),
            StepError::NonFiniteState => write!(f, "the state became non-finite (NaN or infinite)"),
            StepError::InvalidSettings(what) => write!(f, "invalid settings: {what}"),
            StepError::StepBudgetExhausted { steps } => write!(
                f,
                "the step budget of {steps} steps ran out before the end time: take larger steps, or raise the budget with `Simulation::max_steps`"
            ),
            StepError::Cancelled => write!(f, "cancelled by the progress hook"),
            StepError::EventIsNaN { event, t } => write!(
                f,
                "the function of the event `{event}` is NaN at t = {t}: its crossings cannot be found"
            ),
            StepError::SamplePeriodTooShort { period, resolution } => write!(
                f,
                "the sample period {period:e} of the sampled controller is too short for the run's times: they are {resolution:e} apart there, so the sample times t0 + k·Ts would not advance; take a period above {:e}",
                crate::tolerances::SAMPLE_RESOLUTION * resolution
            ),
            StepError::ControllerStateNamesChanged { before, after, t } => write!(
                f,
                "the sampled controller's state names changed at t = {t}: from {before:?}, the trajectory's columns, to {after:?}; they must stay those the run started with"
            ),
            StepError::CheckFailed { check, t } => write!(
                f,
                "the check `{check}` failed at t = {t}: the run left the region it requires"
            ),
        }
    }
}

impl std::error::Error for StepError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StepError::Dynamics(e) => Some(e),
            _ => None,
        }
    }
}

/// A simulation that stopped early: when, why, and everything computed until then.
///
/// Its `Debug` form (what `fn main() -> Result<…>` prints) summarizes the trajectory
/// instead of listing every state.
///
/// # Example
/// A start where the model cannot be evaluated: x² ẏ² is no kinetic energy for y at x = 0.
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::simulate::{Rk4, Simulation, StepError};
///
/// lagrangian! {
///     struct Polar { coordinates: x, y; kinetic = dot(x)^2 / 2 + x^2 * dot(y)^2 / 2; }
/// }
///
/// let start = State::at_rest(SVector::from([0.0, 1.0]));
/// let error = Simulation::new(&Polar, start).run(&Rk4::new(0.01), 1.0).unwrap_err();
/// assert_eq!(error.time, 0.0);
/// assert_eq!(error.reason, StepError::Dynamics(DynamicsError::MissingVelocity { coordinate: "y" }));
/// assert!(error.to_string().starts_with("simulation stopped at t = 0"));
/// ```
#[derive(Clone)]
pub struct SimulationError<const N: usize, const M: usize = 0> {
    /// Time of the last state reached.
    pub time: f64,
    /// What went wrong.
    pub reason: StepError,
    /// The trajectory up to `time` (boxed: errors stay small to pass around).
    pub trajectory: Box<Trajectory<N, M>>,
}

impl<const N: usize, const M: usize> fmt::Debug for SimulationError<N, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimulationError")
            .field("time", &self.time)
            .field("reason", &self.reason)
            .field(
                "trajectory",
                &format_args!("{} samples", self.trajectory.len()),
            )
            .finish()
    }
}

impl<const N: usize, const M: usize> fmt::Display for SimulationError<N, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "simulation stopped at t = {}: {}",
            self.time, self.reason
        )
    }
}

impl<const N: usize, const M: usize> std::error::Error for SimulationError<N, M> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.reason)
    }
}

/// Where a running simulation is, for progress reports.
///
/// # Example
/// ```
/// use lagrange_runtime::simulate::Progress;
/// let p = Progress { t: 1.5, t_start: 1.0, t_end: 3.0, steps: 20 };
/// assert_eq!(p.fraction(), 0.25);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Current time.
    pub t: f64,
    /// Start time.
    pub t_start: f64,
    /// End time.
    pub t_end: f64,
    /// Steps taken so far.
    pub steps: usize,
}

impl Progress {
    /// The fraction of the time span done, from 0 to 1.
    pub fn fraction(&self) -> f64 {
        let span = self.t_end - self.t_start;
        if span > 0.0 {
            ((self.t - self.t_start) / span).clamp(0.0, 1.0)
        } else {
            1.0
        }
    }
}

/// The default step budget of a run: a million steps (a trajectory of
/// [`run`](Simulation::run) records one sample per step).
pub const DEFAULT_MAX_STEPS: usize = 1_000_000;

/// A simulation of one model from one initial state: set the control law (continuous, or
/// a sampled controller), the events, the progress hook and the step budget, then
/// [`run`](Simulation::run) it with an integrator.
///
/// The initial state must be finite. A run takes at most [`DEFAULT_MAX_STEPS`] steps unless
/// [`max_steps`](Simulation::max_steps) says otherwise, so that a step size too small for
/// the time span ends in [`StepError::StepBudgetExhausted`] instead of running for ever.
///
/// # Example
/// The builder: the model and its initial state, then what the run needs (a control law,
/// events, a step budget, a progress hook), then `run` with an integrator:
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::simulate::{Rk4, Simulation};
///
/// lagrangian! {
///     /// A unit mass pushed by a force.
///     struct Mass { parameters: m = 1.0; coordinates: x; inputs: f; kinetic = m/2 * dot(x)^2; force f on x; }
/// }
///
/// // A PD law f = −4x − 4ẋ: critically damped, x = (1 + 2t) e^(−2t) from x = 1 at rest.
/// let run = Simulation::new(&Mass::default(), State::at_rest(SVector::from([1.0])))
///     .inputs(|_t, s| SVector::from([-4.0 * s.q[0] - 4.0 * s.qd[0]]))
///     .max_steps(10_000)
///     .run(&Rk4::new(1e-3), 2.0)
///     .unwrap();
/// let end = run.last();
/// assert!((end.q[0] - 5.0 * (-4.0f64).exp()).abs() < 1e-12);
/// assert!((run.inputs()[0][0] - -4.0).abs() < 1e-15); // the law's inputs, recorded
/// ```
pub struct Simulation<'a, T, const N: usize, const M: usize> {
    model: &'a T,
    initial: State<N>,
    law: Law<'a, N, M>,
    /// Whether [`inputs`](Simulation::inputs) was called (it may not be with a controller).
    continuous: bool,
    sampler: Option<Sampler<'a, N, M>>,
    progress: Option<Box<dyn FnMut(Progress) -> ControlFlow<()> + 'a>>,
    max_steps: usize,
    events: Vec<Event<'a, N>>,
}

/// The inputs the dynamics see during a run: a continuous law, or the output a sampled
/// controller holds between its samples, plus the inputs added beside either
/// ([`Simulation::disturbances`]).
struct Law<'a, const N: usize, const M: usize> {
    source: Source<'a, N, M>,
    added: Option<Box<Inputs<'a, N, M>>>,
}

/// Where the control law's part of the inputs comes from.
enum Source<'a, const N: usize, const M: usize> {
    Continuous(Box<Inputs<'a, N, M>>),
    Held(SVector<f64, M>),
}

impl<const N: usize, const M: usize> Source<'_, N, M> {
    fn at(&mut self, t: f64, s: &State<N>) -> SVector<f64, M> {
        match self {
            Source::Continuous(law) => law(t, s),
            Source::Held(u) => *u,
        }
    }
}

impl<const N: usize, const M: usize> Law<'_, N, M> {
    /// The inputs at `s`.
    fn at(&mut self, s: &State<N>) -> SVector<f64, M> {
        let u = self.source.at(s.t, s);
        match self.added.as_mut() {
            Some(added) => u + added(s.t, s),
            None => u,
        }
    }

    /// `f` of the law as the integrators take it.
    fn with<R>(&mut self, f: impl FnOnce(&mut Inputs<'_, N, M>) -> R) -> R {
        match (&mut self.source, self.added.as_mut()) {
            (Source::Continuous(law), None) => f(law),
            (Source::Held(u), None) => {
                let u = *u;
                f(&mut move |_, _| u)
            }
            (source, Some(added)) => f(&mut |t, s| source.at(t, s) + added(t, s)),
        }
    }
}

/// What a progress hook returns: `()` to go on, or a [`ControlFlow`] whose `Break` cancels
/// the run.
pub trait HookFlow {
    /// Whether the run goes on.
    fn flow(self) -> ControlFlow<()>;
}

impl HookFlow for () {
    fn flow(self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

impl HookFlow for ControlFlow<()> {
    fn flow(self) -> ControlFlow<()> {
        self
    }
}

impl<'a, T: Dynamics<N, M>, const N: usize, const M: usize> Simulation<'a, T, N, M> {
    /// A simulation of `model` from `initial`, with all inputs zero.
    pub fn new(model: &'a T, initial: State<N>) -> Self {
        Simulation {
            model,
            initial,
            law: Law {
                source: Source::Continuous(Box::new(|_, _| SVector::zeros())),
                added: None,
            },
            continuous: false,
            sampler: None,
            progress: None,
            max_steps: DEFAULT_MAX_STEPS,
            events: Vec::new(),
        }
    }

    /// Watches `event` during the run: a stopping event ends it at the located crossing, a
    /// recording one adds its crossings to the trajectory, a check
    /// ([`Event::require`]) fails it there with [`StepError::CheckFailed`]. Events are checked in the
    /// order they are added; at one step the earliest crossing wins.
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::prelude::*;
    /// use lagrange_runtime::simulate::{Event, Rk4, Simulation};
    ///
    /// lagrangian! {
    ///     struct Fall { parameters: g = 9.81; coordinates: y; kinetic = dot(y)^2 / 2; potential = g * y; }
    /// }
    ///
    /// // Dropped from 2 m: it reaches the floor at t = √(2·2/g).
    /// let run = Simulation::new(&Fall::default(), State::at_rest(SVector::from([2.0])))
    ///     .event(Event::stop("floor", |_t, s| s.q[0]).falling())
    ///     .run(&Rk4::new(0.1), 10.0)
    ///     .unwrap();
    /// let floor = run.stopped_by().unwrap();
    /// assert_eq!(floor.event, "floor");
    /// assert!((floor.state.t - (4.0 / 9.81f64).sqrt()).abs() < 1e-12);
    /// assert_eq!(run.last(), &floor.state);
    /// ```
    pub fn event(mut self, event: Event<'a, N>) -> Self {
        self.events.push(event);
        self
    }

    /// Sets the step budget: the run fails with [`StepError::StepBudgetExhausted`] (keeping
    /// the trajectory so far) when it has taken `steps` steps without reaching its end.
    /// At least 1; the default is [`DEFAULT_MAX_STEPS`].
    pub fn max_steps(mut self, steps: usize) -> Self {
        self.max_steps = steps;
        self
    }

    /// Sets the control law u(t, state). The integrators call it wherever they evaluate the
    /// dynamics (each stage of a Runge–Kutta method); the variational integrator evaluates
    /// it once per step, at the predicted midpoint, and holds it over the step. A run with
    /// both this and a [`controller`](Self::controller) fails with
    /// [`StepError::InvalidSettings`].
    pub fn inputs(mut self, law: impl FnMut(f64, &State<N>) -> SVector<f64, M> + 'a) -> Self {
        self.law.source = Source::Continuous(Box::new(law));
        self.continuous = true;
        self
    }

    /// Drives the model with a digital controller instead of a continuous law: it is called
    /// at the sample times t_k = t₀ + k·Ts (t₀ the initial time, Ts its
    /// [`period`](SampledController::period)) with the state there, and its output is held
    /// until the next sample (a zero-order hold).
    ///
    /// - Every sample time ends a step: fixed-step integrators shorten the step before it,
    ///   adaptive ones clip to it, as they do for output times; so the controller sees the
    ///   state at exactly t_k, and no step straddles a jump of the inputs.
    /// - The controller runs at every sample time the run reaches, t₀ and the end time
    ///   included, and where a stopping [`Event`] ends the run exactly at a sample time
    ///   (an event's crossing is located with the output held over the step, and a
    ///   crossing at a sample time is recorded as well as the sample taken).
    /// - The trajectory records, with each state, the inputs in effect from then on (at a
    ///   sample time, the new output) and the controller's state after its last update, in
    ///   the columns of its [`state_names`](SampledController::state_names).
    ///
    /// A run with both a controller and a continuous [`inputs`](Self::inputs) law fails with
    /// [`StepError::InvalidSettings`] (inputs the controller does not drive, such as
    /// disturbances, are added with [`disturbances`](Self::disturbances)), as does one with a period that is not positive and
    /// finite, state names that do not fit the trajectory, or a state that does not have
    /// one value per name. A period too short for the run's times to resolve (not above a
    /// few units of the spacing of the floating-point numbers at max(|t₀|, |t_end|)) is
    /// [`StepError::SamplePeriodTooShort`], and state names that change during the run
    /// [`StepError::ControllerStateNamesChanged`].
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::prelude::*;
    /// use lagrange_runtime::simulate::{DormandPrince, Sampled, Simulation};
    ///
    /// lagrangian! {
    ///     struct Mass { parameters: m = 1.0; coordinates: x; inputs: f; kinetic = m/2 * dot(x)^2; force f on x; }
    /// }
    ///
    /// // A constant force sampled every 0.25 s: the adaptive steps end on each sample.
    /// let run = Simulation::new(&Mass::default(), State::at_rest(SVector::zeros()))
    ///     .controller(Sampled::new(0.25, |_t, _s: &State<1>| SVector::from([2.0])))
    ///     .run(&DormandPrince::default(), 1.0)
    ///     .unwrap();
    /// for k in 0..=4 {
    ///     assert!(run.times().any(|t| t == 0.25 * f64::from(k)));
    /// }
    /// assert!((run.last().q[0] - 1.0).abs() < 1e-12); // x = f t²/2
    /// ```
    pub fn controller(mut self, controller: impl SampledController<N, M> + 'a) -> Self {
        self.sampler = Some(Sampler::new(Box::new(controller)));
        self
    }

    /// Adds inputs from outside the control law: disturbances (a push, a gust), a
    /// feedforward, a test signal, as a function of (t, state), evaluated wherever the
    /// dynamics are (every stage of a Runge–Kutta step, like a continuous law, so they are
    /// not held by a sampled controller's zero-order hold). The model sees their sum with
    /// the inputs of the [`inputs`](Self::inputs) law or of the
    /// [`controller`](Self::controller), and the trajectory records that sum.
    ///
    /// The law or controller leaves the inputs it does not drive at their operating value
    /// (a [`Gain`](crate::control::Gain) designed for some inputs only, by
    /// [`DrivenInputs`](crate::control::DrivenInputs), has zero rows there), and this adds
    /// to them; a sampled controller does not see them, except through the motion. A later
    /// call replaces an earlier one.
    ///
    /// # Example
    /// A mass held at 0 by a sampled PD law on its motor force `f`, and pushed by a second
    /// input `push` of 1 N from t = 1 s, which the law does not drive: the spring-like law
    /// settles at x = push / k_p.
    /// ```
    /// use lagrange_runtime::prelude::*;
    /// use lagrange_runtime::simulate::{Rk4, Sampled, Simulation};
    ///
    /// lagrangian! {
    ///     struct Mass { parameters: m = 1.0; coordinates: x; inputs: f, push; kinetic = m/2 * dot(x)^2; force f + push on x; }
    /// }
    ///
    /// let law = |_t: f64, s: &State<1>| SVector::from([-4.0 * s.q[0] - 4.0 * s.qd[0], 0.0]);
    /// let run = Simulation::new(&Mass::default(), State::at_rest(SVector::zeros()))
    ///     .controller(Sampled::new(0.01, law))
    ///     .disturbances(|t, _s| SVector::from([0.0, if t >= 1.0 { 1.0 } else { 0.0 }]))
    ///     .run(&Rk4::new(1e-3), 20.0)
    ///     .unwrap();
    /// assert!((run.last().q[0] - 0.25).abs() < 1e-6);
    /// assert!((run.inputs().last().unwrap()[1] - 1.0).abs() < 1e-15); // recorded
    /// ```
    pub fn disturbances(mut self, law: impl FnMut(f64, &State<N>) -> SVector<f64, M> + 'a) -> Self {
        self.law.added = Some(Box::new(law));
        self
    }

    /// Calls `hook` after every step, for progress bars and logs. A hook that returns
    /// [`ControlFlow::Break`] cancels the run: it ends with [`StepError::Cancelled`] and
    /// the trajectory up to the last step.
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::prelude::*;
    /// use lagrange_runtime::simulate::{Rk4, Simulation, StepError};
    /// use std::ops::ControlFlow;
    ///
    /// lagrangian! {
    ///     struct Fall { parameters: g = 9.81; coordinates: y; kinetic = dot(y)^2 / 2; potential = g * y; }
    /// }
    ///
    /// let start = State::at_rest(SVector::from([10.0]));
    /// let error = Simulation::new(&Fall::default(), start)
    ///     .progress(|p| if p.steps == 100 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) })
    ///     .run(&Rk4::new(1e-3), 60.0)
    ///     .unwrap_err();
    /// assert_eq!(error.reason, StepError::Cancelled);
    /// assert_eq!(error.trajectory.len(), 101); // the start and 100 steps
    /// ```
    pub fn progress<R: HookFlow>(mut self, mut hook: impl FnMut(Progress) -> R + 'a) -> Self {
        self.progress = Some(Box::new(move |p| hook(p).flow()));
        self
    }

    /// Integrates until `t_end`, recording a sample after every step.
    ///
    /// # Errors
    /// A [`SimulationError`] with the trajectory up to the failed step: a non-finite initial
    /// state, invalid settings of the run or the integrator, a start where the model has
    /// no accelerations ([`Dynamics::accelerations`]'s error, for every integrator) or that
    /// is off the model's constraints ([`Dynamics::check_start`]), a step that failed, or
    /// the step budget spent.
    pub fn run<I: Integrator<T, N, M>>(
        self,
        integrator: &I,
        t_end: f64,
    ) -> Result<Trajectory<N, M>, SimulationError<N, M>> {
        self.drive(integrator, &[t_end], true)
    }

    /// Integrates through the given times (ascending, not before the initial time),
    /// recording a sample exactly at each, one per entry even where a time repeats. Steps
    /// are shortened to land on them. A stopping [`Event`] ends the run with one more
    /// sample, at its crossing.
    ///
    /// # Errors
    /// A [`SimulationError`] with the samples recorded before the failed step, followed by
    /// the last state reached (at the error's `time`) where that lies between output times.
    pub fn run_at<I: Integrator<T, N, M>>(
        self,
        integrator: &I,
        times: &[f64],
    ) -> Result<Trajectory<N, M>, SimulationError<N, M>> {
        self.drive(integrator, times, false)
    }

    fn drive<I: Integrator<T, N, M>>(
        mut self,
        integrator: &I,
        times: &[f64],
        every_step: bool,
    ) -> Result<Trajectory<N, M>, SimulationError<N, M>> {
        let mut s = self.initial;
        let mut trajectory = Trajectory::new(&T::COORDINATES, &T::INPUTS);
        if let Some(units) = T::UNITS {
            trajectory = trajectory.with_units(units);
        }
        let result = self
            .check(times, &mut trajectory)
            .and_then(|()| self.steps(integrator, times, every_step, &mut s, &mut trajectory));
        match result {
            Ok(()) => Ok(trajectory),
            Err(reason) => {
                // The trajectory ends at the last state reached, also between output times
                // (unless the control law fails there, or the start itself was invalid).
                let invalid = matches!(
                    reason,
                    StepError::InvalidSettings(_) | StepError::SamplePeriodTooShort { .. }
                );
                if !invalid && is_finite(&s) {
                    let _ = self.record_last(&mut trajectory, &s);
                }
                Err(SimulationError {
                    time: s.t,
                    reason,
                    trajectory: Box::new(trajectory),
                })
            }
        }
    }

    /// The start must be finite (a NaN time would stop no loop, an infinite one would never
    /// advance), the output times usable, the budget positive and a sampled controller's
    /// settings valid (its columns are added to `trajectory`).
    fn check(&mut self, times: &[f64], trajectory: &mut Trajectory<N, M>) -> Result<(), StepError> {
        let s = &self.initial;
        check_finite(s, &SVector::zeros(), &T::COORDINATES, &T::INPUTS)?;
        let ordered = times.windows(2).all(|w| w[0] <= w[1]);
        if times.is_empty() || !ordered || times.iter().any(|t| !t.is_finite() || *t < s.t) {
            return Err(StepError::InvalidSettings(
                "output times must be given, finite, ascending and not before the initial time",
            ));
        }
        if self.max_steps == 0 {
            return Err(StepError::InvalidSettings(
                "the step budget (`Simulation::max_steps`) must be at least 1",
            ));
        }
        if let Some(sampler) = self.sampler.as_mut() {
            if self.continuous {
                return Err(StepError::InvalidSettings(
                    "a simulation takes a continuous control law (`inputs`) or a sampled controller (`controller`), not both (add other inputs beside a controller with `disturbances`)",
                ));
            }
            let end = times.last().copied().unwrap_or(s.t);
            sampler.start(s.t, end, &trajectory.column_names())?;
            trajectory.set_controller(sampler.controller.state_names());
        }
        Ok(())
    }

    /// Takes a sample of the controller if `s` is at its next sample time, holding its
    /// output from here on. Returns whether it sampled.
    fn sample(&mut self, s: &State<N>) -> Result<bool, StepError> {
        let Some(sampler) = self.sampler.as_mut() else {
            return Ok(false);
        };
        if !sampler.sample(s, &T::COORDINATES, &T::INPUTS)? {
            return Ok(false);
        }
        self.law.source = Source::Held(sampler.held);
        Ok(true)
    }

    /// The run itself, from `s` (left at the last state reached) through `times`.
    fn steps<I: Integrator<T, N, M>>(
        &mut self,
        integrator: &I,
        times: &[f64],
        every_step: bool,
        s: &mut State<N>,
        trajectory: &mut Trajectory<N, M>,
    ) -> Result<(), StepError> {
        // A sampled controller's first sample, at the start: its output drives the first
        // step. Invalid settings of the integrator leave the trajectory empty; any other
        // failure of its start, the initial state alone (see `drive`).
        self.sample(s)?;
        let model = self.model;
        let mut memory = self.law.with(|inputs| integrator.start(model, s, inputs))?;
        // Every method starts with the model's own settings valid (Baumgarte gains), on its
        // constraints, and where it has accelerations (the variational methods would
        // otherwise invent a motion for undetermined ones, or fail in Newton's method
        // without saying why).
        let u = self.law.at(s);
        check_finite(s, &u, &T::COORDINATES, &T::INPUTS)?;
        self.model.check_start(s, &u).map_err(|e| match e {
            DynamicsError::InvalidSetting(why) => StepError::InvalidSettings(why),
            e => StepError::Dynamics(e),
        })?;
        self.model.accelerations(s, &u)?;
        if every_step {
            self.record(trajectory, s)?;
        }
        let mut progress = Progress {
            t: s.t,
            t_start: s.t,
            t_end: times.last().copied().unwrap_or(s.t),
            steps: 0,
        };
        // The last nonzero value of each event function: a zero at the start is no crossing.
        let mut signs: Vec<f64> = self
            .events
            .iter_mut()
            .map(|e| number(e.name, s.t, (e.function)(s.t, s)))
            .collect::<Result<_, _>>()?;
        if let Some(check) = self.failed_at_start(&signs) {
            return Err(StepError::CheckFailed { check, t: s.t });
        }
        for &t_out in times {
            while s.t < t_out {
                if progress.steps == self.max_steps {
                    return Err(StepError::StepBudgetExhausted {
                        steps: self.max_steps,
                    });
                }
                // Steps end on the sample times too.
                let t_max = self.sampler.as_ref().map_or(t_out, |c| c.next.min(t_out));
                let mut next = self
                    .law
                    .with(|inputs| integrator.step(model, &mut memory, s, inputs, t_max))?;
                if !is_finite(&next) {
                    return Err(StepError::NonFiniteState);
                }
                if !(next.t > s.t && next.t <= t_max) {
                    return Err(StepError::InvalidSettings(
                        "an integrator's step must end after its start and not past the output time (or sample time) it is given",
                    ));
                }
                let stop = self.events_in_step(s, &mut next, &mut signs, trajectory)?;
                *s = next;
                if self.sample(s)? {
                    integrator.inputs_changed(&mut memory);
                }
                if let Some((crossing, failed)) = stop {
                    self.record(trajectory, s)?;
                    trajectory.stop_at(crossing);
                    progress.t = s.t;
                    progress.steps += 1;
                    if let Some(hook) = self.progress.as_mut() {
                        let _ = hook(progress); // the run ends here either way
                    }
                    return match failed {
                        Some(check) => Err(StepError::CheckFailed { check, t: s.t }),
                        None => Ok(()),
                    };
                }
                if every_step {
                    self.record(trajectory, s)?;
                }
                progress.t = s.t;
                progress.steps += 1;
                if let Some(hook) = self.progress.as_mut()
                    && hook(progress).is_break()
                {
                    return Err(StepError::Cancelled);
                }
            }
            if !every_step {
                // Steps land exactly on output times; a repeated time gets its own sample.
                self.record(trajectory, s)?;
            }
        }
        Ok(())
    }

    /// Records `s` unless it is already the last sample.
    fn record_last(
        &mut self,
        trajectory: &mut Trajectory<N, M>,
        s: &State<N>,
    ) -> Result<(), StepError> {
        if trajectory.states().last().is_none_or(|last| last.t < s.t) {
            self.record(trajectory, s)?;
        }
        Ok(())
    }

    /// Records `s` with the control law's inputs there, which must be finite, and a sampled
    /// controller's state.
    fn record(&mut self, trajectory: &mut Trajectory<N, M>, s: &State<N>) -> Result<(), StepError> {
        let u = self.law.at(s);
        check_finite(s, &u, &T::COORDINATES, &T::INPUTS)?;
        let energy = self.model.energy(s, &u);
        match &self.sampler {
            Some(sampler) => {
                sampler.check_state(s.t)?;
                trajectory.push_sampled(*s, u, energy, sampler.controller.state());
            }
            None => trajectory.push(*s, u, energy),
        }
        Ok(())
    }
}

fn is_finite<const N: usize>(s: &State<N>) -> bool {
    s.t.is_finite() && s.q.iter().chain(s.qd.iter()).all(|x| x.is_finite())
}
