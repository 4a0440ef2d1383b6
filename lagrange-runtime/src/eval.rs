//! The Euler–Lagrange equations of a [`Model`], evaluated with exact forward-mode AD.
//!
//! With L = T − V, the equations of motion
//!
//! ```text
//! d/dt ∂L/∂q̇ − ∂L/∂q = Q,    Q = Σ F ∂p/∂q − ∂D/∂q̇
//! d/dt ∂L/∂q̇ = ∂²L/∂q̇² q̈ + ∂²L/∂q̇∂q q̇ + ∂²L/∂q̇∂t
//! ```
//!
//! give q̈ from one linear solve with the mass matrix ∂²L/∂q̇²:
//!
//! ```text
//! ∂²L/∂q̇² q̈ = ∂L/∂q − (∂²L/∂q̇∂q q̇ + ∂²L/∂q̇∂t) + Q
//! ```
//!
//! In plain `f64` at a [`State`], what an acceleration, a mass matrix or an
//! inverse-dynamics evaluation needs is the [`Equations`], and [`equations`] takes them
//! from the model's (hidden) `Model::eval_equations`: the generic dual-number passes by default, and for every model
//! `lagrangian!` generates the same second-order forward-mode AD, unrolled at compile time
//! into straight-line `f64` code that computes only the derivative components that are not
//! structurally zero, shares every intermediate (the trigonometry of a coordinate is
//! evaluated once) and carries `dot` as a component rather than a nested dual. Its
//! right-hand side leaves out what cancels between ∂L/∂q and d/dt ∂L/∂q̇ (for a kinetic
//! term ½ m ẋ², m ẋ ∂ẋ/∂q), so it agrees with the generic passes to rounding
//! (`tests/fast_path.rs`) and is exact where their subtraction is not. It makes
//! `accelerations` of the double pendulum cost what the hand-written closed form costs
//! (`cargo bench --bench accelerations`).
//!
//! These functions are what the blanket [`Dynamics`](crate::Dynamics) impl calls for a
//! model without constraints (with constraints, [`constrained`](crate::constrained)), and
//! what the rest of the runtime builds on.

use crate::dual_passes;
use crate::error::{DynamicsError, StatePart};
use crate::linalg::{cholesky_solve, solve_mass};
use crate::model::{Equations, Model, Point};
use crate::State;
use nalgebra::{Const, SMatrix, SVector, U1};
use num_dual::DualSVec;
use std::array::from_fn;

/// L = T − V.
pub(crate) fn lagrangian<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> f64 {
    model.eval_lagrangian(&Point::new(s, u))
}

/// L and the momenta p = ∂L/∂q̇ from one pass.
fn lagrangian_and_momenta<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> (f64, SVector<f64, N>) {
    let x = Point::new(s, u).map(DualSVec::from_re);
    let qd = from_fn(|i| DualSVec::from_re(s.qd[i]).derivative(i));
    let l = model.eval_lagrangian(&Point { qd, ..x });
    (l.re, l.eps.unwrap_generic(Const::<N>, U1))
}

/// The generalized momenta p = ∂L/∂q̇.
pub(crate) fn momenta<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> SVector<f64, N> {
    lagrangian_and_momenta(model, s, u).1
}

/// The energy function (Jacobi integral) h = q̇·∂L/∂q̇ − L; T + V for a natural system.
pub(crate) fn energy<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> f64 {
    let (l, p) = lagrangian_and_momenta(model, s, u);
    p.dot(&s.qd) - l
}

/// The mass matrix ∂²L/∂q̇², the momenta ∂L/∂q̇ and the value of L, from one second-order
/// pass over q̇.
pub(crate) fn mass_and_momenta<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> (SMatrix<f64, N, N>, SVector<f64, N>, f64) {
    let e = equations(model, s, u);
    (e.mass, e.momenta, e.lagrangian)
}

/// The [`Equations`] at a state: the model's (hidden) `Model::eval_equations`,
/// which is code specialised to the model for every model `lagrangian!` generates and
/// the generic dual-number passes otherwise.
///
/// # Example
/// A pendulum: M = m l², the bias −m g l sin θ, the momentum m l² θ̇.
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::eval::equations;
///
/// lagrangian! {
///     struct Pendulum {
///         parameters: m = 2.0, l = 0.5, g = 9.81;
///         coordinates: theta;
///         kinetic = m/2 * l^2 * dot(theta)^2;
///         potential = -m * g * l * cos(theta);
///     }
/// }
///
/// let s = State::new(0.0, SVector::from([0.3]), SVector::from([1.5]));
/// let e = equations(&Pendulum::default(), &s, &SVector::zeros());
/// assert!((e.mass[(0, 0)] - 0.5).abs() < 1e-15);
/// assert!((e.bias[0] - -2.0 * 9.81 * 0.5 * 0.3f64.sin()).abs() < 1e-14);
/// assert!((e.momenta[0] - 0.5 * 1.5).abs() < 1e-15);
/// ```
#[inline]
pub fn equations<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> Equations<N> {
    model.eval_equations(&Point::new(s, u))
}

/// The mass matrix ∂²L/∂q̇² (symmetric).
pub(crate) fn mass_matrix<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> SMatrix<f64, N, N> {
    model.eval_mass_matrix(&Point::new(s, u))
}

/// The generalized forces Q = Σ F·∂v/∂q̇ − ∂D/∂q̇ of the applied forces and torques
/// (v the velocity of the point a force acts on, or the angular velocity of the body a
/// torque acts on; for a point p, ∂ṗ/∂q̇ = ∂p/∂q) and the dissipation.
pub(crate) fn generalized_forces<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> SVector<f64, N> {
    SVector::from(dual_passes::generalized_forces_in(model, &Point::new(s, u)))
}

/// The accelerations q̈ that solve the Euler–Lagrange equations at this state.
///
/// # Errors
/// A non-finite state or input, a singular or indefinite mass matrix (naming the
/// coordinate whose velocity the kinetic energy lacks, where that is the cause), or a
/// non-finite intermediate result.
pub(crate) fn accelerations<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> Result<SVector<f64, N>, DynamicsError> {
    check_state::<T, N, M>(s, u)?;
    let Equations {
        mass,
        bias: rhs,
        lagrangian: value,
        ..
    } = equations(model, s, u);
    // The common case in a few comparisons: everything finite, the mass matrix clearly
    // positive definite. Anything else goes through the checks below, which say why.
    if value.is_finite()
        && mass.sum().is_finite()
        && let Some(qdd) = cholesky_solve(&mass, &rhs, T::MASS_TREE.as_ref())
        && qdd.iter().all(|x| x.is_finite())
    {
        return Ok(qdd);
    }
    if !value.is_finite() {
        // ln or log10 of a negative number, say: derivatives can look finite there.
        return Err(DynamicsError::NonFiniteResult {
            quantity: "Lagrangian",
        });
    }
    if !rhs.iter().all(|x| x.is_finite()) {
        return Err(DynamicsError::NonFiniteResult {
            quantity: "forces of the equations of motion",
        });
    }
    let qdd = solve_mass(&mass, &rhs, &T::COORDINATES)?;
    if qdd.iter().all(|x| x.is_finite()) {
        Ok(qdd)
    } else {
        Err(DynamicsError::NonFiniteResult {
            quantity: "accelerations",
        })
    }
}

/// The generalized force that must be added to Q for the accelerations `qdd` to happen:
/// M q̈ − ∂L/∂q + ∂²L/∂q̇∂q q̇ + ∂²L/∂q̇∂t − Q. Zero when `qdd` is
/// [`accelerations`]`(s, u)`. One pass along q̈ ([`Model::eval_inverse_dynamics_in`]),
/// without the mass matrix.
pub(crate) fn inverse_dynamics<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    qdd: &SVector<f64, N>,
    u: &SVector<f64, M>,
) -> SVector<f64, N> {
    let (x, qdd) = (Point::new(s, u), (*qdd).into());
    let mut tau = [0.0; N];
    if model.eval_tree_inverse_dynamics(&x, &qdd, &mut tau) {
        return tau.into();
    }
    model.eval_inverse_dynamics_in(&x, &qdd).into()
}

/// Rejects a state or input holding NaN or an infinity, naming the culprit.
pub fn check_state<T: Model<N, M>, const N: usize, const M: usize>(
    s: &State<N>,
    u: &SVector<f64, M>,
) -> Result<(), DynamicsError> {
    check_finite(s, u, &T::COORDINATES, &T::INPUTS)
}

/// [`check_state`] with the names given: the first non-finite value of `s` or `u`.
pub(crate) fn check_finite<const N: usize, const M: usize>(
    s: &State<N>,
    u: &SVector<f64, M>,
    coordinates: &[&'static str; N],
    inputs: &[&'static str; M],
) -> Result<(), DynamicsError> {
    // The common case in one comparison: the sum of `zero_if_finite` of every value.
    let mut zeros = zero_if_finite(s.t);
    for i in 0..N {
        zeros += zero_if_finite(s.q[i]) + zero_if_finite(s.qd[i]);
    }
    for i in 0..M {
        zeros += zero_if_finite(u[i]);
    }
    if zeros == 0.0 {
        return Ok(());
    }
    let bad = |part, name| Err(DynamicsError::NonFiniteState { part, name });
    if !s.t.is_finite() {
        return bad(StatePart::Time, "t");
    }
    for ((q, qd), &name) in s.q.iter().zip(&s.qd).zip(coordinates) {
        if !q.is_finite() {
            return bad(StatePart::Coordinate, name);
        }
        if !qd.is_finite() {
            return bad(StatePart::Velocity, name);
        }
    }
    match u.iter().zip(inputs).find(|(u, _)| !u.is_finite()) {
        Some((_, &name)) => bad(StatePart::Input, name),
        None => Ok(()),
    }
}

/// x − x: +0 for every finite x, NaN for an infinity or NaN; so a sum of them is zero
/// exactly when every value is finite, without a branch per value.
#[inline]
#[allow(clippy::eq_op)]
fn zero_if_finite(x: f64) -> f64 {
    x - x
}
