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
    /// Whether [`eval_equations`](Model::eval_equations) is specialised to the model rather
    /// than the generic passes (`lagrangian!` sets it unless the model's code would be too
    /// large).
    const FAST_EQUATIONS: bool = false;
    /// Whether L is a polynomial of degree at most two in q̇, so that the momenta are
    /// affine in q̇ and the mass matrix does not depend on q̇: then one Newton update
    /// solves ∂L/∂q̇(q, q̇) = p for q̇ exactly (the variational integrators use it).
    /// `lagrangian!` sets it from the model's expressions; leave it false unless it holds.
    const QUADRATIC_IN_VELOCITIES: bool = false;
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

    /// The [`Equations`](crate::eval::Equations) (mass matrix, momenta, right-hand side,
    /// L) at a state in `f64`: [`eval::equations_generic`](crate::eval::equations_generic)
    /// unless overridden with code specialised to the model.
    ///
    /// `lagrangian!` overrides it (and sets [`FAST_EQUATIONS`](Model::FAST_EQUATIONS)):
    /// forward-mode AD unrolled at compile time into plain `f64` arithmetic, with only the
    /// derivative components that can be nonzero. An override must agree with
    /// `equations_generic` to rounding.
    fn eval_equations(&self, x: &crate::eval::Point<f64, N, M>) -> crate::eval::Equations<N>
    where
        Self: Sized,
    {
        crate::eval::equations_generic_at(self, x)
    }

    /// The [`Equations`](crate::eval::Equations) at a point in any scalar:
    /// [`eval::equations_generic_in`](crate::eval::equations_generic_in) unless
    /// overridden. `lagrangian!` overrides it with its sweep (forward-over-reverse AD
    /// generated at compile time, work linear in the model's size per coordinate), which
    /// with dual numbers differentiates the equations again without nesting a dense
    /// Hessian in every number: what [`linearize`](crate::linearize) builds on.
    fn eval_equations_in<S: Scalar>(
        &self,
        x: &crate::eval::Point<S, N, M>,
    ) -> crate::eval::Equations<N, S>
    where
        Self: Sized,
    {
        crate::eval::equations_generic_in(self, x)
    }

    /// The [`Gradient`](crate::eval::Gradient) (∂L/∂q, the momenta, the generalized
    /// forces, L) at a point in any scalar:
    /// [`eval::gradient_generic_in`](crate::eval::gradient_generic_in) unless overridden.
    /// `lagrangian!` overrides it with the primal and reverse passes of its sweep, which
    /// cost a few evaluations of the model; the variational integrators call it for their
    /// residual, and in dual numbers, one direction at a time, for its Jacobian.
    fn eval_gradient_in<S: Scalar>(
        &self,
        x: &crate::eval::Point<S, N, M>,
    ) -> crate::eval::Gradient<N, S>
    where
        Self: Sized,
    {
        crate::eval::gradient_generic_in(self, x)
    }

    /// The inverse-dynamics residual M q̈ − bias for the accelerations `qdd`, at a point in
    /// any scalar: zero when `qdd` are the model's accelerations there (unconstrained).
    /// Cheaper than the [`Equations`](crate::eval::Equations) in the code `lagrangian!`
    /// generates: M q̈ comes from one sweep along q̈, without the mass matrix.
    fn eval_inverse_dynamics_in<S: Scalar>(
        &self,
        x: &crate::eval::Point<S, N, M>,
        qdd: &[S; N],
    ) -> [S; N]
    where
        Self: Sized,
    {
        let e = self.eval_equations_in(x);
        (e.mass * nalgebra::SVector::from(*qdd) - e.bias).into()
    }

    /// Calls `apply(F, v)` once for each element of each applied force or torque: a
    /// force `F` whose point of application moves with velocity `v` (ṗ for a force on a
    /// position p, an element of ω for a torque on a body), so that it adds `F ∂v/∂q̇` to
    /// the generalized forces (virtual power; for a point, ∂ṗ/∂q̇ = ∂p/∂q). `v` must be
    /// linear in q̇: only its derivative with respect to q̇ is used, so the number type
    /// carries the seeds of q̇. Applies nothing unless overridden.
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

/// The terms of a model as the generic passes of [`eval`](crate::eval) and
/// [`constrained`](crate::constrained) evaluate them, in dual numbers `D` built over an
/// outer scalar `S` (with S = f64 for plain evaluation). Every [`Model`] provides them;
/// [`WithParameters`] provides them with the parameters as values of `S`, so that
/// derivatives with respect to parameters come out of the same passes.
pub trait Terms<S: Scalar, const N: usize, const M: usize> {
    /// As [`Model::HAS_DISSIPATION`].
    const HAS_DISSIPATION: bool;
    /// As [`Model::HAS_FORCES`].
    const HAS_FORCES: bool;

    /// As [`Model::eval_lagrangian`].
    fn lagrangian<D: Scalar + DualNum<InnerDual = S>>(
        &self,
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
    ) -> D;

    /// As [`Model::eval_dissipation`].
    fn dissipation<D: Scalar + DualNum<InnerDual = S>>(
        &self,
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
    ) -> D;

    /// As [`Model::eval_forces`].
    fn forces<D: Scalar + DualNum<InnerDual = S>, F: FnMut(D, D)>(
        &self,
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
        apply: F,
    );

    /// As [`Model::eval_constraints`].
    fn constraints<D: Scalar + DualNum<InnerDual = S>, F: FnMut(usize, D)>(
        &self,
        level: Level,
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
        apply: F,
    );
}

impl<T: Model<N, M>, S: Scalar, const N: usize, const M: usize> Terms<S, N, M> for T {
    const HAS_DISSIPATION: bool = T::HAS_DISSIPATION;
    const HAS_FORCES: bool = T::HAS_FORCES;

    fn lagrangian<D: Scalar + DualNum<InnerDual = S>>(
        &self,
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
    ) -> D {
        self.eval_lagrangian(t, q, qd, u)
    }

    fn dissipation<D: Scalar + DualNum<InnerDual = S>>(
        &self,
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
    ) -> D {
        self.eval_dissipation(t, q, qd, u)
    }

    fn forces<D: Scalar + DualNum<InnerDual = S>, F: FnMut(D, D)>(
        &self,
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
        apply: F,
    ) {
        self.eval_forces(t, q, qd, u, apply);
    }

    fn constraints<D: Scalar + DualNum<InnerDual = S>, F: FnMut(usize, D)>(
        &self,
        level: Level,
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
        apply: F,
    ) {
        self.eval_constraints(level, t, q, qd, u, apply);
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

    /// L with parameters `p`.
    fn eval_lagrangian_with<D: Scalar>(
        &self,
        p: &[D; P],
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
    ) -> D;

    /// D (dissipation) with parameters `p`; zero unless overridden.
    fn eval_dissipation_with<D: Scalar>(
        &self,
        p: &[D; P],
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
    ) -> D {
        let _ = (p, q, qd, u);
        t * 0.0
    }

    /// The forces with parameters `p`; none unless overridden.
    fn eval_forces_with<D: Scalar, F: FnMut(D, D)>(
        &self,
        p: &[D; P],
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
        apply: F,
    ) {
        let _ = (p, t, q, qd, u, apply);
    }

    /// The constraints with parameters `p`; none unless overridden.
    #[allow(clippy::too_many_arguments)]
    fn eval_constraints_with<D: Scalar, F: FnMut(usize, D)>(
        &self,
        level: Level,
        p: &[D; P],
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
        apply: F,
    ) {
        let _ = (level, p, t, q, qd, u, apply);
    }

    /// The accelerations at a point with parameters `p`, both in the scalar `S` (`None`
    /// where singular); constrained models solve their constrained system.
    fn accelerations_with<S: Scalar>(
        &self,
        p: &[S; P],
        x: &crate::eval::Point<S, N, M>,
    ) -> Option<nalgebra::SVector<S, N>>
    where
        Self: Sized;

    /// [`Model::eval_inverse_dynamics_in`] with parameters `p`: M q̈ − bias, in which the
    /// parameters can be differentiated
    /// ([`sensitivities`](crate::linearize::sensitivities)).
    fn eval_inverse_dynamics_with<S: Scalar>(
        &self,
        p: &[S; P],
        x: &crate::eval::Point<S, N, M>,
        qdd: &[S; N],
    ) -> [S; N]
    where
        Self: Sized,
    {
        let model = WithParameters {
            model: self,
            parameters: *p,
        };
        let e = crate::eval::equations_generic_in(&model, x);
        (e.mass * nalgebra::SVector::from(*qdd) - e.bias).into()
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

    fn lagrangian<D: Scalar + DualNum<InnerDual = S>>(
        &self,
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
    ) -> D {
        let p = self.parameters.map(D::from_re);
        self.model.eval_lagrangian_with(&p, t, q, qd, u)
    }

    fn dissipation<D: Scalar + DualNum<InnerDual = S>>(
        &self,
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
    ) -> D {
        let p = self.parameters.map(D::from_re);
        self.model.eval_dissipation_with(&p, t, q, qd, u)
    }

    fn forces<D: Scalar + DualNum<InnerDual = S>, F: FnMut(D, D)>(
        &self,
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
        apply: F,
    ) {
        let p = self.parameters.map(D::from_re);
        self.model.eval_forces_with(&p, t, q, qd, u, apply);
    }

    fn constraints<D: Scalar + DualNum<InnerDual = S>, F: FnMut(usize, D)>(
        &self,
        level: Level,
        t: D,
        q: &[D; N],
        qd: &[D; N],
        u: &[D; M],
        apply: F,
    ) {
        let p = self.parameters.map(D::from_re);
        self.model
            .eval_constraints_with(level, &p, t, q, qd, u, apply);
    }
}
