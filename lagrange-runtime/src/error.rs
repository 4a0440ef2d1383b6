//! What can go wrong when a model is evaluated.

use std::fmt;

/// Which part of a [`State`](crate::State) (or of the inputs) a non-finite value was found in.
///
/// # Example
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::StatePart;
///
/// lagrangian! {
///     struct Oscillator { parameters: m = 1.0, k = 4.0; coordinates: x; kinetic = m/2 * dot(x)^2; potential = k/2 * x^2; }
/// }
///
/// let s = State::at_rest(SVector::from([f64::NAN]));
/// assert_eq!(
///     Oscillator::default().accelerations(&s, &SVector::zeros()),
///     Err(DynamicsError::NonFiniteState { part: StatePart::Coordinate, name: "x" }),
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatePart {
    /// The time `t`.
    Time,
    /// A generalized coordinate q.
    Coordinate,
    /// A generalized velocity q̇.
    Velocity,
    /// An input u.
    Input,
}

/// An evaluation of a model that has no meaningful result, in words a user can act on.
///
/// Evaluating a model never panics: whatever the state, the result is a value or one
/// of these errors.
///
/// # One error for every call
///
/// The variants fall into groups: the evaluation of the equations of motion (a mass
/// matrix or constraint system that cannot be solved, a non-finite state or result),
/// the constraints when a state is put on them or a motion started
/// ([`ProjectionFailed`](Self::ProjectionFailed), [`OffConstraints`](Self::OffConstraints)),
/// the searches for equilibria and steady motions
/// ([`NoEquilibrium`](Self::NoEquilibrium),
/// [`ConstraintsForbidSteadyState`](Self::ConstraintsForbidSteadyState)), and the
/// settings of a call ([`InvalidSetting`](Self::InvalidSetting)). They share one type on
/// purpose: every call that projects, searches or linearizes evaluates the model on the
/// way and can meet every evaluation error, so one type lets `?` carry any of them to the
/// caller unchanged, and the enum is `#[non_exhaustive]`, so a match ends in `_`. A
/// simulation wraps it in a [`StepError`](crate::simulate::StepError) inside the
/// [`SimulationError`](crate::simulate::SimulationError) that says when it happened and
/// keeps the trajectory until then.
///
/// # Example
/// Matching on a variant (the enum is `#[non_exhaustive]`, so a match ends in `_`): a
/// kinetic energy x² ẏ²/2 has no term in ẏ at x = 0.
/// ```
/// use lagrange_runtime::prelude::*;
///
/// lagrangian! {
///     struct Polar { coordinates: x, y; kinetic = dot(x)^2 / 2 + x^2 * dot(y)^2 / 2; }
/// }
///
/// let at_origin = State::at_rest(SVector::from([0.0, 1.0]));
/// match Polar.accelerations(&at_origin, &SVector::zeros()) {
///     Err(DynamicsError::MissingVelocity { coordinate }) => assert_eq!(coordinate, "y"),
///     Err(other) => panic!("another error: {other}"),
///     Ok(qdd) => panic!("accelerations {qdd}"),
/// }
/// let error = Polar.accelerations(&at_origin, &SVector::zeros()).unwrap_err();
/// assert!(error.to_string().contains("`dot(y)`"), "{error}"); // the message names it too
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum DynamicsError {
    /// At this state the kinetic energy has no term in the velocity of this coordinate
    /// (the mass matrix has a zero row, or a diagonal entry below ε² times the largest), so
    /// its acceleration is undetermined. Either T never depends on it, or its term vanishes
    /// here (like x² ẏ² at x = 0, or to working precision near it).
    MissingVelocity {
        /// Name of the coordinate.
        coordinate: &'static str,
    },
    /// The mass matrix ∂²L/∂q̇² is singular (some combination of velocities carries no
    /// kinetic energy).
    SingularMassMatrix,
    /// Neither the kinetic energy nor the constraints determine this combination of
    /// velocities: the mass matrix is singular on velocities the constraints allow
    /// (`[M Jᵀ; J 0]` is singular), so their accelerations are undetermined.
    UndeterminedVelocities {
        /// The coordinates whose velocities take part in it.
        coordinates: Vec<&'static str>,
    },
    /// The mass matrix ∂²L/∂q̇² is not positive definite (a kinetic energy that can be
    /// negative, or `kinetic` and `potential` swapped).
    IndefiniteMassMatrix,
    /// The state or the inputs hold a NaN or an infinity.
    NonFiniteState {
        /// Where it is.
        part: StatePart,
        /// Name of the coordinate or input (`"t"` for time).
        name: &'static str,
    },
    /// The constraints are redundant (their Jacobian has dependent rows), so the multipliers
    /// are not unique, or they cannot all hold at once. One constraint named alone depends
    /// on no other: its own Jacobian row is zero (its gradient vanishes, as that of
    /// x² + y² = 0 does), which the message says.
    RedundantConstraints {
        /// The constraints involved in the dependency.
        constraints: Vec<&'static str>,
    },
    /// The constraints' Jacobian rows are dependent at this state but not at states on the
    /// constraints nearby: a kinematic singularity, such as a linkage at a dead point.
    SingularConstraints {
        /// The constraints involved in the dependency.
        constraints: Vec<&'static str>,
    },
    /// Projecting a state onto the constraints did not converge: the coordinates that may
    /// move cannot satisfy them, or the start is too far away.
    ProjectionFailed {
        /// The largest remaining constraint residual.
        residual: f64,
    },
    /// A motion was started from a state that violates the constraints (beyond rounding):
    /// project it onto them first.
    OffConstraints {
        /// The holonomic constraints violated at position level, with their residuals φ.
        positions: Vec<(&'static str, f64)>,
        /// The constraints violated at velocity level, with their residuals J q̇ + j.
        velocities: Vec<(&'static str, f64)>,
    },
    /// An equilibrium or steady motion was found for the accelerations, but its velocities
    /// violate the velocity form of these constraints: a driving constraint (`y - t`)
    /// keeps the model moving, so it has no such state.
    ConstraintsForbidSteadyState {
        /// The constraints, with the residuals of their velocity forms J q̇ + j.
        constraints: Vec<(&'static str, f64)>,
    },
    /// Newton's method found no equilibrium near the guess.
    NoEquilibrium {
        /// The largest remaining |q̈| (or constraint residual).
        residual: f64,
        /// Iterations made.
        iterations: usize,
    },
    /// A computed quantity is NaN or infinite, for example after a division by zero or the
    /// square root of a negative number inside the model's expressions.
    NonFiniteResult {
        /// What was being computed: `"mass matrix"`, `"generalized forces"`, …
        quantity: &'static str,
    },
    /// The rows of the active contacts (with the model's own constraints) are dependent:
    /// four coplanar flat feet, or the same point twice. A regularization
    /// ([`ContactSettings::regularization`](crate::contact::ContactSettings::regularization))
    /// accepts such a set.
    DependentContacts {
        /// The contacts (and constraints) involved in the dependency.
        contacts: Vec<&'static str>,
    },
    /// The proximal iteration of regularized contact dynamics did not converge.
    ContactsNotConverged {
        /// Iterations made.
        iterations: usize,
        /// The last change of the multipliers.
        change: f64,
    },
    /// A setting passed to the call is invalid (a tolerance that is not positive, an
    /// index out of range), named in words.
    InvalidSetting(&'static str),
}

impl fmt::Display for DynamicsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingVelocity { coordinate } => write!(
                f,
                "the mass matrix is singular: at this state the kinetic energy has no term in the velocity `dot({coordinate})`"
            ),
            Self::SingularMassMatrix => write!(
                f,
                "the mass matrix is singular: some combination of velocities carries no kinetic energy"
            ),
            Self::UndeterminedVelocities { coordinates } => write!(
                f,
                "neither the kinetic energy nor the constraints determine a combination of the velocities of {}: the mass matrix is singular on velocities the constraints allow",
                listed(coordinates, |c| format!("`dot({c})`"))
            ),
            Self::IndefiniteMassMatrix => write!(
                f,
                "the mass matrix is not positive definite: can the kinetic energy be negative?"
            ),
            Self::NonFiniteState { part, name } => {
                let what = match part {
                    StatePart::Time => "the time",
                    StatePart::Coordinate => "coordinate",
                    StatePart::Velocity => "the velocity of coordinate",
                    StatePart::Input => "input",
                };
                match part {
                    StatePart::Time => write!(f, "{what} `t` is not finite"),
                    _ => write!(f, "{what} `{name}` is not finite"),
                }
            }
            // One constraint named alone is dependent on no other (the others' rows are
            // independent without it, see `constrained::redundant`): its own row is zero.
            Self::RedundantConstraints { constraints } if constraints.len() == 1 => write!(
                f,
                "the constraint `{}` fixes no direction: its Jacobian row is zero, or negligible against the other constraints' (its gradient vanishes, as that of x² + y² = 0 does wherever it holds)",
                constraints[0]
            ),
            Self::RedundantConstraints { constraints } => write!(
                f,
                "the constraints {} are redundant: their Jacobian rows are linearly dependent",
                listed(constraints, |c| format!("`{c}`"))
            ),
            Self::SingularConstraints { constraints } => write!(
                f,
                "the constraints are singular at this state: the Jacobian rows of {} are dependent here but not at states on the constraints nearby (a kinematic singularity, such as a linkage at a dead point)",
                listed(constraints, |c| format!("`{c}`"))
            ),
            Self::ProjectionFailed { residual } => write!(
                f,
                "projection onto the constraints did not converge (residual {residual:e}): are they satisfiable with the coordinates that may move, and is each one's gradient nonzero at the start (Newton's steps follow it)?"
            ),
            Self::OffConstraints {
                positions,
                velocities,
            } => {
                let list = |v: &[(&str, f64)], form: &str| {
                    v.iter()
                        .map(|(c, r)| format!("`{c}`{form} = {r:e}"))
                        .collect::<Vec<_>>()
                };
                let mut all = list(positions, "");
                all.extend(list(velocities, " (velocity form)"));
                write!(
                    f,
                    "the state is off the constraints: {}; start from the nearest state on them, `ConstraintSolver::project(&state, &inputs, &[], 1e-12)`",
                    all.join(", ")
                )
            }
            Self::ConstraintsForbidSteadyState { constraints } => write!(
                f,
                "no equilibrium or steady motion: at its velocities the constraints are violated, {}: a driving constraint keeps the model moving",
                constraints
                    .iter()
                    .map(|(c, r)| format!("`{c}` (velocity form) = {r:e}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Self::NoEquilibrium { residual, iterations } => write!(
                f,
                "no equilibrium found near the guess: Newton's method stopped after {iterations} iterations with residual {residual:e}; try another guess"
            ),
            Self::NonFiniteResult { quantity } => write!(
                f,
                "the {quantity} came out non-finite (NaN or infinite) at this state"
            ),
            Self::DependentContacts { contacts } => write!(
                f,
                "the active contacts {} are dependent: their rows (with the model's own constraints) are linearly dependent, so their forces are not determined; give a regularization (ContactSettings::regularization) to take the forces of least norm",
                listed(contacts, |c| format!("`{c}`"))
            ),
            Self::ContactsNotConverged { iterations, change } => write!(
                f,
                "the proximal iteration of the contact forces did not converge in {iterations} iterations (last change {change:e}): raise the regularization ρ or max_iterations"
            ),
            Self::InvalidSetting(what) => write!(f, "invalid setting: {what}"),
        }
    }
}

impl std::error::Error for DynamicsError {}

/// The names, each written by `each`, separated by commas: for the messages above.
fn listed(names: &[&'static str], each: impl Fn(&str) -> String) -> String {
    names.iter().map(|n| each(n)).collect::<Vec<_>>().join(", ")
}
