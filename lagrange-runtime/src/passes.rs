//! Deprecated: the generic dual-number passes are internal to the runtime. What they gave
//! is reached through the [`Model`](crate::model::Model) and [`Parametric`](crate::model::Parametric) methods
//! they are the defaults of; each function here forwards, for one release.

#![allow(deprecated)]

use crate::dual_passes;
use crate::model::{Equations, Gradient, Point, Scalar, Terms};
use nalgebra::{SMatrix, SVector};

/// The equations at a point by the generic passes.
#[deprecated(
    note = "internal; call `Model::eval_equations_in` (the model's own equations, which these passes are the default of)"
)]
pub fn equations_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> Equations<N, S> {
    dual_passes::equations_in(model, x)
}

/// The first derivatives of L and the generalized forces at a point by the generic passes.
#[deprecated(
    note = "internal; call `Model::eval_gradient_in` (the model's own gradient, which these passes are the default of)"
)]
pub fn gradient_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> Gradient<N, S> {
    dual_passes::gradient_in(model, x)
}

/// The mass matrix, the momenta and L at a point by the generic passes.
#[deprecated(
    note = "internal; call `Model::eval_equations_in` (its `mass`, `momenta` and `lagrangian`)"
)]
pub fn mass_and_momenta_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> (SMatrix<S, N, N>, SVector<S, N>, S) {
    dual_passes::mass_and_momenta_in(model, x)
}

/// The generalized forces at a point by the generic passes.
#[deprecated(note = "internal; call `Model::eval_gradient_in` (its `forces`)")]
pub fn generalized_forces_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> [S; N] {
    dual_passes::generalized_forces_in(model, x)
}

/// Everything but the inertial term at a point by the generic passes.
#[deprecated(note = "internal; call `Model::eval_equations_in` (its `bias`)")]
pub fn bias_in<T: Terms<S, N, M>, S: Scalar, const N: usize, const M: usize>(
    model: &T,
    x: &Point<S, N, M>,
) -> SVector<S, N> {
    dual_passes::bias_in(model, x)
}

/// The accelerations with `K` constraints at a point by the generic passes.
#[deprecated(
    note = "internal; call `Model::eval_accelerations_in`, or `Parametric::eval_accelerations_with` for given parameters"
)]
pub fn accelerations_in<
    T: Terms<S, N, M>,
    S: Scalar,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    model: &T,
    x: &Point<S, N, M>,
) -> Option<SVector<S, N>> {
    dual_passes::accelerations_in::<T, S, N, M, K>(model, x)
}

/// The accelerations with `K` constraints from a given mass matrix and bias.
#[deprecated(
    note = "internal; call `Model::eval_accelerations_in`, or `Parametric::eval_accelerations_with` for given parameters"
)]
pub fn accelerations_from<
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
    dual_passes::accelerations_from::<T, S, N, M, K>(model, x, mass, bias)
}
