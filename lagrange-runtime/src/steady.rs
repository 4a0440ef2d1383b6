//! Equilibria and steady motions: states in which chosen coordinates turn at constant rates
//! and the others rest (or move only as the constraints make them), with their stability.
//!
//! The interesting states of a governor, a spinning top or a rolling coin are not points
//! of rest: the shaft, the spin or the rolling angle turns at a constant rate while the
//! shape (the arms' angle, the tilt, the lean) stays put. [`steady_motion`] finds such a
//! state from a guess, given for each turning coordinate either its rate or its momentum
//! ∂L/∂q̇ (the conserved momentum of a cyclic coordinate: a free shaft keeps it, not its
//! rate), and reports its stability ([`stability`](crate::stability)) from the
//! linearization in independent coordinates. [`equilibrium`] is the special case of no
//! turning coordinates, the model at rest: one solver finds both, and both return a
//! [`SteadyMotion`].
//!
//! The turning coordinates keep the positions of the guess: steady motions of this kind
//! exist when they are cyclic (nothing depends on them), and then where they start does
//! not matter.
//!
//! # Example
//! A pendulum held by a constant torque τ at its pivot rests where m g l sin θ = τ:
//! ```
//! use lagrange_runtime::prelude::*;
//! use lagrange_runtime::stability::Stability;
//! use lagrange_runtime::steady::equilibrium;
//!
//! lagrangian! {
//!     struct Pendulum {
//!         parameters: m = 1.0, l = 0.5, g = 9.81;
//!         coordinates: theta;
//!         inputs: tau;
//!         kinetic = m/2 * l^2 * dot(theta)^2;
//!         potential = -m * g * l * cos(theta);
//!         force tau on theta;
//!     }
//! }
//!
//! let tau = 2.0;
//! let rest = equilibrium(&Pendulum::default(), &State::at_rest(SVector::zeros()), &SVector::from([tau]))
//!     .unwrap();
//! assert!((rest.state.q[0] - (tau / (9.81 * 0.5)).asin()).abs() < 1e-12);
//! assert_eq!(rest.stability(), Stability::Marginal);
//! ```

use crate::dual_passes::velocity_terms_in;
use crate::error::DynamicsError;
use crate::eval::check_state;
use crate::jacobian_seed::{forward_jacobian, Eps};
use crate::linalg;
use crate::linearize::{linearize, Linearization};
use crate::model::Point;
use crate::model::{ConstraintCount, ConstraintKinds, Level, Model, Scalar, WithCount};
use crate::stability::{Spectrum, Stability};
use crate::{tolerances, Dynamics, State};
use nalgebra::{SMatrix, SVector};
use num_dual::Dual64;
use std::array::from_fn;

/// What is given of a turning coordinate.
///
/// # Example
/// The conical pendulum of [`SteadyMotion`] given its angular momentum about the vertical
/// instead of its rate: p_φ = m l² sin²θ φ̇ is what a free pendulum keeps.
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::steady::{steady_motion, Turning};
///
/// lagrangian! {
///     struct Spherical {
///         parameters: m = 1.0, l = 1.0, g = 9.81;
///         coordinates: theta, phi;
///         let p = l * [sin(theta) * cos(phi), sin(theta) * sin(phi), -cos(theta)];
///         kinetic = m/2 * dot(p)^2;
///         potential = m * g * p.z;
///     }
/// }
///
/// // At Ω = 5: cos θ = g/(l Ω²), p_φ = sin²θ Ω.
/// let theta = (9.81f64 / 25.0).acos();
/// let momentum = theta.sin().powi(2) * 5.0;
/// let guess = State::at_rest(SVector::from([1.0, 0.0]));
/// let motion = steady_motion(&Spherical::default(), &guess, &[("phi", Turning::Momentum(momentum))], &SVector::zeros())
///     .unwrap();
/// assert!((motion.state.q[0] - theta).abs() < 1e-12);
/// assert!((motion.state.qd[1] - 5.0).abs() < 1e-12); // the rate follows
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Turning {
    /// Its rate q̇, constant in the steady motion.
    Rate(f64),
    /// Its momentum ∂L/∂q̇ (conserved when the coordinate is cyclic); the rate follows.
    Momentum(f64),
}

/// An equilibrium or a steady motion, with its linearization and stability.
///
/// # Example
/// A conical pendulum: a spherical pendulum whose azimuth φ turns at Ω = 5 rad/s settles at
/// the polar angle θ with cos θ = g / (l Ω²).
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::stability::Stability;
/// use lagrange_runtime::steady::{steady_motion, Turning};
///
/// lagrangian! {
///     struct Spherical {
///         parameters: m = 1.0, l = 1.0, g = 9.81;
///         coordinates: theta, phi;
///         let p = l * [sin(theta) * cos(phi), sin(theta) * sin(phi), -cos(theta)];
///         kinetic = m/2 * dot(p)^2;
///         potential = m * g * p.z;
///     }
/// }
///
/// let guess = State::at_rest(SVector::from([1.0, 0.0]));
/// let motion = steady_motion(&Spherical::default(), &guess, &[("phi", Turning::Rate(5.0))], &SVector::zeros())
///     .unwrap();
/// assert!((motion.state.q[0].cos() - 9.81 / 25.0).abs() < 1e-12);
/// assert_eq!((motion.state.qd[0], motion.state.qd[1]), (0.0, 5.0));
/// assert_eq!(motion.stability(), Stability::Marginal); // conservative: on the imaginary axis
/// assert_eq!(motion.linearization.state, motion.state);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SteadyMotion<const N: usize, const M: usize = 0> {
    /// The state: the turning coordinates at their rates, the others at rest or moving
    /// as the constraints make them (every acceleration zero). At rest for an equilibrium.
    pub state: State<N>,
    /// The linearization there (its [`tangent`](Linearization::tangent) basis gives the
    /// independent coordinates of the constraint manifold).
    pub linearization: Linearization<N, M>,
    /// The eigenvalues and modes of the linearization in independent coordinates.
    pub spectrum: Spectrum<N>,
}

impl<const N: usize, const M: usize> SteadyMotion<N, M> {
    /// The stability, from the eigenvalues with the default margin
    /// ([`Spectrum::stability`]).
    pub fn stability(&self) -> Stability {
        self.spectrum.stability()
    }

    /// The linearization and spectrum at `state`, which must satisfy the constraints: the
    /// accelerations vanish at a state that violates their velocity forms when a driving
    /// constraint is solved at rest (its J q̇ + j = −1 at q̇ = 0), and that is no steady
    /// state.
    pub(crate) fn at<T: Model<N, M>>(
        model: &T,
        state: State<N>,
        u: &SVector<f64, M>,
    ) -> Result<Self, DynamicsError> {
        match model.check_start(&state, u) {
            Err(DynamicsError::OffConstraints {
                positions,
                velocities,
            }) if positions.is_empty() => {
                return Err(DynamicsError::ConstraintsForbidSteadyState {
                    constraints: velocities,
                });
            }
            other => other?,
        }
        let linearization = linearize(model, &state, u)?;
        let spectrum = linearization.spectrum()?;
        Ok(SteadyMotion {
            state,
            linearization,
            spectrum,
        })
    }
}

/// An equilibrium: the coordinates q* near `guess.q` where the model rests at time
/// `guess.t` with inputs `u`, q̈(q*, 0, u) = 0 (and the holonomic constraints
/// φ(q*, t) = 0): the [`steady_motion`] with no turning coordinates, found by its Newton
/// iteration. The guess's velocities are not used.
///
/// The equilibrium found is the one Newton converges to from `guess`, usually the nearest,
/// **stable or not**: from a guess near the top, a pendulum's equilibrium is the inverted
/// one. The result says which: it is a [`SteadyMotion`] at rest, with the linearization
/// there, its eigenvalues in independent coordinates and its
/// [`stability`](SteadyMotion::stability). A neutral direction (a free translation, an
/// arm free to turn) gets no step, so its coordinate keeps its guessed value.
///
/// # Errors
/// [`DynamicsError::NoEquilibrium`] when Newton does not converge from `guess` (none
/// nearby, or no step can reduce the residual: a cart pushed by a constant force, or the
/// holonomic constraints cannot be met as closely as a simulation's start requires);
/// [`DynamicsError::ConstraintsForbidSteadyState`] when the model cannot rest on its
/// constraints (a driving constraint `y - t` is violated at q̇ = 0); the errors of
/// [`Dynamics::accelerations`] on the way and of [`linearize`] at the state found.
///
/// # Example
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::stability::Stability;
/// use lagrange_runtime::steady::equilibrium;
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
/// let tau = SVector::from([0.5 * 9.81]); // balances gravity where sin θ = 1/2
/// let pendulum = Pendulum::default();
/// let low = equilibrium(&pendulum, &State::at_rest(SVector::from([0.1])), &tau).unwrap();
/// assert!((low.state.q[0] - std::f64::consts::FRAC_PI_6).abs() < 1e-12);
/// assert_eq!(low.stability(), Stability::Marginal); // it oscillates about it
/// let high = equilibrium(&pendulum, &State::at_rest(SVector::from([2.5])), &tau).unwrap();
/// assert!((high.state.q[0] - 5.0 * std::f64::consts::FRAC_PI_6).abs() < 1e-12);
/// assert_eq!(high.stability(), Stability::Unstable);
/// ```
pub fn equilibrium<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    guess: &State<N>,
    u: &SVector<f64, M>,
) -> Result<SteadyMotion<N, M>, DynamicsError> {
    steady_motion(model, guess, &[], u)
}

/// The steady motion near `guess` in which the coordinates named in `turning` turn as
/// given (a rate or a momentum each) and every acceleration vanishes, at time `guess.t`
/// with inputs `u`. With no turning coordinates it is the [`equilibrium`] near `guess`.
///
/// The unknowns are the positions of the other coordinates and the rates given by their
/// momenta; the velocities of the other coordinates are the smallest that satisfy the
/// constraints with the turning ones given (zero without constraints or with nothing
/// turning; for a rolling coin, the velocity of its contact point). The guess's other
/// velocities are not used.
///
/// They solve F = M q̈ = 0, the holonomic constraints and the momenta given, by Newton's
/// method with exact Jacobians (dual numbers through the whole constrained solve). F, the
/// generalized force that accelerates the model, has the zeros of q̈, and its Jacobian is
/// better conditioned (symmetric for a conservative model at rest) than that of
/// q̈ = M⁻¹F, so Newton stays with the nearest solution instead of jumping to another.
/// Without constraints or momenta the Newton step is F's own; otherwise, or where F's
/// Jacobian is singular, it is the Gauss–Newton step of all the residuals together,
/// damped so that an unknown nothing depends on (a cyclic position, a free translation)
/// gets no step. Each step is shortened until it reduces the residual (backtracking).
///
/// # Errors
/// [`DynamicsError::InvalidSetting`] for a name that is not a coordinate's, a coordinate
/// named twice, or a rate or momentum that is not finite; [`DynamicsError::NoEquilibrium`]
/// when Newton does not converge (no steady motion near the guess, or a turning
/// coordinate that is not cyclic), or stalls where the holonomic constraints do not hold
/// as closely as a simulation's start requires
/// ([`Dynamics::check_start`]: each residual relative to its own scale, plus a few bounds
/// on the rounding of the constraint's evaluation, so that rounding at q = 0 is
/// accepted); [`DynamicsError::ConstraintsForbidSteadyState`] when
/// the state found violates the velocity form of a constraint (a driving constraint, when
/// nothing turns or it involves only turning coordinates); the errors of
/// [`Dynamics::accelerations`] on the way and of [`linearize`] at the state found.
///
/// # Example
/// A conical pendulum: a bob on a rod of length l turning about the vertical at rate Ω
/// hangs at cos θ = g/(l Ω²).
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::stability::Stability;
/// use lagrange_runtime::steady::{steady_motion, Turning};
///
/// lagrangian! {
///     struct Spherical {
///         parameters: m = 1.0, l = 1.0, g = 9.81;
///         coordinates: theta, phi;
///         kinetic = m/2 * l^2 * (dot(theta)^2 + sin(theta)^2 * dot(phi)^2);
///         potential = -m * g * l * cos(theta);
///     }
/// }
///
/// let omega = 5.0;
/// let guess = State::at_rest(SVector::from([1.0, 0.0]));
/// let motion = steady_motion(&Spherical::default(), &guess, &[("phi", Turning::Rate(omega))], &SVector::zeros())
///     .unwrap();
/// assert!((motion.state.q[0].cos() - 9.81 / omega.powi(2)).abs() < 1e-12);
/// assert_eq!(motion.state.qd[1], omega);
/// assert_eq!(motion.stability(), Stability::Marginal); // conical motion is stable
/// ```
pub fn steady_motion<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    guess: &State<N>,
    turning: &[(&str, Turning)],
    u: &SVector<f64, M>,
) -> Result<SteadyMotion<N, M>, DynamicsError> {
    let given = given::<T, N, M>(turning).map_err(DynamicsError::InvalidSetting)?;
    check_state::<T, N, M>(&State::new(guess.t, guess.q, SVector::zeros()), u)?;
    let state = T::Constraints::with(Solve {
        model,
        guess,
        given: &given,
        u,
    })?;
    SteadyMotion::at(model, state, u)
}

/// `turning` by coordinate index, or why it is invalid.
fn given<T: Model<N, M>, const N: usize, const M: usize>(
    turning: &[(&str, Turning)],
) -> Result<[Option<Turning>; N], &'static str> {
    let mut given = [None; N];
    for &(name, motion) in turning {
        let Some(i) = T::COORDINATES.iter().position(|c| *c == name) else {
            return Err("a turning coordinate's name is not one of the model's coordinates");
        };
        if given[i].is_some() {
            return Err("a turning coordinate is named twice");
        }
        let (Turning::Rate(v) | Turning::Momentum(v)) = motion;
        if !v.is_finite() {
            return Err("a turning coordinate's rate or momentum is not finite");
        }
        given[i] = Some(motion);
    }
    Ok(given)
}

/// The problem: the model, the guess, what is given of each coordinate (`None`: it rests)
/// and the inputs.
struct Solve<'a, T, const N: usize, const M: usize> {
    model: &'a T,
    guess: &'a State<N>,
    given: &'a [Option<Turning>; N],
    u: &'a SVector<f64, M>,
}

impl<T: Model<N, M>, const N: usize, const M: usize> WithCount for Solve<'_, T, N, M> {
    type Output = Result<State<N>, DynamicsError>;
    fn run<const K: usize>(self) -> Self::Output {
        solve::<T, N, M, K>(&self)
    }
}

impl<T: Model<N, M>, const N: usize, const M: usize> Solve<'_, T, N, M> {
    /// The unknowns' starting values: positions of the resting coordinates, rates of
    /// those given by momentum (from the guess's velocities), nothing (zero) for those
    /// given by rate.
    fn start(&self) -> SVector<f64, N> {
        SVector::from_fn(|i, _| match self.given[i] {
            None => self.guess.q[i],
            Some(Turning::Momentum(_)) => self.guess.qd[i],
            Some(Turning::Rate(_)) => 0.0,
        })
    }

    /// Whether some coordinate turns (otherwise the model rests: an equilibrium).
    fn turns(&self) -> bool {
        self.given.iter().any(Option::is_some)
    }

    /// Whether some coordinate is given by its momentum.
    fn by_momentum(&self) -> bool {
        self.given
            .iter()
            .any(|g| matches!(g, Some(Turning::Momentum(_))))
    }

    /// The point of the unknowns `z`, in any scalar.
    fn point<S: Scalar, const K: usize>(&self, z: &SVector<S, N>) -> Point<S, N, M> {
        let q = from_fn(|i| match self.given[i] {
            None => z[i],
            Some(_) => S::from(self.guess.q[i]),
        });
        let turning_rates: [S; N] = from_fn(|i| match self.given[i] {
            None => S::zero(),
            Some(Turning::Rate(r)) => S::from(r),
            Some(Turning::Momentum(_)) => z[i],
        });
        let mut x = Point {
            t: S::from(self.guess.t),
            q,
            qd: turning_rates,
            u: from_fn(|i| S::from(self.u[i])),
        };
        if T::has_constraints() && self.turns() {
            // The smallest velocities of the other coordinates that satisfy the
            // constraints: q̇ = q̇₀ − J_fᵀ (J_f J_fᵀ)⁻¹ (J q̇₀ + j), J_f the columns of the
            // resting coordinates. (With nothing turning the model rests, and a
            // constraint that drives it is reported, not followed.)
            let (v, j) = velocity_terms_in::<T, S, N, M, K>(self.model, &x);
            let jf = SMatrix::<S, K, N>::from_fn(|r, c| {
                if self.given[c].is_none() {
                    j[(r, c)]
                } else {
                    S::zero()
                }
            });
            // A constraint on turning coordinates only gets no correction.
            let gram = linalg::gram_with_idle_rows(&jf);
            if let Some(y) = linalg::solve(gram, v) {
                let correction = jf.transpose() * y;
                x.qd = from_fn(|i| x.qd[i] - correction[i]);
            }
        }
        x
    }

    /// The state of the unknowns `z`.
    fn state<const K: usize>(&self, z: &SVector<f64, N>) -> State<N> {
        let x = self.point::<f64, K>(z);
        State::new(x.t, SVector::from(x.q), SVector::from(x.qd))
    }

    /// The residual: F = M q̈ (N rows), the holonomic constraints (K), the momenta given
    /// (N; zero rows for the other coordinates). `None` where the constrained solve
    /// fails.
    fn residual<S: Scalar, const K: usize>(&self, z: &SVector<S, N>) -> Option<Residual<S, N, K>> {
        let x = self.point::<S, K>(z);
        let (force, p) = if T::has_constraints() {
            let accelerations = self.model.eval_accelerations_in(&x)?;
            let e = self.model.eval_equations_in(&x);
            (e.mass * accelerations, e.momenta)
        } else {
            // M q̈ = bias, the inverse-dynamics residual M·0 − bias negated: one sweep.
            let r = self.model.eval_inverse_dynamics_in(&x, &[S::zero(); N]);
            let p = if self.by_momentum() {
                self.model.eval_equations_in(&x).momenta
            } else {
                SVector::zeros()
            };
            (-SVector::from(r), p)
        };
        let mut constraints = SVector::<S, K>::zeros();
        self.model.eval_constraints(Level::Position, &x, |k, c| {
            if k < K && T::holonomic(k) {
                constraints[k] = c;
            }
        });
        let momenta = SVector::<S, N>::from_fn(|i, _| match self.given[i] {
            Some(Turning::Momentum(given)) => p[i] - S::from(given),
            _ => S::zero(),
        });
        Some(Residual {
            force,
            constraints,
            momenta,
        })
    }

    /// The residual's exact Jacobian with respect to the unknowns at `z`.
    fn jacobian<const K: usize>(
        &self,
        z: &SVector<f64, N>,
    ) -> Result<Jacobian<N, K>, DynamicsError> {
        let mut jacobian = Jacobian::<N, K> {
            force: SMatrix::zeros(),
            constraints: SMatrix::zeros(),
            momenta: SMatrix::zeros(),
        };
        let z: [f64; N] = (*z).into();
        let columns = forward_jacobian(&z, |z| self.residual::<Dual64, K>(&SVector::from(*z)));
        for (k, column) in columns.enumerate() {
            let column = column.filter(|c| c.entries().all(f64::is_finite));
            let column = column.ok_or_else(crate::linearize::not_finite)?;
            jacobian.force.set_column(k, &column.force);
            jacobian.constraints.set_column(k, &column.constraints);
            jacobian.momenta.set_column(k, &column.momenta);
        }
        Ok(jacobian)
    }
}

/// The residual of [`Solve`], in blocks.
struct Residual<S, const N: usize, const K: usize> {
    force: SVector<S, N>,
    constraints: SVector<S, K>,
    momenta: SVector<S, N>,
}

impl<S: Scalar, const N: usize, const K: usize> Residual<S, N, K> {
    fn entries(&self) -> impl Iterator<Item = S> + '_ {
        self.force
            .iter()
            .chain(self.constraints.iter())
            .chain(self.momenta.iter())
            .copied()
    }

    fn size(&self) -> f64 {
        self.entries().map(|x| x.re().abs()).fold(0.0, f64::max)
    }

    fn norm_squared(&self) -> f64 {
        self.entries().map(|x| x.re() * x.re()).sum()
    }
}

impl<const N: usize, const K: usize> Eps for Residual<Dual64, N, K> {
    type Column = Residual<f64, N, K>;

    fn eps(&self) -> Residual<f64, N, K> {
        Residual {
            force: self.force.eps(),
            constraints: self.constraints.eps(),
            momenta: self.momenta.eps(),
        }
    }
}

/// The residual's Jacobian, in the residual's blocks.
struct Jacobian<const N: usize, const K: usize> {
    force: SMatrix<f64, N, N>,
    constraints: SMatrix<f64, K, N>,
    momenta: SMatrix<f64, N, N>,
}

impl<const N: usize, const K: usize> Jacobian<N, K> {
    /// The largest entry, the scale residuals are accepted against.
    fn scale(&self) -> f64 {
        self.force
            .amax()
            .max(self.constraints.amax())
            .max(self.momenta.amax())
            .max(f64::MIN_POSITIVE)
    }

    /// The step for the residual `r`: with `newton`, F's Newton step if F's Jacobian is
    /// regular; otherwise the damped Gauss–Newton step of all the residuals.
    fn step(&self, r: &Residual<f64, N, K>, newton: bool) -> Option<SVector<f64, N>> {
        let gauss_newton = || {
            let normal = self.force.tr_mul(&self.force)
                + self.constraints.tr_mul(&self.constraints)
                + self.momenta.tr_mul(&self.momenta);
            let gradient = self.force.tr_mul(&r.force)
                + self.constraints.tr_mul(&r.constraints)
                + self.momenta.tr_mul(&r.momenta);
            linalg::solve_damped_normal(normal, -gradient)
        };
        if newton {
            linalg::solve(self.force, -r.force).or_else(gauss_newton)
        } else {
            gauss_newton()
        }
    }
}

/// Newton's method on [`Solve::residual`] from [`Solve::start`]: the state where it
/// vanishes (to rounding of the coordinates and the Jacobian's scale).
fn solve<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    s: &Solve<'_, T, N, M>,
) -> Result<State<N>, DynamicsError> {
    // Square, and F's own Newton step, without constraints or momenta: a coordinate given
    // by its rate has a zero column, so the step is Gauss–Newton's then.
    let newton = !T::has_constraints() && !s.by_momentum();
    let fail = |residual, iterations| DynamicsError::NoEquilibrium {
        residual,
        iterations,
    };
    let mut z = s.start();
    let mut iterations = 0;
    let mut stalled = false;
    loop {
        let state = s.state::<K>(&z);
        // The residual reported has q̈ in place of F; the plain evaluation says why
        // where there are no accelerations.
        let accelerations = s.model.accelerations(&state, s.u)?;
        let Some(r) = s.residual::<f64, K>(&z) else {
            return Err(fail(accelerations.amax(), iterations));
        };
        let residual = accelerations
            .amax()
            .max(r.constraints.amax())
            .max(r.momenta.amax());
        let jacobian = s.jacobian::<K>(&z)?;
        let accept =
            |relative| tolerances::equilibrium_acceptance(relative, z.amax(), jacobian.scale());
        // The residual is accepted against the largest entry of the whole Jacobian, which
        // the force's can dominate by orders of magnitude; the state must also be on its
        // holonomic constraints as a simulation's start check sees them (relative to each
        // one's own scale), or it is no steady state to start from.
        let on_constraints = || {
            K == 0
                || crate::constrained::position_violation::<T, N, M, K>(
                    s.model, state.t, &state.q, s.u,
                ) <= tolerances::CONSTRAINED_START
        };
        if (r.size() <= accept(tolerances::EQUILIBRIUM)
            || (stalled && r.size() <= accept(tolerances::STALLED_EQUILIBRIUM)))
            && on_constraints()
        {
            return Ok(state);
        }
        // Stalled: converged as far as rounding allows (accepted above if the residual
        // is small), or stuck, as where no unknown moves F (a pushed cart).
        if stalled || iterations == tolerances::EQUILIBRIUM_ITERATIONS {
            return Err(fail(residual, iterations));
        }
        iterations += 1;
        let Some(step) = jacobian.step(&r, newton) else {
            return Err(fail(residual, iterations));
        };
        let current = r.norm_squared();
        let better = |length: f64| {
            s.residual::<f64, K>(&(z + step * length))
                .is_some_and(|r| r.norm_squared() < current)
        };
        let mut length = 1.0;
        while length > tolerances::SHORTEST_STEP && !better(length) {
            length *= 0.5;
        }
        let step = step * length;
        z += step;
        stalled = step.amax() <= 4.0 * f64::EPSILON * (1.0 + z.amax());
    }
}
