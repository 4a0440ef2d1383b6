//! What a model read from a URDF file (`urdf: "path";` in `lagrangian!`) carries besides
//! its equations: the limits of its joints, as `Name::JOINT_LIMITS`.

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
