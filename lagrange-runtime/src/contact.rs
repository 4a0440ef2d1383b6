//! Contacts chosen at run time: the dynamics of a model standing on any subset of its
//! candidate contacts, and the velocity jump of an impact on them.
//!
//! A model declares its candidate contacts with `contact NAME = p;` (a point: 3 rows, ṗ = 0
//! while active) or `contact NAME = frame(R, p);` (a flat foot or a grasp: 6 rows, the
//! world angular velocity ω of R and ṗ zero). Nothing changes in the model's own dynamics:
//! `lagrangian!` generates `NameContacts { pub NAME: bool, … }` (which contacts are active)
//! and `NameContactForces { pub NAME: SVector<f64, 3 or 6>, … }`, the methods
//! `contact_dynamics`, `contact_dynamics_with`, `impulse_dynamics` and
//! `linearize_contacts`, which call this module, and `holding`, which makes a [`Holding`]
//! (the model with a set of contacts held, to simulate); the model implements
//! [`Contacts`].
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
//! Inactive contacts have zero force, and so has a row that no velocity moves and that asks
//! for no acceleration (the out-of-plane direction of a planar model's point). The system
//! is solved through the Schur complement J M⁻¹ Jᵀ, as the model's own constraints are
//! ([`constrained`](crate::constrained)): M factored along the model's kinematic tree
//! (completed, when only semidefinite, by its own constraints), J M⁻¹ Jᵀ = Zᵀ D⁻¹ Z from
//! the half solves Z = L⁻ᵀ Jᵀ, and q̈ = M⁻¹ (f − Jᵀ λ) by one more solve; a
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
//! # Linearization
//!
//! [`linearize`] gives A and B of the contact-constrained dynamics, exact, as
//! [`linearize`](crate::linearize::linearize) does for the model's own constraints: the
//! system above differentiated implicitly at its solution, the inverse dynamics and the
//! rows in first-order dual numbers, one column of (q, q̇, u) per evaluation, the KKT
//! matrix factored once, with the tangent space of the
//! contact manifold (every active contact held at position and velocity level, a frame's
//! orientation too, with the model's own constraints) as the independent coordinates, as
//! [`linearize`](crate::linearize::linearize) is for fixed constraints.
//!
//! Nothing here allocates, except the errors that name contacts (and the linearization's
//! matrices).

use crate::constrained::{constraints_in_state, dependent_rows, finite, velocity_terms};
use crate::dual_passes::{gamma, seeded_point_is_large, velocities_seeded, velocity_terms_in};
use crate::error::DynamicsError;
use crate::eval::{check_state, equations};
use crate::jacobian::Rows;
use crate::linalg::kkt::{self, Reduced, Unsolvable};
use crate::linalg::{self, Lu};
use crate::linearize::{linearized, Implicit, Linearization, Source};
use crate::model::{Equations, Model, Point, Scalar};
use crate::{Dynamics, State};
use nalgebra::{Const, DMatrix, SMatrix, SVector, U1};
use num_dual::{Dual, Dual64, DualVec};
use std::array::from_fn;

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
        if let Some(rho) = self.regularization
            && !(rho.is_finite() && rho > 0.0)
        {
            return Err(DynamicsError::InvalidSetting(
                "the contacts' regularization ρ must be positive and finite",
            ));
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

/// The candidate contacts of a model, C rows in all (3 per point, 6 per frame), which
/// `lagrangian!` implements for a model that declares contacts: what the functions of this
/// module read.
pub trait Contacts<const N: usize, const M: usize, const C: usize>: Model<N, M> {
    /// The contact of each row, by name.
    const ROW_NAMES: [&'static str; C];

    /// The velocity of every row at a point in any scalar, affine in q̇: a point's ṗ, a
    /// frame's world ω then ṗ.
    fn eval_contact_velocities<D: Scalar>(&self, x: &Point<D, N, M>) -> [D; C];

    /// The rows' Jacobian ∂v/∂q̇ and drift (the acceleration at q̈ = 0) in `f64`.
    #[doc(hidden)]
    fn eval_contact_rows(&self, x: &Point<f64, N, M>) -> Rows<N, C>;

    /// [`dynamics`] with the model's own number of constraints: the accelerations and the
    /// contact forces (C rows) with the `active` rows held.
    ///
    /// # Errors
    /// As [`dynamics`].
    fn eval_contact_dynamics(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
        active: &[bool; C],
        settings: &ContactSettings,
    ) -> Result<(SVector<f64, N>, SVector<f64, C>), DynamicsError>;
}

/// A model with a set of its contacts held: a [`Dynamics`] whose accelerations are those of
/// `contact_dynamics` with that set (the energies, forces and inverse dynamics are the
/// model's own), so that a [`Simulation`](crate::simulate::Simulation) runs a robot standing
/// on those feet with any integrator and controller. `Name::holding(&active, gain)` makes
/// one; switch contact sets by running one simulation per phase, each from the last state
/// of the one before (through `impulse_dynamics` where a contact lands). A run checks that
/// its start is on the model's own constraints to rounding (a floating base's unit
/// quaternion): the last state of an integration is off them by its error, so
/// [`project`](crate::ConstraintSolver::project) it first, as `examples/solo12_standing.rs`
/// does.
#[derive(Debug, Clone, Copy)]
pub struct Holding<'a, T, const C: usize> {
    /// The model.
    pub model: &'a T,
    /// Whether each contact row is held.
    pub active: [bool; C],
    /// The settings of the solve (a velocity gain keeps held contacts from drifting).
    pub settings: ContactSettings,
}

impl<T: Contacts<N, M, C>, const N: usize, const M: usize, const C: usize> Dynamics<N, M>
    for Holding<'_, T, C>
{
    const COORDINATES: [&'static str; N] = <T as Model<N, M>>::COORDINATES;
    const INPUTS: [&'static str; M] = <T as Model<N, M>>::INPUTS;
    const UNITS: Option<crate::Units<N, M>> = <T as Model<N, M>>::UNITS;

    fn lagrangian(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.model.lagrangian(s, u)
    }
    fn kinetic_energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.model.kinetic_energy(s, u)
    }
    fn potential_energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.model.potential_energy(s, u)
    }
    fn dissipation(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.model.dissipation(s, u)
    }
    fn energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.model.energy(s, u)
    }
    fn momenta(&self, s: &State<N>, u: &SVector<f64, M>) -> SVector<f64, N> {
        self.model.momenta(s, u)
    }
    fn mass_matrix(&self, s: &State<N>, u: &SVector<f64, M>) -> SMatrix<f64, N, N> {
        self.model.mass_matrix(s, u)
    }
    fn generalized_forces(&self, s: &State<N>, u: &SVector<f64, M>) -> SVector<f64, N> {
        self.model.generalized_forces(s, u)
    }
    fn accelerations(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
    ) -> Result<SVector<f64, N>, DynamicsError> {
        let (qdd, _) = self
            .model
            .eval_contact_dynamics(s, u, &self.active, &self.settings)?;
        Ok(qdd)
    }
    /// The settings must be valid; the state need not be on the model's own constraints
    /// exactly (the model's check applies).
    fn check_start(&self, s: &State<N>, u: &SVector<f64, M>) -> Result<(), DynamicsError> {
        self.settings.check()?;
        self.model.check_start(s, u)
    }
    fn inverse_dynamics(
        &self,
        s: &State<N>,
        qdd: &SVector<f64, N>,
        u: &SVector<f64, M>,
    ) -> SVector<f64, N> {
        self.model.inverse_dynamics(s, qdd, u)
    }
}

/// The accelerations and the contact forces (C rows, zero where inactive) of the model with
/// its own K constraints and the active contacts (`active`, one per row): R = K + C.
/// Called by the generated `contact_dynamics_with`.
///
/// # Errors
/// As [`Dynamics::accelerations`](crate::Dynamics::accelerations),
/// [`DynamicsError::DependentContacts`] naming the contacts (and constraints) whose rows
/// are dependent, [`DynamicsError::ContactsNotConverged`] when the proximal iteration does
/// not converge, [`DynamicsError::InvalidSetting`] for settings
/// [`ContactSettings::check`] refuses.
#[doc(hidden)]
pub fn dynamics<
    T: Contacts<N, M, C>,
    const N: usize,
    const M: usize,
    const K: usize,
    const C: usize,
    const R: usize,
>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    active: &[bool; C],
    settings: &ContactSettings,
) -> Result<(SVector<f64, N>, SVector<f64, C>), DynamicsError> {
    let (qdd, lambda) = solution::<T, N, M, K, C, R>(model, s, u, active, settings)?;
    Ok((qdd, SVector::from_fn(|c, _| -lambda[K + c])))
}

/// [`dynamics`] with every multiplier: the model's own K, then the contacts' C rows (minus
/// their forces).
fn solution<
    T: Contacts<N, M, C>,
    const N: usize,
    const M: usize,
    const K: usize,
    const C: usize,
    const R: usize,
>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    active: &[bool; C],
    settings: &ContactSettings,
) -> Result<(SVector<f64, N>, SVector<f64, R>), DynamicsError> {
    settings.check()?;
    let system = assembled::<T, N, M, K, C, R>(model, s, u, active, settings.velocity_gain)?;
    solved::<T, N, M, K, C, R>(&system, active, settings)
}

/// What [`solution`] solves at a state: M and the rest of the equations f, the model's own
/// rows, and those over the active contacts' (the inactive ones zero) with their targets,
/// J q̈ = target (a velocity gain k: −drift − k J q̇).
struct System<const N: usize, const K: usize, const R: usize> {
    mass: SMatrix<f64, N, N>,
    bias: SVector<f64, N>,
    own: SMatrix<f64, K, N>,
    j: SMatrix<f64, R, N>,
    target: SVector<f64, R>,
}

/// The [`System`] at `s`, checked finite.
fn assembled<
    T: Contacts<N, M, C>,
    const N: usize,
    const M: usize,
    const K: usize,
    const C: usize,
    const R: usize,
>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    active: &[bool; C],
    gain: f64,
) -> Result<System<N, K, R>, DynamicsError> {
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
    let rows = model.eval_contact_rows(&Point::new(s, u));
    let (j, mut target) = stacked::<f64, N, K, C, R>(&own, &own_gamma, &rows.matrix, active);
    for c in (0..C).filter(|&c| active[c]) {
        let velocity = row_times(&rows.matrix[c], &s.qd);
        target[K + c] = -rows.drift[c] - gain * velocity;
    }
    finite(&j, "contact Jacobian")?;
    finite(&target, "contacts differentiated to acceleration level")?;
    Ok(System {
        mass,
        bias,
        own,
        j,
        target,
    })
}

/// q̈ and every multiplier of a [`System`], checked finite.
fn solved<
    T: Contacts<N, M, C>,
    const N: usize,
    const M: usize,
    const K: usize,
    const C: usize,
    const R: usize,
>(
    system: &System<N, K, R>,
    active: &[bool; C],
    settings: &ContactSettings,
) -> Result<(SVector<f64, N>, SVector<f64, R>), DynamicsError> {
    let System {
        mass,
        bias,
        own,
        j,
        target,
    } = system;
    let (qdd, lambda) = solve::<T, N, M, K, C, R>(mass, bias, own, j, target, active, settings)?;
    finite(&qdd, "accelerations")?;
    finite(&lambda, "contact forces")?;
    Ok((qdd, lambda))
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
    T: Contacts<N, M, C>,
    const N: usize,
    const M: usize,
    const K: usize,
    const C: usize,
    const R: usize,
>(
    model: &T,
    s: &State<N>,
    active: &[bool; C],
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
    let rows = model.eval_contact_rows(&Point::new(s, &u));
    let (j, mut target) = stacked::<f64, N, K, C, R>(&own, &own_target, &rows.matrix, active);
    for c in (0..C).filter(|&c| active[c]) {
        target[K + c] = -restitution * row_times(&rows.matrix[c], &s.qd);
    }
    finite(&j, "contact Jacobian")?;
    let momentum = mass * s.qd;
    let (qd, lambda) =
        solve::<T, N, M, K, C, R>(&mass, &momentum, &own, &j, &target, active, settings)?;
    finite(&qd, "velocities after the impact")?;
    let impulses = SVector::from_fn(|c, _| -lambda[K + c]);
    finite(&impulses, "contact impulses")?;
    Ok((State::new(s.t, s.q, qd), impulses))
}

/// The linearization of the contact-constrained dynamics at `s`, `u` with the `active`
/// contacts (one flag per row) held: ∂q̈/∂(q, q̇, u) exact, and the tangent space of the
/// contact manifold as [`Linearization::tangent`]. Called by the generated
/// `linearize_contacts`.
///
/// # Errors
/// As [`dynamics`] at that state, and [`DynamicsError::NonFiniteResult`] when a
/// derivative is not finite.
#[doc(hidden)]
pub fn linearize<
    T: Contacts<N, M, C>,
    const N: usize,
    const M: usize,
    const K: usize,
    const C: usize,
    const R: usize,
>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    active: &[bool; C],
) -> Result<Linearization<N, M>, DynamicsError> {
    let settings = ContactSettings::default();
    let system = assembled::<T, N, M, K, C, R>(model, s, u, active, settings.velocity_gain)?;
    let (accelerations, lambda) = solved::<T, N, M, K, C, R>(&system, active, &settings)?;
    let mut idle = [false; R];
    for r in idle_rows(&system.j, &system.target, active) {
        idle[r] = true;
    }
    let tree = T::MASS_TREE;
    let kkt = kkt::Factored::new(&system.mass, &system.own, &system.j, &idle, tree.as_ref())
        .map_err(|_| crate::linearize::not_finite())?;
    let implicit = Implicit::new(kkt, &accelerations, &lambda);
    let tangent = manifold::<T, N, M, C>(model, s, u, active);
    linearized(
        model,
        s,
        u,
        &tangent,
        |x| rows::<T, Dual64, N, M, K, C, R>(model, x, active),
        |x| targets::<T, Dual64, N, M, K, C, R>(model, x, active),
        // A contact reads any coordinate.
        N,
        Source::Solved(&implicit),
    )
}

/// The rows of a [`System`] at a point in any scalar: the model's own constraints' over the
/// active contacts' (the inactive ones zero).
fn rows<
    T: Contacts<N, M, C>,
    S: Scalar,
    const N: usize,
    const M: usize,
    const K: usize,
    const C: usize,
    const R: usize,
>(
    model: &T,
    x: &Point<S, N, M>,
    active: &[bool; C],
) -> SMatrix<S, R, N> {
    let (_, own) = velocity_terms_in::<T, S, N, M, K>(model, x);
    let (_, jc) = contact_velocity_terms::<T, S, N, M, C>(model, x);
    let contacts: [[S; N]; C] = from_fn(|c| from_fn(|i| jc[(c, i)]));
    stacked::<S, N, K, C, R>(&own, &SVector::zeros(), &contacts, active).0
}

/// The targets of a [`System`] without velocity gain at a point in any scalar: the model's
/// γ, then minus each active contact's drift.
fn targets<
    T: Contacts<N, M, C>,
    S: Scalar,
    const N: usize,
    const M: usize,
    const K: usize,
    const C: usize,
    const R: usize,
>(
    model: &T,
    x: &Point<S, N, M>,
    active: &[bool; C],
) -> SVector<S, R> {
    let mut target = SVector::<S, R>::zeros();
    target
        .fixed_rows_mut::<K>(0)
        .copy_from(&gamma::<T, S, N, M, K>(model, x));
    let drift = contact_drift::<T, S, N, M, C>(model, x);
    for c in (0..C).filter(|&c| active[c]) {
        target[K + c] = -drift[c];
    }
    target
}

/// The rows whose null space is the tangent of the contact manifold in the state (q, q̇):
/// the model's own ([`constraints_in_state`]) and, for each active contact row with
/// velocity v = J q̇ + b, `[J, 0]` (the point, or the frame's orientation, held) and
/// `[∂v/∂q, J]` (its velocity held); rows that are exactly zero left out, for
/// [`linalg::null_space`] needs rows of full rank.
fn manifold<T: Contacts<N, M, C>, const N: usize, const M: usize, const C: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    active: &[bool; C],
) -> DMatrix<f64> {
    let own = constraints_in_state(model, s, u);
    let x = Point::new(s, u);
    let (_, j) = contact_velocity_terms::<T, f64, N, M, C>(model, &x);
    let v_q = along_positions(model, &x);
    let rows: Vec<usize> = (0..C).filter(|&c| active[c]).collect();
    let held = rows.len();
    let mut c = DMatrix::zeros(own.nrows() + 2 * held, 2 * N);
    c.view_mut((0, 0), own.shape()).copy_from(&own);
    for (k, &r) in rows.iter().enumerate() {
        let at = own.nrows() + 2 * k;
        for i in 0..N {
            c[(at, i)] = j[(r, i)];
            c[(at + 1, i)] = v_q[(r, i)];
            c[(at + 1, N + i)] = j[(r, i)];
        }
    }
    // A row that no velocity moves (a planar model's out-of-plane direction) holds nothing.
    let kept: Vec<usize> = (0..c.nrows())
        .filter(|&r| c.row(r).iter().any(|&x| x != 0.0))
        .collect();
    c.select_rows(&kept)
}

/// ∂v/∂q of the contacts' velocities at `x`: one pass with q seeded in vector dual
/// numbers, or for a large model one per coordinate in first-order ones (as
/// [`contact_velocity_terms_by_columns`], for the same reason).
fn along_positions<T: Contacts<N, M, C>, const N: usize, const M: usize, const C: usize>(
    model: &T,
    x: &Point<f64, N, M>,
) -> SMatrix<f64, C, N> {
    let mut v_q = SMatrix::<f64, C, N>::zeros();
    if seeded_point_is_large::<f64, N, M>() {
        let base = x.map(Dual64::from_re);
        for i in 0..N {
            let mut seeded = base;
            seeded.q[i] = Dual64::from_re(x.q[i]).derivative();
            for (c, value) in model.eval_contact_velocities(&seeded).iter().enumerate() {
                v_q[(c, i)] = value.eps;
            }
        }
    } else {
        along_positions_at_once(model, x, &mut v_q);
    }
    v_q
}

/// [`along_positions`] in one pass in vector dual numbers: a function of its own, so that
/// a large model's monomorphization, which never calls it, never has its frame.
fn along_positions_at_once<T: Contacts<N, M, C>, const N: usize, const M: usize, const C: usize>(
    model: &T,
    x: &Point<f64, N, M>,
    v_q: &mut SMatrix<f64, C, N>,
) {
    type V<const N: usize> = DualVec<f64, Const<N>>;
    let seeded = Point {
        q: from_fn(|i| V::<N>::from_re(x.q[i]).derivative(i)),
        ..x.map(V::<N>::from_re)
    };
    for (c, value) in model.eval_contact_velocities(&seeded).iter().enumerate() {
        v_q.set_row(c, &value.eps.unwrap_generic(Const::<N>, U1).transpose());
    }
}

/// The contacts' velocities and their Jacobian ∂v/∂q̇, from one pass over q̇ in vector
/// dual numbers, or for a large model one pass per velocity in first-order ones
/// ([`contact_velocity_terms_by_columns`]).
fn contact_velocity_terms<
    T: Contacts<N, M, C>,
    S: Scalar,
    const N: usize,
    const M: usize,
    const C: usize,
>(
    model: &T,
    x: &Point<S, N, M>,
) -> (SVector<S, C>, SMatrix<S, C, N>) {
    if seeded_point_is_large::<S, N, M>() {
        contact_velocity_terms_by_columns(model, x)
    } else {
        contact_velocity_terms_at_once(model, x)
    }
}

/// [`contact_velocity_terms`] in one pass in vector dual numbers: a function of its own,
/// so that a large model's monomorphization, which never calls it, never has its frame.
fn contact_velocity_terms_at_once<
    T: Contacts<N, M, C>,
    S: Scalar,
    const N: usize,
    const M: usize,
    const C: usize,
>(
    model: &T,
    x: &Point<S, N, M>,
) -> (SVector<S, C>, SMatrix<S, C, N>) {
    let v = model.eval_contact_velocities(&velocities_seeded(x));
    let mut j = SMatrix::<S, C, N>::zeros();
    for (c, value) in v.iter().enumerate() {
        j.set_row(c, &value.eps.unwrap_generic(Const::<N>, U1).transpose());
    }
    (SVector::from_fn(|c, _| v[c].re), j)
}

/// [`contact_velocity_terms`] one velocity at a time, seeded in a first-order dual number
/// over `S`: the same arithmetic per column as a vector dual number's entry (num-dual's
/// rules are the same for both), without the vector's N entries in every value of the
/// model's code. For a large model (the point in vector duals [`ON_HEAP_FROM`](kkt::ON_HEAP_FROM)
/// bytes or more), whose contact velocities in vector duals over first-order ones (the
/// rows of `linearize_contacts`) took 1.9 MB of stack in one frame of an unoptimized
/// build for a 51-coordinate humanoid (840 bytes a value).
fn contact_velocity_terms_by_columns<
    T: Contacts<N, M, C>,
    S: Scalar,
    const N: usize,
    const M: usize,
    const C: usize,
>(
    model: &T,
    x: &Point<S, N, M>,
) -> (SVector<S, C>, SMatrix<S, C, N>) {
    let base = x.map(Dual::from_re);
    let mut v = SVector::<S, C>::zeros();
    let mut j = SMatrix::<S, C, N>::zeros();
    for i in 0..N {
        let mut seeded = base;
        seeded.qd[i] = Dual::from_re(x.qd[i]).derivative();
        for (c, value) in model.eval_contact_velocities(&seeded).iter().enumerate() {
            v[c] = value.re;
            j[(c, i)] = value.eps;
        }
    }
    (v, j)
}

/// The contacts' drift, their acceleration at q̈ = 0: ∂v/∂q q̇ + ∂v/∂t, from one pass
/// along the motion.
fn contact_drift<
    T: Contacts<N, M, C>,
    S: Scalar,
    const N: usize,
    const M: usize,
    const C: usize,
>(
    model: &T,
    x: &Point<S, N, M>,
) -> SVector<S, C> {
    let along = Point {
        t: Dual::new(x.t, S::one()),
        q: from_fn(|i| Dual::new(x.q[i], x.qd[i])),
        ..x.map(Dual::from_re)
    };
    let v = model.eval_contact_velocities(&along);
    SVector::from_fn(|c, _| v[c].eps)
}

fn row_times<const N: usize>(row: &[f64; N], qd: &SVector<f64, N>) -> f64 {
    row.iter().zip(qd.iter()).map(|(a, b)| a * b).sum()
}

/// The model's rows (`own`, with their targets) over the contacts' rows, the inactive ones
/// zero (target zero too).
fn stacked<S: Scalar, const N: usize, const K: usize, const C: usize, const R: usize>(
    own: &SMatrix<S, K, N>,
    own_target: &SVector<S, K>,
    contacts: &[[S; N]; C],
    active: &[bool; C],
) -> (SMatrix<S, R, N>, SVector<S, R>) {
    assert_eq!(
        R,
        K + C,
        "R is the model's constraints and the contacts' rows"
    );
    let mut j = SMatrix::<S, R, N>::zeros();
    let mut target = SVector::<S, R>::zeros();
    j.fixed_rows_mut::<K>(0).copy_from(own);
    target.fixed_rows_mut::<K>(0).copy_from(own_target);
    for c in (0..C).filter(|&c| active[c]) {
        for (i, &x) in contacts[c].iter().enumerate() {
            j[(K + c, i)] = x;
        }
    }
    (j, target)
}

/// The rows that carry no force: an inactive contact's, and a row that no velocity moves
/// and that asks for no acceleration (a planar model's out-of-plane direction). Read off
/// the real parts.
fn idle_rows<'a, S: Scalar, const N: usize, const C: usize, const R: usize>(
    j: &'a SMatrix<S, R, N>,
    target: &'a SVector<S, R>,
    active: &'a [bool; C],
) -> impl Iterator<Item = usize> + 'a {
    let k = R - C;
    (k..R).filter(move |&r| {
        !active[r - k] || (j.row(r).iter().all(|x| x.re() == 0.0) && target[r].re() == 0.0)
    })
}

/// q̈ (or q̇⁺) and λ of `M x + Jᵀ λ = f, J x = target`, the idle rows' λ zero (a 1 on
/// their diagonal of the Schur complement).
fn solve<
    T: Contacts<N, M, C>,
    const N: usize,
    const M: usize,
    const K: usize,
    const C: usize,
    const R: usize,
>(
    mass: &SMatrix<f64, N, N>,
    f: &SVector<f64, N>,
    own: &SMatrix<f64, K, N>,
    j: &SMatrix<f64, R, N>,
    target: &SVector<f64, R>,
    active: &[bool; C],
    settings: &ContactSettings,
) -> Result<(SVector<f64, N>, SVector<f64, R>), DynamicsError> {
    // M along the model's tree, completed by its own constraints; else densely, completed
    // by every row (a velocity that only a contact determines).
    let system = kkt::reduce(mass, f, own, j, target, T::MASS_TREE.as_ref());
    let mut system: Reduced<f64, N, R> = match system {
        Ok(system) => system,
        Err(Unsolvable::Schur(schur)) => return Err(dependent::<T, N, M, K, C, R>(&schur, active)),
        Err(_) => {
            // Completing M with every active row did not make it definite: M is indefinite,
            // or some velocity is fixed by neither T nor the rows; or the rows are dependent.
            let mut gram = j * j.transpose();
            for r in idle_rows(j, target, active) {
                gram[(r, r)] = 1.0;
            }
            if Lu::factor(gram).is_none() {
                return Err(dependent::<T, N, M, K, C, R>(&gram, active));
            }
            return Err(linalg::factor_mass(mass, &T::COORDINATES)
                .err()
                .unwrap_or(DynamicsError::SingularMassMatrix));
        }
    };
    for r in idle_rows(j, target, active) {
        system.schur[(r, r)] = 1.0;
    }
    finite(&system.schur, "contact Schur complement J M⁻¹ Jᵀ")?;
    let lambda = match settings.regularization {
        None => match Lu::factor(system.schur) {
            Some(lu) => lu.solve(&system.rhs),
            None => return Err(dependent::<T, N, M, K, C, R>(&system.schur, active)),
        },
        Some(rho) => proximal(&system, rho, settings)?,
    };
    Ok((system.accelerations(j, &lambda), lambda))
}

/// The proximal iteration (S + ρ I) λₖ₊₁ = rhs + ρ λₖ from λ₀ = 0, S factored once.
fn proximal<const N: usize, const R: usize>(
    system: &Reduced<f64, N, R>,
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
    T: Contacts<N, M, C>,
    const N: usize,
    const M: usize,
    const K: usize,
    const C: usize,
    const R: usize,
>(
    matrix: &SMatrix<f64, R, R>,
    active: &[bool; C],
) -> DynamicsError {
    let mut matrix = *matrix;
    for c in (0..C).filter(|&c| !active[c]) {
        matrix.row_mut(K + c).fill(0.0);
        matrix.column_mut(K + c).fill(0.0);
        matrix[(K + c, K + c)] = 1.0;
    }
    let mut names: Vec<&'static str> = Vec::new();
    let candidates = (0..R).filter(|&r| r < K || active[r - K]);
    for r in dependent_rows(&matrix, candidates) {
        let name = if r < K {
            T::CONSTRAINT_NAMES.get(r).copied().unwrap_or("?")
        } else {
            T::ROW_NAMES[r - K]
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    DynamicsError::DependentContacts { contacts: names }
}
