//! The classic fourth-order Runge–Kutta method.

use super::{Inputs, Integrator, StepError};
use crate::{Dynamics, State};
use nalgebra::SVector;

/// Classic fixed-step Runge–Kutta of order 4 on (q, q̇). The control law is evaluated at
/// each of the four stages. A step that would pass an output time is shortened to end on it.
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

type Slope<const N: usize> = (SVector<f64, N>, SVector<f64, N>);

/// (q̇, q̈) at `s`, the control law evaluated there.
pub(crate) fn slope<T: Dynamics<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    inputs: &mut Inputs<'_, N, M>,
) -> Result<Slope<N>, StepError> {
    let u = inputs(s.t, s);
    Ok((s.qd, model.accelerations(s, &u)?))
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

/// The step to take from `t` toward `t_max` with step `h`, and the time it ends at:
/// exactly `t_max` when the step reaches it (or would leave a sliver shorter than a
/// hundredth of a step before it). The step returned is the gap between the two times as
/// represented, so that a state is integrated over exactly the time its label advances
/// (at t = 10¹⁷, t + 10 is t + 16).
pub(crate) fn clip(t: f64, h: f64, t_max: f64) -> (f64, f64) {
    let t_next = if t_max - t <= h * 1.01 { t_max } else { t + h };
    (t_next - t, t_next)
}

/// [`clip`] for a fixed-step method, which cannot shrink its step: a step too small to
/// change the time (h below the spacing of floating-point numbers at t) is an error instead
/// of an endless loop.
pub(crate) fn fixed_step(t: f64, h: f64, t_max: f64) -> Result<(f64, f64), StepError> {
    let (gap, t_next) = clip(t, h, t_max);
    if t_next > t {
        Ok((gap, t_next))
    } else {
        Err(StepError::StepSizeUnderflow { step: h })
    }
}
