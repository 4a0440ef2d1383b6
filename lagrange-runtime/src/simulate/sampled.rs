//! Sampled controllers: a digital controller with its own state, called at the sample
//! times t₀ + k·Ts, whose output a zero-order hold keeps until the next sample.

use super::StepError;
use crate::eval::check_finite;
use crate::tolerances::SAMPLE_RESOLUTION;
use crate::State;
use nalgebra::SVector;

/// A digital controller: at every sample time t_k = t₀ + k·Ts of a
/// [`Simulation`](super::Simulation) (t₀ its initial time) it reads the plant's state,
/// updates its own state (an integrator, an observer, a filter) and returns the inputs,
/// which the simulation holds constant until the next sample (a zero-order hold).
///
/// The controller's state is recorded with every sample of the trajectory, one column per
/// name of [`state_names`](Self::state_names) (in the CSV, through serde, and by
/// [`Trajectory::column`](super::Trajectory::column)). Both default to nothing, so a
/// stateless law needs only [`period`](Self::period) and [`update`](Self::update) (or
/// [`Sampled::new`] around a closure).
///
/// `&mut C` is a controller when `C` is, so a simulation can borrow one and leave it to be
/// read (or run on) afterwards.
///
/// # Example
/// An integral controller at 100 Hz, u_k = −z_k with z_k = Σ_{j ≤ k} x_j Ts, holding a
/// damped mass on a spring at 0 against a constant push (the closed loop
/// ẍ + 3ẋ + 3x + ∫x = 1 has the triple pole −1); its integral is the trajectory's column
/// `z`.
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::simulate::{Rk4, SampledController, Simulation};
///
/// lagrangian! {
///     struct Spring {
///         parameters: m = 1.0, k = 3.0, c = 3.0;
///         coordinates: x;
///         inputs: f;
///         kinetic = m/2 * dot(x)^2;
///         potential = k/2 * x^2;
///         dissipation = c/2 * dot(x)^2;
///         force f + 1.0 on x; // a constant push of 1 N besides the controller's force f
///     }
/// }
///
/// struct Integral { z: [f64; 1] }
///
/// impl SampledController<1, 1> for Integral {
///     fn period(&self) -> f64 { 0.01 }
///     fn update(&mut self, _t: f64, s: &State<1>) -> SVector<f64, 1> {
///         self.z[0] += s.q[0] * 0.01;
///         SVector::from([-self.z[0]])
///     }
///     fn state_names(&self) -> &[&str] { &["z"] }
///     fn state(&self) -> &[f64] { &self.z }
/// }
///
/// let run = Simulation::new(&Spring::default(), State::at_rest(SVector::zeros()))
///     .controller(Integral { z: [0.0] })
///     .run(&Rk4::new(1e-3), 30.0)
///     .unwrap();
/// assert!(run.last().q[0].abs() < 1e-6); // the integral action removes the offset
/// let z = run.column("z").unwrap();
/// assert!((z.last().unwrap() - 1.0).abs() < 1e-6); // f = −z = −1 N cancels the push
/// ```
pub trait SampledController<const N: usize, const M: usize> {
    /// The sample period Ts, positive and finite, and above 4 spacings of the
    /// floating-point numbers at the run's largest |t| (checked when a run starts, which
    /// reads it once: a shorter period gives sample times that do not advance).
    fn period(&self) -> f64;

    /// The controller's step at the sample time `t` with the plant's state `s` there: it
    /// updates the controller's state and returns the inputs to hold until the next sample.
    fn update(&mut self, t: f64, s: &State<N>) -> SVector<f64, M>;

    /// The names of the controller's state variables, the columns the trajectory records
    /// them in: distinct, none empty or holding a comma, a quote or a line break, and none
    /// a column the trajectory already has (`t`, `energy`, a coordinate, `dot(…)`, an
    /// input). None by default.
    fn state_names(&self) -> &[&str] {
        &[]
    }

    /// The controller's state after its last update, one value per name of
    /// [`state_names`](Self::state_names). None by default.
    fn state(&self) -> &[f64] {
        &[]
    }
}

impl<C: SampledController<N, M> + ?Sized, const N: usize, const M: usize> SampledController<N, M>
    for &mut C
{
    fn period(&self) -> f64 {
        (**self).period()
    }

    fn update(&mut self, t: f64, s: &State<N>) -> SVector<f64, M> {
        (**self).update(t, s)
    }

    fn state_names(&self) -> &[&str] {
        (**self).state_names()
    }

    fn state(&self) -> &[f64] {
        (**self).state()
    }
}

/// A law u(t, state) evaluated only at the sample times and held in between: a
/// [`SampledController`] whose state, if any, lives in the closure and is not recorded.
///
/// # Example
/// A discrete state feedback at 50 Hz on a mass pushed along a line: the input is constant
/// between samples, so the trajectory's force is a staircase.
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::simulate::{Rk4, Sampled, Simulation};
///
/// lagrangian! {
///     struct Mass { parameters: m = 1.0; coordinates: x; inputs: f; kinetic = m/2 * dot(x)^2; force f on x; }
/// }
///
/// let start = State::at_rest(SVector::from([1.0]));
/// let run = Simulation::new(&Mass::default(), start)
///     .controller(Sampled::new(0.02, |_t, s: &State<1>| SVector::from([-s.q[0] - 2.0 * s.qd[0]])))
///     .run(&Rk4::new(0.005), 0.1)
///     .unwrap();
/// let f = run.column("f").unwrap();
/// assert_eq!(f[0], -1.0); // the sample at t = 0 …
/// assert_eq!(f[3], -1.0); // … is held until t = 0.02
/// assert!(f[4] > -1.0); // the next sample sees the mass moved and moving
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Sampled<F> {
    period: f64,
    law: F,
}

impl<F> Sampled<F> {
    /// `law` sampled every `period` (checked, as every setting, when a run starts: positive
    /// and finite, and long enough for the run's times to resolve, see
    /// [`SampledController::period`]).
    pub fn new(period: f64, law: F) -> Self {
        Sampled { period, law }
    }
}

impl<F, const N: usize, const M: usize> SampledController<N, M> for Sampled<F>
where
    F: FnMut(f64, &State<N>) -> SVector<f64, M>,
{
    fn period(&self) -> f64 {
        self.period
    }

    fn update(&mut self, t: f64, s: &State<N>) -> SVector<f64, M> {
        (self.law)(t, s)
    }
}

/// A sampled controller in a run: its clock and the output it holds.
pub(crate) struct Sampler<'a, const N: usize, const M: usize> {
    pub(crate) controller: Box<dyn SampledController<N, M> + 'a>,
    /// The state names when the run started: the trajectory's columns.
    names: Vec<String>,
    /// t₀ and Ts, read when the run starts.
    t0: f64,
    period: f64,
    /// The index k of the next sample, and its time t₀ + k·Ts (never accumulated, so the
    /// sample times do not drift).
    k: u64,
    pub(crate) next: f64,
    /// The output held since the last sample.
    pub(crate) held: SVector<f64, M>,
}

impl<'a, const N: usize, const M: usize> Sampler<'a, N, M> {
    pub(crate) fn new(controller: Box<dyn SampledController<N, M> + 'a>) -> Self {
        Sampler {
            controller,
            names: Vec::new(),
            t0: 0.0,
            period: 0.0,
            k: 0,
            next: 0.0,
            held: SVector::zeros(),
        }
    }

    /// Checks the controller's settings against the trajectory's other `columns` and the
    /// run's times from `t0` to `end`, and sets the clock to sample first at `t0`.
    ///
    /// The period must exceed [`SAMPLE_RESOLUTION`] times the spacing u of the
    /// floating-point numbers at max(|t₀|, |t_end|), the coarsest along the run, so that the
    /// rounded sample times t₀ + k·Ts keep increasing (see [`SAMPLE_RESOLUTION`]). A shorter
    /// period
    /// (5e-324 from t₀ = 0 to t_end = 1, where the times are 2.2e-16 apart) could only
    /// spend the step budget on samples that do not move.
    pub(crate) fn start(&mut self, t0: f64, end: f64, columns: &[String]) -> Result<(), StepError> {
        let period = self.controller.period();
        if !(period.is_finite() && period > 0.0) {
            return Err(StepError::InvalidSettings(
                "the sample period of a sampled controller must be positive and finite",
            ));
        }
        let resolution = spacing(t0.abs().max(end.abs()));
        if period <= SAMPLE_RESOLUTION * resolution {
            return Err(StepError::SamplePeriodTooShort { period, resolution });
        }
        let names = self.controller.state_names();
        let usable = names.iter().enumerate().all(|(i, name)| {
            !name.is_empty()
                && !name.contains([',', '"', '\n', '\r'])
                && !names[..i].contains(name)
                && !columns.iter().any(|c| c == name)
        });
        if !usable {
            return Err(StepError::InvalidSettings(
                "the state names of a sampled controller must be distinct, not empty, without a comma, quote or line break, and not those of other columns (`t`, `energy`, a coordinate, `dot(…)`, an input)",
            ));
        }
        self.names = names.iter().map(|name| name.to_string()).collect();
        self.check_state(t0)?;
        (self.t0, self.period, self.k, self.next) = (t0, period, 0, t0);
        Ok(())
    }

    /// Whether the controller's state names at `t` are still those the run started with
    /// (the trajectory's columns) and its state has one value per name.
    pub(crate) fn check_state(&self, t: f64) -> Result<(), StepError> {
        let names = self.controller.state_names();
        if names.len() != self.names.len() || names.iter().zip(&self.names).any(|(a, b)| a != b) {
            return Err(StepError::ControllerStateNamesChanged {
                before: self.names.clone(),
                after: names.iter().map(|name| name.to_string()).collect(),
                t,
            });
        }
        if self.controller.state().len() == names.len() {
            Ok(())
        } else {
            Err(StepError::InvalidSettings(
                "a sampled controller's state must have one value per state name",
            ))
        }
    }

    /// At a sample time (`s.t` has reached the next one): the controller's update, whose
    /// output is held from here on, and the next sample time. Returns whether it sampled.
    ///
    /// # Errors
    /// An output that is not finite (naming the input), or a period too short to advance
    /// the time at its precision.
    pub(crate) fn sample(
        &mut self,
        s: &State<N>,
        coordinates: &[&'static str; N],
        inputs: &[&'static str; M],
    ) -> Result<bool, StepError> {
        if s.t < self.next {
            return Ok(false);
        }
        let u = self.controller.update(s.t, s);
        check_finite(s, &u, coordinates, inputs)?;
        self.check_state(s.t)?;
        self.held = u;
        self.k += 1;
        // Exact for k below 2⁵³, far beyond any step budget.
        let next = self.t0 + self.k as f64 * self.period;
        if next <= s.t {
            // Ruled out by the check at the start, unless the run goes past its end time.
            return Err(StepError::SamplePeriodTooShort {
                period: self.period,
                resolution: spacing(s.t.abs()),
            });
        }
        self.next = next;
        Ok(true)
    }
}

/// The spacing of the floating-point numbers at |t| = `t` ≥ 0: the distance from `t` to the
/// next larger one (5e-324 at 0).
fn spacing(t: f64) -> f64 {
    if t.is_finite() {
        f64::from_bits(t.to_bits() + 1) - t
    } else {
        f64::INFINITY
    }
}
