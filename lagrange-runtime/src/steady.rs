//! Steady motions: states in which chosen coordinates turn at constant rates and the others
//! rest (or move only as the constraints make them), with their stability.
//!
//! The interesting states of a governor, a spinning top or a rolling coin are not points
//! of rest: the shaft, the spin or the rolling angle turns at a constant rate while the
//! shape (the arms' angle, the tilt, the lean) stays put. [`steady_motion`] finds such a
//! state from a guess, given for each turning coordinate either its rate or its momentum
//! ∂L/∂q̇ (the conserved momentum of a cyclic coordinate: a free shaft keeps it, not its
//! rate), and reports its stability ([`stability`](crate::stability)) from the
//! linearization in independent coordinates. [`equilibrium`](crate::linearize::equilibrium)
//! is the special case of no turning coordinates and returns the same [`SteadyMotion`].
//!
//! The turning coordinates keep the positions of the guess: steady motions of this kind
//! exist when they are cyclic (nothing depends on them), and then where they start does
//! not matter.

use crate::error::DynamicsError;
use crate::eval::{check_state, seed_column};
use crate::linalg;
use crate::linearize::{linearize, Linearization};
use crate::model::Point;
use crate::model::{ConstraintCount, ConstraintKinds, Level, Model, Scalar, WithCount};
use crate::passes::velocity_terms_in;
use crate::stability::{Spectrum, Stability};
use crate::{tolerances, Dynamics, State};
use nalgebra::{SMatrix, SVector};
use num_dual::Dual64;
use std::array::from_fn;

/// What is given of a turning coordinate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Turning {
    /// Its rate q̇, constant in the steady motion.
    Rate(f64),
    /// Its momentum ∂L/∂q̇ (conserved when the coordinate is cyclic); the rate follows.
    Momentum(f64),
}

/// An equilibrium or a steady motion, with its linearization and stability.
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
    pub(crate) fn at<T: Model<N, M> + Dynamics<N, M>>(
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

/// The steady motion near `guess` in which the coordinates named in `turning` turn as
/// given (a rate or a momentum each) and every acceleration vanishes, at time `guess.t`
/// with inputs `u`.
///
/// The unknowns are the positions of the other coordinates and the rates given by their
/// momenta; the velocities of the other coordinates are the smallest that satisfy the
/// constraints with the turning ones given (zero without constraints; for a rolling coin,
/// the velocity of its contact point). They solve q̈ = 0, the holonomic constraints and the
/// momenta given, by Gauss–Newton with exact Jacobians (dual numbers through the whole
/// constrained solve) and a backtracking line search. The guess's velocities are not used.
///
/// # Errors
/// [`DynamicsError::InvalidSetting`] for a name that is not a coordinate's, a coordinate
/// named twice, or a rate or momentum that is not finite; [`DynamicsError::NoEquilibrium`]
/// when Gauss–Newton does not converge (no steady motion near the guess, or a turning
/// coordinate that is not cyclic); [`DynamicsError::ConstraintsForbidSteadyState`] when
/// the state found violates the velocity form of a constraint (a driving constraint); the
/// errors of [`linearize`] at the state found.
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
pub fn steady_motion<T: Model<N, M> + Dynamics<N, M>, const N: usize, const M: usize>(
    model: &T,
    guess: &State<N>,
    turning: &[(&str, Turning)],
    u: &SVector<f64, M>,
) -> Result<SteadyMotion<N, M>, DynamicsError> {
    let given = given::<T, N, M>(turning).map_err(DynamicsError::InvalidSetting)?;
    check_state::<T, N, M>(&State::at_rest(guess.q), u)?;
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

struct Solve<'a, T, const N: usize, const M: usize> {
    model: &'a T,
    guess: &'a State<N>,
    given: &'a [Option<Turning>; N],
    u: &'a SVector<f64, M>,
}

impl<T: Model<N, M> + Dynamics<N, M>, const N: usize, const M: usize> WithCount
    for Solve<'_, T, N, M>
{
    type Output = Result<State<N>, DynamicsError>;
    fn run<const K: usize>(self) -> Self::Output {
        solve::<T, N, M, K>(&self)
    }
}

impl<T: Model<N, M> + Dynamics<N, M>, const N: usize, const M: usize> Solve<'_, T, N, M> {
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

    /// The state of the unknowns `z`, in any scalar.
    fn state<S: Scalar, const K: usize>(&self, z: &SVector<S, N>) -> Point<S, N, M> {
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
        if K > 0 {
            // The smallest velocities of the other coordinates that satisfy the
            // constraints: q̇ = q̇₀ − J_fᵀ (J_f J_fᵀ)⁻¹ (J q̇₀ + j), J_f the columns of the
            // resting coordinates.
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
            if let Some(y) = crate::linalg::solve(gram, v) {
                let correction = jf.transpose() * y;
                x.qd = from_fn(|i| x.qd[i] - correction[i]);
            }
        }
        x
    }

    /// The residual: q̈ (N rows), the holonomic constraints (K), the momenta given (N;
    /// zero rows for the other coordinates). `None` where the constrained solve fails.
    fn residual<S: Scalar, const K: usize>(&self, z: &SVector<S, N>) -> Option<Residual<S, N, K>> {
        let x = self.state::<S, K>(z);
        let accelerations = self.model.eval_accelerations_in(&x)?;
        let mut constraints = SVector::<S, K>::zeros();
        self.model.eval_constraints(Level::Position, &x, |k, c| {
            if k < K && T::holonomic(k) {
                constraints[k] = c;
            }
        });
        let p = self.model.eval_equations_in(&x).momenta;
        let momenta = SVector::<S, N>::from_fn(|i, _| match self.given[i] {
            Some(Turning::Momentum(given)) => p[i] - S::from(given),
            _ => S::zero(),
        });
        Some(Residual {
            accelerations,
            constraints,
            momenta,
        })
    }
}

struct Residual<S, const N: usize, const K: usize> {
    accelerations: SVector<S, N>,
    constraints: SVector<S, K>,
    momenta: SVector<S, N>,
}

impl<S: Scalar, const N: usize, const K: usize> Residual<S, N, K> {
    fn entries(&self) -> impl Iterator<Item = S> + '_ {
        self.accelerations
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

fn solve<T: Model<N, M> + Dynamics<N, M>, const N: usize, const M: usize, const K: usize>(
    s: &Solve<'_, T, N, M>,
) -> Result<State<N>, DynamicsError> {
    let mut z = s.start();
    let mut residual = f64::INFINITY;
    let mut iterations = 0;
    let mut stalled = false;
    let fail = |residual, iterations| DynamicsError::NoEquilibrium {
        residual,
        iterations,
    };
    while iterations < tolerances::EQUILIBRIUM_ITERATIONS {
        let Some(r) = s.residual::<f64, K>(&z) else {
            // Let the plain evaluation say why the constrained solve fails.
            let x = s.state::<f64, K>(&z);
            let state = State::new(x.t, SVector::from(x.q), SVector::from(x.qd));
            s.model.accelerations(&state, s.u)?;
            return Err(fail(residual, iterations));
        };
        residual = r.size();
        // Column k of the Jacobian: one dual evaluation seeded on unknown k.
        let mut jacobian: Vec<Vec<f64>> = Vec::with_capacity(N);
        for k in 0..N {
            let seeded = SVector::from(seed_column(&z.into(), k));
            let Some(d) = s.residual::<Dual64, K>(&seeded) else {
                return Err(fail(residual, iterations));
            };
            jacobian.push(d.entries().map(|x| x.eps).collect());
        }
        let scale = jacobian
            .iter()
            .flatten()
            .fold(0.0f64, |m, x| m.max(x.abs()))
            .max(f64::MIN_POSITIVE);
        let accept = |relative| tolerances::equilibrium_acceptance(relative, z.amax(), scale);
        if residual <= accept(tolerances::EQUILIBRIUM)
            || (stalled && residual <= accept(tolerances::STALLED_EQUILIBRIUM))
        {
            let x = s.state::<f64, K>(&z);
            return Ok(State::new(x.t, SVector::from(x.q), SVector::from(x.qd)));
        }
        iterations += 1;
        // Gauss–Newton, damped so that an unknown nothing depends on (a cyclic position)
        // gets no step.
        let values: Vec<f64> = r.entries().collect();
        let normal = SMatrix::<f64, N, N>::from_fn(|a, b| {
            jacobian[a]
                .iter()
                .zip(&jacobian[b])
                .map(|(x, y)| x * y)
                .sum()
        });
        let gradient = SVector::<f64, N>::from_fn(|a, _| {
            jacobian[a].iter().zip(&values).map(|(x, y)| x * y).sum()
        });
        let Some(step) = crate::linalg::solve_damped_normal(normal, -gradient) else {
            return Err(fail(residual, iterations));
        };
        let current = r.norm_squared();
        let mut length = 1.0;
        loop {
            let trial = z + step * length;
            let better = s
                .residual::<f64, K>(&trial)
                .is_some_and(|r| r.norm_squared() < current);
            if better || length <= tolerances::SHORTEST_STEP {
                break;
            }
            length *= 0.5;
        }
        let step = step * length;
        z += step;
        if stalled {
            break;
        }
        // Converged as far as rounding allows (accepted above if the residual is small),
        // or stuck.
        stalled = step.amax() <= 4.0 * f64::EPSILON * (1.0 + z.amax());
    }
    Err(fail(residual, iterations))
}
