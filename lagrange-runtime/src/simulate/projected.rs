//! Drift control for constrained models: projection after each step.

use super::{Inputs, Integrator, StepError};
use crate::constrained::check_projection;
use crate::{ConstraintSolver, State};

/// Any integrator, followed after each step by the projection of the state onto the
/// constraints ([`ConstraintSolver::project`]): positions by Newton with minimum-norm
/// corrections until |φ| ≤ `tolerance`, then velocities exactly. Integrating the
/// acceleration-level equations alone lets positions drift off the constraints
/// (quadratically in time); this keeps them on.
///
/// # Example
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::simulate::{Projected, Rk4, Simulation};
///
/// lagrangian! {
///     /// A pendulum in Cartesian coordinates.
///     struct Pendulum {
///         parameters: m = 1.0, l = 1.0, g = 9.81;
///         coordinates: x, y;
///         kinetic = m/2 * (dot(x)^2 + dot(y)^2);
///         potential = m * g * y;
///         constraint rod = x^2 + y^2 - l^2;
///     }
/// }
///
/// let model = Pendulum::default();
/// let start = State::new(0.0, SVector::from([1.0, 0.0]), SVector::zeros());
/// let run = Simulation::new(&model, start)
///     .run(&Projected::new(Rk4::new(1e-2)), 10.0)
///     .unwrap();
/// let drift = model.violation(run.last(), &SVector::zeros());
/// assert!(drift.position < 1e-12 && drift.velocity < 1e-12);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Projected<I> {
    /// The integrator whose steps are projected.
    pub inner: I,
    /// The largest |φ_k| left after projecting, relative to max|∂φ_k/∂q| max|q| (see
    /// [`ConstraintSolver::project`]).
    pub tolerance: f64,
    /// Coordinates (by index) the projection must not move.
    pub hold: Vec<usize>,
}

impl<I> Projected<I> {
    /// `inner` with projection to a relative tolerance of 1e-12, moving every coordinate.
    pub fn new(inner: I) -> Self {
        Projected {
            inner,
            tolerance: crate::tolerances::PROJECTED_TOLERANCE,
            hold: Vec::new(),
        }
    }
}

impl<T, I, const N: usize, const M: usize> Integrator<T, N, M> for Projected<I>
where
    T: ConstraintSolver<N, M>,
    I: Integrator<T, N, M>,
{
    type Memory = I::Memory;

    fn start(
        &self,
        model: &T,
        s: &State<N>,
        inputs: &mut Inputs<'_, N, M>,
    ) -> Result<I::Memory, StepError> {
        check_projection::<N>(&self.hold, self.tolerance).map_err(StepError::InvalidSettings)?;
        self.inner.start(model, s, inputs)
    }

    fn step(
        &self,
        model: &T,
        memory: &mut I::Memory,
        s: &State<N>,
        inputs: &mut Inputs<'_, N, M>,
        t_max: f64,
    ) -> Result<State<N>, StepError> {
        let next = self.inner.step(model, memory, s, inputs, t_max)?;
        let u = inputs(next.t, &next);
        Ok(model.project(&next, &u, &self.hold, self.tolerance)?)
    }

    fn inputs_changed(&self, memory: &mut I::Memory) {
        self.inner.inputs_changed(memory);
    }
}
