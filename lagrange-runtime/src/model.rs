//! The terms of a model, generic over the number type: what `lagrangian!` generates, and
//! the one trait a model written by hand implements.
//!
//! # One model, one trait family
//!
//! A model is its [`Model`] impl: T and V ([`eval_energies`](Model::eval_energies)), the
//! dissipation D, the applied forces and the constraints, each evaluable at a
//! [`Point`] in any [`Scalar`], and the number of its constraints as the type
//! [`Count<K>`](Count). Everything else follows from it through blanket impls in the
//! runtime: [`Dynamics`](crate::Dynamics) (the `f64` API at a [`State`](crate::State)),
//! [`Constrained<N, M, K>`](crate::Constrained) for the model's own K, and
//! [`ConstraintSolver`](crate::ConstraintSolver) (projection, stabilization, violation,
//! reaction forces). `lagrangian!` implements `Model` and [`Parametric`], and nothing else.
//!
//! `Dynamics` and `ConstraintSolver` are implemented for every `T: Model<N, M>`, so generic
//! code bounded on `Model<N, M>` alone calls their methods; they reach the model's K (the
//! constrained solver's matrices are K × N) through [`ConstraintCount::with`], as any
//! generic code over `T: Model<N, M>` that needs K as a const parameter can, by running a
//! [`WithCount`] computation with it. `Constrained<N, M, K>`, whose methods return K
//! multipliers, is implemented for models whose `Constraints` is `Count<K>` (the only
//! count: [`ConstraintCount`] is sealed). A new constrained algorithm is a function generic
//! over K in the runtime; the macro does not change.
//!
//! # Names
//!
//! - The model's names (`COORDINATES`, `INPUTS`, `UNITS`, `CONSTRAINT_NAMES`) are declared
//!   once, on `Model`; `Dynamics`'s constants and `Constrained::CONSTRAINTS` are the same
//!   arrays, defined from these by the blanket impls.
//! - Methods of `Model` and `Parametric` start with `eval_` and take a [`Point`]; those
//!   that end in `_in` work in any scalar `S` (dual numbers differentiate them again), the
//!   others in `f64` or in the dual numbers of the generic passes.
//! - `_with`: the same with the parameters given as values of the number type
//!   ([`Parametric`]), so that they can be differentiated.
//! - Without a prefix or suffix ([`Dynamics::accelerations`](crate::Dynamics::accelerations),
//!   [`eval::equations`](crate::eval::equations)): `f64` at a [`State`](crate::State),
//!   checked where they can fail, with errors that say what went wrong.
//!
//! Four ways to q̈, one for each question: [`Dynamics::accelerations`](crate::Dynamics::accelerations)
//! (`f64` at a state, with a diagnosis), [`ConstraintSolver::stabilized_accelerations`](crate::ConstraintSolver::stabilized_accelerations)
//! (the same with Baumgarte's terms), [`Model::eval_accelerations_in`] (in any scalar:
//! dual numbers differentiate it) and [`Parametric::eval_accelerations_with`] (with the
//! parameters given, to differentiate them). Two ways to the [`Equations`]:
//! [`eval::equations`](crate::eval::equations) in `f64` at a state, and
//! [`Model::eval_equations_in`] in any scalar. Behind them all, the defaults of `Model`'s
//! methods are the runtime's generic dual-number passes, which are crate-private and the
//! reference the code `lagrangian!` generates is tested against.

use crate::dual_passes;
use crate::Units;
use nalgebra::{SMatrix, SVector};
use num_dual::DualNum;

pub use crate::linalg::{MassTree, NO_PARENT};
pub use crate::scalar::Scalar;
pub use crate::terms::{Energies, Equations, Gradient, Level, Point, Terms};

/// The number of constraints of a model, as a type: [`Model::Constraints`] is `Count<K>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Count<const K: usize>;

/// A number of constraints carried by a type ([`Count<K>`](Count), the only one); its
/// [`with`](ConstraintCount::with) hands K to generic code as a const parameter.
pub trait ConstraintCount: sealed::Sealed {
    /// The number of constraints.
    const K: usize;

    /// Runs `computation` with this K.
    fn with<C: WithCount>(computation: C) -> C::Output;
}

mod sealed {
    /// Only [`Count<K>`](super::Count) counts constraints: the runtime's blanket impls read
    /// K from it ([`ConstraintCount::with`](super::ConstraintCount::with), and
    /// `Constraints = Count<K>` for [`Constrained`](crate::Constrained)).
    pub trait Sealed {}
    impl<const K: usize> Sealed for super::Count<K> {}
}

impl<const K: usize> ConstraintCount for Count<K> {
    const K: usize = K;

    #[inline]
    fn with<C: WithCount>(computation: C) -> C::Output {
        computation.run::<K>()
    }
}

/// A computation that needs a model's number of constraints K as a const parameter (to
/// size its K × N matrices): run it with [`ConstraintCount::with`].
///
/// # Example
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::model::{ConstraintCount, Model, WithCount};
///
/// lagrangian! {
///     struct Pendulum {
///         parameters: m = 1.0, l = 1.0, g = 9.81;
///         coordinates: x, y;
///         kinetic = m/2 * (dot(x)^2 + dot(y)^2);
///         potential = m * g * y;
///         constraint rod = x^2 + y^2 - l^2;
///     }
/// }
///
/// /// The number of rows of a constraint Jacobian.
/// struct Rows;
/// impl WithCount for Rows {
///     type Output = usize;
///     fn run<const K: usize>(self) -> usize {
///         SMatrix::<f64, K, 2>::zeros().nrows()
///     }
/// }
///
/// fn rows<T: Model<2, 0>>(_: &T) -> usize {
///     T::Constraints::with(Rows)
/// }
/// assert_eq!(rows(&Pendulum::default()), 1);
/// ```
pub trait WithCount {
    /// What the computation returns.
    type Output;

    /// The computation, for K constraints.
    fn run<const K: usize>(self) -> Self::Output;
}

/// The constraint names as an array of the model's own length, checked when it compiles.
pub(crate) const fn names<const K: usize>(names: &'static [&'static str]) -> [&'static str; K] {
    assert!(
        names.len() == K,
        "CONSTRAINT_NAMES must name as many constraints as `Model::Constraints` counts"
    );
    let mut out = [""; K];
    let mut i = 0;
    while i < K {
        out[i] = names[i];
        i += 1;
    }
    out
}

/// The kinetic and potential energies, the dissipation function, the applied forces and
/// the constraints of a model with `N` coordinates and `M` inputs, each evaluable at a
/// [`Point`] in any [`Scalar`].
///
/// `lagrangian!` implements this trait; the runtime's generic dual-number passes turn it
/// into exact derivatives, and the blanket impls of [`Dynamics`](crate::Dynamics),
/// [`Constrained`](crate::Constrained) and [`ConstraintSolver`](crate::ConstraintSolver)
/// call them. A model written by hand implements `Model` and gets all of them.
///
/// Generic code that calls the `f64` API (`accelerations`, `mass_matrix`, `project`, …)
/// bounds on [`Dynamics<N, M>`](crate::Dynamics), or, when it needs the terms too, on
/// `T: Model<N, M>`: every `Model` is a `Dynamics` and a `ConstraintSolver`. Code that needs
/// the multipliers ([`Constrained<N, M, K>`](crate::Constrained)) bounds on
/// `T: Model<N, M, Constraints = Count<K>>` with a `const K: usize`. The model's names are
/// declared here, once; `Dynamics` gives the same arrays, so where both traits are in scope
/// for a concrete model, name the trait of a constant: `<Name as Model<N, M>>::COORDINATES`
/// (for a `T: Model<N, M>`, `T::COORDINATES` is this trait's).
///
/// # What `lagrangian!` overrides
///
/// A model written by hand gives the names, [`Constraints`](Model::Constraints) and
/// [`eval_energies`](Model::eval_energies), and where it has them the dissipation, the
/// forces and the constraints: that describes it completely. The other methods have
/// defaults, the generic dual-number passes, which `lagrangian!` overrides with code specialised to
/// the model (and must agree with to rounding): [`eval_equations_in`](Model::eval_equations_in),
/// [`eval_gradient_in`](Model::eval_gradient_in) and
/// [`eval_inverse_dynamics_in`](Model::eval_inverse_dynamics_in), the differentiable
/// evaluations a user may call in any scalar, and two hidden `f64` specialisations
/// (`eval_equations`, `eval_mass_matrix`) that are reached through
/// [`eval::equations`](crate::eval::equations) and
/// [`Dynamics::mass_matrix`](crate::Dynamics::mass_matrix).
///
/// # Example
/// A harmonic oscillator written without the macro:
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::model::{Count, Energies, Model, Point, Scalar};
///
/// struct Oscillator { m: f64, k: f64 }
///
/// impl Model<1, 0> for Oscillator {
///     const COORDINATES: [&'static str; 1] = ["x"];
///     const INPUTS: [&'static str; 0] = [];
///     type Constraints = Count<0>;
///     fn eval_energies<D: Scalar>(&self, x: &Point<D, 1, 0>) -> Energies<D> {
///         Energies {
///             kinetic: x.qd[0] * x.qd[0] * (self.m / 2.0),
///             potential: x.q[0] * x.q[0] * (self.k / 2.0),
///         }
///     }
/// }
///
/// let s = State::new(0.0, SVector::from([0.5]), SVector::from([0.0]));
/// let qdd = Oscillator { m: 2.0, k: 8.0 }.accelerations(&s, &SVector::zeros()).unwrap();
/// assert!((qdd[0] - -2.0).abs() < 1e-15); // −k x / m
/// ```
pub trait Model<const N: usize, const M: usize> {
    /// Names of the coordinates, in order.
    const COORDINATES: [&'static str; N];
    /// Names of the inputs, in order.
    const INPUTS: [&'static str; M];
    /// The units of the coordinates, velocities and inputs when the model declares units;
    /// `None` when it declares none.
    const UNITS: Option<Units<N, M>> = None;
    /// Whether [`eval_dissipation`](Model::eval_dissipation) can be nonzero.
    const HAS_DISSIPATION: bool = false;
    /// Whether [`eval_forces`](Model::eval_forces) applies any force.
    const HAS_FORCES: bool = false;
    /// Whether the inputs act only through the forces and torques: neither the energies
    /// nor the dissipation read them (false unless known; `lagrangian!` says). Then the
    /// derivatives of the dynamics along the inputs ([`linearize`](crate::linearize::linearize)'s
    /// B) are those of the generalized forces of the forces alone, ∂Q/∂u = Σ ∂F/∂u · ∂v/∂q̇,
    /// without differentiating the inverse dynamics along each input.
    const INPUTS_ONLY_IN_FORCES: bool = false;
    /// Whether [`eval_equations`](Model::eval_equations) is specialised to the model rather
    /// than the generic passes (`lagrangian!` sets it unless the model's code would be too
    /// large). Read by the tests of the generated code.
    #[doc(hidden)]
    const FAST_EQUATIONS: bool = false;
    /// Whether L is a polynomial of degree at most two in q̇, so that the momenta are
    /// affine in q̇ and the mass matrix does not depend on q̇: then one Newton update
    /// solves ∂L/∂q̇(q, q̇) = p for q̇ exactly (the variational integrators use it).
    /// `lagrangian!` sets it from the model's expressions; leave it false unless it holds.
    const QUADRATIC_IN_VELOCITIES: bool = false;
    /// The kinematic tree of the mass matrix, when it has one worth following: for each
    /// coordinate its parent, an earlier coordinate, or
    /// [`NO_PARENT`], and one past the last coordinate the
    /// constraints involve. It promises that M's entry (i, j) is zero unless one of i, j
    /// is an ancestor of the other (counting the fill of the elimination: an elimination
    /// tree), and the same of JᵀJ, so that the accelerations factor M (or M + ρ JᵀJ)
    /// along the tree, Featherstone's L D Lᵀ on branch-induced sparsity, instead of
    /// densely: two legs of a quadruped share no velocity. `lagrangian!` finds it from
    /// the model's expressions (which velocities ever meet in a term of L, which
    /// coordinates a constraint involves) and sets it when it saves at least half of the
    /// dense factorization's work; `None` (the default) factors densely. A tree that is
    /// not valid (a parent not earlier than its child) is ignored.
    const MASS_TREE: Option<MassTree<N>> = None;
    /// Names of the constraints, in order: as many as [`Constraints`](Model::Constraints)
    /// counts.
    const CONSTRAINT_NAMES: &'static [&'static str] = &[];
    /// For each constraint, whether it is holonomic (φ(q, t) = 0) rather than
    /// nonholonomic (A(q, t) q̇ + b(q, t) = 0).
    const HOLONOMIC: &'static [bool] = &[];

    /// The number of constraints K, as [`Count<K>`](Count): `Count<0>` for a model without
    /// constraints.
    type Constraints: ConstraintCount;

    /// T and V at a point.
    fn eval_energies<D: Scalar>(&self, x: &Point<D, N, M>) -> Energies<D>;

    /// L = T − V at a point.
    #[inline]
    fn eval_lagrangian<D: Scalar>(&self, x: &Point<D, N, M>) -> D {
        let e = self.eval_energies(x);
        e.kinetic - e.potential
    }

    /// The Rayleigh dissipation function D; zero unless overridden.
    fn eval_dissipation<D: Scalar>(&self, x: &Point<D, N, M>) -> D {
        x.t * 0.0
    }

    /// Calls `apply(F, v)` once for each element of each applied force or torque: a
    /// force `F` whose point of application moves with velocity `v` (ṗ for a force on a
    /// position p, an element of ω for a torque on a body), so that it adds `F ∂v/∂q̇` to
    /// the generalized forces (virtual power; for a point, ∂ṗ/∂q̇ = ∂p/∂q). `v` must be
    /// linear in q̇: only its derivative with respect to q̇ is used, so the number type
    /// carries the seeds of q̇. Applies nothing unless overridden.
    fn eval_forces<D: Scalar, F: FnMut(D, D)>(&self, x: &Point<D, N, M>, apply: F) {
        let _ = (x, apply);
    }

    /// Calls `apply(k, value)` for each constraint k. At [`Level::Position`] the constraint
    /// as written: φ(q, t) for a holonomic one, A q̇ + b for a nonholonomic one. At
    /// [`Level::Velocity`] its velocity form, affine in q̇: φ̇ = φ_q q̇ + φ_t, or A q̇ + b.
    /// Applies nothing unless overridden.
    fn eval_constraints<D: Scalar, F: FnMut(usize, D)>(
        &self,
        level: Level,
        x: &Point<D, N, M>,
        apply: F,
    ) {
        let _ = (level, x, apply);
    }

    // Hidden: the `f64` API's specialisations, whose public faces are `eval::equations` and
    // `Dynamics::mass_matrix` (see "What `lagrangian!` overrides" above).
    #[doc(hidden)]
    /// The [`Equations`] (mass matrix, momenta, right-hand side, L) at a point in `f64`:
    /// the generic passes unless overridden with code specialised to the model.
    ///
    /// `lagrangian!` overrides it (and sets [`FAST_EQUATIONS`](Model::FAST_EQUATIONS)):
    /// forward-mode AD unrolled at compile time into plain `f64` arithmetic, with only the
    /// derivative components that can be nonzero. An override must agree with the generic
    /// passes to rounding.
    fn eval_equations(&self, x: &Point<f64, N, M>) -> Equations<N>
    where
        Self: Sized,
    {
        dual_passes::equations_in(self, x)
    }

    #[doc(hidden)]
    /// The mass matrix ∂²L/∂q̇² at a point in `f64`: that of
    /// [`eval_equations`](Model::eval_equations) unless overridden. `lagrangian!`
    /// overrides it where the mass matrix alone costs less than the equations: for a model
    /// whose equations are its sweep, the sweep's columns without its pass along the motion
    /// (20% less than the equations for the UR5 and the Panda).
    fn eval_mass_matrix(&self, x: &Point<f64, N, M>) -> SMatrix<f64, N, N>
    where
        Self: Sized,
    {
        self.eval_equations(x).mass
    }

    /// The [`Equations`] at a point in any scalar: the generic dual-number passes unless
    /// overridden. `lagrangian!` overrides it with its sweep (forward-over-reverse AD
    /// generated at compile time, work linear in the model's size per coordinate), which
    /// with dual numbers differentiates the equations again without nesting a dense
    /// Hessian in every number: what [`linearize`](crate::linearize) builds on.
    fn eval_equations_in<S: Scalar>(&self, x: &Point<S, N, M>) -> Equations<N, S>
    where
        Self: Sized,
    {
        dual_passes::equations_in(self, x)
    }

    /// The [`Gradient`] (∂L/∂q, the momenta, the generalized forces, L) at a point in any
    /// scalar: the generic dual-number passes unless overridden. `lagrangian!` overrides it with the primal and reverse passes of its
    /// sweep, which cost a few evaluations of the model; the variational integrators call
    /// it for their residual, and in dual numbers, one direction at a time, for its
    /// Jacobian.
    fn eval_gradient_in<S: Scalar>(&self, x: &Point<S, N, M>) -> Gradient<N, S>
    where
        Self: Sized,
    {
        dual_passes::gradient_in(self, x)
    }

    /// The inverse-dynamics residual M q̈ − bias for the accelerations `qdd`, at a point in
    /// any scalar: zero when `qdd` are the model's accelerations there (unconstrained).
    /// Cheaper than the [`Equations`] in the code `lagrangian!` generates: M q̈ comes from
    /// one sweep along q̈, without the mass matrix.
    fn eval_inverse_dynamics_in<S: Scalar>(&self, x: &Point<S, N, M>, qdd: &[S; N]) -> [S; N]
    where
        Self: Sized,
    {
        let e = self.eval_equations_in(x);
        (e.mass * SVector::from(*qdd) - e.bias).into()
    }

    /// ∂τ/∂q, ∂τ/∂q̇ and ∂τ/∂q̈ = M of the inverse dynamics
    /// ([`eval_inverse_dynamics_in`](Model::eval_inverse_dynamics_in)) at `x` and `qdd`,
    /// from what `lagrangian!` knows of the model's structure, written into `d_q`, `d_qd`
    /// and `mass`: for a robot that is its URDF's tree and nothing else, in one pass up
    /// and down its tree (`crate::tree_dynamics`). `false`, the matrices left as they
    /// are, for any other model (the default): the runtime then differentiates the
    /// inverse dynamics in dual numbers, one direction at a time. The forces' derivatives
    /// along the inputs are not among them. With `forces`, τ itself too (the tree gives
    /// it beside its derivatives). Not part of the public API.
    #[doc(hidden)]
    fn eval_inverse_dynamics_derivatives(
        &self,
        x: &Point<f64, N, M>,
        qdd: &[f64; N],
        d_q: &mut SMatrix<f64, N, N>,
        d_qd: &mut SMatrix<f64, N, N>,
        mass: &mut SMatrix<f64, N, N>,
        forces: Option<&mut SVector<f64, N>>,
    ) -> bool {
        let _ = (x, qdd, d_q, d_qd, mass, forces);
        false
    }

    /// ∂Q/∂u, the derivatives of the generalized forces along the inputs at `x`, written
    /// into `d_u`, in code `lagrangian!` unrolls where it stays small. `false`, `d_u` left
    /// as it is, for any other model (the default): the runtime then takes them in dual
    /// numbers, one pass of the forces per input. Not part of the public API.
    #[doc(hidden)]
    fn eval_forces_along_inputs(&self, x: &Point<f64, N, M>, d_u: &mut SMatrix<f64, N, M>) -> bool {
        let _ = (x, d_u);
        false
    }

    /// The inverse dynamics at `x` and `qdd` (as
    /// [`eval_inverse_dynamics_in`](Model::eval_inverse_dynamics_in) in `f64`) by the
    /// recursive Newton–Euler algorithm over the robot's tree
    /// (`crate::tree_dynamics::inverse_dynamics`), into `tau`. `false`, `tau` left as it
    /// is, for any model but a robot that is its URDF's tree alone (the default). Not part
    /// of the public API.
    #[doc(hidden)]
    fn eval_tree_inverse_dynamics(
        &self,
        x: &Point<f64, N, M>,
        qdd: &[f64; N],
        tau: &mut [f64; N],
    ) -> bool {
        let _ = (x, qdd, tau);
        false
    }

    /// Whether [`eval_tree_accelerations`](Model::eval_tree_accelerations) may give the
    /// accelerations: `lagrangian!` sets it for a robot that is its URDF's tree and nothing
    /// else, whose only constraint is its floating base's. Not part of the public API.
    #[doc(hidden)]
    const TREE_ACCELERATIONS: bool = false;

    /// q̈ at `x` by the articulated-body algorithm over the robot's tree
    /// (`crate::tree_dynamics::accelerations`), `constraint` its floating base's (the row
    /// j and the target γ of j q̈ = γ), into `qdd`. `false` where it does not apply or
    /// fails (the default: any model but a robot's), the caller then solving the model's
    /// equations. Not part of the public API.
    #[doc(hidden)]
    fn eval_tree_accelerations(
        &self,
        x: &Point<f64, N, M>,
        constraint: Option<(&[f64; N], f64)>,
        qdd: &mut [f64; N],
    ) -> bool {
        let _ = (x, constraint, qdd);
        false
    }

    /// The accelerations at a point in any scalar: the equations of
    /// [`eval_equations_in`](Model::eval_equations_in) solved by the one solve of the
    /// runtime, with the model's constraints if it has any;
    /// `None` where that solve fails (a singular, indefinite or ill-conditioned mass matrix
    /// or constraint system, the states where `accelerations` returns the error naming it).
    /// With dual numbers it gives exact derivatives of q̈
    /// ([`linearize`](crate::linearize::linearize)).
    fn eval_accelerations_in<S: Scalar>(&self, x: &Point<S, N, M>) -> Option<SVector<S, N>>
    where
        Self: Sized,
    {
        Self::Constraints::with(AccelerationsIn { model: self, x })
    }
}

/// The two questions generic code asks of a model's constraints, answered in one place
/// (for every [`Model`]; crate-private).
pub(crate) trait ConstraintKinds<const N: usize, const M: usize>: Model<N, M> {
    /// Whether the model has constraints at all.
    fn has_constraints() -> bool {
        Self::Constraints::K > 0
    }

    /// Whether constraint `k` is holonomic; false past the model's constraints.
    fn holonomic(k: usize) -> bool {
        Self::HOLONOMIC.get(k) == Some(&true)
    }
}

impl<T: Model<N, M>, const N: usize, const M: usize> ConstraintKinds<N, M> for T {}

impl<T: Model<N, M>, S: Scalar, const N: usize, const M: usize> Terms<S, N, M> for T {
    const HAS_DISSIPATION: bool = T::HAS_DISSIPATION;
    const HAS_FORCES: bool = T::HAS_FORCES;
    const MASS_TREE: Option<MassTree<N>> = T::MASS_TREE;

    #[inline]
    fn lagrangian<D: Scalar + DualNum<InnerDual = S>>(&self, x: &Point<D, N, M>) -> D {
        self.eval_lagrangian(x)
    }

    #[inline]
    fn dissipation<D: Scalar + DualNum<InnerDual = S>>(&self, x: &Point<D, N, M>) -> D {
        self.eval_dissipation(x)
    }

    #[inline]
    fn forces<D: Scalar + DualNum<InnerDual = S>, F: FnMut(D, D)>(
        &self,
        x: &Point<D, N, M>,
        apply: F,
    ) {
        self.eval_forces(x, apply);
    }

    #[inline]
    fn constraints<D: Scalar + DualNum<InnerDual = S>, F: FnMut(usize, D)>(
        &self,
        level: Level,
        x: &Point<D, N, M>,
        apply: F,
    ) {
        self.eval_constraints(level, x, apply);
    }
}

/// A model whose `P` parameters can be differentiated: its terms with the parameters
/// given as values of the number type instead of read from the struct. `lagrangian!`
/// implements it; [`linearize::sensitivities`](crate::linearize::sensitivities) uses it.
pub trait Parametric<const N: usize, const M: usize, const P: usize>: Model<N, M> {
    /// The parameter names, in declaration order.
    const PARAMETERS: [&'static str; P];
    /// The parameter units as declared (`"kg"`, `"m/s^2"`), when the model declares units.
    const PARAMETER_UNITS: Option<[&'static str; P]> = None;

    /// The parameter values of this model, in declaration order.
    fn parameter_values(&self) -> [f64; P];

    /// [`Model::eval_energies`] with parameters `p`.
    fn eval_energies_with<D: Scalar>(&self, p: &[D; P], x: &Point<D, N, M>) -> Energies<D>;

    /// [`Model::eval_dissipation`] with parameters `p`; zero unless overridden.
    fn eval_dissipation_with<D: Scalar>(&self, p: &[D; P], x: &Point<D, N, M>) -> D {
        let _ = p;
        x.t * 0.0
    }

    /// [`Model::eval_forces`] with parameters `p`; none unless overridden.
    fn eval_forces_with<D: Scalar, F: FnMut(D, D)>(
        &self,
        p: &[D; P],
        x: &Point<D, N, M>,
        apply: F,
    ) {
        let _ = (p, x, apply);
    }

    /// [`Model::eval_constraints`] with parameters `p`; none unless overridden.
    fn eval_constraints_with<D: Scalar, F: FnMut(usize, D)>(
        &self,
        level: Level,
        p: &[D; P],
        x: &Point<D, N, M>,
        apply: F,
    ) {
        let _ = (level, p, x, apply);
    }

    /// [`Model::eval_accelerations_in`] with parameters `p`: both in the scalar `S`
    /// (`None` where the solve fails, as there); constrained models solve their constrained
    /// system.
    fn eval_accelerations_with<S: Scalar>(
        &self,
        p: &[S; P],
        x: &Point<S, N, M>,
    ) -> Option<SVector<S, N>>
    where
        Self: Sized,
    {
        let model = WithParameters {
            model: self,
            parameters: *p,
        };
        Self::Constraints::with(AccelerationsGeneric { terms: &model, x })
    }

    /// [`Model::eval_inverse_dynamics_in`] with parameters `p`: M q̈ − bias, in which the
    /// parameters can be differentiated
    /// ([`sensitivities`](crate::linearize::sensitivities)).
    fn eval_inverse_dynamics_with<S: Scalar>(
        &self,
        p: &[S; P],
        x: &Point<S, N, M>,
        qdd: &[S; N],
    ) -> [S; N]
    where
        Self: Sized,
    {
        let model = WithParameters {
            model: self,
            parameters: *p,
        };
        let e = dual_passes::equations_in(&model, x);
        (e.mass * SVector::from(*qdd) - e.bias).into()
    }
}

/// A parametric model with its parameters fixed to values of the scalar `S` (typically
/// dual numbers seeded on them): its [`Terms`] lift them into every pass's dual type.
#[derive(Debug, Clone, Copy)]
pub struct WithParameters<'a, T, S, const P: usize> {
    /// The model.
    pub model: &'a T,
    /// The parameter values.
    pub parameters: [S; P],
}

impl<T, S, const N: usize, const M: usize, const P: usize> Terms<S, N, M>
    for WithParameters<'_, T, S, P>
where
    T: Parametric<N, M, P>,
    S: Scalar,
{
    const HAS_DISSIPATION: bool = T::HAS_DISSIPATION;
    const HAS_FORCES: bool = T::HAS_FORCES;
    const MASS_TREE: Option<MassTree<N>> = T::MASS_TREE;

    fn lagrangian<D: Scalar + DualNum<InnerDual = S>>(&self, x: &Point<D, N, M>) -> D {
        let e = self
            .model
            .eval_energies_with(&self.parameters.map(D::from_re), x);
        e.kinetic - e.potential
    }

    fn dissipation<D: Scalar + DualNum<InnerDual = S>>(&self, x: &Point<D, N, M>) -> D {
        self.model
            .eval_dissipation_with(&self.parameters.map(D::from_re), x)
    }

    fn forces<D: Scalar + DualNum<InnerDual = S>, F: FnMut(D, D)>(
        &self,
        x: &Point<D, N, M>,
        apply: F,
    ) {
        let p = self.parameters.map(D::from_re);
        self.model.eval_forces_with(&p, x, apply);
    }

    fn constraints<D: Scalar + DualNum<InnerDual = S>, F: FnMut(usize, D)>(
        &self,
        level: Level,
        x: &Point<D, N, M>,
        apply: F,
    ) {
        let p = self.parameters.map(D::from_re);
        self.model.eval_constraints_with(level, &p, x, apply);
    }
}

/// The default of [`Model::eval_accelerations_in`], run with the model's K: its
/// [`eval_equations_in`](Model::eval_equations_in) solved alone or with the constraints.
struct AccelerationsIn<'a, T, S, const N: usize, const M: usize> {
    model: &'a T,
    x: &'a Point<S, N, M>,
}

impl<T: Model<N, M>, S: Scalar, const N: usize, const M: usize> WithCount
    for AccelerationsIn<'_, T, S, N, M>
{
    type Output = Option<SVector<S, N>>;
    fn run<const K: usize>(self) -> Self::Output {
        let e = self.model.eval_equations_in(self.x);
        dual_passes::accelerations_from::<T, S, N, M, K>(self.model, self.x, &e.mass, &e.bias)
    }
}

/// The default of [`Parametric::eval_accelerations_with`], run with the model's K: the
/// generic passes through `terms` (the model with its parameters given).
struct AccelerationsGeneric<'a, W, S, const N: usize, const M: usize> {
    terms: &'a W,
    x: &'a Point<S, N, M>,
}

impl<W: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize> WithCount
    for AccelerationsGeneric<'_, W, S, N, M>
{
    type Output = Option<SVector<S, N>>;
    fn run<const K: usize>(self) -> Self::Output {
        dual_passes::accelerations_in::<W, S, N, M, K>(self.terms, self.x)
    }
}
