//! The traits a model's user programs against ([`Dynamics`], [`Constrained`],
//! [`ConstraintSolver`]) and the settings and results their methods speak of
//! ([`Stabilization`], [`Violation`]). Every [`Model`](crate::model::Model) implements them
//! through the blanket impls of `impls.rs`; this file imports no model code, so that the
//! solvers can implement these traits for their wrappers ([`Baumgarte`](crate::constrained::Baumgarte)).

use crate::{DynamicsError, State};
use nalgebra::{SMatrix, SVector};

/// The Euler–Lagrange dynamics of a model with `N` generalized coordinates and `M` inputs.
///
/// Every [`Model`](crate::model::Model) implements it (so every struct `lagrangian!`
/// generates), through [`eval`](crate::eval) and, for a model with constraints, the
/// constrained solver of [`constrained`](crate::constrained). Code written once over
/// `D: Dynamics<N, M>` (a controller, an integrator, an estimator) works for every model,
/// and for a [`Baumgarte`](crate::constrained::Baumgarte)-stabilized one.
///
/// Code generic over models bounds on `Dynamics<N, M>`, or on `T: Model<N, M>` when it
/// needs the terms too: every `Model` is a `Dynamics` and a [`ConstraintSolver`], so
/// `T: Model<N, M>` alone lets it call `accelerations` or `project`. Code that needs the
/// multipliers, sized by K, bounds on `T: Model<N, M, Constraints = Count<K>>` with a
/// `const K: usize`, which brings [`Constrained<N, M, K>`](Constrained) and K itself.
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
    ///
    /// The model owns its names: it declares them once, on
    /// [`Model`](crate::model::Model) (`COORDINATES`, `INPUTS`, `UNITS`, `CONSTRAINT_NAMES`:
    /// the code `lagrangian!` generates, or a model written by hand). These constants, and
    /// [`Constrained::CONSTRAINTS`], are the same names read through the `f64` API, so that
    /// code generic over `Dynamics` needs no other trait: they are defined only by the
    /// blanket impls from the model's, and by wrappers such as
    /// [`Baumgarte`](crate::constrained::Baumgarte) from their model's. With both traits in
    /// scope, `Name::COORDINATES` is ambiguous (E0034): write
    /// `<Name as Dynamics<N, M>>::COORDINATES` (the same array either way).
    const COORDINATES: [&'static str; N];
    /// Names of the inputs, in the order of the input vector (the model's, as
    /// [`COORDINATES`](Dynamics::COORDINATES)).
    const INPUTS: [&'static str; M];
    /// The units of the coordinates, velocities and inputs when the model declares units
    /// (its dimensions are then checked at compile time); `None` when it declares none (the
    /// model's, as [`COORDINATES`](Dynamics::COORDINATES)).
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
    /// residuals ([`ConstraintSolver::project`] gives the
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
/// Every [`Model`](crate::model::Model) whose
/// [`Constraints`](crate::model::Model::Constraints) is `Count<K>` implements it
/// (with K = 0 for a model without constraints).
///
/// # Example
/// A bead on a rod of length l in Cartesian coordinates, at rest at the bottom: the rod
/// carries the weight, λ = m g / (2 l) for φ = x² + y² − l².
/// ```
/// use lagrange_runtime::prelude::*;
///
/// lagrangian! {
///     struct Bob {
///         parameters: m = 1.0, l = 2.0, g = 9.81;
///         coordinates: x, y;
///         kinetic = m/2 * (dot(x)^2 + dot(y)^2);
///         potential = m * g * y;
///         constraint rod = x^2 + y^2 - l^2;
///     }
/// }
///
/// let (bob, u) = (Bob::default(), SVector::zeros());
/// let s = State::at_rest(SVector::from([0.0, -2.0]));
/// assert_eq!(Bob::CONSTRAINTS, ["rod"]);
/// assert_eq!(bob.constraint_residuals(&s, &u)[0], 0.0);
/// assert!((bob.multipliers(&s, &u).unwrap()[0] - 9.81 / 4.0).abs() < 1e-14);
/// ```
pub trait Constrained<const N: usize, const M: usize, const K: usize>: Dynamics<N, M> {
    /// Names of the constraints, in order: the model's
    /// [`CONSTRAINT_NAMES`](crate::model::Model::CONSTRAINT_NAMES) as an array of K, checked
    /// to have K names when the model compiles.
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

/// The interface of a constrained model that does not mention the number of constraints,
/// so that integrators and wrappers work with any: implemented for every [`Model`](crate::model::Model)
/// (with no constraints, the projection returns the state unchanged, the violation and the
/// reaction forces are zero, and the stabilized accelerations are the accelerations).
///
/// # Example
/// A start off the rod projected onto it (x held), then its violation and the rod's force.
/// ```
/// use lagrange_runtime::prelude::*;
///
/// lagrangian! {
///     struct Bob {
///         parameters: m = 1.0, l = 2.0, g = 9.81;
///         coordinates: x, y;
///         kinetic = m/2 * (dot(x)^2 + dot(y)^2);
///         potential = m * g * y;
///         constraint rod = x^2 + y^2 - l^2;
///     }
/// }
///
/// let (bob, u) = (Bob::default(), SVector::zeros());
/// let off = State::at_rest(SVector::from([1.2, -1.0]));
/// assert!(bob.violation(&off, &u).position > 1.0);
/// let on = bob.project(&off, &u, &[0], 1e-12).unwrap();
/// assert_eq!(on.q[0], 1.2); // held
/// assert!((on.q[1] - -1.6).abs() < 1e-12); // y = −√(l² − x²)
/// assert!(bob.violation(&on, &u).position < 1e-12);
/// // At rest the rod holds the bob against gravity along the rod: −Φ_qᵀλ cancels the
/// // weight's component along it, m g (x, y) y / l².
/// let f = bob.reaction_forces(&on, &u).unwrap();
/// assert!((f - 9.81 * on.q[1] / 4.0 * on.q).amax() < 1e-12);
/// ```
pub trait ConstraintSolver<const N: usize, const M: usize>: Dynamics<N, M> {
    /// The accelerations with Baumgarte stabilization of the constraints.
    ///
    /// # Errors
    /// As [`Dynamics::accelerations`], and [`DynamicsError::InvalidSetting`] for gains
    /// that [`Stabilization::check`] refuses.
    fn stabilized_accelerations(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
        stabilization: Stabilization,
    ) -> Result<SVector<f64, N>, DynamicsError>;

    /// The state nearest to `s` that satisfies the constraints, moving only coordinates not
    /// listed in `hold` (indices into the coordinates).
    ///
    /// Positions: Newton steps with the minimum-norm correction Δq = −J_fᵀ (J_f J_fᵀ)⁻¹ φ,
    /// J_f the Jacobian of the holonomic constraints with the held columns removed, until
    /// every |φ_k| ≤ `tolerance` · max_i |∂φ_k/∂q_i| · max_i |q_i| + 4 × (a bound on the
    /// rounding error of evaluating φ_k): the tolerance is relative, the change of φ_k when
    /// the coordinates change by that fraction of their size, so that it means the same for
    /// a pendulum of 1 mm and one of 1 km; the rounding floor is what no Newton step can
    /// get below, and keeps a state at q = 0, where `x + l*cos(theta + pi/2)` rounds to
    /// l·6e-17 and the relative part is 0, from counting as off the constraint. Velocities: the minimum-norm correction onto J q̇ + j = 0 for all
    /// constraints, holonomic and nonholonomic (exact in one step, the constraints being
    /// affine in q̇), which must then hold as [`Dynamics::check_start`] requires. With a
    /// tolerance at most 1e-8 the state returned passes `check_start`: a simulation can
    /// start from it.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidSetting`] for a tolerance that is not positive and finite or a
    /// held index that is not a coordinate's; [`DynamicsError::ProjectionFailed`] when Newton
    /// does not converge or a velocity form on held coordinates only is violated; [`DynamicsError::RedundantConstraints`] when the constraints cannot
    /// be solved for the coordinates that may move; [`DynamicsError::NonFiniteResult`] when
    /// the constraints or the correction overflow.
    fn project(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
        hold: &[usize],
        tolerance: f64,
    ) -> Result<State<N>, DynamicsError>;

    /// How far `s` is from satisfying the constraints.
    fn violation(&self, s: &State<N>, u: &SVector<f64, M>) -> Violation;

    /// The generalized constraint forces −Jᵀλ acting on the coordinates.
    ///
    /// # Errors
    /// As [`Dynamics::accelerations`].
    fn reaction_forces(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
    ) -> Result<SVector<f64, N>, DynamicsError>;
}

/// Baumgarte stabilization: the acceleration-level constraints are replaced by
/// `v̇ + 2α v + β² φ = 0`, which pulls drifting velocities and positions back to the
/// constraint manifold with the dynamics of a critically damped oscillator when α = β.
/// Gains of the order of the inverse of the time scale of interest (α = β = 1/Δt for a
/// step Δt is the usual starting point) damp drift without making the equations stiff.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stabilization {
    /// Damping of the velocity-level violation.
    pub alpha: f64,
    /// Stiffness of the position-level violation.
    pub beta: f64,
}

impl Stabilization {
    /// Whether the gains are usable: finite, α ≥ 0 (a negative α makes the velocity-level
    /// violation grow instead of decay) and β ≥ 0 (β enters squared; its sign means
    /// nothing).
    ///
    /// # Errors
    /// [`DynamicsError::InvalidSetting`] saying which gain is wrong.
    pub fn check(&self) -> Result<(), DynamicsError> {
        if !(self.alpha.is_finite() && self.beta.is_finite()) {
            Err(DynamicsError::InvalidSetting(
                "the Baumgarte gains must be finite",
            ))
        } else if self.alpha < 0.0 || self.beta < 0.0 {
            Err(DynamicsError::InvalidSetting(
                "the Baumgarte gains must not be negative: a negative alpha makes the constraint violation grow",
            ))
        } else {
            Ok(())
        }
    }
}

/// How far a state is from satisfying the constraints.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Violation {
    /// The largest |φ| of the holonomic constraints.
    pub position: f64,
    /// The largest |J q̇ + j| over all constraints.
    pub velocity: f64,
}
