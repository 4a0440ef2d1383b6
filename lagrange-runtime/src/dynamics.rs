//! The traits a model's user programs against, implemented for every
//! [`Model`](crate::model::Model) by the blanket impls at the end of this file.

use crate::eval;
use crate::model::{Count, Model, Point};
use crate::{constrained, DynamicsError, State};
use nalgebra::{SMatrix, SVector};

/// The Euler–Lagrange dynamics of a model with `N` generalized coordinates and `M` inputs.
///
/// Every [`Model`] implements it (so every struct `lagrangian!` generates), with
/// [`eval`] and, for a model with constraints, [`constrained::solve`]. Code written once over
/// `D: Dynamics<N, M>` (a controller, an integrator, an estimator) works for every model.
///
/// # Example
/// ```
/// use lagrange_runtime::prelude::*;
///
/// lagrangian! {
///     /// A mass on a spring.
///     struct Oscillator {
///         parameters: m = 2.0, k = 8.0;
///         coordinates: x;
///         kinetic = m/2 * dot(x)^2;
///         potential = k/2 * x^2;
///     }
/// }
///
/// /// Works for any model: the power of the inertial forces.
/// fn inertial_power<D: Dynamics<N, M>, const N: usize, const M: usize>(
///     model: &D, s: &State<N>, u: &SVector<f64, M>,
/// ) -> f64 {
///     let qdd = model.accelerations(s, u).unwrap();
///     (model.mass_matrix(s, u) * qdd).dot(&s.qd)
/// }
///
/// let s = State::new(0.0, SVector::from([0.5]), SVector::from([1.0]));
/// let p = inertial_power(&Oscillator::default(), &s, &SVector::zeros());
/// assert!((p - -4.0).abs() < 1e-12); // m ẍ ẋ = −k x ẋ = −8 · 0.5 · 1
/// ```
pub trait Dynamics<const N: usize, const M: usize = 0> {
    /// Names of the coordinates, in the order of the state vectors.
    const COORDINATES: [&'static str; N];
    /// Names of the inputs, in the order of the input vector.
    const INPUTS: [&'static str; M];
    /// The units of the coordinates, velocities and inputs when the model declares units
    /// (its dimensions are then checked at compile time); `None` when it declares none.
    const UNITS: Option<crate::Units<N, M>> = None;

    /// The Lagrangian L = T − V.
    fn lagrangian(&self, s: &State<N>, u: &SVector<f64, M>) -> f64;

    /// The kinetic energy T of the `kinetic` statement.
    fn kinetic_energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64;

    /// The potential energy V of the `potential` statement (0 without one).
    fn potential_energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64;

    /// The Rayleigh dissipation function D of the `dissipation` statement (0 without
    /// one): the power the dissipative forces take out of the motion is 2D when D is
    /// quadratic in q̇.
    fn dissipation(&self, s: &State<N>, u: &SVector<f64, M>) -> f64;

    /// The energy function h = q̇·∂L/∂q̇ − L (T + V when T is quadratic in q̇ and nothing
    /// depends on t). Along the motion, dh/dt = q̇·Q − ∂L/∂t.
    fn energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64;

    /// The generalized momenta p = ∂L/∂q̇.
    fn momenta(&self, s: &State<N>, u: &SVector<f64, M>) -> SVector<f64, N>;

    /// The mass matrix ∂²L/∂q̇², symmetric.
    fn mass_matrix(&self, s: &State<N>, u: &SVector<f64, M>) -> SMatrix<f64, N, N>;

    /// The generalized forces Q = Σ F·∂p/∂q + Σ τ·∂ω/∂q̇ − ∂D/∂q̇ of the `force` and `torque` statements and the
    /// dissipation function.
    fn generalized_forces(&self, s: &State<N>, u: &SVector<f64, M>) -> SVector<f64, N>;

    /// The power of the non-conservative forces, Q·q̇: what the `force` and `torque`
    /// statements put into the motion minus what dissipation takes out. Along the motion
    /// the energy function changes as dh/dt = Q·q̇ − ∂L/∂t.
    fn power(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.generalized_forces(s, u).dot(&s.qd)
    }

    /// The accelerations q̈ at this state and input.
    ///
    /// # Errors
    /// [`DynamicsError`] for a non-finite state or input, a singular or indefinite mass
    /// matrix, or a non-finite result.
    fn accelerations(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
    ) -> Result<SVector<f64, N>, DynamicsError>;

    /// The generalized force that must be added to Q so that the accelerations `qdd`
    /// happen (for constrained models: with λ = 0).
    fn inverse_dynamics(
        &self,
        s: &State<N>,
        qdd: &SVector<f64, N>,
        u: &SVector<f64, M>,
    ) -> SVector<f64, N>;

    /// Whether a motion may start at `s` with inputs `u`: for a model with constraints,
    /// that `s` satisfies them to rounding, the holonomic ones at position and velocity
    /// level and the nonholonomic ones at velocity level (each residual relative to its
    /// own scale). [`Simulation`](crate::simulate::Simulation) checks it before the first
    /// step of every integrator. `Ok` by default, for a model without constraints; a
    /// [`Baumgarte`](crate::constrained::Baumgarte)-stabilized model checks its gains
    /// instead (it pulls a state back onto its constraints).
    ///
    /// # Errors
    /// [`DynamicsError::OffConstraints`] naming the violated constraints and their
    /// residuals ([`ConstraintSolver::project`](crate::ConstraintSolver::project) gives the
    /// nearest state on them), [`DynamicsError::NonFiniteState`], or
    /// [`DynamicsError::InvalidSetting`] for a setting of the model (which a simulation
    /// reports as [`StepError::InvalidSettings`](crate::simulate::StepError::InvalidSettings)).
    fn check_start(&self, s: &State<N>, u: &SVector<f64, M>) -> Result<(), DynamicsError> {
        let _ = (s, u);
        Ok(())
    }
}

/// A model with `K` constraints Φ = 0, solved with the Lagrange equations of the first
/// kind: M q̈ + Φ_qᵀ λ = (the rest), so the constraint force on the coordinates is
/// −Φ_qᵀ λ.
///
/// Every [`Model`] whose [`Constraints`](Model::Constraints) is `Count<K>` implements it
/// (with K = 0 for a model without constraints).
pub trait Constrained<const N: usize, const M: usize, const K: usize>: Dynamics<N, M> {
    /// Names of the constraints, in order.
    const CONSTRAINTS: [&'static str; K];

    /// The constraint residuals Φ (Φ(q, t) for holonomic constraints, A q̇ + b for
    /// nonholonomic ones); zero on a consistent state.
    fn constraint_residuals(&self, s: &State<N>, u: &SVector<f64, M>) -> SVector<f64, K>;

    /// The Lagrange multipliers λ at this state.
    ///
    /// # Errors
    /// As [`Dynamics::accelerations`], and for redundant constraints.
    fn multipliers(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
    ) -> Result<SVector<f64, K>, DynamicsError>;
}

impl<T, const N: usize, const M: usize, const K: usize> Dynamics<N, M> for T
where
    T: Model<N, M, Constraints = Count<K>>,
{
    const COORDINATES: [&'static str; N] = T::COORDINATES;
    const INPUTS: [&'static str; M] = T::INPUTS;
    const UNITS: Option<crate::Units<N, M>> = T::UNITS;

    fn lagrangian(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        eval::lagrangian(self, s, u)
    }
    fn kinetic_energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.eval_energies(&Point::new(s, u)).kinetic
    }
    fn potential_energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.eval_energies(&Point::new(s, u)).potential
    }
    fn dissipation(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.eval_dissipation(&Point::new(s, u))
    }
    fn energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        eval::energy(self, s, u)
    }
    fn momenta(&self, s: &State<N>, u: &SVector<f64, M>) -> SVector<f64, N> {
        eval::momenta(self, s, u)
    }
    fn mass_matrix(&self, s: &State<N>, u: &SVector<f64, M>) -> SMatrix<f64, N, N> {
        eval::mass_matrix(self, s, u)
    }
    fn generalized_forces(&self, s: &State<N>, u: &SVector<f64, M>) -> SVector<f64, N> {
        eval::generalized_forces(self, s, u)
    }
    fn accelerations(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
    ) -> Result<SVector<f64, N>, DynamicsError> {
        constrained::accelerations::<T, N, M, K>(self, s, u, None)
    }
    fn inverse_dynamics(
        &self,
        s: &State<N>,
        qdd: &SVector<f64, N>,
        u: &SVector<f64, M>,
    ) -> SVector<f64, N> {
        eval::inverse_dynamics(self, s, qdd, u)
    }
    fn check_start(&self, s: &State<N>, u: &SVector<f64, M>) -> Result<(), DynamicsError> {
        if K == 0 {
            Ok(())
        } else {
            constrained::check_on_constraints::<T, N, M, K>(self, s, u)
        }
    }
}

impl<T, const N: usize, const M: usize, const K: usize> Constrained<N, M, K> for T
where
    T: Model<N, M, Constraints = Count<K>>,
{
    const CONSTRAINTS: [&'static str; K] = crate::model::names(T::CONSTRAINT_NAMES);

    fn constraint_residuals(&self, s: &State<N>, u: &SVector<f64, M>) -> SVector<f64, K> {
        constrained::residuals::<T, N, M, K>(self, s, u)
    }

    fn multipliers(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
    ) -> Result<SVector<f64, K>, DynamicsError> {
        constrained::solve::<T, N, M, K>(self, s, u, None).map(|r| r.multipliers)
    }
}
