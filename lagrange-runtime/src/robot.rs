//! What a model read from a URDF file (`urdf: "path";` in `lagrangian!`) carries besides
//! its equations: the limits of its joints, as `Name::JOINT_LIMITS`.

/// A joint's `<limit lower upper velocity effort>`, in SI units (rad or m, per second,
/// N·m or N). A continuous joint's range is (−∞, ∞); an attribute the file leaves out is
/// 0 for `lower` and `upper` and ∞ for `velocity` and `effort`.
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
