//! The constrained variational integrator (SHAKE/RATTLE type).

use super::discrete::{check_settings, Step, VariationalMemory};
use super::stepping::fixed_step;
use super::{Inputs, Integrator, StepError};
use crate::constrained::{position_terms, solve_diagnosed, velocity_terms};
use crate::eval::mass_and_momenta;
use crate::linalg;
use crate::model::{ConstraintCount, Model, WithCount};
use crate::{DynamicsError, State};
use nalgebra::SVector;

/// The midpoint variational integrator for models with holonomic constraints, in the
/// SHAKE/RATTLE form: symplectic on the constraint manifold, with the positions on the
/// constraints to Newton's tolerance at every step and the velocities on their tangent
/// space, so there is no drift to control.
///
/// Each step solves, for q₁ and the multipliers λ (SHAKE),
///
/// ```text
/// p₀ + D₁L_d(q₀, q₁) + (h/2) Q − h Φ_q(q₀)ᵀ λ = 0,    Φ(q₁, t₁) = 0,
/// ```
///
/// by Newton's method with exact AD Jacobians, then (RATTLE) the velocity q̇₁ and the
/// multipliers μ with
///
/// ```text
/// ∂L/∂q̇(q₁, q̇₁) = D₂L_d(q₀, q₁) + (h/2) Q − h Φ_q(q₁)ᵀ μ,    Φ_q(q₁) q̇₁ + Φ_t = 0.
/// ```
///
/// Nonholonomic constraints are not supported by this method: `start` rejects models
/// that have them (use a Runge–Kutta method with [`Projected`](super::Projected)).
/// The control law is evaluated once per step, as by [`Variational`](super::Variational).
///
/// The step must be small against the fastest frequency of the model (h·ω ≤ 0.3): a
/// larger step on a stiff nonlinear term runs on with the energy not conserved, without an
/// error. See [`Variational`'s measurements](super::Variational#step-size-and-stiff-terms).
///
/// # Example
/// A pendulum in Cartesian coordinates, its rod a constraint: every state stays on the
/// circle and moves along it.
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::simulate::{Rattle, Simulation};
///
/// lagrangian! {
///     struct Bob {
///         parameters: m = 1.0, l = 1.0, g = 9.81;
///         coordinates: x, y;
///         kinetic = m/2 * (dot(x)^2 + dot(y)^2);
///         potential = m * g * y;
///         constraint rod = x^2 + y^2 - l^2;
///     }
/// }
///
/// let start = State::at_rest(SVector::from([0.6, -0.8]));
/// let run = Simulation::new(&Bob::default(), start).run(&Rattle::new(1e-3), 10.0).unwrap();
/// for s in run.states() {
///     assert!((s.q.norm() - 1.0).abs() < 1e-12); // x² + y² = l²
///     assert!(s.q.dot(&s.qd).abs() < 1e-11); // x ẋ + y ẏ = 0
/// }
/// assert!(run.energy_drift() < 1e-4);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rattle {
    /// The step size h.
    pub step: f64,
    /// Newton stops when the residuals are below this fraction of their scale; positive
    /// and below 1.
    pub tolerance: f64,
    /// Newton gives up after this many iterations.
    pub max_iterations: usize,
}

impl Rattle {
    /// Step `step`, tolerance 1e-14, at most 50 Newton iterations.
    pub fn new(step: f64) -> Self {
        Rattle {
            step,
            tolerance: crate::tolerances::NEWTON_TOLERANCE,
            max_iterations: crate::tolerances::NEWTON_ITERATIONS,
        }
    }
}

impl<T, const N: usize, const M: usize> Integrator<T, N, M> for Rattle
where
    T: Model<N, M>,
{
    type Memory = VariationalMemory<N>;

    fn start(
        &self,
        model: &T,
        s: &State<N>,
        inputs: &mut Inputs<'_, N, M>,
    ) -> Result<VariationalMemory<N>, StepError> {
        check_settings(self.step, self.tolerance, self.max_iterations)?;
        if T::HOLONOMIC.iter().any(|h| !h) {
            return Err(StepError::InvalidSettings(
                "RATTLE handles holonomic constraints only; this model has nonholonomic ones",
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
        let (next, p) = T::Constraints::with(RattleStep {
            settings: self,
            model,
            s,
            p0: &memory.p,
            u: &u,
            t_next,
        })?;
        memory.advance(s, &next, p, h);
        Ok(next)
    }
}

/// One RATTLE step from `s` with momentum `p0` to `t_next`, run with the model's number
/// of constraints: the new state and momentum.
struct RattleStep<'a, T, const N: usize, const M: usize> {
    settings: &'a Rattle,
    model: &'a T,
    s: &'a State<N>,
    p0: &'a SVector<f64, N>,
    u: &'a SVector<f64, M>,
    t_next: f64,
}

impl<T: Model<N, M>, const N: usize, const M: usize> WithCount for RattleStep<'_, T, N, M> {
    type Output = Result<(State<N>, SVector<f64, N>), StepError>;
    fn run<const K: usize>(self) -> Self::Output {
        rattle_step::<T, N, M, K>(self)
    }
}

fn rattle_step<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    RattleStep {
        settings,
        model,
        s,
        p0,
        u,
        t_next,
    }: RattleStep<'_, T, N, M>,
) -> Result<(State<N>, SVector<f64, N>), StepError> {
    let h = t_next - s.t;
    let step = Step {
        model,
        t: s.t,
        h,
        q0: s.q,
        u: *u,
    };
    // A mass matrix that is only semidefinite (quaternions) makes the Newton Jacobians
    // singular too: complete them by the constraints, as the accelerations do.
    let mass = crate::eval::mass_matrix(model, s, u);
    let complete = linalg::kkt::needs_completion(&mass);
    let (q1, p1) = shake::<T, N, M, K>(settings, &step, p0, s.q + s.qd * h, t_next, complete)?;
    let (qd1, p1) = rattle_velocity::<T, N, M, K>(settings, model, t_next, &q1, &p1, u, s.qd)?;
    Ok((State::new(t_next, q1, qd1), p1))
}

/// Newton on the SHAKE equations for (q₁, λ); returns q₁ and p₁⁻ = D₂L_d + (h/2)Q plus
/// the residual left (so that momenta of symmetries are conserved to round-off).
fn shake<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    settings: &Rattle,
    step: &Step<'_, T, N, M>,
    p0: &SVector<f64, N>,
    mut q1: SVector<f64, N>,
    t1: f64,
    complete: bool,
) -> Result<(SVector<f64, N>, SVector<f64, N>), StepError> {
    let (_, j0) = position_terms::<T, N, M, K>(step.model, step.t, &step.q0, &step.u);
    let b = -(j0.transpose() * step.h);
    let mut lambda = SVector::<f64, K>::zeros();
    let mut residual = f64::INFINITY;
    let mut stalled = false;
    for _ in 0..settings.max_iterations {
        let d = step.discrete(&q1);
        let f = d.forces;
        let r1 = p0 + d.d1 + f + b * lambda;
        let (phi, j1) = position_terms::<T, N, M, K>(step.model, t1, &q1, &step.u);
        let scale = p0.amax().max(d.d1.amax()).max(f.amax());
        let phi_scale = (j1.amax() * q1.amax()).max(1.0);
        residual = (r1.amax() / scale.max(f64::MIN_POSITIVE)).max(phi.amax() / phi_scale);
        if !residual.is_finite() {
            break;
        }
        if residual <= settings.tolerance || stalled {
            return Ok((q1, d.d2 + f + r1));
        }
        let mut a = step.jacobian(&q1);
        let mut r = r1;
        if complete {
            // (a + ρ J₁ᵀJ₁) Δq + b Δλ = −r₁ − ρ J₁ᵀφ has the solution of the original
            // system, whose second row is J₁ Δq = −φ.
            let rho = linalg::weight(&a, &j1);
            a = linalg::kkt::completed(&a, &j1, rho);
            r += j1.transpose() * phi * rho;
        }
        let (Some(x), Some(y)) = (linalg::solve(a, r), linalg::solve_columns(a, &b)) else {
            break;
        };
        let Some(dl) = linalg::solve(j1 * y, phi - j1 * x) else {
            return Err(StepError::Dynamics(redundant::<T, N, M>()));
        };
        let dq = -x - y * dl;
        stalled = dq.amax() <= 4.0 * f64::EPSILON * (1.0 + q1.amax());
        q1 += dq;
        lambda += dl;
    }
    Err(StepError::NewtonDidNotConverge {
        iterations: settings.max_iterations,
        residual,
    })
}

/// The velocity q̇₁ and momentum p₁ = p₁⁻ − h Φ_qᵀ μ with Φ_q q̇₁ + Φ_t = 0: Newton with the
/// mass matrix, the constraint rows eliminated through the Schur complement (the solve of
/// the accelerations, `linalg::kkt`).
fn rattle_velocity<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    settings: &Rattle,
    model: &T,
    t: f64,
    q: &SVector<f64, N>,
    target: &SVector<f64, N>,
    u: &SVector<f64, M>,
    mut qd: SVector<f64, N>,
) -> Result<(SVector<f64, N>, SVector<f64, N>), StepError> {
    let mut jt_mu = SVector::<f64, N>::zeros();
    for _ in 0..settings.max_iterations {
        let s = State::new(t, *q, qd);
        let (mass, p, _) = mass_and_momenta(model, &s, u);
        let (v, j) = velocity_terms::<T, N, M, K>(model, &s, u);
        let g1 = p - target + jt_mu;
        let scale = target.amax().max(p.amax()).max(f64::MIN_POSITIVE);
        if g1.amax() <= settings.tolerance * scale
            && v.amax() <= settings.tolerance * (1.0 + j.amax() * qd.amax())
        {
            return Ok((qd, target - jt_mu));
        }
        // The Newton step solves M Δq̇ + Jᵀ Δμ = −g₁, J Δq̇ = −v: the system of the
        // accelerations, with q̈ = −Δq̇ and λ = −Δμ.
        let (step, minus_dmu) = solve_diagnosed::<T, N, M, K>(&mass, &g1, &j, &v)?;
        let (dqd, dmu) = (-step, -minus_dmu);
        qd += dqd;
        jt_mu += j.transpose() * dmu;
        if dqd.amax() <= 4.0 * f64::EPSILON * (1.0 + qd.amax()) {
            return Ok((qd, target - jt_mu));
        }
    }
    Err(StepError::NewtonDidNotConverge {
        iterations: settings.max_iterations,
        residual: f64::NAN,
    })
}

fn redundant<T: Model<N, M>, const N: usize, const M: usize>() -> DynamicsError {
    DynamicsError::RedundantConstraints {
        constraints: T::CONSTRAINT_NAMES.to_vec(),
    }
}
