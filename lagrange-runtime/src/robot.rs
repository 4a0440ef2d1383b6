//! What a model read from a URDF file (`urdf: "path";` in `lagrangian!`) carries besides
//! its equations: the limits of its joints, as `Name::JOINT_LIMITS`.
//!
//! # Example
//! `urdf: "path" floating;` gives the robot of `docs/two_link_arm.urdf` (beside this crate's
//! `Cargo.toml`) a free base: three coordinates of its position, a unit quaternion and its
//! constraint, then the joints. Translating the base moves the whole robot, so the mass
//! matrix's translation block is the total mass, 3 kg, in every state.
//! ```
//! use lagrange_runtime::prelude::*;
//!
//! lagrangian! {
//!     struct FreeArm {
//!         urdf: "docs/two_link_arm.urdf" floating;
//!         kinetic = urdf_kinetic;
//!         potential = urdf_potential;
//!     }
//! }
//!
//! let arm = FreeArm::default();
//! // base_x base_y base_z base_qw base_qx base_qy base_qz shoulder elbow, upright at q = 0.
//! let q = SVector::from([0.1, 0.2, 0.3, 1.0, 0.0, 0.0, 0.0, 0.4, -0.7]);
//! let s = State::at_rest(q);
//! let u = SVector::zeros();
//! assert_eq!(FreeArm::CONSTRAINTS, ["base_unit"]);
//! assert_eq!(arm.constraint_residuals(&s, &u)[0], 0.0);
//! let m = arm.mass_matrix(&s, &u);
//! for i in 0..3 {
//!     for j in 0..3 {
//!         assert!((m[(i, j)] - if i == j { 3.0 } else { 0.0 }).abs() < 1e-14);
//!     }
//! }
//! // But this file's root link has no mass and sits on the shoulder's axis: turning the
//! // base about y and the shoulder back moves nothing, so neither the kinetic energy nor
//! // the constraint fixes that combination, and `accelerations` names it. A free-floating
//! // robot's root link carries mass (a trunk, a pelvis).
//! match arm.accelerations(&s, &u) {
//!     Err(DynamicsError::UndeterminedVelocities { coordinates }) => {
//!         assert_eq!(coordinates, ["base_qy", "shoulder"]);
//!     }
//!     other => panic!("{other:?}"),
//! }
//! ```

/// A joint's `<limit lower upper velocity effort>`, in SI units (rad or m, per second,
/// N·m or N). A continuous joint's range is (−∞, ∞); an attribute the file leaves out is
/// 0 for `lower` and `upper` and ∞ for `velocity` and `effort`.
///
/// # Example
/// The limits of `docs/two_link_arm.urdf` (beside this crate's `Cargo.toml`), read by
/// `urdf:` into `Name::JOINT_LIMITS`, clamping a commanded position and torque:
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::JointLimit;
///
/// lagrangian! {
///     struct Arm {
///         urdf: "docs/two_link_arm.urdf";
///         kinetic = urdf_kinetic;
///         potential = urdf_potential;
///     }
/// }
///
/// let [(shoulder, limit), _] = Arm::JOINT_LIMITS;
/// assert_eq!(shoulder, "shoulder");
/// let JointLimit { lower, upper, velocity, effort } = limit.unwrap();
/// assert_eq!((lower, upper, velocity, effort), (-2.5, 2.5, 3.0, 40.0));
/// assert_eq!(3.0f64.clamp(lower, upper), 2.5);
/// assert_eq!((-55.0f64).clamp(-effort, effort), -40.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointLimit {
    /// The lowest position.
    pub lower: f64,
    /// The highest position.
    pub upper: f64,
    /// The largest speed.
    pub velocity: f64,
    /// The largest torque or force.
    pub effort: f64,
}
