//! Linearization and equilibria, exact through automatic differentiation.
//!
//! [`linearize`] differentiates the whole acceleration computation — for constrained
//! models the constrained system, multipliers eliminated — with dual numbers seeded on
//! q, q̇ and u, giving ẋ ≈ A x + B u for x = (q, q̇) around a state. [`equilibrium`] finds
//! q* with q̈(q*, 0, u) = 0 by Newton's method on those exact Jacobians.

use crate::constrained::constraints_in_state;
use crate::error::DynamicsError;
use crate::eval::{check_state, seed_column};
use crate::linalg;
use crate::model::Point;
use crate::model::{
    ConstraintCount, ConstraintKinds, Level, Model, Parametric, WithCount, WithParameters,
};
use crate::stability::Spectrum;
use crate::steady::SteadyMotion;
use crate::{tolerances, Dynamics, State};
use nalgebra::{Const, DMatrix, DVector, SMatrix, SVector, U1};
use num_dual::{Dual64, DualSVec};
use std::array::from_fn;

/// The first-order behaviour of a model around a state and input.
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
        if self.tangent_mismatch().is_some() {
            return Err(DynamicsError::InvalidSetting(
                "the tangent basis of a Linearization must have 2N rows and at most 2N columns",
            ));
        }
        crate::stability::spectrum(&self.reduced_a(), &self.tangent)
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
    T: Model<N, M> + Dynamics<N, M>,
{
    let accelerations = model.accelerations(s, u)?;
    let lin = if !T::has_constraints() {
        unconstrained(model, s, u, accelerations)?
    } else {
        constrained(model, s, u, accelerations)?
    };
    let finite = |m: &[f64]| m.iter().all(|x| x.is_finite());
    if finite(lin.d_q.as_slice())
        && finite(lin.d_qd.as_slice())
        && finite(lin.d_u.as_slice())
        && finite(lin.tangent.as_slice())
    {
        Ok(lin)
    } else {
        Err(not_finite())
    }
}

fn not_finite() -> DynamicsError {
    DynamicsError::NonFiniteResult {
        quantity: "derivatives of the accelerations",
    }
}

impl<const N: usize, const M: usize> Linearization<N, M> {
    /// The linearization at `s`, `u` with all derivatives zero, to be filled column by
    /// column.
    fn zero(s: &State<N>, u: &SVector<f64, M>, accelerations: SVector<f64, N>) -> Self {
        Linearization {
            state: *s,
            inputs: *u,
            accelerations,
            d_q: SMatrix::zeros(),
            d_qd: SMatrix::zeros(),
            d_u: SMatrix::zeros(),
            tangent: DMatrix::identity(2 * N, 2 * N),
        }
    }

    /// Sets column `k` of ∂q̈/∂(q, q̇, u), counted across the three blocks in that order.
    fn set_column(&mut self, k: usize, column: &SVector<f64, N>) {
        if k < N {
            self.d_q.set_column(k, column);
        } else if k < 2 * N {
            self.d_qd.set_column(k - N, column);
        } else {
            self.d_u.set_column(k - 2 * N, column);
        }
    }
}

/// [`linearize`] without constraints: column k of ∂q̈/∂x is −M⁻¹ ∂(M a − bias)/∂x_k at
/// a = q̈, one sweep per column and one factorization of M.
fn unconstrained<T, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    accelerations: SVector<f64, N>,
) -> Result<Linearization<N, M>, DynamicsError>
where
    T: Model<N, M> + Dynamics<N, M>,
{
    let mass = crate::eval::equations(model, s, u).mass;
    // `accelerations` has solved with this factorization, so it exists; the diagnosis is
    // only a guard.
    let Some(ldlt) = crate::linalg::Ldlt::factor(&mass) else {
        return Err(
            crate::linalg::factor_mass(&mass, &<T as Model<N, M>>::COORDINATES)
                .err()
                .unwrap_or(DynamicsError::SingularMassMatrix),
        );
    };
    let mut lin = Linearization::zero(s, u, accelerations);
    let base = Point::new(s, u);
    residual_jacobian(model, &base, &accelerations.into(), 2 * N + M, |k, _, d| {
        lin.set_column(k, &-ldlt.solve(&d));
    });
    Ok(lin)
}

/// [`linearize`] of a constrained model: the whole constrained solve
/// ([`Model::eval_accelerations_in`]) in dual numbers, one column of (q, q̇, u) per solve.
fn constrained<T, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    accelerations: SVector<f64, N>,
) -> Result<Linearization<N, M>, DynamicsError>
where
    T: Model<N, M> + Dynamics<N, M>,
{
    let base = Point::new(s, u);
    let mut lin = Linearization::zero(s, u, accelerations);
    // The tangent space of the constraint manifold in the state (q, q̇): the null space of
    // the holonomic constraints at position level and every constraint at velocity level.
    // A state variable that no constraint involves (the position of a cyclic coordinate)
    // gets its unit vector, exactly, so that the reduced Jacobian keeps its exact zeros and
    // `stability::spectrum` can split their eigenvalues off exactly.
    lin.tangent = linalg::null_space(&constraints_in_state(model, s, u));
    for k in 0..2 * N + M {
        let a = model
            .eval_accelerations_in(&seeded(&base, k))
            .ok_or_else(not_finite)?;
        lin.set_column(k, &a.map(|x| x.eps));
    }
    Ok(lin)
}

/// The point `x` in dual numbers with the derivative part seeding entry `k` of
/// (q, q̇, u), in that order.
fn seeded<const N: usize, const M: usize>(x: &Point<f64, N, M>, k: usize) -> Point<Dual64, N, M> {
    let past = |block: usize| k.checked_sub(block).unwrap_or(usize::MAX);
    Point {
        t: Dual64::from_re(x.t),
        q: seed_column(&x.q, k),
        qd: seed_column(&x.qd, past(N)),
        u: seed_column(&x.u, past(2 * N)),
    }
}

/// The first `count` columns of ∂r/∂x, r = M a − bias the inverse-dynamics residual for
/// accelerations `a` and x = (q, q̇, u) in that order: `column(k, r, ∂r/∂x_k)` for each,
/// with r's value. One sweep of the model in first-order dual numbers per column: a
/// number of two `f64`, so that even a 64-coordinate model stays well inside a 2 MiB
/// thread stack unoptimized (vector duals carrying several columns at once were barely
/// faster and took several times the stack).
fn residual_jacobian<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    x: &Point<f64, N, M>,
    a: &[f64; N],
    count: usize,
    mut column: impl FnMut(usize, &SVector<f64, N>, SVector<f64, N>),
) {
    let a: [Dual64; N] = a.map(Dual64::from_re);
    for k in 0..count {
        let r = model.eval_inverse_dynamics_in(&seeded(x, k), &a);
        let value = SVector::from_fn(|i, _| r[i].re);
        column(k, &value, SVector::from_fn(|i, _| r[i].eps));
    }
}

/// An equilibrium: the coordinates q* near `guess` where the model rests, q̈(q*, 0, u) = 0,
/// at time `t` with inputs `u`.
///
/// Newton's method on the generalized force that would accelerate the model from rest,
/// F(q) = M(q) q̈(q, 0, u): it has the zeros of q̈, and its exact Jacobian is better
/// conditioned (symmetric for conservative models) than that of q̈ = M⁻¹F, so Newton stays
/// with the nearest equilibrium instead of jumping to another. Each step is shortened
/// until it reduces the residual (backtracking). For constrained models the holonomic
/// constraints φ(q*, t) = 0 are solved with it (Gauss–Newton on both): F alone is
/// singular across the constraints.
///
/// The equilibrium found is the one Newton converges to from `guess`, usually the nearest,
/// **stable or not**: from a guess near the top, a pendulum's equilibrium is the inverted
/// one. The result says which: it is a [`SteadyMotion`] with no turning coordinates, with
/// the linearization there, its eigenvalues in independent coordinates and its
/// [`stability`](SteadyMotion::stability). For states in which some coordinates turn at
/// constant rates, see [`steady_motion`](crate::steady::steady_motion).
///
/// # Errors
/// [`DynamicsError::NoEquilibrium`] when Newton does not converge from `guess` (none
/// nearby, or no step can reduce the residual: a cart pushed by a constant force). A
/// neutral direction (a free translation, an arm free to turn) makes the Jacobian singular;
/// the steps are then those of the damped Gauss–Newton normal equations, in which it gets
/// no step, so the coordinate keeps its guessed value, [`DynamicsError::ConstraintsForbidSteadyState`] when the model cannot
/// rest on its constraints (a driving constraint `y - t` is violated at q̇ = 0), and the
/// errors of [`Dynamics::accelerations`] and [`linearize`] there.
///
/// # Example
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::linearize::equilibrium;
/// use lagrange_runtime::stability::Stability;
///
/// lagrangian! {
///     /// A pendulum held off the vertical by a constant torque `tau`.
///     struct Pendulum {
///         parameters: m = 1.0, l = 1.0, g = 9.81;
///         coordinates: theta;
///         inputs: tau;
///         kinetic = m/2 * l^2 * dot(theta)^2;
///         potential = -m * g * l * cos(theta);
///         force tau on theta;
///     }
/// }
///
/// let tau = 0.5 * 9.81; // balances gravity where sin θ = 1/2
/// let pendulum = Pendulum::default();
/// let low = equilibrium(&pendulum, &SVector::from([0.1]), &SVector::from([tau]), 0.0).unwrap();
/// assert!((low.state.q[0] - std::f64::consts::FRAC_PI_6).abs() < 1e-12);
/// assert_eq!(low.stability(), Stability::Marginal); // it oscillates about it
/// let high = equilibrium(&pendulum, &SVector::from([2.5]), &SVector::from([tau]), 0.0).unwrap();
/// assert!((high.state.q[0] - 5.0 * std::f64::consts::FRAC_PI_6).abs() < 1e-12);
/// assert_eq!(high.stability(), Stability::Unstable);
/// ```
pub fn equilibrium<T, const N: usize, const M: usize>(
    model: &T,
    guess: &SVector<f64, N>,
    u: &SVector<f64, M>,
    t: f64,
) -> Result<SteadyMotion<N, M>, DynamicsError>
where
    T: Model<N, M> + Dynamics<N, M>,
{
    let mut q = *guess;
    let mut iterations = 0;
    let mut residual = f64::INFINITY;
    while iterations < tolerances::EQUILIBRIUM_ITERATIONS {
        let (force, jacobian) = static_force(model, &q, u, t)?;
        let (gram, phi_gradient, phi_size) = holonomic_terms(model, &q, u, t);
        let rest = State::new(t, q, SVector::zeros());
        residual = model.accelerations(&rest, u)?.amax().max(phi_size);
        let acceptance = tolerances::equilibrium_acceptance(
            tolerances::EQUILIBRIUM,
            q.amax(),
            jacobian.amax().max(1.0),
        );
        if force.amax().max(phi_size) <= acceptance {
            return SteadyMotion::at(model, rest, u);
        }
        iterations += 1;
        let step = if !T::has_constraints() {
            // A neutral direction makes the Jacobian singular: then the damped normal
            // equations, where it gets no step (as with constraints below).
            crate::linalg::solve(jacobian, -force).or_else(|| {
                let jt = jacobian.transpose();
                crate::linalg::solve_damped_normal(jt * jacobian, -(jt * force))
            })
        } else {
            // Damped, so that a neutral direction (a body free to turn about the vertical)
            // gets no step.
            let jt = jacobian.transpose();
            crate::linalg::solve_damped_normal(jt * jacobian + gram, -(jt * force + phi_gradient))
        };
        let Some(step) = step else { break };
        if step.iter().all(|x| *x == 0.0) {
            // Nothing the Jacobian sees can move: no equilibrium from here.
            break;
        }
        let merit = |q: &SVector<f64, N>| -> Result<f64, DynamicsError> {
            let (f, _) = static_force(model, q, u, t)?;
            let (_, _, phi) = holonomic_terms(model, q, u, t);
            Ok(f.norm_squared() + phi * phi)
        };
        let current = force.norm_squared() + phi_size * phi_size;
        let mut length = 1.0;
        while length > tolerances::SHORTEST_STEP && merit(&(q + step * length))? >= current {
            length *= 0.5;
        }
        q += step * length;
    }
    Err(DynamicsError::NoEquilibrium {
        residual,
        iterations,
    })
}

/// F(q) = M(q) q̈(q, 0, u) and its exact Jacobian ∂F/∂q.
fn static_force<T, const N: usize, const M: usize>(
    model: &T,
    q: &SVector<f64, N>,
    u: &SVector<f64, M>,
    t: f64,
) -> Result<(SVector<f64, N>, SMatrix<f64, N, N>), DynamicsError>
where
    T: Model<N, M> + Dynamics<N, M>,
{
    let rest = State::new(t, *q, SVector::zeros());
    check_state::<T, N, M>(&rest, u)?;
    if !T::has_constraints() {
        static_force_unconstrained(model, &rest, u)
    } else {
        static_force_constrained(model, &rest, u)
    }
}

/// [`static_force`] without constraints: F = M q̈ is the bias at rest, −(M·0 − bias), and
/// its Jacobian comes from one sweep per coordinate.
fn static_force_unconstrained<T, const N: usize, const M: usize>(
    model: &T,
    rest: &State<N>,
    u: &SVector<f64, M>,
) -> Result<(SVector<f64, N>, SMatrix<f64, N, N>), DynamicsError>
where
    T: Model<N, M> + Dynamics<N, M>,
{
    model.accelerations(rest, u)?;
    let mut force = SVector::<f64, N>::zeros();
    let mut jacobian = SMatrix::<f64, N, N>::zeros();
    residual_jacobian(model, &Point::new(rest, u), &[0.0; N], N, |k, r, d| {
        force = -r;
        jacobian.set_column(k, &-d);
    });
    if jacobian.iter().all(|x| x.is_finite()) {
        Ok((force, jacobian))
    } else {
        Err(not_finite())
    }
}

/// [`static_force`] with constraints: F = M q̈ with the constrained accelerations, in dual
/// numbers, one coordinate per solve.
fn static_force_constrained<T, const N: usize, const M: usize>(
    model: &T,
    rest: &State<N>,
    u: &SVector<f64, M>,
) -> Result<(SVector<f64, N>, SMatrix<f64, N, N>), DynamicsError>
where
    T: Model<N, M> + Dynamics<N, M>,
{
    let base = Point::new(rest, u);
    let mut value = SVector::<f64, N>::zeros();
    let mut jacobian = SMatrix::<f64, N, N>::zeros();
    for k in 0..N {
        let x = seeded(&base, k);
        let Some(acceleration) = model.eval_accelerations_in(&x) else {
            // Singular: let the plain evaluation say why.
            model.accelerations(rest, u)?;
            return Err(not_finite());
        };
        let force = model.eval_equations_in(&x).mass * acceleration;
        value = force.map(|f| f.re);
        jacobian.set_column(k, &force.map(|f| f.eps));
    }
    Ok((value, jacobian))
}

/// Σ ∇φₖ ∇φₖᵀ, Σ φₖ ∇φₖ and the largest |φₖ| over the holonomic constraints at rest at
/// `q`, accumulated without knowing their number (zeros without constraints).
fn holonomic_terms<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    q: &SVector<f64, N>,
    u: &SVector<f64, M>,
    t: f64,
) -> (SMatrix<f64, N, N>, SVector<f64, N>, f64) {
    if !T::has_constraints() {
        return (SMatrix::zeros(), SVector::zeros(), 0.0);
    }
    type V<const N: usize> = DualSVec<f64, N>;
    let (mut gram, mut gradient, mut size) = (SMatrix::zeros(), SVector::zeros(), 0.0f64);
    let x = Point {
        q: from_fn(|i| V::from_re(q[i]).derivative(i)),
        ..Point::new(&State::new(t, *q, SVector::zeros()), u).map(V::from_re)
    };
    model.eval_constraints(Level::Position, &x, |k, c| {
        if T::holonomic(k) {
            let row: SVector<f64, N> = c.eps.unwrap_generic(Const::<N>, U1);
            gram += row * row.transpose();
            gradient += row * c.re;
            size = size.max(c.re.abs());
        }
    });
    (gram, gradient, size)
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
    T: Parametric<N, M, P> + Dynamics<N, M>,
{
    let accelerations = model.accelerations(s, u)?;
    let d = if !T::has_constraints() {
        // Column k: −M⁻¹ ∂(M a − bias)/∂p_k at a = q̈, one sweep per parameter.
        let values = model.parameter_values();
        let mass = crate::eval::equations(model, s, u).mass;
        let chol = crate::linalg::factor_mass(&mass, &<T as Model<N, M>>::COORDINATES)?;
        let x = Point::new(s, u).map(Dual64::from_re);
        let qdd: [Dual64; N] = from_fn(|i| Dual64::from_re(accelerations[i]));
        let mut d = SMatrix::<f64, N, P>::zeros();
        for k in 0..P {
            let p = seed_column(&values, k);
            let r = model.eval_inverse_dynamics_with(&p, &x, &qdd);
            d.set_column(k, &-chol.solve(&SVector::from_fn(|i, _| r[i].eps)));
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

/// [`sensitivities`] of a constrained model, by implicit differentiation of the KKT system
/// `M q̈ + Jᵀλ = bias`, `J q̈ = γ` at its solution: column k solves
/// `[M Jᵀ; J 0] (∂q̈/∂p_k, ∂λ/∂p_k) = −∂(M q̈ + Jᵀλ − bias, J q̈ − γ)/∂p_k` with q̈ and λ
/// held, the residuals from one sweep in first-order dual numbers per parameter (as
/// [`linearize`] does). Evaluating the whole constrained solve in dual vectors as long as
/// the parameters nests them in the mass matrix's second-order duals, whose size grows as
/// N² P: 8 masses on rods (N = 16, P = 10) overflowed a 2 MiB thread stack.
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
        let solution = crate::constrained::solve::<T, N, M, K>(model, s, u, None)?;
        let mass = crate::eval::equations(model, s, u).mass;
        let (_, j) = crate::constrained::velocity_terms::<T, N, M, K>(model, s, u);
        let mut kkt = DMatrix::<f64>::zeros(N + K, N + K);
        kkt.view_mut((0, 0), (N, N)).copy_from(&mass);
        kkt.view_mut((0, N), (N, K)).copy_from(&j.transpose());
        kkt.view_mut((N, 0), (K, N)).copy_from(&j);
        let kkt = kkt.lu();
        let x = Point::new(s, u).map(Dual64::from_re);
        let qdd = solution.accelerations.map(Dual64::from_re);
        let lambda = solution.multipliers.map(Dual64::from_re);
        let values = model.parameter_values();
        let mut d = SMatrix::<f64, N, P>::zeros();
        for k in 0..P {
            let p = seed_column(&values, k);
            let dynamics = model.eval_inverse_dynamics_with(&p, &x, &qdd.into());
            let terms = WithParameters {
                model,
                parameters: p,
            };
            let (_, jp) = crate::passes::velocity_terms_in::<_, Dual64, N, M, K>(&terms, &x);
            let gamma = crate::passes::gamma::<_, Dual64, N, M, K>(&terms, &x);
            let force = jp.transpose() * lambda;
            let velocity = jp * qdd - gamma;
            let rhs = DVector::from_fn(N + K, |i, _| {
                if i < N {
                    -(dynamics[i] + force[i]).eps
                } else {
                    -velocity[i - N].eps
                }
            });
            let column = kkt.solve(&rhs).ok_or_else(sensitivities_not_finite)?;
            d.set_column(k, &column.rows(0, N));
        }
        Ok(d)
    }
}
