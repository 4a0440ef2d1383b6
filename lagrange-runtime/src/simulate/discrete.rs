//! The discrete mechanics the variational integrators share: the discrete Lagrangian of
//! a step and its derivatives ([`Step`]), the discrete momentum carried between steps
//! ([`VariationalMemory`]) and the checks of their settings. [`Variational`](super::Variational)
//! solves the discrete Euler–Lagrange equations alone, [`Rattle`](super::Rattle) with
//! holonomic constraints.

use super::{Inputs, StepError};
use crate::eval;
use crate::jacobian_seed::forward_jacobian;
use crate::model::{Gradient, Point};
use crate::model::{Model, Scalar};
use crate::State;
use nalgebra::{SMatrix, SVector};
use std::array::from_fn;

/// What [`Variational`](super::Variational) and [`Rattle`](super::Rattle) keep between steps (their
/// [`Integrator::Memory`](super::Integrator::Memory)): the discrete momentum carried from step to step, and the last
/// step's mean acceleration (to predict the next positions and the midpoint state for the
/// control law).
#[derive(Debug, Clone, Copy)]
pub struct VariationalMemory<const N: usize> {
    pub(crate) p: SVector<f64, N>,
    pub(crate) acceleration: SVector<f64, N>,
}

impl<const N: usize> VariationalMemory<N> {
    /// The memory at the start of a run: the continuous momentum ∂L/∂q̇ at `s`.
    pub(crate) fn start<T: Model<N, M>, const M: usize>(
        model: &T,
        s: &State<N>,
        inputs: &mut Inputs<'_, N, M>,
    ) -> Result<Self, StepError> {
        let u = inputs(s.t, s);
        eval::check_state::<T, N, M>(s, &u)?;
        Ok(VariationalMemory {
            p: eval::momenta(model, s, &u),
            acceleration: SVector::zeros(),
        })
    }

    /// The control law's inputs for a step of length `h` from `s`, checked: evaluated at
    /// the midpoint time and the midpoint state predicted from the last step's
    /// acceleration.
    pub(crate) fn midpoint_inputs<T: Model<N, M>, const M: usize>(
        &self,
        s: &State<N>,
        h: f64,
        inputs: &mut Inputs<'_, N, M>,
    ) -> Result<SVector<f64, M>, StepError> {
        eval::check_state::<T, N, M>(s, &SVector::zeros())?;
        let a = self.acceleration;
        let predicted = State::new(
            s.t + 0.5 * h,
            s.q + s.qd * (0.5 * h) + a * (0.125 * h * h),
            s.qd + a * (0.5 * h),
        );
        let u = inputs(predicted.t, &predicted);
        eval::check_state::<T, N, M>(s, &u)?;
        Ok(u)
    }

    /// Records a step of length `h` from `s` to `next` with new momentum `p`.
    pub(crate) fn advance(&mut self, s: &State<N>, next: &State<N>, p: SVector<f64, N>, h: f64) {
        self.acceleration = (next.qd - s.qd) / h;
        self.p = p;
    }
}

/// Rejects a step that is not positive and finite, a tolerance outside (0, 1), and zero
/// iterations, naming the setting.
pub(crate) fn check_settings(
    step: f64,
    tolerance: f64,
    max_iterations: usize,
) -> Result<(), StepError> {
    let why = if !(step.is_finite() && step > 0.0) {
        "the step of a variational integrator must be positive and finite"
    } else if !(tolerance > 0.0 && tolerance < 1.0) {
        // A relative tolerance of 1 or more accepts the first guess: nothing is solved.
        "the Newton tolerance of a variational integrator must be positive and below 1"
    } else if max_iterations == 0 {
        "a variational integrator needs at least 1 Newton iteration"
    } else {
        return Ok(());
    };
    Err(StepError::InvalidSettings(why))
}

/// One step's data: the model, its start and length, and the held inputs.
pub(crate) struct Step<'a, T, const N: usize, const M: usize> {
    pub(crate) model: &'a T,
    pub(crate) t: f64,
    pub(crate) h: f64,
    pub(crate) q0: SVector<f64, N>,
    pub(crate) u: SVector<f64, M>,
}

/// The discrete Euler–Lagrange terms at (q₀, q₁): D₁L_d, D₂L_d and (h/2) Q.
pub(crate) struct Discrete<const N: usize> {
    pub(crate) d1: SVector<f64, N>,
    pub(crate) d2: SVector<f64, N>,
    pub(crate) forces: SVector<f64, N>,
}

impl<T: Model<N, M>, const N: usize, const M: usize> Step<'_, T, N, M> {
    /// The model's [`Gradient`] at the midpoint of (q₀, q₁), in any scalar.
    fn gradient<S: Scalar>(&self, q1: &[S; N]) -> Gradient<N, S> {
        let x = Point {
            t: S::from(self.t + 0.5 * self.h),
            q: from_fn(|i| (q1[i] + self.q0[i]) * 0.5),
            qd: from_fn(|i| (q1[i] - self.q0[i]) * (1.0 / self.h)),
            u: self.u.map(S::from).into(),
        };
        self.model.eval_gradient_in(&x)
    }

    /// With L_d = h L(m, v), m = (q₀ + q₁)/2, v = (q₁ − q₀)/h:
    /// D₁L_d = (h/2) ∂L/∂q − ∂L/∂q̇ and D₂L_d = (h/2) ∂L/∂q + ∂L/∂q̇ at (m, v).
    pub(crate) fn discrete(&self, q1: &SVector<f64, N>) -> Discrete<N> {
        let g = self.gradient::<f64>(&(*q1).into());
        let half = 0.5 * self.h;
        Discrete {
            d1: g.coordinates * half - g.momenta,
            d2: g.coordinates * half + g.momenta,
            forces: g.forces * half,
        }
    }

    /// The Jacobian of D₁L_d + (h/2) Q with respect to q₁, exact: one dual-number
    /// evaluation of the gradient per column, so the work is N evaluations and the stack
    /// holds one model's worth of `Dual64`s whatever N is.
    pub(crate) fn jacobian(&self, q1: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        let half = 0.5 * self.h;
        let q1: [f64; N] = (*q1).into();
        let mut jacobian = SMatrix::<f64, N, N>::zeros();
        let columns = forward_jacobian(&q1, |q1| {
            let g = self.gradient(q1);
            (g.coordinates + g.forces).map(|x| x * half) - g.momenta
        });
        for (j, column) in columns.enumerate() {
            jacobian.set_column(j, &column);
        }
        jacobian
    }
}
