//! The midpoint variational integrator.

use super::rk4::fixed_step;
use super::{Inputs, Integrator, StepError};
use crate::eval::{self, Gradient, Point};
use crate::linalg::Lu;
use crate::model::{Model, Scalar};
use crate::{Dynamics, State};
use nalgebra::{SMatrix, SVector};
use num_dual::Dual64;
use std::array::from_fn;

/// The midpoint variational integrator: a symplectic, momentum-preserving method of
/// order 2 whose energy error stays bounded over very long runs.
///
/// It discretizes the action with the midpoint discrete Lagrangian
/// `L_d(q₀, q₁) = h L((q₀ + q₁)/2, (q₁ − q₀)/h, t + h/2)` and advances the discrete momentum
/// with the discrete Euler–Lagrange equations in position–momentum form,
///
/// ```text
/// p₀ + D₁L_d(q₀, q₁) + (h/2) Q = 0,    p₁ = D₂L_d(q₀, q₁) + (h/2) Q,
/// ```
///
/// where Q, the generalized forces of the `force` statements and the dissipation at the
/// midpoint, enters through the discrete Lagrange–d'Alembert principle. The first equation
/// is solved for q₁ by Newton's method with its exact Jacobian, computed at the first
/// iterate of each step (the model's [`Gradient`] at the midpoint gives D₁L_d, D₂L_d and
/// Q; the same evaluation in dual numbers, once per coordinate, their derivatives with
/// respect to q₁). The velocity reported with each state solves
/// ∂L/∂q̇(q₁, q̇₁) = p₁.
///
/// The control law is evaluated once per step, at the midpoint time and at the midpoint
/// state predicted from the current velocity and the previous step's acceleration, and
/// held over the step; the method stays second order with smooth feedback laws.
///
/// # Step size and stiff terms
///
/// Being implicit, the method takes any step on a stiff *linear* spring without blowing
/// up, and its energy error stays bounded; but it follows the motion only when h·ω is
/// small for the model's fastest frequency ω (for a spring k on a mass m, ω = √(k/m)).
/// With a stiff *nonlinear* term the implicit equations have several solutions once h·ω
/// exceeds about 1, and Newton may converge to a spurious one: the run then goes on
/// without an error while the energy is not conserved. Measured on a pendulum of length 1
/// (mass 1, released at 0.5 rad) whose bob is held by a horizontal spring k = 10⁹
/// (ω ≈ 3.2·10⁴ s⁻¹), over 1 s with [`Rattle`](super::Rattle), the largest relative
/// change of the energy was:
///
/// | h | h·ω | energy change |
/// |---|-----|---------------|
/// | 10⁻⁵ | 0.32 | 0.15 % |
/// | 3·10⁻⁵ | 0.95 | 1.6 % |
/// | 6·10⁻⁵ | 1.9 | +50 % |
/// | 10⁻⁴ | 3.2 | −9 % |
/// | 10⁻³ | 32 | −73 % |
///
/// Choose h·ω ≤ 0.3 (check the energy of a conservative model with
/// [`Trajectory::energy_drift`](super::Trajectory::energy_drift)), or integrate stiff
/// models with [`DormandPrince`](super::DormandPrince), whose error control shortens the
/// steps or stops with an error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Variational {
    /// The step size h.
    pub step: f64,
    /// Newton stops when the residual is below this fraction of the momenta's size;
    /// positive and below 1.
    pub tolerance: f64,
    /// Newton gives up after this many iterations.
    pub max_iterations: usize,
}

impl Variational {
    /// Step `step`, tolerance 1e-14 (a few rounding errors above the floor, which Newton's
    /// quadratic convergence reaches in one or two more iterations than 1e-12 would take),
    /// at most 50 Newton iterations.
    pub fn new(step: f64) -> Self {
        Variational {
            step,
            tolerance: 1e-14,
            max_iterations: 50,
        }
    }
}

/// What [`Variational`] and [`Rattle`](super::Rattle) keep between steps (their
/// [`Integrator::Memory`]): the discrete momentum carried from step to step, and the last
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

impl<T, const N: usize, const M: usize> Integrator<T, N, M> for Variational
where
    T: Dynamics<N, M> + Model<N, M>,
{
    type Memory = VariationalMemory<N>;

    fn start(
        &self,
        model: &T,
        s: &State<N>,
        inputs: &mut Inputs<'_, N, M>,
    ) -> Result<VariationalMemory<N>, StepError> {
        check_settings(self.step, self.tolerance, self.max_iterations)?;
        if !T::CONSTRAINT_NAMES.is_empty() {
            return Err(StepError::InvalidSettings(
                "this model has constraints: use the constrained variational integrator `Rattle`",
            ));
        }
        VariationalMemory::start(model, s, inputs)
    }

    fn step(
        &self,
        model: &T,
        memory: &mut VariationalMemory<N>,
        s: &State<N>,
        inputs: &mut Inputs<'_, N, M>,
        t_max: f64,
    ) -> Result<State<N>, StepError> {
        let (h, t_next) = fixed_step(s.t, self.step, t_max)?;
        let u = memory.midpoint_inputs::<T, M>(s, h, inputs)?;
        let step = Step {
            model,
            t: s.t,
            h,
            q0: s.q,
            u,
        };
        // The guess continues the last step's motion: q₁ − guess is O(h³), so one Newton
        // update usually reaches the tolerance.
        let guess = s.q + (s.qd + memory.acceleration * (0.5 * h)) * h;
        let (q1, p1) = self.solve_positions(&step, &memory.p, guess)?;
        let qd1 = self.velocity(model, t_next, &q1, &p1, &u, (q1 - s.q) / h)?;
        let next = State::new(t_next, q1, qd1);
        memory.advance(s, &next, p1, h);
        Ok(next)
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
        let mut jacobian = SMatrix::zeros();
        for j in 0..N {
            let seeded: [Dual64; N] = from_fn(|i| {
                let x = Dual64::from(q1[i]);
                if i == j {
                    x.derivative()
                } else {
                    x
                }
            });
            let g = self.gradient(&seeded);
            for i in 0..N {
                jacobian[(i, j)] =
                    (g.coordinates[i].eps + g.forces[i].eps) * half - g.momenta[i].eps;
            }
        }
        jacobian
    }
}

/// A Newton iterate of the position solve: q₁, the residual and its largest entry, and
/// the momentum p₁ it gives.
#[derive(Clone, Copy)]
struct Iterate<const N: usize> {
    q1: SVector<f64, N>,
    r: SVector<f64, N>,
    residual: f64,
    p1: SVector<f64, N>,
}

impl Variational {
    /// Newton on p₀ + D₁L_d(q₀, q₁) + (h/2) Q = 0 for q₁; returns q₁ and p₁.
    ///
    /// The Jacobian is computed and factored once, at the first iterate, and kept for the
    /// step (simplified Newton): from a guess O(h³) away the updates shrink the residual
    /// by many orders of magnitude each, which is all one or two updates need. Should an
    /// update fail to shrink it fourfold, the step goes on with full Newton (the Jacobian
    /// at every iterate) from the better of the last two iterates.
    fn solve_positions<T: Model<N, M>, const N: usize, const M: usize>(
        &self,
        step: &Step<'_, T, N, M>,
        p0: &SVector<f64, N>,
        mut q1: SVector<f64, N>,
    ) -> Result<(SVector<f64, N>, SVector<f64, N>), StepError> {
        let mut jacobian: Option<Lu<f64, N>> = None;
        let mut newton = false;
        let mut last: Option<Iterate<N>> = None;
        let mut residual = f64::INFINITY;
        for _ in 0..self.max_iterations {
            let d = step.discrete(&q1);
            let r = p0 + d.d1 + d.forces;
            let mut at = Iterate {
                q1,
                r,
                residual: r.amax(),
                // p₁ = D₂L_d + (h/2)Q plus what Newton could not remove (q₁ is only known
                // to rounding): then p₁ − p₀ = D₁L_d + D₂L_d + hQ exactly, whose component
                // along a symmetry vanishes to round-off, so such momenta stay conserved.
                p1: d.d2 + d.forces + r,
            };
            residual = at.residual;
            let scale = p0.amax().max(d.d1.amax()).max(d.forces.amax());
            if at.residual <= self.tolerance * scale {
                return Ok((at.q1, at.p1));
            }
            if let Some(before) = last {
                // Both false for a NaN residual.
                let (shrank, better) = (
                    at.residual <= 0.25 * before.residual,
                    at.residual <= before.residual,
                );
                if !newton && !shrank {
                    newton = true;
                    if !better {
                        at = before;
                    }
                }
            }
            if !at.residual.is_finite() {
                break;
            }
            let lu = match jacobian {
                Some(lu) if !newton => lu,
                _ => {
                    let Some(lu) = Lu::factor(step.jacobian(&at.q1)) else {
                        break;
                    };
                    jacobian = Some(lu);
                    lu
                }
            };
            let delta = lu.solve(&-at.r);
            if delta.amax() <= 4.0 * f64::EPSILON * (1.0 + at.q1.amax()) {
                // The update is below the rounding of q₁: this iterate is the solution.
                return Ok((at.q1, at.p1));
            }
            q1 = at.q1 + delta;
            last = Some(at);
        }
        Err(StepError::NewtonDidNotConverge {
            iterations: self.max_iterations,
            residual,
        })
    }

    /// The velocity whose momentum is `p`: Newton on ∂L/∂q̇(q, q̇) = p with the mass matrix.
    /// When L is quadratic in q̇ ([`Model::QUADRATIC_IN_VELOCITIES`]) the momenta are affine
    /// in q̇ and the first update is the solution. Otherwise, after each update the momenta
    /// are checked from the [`Gradient`] alone, and the mass matrix is evaluated again only
    /// if another update is needed.
    fn velocity<T: Model<N, M>, const N: usize, const M: usize>(
        &self,
        model: &T,
        t: f64,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
        u: &SVector<f64, M>,
        mut qd: SVector<f64, N>,
    ) -> Result<SVector<f64, N>, StepError> {
        let converged = |momenta: &SVector<f64, N>| {
            (momenta - p).amax() <= self.tolerance * p.amax().max(momenta.amax())
        };
        let mut e = eval::equations(model, &State::new(t, *q, qd), u);
        for _ in 0..self.max_iterations {
            if converged(&e.momenta) {
                return Ok(qd);
            }
            let delta = crate::linalg::solve_mass::<T, N, M>(&e.mass, &(e.momenta - p))?;
            qd -= delta;
            if T::QUADRATIC_IN_VELOCITIES || delta.amax() <= 4.0 * f64::EPSILON * (1.0 + qd.amax())
            {
                return Ok(qd);
            }
            let point = Point::new(&State::new(t, *q, qd), u);
            if converged(&model.eval_gradient_in(&point).momenta) {
                return Ok(qd);
            }
            e = model.eval_equations(&point);
        }
        Err(StepError::NewtonDidNotConverge {
            iterations: self.max_iterations,
            residual: f64::NAN,
        })
    }
}
