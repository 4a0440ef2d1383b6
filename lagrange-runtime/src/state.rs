//! The state of a model at one instant.

use nalgebra::SVector;

/// Time, generalized coordinates q and generalized velocities q̇ of a model with `N`
/// coordinates.
///
/// # Example
/// ```
/// use lagrange_runtime::prelude::*;
/// let s = State::new(0.0, SVector::from([0.1, 0.2]), SVector::from([0.0, 1.0]));
/// assert_eq!(s.qd[1], 1.0);
/// let rest = State::at_rest(SVector::from([0.3]));
/// assert_eq!((rest.t, rest.qd[0]), (0.0, 0.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct State<const N: usize> {
    /// Time t.
    pub t: f64,
    /// Generalized coordinates q, in the order of the model's `coordinates:` statement.
    pub q: SVector<f64, N>,
    /// Generalized velocities q̇, in the same order.
    pub qd: SVector<f64, N>,
}

impl<const N: usize> State<N> {
    /// A state from its parts.
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::prelude::*;
    /// // t = 0.5, two coordinates and their velocities, in the order of `coordinates:`.
    /// let s = State::new(0.5, SVector::from([0.1, -0.2]), SVector::from([1.0, 0.0]));
    /// assert_eq!((s.t, s.q[1], s.qd[0]), (0.5, -0.2, 1.0));
    /// ```
    pub fn new(t: f64, q: SVector<f64, N>, qd: SVector<f64, N>) -> Self {
        Self { t, q, qd }
    }

    /// The state at `t = 0` with the given coordinates and all velocities zero.
    pub fn at_rest(q: SVector<f64, N>) -> Self {
        Self::new(0.0, q, SVector::zeros())
    }
}
