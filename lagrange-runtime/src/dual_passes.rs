//! The generic passes: the terms of the equations of motion from num-dual numbers pushed
//! through a model's [`Terms`], for any model and in any [`Scalar`] (so that their results
//! can be differentiated again).
//!
//! - [`equations_in`]: a second-order dual over q̇ gives the mass matrix and the momenta; a
//!   hyper-dual whose first part seeds q̇ and whose second part is the direction (q̇, 1) in
//!   (q, t) gives ∂²L/∂q̇∂q q̇ + ∂²L/∂q̇∂t; a first-order dual over q gives ∂L/∂q.
//! - [`gradient_in`]: the first derivatives alone (the variational integrators' residual).
//! - [`accelerations_in`]: q̈ from them, with K constraints solved with their multipliers.
//!
//! They are the defaults of the [`Model`](crate::model::Model) methods a model written by
//! hand does not override, and the reference the code `lagrangian!` generates is tested
//! against (`tests/fast_path.rs`, through `__private::passes`). Crate-private: a user
//! reaches them through those methods ([`Model::eval_equations_in`](crate::model::Model::eval_equations_in),
//! [`Model::eval_accelerations_in`](crate::model::Model::eval_accelerations_in), …); the
//! public `passes` module of earlier releases forwards here, deprecated. All numbers live on
//! the stack: no call here allocates.

use crate::linalg;
use crate::scalar::Scalar;
use crate::terms::{Equations, Gradient, Level, Point, Terms};
use nalgebra::{Const, SMatrix, SVector, U1};
use num_dual::{Derivative, Dual, Dual2Vec, DualVec, HyperDualVec};
use std::array::from_fn;

/// The [`Equations`] at a [`Point`] in any scalar: mass matrix, momenta and L from one
/// second-order pass over q̇, the bias from `bias_in`. The default of the (hidden)
/// `Model::eval_equations` and of
/// [`Model::eval_equations_in`](crate::model::Model::eval_equations_in).
pub fn equations_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
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

/// The [`Gradient`] at a [`Point`] in any scalar from the generic passes: a first-order
/// dual over q, one over q̇, and `generalized_forces_in`. The default of
/// [`Model::eval_gradient_in`](crate::model::Model::eval_gradient_in), and the reference its overrides are tested against.
pub fn gradient_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> Gradient<N, S> {
    let l = model.lagrangian(&velocities_seeded(x));
    Gradient {
        coordinates: lagrangian_gradient_q(model, x),
        momenta: l.eps.unwrap_generic(Const::<N>, U1),
        forces: SVector::from(generalized_forces_in(model, x)),
        lagrangian: l.re,
    }
}

/// The mass matrix ∂²L/∂q̇², the momenta and the value of L at a [`Point`] in any scalar.
pub(crate) fn mass_and_momenta_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
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

/// `x` in vector dual numbers over the velocities (q̇_i with derivative e_i, the rest
/// constant): one evaluation there gives a quantity's gradient with respect to q̇.
pub(crate) fn velocities_seeded<S: Scalar, const N: usize, const M: usize>(
    x: &Point<S, N, M>,
) -> Point<DualVec<S, Const<N>>, N, M> {
    Point {
        qd: from_fn(|i| DualVec::<S, Const<N>>::from_re(x.qd[i]).derivative(i)),
        ..x.map(DualVec::from_re)
    }
}

/// Whether a model's point seeded over its velocities in vector dual numbers
/// ([`velocities_seeded`]) is [`ON_HEAP_FROM`](linalg::kkt::ON_HEAP_FROM) bytes or more:
/// then that point is built on the heap, and the passes that would carry it through the
/// model's generated code (whose temporaries in values that wide take frames of hundreds
/// of KiB at opt-level 0) take one velocity at a time in first-order dual numbers instead.
pub(crate) fn seeded_point_is_large<S: Scalar, const N: usize, const M: usize>() -> bool {
    size_of::<Point<DualVec<S, Const<N>>, N, M>>() >= linalg::kkt::ON_HEAP_FROM
}

/// `f` of [`velocities_seeded`]`(x)`, that point in `f`'s frame for a small model and on
/// the heap from [`ON_HEAP_FROM`](linalg::kkt::ON_HEAP_FROM) bytes on: a 101-coordinate
/// robot's is 250 KiB, and an unoptimized build kept four copies of it in the frames
/// that built it.
pub(crate) fn with_velocities_seeded<S: Scalar, const N: usize, const M: usize, R>(
    x: &Point<S, N, M>,
    f: impl FnOnce(&Point<DualVec<S, Const<N>>, N, M>) -> R,
) -> R {
    if seeded_point_is_large::<S, N, M>() {
        f(&velocities_seeded_boxed(x))
    } else {
        seeded_on_stack(x, f)
    }
}

/// [`with_velocities_seeded`] in a frame: a function of its own, which a large point's
/// monomorphization never calls, so never has that frame.
fn seeded_on_stack<S: Scalar, const N: usize, const M: usize, R>(
    x: &Point<S, N, M>,
    f: impl FnOnce(&Point<DualVec<S, Const<N>>, N, M>) -> R,
) -> R {
    f(&velocities_seeded(x))
}

/// [`velocities_seeded`] written on the heap entry by entry, never whole on the stack.
pub(crate) fn velocities_seeded_boxed<S: Scalar, const N: usize, const M: usize>(
    x: &Point<S, N, M>,
) -> Box<Point<DualVec<S, Const<N>>, N, M>> {
    seeded_boxed(x, Some)
}

/// `x` in vector dual numbers of D components on the heap, entry by entry: q̇_i with
/// derivative e_k where `seed(i)` is `Some(k)`, everything else constant.
pub(crate) fn seeded_boxed<S: Scalar, const N: usize, const M: usize, const D: usize>(
    x: &Point<S, N, M>,
    seed: impl Fn(usize) -> Option<usize>,
) -> Box<Point<DualVec<S, Const<D>>, N, M>> {
    let mut point = Box::<Point<DualVec<S, Const<D>>, N, M>>::new_uninit();
    let p = point.as_mut_ptr();
    // SAFETY: every field of the point is written, each array entry by entry through a
    // pointer into the allocation (in bounds: i < the array's length), before
    // `assume_init`; nothing reads it before.
    unsafe {
        std::ptr::addr_of_mut!((*p).t).write(DualVec::from_re(x.t));
        let q = std::ptr::addr_of_mut!((*p).q).cast::<DualVec<S, Const<D>>>();
        let qd = std::ptr::addr_of_mut!((*p).qd).cast::<DualVec<S, Const<D>>>();
        for i in 0..N {
            q.add(i).write(DualVec::from_re(x.q[i]));
            let rate = DualVec::<S, Const<D>>::from_re(x.qd[i]);
            qd.add(i).write(match seed(i) {
                Some(k) => rate.derivative(k),
                None => rate,
            });
        }
        let u = std::ptr::addr_of_mut!((*p).u).cast::<DualVec<S, Const<D>>>();
        for (i, &value) in x.u.iter().enumerate() {
            u.add(i).write(DualVec::from_re(value));
        }
        point.assume_init()
    }
}

/// The generalized forces Q = Σ F·∂v/∂q̇ − ∂D/∂q̇ of the applied forces and torques
/// (v the velocity of the point a force acts on, or the angular velocity of the body a
/// torque acts on; for a point p, ∂ṗ/∂q̇ = ∂p/∂q) and the dissipation, in any [`Scalar`]:
/// with dual numbers for the arguments, it gives the exact derivatives of Q (the variational integrator's Newton
/// Jacobian, linearizations).
pub(crate) fn generalized_forces_in<
    T: Terms<S, N, M>,
    S: Scalar,
    const N: usize,
    const M: usize,
>(
    model: &T,
    x: &Point<S, N, M>,
) -> [S; N] {
    let mut total = [S::zero(); N];
    if !T::HAS_FORCES && !T::HAS_DISSIPATION {
        return total;
    }
    let seeded = velocities_seeded(x);
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

/// ∂Q/∂u, the derivatives of the generalized forces along the inputs, at `x`, for a model
/// whose inputs act only through its forces and torques
/// ([`Model::INPUTS_ONLY_IN_FORCES`](crate::model::Model::INPUTS_ONLY_IN_FORCES)): the
/// velocity v a force acts through does not read the inputs, so ∂Q_j/∂u_k = Σ ∂F/∂u_k
/// ∂v/∂q̇_j, with every force's ∂v/∂q̇ from one pass over q̇ and its ∂F/∂u_k from one pass
/// in first-order dual numbers per input (the forces alone, not the dynamics). Written
/// into `out`, which for a large model the caller keeps on the heap.
pub(crate) fn forces_along_inputs<T: Terms<f64, N, M>, const N: usize, const M: usize>(
    model: &T,
    x: &Point<f64, N, M>,
    out: &mut SMatrix<f64, N, M>,
) {
    out.fill(0.0);
    if !T::HAS_FORCES || M == 0 {
        return;
    }
    // Each force's ∂v/∂q̇, in the order the forces are applied (the same in every pass).
    let mut rows: Vec<SVector<f64, N>> = Vec::new();
    let base = x.map(Dual::from_re);
    if seeded_point_is_large::<f64, N, M>() {
        // One column at a time in first-order duals: in vector duals as wide as a large
        // model's velocities, the generated forces' temporaries took a frame of 640 KiB at
        // opt-level 0 (TIAGo dual's `inverse_dynamics_derivatives` overflowed a 2 MiB
        // thread).
        for k in 0..N {
            let mut point = base;
            point.qd[k] = Dual::new(x.qd[k], 1.0);
            let mut i = 0;
            model.forces(&point, |_, v: Dual<f64>| {
                if k == 0 {
                    rows.push(SVector::zeros());
                }
                rows[i][k] = v.eps;
                i += 1;
            });
        }
    } else {
        with_velocities_seeded(x, |seeded| {
            model.forces(seeded, |_, v| {
                rows.push(v.eps.unwrap_generic(Const::<N>, U1));
            })
        });
    }
    for k in 0..M {
        let mut point = base;
        point.u[k] = Dual::new(x.u[k], 1.0);
        let mut column = SVector::<f64, N>::zeros();
        let mut forces = rows.iter();
        model.forces(&point, |f: Dual<f64>, _| {
            let row = forces.next().expect("the same forces in every pass");
            column += row * f.eps;
        });
        out.set_column(k, &column);
    }
}

/// Everything but the inertial term M q̈ (∂L/∂q − ∂²L/∂q̇∂q q̇ − ∂²L/∂q̇∂t + Q) at a
/// [`Point`] in any scalar.
pub(crate) fn bias_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> SVector<S, N> {
    let forces = generalized_forces_in(model, x);
    lagrangian_gradient_q(model, x) - mixed_term(model, x) + SVector::from(forces)
}

// Constraints

/// The velocity forms v = J q̇ + j of the constraints and their Jacobian J = ∂v/∂q̇,
/// from one pass over q̇, at a [`Point`] in any scalar. When the model's
/// [`MassTree`](crate::model::MassTree) says the constraints involve only the first c
/// of the N coordinates (a floating base's quaternion, c = 7 of the G1's 36), J's other
/// columns are zero and c passes of a single dual number compute the rest, without
/// carrying N derivatives through the whole point.
pub(crate) fn velocity_terms_in<
    T: Terms<S, N, M>,
    S: Scalar,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    model: &T,
    x: &Point<S, N, M>,
) -> (SVector<S, K>, SMatrix<S, K, N>) {
    if let Some(tree) = T::MASS_TREE.filter(|t| t.is_valid() && 2 * t.constrained <= N) {
        let (mut v, mut j) = (SVector::<S, K>::zeros(), SMatrix::<S, K, N>::zeros());
        let base = x.map(Dual::from_re);
        for i in 0..tree.constrained.max(1) {
            let mut seeded = base;
            if i < tree.constrained {
                seeded.qd[i] = Dual::new(x.qd[i], S::one());
            }
            model.constraints(Level::Velocity, &seeded, |k, c: Dual<S>| {
                if k < K {
                    v[k] = c.re;
                    j[(k, i)] = c.eps;
                }
            });
        }
        return (v, j);
    }
    let (mut v, mut j) = (SVector::<S, K>::zeros(), SMatrix::<S, K, N>::zeros());
    let seeded = velocities_seeded(x);
    model.constraints(Level::Velocity, &seeded, |k, c| {
        if k < K {
            v[k] = c.re;
            j.set_row(k, &c.eps.unwrap_generic(Const::<N>, U1).transpose());
        }
    });
    (v, j)
}

/// γ = −(∂v/∂q q̇ + ∂v/∂t): one dual pass with (q, t) moving along (q̇, 1), q̇ held.
pub(crate) fn gamma<
    T: Terms<S, N, M>,
    S: Scalar,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    model: &T,
    x: &Point<S, N, M>,
) -> SVector<S, K> {
    let mut gamma = SVector::<S, K>::zeros();
    let along = Point {
        t: Dual::new(x.t, S::one()),
        q: from_fn(|i| Dual::new(x.q[i], x.qd[i])),
        ..x.map(Dual::from_re)
    };
    model.constraints(Level::Velocity, &along, |k, c| {
        if k < K {
            gamma[k] = -c.eps;
        }
    });
    gamma
}

/// The accelerations of a model with `K` constraints (none, for K = 0) at a [`Point`] in
/// any scalar: the one constrained solve of the runtime (the mass matrix by L D Lᵀ, completed
/// by the constraints when only semidefinite, the multipliers through the Schur complement;
/// see [the constrained module](crate::constrained)), without its diagnosis: `None` where
/// that solve fails (a singular, indefinite or ill-conditioned mass matrix or constraint
/// system: the tests the `f64` accelerations diagnose); non-finite terms give non-finite
/// accelerations. With dual numbers it differentiates the
/// accelerations exactly, multipliers eliminated.
///
/// `K` must be the model's own count (`<T as Model<N, M>>::Constraints::K`): constraints
/// past it are left out. [`Model::eval_accelerations_in`](crate::model::Model::eval_accelerations_in)
/// and [`Parametric::eval_accelerations_with`](crate::model::Parametric::eval_accelerations_with)
/// pass it for you.
pub(crate) fn accelerations_in<
    T: Terms<S, N, M>,
    S: Scalar,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    model: &T,
    x: &Point<S, N, M>,
) -> Option<SVector<S, N>> {
    let (mass, _, _) = mass_and_momenta_in(model, x);
    accelerations_from::<T, S, N, M, K>(model, x, &mass, &bias_in(model, x))
}

/// [`accelerations_in`] with the mass matrix and the bias given (the code `lagrangian!`
/// generates takes them from its sweep): only the constraint terms J and γ come from
/// passes through the constraints.
pub(crate) fn accelerations_from<
    T: Terms<S, N, M>,
    S: Scalar,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    model: &T,
    x: &Point<S, N, M>,
    mass: &SMatrix<S, N, N>,
    bias: &SVector<S, N>,
) -> Option<SVector<S, N>> {
    if K == 0 {
        return linalg::kkt::solve(
            mass,
            bias,
            &SMatrix::<S, 0, N>::zeros(),
            &SVector::zeros(),
            T::MASS_TREE.as_ref(),
        )
        .ok()
        .map(|(qdd, _)| qdd);
    }
    let (_, j) = velocity_terms_in::<T, S, N, M, K>(model, x);
    let gamma = gamma::<T, S, N, M, K>(model, x);
    linalg::kkt::solve(mass, bias, &j, &gamma, T::MASS_TREE.as_ref())
        .ok()
        .map(|(qdd, _)| qdd)
}
