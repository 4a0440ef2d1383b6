//! Linearization and parameter sensitivities, exact through automatic differentiation.
//!
//! [`linearize`] gives ẋ ≈ A x + B u for x = (q, q̇) around a state: for a model without
//! constraints from [`inverse_dynamics_derivatives`] (∂τ/∂q, ∂τ/∂q̇, ∂τ/∂u, with dual
//! numbers seeded on q, q̇ and u) and one factorization of the mass matrix; for a
//! constrained model the same derivatives with those of the constraints' rows, turned
//! into ∂q̈/∂x by the KKT matrix factored once (implicit differentiation of the
//! constrained solve at its solution, multipliers held). [`sensitivities`] differentiates the accelerations with respect to the
//! model's parameters. Equilibria and steady
//! motions, with the linearization there, are found in [`steady`](crate::steady).
//!
//! A robot whose model is its URDF's tree and nothing else (`urdf:` with a fixed or
//! floating base, `kinetic = urdf_kinetic;`, `potential = urdf_potential;` or none,
//! `dissipation = urdf_dissipation;` or none, forces the macro can unroll, such as
//! `actuated`'s; constraints, contacts and `let`s of its own are fine) gets ∂τ/∂q,
//! ∂τ/∂q̇ and M from its tree in one pass up and down it, by the analytical derivatives
//! of the recursive Newton–Euler algorithm (Carpentier and Mansard, RSS 2018), instead of
//! one dual-number evaluation per coordinate: the same numbers to rounding, several times
//! faster. Anything added to the tree (a rotor inertia in `kinetic`, a force at a point)
//! takes the dual numbers. When the floating base's constraint is the robot's only one,
//! its accelerations come from the articulated-body algorithm and the multiplier and the
//! KKT matrix from the same pass: the model's equations are not evaluated at all.
//!
//! # Example
//! A cart of mass m on a spring k, pushed by a force f: A = [[0, 1], [−k/m, 0]] and
//! B = [0, 1/m].
//! ```
//! use lagrange_runtime::prelude::*;
//! use lagrange_runtime::linearize::linearize;
//!
//! lagrangian! {
//!     struct Cart {
//!         parameters: m = 2.0, k = 8.0;
//!         coordinates: x;
//!         inputs: f;
//!         kinetic = m/2 * dot(x)^2;
//!         potential = k/2 * x^2;
//!         force f on x;
//!     }
//! }
//!
//! let lin = linearize(&Cart::default(), &State::at_rest(SVector::zeros()), &SVector::zeros()).unwrap();
//! let (a, b) = (lin.a(), lin.b());
//! assert_eq!((a[(0, 0)], a[(0, 1)], a[(1, 1)]), (0.0, 1.0, 0.0));
//! assert!((a[(1, 0)] - -4.0).abs() < 1e-15 && (b[(1, 0)] - 0.5).abs() < 1e-15);
//! assert_eq!(b[(0, 0)], 0.0);
//! ```

use crate::constrained::constraints_in_state;
use crate::error::DynamicsError;
use crate::jacobian_seed::{forward_jacobian, Eps, Seed};
use crate::linalg;
use crate::linalg::kkt::{with_scratch, zeroed_box, Zeroable, ON_HEAP_FROM};
use crate::model::Point;
use crate::model::{
    ConstraintCount, ConstraintKinds, Model, Parametric, WithCount, WithParameters,
};
use crate::stability::Spectrum;
use crate::{Dynamics, State};
use nalgebra::{DMatrix, SMatrix, SVector};
use num_dual::Dual64;

/// The first-order behaviour of a model around a state and input.
///
/// # Example
/// A pendulum in Cartesian coordinates, its rod a constraint: A is 4 × 4 in (x, y, ẋ, ẏ),
/// but the motion has one degree of freedom, and the spectrum in the independent
/// coordinates of the constraint manifold (`tangent`, 4 × 2) is the pendulum's ±i √(g/l).
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::linearize::linearize;
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
/// let bottom = State::at_rest(SVector::from([0.0, -2.0]));
/// let lin = linearize(&Bob::default(), &bottom, &SVector::zeros()).unwrap();
/// assert_eq!(lin.a().shape(), (4, 4));
/// assert_eq!(lin.tangent.shape(), (4, 2));
/// assert_eq!(lin.reduced_a().shape(), (2, 2));
/// let spectrum = lin.spectrum().unwrap();
/// assert_eq!(spectrum.eigenvalues.len(), 2);
/// for lambda in &spectrum.eigenvalues {
///     assert!(lambda.re.abs() < 1e-12 && (lambda.im.abs() - (9.81f64 / 2.0).sqrt()).abs() < 1e-12);
/// }
/// // ∂ẍ/∂x = −g/l along the circle at the bottom.
/// assert!((lin.d_q[(0, 0)] - -9.81 / 2.0).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Linearization<const N: usize, const M: usize> {
    /// The state linearized around.
    pub state: State<N>,
    /// The inputs linearized around.
    pub inputs: SVector<f64, M>,
    /// The accelerations q̈ there.
    pub accelerations: SVector<f64, N>,
    /// ∂q̈/∂q.
    pub d_q: SMatrix<f64, N, N>,
    /// ∂q̈/∂q̇.
    pub d_qd: SMatrix<f64, N, N>,
    /// ∂q̈/∂u.
    pub d_u: SMatrix<f64, N, M>,
    /// An orthonormal basis V (2N × d, columns in x = (q, q̇)) of the tangent space of the
    /// constraint manifold at the state: holonomic constraints at position and velocity
    /// level, nonholonomic ones at velocity level, so d = 2N − 2 (holonomic) −
    /// (nonholonomic). The identity without constraints. x = V z gives the independent
    /// coordinates z of [`reduced_a`](Self::reduced_a).
    pub tangent: DMatrix<f64>,
}

impl<const N: usize, const M: usize> Linearization<N, M> {
    /// A of ẋ = A x + B u for x = (q, q̇), 2N × 2N: `[[0, I], [∂q̈/∂q, ∂q̈/∂q̇]]`.
    pub fn a(&self) -> DMatrix<f64> {
        let mut a = DMatrix::zeros(2 * N, 2 * N);
        a.view_mut((0, N), (N, N)).fill_with_identity();
        a.view_mut((N, 0), (N, N)).copy_from(&self.d_q);
        a.view_mut((N, N), (N, N)).copy_from(&self.d_qd);
        a
    }

    /// B of ẋ = A x + B u, 2N × M: `[[0], [∂q̈/∂u]]`.
    pub fn b(&self) -> DMatrix<f64> {
        let mut b = DMatrix::zeros(2 * N, M);
        b.view_mut((N, 0), (N, M)).copy_from(&self.d_u);
        b
    }

    /// A in independent coordinates z of the constraint manifold, x = V z with V =
    /// [`tangent`](Self::tangent): `Vᵀ A V`, d × d. Its eigenvalues are the system's,
    /// without the spurious ones of the constraint directions; without constraints it is
    /// [`a`](Self::a).
    ///
    /// # Panics
    /// If [`tangent`](Self::tangent) (a public field) has not 2N rows; the methods that
    /// return `Result` ([`spectrum`](Self::spectrum),
    /// [`lqr_gain`](crate::control::lqr_gain)) check it and return an error instead.
    pub fn reduced_a(&self) -> DMatrix<f64> {
        self.tangent.transpose() * self.a() * &self.tangent
    }

    /// B in the independent coordinates of [`reduced_a`](Self::reduced_a): `Vᵀ B`, d × M.
    ///
    /// # Panics
    /// As [`reduced_a`](Self::reduced_a).
    pub fn reduced_b(&self) -> DMatrix<f64> {
        self.tangent.transpose() * self.b()
    }

    /// The eigenvalues and modes of [`reduced_a`](Self::reduced_a), the modes given in the
    /// state (q, q̇). See [`stability`](crate::stability).
    ///
    /// # Errors
    /// [`DynamicsError::NonFiniteResult`] if the eigenvalue iteration does not converge;
    /// [`DynamicsError::InvalidSetting`] if [`tangent`](Self::tangent) (a public field) has
    /// not 2N rows and at most 2N columns.
    pub fn spectrum(&self) -> Result<Spectrum<N>, DynamicsError> {
        self.spectrum_of(&self.a())
    }

    /// The eigenvalues and modes of `Vᵀ a V` for a 2N × 2N matrix `a` in the state (q, q̇)
    /// (A itself, or a closed loop A − B K), V = [`tangent`](Self::tangent), checked first.
    pub(crate) fn spectrum_of(&self, a: &DMatrix<f64>) -> Result<Spectrum<N>, DynamicsError> {
        if self.tangent_mismatch().is_some() {
            return Err(DynamicsError::InvalidSetting(
                "the tangent basis of a Linearization must have 2N rows and at most 2N columns",
            ));
        }
        let reduced = self.tangent.transpose() * a * &self.tangent;
        crate::stability::spectrum(&reduced, &self.tangent)
    }

    /// If [`tangent`](Self::tangent) has a shape that does not fit, the shape it should
    /// have (2N rows, at most 2N columns) and the one it has: every `Result`-returning use
    /// of it checks this first.
    pub(crate) fn tangent_mismatch(&self) -> Option<((usize, usize), (usize, usize))> {
        let found = self.tangent.shape();
        (found.0 != 2 * N || found.1 > 2 * N).then_some(((2 * N, found.1.min(2 * N)), found))
    }
}

/// The linearization of `model` at `s` with inputs `u`.
///
/// # Errors
/// As [`Dynamics::accelerations`] at that state.
///
/// # Example
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::linearize::linearize;
///
/// lagrangian! {
///     struct Pendulum {
///         parameters: m = 1.0, l = 2.0, g = 9.81;
///         coordinates: theta;
///         kinetic = m/2 * l^2 * dot(theta)^2;
///         potential = -m * g * l * cos(theta);
///     }
/// }
///
/// let bottom = State::at_rest(SVector::from([0.0]));
/// let lin = linearize(&Pendulum::default(), &bottom, &SVector::zeros()).unwrap();
/// assert!((lin.d_q[(0, 0)] - -9.81 / 2.0).abs() < 1e-14); // θ̈ ≈ −(g/l) θ
/// ```
pub fn linearize<T, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> Result<Linearization<N, M>, DynamicsError>
where
    T: Model<N, M>,
{
    // A constrained model's accelerations come with its multipliers, from the solve its
    // derivatives are taken at. Both return their result as it is built (no copy of it in
    // this frame: see `linalg::kkt::ON_HEAP_FROM`), checked finite.
    if !T::has_constraints() {
        let accelerations = model.accelerations(s, u)?;
        unconstrained(model, s, u, accelerations)
    } else {
        constrained(model, s, u)
    }
}

/// The error of derivatives of the accelerations that cannot be evaluated or are not
/// finite.
pub(crate) fn not_finite() -> DynamicsError {
    DynamicsError::NonFiniteResult {
        quantity: "derivatives of the accelerations",
    }
}

/// The blocks ∂q̈/∂q, ∂q̈/∂q̇ and ∂q̈/∂u of a [`Linearization`] while their columns are
/// computed: in a frame for a small model, on the heap for a large one ([`with_scratch`]).
struct Blocks<const N: usize, const M: usize> {
    d_q: SMatrix<f64, N, N>,
    d_qd: SMatrix<f64, N, N>,
    d_u: SMatrix<f64, N, M>,
}

// SAFETY: matrices of `f64`, for which all bits zero is 0.0.
unsafe impl<const N: usize, const M: usize> Zeroable for Blocks<N, M> {}

impl<const N: usize, const M: usize> Blocks<N, M> {
    /// Column `k` of ∂q̈/∂(q, q̇, u), counted across the three blocks in that order.
    fn column_mut(&mut self, k: usize) -> &mut [f64] {
        let (block, c) = if k < N {
            (self.d_q.as_mut_slice(), k)
        } else if k < 2 * N {
            (self.d_qd.as_mut_slice(), k - N)
        } else {
            (self.d_u.as_mut_slice(), k - 2 * N)
        };
        &mut block[c * N..(c + 1) * N]
    }

    /// The linearization at `s`, `u` with these derivatives: [`finished`].
    fn linearization(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
        accelerations: SVector<f64, N>,
        tangent: DMatrix<f64>,
    ) -> Result<Linearization<N, M>, DynamicsError> {
        finished(
            s,
            u,
            accelerations,
            (&self.d_q, &self.d_qd, &self.d_u),
            tangent,
        )
    }
}

/// The linearization at `s`, `u` with the derivatives ∂q̈/∂(q, q̇, u) and the tangent basis
/// `tangent` if all are finite, else [`not_finite`]: built in the caller's place, the
/// matrices copied once from wherever they were computed (the heap, for a large model).
#[allow(clippy::type_complexity)]
fn finished<const N: usize, const M: usize>(
    s: &State<N>,
    u: &SVector<f64, M>,
    accelerations: SVector<f64, N>,
    (d_q, d_qd, d_u): (
        &SMatrix<f64, N, N>,
        &SMatrix<f64, N, N>,
        &SMatrix<f64, N, M>,
    ),
    tangent: DMatrix<f64>,
) -> Result<Linearization<N, M>, DynamicsError> {
    let finite = linalg::all_finite;
    if !(finite(d_q.as_slice())
        && finite(d_qd.as_slice())
        && finite(d_u.as_slice())
        && finite(tangent.as_slice()))
    {
        return Err(not_finite());
    }
    Ok(Linearization {
        state: *s,
        inputs: *u,
        accelerations,
        d_q: *d_q,
        d_qd: *d_qd,
        d_u: *d_u,
        tangent,
    })
}

/// A `T`, zero, then written by `fill`, and returned unless `fill` fails: built as
/// [`with_scratch`] builds its scratch (on the heap from [`ON_HEAP_FROM`] bytes on), and
/// moved from there to the caller's.
fn built<T: Zeroable, E>(fill: impl FnOnce(&mut T) -> Result<(), E>) -> Result<T, E> {
    if size_of::<T>() >= ON_HEAP_FROM {
        built_on_heap(fill)
    } else {
        built_on_stack(fill)
    }
}

/// [`built`] on the heap.
fn built_on_heap<T: Zeroable, E>(fill: impl FnOnce(&mut T) -> Result<(), E>) -> Result<T, E> {
    let mut value = zeroed_box::<T>();
    fill(&mut value)?;
    Ok(*value)
}

/// [`built`] in a frame.
fn built_on_stack<T: Zeroable, E>(fill: impl FnOnce(&mut T) -> Result<(), E>) -> Result<T, E> {
    // SAFETY: all bits zero is a valid `T` (`Zeroable`'s contract).
    let mut value: T = unsafe { std::mem::zeroed() };
    fill(&mut value)?;
    Ok(value)
}

/// The unit vector e_i.
fn unit<const N: usize>(i: usize) -> SVector<f64, N> {
    SVector::from(crate::centroidal::unit(i))
}

/// Sets column `k` of a derivative along (q, q̇, u), held as its three blocks, counted
/// across them in that order.
fn set_column<const N: usize, const M: usize>(
    (d_q, d_qd, d_u): (
        &mut SMatrix<f64, N, N>,
        &mut SMatrix<f64, N, N>,
        &mut SMatrix<f64, N, M>,
    ),
    k: usize,
    column: &SVector<f64, N>,
) {
    if k < N {
        d_q.set_column(k, column);
    } else if k < 2 * N {
        d_qd.set_column(k - N, column);
    } else {
        d_u.set_column(k - 2 * N, column);
    }
}

/// ∂τ/∂u = −∂Q/∂u from the forces alone into `d_u`, for a model whose inputs act only
/// through its forces ([`Model::INPUTS_ONLY_IN_FORCES`]): the code `lagrangian!` unrolls
/// for them ([`Model::eval_forces_along_inputs`]), or a few evaluations of the forces,
/// instead of one of the whole inverse dynamics per input. False (and `d_u` untouched)
/// for another model.
fn along_inputs<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    x: &Point<f64, N, M>,
    d_u: &mut SMatrix<f64, N, M>,
) -> bool {
    if T::INPUTS_ONLY_IN_FORCES {
        if !model.eval_forces_along_inputs(x, d_u) {
            crate::dual_passes::forces_along_inputs(model, x, d_u);
        }
        d_u.neg_mut();
    }
    T::INPUTS_ONLY_IN_FORCES
}

/// [`linearize`] without constraints: ∂q̈/∂x = −M⁻¹ ∂τ/∂x at q̈ fixed, from the
/// derivatives of the inverse dynamics and one factorization of M.
fn unconstrained<T, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    accelerations: SVector<f64, N>,
) -> Result<Linearization<N, M>, DynamicsError>
where
    T: Model<N, M>,
{
    with_scratch(|d: &mut InverseDynamicsDerivatives<N, M>| {
        derivatives_of_inverse_dynamics(model, s, &accelerations, u, true, false, d);
        with_scratch(|ldlt: &mut linalg::Ldlt<f64, N>| {
            // `accelerations` has solved with this matrix, so it factors; the diagnosis is
            // only a guard.
            if !ldlt.refactor(&d.mass) {
                return Err(
                    crate::linalg::factor_mass(&d.mass, &<T as Model<N, M>>::COORDINATES)
                        .err()
                        .unwrap_or(DynamicsError::SingularMassMatrix),
                );
            }
            // ∂q̈/∂x = −M⁻¹ ∂τ/∂x, column by column in place.
            let solve = |column: SVector<f64, N>| -ldlt.solve(&column);
            for k in 0..N {
                let column = solve(d.d_q.column(k).into());
                d.d_q.set_column(k, &column);
                let column = solve(d.d_qd.column(k).into());
                d.d_qd.set_column(k, &column);
            }
            for k in 0..M {
                let column = solve(d.d_u.column(k).into());
                d.d_u.set_column(k, &column);
            }
            let tangent = DMatrix::identity(2 * N, 2 * N);
            finished(s, u, accelerations, (&d.d_q, &d.d_qd, &d.d_u), tangent)
        })
    })
}

/// The derivatives of the inverse dynamics at a state, accelerations and inputs
/// ([`inverse_dynamics_derivatives`]).
///
/// # Example
/// A pendulum, m l² θ̈ + m g l sin θ = τ: ∂τ/∂θ = m g l cos θ, ∂τ/∂θ̇ = 0, ∂τ/∂θ̈ = m l².
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::linearize::inverse_dynamics_derivatives;
///
/// lagrangian! {
///     struct Pendulum {
///         parameters: m = 1.0, l = 2.0, g = 9.81;
///         coordinates: theta;
///         kinetic = m/2 * l^2 * dot(theta)^2;
///         potential = -m * g * l * cos(theta);
///     }
/// }
///
/// let s = State::new(0.0, SVector::from([0.5]), SVector::from([1.5]));
/// let qdd = SVector::from([0.25]);
/// let d = inverse_dynamics_derivatives(&Pendulum::default(), &s, &qdd, &SVector::zeros()).unwrap();
/// assert!((d.forces[0] - (4.0 * 0.25 + 9.81 * 2.0 * 0.5f64.sin())).abs() < 1e-13);
/// assert!((d.d_q[(0, 0)] - 9.81 * 2.0 * 0.5f64.cos()).abs() < 1e-13);
/// assert_eq!(d.d_qd[(0, 0)], 0.0);
/// assert_eq!(d.mass[(0, 0)], 4.0);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct InverseDynamicsDerivatives<const N: usize, const M: usize> {
    /// The generalized forces τ that must be added to Q for the accelerations to happen:
    /// [`Dynamics::inverse_dynamics`].
    pub forces: SVector<f64, N>,
    /// ∂τ/∂q.
    pub d_q: SMatrix<f64, N, N>,
    /// ∂τ/∂q̇.
    pub d_qd: SMatrix<f64, N, N>,
    /// ∂τ/∂u: minus the derivatives of the applied generalized forces Q.
    pub d_u: SMatrix<f64, N, M>,
    /// ∂τ/∂q̈, the mass matrix M.
    pub mass: SMatrix<f64, N, N>,
}

/// The derivatives of the inverse dynamics τ(q, q̇, q̈, u) = M(q) q̈ − (the rest of the
/// equations of motion) ([`Dynamics::inverse_dynamics`]: the generalized force that must
/// be added to Q so that `qdd` happen, constraints left out), exact: ∂τ/∂q, ∂τ/∂q̇, ∂τ/∂u
/// and ∂τ/∂q̈ = M, as Pinocchio's `computeRNEADerivatives` gives them (which has no
/// inputs). They are what inverse-dynamics trajectory optimization and the linearization
/// run on: for a model without constraints, ∂q̈/∂x = −M⁻¹ ∂τ/∂x at the accelerations
/// ([`linearize`] does exactly that).
///
/// # Errors
/// [`DynamicsError::NonFiniteState`] for a non-finite state or input,
/// [`DynamicsError::InvalidSetting`] for non-finite accelerations, and
/// [`DynamicsError::NonFiniteResult`] where the derivatives are not finite.
pub fn inverse_dynamics_derivatives<T, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    qdd: &SVector<f64, N>,
    u: &SVector<f64, M>,
) -> Result<InverseDynamicsDerivatives<N, M>, DynamicsError>
where
    T: Model<N, M>,
{
    crate::eval::check_state::<T, N, M>(s, u)?;
    if !qdd.iter().all(|x| x.is_finite()) {
        return Err(DynamicsError::InvalidSetting(
            "the accelerations at which the inverse dynamics is differentiated must be finite",
        ));
    }
    built(|d: &mut InverseDynamicsDerivatives<N, M>| {
        derivatives_of_inverse_dynamics(model, s, qdd, u, true, true, d);
        let finite = |m: &[f64]| m.iter().all(|x| x.is_finite());
        if [
            d.forces.as_slice(),
            d.d_q.as_slice(),
            d.d_qd.as_slice(),
            d.d_u.as_slice(),
            d.mass.as_slice(),
        ]
        .into_iter()
        .all(finite)
        {
            Ok(())
        } else {
            Err(DynamicsError::NonFiniteResult {
                quantity: "derivatives of the inverse dynamics",
            })
        }
    })
}

// SAFETY: a vector and matrices of `f64`, for which all bits zero is 0.0.
unsafe impl<const N: usize, const M: usize> Zeroable for InverseDynamicsDerivatives<N, M> {}

/// [`inverse_dynamics_derivatives`] by dual numbers alone, never from the model's
/// structure (a robot's tree): the reference the tests hold the tree's derivatives to.
/// Not part of the public API.
#[doc(hidden)]
pub fn inverse_dynamics_derivatives_by_dual_numbers<T, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    qdd: &SVector<f64, N>,
    u: &SVector<f64, M>,
) -> InverseDynamicsDerivatives<N, M>
where
    T: Model<N, M>,
{
    let Ok(d) = built(|d: &mut InverseDynamicsDerivatives<N, M>| {
        derivatives_of_inverse_dynamics(model, s, qdd, u, false, true, d);
        Ok::<(), std::convert::Infallible>(())
    });
    d
}

/// [`inverse_dynamics_derivatives`] without the checks, into `d`: the columns along
/// (q, q̇) from the model's structure when it has one (and `structure`), else one
/// evaluation in dual numbers each; along u, from the forces (with `structure`) or in
/// dual numbers; the mass matrix; with `forces`, τ itself (from the structure with the
/// rest, else the model's inverse dynamics; the linearization does not read it).
fn derivatives_of_inverse_dynamics<T, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    qdd: &SVector<f64, N>,
    u: &SVector<f64, M>,
    structure: bool,
    forces: bool,
    d: &mut InverseDynamicsDerivatives<N, M>,
) where
    T: Model<N, M>,
{
    let x = Point::new(s, u);
    // From the model's structure, or one evaluation in dual numbers per column.
    let tree = structure
        && model.eval_inverse_dynamics_derivatives(
            &x,
            &(*qdd).into(),
            &mut d.d_q,
            &mut d.d_qd,
            &mut d.mass,
            forces.then_some(&mut d.forces),
        );
    if forces && !tree {
        d.forces = SVector::from(model.eval_inverse_dynamics_in(&x, &(*qdd).into()));
    }
    let from = if tree {
        2 * N
    } else {
        d.mass = model.mass_matrix(s, u);
        0
    };
    let a: [Dual64; N] = qdd.map(Dual64::from_re).into();
    let to = if structure && along_inputs(model, &x, &mut d.d_u) {
        2 * N
    } else {
        2 * N + M
    };
    for k in from..to {
        let column: SVector<f64, N> = model
            .eval_inverse_dynamics_in(&x.seeded(k), &a)
            .eps()
            .into();
        set_column((&mut d.d_q, &mut d.d_qd, &mut d.d_u), k, &column);
    }
}

/// [`linearize`] of a constrained model, by implicit differentiation of its KKT system
/// at the solution ([`Implicit`]): per column of (q, q̇, u) one evaluation of the inverse
/// dynamics and the constraints' rows in first-order dual numbers and one solve with the
/// KKT matrix factored once, rather than the whole constrained solve (the mass matrix and
/// its factorization included) in dual numbers per column.
fn constrained<T, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> Result<Linearization<N, M>, DynamicsError>
where
    T: Model<N, M>,
{
    T::Constraints::with(ConstrainedLinearization { model, s, u })
}

struct ConstrainedLinearization<'a, T, const N: usize, const M: usize> {
    model: &'a T,
    s: &'a State<N>,
    u: &'a SVector<f64, M>,
}

impl<T: Model<N, M>, const N: usize, const M: usize> WithCount
    for ConstrainedLinearization<'_, T, N, M>
{
    type Output = Result<Linearization<N, M>, DynamicsError>;

    fn run<const K: usize>(self) -> Self::Output {
        let (model, s, u) = (self.model, self.s, self.u);
        // A robot that is its tree alone: q̈ by the articulated-body algorithm, and the
        // rest from the derivatives' pass ([`Source::Tree`]); where that does not give
        // them, the KKT solve, which also says why there are none.
        let tree = if T::TREE_ACCELERATIONS && K == 1 {
            crate::constrained::along_tree::<T, N, M, K>(model, s, u, None)?
        } else {
            None
        };
        let solved;
        let source = match tree {
            Some((qdd, j)) => Source::Tree { qdd, j },
            None => {
                solved = Implicit::<N, K>::at(model, s, u)?;
                Source::Solved(&solved)
            }
        };
        // The tangent space of the constraint manifold in the state (q, q̇): the null space
        // of the holonomic constraints at position level and every constraint at velocity
        // level. A state variable that no constraint involves (the position of a cyclic
        // coordinate) gets its unit vector, exactly, so that the reduced Jacobian keeps its
        // exact zeros and `stability::spectrum` can split their eigenvalues off exactly.
        let tangent = constraints_in_state(model, s, u);
        linearized(
            model,
            s,
            u,
            &tangent,
            |x| rows::<T, N, M, K>(model, x),
            |x| targets::<T, N, M, K>(model, x),
            reads::<T, N, M>(),
            source,
        )
    }
}

/// The model's constraints' rows J at a dual point.
fn rows<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    x: &Point<Dual64, N, M>,
) -> SMatrix<Dual64, K, N> {
    crate::dual_passes::velocity_terms_in::<_, Dual64, N, M, K>(model, x).1
}

/// The targets of the model's constraints at acceleration level (J q̈ = γ) at a dual point.
fn targets<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    x: &Point<Dual64, N, M>,
) -> SVector<Dual64, K> {
    crate::dual_passes::gamma::<_, Dual64, N, M, K>(model, x)
}

/// How many coordinates the model's constraints read: those before the tree's
/// `constrained` (a floating base's seven), and their rates.
fn reads<T: Model<N, M>, const N: usize, const M: usize>() -> usize {
    T::MASS_TREE
        .filter(linalg::MassTree::is_valid)
        .map_or(N, |tree| tree.constrained)
}

/// The derivatives of the accelerations of a constrained model by implicit differentiation
/// of its KKT system `M q̈ + Jᵀλ = bias`, `J q̈ = γ` at its solution: along a direction,
/// `[M Jᵀ; J 0] (∂q̈, ∂λ) = −∂(M q̈ + Jᵀλ − bias, J q̈ − γ)` with q̈ and λ held, the
/// residuals' derivatives from one evaluation in first-order dual numbers (the inverse
/// dynamics, the constraints' rows and γ), the KKT matrix factored once
/// ([`linalg::kkt::Factored`]). [`linearize`] seeds (q, q̇, u), [`sensitivities`] the
/// parameters. Differentiating the whole solve instead nests the mass matrix in every
/// dual number: one such solve per column cost N sweeps each (the G1's linearization, 37
/// coordinates, took 3.6 ms), and vectors of duals as long as the parameters overflowed a
/// 2 MiB thread stack for 8 masses on rods (N = 16, P = 10).
pub(crate) struct Implicit<const N: usize, const R: usize> {
    kkt: linalg::kkt::Factored<f64, N, R>,
    /// q̈ and λ at the solution, as constants.
    qdd: SVector<Dual64, N>,
    lambda: SVector<Dual64, R>,
}

impl<const N: usize, const R: usize> Implicit<N, R> {
    /// At a solution (q̈, λ) of the KKT system factored as `kkt`.
    pub(crate) fn new(
        kkt: linalg::kkt::Factored<f64, N, R>,
        qdd: &SVector<f64, N>,
        lambda: &SVector<f64, R>,
    ) -> Self {
        Implicit {
            kkt,
            qdd: qdd.map(Dual64::from_re),
            lambda: lambda.map(Dual64::from_re),
        }
    }

    /// At the model's solution at `s`, `u` (its own R constraints), with the KKT matrix
    /// the solve factored: its errors those of the accelerations there.
    fn at<T: Model<N, M>, const M: usize>(
        model: &T,
        s: &State<N>,
        u: &SVector<f64, M>,
    ) -> Result<Self, DynamicsError> {
        let (solution, kkt) = crate::constrained::solution_and_factored::<T, N, M, R>(model, s, u)?;
        Ok(Implicit::new(
            kkt,
            &solution.accelerations,
            &solution.multipliers,
        ))
    }

    /// The residuals of the KKT system, given at a dual point the inverse dynamics
    /// M q̈ − bias (`dynamics`) and the rows J with their targets (J q̈ = target).
    fn residuals(
        &self,
        dynamics: [Dual64; N],
        (j, target): (SMatrix<Dual64, R, N>, SVector<Dual64, R>),
    ) -> (SVector<Dual64, N>, SVector<Dual64, R>) {
        (
            SVector::from(dynamics) + j.transpose() * self.lambda,
            j * self.qdd - target,
        )
    }

    /// ∂q̈ along a direction, from the residuals' derivatives along it.
    fn column(&self, (dynamics, velocity): (SVector<f64, N>, SVector<f64, R>)) -> SVector<f64, N> {
        -self.kkt.solve(&dynamics, &velocity).0
    }

    /// The solution of [`Source::Tree`], from the mass matrix and τ of the derivatives'
    /// pass: `None` for more than one row, a factorization that fails or multipliers that
    /// are not finite (the KKT solve then says why).
    fn from_tree(
        mass: &SMatrix<f64, N, N>,
        tau: &SVector<f64, N>,
        qdd: &SVector<f64, N>,
        j: &SMatrix<f64, R, N>,
        tree: Option<&linalg::MassTree<N>>,
    ) -> Option<Self> {
        if R != 1 {
            return None;
        }
        let row = j.row(0);
        let lambda =
            SVector::<f64, R>::from_element(-row.dot(&tau.transpose()) / row.norm_squared());
        if !linalg::all_finite(lambda.as_slice()) {
            return None;
        }
        let kkt = linalg::kkt::Factored::new(mass, j, j, &[false; R], tree).ok()?;
        Some(Implicit::new(kkt, qdd, &lambda))
    }
}

/// Where the linearization's solution (q̈, λ) and KKT factorization come from.
pub(crate) enum Source<'a, const N: usize, const R: usize> {
    /// The KKT solve's ([`Implicit::at`]), or the contacts' (`contact::linearize`).
    Solved(&'a Implicit<N, R>),
    /// A robot that is its tree alone, with its floating base's constraint (R = 1): q̈ by
    /// the articulated-body algorithm and J the constraint's row at the state. The
    /// derivatives' pass gives M and τ = M q̈ − f, which the solution makes −Jᵀλ, so
    /// λ = −(J τ)/(J Jᵀ); the KKT matrix is factored from that M. No evaluation of the
    /// model's equations (the G1's took 15 % of its linearization).
    Tree {
        qdd: SVector<f64, N>,
        j: SMatrix<f64, R, N>,
    },
}

/// The linearization of the solution at `s`, `u` (from `source`): the
/// columns along (q, q̇, u), at a dual point the rows J by `rows` and their targets by
/// `targets` (J q̈ = target), neither of which reads the inputs, nor any coordinate
/// from the `reads`-th on, nor its rate (so that a tree's columns along those take
/// neither); the tangent basis the
/// null space of `tangent`, the constraints' rows in the state (q, q̇); checked finite.
/// The rows, velocity forms affine in q̇, depend on (q, t) alone, so only the columns
/// along q evaluate them. Where [`Source::Tree`] does not give the solution (the tree's
/// pass or the factorization from it fails), the model's KKT solve does, or says why
/// there is none. The model's own constraints ([`linearize`]) and those with contacts
/// held (`contact::linearize`) both take it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn linearized<T: Model<N, M>, const N: usize, const M: usize, const R: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    tangent: &DMatrix<f64>,
    rows: impl Fn(&Point<Dual64, N, M>) -> SMatrix<Dual64, R, N>,
    targets: impl Fn(&Point<Dual64, N, M>) -> SVector<Dual64, R>,
    reads: usize,
    source: Source<'_, N, R>,
) -> Result<Linearization<N, M>, DynamicsError> {
    let tangent = linalg::null_space(tangent);
    let x = Point::new(s, u);
    // ∂τ/∂q and ∂τ/∂q̇ from the model's structure where it has one, and ∂τ/∂u from
    // the forces, in `d`.
    with_scratch(|d: &mut InverseDynamicsDerivatives<N, M>| {
        let by_forces = along_inputs(model, &x, &mut d.d_u);
        let derivatives =
            |qdd: &SVector<f64, N>, d: &mut InverseDynamicsDerivatives<N, M>, forces: bool| {
                model.eval_inverse_dynamics_derivatives(
                    &x,
                    &(*qdd).into(),
                    &mut d.d_q,
                    &mut d.d_qd,
                    &mut d.mass,
                    forces.then_some(&mut d.forces),
                )
            };
        let (built, solved);
        let (this, tree) = match source {
            Source::Solved(implicit) => {
                (implicit, derivatives(&implicit.qdd.map(|a| a.re), d, false))
            }
            Source::Tree { qdd, j } => {
                let tree = derivatives(&qdd, d, true);
                let from_tree = tree
                    .then_some(T::MASS_TREE)
                    .and_then(|t| Implicit::from_tree(&d.mass, &d.forces, &qdd, &j, t.as_ref()));
                if let Some(implicit) = from_tree {
                    built = implicit;
                    (&built, tree)
                } else {
                    solved = Implicit::<N, R>::at(model, s, u)?;
                    (&solved, derivatives(&solved.qdd.map(|a| a.re), d, false))
                }
            }
        };
        let d = &*d;
        let (qdd, lambda) = (this.qdd.map(|a| a.re), this.lambda.map(|l| l.re));
        with_scratch(|lin: &mut Blocks<N, M>| {
            // The q̈ part of the KKT matrix's inverse, [A B] (A along the dynamics,
            // formed at once; B along the rows' targets, from R solves): then each of
            // the 2N + M columns is −(A ∂f + B ∂γ), two products instead of a solve
            // (the G1's 107 solves along the tree were a third of its linearization).
            with_scratch(|inverse: &mut SMatrix<f64, N, N>| {
                this.kkt.dynamics_inverse_into(inverse);
                let mut along_targets = SMatrix::<f64, N, R>::zeros();
                for r in 0..R {
                    let (x, _) = this.kkt.solve(&SVector::zeros(), &unit(r));
                    along_targets.set_column(r, &x);
                }
                // A column of ∂τ/∂(q, q̇, u) where it is one of `d`'s, else `own`, with
                // the rows' part beside it.
                let mut own: SVector<f64, N>;
                for k in 0..2 * N + M {
                    let mut velocity = SVector::<f64, R>::zeros();
                    let dynamics: &[f64] = if k >= 2 * N && by_forces {
                        // The rows and their targets do not read the inputs: along an
                        // input, only the inverse dynamics moves.
                        block::<N>(d.d_u.as_slice(), k - 2 * N)
                    } else if tree && k < 2 * N {
                        let column = if k < N {
                            block::<N>(d.d_q.as_slice(), k)
                        } else {
                            block::<N>(d.d_qd.as_slice(), k - N)
                        };
                        // Along a coordinate the rows do not read, or its rate, they stay.
                        if k % N >= reads {
                            column
                        } else {
                            let x = x.seeded(k);
                            if k < N {
                                let j = rows(&x).map(|e| e.eps);
                                own = SVector::from_column_slice(column) + j.transpose() * lambda;
                                velocity = j * qdd - targets(&x).eps();
                                own.as_slice()
                            } else {
                                velocity = -targets(&x).eps();
                                column
                            }
                        }
                    } else {
                        let x = x.seeded(k);
                        let dynamics =
                            SVector::from(model.eval_inverse_dynamics_in(&x, &this.qdd.into()));
                        (own, velocity) = match k {
                            k if k < N => this
                                .residuals(dynamics.into(), (rows(&x), targets(&x)))
                                .eps(),
                            k if k < 2 * N => (dynamics.eps(), -targets(&x).eps()),
                            _ => (dynamics.eps(), SVector::zeros()),
                        };
                        own.as_slice()
                    };
                    // Over the entries that are not zero (a tree's ∂τ/∂q_k is zero off k's
                    // ancestors and subtree, an input's column is often a unit one),
                    // through the column-major slices, into the column in place.
                    // (A matrix's own `iter` steps a two-level iterator per entry.)
                    let column = lin.column_mut(k);
                    column.fill(0.0);
                    let products = dynamics
                        .iter()
                        .zip(inverse.as_slice().chunks_exact(N))
                        .chain(
                            velocity
                                .as_slice()
                                .iter()
                                .zip(along_targets.as_slice().chunks_exact(N)),
                        );
                    for (&c, a) in products {
                        if c != 0.0 {
                            for (x, a) in column.iter_mut().zip(a) {
                                *x -= c * a;
                            }
                        }
                    }
                }
            });
            lin.linearization(s, u, qdd, tangent)
        })
    })
}

/// Column `c` of a column-major matrix of N rows held as its slice.
fn block<const N: usize>(matrix: &[f64], c: usize) -> &[f64] {
    &matrix[c * N..(c + 1) * N]
}

/// The sensitivities ∂q̈/∂p of the accelerations to the model's parameters (column j: the
/// derivative with respect to parameter j, in declaration order), exact: each parameter in
/// turn becomes a first-order dual number, the residual of the equations of motion (for
/// constrained models, of the constrained system with its multipliers) is evaluated in
/// it at the accelerations, and one solve with the mass matrix (the KKT matrix) turns
/// its derivative into that of q̈. The stack stays small for any numbers of coordinates,
/// constraints and parameters. For system identification and gradient-based design.
///
/// # Errors
/// As [`Dynamics::accelerations`] at that state.
///
/// # Example
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::linearize::sensitivities;
///
/// lagrangian! {
///     struct Pendulum {
///         parameters: m = 1.0, l = 2.0, g = 9.81;
///         coordinates: theta;
///         kinetic = m/2 * l^2 * dot(theta)^2;
///         potential = -m * g * l * cos(theta);
///     }
/// }
///
/// let s = State::at_rest(SVector::from([0.5]));
/// let d = sensitivities(&Pendulum::default(), &s, &SVector::zeros()).unwrap();
/// // θ̈ = −(g/l) sin θ: ∂/∂m = 0, ∂/∂l = (g/l²) sin θ, ∂/∂g = −sin θ / l
/// assert_eq!(d[(0, 0)], 0.0);
/// assert!((d[(0, 1)] - 9.81 / 4.0 * 0.5f64.sin()).abs() < 1e-14);
/// assert!((d[(0, 2)] - -0.5f64.sin() / 2.0).abs() < 1e-15);
/// ```
pub fn sensitivities<T, const N: usize, const M: usize, const P: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> Result<SMatrix<f64, N, P>, DynamicsError>
where
    T: Parametric<N, M, P>,
{
    let d = if !T::has_constraints() {
        // Column k: −M⁻¹ ∂(M a − bias)/∂p_k at a = q̈, one sweep per parameter.
        let accelerations = model.accelerations(s, u)?;
        let values = model.parameter_values();
        let mass = crate::eval::equations(model, s, u).mass;
        let chol = crate::linalg::factor_mass(&mass, &<T as Model<N, M>>::COORDINATES)?;
        let x = Point::new(s, u).map(Dual64::from_re);
        let qdd: [Dual64; N] = accelerations.map(Dual64::from_re).into();
        let mut d = SMatrix::<f64, N, P>::zeros();
        let columns = forward_jacobian(&values, |p| model.eval_inverse_dynamics_with(p, &x, &qdd));
        for (k, r) in columns.enumerate() {
            d.set_column(k, &-chol.solve(&r.into()));
        }
        d
    } else {
        T::Constraints::with(ConstrainedSensitivities { model, s, u })?
    };
    if d.iter().all(|x| x.is_finite()) {
        Ok(d)
    } else {
        Err(sensitivities_not_finite())
    }
}

fn sensitivities_not_finite() -> DynamicsError {
    DynamicsError::NonFiniteResult {
        quantity: "parameter sensitivities",
    }
}

/// [`sensitivities`] of a constrained model: [`Implicit`], one column per parameter.
struct ConstrainedSensitivities<'a, T, const N: usize, const M: usize, const P: usize> {
    model: &'a T,
    s: &'a State<N>,
    u: &'a SVector<f64, M>,
}

impl<T, const N: usize, const M: usize, const P: usize> WithCount
    for ConstrainedSensitivities<'_, T, N, M, P>
where
    T: Parametric<N, M, P>,
{
    type Output = Result<SMatrix<f64, N, P>, DynamicsError>;

    fn run<const K: usize>(self) -> Self::Output {
        let (model, s, u) = (self.model, self.s, self.u);
        let implicit = Implicit::<N, K>::at(model, s, u)?;
        let x = Point::new(s, u).map(Dual64::from_re);
        let residuals = |p: &[Dual64; P]| {
            let terms = WithParameters {
                model,
                parameters: *p,
            };
            let dynamics = model.eval_inverse_dynamics_with(p, &x, &implicit.qdd.into());
            let (_, j) = crate::dual_passes::velocity_terms_in::<_, Dual64, N, M, K>(&terms, &x);
            let gamma = crate::dual_passes::gamma::<_, Dual64, N, M, K>(&terms, &x);
            implicit.residuals(dynamics, (j, gamma))
        };
        let mut d = SMatrix::<f64, N, P>::zeros();
        for (k, column) in forward_jacobian(&model.parameter_values(), residuals).enumerate() {
            d.set_column(k, &implicit.column(column));
        }
        Ok(d)
    }
}
