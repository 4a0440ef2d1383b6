//! The points a model's terms are evaluated at: a [`Point`] of the state space in any
//! [`Scalar`], and what the passes through a model return ([`Energies`],
//! [`Equations`], [`Gradient`]); and [`Terms`], what every pass reads. It reads only
//! [`State`], [`Scalar`] and linalg's `MassTree`: the [`model`](crate::model) traits, the
//! generic passes and everything above them build on it. Its items are public as
//! `lagrange_runtime::model::…`.

use crate::linalg::MassTree;
use crate::scalar::Scalar;
use crate::State;
use nalgebra::{SMatrix, SVector};
use num_dual::DualNum;

/// Which form of the constraints [`Model::eval_constraints`](crate::model::Model::eval_constraints) evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// As written: φ(q, t), or A q̇ + b for nonholonomic constraints.
    Position,
    /// Differentiated once along the motion (holonomic), or as written (nonholonomic).
    Velocity,
}

/// The kinetic and potential energies at a point, as [`Model::eval_energies`](crate::model::Model::eval_energies) returns
/// them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Energies<D> {
    /// T, of the `kinetic` statement.
    pub kinetic: D,
    /// V, of the `potential` statement (zero without one).
    pub potential: D,
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
    /// dissipation.
    pub forces: SVector<S, N>,
    /// The value of L.
    pub lagrangian: S,
}

/// The terms of a model as the generic dual-number passes evaluate them, in dual numbers `D` built over an
/// outer scalar `S` (with S = f64 for plain evaluation). Every [`Model`](crate::model::Model) provides them;
/// [`WithParameters`](crate::model::WithParameters) provides them with the parameters as values of `S`, so that
/// derivatives with respect to parameters come out of the same passes. You never
/// implement it.
pub trait Terms<S: Scalar, const N: usize, const M: usize> {
    /// As [`Model::HAS_DISSIPATION`](crate::model::Model::HAS_DISSIPATION).
    const HAS_DISSIPATION: bool;
    /// As [`Model::HAS_FORCES`](crate::model::Model::HAS_FORCES).
    const HAS_FORCES: bool;
    /// As [`Model::MASS_TREE`](crate::model::Model::MASS_TREE).
    const MASS_TREE: Option<MassTree<N>> = None;

    /// As [`Model::eval_lagrangian`](crate::model::Model::eval_lagrangian).
    fn lagrangian<D: Scalar + DualNum<InnerDual = S>>(&self, x: &Point<D, N, M>) -> D;

    /// As [`Model::eval_dissipation`](crate::model::Model::eval_dissipation).
    fn dissipation<D: Scalar + DualNum<InnerDual = S>>(&self, x: &Point<D, N, M>) -> D;

    /// As [`Model::eval_forces`](crate::model::Model::eval_forces).
    fn forces<D: Scalar + DualNum<InnerDual = S>, F: FnMut(D, D)>(
        &self,
        x: &Point<D, N, M>,
        apply: F,
    );

    /// As [`Model::eval_constraints`](crate::model::Model::eval_constraints).
    fn constraints<D: Scalar + DualNum<InnerDual = S>, F: FnMut(usize, D)>(
        &self,
        level: Level,
        x: &Point<D, N, M>,
        apply: F,
    );
}
