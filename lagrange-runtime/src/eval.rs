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
//! Each term comes from one pass of a dual number through the model's expressions:
//! a second-order dual over q̇ gives the mass matrix and the momenta; a hyper-dual whose
//! first part seeds q̇ and whose second part is the direction (q̇, 1) in (q, t) gives the
//! mixed term; a first-order dual over q gives ∂L/∂q. All numbers live on the stack: no
//! call here allocates.
//!
//! These passes work for any [`Model`], in any [`Scalar`] (so their results can be
//! differentiated again: linearization, parameter sensitivities). In plain `f64`, what an
//! acceleration, a mass matrix or an inverse-dynamics evaluation needs is the
//! [`Equations`], and [`equations`] takes them from [`Model::eval_equations`]: these
//! passes by default, and for every model `lagrangian!` generates the same
//! second-order forward-mode AD, unrolled at compile time into straight-line `f64` code
//! that computes only the derivative components that are not structurally zero, shares
//! every intermediate (the trigonometry of a coordinate is evaluated once) and carries
//! `dot` as a component rather than a nested dual. It agrees with the generic passes to
//! rounding ([`equations_generic`] is the reference `tests/fast_path.rs` checks it
//! against) and makes `accelerations` of the double pendulum cost what the hand-written
//! closed form costs (`cargo bench --bench accelerations`).
//!
//! These functions are what the generated [`Dynamics`](crate::Dynamics) impls call; use them
//! directly for a [`Model`] written by hand.

use crate::error::{DynamicsError, StatePart};
use crate::linalg::{cholesky_solve, solve_mass};
use crate::model::{Model, Scalar, Terms};
use crate::State;
use nalgebra::{Const, SMatrix, SVector, U1};
use num_dual::{Derivative, Dual2Vec, DualSVec, DualVec, HyperDualVec};
use std::array::from_fn;

/// L = T − V.
pub fn lagrangian<T: Model<N, M>, const N: usize, const M: usize>(
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
pub fn momenta<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> SVector<f64, N> {
    lagrangian_and_momenta(model, s, u).1
}

/// The energy function (Jacobi integral) h = q̇·∂L/∂q̇ − L; T + V for a natural system.
pub fn energy<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> f64 {
    let (l, p) = lagrangian_and_momenta(model, s, u);
    p.dot(&s.qd) - l
}

/// A state and inputs in any [`Scalar`]: with dual numbers, the functions taking a
/// `Point` differentiate the dynamics with respect to whatever the duals carry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point<S, const N: usize, const M: usize> {
    /// Time.
    pub t: S,
    /// Coordinates.
    pub q: [S; N],
    /// Velocities.
    pub qd: [S; N],
    /// Inputs.
    pub u: [S; M],
}

/// `values` as first-order dual numbers with entry `k` seeded (derivative one) and the
/// others constant: the input of one forward-mode column of a Jacobian. A `k` past the end
/// seeds none (the column belongs to another block of unknowns).
pub(crate) fn seed_column<const N: usize>(values: &[f64; N], k: usize) -> [num_dual::Dual64; N] {
    from_fn(|i| {
        let x = num_dual::Dual64::from_re(values[i]);
        if i == k {
            x.derivative()
        } else {
            x
        }
    })
}

impl<const N: usize, const M: usize> Point<f64, N, M> {
    /// The point of a state and inputs.
    pub fn new(s: &State<N>, u: &SVector<f64, M>) -> Self {
        Point {
            t: s.t,
            q: s.q.into(),
            qd: s.qd.into(),
            u: (*u).into(),
        }
    }
}

impl<S: Copy, const N: usize, const M: usize> Point<S, N, M> {
    /// Every value of the point through `f`: `x.map(D::from_re)` lifts it into the dual
    /// numbers `D` with zero derivatives, to be seeded where a pass needs them.
    #[inline]
    pub fn map<D>(&self, mut f: impl FnMut(S) -> D) -> Point<D, N, M> {
        Point {
            t: f(self.t),
            q: self.q.map(&mut f),
            qd: self.qd.map(&mut f),
            u: self.u.map(&mut f),
        }
    }
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

/// The terms of the equations of motion M q̈ = `bias` at one state, in `f64` unless
/// another scalar is named: what one acceleration, one mass matrix or one
/// inverse-dynamics evaluation needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Equations<const N: usize, S = f64> {
    /// The mass matrix ∂²L/∂q̇² (symmetric).
    pub mass: SMatrix<S, N, N>,
    /// The momenta ∂L/∂q̇.
    pub momenta: SVector<S, N>,
    /// Everything but the inertial term: ∂L/∂q − ∂²L/∂q̇∂q q̇ − ∂²L/∂q̇∂t + Q.
    pub bias: SVector<S, N>,
    /// The value of L.
    pub lagrangian: S,
}

/// The [`Equations`] at a state: the model's [`eval_equations`](Model::eval_equations),
/// which is code specialised to the model for every model `lagrangian!` generates and
/// [`equations_generic`] otherwise.
#[inline]
pub fn equations<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> Equations<N> {
    model.eval_equations(&Point::new(s, u))
}

/// The [`Equations`] from the generic passes of num-dual numbers through
/// [`Model::eval_lagrangian`] and the other terms: a second-order dual over q̇ for the mass
/// matrix, a hyper-dual for ∂²L/∂q̇∂q q̇ + ∂²L/∂q̇∂t, a first-order dual over q for ∂L/∂q.
/// The reference the generated fast paths are tested against.
pub fn equations_generic<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> Equations<N> {
    equations_generic_in(model, &Point::new(s, u))
}

/// [`equations_generic`] at a [`Point`] in any scalar: the default of
/// [`Model::eval_equations`] and [`Model::eval_equations_in`].
pub fn equations_generic_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> Equations<N, S> {
    let (mass, momenta, lagrangian) = mass_and_momenta_in(model, x);
    Equations {
        mass,
        momenta,
        bias: bias_in(model, x),
        lagrangian,
    }
}

/// The first derivatives of L at a point, and the generalized forces there: what the
/// discrete Euler–Lagrange equations of the variational integrators need (their Newton
/// Jacobian differentiates it once more with dual numbers), without the second
/// derivatives the [`Equations`] carry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gradient<const N: usize, S = f64> {
    /// ∂L/∂q.
    pub coordinates: SVector<S, N>,
    /// The momenta ∂L/∂q̇.
    pub momenta: SVector<S, N>,
    /// The generalized forces Q = Σ F·∂v/∂q̇ − ∂D/∂q̇ of the applied forces and the
    /// dissipation (see [`generalized_forces`]).
    pub forces: SVector<S, N>,
    /// The value of L.
    pub lagrangian: S,
}

/// The [`Gradient`] at a [`Point`] in any scalar from the generic passes: a first-order
/// dual over q, one over q̇, and [`generalized_forces_in`]. The default of
/// [`Model::eval_gradient_in`], and the reference its overrides are tested against.
pub fn gradient_generic_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> Gradient<N, S> {
    type V<S, const N: usize> = DualVec<S, Const<N>>;
    let qd = from_fn(|i| V::from_re(x.qd[i]).derivative(i));
    let l = model.lagrangian(&Point {
        qd,
        ..x.map(V::from_re)
    });
    Gradient {
        coordinates: lagrangian_gradient_q(model, x),
        momenta: l.eps.unwrap_generic(Const::<N>, U1),
        forces: SVector::from(generalized_forces_in(model, x)),
        lagrangian: l.re,
    }
}

/// [`mass_matrix`], the momenta and the value of L at a [`Point`] in any scalar.
pub fn mass_and_momenta_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> (SMatrix<S, N, N>, SVector<S, N>, S) {
    type D<S, const N: usize> = Dual2Vec<S, Const<N>>;
    let qd = from_fn(|i| D::from_re(x.qd[i]).derivative(i));
    let l = model.lagrangian(&Point {
        qd,
        ..x.map(D::from_re)
    });
    let p = l.v1.unwrap_generic(U1, Const::<N>).transpose();
    (l.v2.unwrap_generic(Const::<N>, Const::<N>), p, l.re)
}

/// The mass matrix ∂²L/∂q̇² (symmetric).
pub fn mass_matrix<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> SMatrix<f64, N, N> {
    model.eval_mass_matrix(&Point::new(s, u))
}

/// The velocity-dependent part of d/dt ∂L/∂q̇: ∂²L/∂q̇∂q q̇ + ∂²L/∂q̇∂t.
///
/// One hyper-dual pass: ε₁ seeds each q̇ᵢ, ε₂ moves (q, t) along (q̇, 1), so the ε₁ε₂ part
/// is ∂/∂q̇ᵢ of the derivative of L along the motion with q̇ held fixed.
fn mixed_term<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> SVector<S, N> {
    type H<S, const N: usize> = HyperDualVec<S, Const<N>, U1>;
    let qd: [H<S, N>; N] = from_fn(|i| H::from_re(x.qd[i]).derivative1(i));
    let q: [H<S, N>; N] = from_fn(|i| {
        let mut qi = H::from_re(x.q[i]);
        qi.eps2 = Derivative::some(SMatrix::<S, 1, 1>::new(x.qd[i]));
        qi
    });
    let t = H::from_re(x.t).derivative2(0);
    let l = model.lagrangian(&Point {
        t,
        q,
        qd,
        u: x.u.map(H::from_re),
    });
    l.eps1eps2.unwrap_generic(Const::<N>, U1)
}

/// ∂L/∂q.
fn lagrangian_gradient_q<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> SVector<S, N> {
    type V<S, const N: usize> = DualVec<S, Const<N>>;
    let q = from_fn(|i| V::from_re(x.q[i]).derivative(i));
    let l = model.lagrangian(&Point {
        q,
        ..x.map(V::from_re)
    });
    l.eps.unwrap_generic(Const::<N>, U1)
}

/// The generalized forces Q = Σ F·∂v/∂q̇ − ∂D/∂q̇ of the applied forces and torques
/// (v the velocity of the point a force acts on, or the angular velocity of the body a
/// torque acts on; for a point p, ∂ṗ/∂q̇ = ∂p/∂q) and the dissipation.
pub fn generalized_forces<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> SVector<f64, N> {
    SVector::from(generalized_forces_in(model, &Point::new(s, u)))
}

/// [`generalized_forces`] in any [`Scalar`]: with dual numbers for
/// the arguments, it gives the exact derivatives of Q (the variational integrator's Newton
/// Jacobian, linearizations).
pub fn generalized_forces_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> [S; N] {
    type V<S, const N: usize> = DualVec<S, Const<N>>;
    let mut total = [S::zero(); N];
    if !T::HAS_FORCES && !T::HAS_DISSIPATION {
        return total;
    }
    let qd = from_fn(|i| V::new(x.qd[i], Derivative::derivative_generic(Const::<N>, U1, i)));
    let seeded = Point {
        qd,
        ..x.map(V::from_re)
    };
    if T::HAS_FORCES {
        // Virtual power: Q_j += F · ∂v/∂q̇_j, v linear in q̇ (ṗ of a point, ω of a body).
        model.forces(&seeded, |f, v| {
            let dv = v.eps.unwrap_generic(Const::<N>, U1);
            for (total, dv) in total.iter_mut().zip(dv.iter()) {
                *total += f.re * *dv;
            }
        });
    }
    if T::HAS_DISSIPATION {
        let d = model.dissipation(&seeded);
        let dd = d.eps.unwrap_generic(Const::<N>, U1);
        for (total, dd) in total.iter_mut().zip(dd.iter()) {
            *total -= *dd;
        }
    }
    total
}

/// Everything but the inertial term M q̈ (∂L/∂q − ∂²L/∂q̇∂q q̇ − ∂²L/∂q̇∂t + Q) at a
/// [`Point`] in any scalar.
pub fn bias_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> SVector<S, N> {
    let forces = generalized_forces_in(model, x);
    lagrangian_gradient_q(model, x) - mixed_term(model, x) + SVector::from(forces)
}

/// The accelerations of an unconstrained model at a [`Point`] in any scalar from the
/// generic passes, by LU on the mass matrix (no diagnostics: `None` when it is singular).
/// With dual numbers this differentiates the accelerations exactly; parameter
/// sensitivities use it.
pub fn accelerations_generic_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> Option<SVector<S, N>> {
    let (mass, _, _) = mass_and_momenta_in(model, x);
    crate::linalg::solve(mass, bias_in(model, x))
}

/// The accelerations q̈ that solve the Euler–Lagrange equations at this state.
///
/// # Errors
/// A non-finite state or input, a singular or indefinite mass matrix (naming the
/// coordinate whose velocity the kinetic energy lacks, where that is the cause), or a
/// non-finite intermediate result.
pub fn accelerations<T: Model<N, M>, const N: usize, const M: usize>(
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
    if value.is_finite() && mass.sum().is_finite() {
        if let Some(qdd) = cholesky_solve(&mass, &rhs) {
            if qdd.iter().all(|x| x.is_finite()) {
                return Ok(qdd);
            }
        }
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
pub fn inverse_dynamics<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    qdd: &SVector<f64, N>,
    u: &SVector<f64, M>,
) -> SVector<f64, N> {
    model
        .eval_inverse_dynamics_in(&Point::new(s, u), &(*qdd).into())
        .into()
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
