//! Frame Jacobians: how a quantity of the model (a `let`) moves with the velocities.
//!
//! `lagrangian!` gives every model `Name::jacobians(&s, &u)`, one [`Jacobian`] per scalar
//! or vector `let` that has one:
//!
//! - a `let` p at position level (no velocities in it): `matrix` = ∂p/∂q and `drift` =
//!   d²p/dt² at q̈ = 0 (J̇ q̇ and the terms of ∂p/∂t), so that ṗ = J q̇ + ∂p/∂t and
//!   p̈ = J q̈ + drift;
//! - a `let` v at velocity level that is affine in q̇ (an angular velocity, a contact
//!   point's velocity): `matrix` = ∂v/∂q̇ and `drift` = ∂v/∂q q̇ + ∂v/∂t, so that
//!   v̇ = J q̈ + drift;
//! - matrix `let`s and `let`s that are not affine in q̇ have none.
//!
//! Inputs are held fixed: their rates are not known. Everything is exact and nothing is
//! allocated: `lagrangian!` unrolls the rows at compile time in plain `f64` (forward-mode
//! automatic differentiation), each node carrying only the derivatives along the
//! coordinates it depends on; for a URDF robot whose rows would take too much code, the
//! rows of its links' origins and centres of mass, of the sums of them and of its momenta
//! come from its tree at run time (`crate::frames`, `crate::centroidal`); for any other
//! model too large to unroll, it makes N first-order passes and one second-order pass
//! along the motion in dual numbers. All give the same numbers to rounding.
//!
//! ```
//! use lagrange_runtime::prelude::*;
//!
//! lagrangian! {
//!     /// A planar arm of two unit links.
//!     struct Arm {
//!         coordinates: a, b;
//!         let tip = [cos(a) + cos(a + b), sin(a) + sin(a + b)];
//!         kinetic = dot(tip)^2 / 2;
//!     }
//! }
//!
//! let s = State::new(0.0, SVector::from([0.0, 0.5 * std::f64::consts::PI]), SVector::from([1.0, 0.0]));
//! let j = Arm.jacobians(&s, &SVector::zeros()).tip;
//! // At a = 0, b = π/2 the tip is at (1, 1): ∂tip/∂a = (−1, 1), ∂tip/∂b = (−1, 0).
//! assert!((j.matrix - SMatrix::<f64, 2, 2>::new(-1.0, -1.0, 1.0, 0.0)).amax() < 1e-15);
//! // Turning about the base at unit rate: the centripetal acceleration −(1, 1).
//! assert!((j.drift - SVector::from([-1.0, -1.0])).amax() < 1e-15);
//! ```

use crate::model::Point;
use nalgebra::{SMatrix, SVector};
use num_dual::{Dual2_64, Dual64};
use std::array::from_fn;

/// The Jacobian of an R-vector quantity of the model with respect to the velocities (see
/// the [module docs](self)): its rate is `matrix · q̇` (+ ∂/∂t) and its acceleration
/// `matrix · q̈ + drift`.
///
/// # Example
/// A point on a wheel of radius r rolling along x (its angle θ = −x/r): the contact point's
/// velocity, a velocity-level `let`, has ∂v/∂q̇ and its drift; the point's position has ∂p/∂q.
/// ```
/// use lagrange_runtime::prelude::*;
///
/// lagrangian! {
///     struct Wheel {
///         parameters: r = 0.5;
///         coordinates: x;
///         let p = [x + r * sin(-x / r), r - r * cos(-x / r)]; // the point at the rim, on the ground at x = 0
///         let v = dot(p);
///         kinetic = dot(x)^2 / 2;
///     }
/// }
///
/// let s = State::new(0.0, SVector::from([0.0]), SVector::from([2.0]));
/// let j = Wheel::default().jacobians(&s, &SVector::zeros());
/// // On the ground it does not move: ∂p/∂x = (1 − cos, −sin)(0) = 0,
/// assert!(j.p.matrix.amax() < 1e-15);
/// // and its acceleration is straight up, ẋ²/r: p̈ = J ẍ + drift with J = 0.
/// assert!((j.p.drift - SVector::from([0.0, 4.0 / 0.5])).amax() < 1e-14);
/// // v is at velocity level, so `matrix` is ∂v/∂q̇ (0 here too) and the same drift.
/// assert!(j.v.matrix.amax() < 1e-15 && (j.v.drift - j.p.drift).amax() < 1e-14);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jacobian<const R: usize, const N: usize> {
    /// ∂p/∂q for a position-level quantity, ∂v/∂q̇ for a velocity-level one.
    pub matrix: SMatrix<f64, R, N>,
    /// The acceleration at q̈ = 0.
    pub drift: SVector<f64, R>,
}

impl<const R: usize, const N: usize> Jacobian<R, N> {
    /// Zeros, which the generated `jacobians` fills in place. Not part of the public API.
    #[doc(hidden)]
    pub const ZEROS: Self = Jacobian {
        matrix: SMatrix::from_array_storage(nalgebra::ArrayStorage([[0.0; R]; N])),
        drift: SVector::from_array_storage(nalgebra::ArrayStorage([[0.0; R]; 1])),
    };
}

/// The rows of every Jacobian of a model and their drifts, for the generated
/// `jacobians`: `velocity[k]` says whether element k of the quantities is at velocity
/// level; `eval` evaluates the K elements at a point in any scalar. Not part of the public
/// API.
#[doc(hidden)]
pub struct Rows<const N: usize, const K: usize> {
    pub matrix: [[f64; N]; K],
    pub drift: [f64; K],
}

impl<const N: usize, const K: usize> Rows<N, K> {
    /// The Jacobian of the R elements from `offset` on.
    pub fn jacobian<const R: usize>(&self, offset: usize) -> Jacobian<R, N> {
        let mut j = Jacobian::ZEROS;
        self.write(offset, &mut j);
        j
    }

    /// Writes the Jacobian of the R elements from `offset` on into `target`, in place
    /// (the generated `jacobians` fills its result so, with no copy of it).
    #[inline]
    pub fn write<const R: usize>(&self, offset: usize, target: &mut Jacobian<R, N>) {
        for r in 0..R {
            for c in 0..N {
                target.matrix[(r, c)] = self.matrix[offset + r][c];
            }
            target.drift[r] = self.drift[offset + r];
        }
    }
}

/// Evaluates the rows: one first-order pass per coordinate (seeded along q_j for
/// position-level elements, along q̇_j for velocity-level ones, each pass only when some
/// element needs it) and one second-order pass along the motion (q moving with q̇, t with
/// 1, q̇ fixed), whose second derivative is a position-level element's drift and whose
/// first a velocity-level element's.
///
/// With `linear` (every velocity-level element linear in q̇, v = A(q, t) q̇, which the
/// macro decides on the graph: a URDF robot's momenta, an `angular_velocity`), one pass
/// per coordinate serves both: seeded along q_j with q̇ = e_j, a position-level element's
/// derivative is ∂p/∂q_j (it does not read q̇) and a velocity-level element's value is
/// v(q, e_j) = A e_j, its column j, exactly (the other velocities are zeros). N passes,
/// not 2N.
#[doc(hidden)]
pub fn rows<const N: usize, const M: usize, const K: usize>(
    x: &Point<f64, N, M>,
    velocity: &[bool; K],
    linear: bool,
    eval_first: impl Fn(&Point<Dual64, N, M>) -> [Dual64; K],
    eval_second: impl Fn(&Point<Dual2_64, N, M>) -> [Dual2_64; K],
) -> Rows<N, K> {
    let mut matrix = [[0.0; N]; K];
    let any_position = velocity.iter().any(|v| !v);
    let any_velocity = velocity.iter().any(|v| *v);
    for j in 0..N {
        let one = |i: usize| if i == j { 1.0 } else { 0.0 };
        if linear {
            let seeded = Point {
                t: Dual64::from(x.t),
                q: from_fn(|i| Dual64::new(x.q[i], one(i))),
                qd: from_fn(|i| Dual64::from(one(i))),
                u: x.u.map(Dual64::from),
            };
            let values = eval_first(&seeded);
            for ((row, value), at) in matrix.iter_mut().zip(values).zip(velocity) {
                row[j] = if *at { value.re } else { value.eps };
            }
            continue;
        }
        for (level, wanted) in [(false, any_position), (true, any_velocity)] {
            if !wanted {
                continue;
            }
            let seeded = Point {
                t: Dual64::from(x.t),
                q: from_fn(|i| Dual64::new(x.q[i], if level { 0.0 } else { one(i) })),
                qd: from_fn(|i| Dual64::new(x.qd[i], if level { one(i) } else { 0.0 })),
                u: x.u.map(Dual64::from),
            };
            let values = eval_first(&seeded);
            for ((row, value), at) in matrix.iter_mut().zip(values).zip(velocity) {
                if *at == level {
                    row[j] = value.eps;
                }
            }
        }
    }
    let along = Point {
        t: Dual2_64::new(x.t, 1.0, 0.0),
        q: from_fn(|i| Dual2_64::new(x.q[i], x.qd[i], 0.0)),
        qd: x.qd.map(Dual2_64::from),
        u: x.u.map(Dual2_64::from),
    };
    let values = eval_second(&along);
    let drift = from_fn(|k| {
        if velocity[k] {
            values[k].v1
        } else {
            values[k].v2
        }
    });
    Rows { matrix, drift }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scalar;

    /// p = q₀² q₁ (position level), v = cos(q₀) q̇₀ + q₁ q̇₁ (linear in q̇) and
    /// w = v + t q₀ (affine: a term without q̇).
    fn quantities<D: Scalar>(x: &Point<D, 2, 0>) -> [D; 3] {
        let [q0, q1] = x.q;
        let [qd0, qd1] = x.qd;
        let v = q0.cos() * qd0 + q1 * qd1;
        [q0 * q0 * q1, v, v + x.t * q0]
    }

    /// The rows with one pass per coordinate serving both levels (`linear`) are those of
    /// a pass per level, and both the closed forms: ∂p/∂q, ∂v/∂q̇ and the drifts p̈ and
    /// v̇ at q̈ = 0.
    #[test]
    fn one_pass_per_coordinate_reads_a_linear_velocity_s_columns_off_its_value() {
        let x = Point {
            t: 0.7,
            q: [0.3, -1.2],
            qd: [0.8, 0.5],
            u: [],
        };
        let linear = rows::<2, 0, 2>(
            &x,
            &[false, true],
            true,
            |p| {
                let [a, b, _] = quantities(p);
                [a, b]
            },
            |p| {
                let [a, b, _] = quantities(p);
                [a, b]
            },
        );
        let both = rows::<2, 0, 3>(&x, &[false, true, true], false, quantities, quantities);
        let ([q0, q1], [qd0, qd1]) = (x.q, x.qd);
        let p_matrix = [2.0 * q0 * q1, q0 * q0];
        let v_matrix = [q0.cos(), q1];
        let p_drift = 2.0 * q1 * qd0 * qd0 + 4.0 * q0 * qd0 * qd1;
        let v_drift = -q0.sin() * qd0 * qd0 + qd1 * qd1;
        for r in [&linear.matrix[..], &both.matrix[..2]] {
            for (got, want) in r.iter().zip([p_matrix, v_matrix]) {
                for (g, w) in got.iter().zip(want) {
                    assert!((g - w).abs() < 1e-15, "{got:?} against {want:?}");
                }
            }
        }
        for d in [&linear.drift[..], &both.drift[..2]] {
            assert!((d[0] - p_drift).abs() < 1e-14 && (d[1] - v_drift).abs() < 1e-15);
        }
        // The affine one: the same matrix, and its drift has ∂w/∂t = q₀.
        assert_eq!(both.matrix[2], both.matrix[1]);
        assert!((both.drift[2] - (v_drift + q0 + x.t * qd0)).abs() < 1e-15);
    }
}
