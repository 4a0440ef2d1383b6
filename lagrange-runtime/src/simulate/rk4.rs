//! The classic fourth-order Runge–Kutta method.

use super::stepping::{fixed_step, slope, Slope};
use super::{Inputs, Integrator, StepError};
use crate::{Dynamics, State};

/// Classic fixed-step Runge–Kutta of order 4 on (q, q̇). The control law is evaluated at
/// each of the four stages. A step that would pass an output time is shortened to end on it.
///
/// # Example
/// Order 4: halving the step divides the error by 2⁴.
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::simulate::{Rk4, Simulation};
///
/// lagrangian! {
///     struct Oscillator { parameters: m = 1.0, k = 4.0; coordinates: x; kinetic = m/2 * dot(x)^2; potential = k/2 * x^2; }
/// }
///
/// let error = |step: f64| {
///     let start = State::at_rest(SVector::from([1.0]));
///     let run = Simulation::new(&Oscillator::default(), start).run(&Rk4::new(step), 1.0).unwrap();
///     (run.last().q[0] - 2f64.cos()).abs() // x = cos 2t
/// };
/// let ratio = error(0.02) / error(0.01);
/// assert!((ratio - 16.0).abs() < 0.5, "{ratio}");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rk4 {
    /// The step size h.
    pub step: f64,
}

impl Rk4 {
    /// Step `step` (checked, as every setting, when a run starts: positive and finite).
    pub fn new(step: f64) -> Self {
        Rk4 { step }
    }
}

impl<T: Dynamics<N, M>, const N: usize, const M: usize> Integrator<T, N, M> for Rk4 {
    type Memory = ();

    fn start(&self, _: &T, _: &State<N>, _: &mut Inputs<'_, N, M>) -> Result<(), StepError> {
        if self.step.is_finite() && self.step > 0.0 {
            Ok(())
        } else {
            Err(StepError::InvalidSettings(
                "the RK4 step must be positive and finite",
            ))
        }
    }

    fn step(
        &self,
        model: &T,
        _: &mut (),
        s: &State<N>,
        inputs: &mut Inputs<'_, N, M>,
        t_max: f64,
    ) -> Result<State<N>, StepError> {
        let (h, t_next) = fixed_step(s.t, self.step, t_max)?;
        let at = |(dq, dv): Slope<N>, c: f64| {
            State::new(s.t + c * h, s.q + dq * (c * h), s.qd + dv * (c * h))
        };
        let k1 = slope(model, s, inputs)?;
        let k2 = slope(model, &at(k1, 0.5), inputs)?;
        let k3 = slope(model, &at(k2, 0.5), inputs)?;
        let k4 = slope(model, &at(k3, 1.0), inputs)?;
        let w = h / 6.0;
        Ok(State::new(
            t_next,
            s.q + (k1.0 + (k2.0 + k3.0) * 2.0 + k4.0) * w,
            s.qd + (k1.1 + (k2.1 + k3.1) * 2.0 + k4.1) * w,
        ))
    }
}
