//! Jacobians by forward differentiation: one evaluation in first-order dual numbers
//! ([`Dual64`]) per column, the unknown of that column seeded. [`forward_jacobian`] is the
//! one loop that does it, for the parameter sensitivities, the steady-motion solver and
//! the variational integrators' Newton iteration.
//!
//! A first-order dual is two `f64`s, so one evaluation at a time keeps the stack at one
//! model's worth of them however many columns there are, and nothing is allocated: the
//! variational integrators call it in every step.
//!
//! The derivatives of the inverse dynamics along (q, q̇, u), which the linearization runs
//! on, carry [`LANES`] columns per evaluation instead ([`lanes_jacobian`]): the value is
//! computed once for all of them. Measured in instructions per call (callgrind) on the
//! UR5 and the Panda (18 columns each): 6 lanes take 0.46× and 0.53× of one evaluation
//! per column; 4 lanes 0.60× and 0.64×; 8 or more lanes are no faster than one per
//! column (num-dual's vector duals stop being kept in registers).

use crate::model::Point;
use nalgebra::{Const, SMatrix};
use num_dual::{Derivative, Dual64, DualSVec64};
use std::array::from_fn;

/// The columns one evaluation of [`lanes_jacobian`] carries.
pub(crate) const LANES: usize = 6;

/// A value with [`LANES`] derivative parts.
pub(crate) type Lanes = DualSVec64<LANES>;

/// The Jacobian of `f` at the point `x` along its entries (q, q̇, u), [`LANES`] columns
/// per evaluation of `f`: `column(k, values)` receives column k, in order. Also returns
/// the value of `f` at `x`.
pub(crate) fn lanes_jacobian<const N: usize, const M: usize, const R: usize>(
    x: &Point<f64, N, M>,
    mut f: impl FnMut(&Point<Lanes, N, M>) -> [Lanes; R],
    mut column: impl FnMut(usize, [f64; R]),
) -> [f64; R] {
    let columns = 2 * N + M;
    let mut value = [0.0; R];
    let mut first = 0;
    while first < columns || first == 0 {
        // Entry k of (q, q̇, u) seeded in lane k − first, if that is a lane.
        let seed = |v: f64, k: usize| match k.checked_sub(first).filter(|&l| l < LANES) {
            Some(lane) => Lanes::new(v, Derivative::derivative_generic(Const, Const, lane)),
            None => Lanes::from_re(v),
        };
        let point = Point {
            t: Lanes::from_re(x.t),
            q: from_fn(|i| seed(x.q[i], i)),
            qd: from_fn(|i| seed(x.qd[i], N + i)),
            u: from_fn(|i| seed(x.u[i], 2 * N + i)),
        };
        let out = f(&point);
        value = out.each_ref().map(|y| y.re);
        for lane in 0..LANES.min(columns.saturating_sub(first)) {
            // A result that depends on no seeded entry carries no derivative part.
            column(
                first + lane,
                out.each_ref()
                    .map(|y| y.eps.0.as_ref().map_or(0.0, |e| e[lane])),
            );
        }
        first += LANES;
    }
    value
}

/// Values whose entries a Jacobian's columns are taken along.
pub(crate) trait Seed {
    /// The values in dual numbers.
    type Dual;

    /// The number of entries: the Jacobian's columns.
    fn count(&self) -> usize;

    /// The values in dual numbers, entry `k` seeded (derivative one), the others constant.
    fn seeded(&self, k: usize) -> Self::Dual;
}

impl<const N: usize> Seed for [f64; N] {
    type Dual = [Dual64; N];

    fn count(&self) -> usize {
        N
    }

    fn seeded(&self, k: usize) -> [Dual64; N] {
        seed_column(self, k)
    }
}

/// A point's entries are (q, q̇, u) in that order; its time is not an unknown.
impl<const N: usize, const M: usize> Seed for Point<f64, N, M> {
    type Dual = Point<Dual64, N, M>;

    fn count(&self) -> usize {
        2 * N + M
    }

    fn seeded(&self, k: usize) -> Point<Dual64, N, M> {
        // An index past a block's end seeds nothing in it.
        let past = |block: usize| k.checked_sub(block).unwrap_or(usize::MAX);
        Point {
            t: Dual64::from_re(self.t),
            q: seed_column(&self.q, k),
            qd: seed_column(&self.qd, past(N)),
            u: seed_column(&self.u, past(2 * N)),
        }
    }
}

/// A result in dual numbers whose derivative parts are a Jacobian column.
pub(crate) trait Eps {
    /// The derivative parts, in `f64`.
    type Column;

    /// The derivative parts.
    fn eps(&self) -> Self::Column;
}

impl<const R: usize> Eps for [Dual64; R] {
    type Column = [f64; R];

    fn eps(&self) -> [f64; R] {
        self.map(|x| x.eps)
    }
}

impl<const R: usize, const C: usize> Eps for SMatrix<Dual64, R, C> {
    type Column = SMatrix<f64, R, C>;

    fn eps(&self) -> SMatrix<f64, R, C> {
        self.map(|x| x.eps)
    }
}

/// Several results of one evaluation.
impl<A: Eps, B: Eps> Eps for (A, B) {
    type Column = (A::Column, B::Column);

    fn eps(&self) -> Self::Column {
        (self.0.eps(), self.1.eps())
    }
}

/// A result that may be missing (a singular solve): so is its column.
impl<A: Eps> Eps for Option<A> {
    type Column = Option<A::Column>;

    fn eps(&self) -> Self::Column {
        self.as_ref().map(A::eps)
    }
}

/// The Jacobian of `f` at `x`, column by column: column k is the derivative part of `f`
/// evaluated at `x` with entry k seeded. The columns come lazily, in order, one
/// evaluation each, so that a caller can stop at a column that failed.
pub(crate) fn forward_jacobian<'a, X: Seed, Y: Eps>(
    x: &'a X,
    mut f: impl FnMut(&X::Dual) -> Y + 'a,
) -> impl Iterator<Item = Y::Column> + 'a {
    (0..x.count()).map(move |k| f(&x.seeded(k)).eps())
}

/// `values` as first-order dual numbers with entry `k` seeded (derivative one) and the
/// others constant: the input of one forward-mode column of a Jacobian. A `k` past the end
/// seeds none (the column belongs to another block of unknowns).
pub(crate) fn seed_column<const N: usize>(values: &[f64; N], k: usize) -> [Dual64; N] {
    from_fn(|i| {
        let x = Dual64::from_re(values[i]);
        if i == k {
            x.derivative()
        } else {
            x
        }
    })
}
