//! The terms of a model, generic over the number type: what `lagrangian!` generates.

use num_dual::DualNum;

/// Which form of the constraints [`Model::eval_constraints`] evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// As written: φ(q, t), or A q̇ + b for nonholonomic constraints.
    Position,
    /// Differentiated once along the motion (holonomic), or as written (nonholonomic).
    Velocity,
}

/// A number the model's expressions can be evaluated in: `f64`, or any num-dual dual
/// number over `f64` (nested ones included).
///
/// Implemented for every such type; you never implement it yourself.
pub trait Scalar: DualNum<Primitive = f64> + Copy {}

impl<T: DualNum<Primitive = f64> + Copy> Scalar for T {}

/// The Lagrangian, the dissipation function and the applied forces of a model with `N`
/// coordinates and `M` inputs, each evaluable in any [`Scalar`].
///
/// `lagrangian!` implements this trait; the functions of [`eval`](crate::eval) turn it into
/// exact derivatives, and the generated [`Dynamics`](crate::Dynamics) impl calls them. A
/// model written by hand implements `Model` and gets the same dynamics from `eval`.
///
/// # Example
/// A harmonic oscillator written without the macro:
/// ```
/// use lagrange_runtime::{eval, model::{Model, Scalar}, State, SVector};
///
/// struct Oscillator { m: f64, k: f64 }
///
/// impl Model<1, 0> for Oscillator {
///     const COORDINATES: [&'static str; 1] = ["x"];
///     const INPUTS: [&'static str; 0] = [];
///     fn eval_lagrangian<D: Scalar>(&self, _t: D, q: &[D; 1], qd: &[D; 1], _u: &[D; 0]) -> D {
///         qd[0] * qd[0] * (self.m / 2.0) - q[0] * q[0] * (self.k / 2.0)
///     }
/// }
///
/// let s = State::new(0.0, SVector::from([0.5]), SVector::from([0.0]));
/// let qdd = eval::accelerations(&Oscillator { m: 2.0, k: 8.0 }, &s, &SVector::zeros()).unwrap();
/// assert!((qdd[0] - -2.0).abs() < 1e-15); // −k x / m
/// ```
pub trait Model<const N: usize, const M: usize> {
    /// Names of the coordinates, in order.
    const COORDINATES: [&'static str; N];
    /// Names of the inputs, in order.
    const INPUTS: [&'static str; M];
    /// Whether [`eval_dissipation`](Model::eval_dissipation) can be nonzero.
    const HAS_DISSIPATION: bool = false;
    /// Whether [`eval_forces`](Model::eval_forces) applies any force.
    const HAS_FORCES: bool = false;
    /// Names of the constraints, in order.
    const CONSTRAINT_NAMES: &'static [&'static str] = &[];
    /// For each constraint, whether it is holonomic (φ(q, t) = 0) rather than
    /// nonholonomic (A(q, t) q̇ + b(q, t) = 0).
    const HOLONOMIC: &'static [bool] = &[];

    /// L = T − V at time `t`, coordinates `q`, velocities `qd` and inputs `u`.
    fn eval_lagrangian<D: Scalar>(&self, t: D, q: &[D; N], qd: &[D; N], u: &[D; M]) -> D;

    /// The Rayleigh dissipation function D; zero unless overridden.
    fn eval_dissipation<D: Scalar>(&self, t: D, q: &[D; N], qd: &[D; N], u: &[D; M]) -> D {
        let _ = (q, qd, u);
        t * 0.0
    }

    /// Calls `apply(k, value)` for each constraint k. At [`Level::Position`] the constraint
    /// as written: φ(q, t) for a holonomic one, A q̇ + b for a nonholonomic one. At
    /// [`Level::Velocity`] its velocity form, affine in q̇: φ̇ = φ_q q̇ + φ_t, or A q̇ + b.
    /// Applies nothing unless overridden.
    fn eval_constraints<D: Scalar, F: FnMut(usize, D)>(
        &self,
        level: Level,
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
        apply: F,
    ) {
        let _ = (level, t, q, qd, u, apply);
    }

    /// The accelerations at a point in any scalar type, `None` where the mass matrix (or
    /// the constraint system) is singular: [`eval::accelerations_in`](crate::eval::accelerations_in)
    /// unless overridden; `lagrangian!` overrides it for models with constraints to solve
    /// the constrained system. With dual numbers it gives exact derivatives of q̈
    /// ([`linearize`](crate::linearize::linearize)).
    fn accelerations_in<S: Scalar>(
        &self,
        x: &crate::eval::Point<S, N, M>,
    ) -> Option<nalgebra::SVector<S, N>>
    where
        Self: Sized,
    {
        crate::eval::accelerations_in(self, x)
    }

    /// Calls `apply(F, p)` once for each applied force: a force `F` doing virtual work
    /// `F δp` on the position `p`. Only the derivative of `p` with respect to `q` is used,
    /// so the number type carries the seeds of q. Applies nothing unless overridden.
    fn eval_forces<D: Scalar, F: FnMut(D, D)>(
        &self,
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
        apply: F,
    ) {
        let _ = (t, q, qd, u, apply);
    }
}
