//! Contacts chosen at run time: the dynamics of a model standing on any subset of its
//! candidate contacts, and the velocity jump of an impact on them.
//!
//! A model declares its candidate contacts with `contact NAME = p;` (a point: 3 rows, ṗ = 0
//! while active) or `contact NAME = frame(R, p);` (a flat foot or a grasp: 6 rows, the
//! world angular velocity ω of R and ṗ zero). Nothing changes in the model's own dynamics:
//! `lagrangian!` generates `NameContacts { pub NAME: bool, … }` (which contacts are active)
//! and `NameContactForces { pub NAME: SVector<f64, 3 or 6>, … }`, and the methods
//! `contact_dynamics`, `contact_dynamics_with` and `impulse_dynamics`, which call this
//! module.
//!
//! # Contact dynamics
//!
//! With the active contacts' rows J (velocity v = J q̇, acceleration J q̈ + d, d the drift
//! J̇ q̇ + …) stacked under the model's own constraints, the accelerations and the contact
//! forces λ solve
//!
//! ```text
//! M q̈ = rest + Jᵀ λ,      J q̈ + d = −k J q̇      (k the velocity gain, 0 by default)
//! ```
//!
//! as Pinocchio's `constraintDynamics` with `CONTACT_3D` (or `CONTACT_6D`) in
//! `LOCAL_WORLD_ALIGNED`: λ of a point contact is the force on the robot at the point, in
//! world axes; that of a frame contact the moment (first, world axes) and the force at p.
//! For a frame contact the two formulations agree when the contact is at rest: Pinocchio's
//! 6D constraint holds the spatial acceleration of the frame, which leaves out ω × ṗ.
//! Inactive contacts have zero force. The system is solved through the Schur complement
//! J M⁻¹ Jᵀ, as the model's own constraints are ([`constrained`](crate::constrained)); a
//! set of contacts whose rows are dependent (four coplanar flat feet, or a point contact
//! twice) is an error naming them, unless [`ContactSettings::regularization`] is given:
//! then the multipliers are found by Pinocchio's proximal iteration,
//! (J M⁻¹ Jᵀ + ρ I) λₖ₊₁ = J M⁻¹ f − γ + ρ λₖ, which converges to the solution of least
//! norm of a dependent but consistent set and to the exact one of an independent set.
//!
//! # Impacts
//!
//! [`impulse`] gives the velocities just after an impact on the active contacts, as
//! Pinocchio's `impulseDynamics`: M (q̇⁺ − q̇⁻) = Jᵀ Λ with J q̇⁺ = −e J q̇⁻ (e the
//! restitution: 0 inelastic, the contacts come to rest; 1 elastic, their velocities
//! reverse and the kinetic energy is kept), the model's own constraints kept at velocity
//! level, and the impulses Λ.
//!
//! Nothing here allocates, except the errors that name contacts.

use crate::constrained::{dependent_rows, velocity_terms};
use crate::dual_passes::gamma;
use crate::error::DynamicsError;
use crate::eval::{check_state, equations};
use crate::jacobian::Rows;
use crate::linalg::kkt::{self, Schur, Unsolvable};
use crate::linalg::Lu;
use crate::model::{Equations, Model, Point};
use crate::State;
use nalgebra::{SMatrix, SVector};

/// What `contact_dynamics` returns: the accelerations with the active contacts held, and
/// each contact's force on the model (zero for the inactive ones), in the model's
/// `NameContactForces`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactDynamics<const N: usize, F> {
    /// q̈.
    pub accelerations: SVector<f64, N>,
    /// The contact forces, by contact: world axes, at the contact point, moment first for a
    /// frame contact.
    pub forces: F,
}

/// The settings of `contact_dynamics_with` (and of `impulse_dynamics`'s regularization).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactSettings {
    /// A Baumgarte gain k (1/s, ≥ 0) on the contacts' velocity: J q̈ + d = −k J q̇, which
    /// makes a contact velocity that drifts away from zero decay as e^(−k t). 0 (the
    /// default) holds the acceleration alone, as Pinocchio's default.
    pub velocity_gain: f64,
    /// Pinocchio's proximal ρ (> 0): the multipliers by the proximal iteration, which
    /// accepts dependent contact sets. `None` (the default) solves exactly and reports a
    /// dependent set as [`DynamicsError::DependentContacts`].
    pub regularization: Option<f64>,
    /// The proximal iteration stops when no multiplier moves by more than this, relative to
    /// the largest (default 1e-12).
    pub tolerance: f64,
    /// The proximal iteration's limit (default 100).
    pub max_iterations: usize,
}

impl Default for ContactSettings {
    fn default() -> Self {
        ContactSettings {
            velocity_gain: 0.0,
            regularization: None,
            tolerance: 1e-12,
            max_iterations: 100,
        }
    }
}

impl ContactSettings {
    /// # Errors
    /// [`DynamicsError::InvalidSetting`] for a velocity gain that is negative or not
    /// finite, a regularization that is not positive and finite, a tolerance that is not
    /// positive and finite, or no iterations.
    pub fn check(&self) -> Result<(), DynamicsError> {
        if !(self.velocity_gain.is_finite() && self.velocity_gain >= 0.0) {
            return Err(DynamicsError::InvalidSetting(
                "the contacts' velocity gain must be finite and non-negative",
            ));
        }
        if let Some(rho) = self.regularization {
            if !(rho.is_finite() && rho > 0.0) {
                return Err(DynamicsError::InvalidSetting(
                    "the contacts' regularization ρ must be positive and finite",
                ));
            }
        }
        if !(self.tolerance.is_finite() && self.tolerance > 0.0) {
            return Err(DynamicsError::InvalidSetting(
                "the contacts' tolerance must be positive and finite",
            ));
        }
        if self.max_iterations == 0 {
            return Err(DynamicsError::InvalidSetting(
                "the contacts' proximal iteration needs at least one iteration",
            ));
        }
        Ok(())
    }
}

/// A model's candidate contacts, for the generated code: the contact each of the C rows
/// belongs to, and which rows are active.
#[doc(hidden)]
pub struct ContactRows<'a, const N: usize, const C: usize> {
    /// The rows (Jacobian and drift) of every candidate contact.
    pub rows: &'a Rows<N, C>,
    /// The contact of each row, by name.
    pub names: &'a [&'static str; C],
    /// Whether each row's contact is active.
    pub active: [bool; C],
}

/// The accelerations and the contact forces (C rows, zero where inactive) of the model with
/// its own K constraints and the active contacts: R = K + C. Called by the generated
/// `contact_dynamics_with`.
///
/// # Errors
/// As [`Dynamics::accelerations`](crate::Dynamics::accelerations),
/// [`DynamicsError::DependentContacts`] naming the contacts (and constraints) whose rows
/// are dependent, [`DynamicsError::ContactsNotConverged`] when the proximal iteration does
/// not converge, [`DynamicsError::InvalidSetting`] for settings
/// [`ContactSettings::check`] refuses.
#[doc(hidden)]
pub fn dynamics<
    T: Model<N, M>,
    const N: usize,
    const M: usize,
    const K: usize,
    const C: usize,
    const R: usize,
>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    contacts: &ContactRows<'_, N, C>,
    settings: &ContactSettings,
) -> Result<(SVector<f64, N>, SVector<f64, C>), DynamicsError> {
    settings.check()?;
    check_state::<T, N, M>(s, u)?;
    let Equations {
        mass,
        bias,
        lagrangian,
        ..
    } = equations(model, s, u);
    if !lagrangian.is_finite() {
        return Err(DynamicsError::NonFiniteResult {
            quantity: "Lagrangian",
        });
    }
    finite(&mass, "mass matrix")?;
    finite(&bias, "forces of the equations of motion")?;
    let (_, own) = velocity_terms::<T, N, M, K>(model, s, u);
    let own_gamma = gamma::<T, f64, N, M, K>(model, &Point::new(s, u));
    let (j, mut target) = stacked::<N, K, C, R>(&own, &own_gamma, contacts);
    for c in 0..C {
        if contacts.active[c] {
            let row = &contacts.rows.matrix[c];
            let velocity: f64 = row.iter().zip(s.qd.iter()).map(|(a, b)| a * b).sum();
            target[K + c] = -contacts.rows.drift[c] - settings.velocity_gain * velocity;
        }
    }
    finite(&j, "contact Jacobian")?;
    finite(&target, "contacts differentiated to acceleration level")?;
    let (qdd, lambda) = solve::<T, N, M, K, C, R>(&mass, &bias, &j, &target, contacts, settings)?;
    finite(&qdd, "accelerations")?;
    let forces = SVector::from_fn(|c, _| -lambda[K + c]);
    finite(&forces, "contact forces")?;
    Ok((qdd, forces))
}

/// The velocities just after an impact on the active contacts with restitution `e`, and
/// the impulses on the model (C rows, zero where inactive). Called by the generated
/// `impulse_dynamics`.
///
/// # Errors
/// [`DynamicsError::InvalidSetting`] for a restitution outside [0, 1]; as [`dynamics`]
/// otherwise.
#[doc(hidden)]
pub fn impulse<
    T: Model<N, M>,
    const N: usize,
    const M: usize,
    const K: usize,
    const C: usize,
    const R: usize,
>(
    model: &T,
    s: &State<N>,
    contacts: &ContactRows<'_, N, C>,
    restitution: f64,
    settings: &ContactSettings,
) -> Result<(State<N>, SVector<f64, C>), DynamicsError> {
    settings.check()?;
    if !(0.0..=1.0).contains(&restitution) {
        return Err(DynamicsError::InvalidSetting(
            "the restitution of an impact must be in [0, 1]",
        ));
    }
    let u = SVector::<f64, M>::zeros();
    check_state::<T, N, M>(s, &u)?;
    let mass = model.eval_mass_matrix(&Point::new(s, &u));
    finite(&mass, "mass matrix")?;
    // The model's constraints at velocity level, v = J q̇ + b = 0 after the impact too:
    // J q̇⁺ = J q̇⁻ − v.
    let (v, own) = velocity_terms::<T, N, M, K>(model, s, &u);
    let own_target = own * s.qd - v;
    let (j, mut target) = stacked::<N, K, C, R>(&own, &own_target, contacts);
    for c in 0..C {
        if contacts.active[c] {
            let row = &contacts.rows.matrix[c];
            let velocity: f64 = row.iter().zip(s.qd.iter()).map(|(a, b)| a * b).sum();
            target[K + c] = -restitution * velocity;
        }
    }
    finite(&j, "contact Jacobian")?;
    let momentum = mass * s.qd;
    let (qd, lambda) =
        solve::<T, N, M, K, C, R>(&mass, &momentum, &j, &target, contacts, settings)?;
    finite(&qd, "velocities after the impact")?;
    let impulses = SVector::from_fn(|c, _| -lambda[K + c]);
    finite(&impulses, "contact impulses")?;
    Ok((State::new(s.t, s.q, qd), impulses))
}

/// The model's rows (`own`, with their targets) over the contacts' rows, the inactive ones
/// zero (target zero too).
fn stacked<const N: usize, const K: usize, const C: usize, const R: usize>(
    own: &SMatrix<f64, K, N>,
    own_target: &SVector<f64, K>,
    contacts: &ContactRows<'_, N, C>,
) -> (SMatrix<f64, R, N>, SVector<f64, R>) {
    assert_eq!(
        R,
        K + C,
        "R is the model's constraints and the contacts' rows"
    );
    let mut j = SMatrix::<f64, R, N>::zeros();
    let mut target = SVector::<f64, R>::zeros();
    j.fixed_rows_mut::<K>(0).copy_from(own);
    target.fixed_rows_mut::<K>(0).copy_from(own_target);
    for c in 0..C {
        if contacts.active[c] {
            for (i, &x) in contacts.rows.matrix[c].iter().enumerate() {
                j[(K + c, i)] = x;
            }
        }
    }
    (j, target)
}

/// q̈ (or q̇⁺) and λ of `M x + Jᵀ λ = f, J x = target`, the inactive contact rows of J zero
/// and their λ zero: a 1 on their diagonal of the Schur complement.
fn solve<
    T: Model<N, M>,
    const N: usize,
    const M: usize,
    const K: usize,
    const C: usize,
    const R: usize,
>(
    mass: &SMatrix<f64, N, N>,
    f: &SVector<f64, N>,
    j: &SMatrix<f64, R, N>,
    target: &SVector<f64, R>,
    contacts: &ContactRows<'_, N, C>,
    settings: &ContactSettings,
) -> Result<(SVector<f64, N>, SVector<f64, R>), DynamicsError> {
    // An inactive contact's rows, and a row that no velocity moves and that asks for no
    // acceleration (a planar model's out-of-plane direction), carry no force.
    let idle = |r: usize| {
        r >= K
            && (!contacts.active[r - K] || (j.row(r).iter().all(|&x| x == 0.0) && target[r] == 0.0))
    };
    let mut system: Schur<f64, N, R> = match kkt::schur_dense(mass, f, j, target) {
        Ok(system) => system,
        Err(Unsolvable::Schur(schur)) => {
            return Err(dependent::<T, N, M, K, C, R>(&schur, contacts))
        }
        Err(_) => {
            // Completing M with every active row did not make it definite: M is indefinite,
            // or some velocity is fixed by neither T nor the rows; or the rows are dependent.
            let mut gram = j * j.transpose();
            (0..R).filter(|&r| idle(r)).for_each(|r| gram[(r, r)] = 1.0);
            if Lu::factor(gram).is_none() {
                return Err(dependent::<T, N, M, K, C, R>(&gram, contacts));
            }
            return Err(crate::linalg::factor_mass(mass, &T::COORDINATES)
                .err()
                .unwrap_or(DynamicsError::SingularMassMatrix));
        }
    };
    for r in (0..R).filter(|&r| idle(r)) {
        system.schur[(r, r)] = 1.0;
    }
    finite(&system.schur, "contact Schur complement J M⁻¹ Jᵀ")?;
    let lambda = match settings.regularization {
        None => match Lu::factor(system.schur) {
            Some(lu) => lu.solve(&system.rhs),
            None => return Err(dependent::<T, N, M, K, C, R>(&system.schur, contacts)),
        },
        Some(rho) => proximal(&system, rho, settings)?,
    };
    Ok((system.accelerations(&lambda), lambda))
}

/// The proximal iteration (S + ρ I) λₖ₊₁ = rhs + ρ λₖ from λ₀ = 0, S factored once.
fn proximal<const N: usize, const R: usize>(
    system: &Schur<f64, N, R>,
    rho: f64,
    settings: &ContactSettings,
) -> Result<SVector<f64, R>, DynamicsError> {
    let shifted = system.schur + SMatrix::<f64, R, R>::identity() * rho;
    let Some(lu) = Lu::factor(shifted) else {
        return Err(DynamicsError::NonFiniteResult {
            quantity: "regularized contact Schur complement",
        });
    };
    let mut lambda = SVector::<f64, R>::zeros();
    let mut change = f64::INFINITY;
    for _ in 0..settings.max_iterations {
        let next = lu.solve(&(system.rhs + lambda * rho));
        change = (next - lambda).amax();
        lambda = next;
        if change <= settings.tolerance * lambda.amax().max(1.0) {
            return Ok(lambda);
        }
    }
    Err(DynamicsError::ContactsNotConverged {
        iterations: settings.max_iterations,
        change,
    })
}

/// The error naming the contacts (and the model's constraints) whose rows are dependent in
/// `matrix` (a Schur complement or Gram matrix over the R rows).
fn dependent<
    T: Model<N, M>,
    const N: usize,
    const M: usize,
    const K: usize,
    const C: usize,
    const R: usize,
>(
    matrix: &SMatrix<f64, R, R>,
    contacts: &ContactRows<'_, N, C>,
) -> DynamicsError {
    let mut matrix = *matrix;
    for c in (0..C).filter(|&c| !contacts.active[c]) {
        matrix.row_mut(K + c).fill(0.0);
        matrix.column_mut(K + c).fill(0.0);
        matrix[(K + c, K + c)] = 1.0;
    }
    let mut names: Vec<&'static str> = Vec::new();
    let candidates = (0..R).filter(|&r| r < K || contacts.active[r - K]);
    for r in dependent_rows(&matrix, candidates) {
        let name = if r < K {
            T::CONSTRAINT_NAMES.get(r).copied().unwrap_or("?")
        } else {
            contacts.names[r - K]
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    DynamicsError::DependentContacts { contacts: names }
}

fn finite<const R: usize, const C: usize>(
    m: &SMatrix<f64, R, C>,
    quantity: &'static str,
) -> Result<(), DynamicsError> {
    if m.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(DynamicsError::NonFiniteResult { quantity })
    }
}
