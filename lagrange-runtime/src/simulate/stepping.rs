//! Helpers every integrator steps with: the slope (q̇, q̈) of the state, and where a step
//! ends when an output time or the end of the run is near.

use super::{Inputs, StepError};
use crate::{Dynamics, State};
use nalgebra::SVector;

/// The derivative (q̇, q̈) of a state.
pub(crate) type Slope<const N: usize> = (SVector<f64, N>, SVector<f64, N>);

/// (q̇, q̈) at `s`, the control law evaluated there.
pub(crate) fn slope<T: Dynamics<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    inputs: &mut Inputs<'_, N, M>,
) -> Result<Slope<N>, StepError> {
    let u = inputs(s.t, s);
    Ok((s.qd, model.accelerations(s, &u)?))
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
