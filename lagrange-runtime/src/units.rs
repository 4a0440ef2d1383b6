//! The physical units a model declares, as the generated code exposes them.

/// The units of a model's coordinates, velocities and inputs, as declared in its
/// `lagrangian!` (`coordinates: x [m], theta [rad];`) and written in ASCII: `"m"`, `"rad"`,
/// `"m/s"`, `"N*m"`, `"kg/(m*s^2)"`, `"1"` for a dimensionless quantity.
///
/// A model that declares units has them on every parameter, coordinate and input, and its
/// dimensions are checked when it compiles; [`Dynamics::UNITS`](crate::Dynamics::UNITS) is
/// then `Some`. Time is in `s` and energies in `J`, always, since units are coherent SI.
///
/// ```
/// use lagrange_runtime::prelude::*;
///
/// lagrangian! {
///     struct Pendulum {
///         parameters: m = 1.0 [kg], l = 0.5 [m], g = 9.81 [m/s^2];
///         coordinates: theta [rad];
///         kinetic = m/2 * l^2 * dot(theta)^2;
///         potential = -m * g * l * cos(theta);
///     }
/// }
///
/// let units = Pendulum::UNITS.unwrap();
/// assert_eq!(units.coordinates, ["rad"]);
/// assert_eq!(units.velocities, ["rad/s"]);
/// use lagrange_runtime::model::Parametric;
/// assert_eq!(Pendulum::PARAMETER_UNITS, Some(["kg", "m", "m/s^2"]));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Units<const N: usize, const M: usize = 0> {
    /// The unit of each coordinate, in state order.
    pub coordinates: [&'static str; N],
    /// The unit of each velocity: the coordinate's unit per second.
    pub velocities: [&'static str; N],
    /// The unit of each input, in input order.
    pub inputs: [&'static str; M],
}
