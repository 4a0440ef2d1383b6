//! The adaptive Dormand–Prince 5(4) method.

use super::stepping::{clip, slope, Slope};
use super::{Inputs, Integrator, StepError};
use crate::{Dynamics, DynamicsError, State};
use nalgebra::SVector;

/// Adaptive explicit Runge–Kutta: the Dormand–Prince 5(4) pair (the method of MATLAB's
/// `ode45`), advancing with the fifth-order solution and controlling the step with the
/// embedded fourth-order one.
///
/// A step is accepted when the error estimate, scaled component-wise by
/// `atol + rtol·|y|` over y = (q, q̇), has a root-mean-square norm of at most 1. Steps are
/// shortened to land exactly on output times, so samples are exact, not interpolated.
///
/// # Example
/// Tolerances and a largest step, with samples exactly at the times asked for
/// ([`Simulation::run_at`](super::Simulation::run_at)):
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::simulate::{DormandPrince, Simulation};
///
/// lagrangian! {
///     struct Oscillator { parameters: m = 1.0, k = 4.0; coordinates: x; kinetic = m/2 * dot(x)^2; potential = k/2 * x^2; }
/// }
///
/// let method = DormandPrince { max_step: 0.05, ..DormandPrince::new(1e-10, 1e-12) };
/// let times = [0.5, 1.0, 1.5];
/// let start = State::at_rest(SVector::from([1.0]));
/// let run = Simulation::new(&Oscillator::default(), start).run_at(&method, &times).unwrap();
/// assert_eq!(run.times().collect::<Vec<_>>(), times); // one sample at each, and only there
/// for s in run.states() {
///     assert!((s.q[0] - (2.0 * s.t).cos()).abs() < 1e-9); // x = cos 2t
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DormandPrince {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance. May be 0 for pure relative error control (then `rtol` must be
    /// positive); a component that stays exactly 0 is then held to exactly 0 error.
    pub atol: f64,
    /// First step to try; chosen from the problem's scales when `None`.
    pub initial_step: Option<f64>,
    /// Largest step allowed.
    pub max_step: f64,
}

impl DormandPrince {
    /// Tolerances `rtol` and `atol`, everything else automatic.
    pub fn new(rtol: f64, atol: f64) -> Self {
        DormandPrince {
            rtol,
            atol,
            initial_step: None,
            max_step: f64::INFINITY,
        }
    }
}

impl Default for DormandPrince {
    /// `rtol = 1e-8`, `atol = 1e-10`.
    fn default() -> Self {
        DormandPrince::new(
            crate::tolerances::DORMAND_PRINCE.0,
            crate::tolerances::DORMAND_PRINCE.1,
        )
    }
}

use crate::tolerances::{
    DORMAND_PRINCE_SAFETY as SAFETY, DORMAND_PRINCE_STEP_CHANGE as STEP_CHANGE, STARTING_STEP,
    STARTING_STEP_FLAT, STARTING_STEP_FLOOR, STARTING_STEP_NEGLIGIBLE, STEP_UNDERFLOW as UNDERFLOW,
};

/// What [`DormandPrince`] keeps between steps (its [`Integrator::Memory`]): the step size
/// it has adapted to, and the last stage of the last step (first same as last).
#[derive(Debug, Clone, Copy)]
pub struct DormandPrinceMemory<const N: usize> {
    /// The step size to try next.
    h: f64,
    /// The slope at the start of the next step (first same as last) and the state it
    /// belongs to: reused only from that very state (not from one a wrapper such as
    /// `Projected` has moved).
    k1: Option<(State<N>, Slope<N>)>,
}

// The Dormand–Prince tableau.
const C: [f64; 7] = [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0];
const A: [[f64; 6]; 7] = [
    [0.0; 6],
    [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0],
    [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0],
    [
        19372.0 / 6561.0,
        -25360.0 / 2187.0,
        64448.0 / 6561.0,
        -212.0 / 729.0,
        0.0,
        0.0,
    ],
    [
        9017.0 / 3168.0,
        -355.0 / 33.0,
        46732.0 / 5247.0,
        49.0 / 176.0,
        -5103.0 / 18656.0,
        0.0,
    ],
    [
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
    ],
];
/// Fifth-order weights minus the embedded fourth-order ones.
const E: [f64; 7] = [
    71.0 / 57600.0,
    0.0,
    -71.0 / 16695.0,
    71.0 / 1920.0,
    -17253.0 / 339200.0,
    22.0 / 525.0,
    -1.0 / 40.0,
];

impl DormandPrince {
    fn check(&self) -> Result<(), StepError> {
        let positive = |x: f64| x.is_finite() && x > 0.0;
        let tolerances = self.rtol >= 0.0 && self.atol >= 0.0 && self.rtol + self.atol > 0.0;
        if !tolerances || !self.rtol.is_finite() || !self.atol.is_finite() {
            return Err(StepError::InvalidSettings(
                "Dormand-Prince tolerances must be finite, non-negative and not both zero",
            ));
        }
        if self.max_step.is_nan()
            || self.max_step <= 0.0
            || self.initial_step.is_some_and(|h| !positive(h))
        {
            return Err(StepError::InvalidSettings(
                "Dormand-Prince step sizes must be positive",
            ));
        }
        Ok(())
    }

    /// Root-mean-square of `e` scaled by `atol + rtol·max(|y0|, |y1|)`, each scale at least
    /// `floor`. A component whose scale is zero (`atol = 0` and y exactly zero) counts
    /// nothing when its error is zero and infinitely much otherwise.
    fn norm<const N: usize>(&self, e: &Slope<N>, y0: &State<N>, y1: &Slope<N>, floor: f64) -> f64 {
        let parts = [(&e.0, &y0.q, &y1.0), (&e.1, &y0.qd, &y1.1)];
        let mut sum = 0.0;
        for (e, a, b) in parts {
            for i in 0..N {
                let scale = (self.atol + self.rtol * a[i].abs().max(b[i].abs())).max(floor);
                if e[i] != 0.0 {
                    sum += (e[i] / scale).powi(2);
                }
            }
        }
        (sum / (2 * N).max(1) as f64).sqrt()
    }

    /// The starting step of Hairer, Nørsett & Wanner (Solving ODEs I, II.4).
    fn initial<T: Dynamics<N, M>, const N: usize, const M: usize>(
        &self,
        model: &T,
        s: &State<N>,
        k1: &Slope<N>,
        inputs: &mut Inputs<'_, N, M>,
    ) -> Result<f64, StepError> {
        let zero = (SVector::zeros(), SVector::zeros());
        // Without an absolute tolerance, a component at zero would have no scale: measure
        // it against the state's largest component (or 1) instead.
        let floor = if self.atol > 0.0 {
            0.0
        } else {
            let largest = s.q.amax().max(s.qd.amax());
            self.rtol * if largest > 0.0 { largest } else { 1.0 }
        };
        let d0 = self.norm(&(s.q, s.qd), s, &zero, floor);
        let d1 = self.norm(k1, s, &zero, floor);
        let h0 = if d0 < STARTING_STEP_NEGLIGIBLE || d1 < STARTING_STEP_NEGLIGIBLE {
            STARTING_STEP
        } else {
            0.01 * d0 / d1
        };
        // Extreme tolerances overflow the norms: fall back to the small default.
        let h0 = if h0.is_finite() && h0 > 0.0 {
            h0
        } else {
            STARTING_STEP
        };
        let s1 = State::new(s.t + h0, s.q + k1.0 * h0, s.qd + k1.1 * h0);
        let k2 = slope(model, &s1, inputs)?;
        let d2 = self.norm(&(k2.0 - k1.0, k2.1 - k1.1), s, &zero, floor) / h0;
        let h1 = if d1.max(d2) <= STARTING_STEP_FLAT {
            (h0 * 1e-3).max(STARTING_STEP)
        } else {
            (0.01 / d1.max(d2)).powf(1.0 / 5.0)
        };
        let h = (100.0 * h0).min(h1).min(self.max_step);
        // A tolerance far below a component's size (atol = 1e-100 on a velocity starting
        // at 0) gives a vanishing estimate: start instead from a step well above the
        // time's precision, which the error control shortens or grows from there.
        let floor = STARTING_STEP_FLOOR * UNDERFLOW * s.t.abs().max(1.0);
        Ok(if h >= floor {
            h
        } else {
            floor.min(self.max_step)
        })
    }
}

impl<T: Dynamics<N, M>, const N: usize, const M: usize> Integrator<T, N, M> for DormandPrince {
    type Memory = DormandPrinceMemory<N>;

    fn start(
        &self,
        model: &T,
        s: &State<N>,
        inputs: &mut Inputs<'_, N, M>,
    ) -> Result<DormandPrinceMemory<N>, StepError> {
        self.check()?;
        let k1 = slope(model, s, inputs)?;
        let h = match self.initial_step {
            Some(h) => h.min(self.max_step),
            None => self.initial(model, s, &k1, inputs)?,
        };
        Ok(DormandPrinceMemory {
            h,
            k1: Some((*s, k1)),
        })
    }

    fn step(
        &self,
        model: &T,
        memory: &mut DormandPrinceMemory<N>,
        s: &State<N>,
        inputs: &mut Inputs<'_, N, M>,
        t_max: f64,
    ) -> Result<State<N>, StepError> {
        let k1 = match memory.k1 {
            Some((at, k)) if at == *s => k,
            _ => slope(model, s, inputs)?,
        };
        // Why the last trial step was rejected, when it was not its error estimate: the
        // cause to report if the step size underflows.
        let mut cause = None;
        loop {
            // Underflow is judged on the step the controller proposes; the step actually
            // taken may be much shorter only because it lands on an output time.
            if memory.h <= UNDERFLOW * s.t.abs().max(1.0) {
                return Err(cause.unwrap_or(StepError::StepSizeUnderflow { step: memory.h }));
            }
            let (h, t_next) = clip(s.t, memory.h, t_max);
            let mut k = [k1; 7];
            let mut rejected = false;
            for i in 1..7 {
                let (mut dq, mut dv) = (SVector::zeros(), SVector::zeros());
                for j in 0..i {
                    dq += k[j].0 * (A[i][j] * h);
                    dv += k[j].1 * (A[i][j] * h);
                }
                let stage = State::new(s.t + C[i] * h, s.q + dq, s.qd + dv);
                match slope(model, &stage, inputs) {
                    Ok(slope) => k[i] = slope,
                    // A trial stage outside the model's domain (a square root of a negative
                    // number, a singular configuration) or the control law's: retry with a
                    // shorter step, and name this cause if no step is short enough.
                    Err(
                        e @ StepError::Dynamics(
                            DynamicsError::NonFiniteResult { .. }
                            | DynamicsError::NonFiniteState { .. },
                        ),
                    ) => {
                        cause = Some(e);
                        rejected = true;
                        break;
                    }
                    Err(e) => return Err(e),
                }
            }
            if rejected {
                memory.h = h * STEP_CHANGE.0;
                continue;
            }
            // The last row of A holds the fifth-order weights: the seventh stage is the
            // slope at the new solution, reused as the next step's first (FSAL).
            let (mut dq, mut dv) = (SVector::zeros(), SVector::zeros());
            for j in 0..6 {
                dq += k[j].0 * (A[6][j] * h);
                dv += k[j].1 * (A[6][j] * h);
            }
            let (mut eq, mut ev) = (SVector::zeros(), SVector::zeros());
            for j in 0..7 {
                eq += k[j].0 * (E[j] * h);
                ev += k[j].1 * (E[j] * h);
            }
            let y1 = (s.q + dq, s.qd + dv);
            let err = self.norm(&(eq, ev), s, &y1, 0.0);
            if !err.is_finite() {
                cause = None;
                memory.h = h * STEP_CHANGE.0;
                continue;
            }
            let factor = if err == 0.0 {
                STEP_CHANGE.1
            } else {
                SAFETY * err.powf(-0.2)
            };
            if err <= 1.0 {
                // A step shortened to land on an output time says nothing about how
                // long the next may be, except when it asks for a shorter one.
                if t_next != t_max || factor < 1.0 {
                    memory.h = (h * factor.clamp(STEP_CHANGE.0, STEP_CHANGE.1)).min(self.max_step);
                }
                let next = State::new(t_next, y1.0, y1.1);
                memory.k1 = Some((next, k[6]));
                return Ok(next);
            }
            cause = None;
            memory.h = h * factor.clamp(STEP_CHANGE.0, 1.0);
        }
    }
    /// The slope kept for the next step (first same as last) was evaluated with the old
    /// inputs; the step size stays.
    fn inputs_changed(&self, memory: &mut DormandPrinceMemory<N>) {
        memory.k1 = None;
    }
}
