//! Jacobians by forward differentiation: one evaluation in first-order dual numbers
//! ([`Dual64`]) per column, the unknown of that column seeded. [`forward_jacobian`] is the
//! one loop that does it, for the linearization, the parameter sensitivities, the
//! steady-motion solver and the variational integrators' Newton iteration.
//!
//! A first-order dual is two `f64`s, so one evaluation at a time keeps the stack at one
//! model's worth of them however many columns there are, and nothing is allocated: the
//! variational integrators call it in every step.
//!
//! Vector duals carrying several columns per evaluation (num-dual's `DualSVec64<K>`)
//! compute the value once for all of them, but cost more to build than they save: for
//! the derivatives of the inverse dynamics (18 columns), six lanes took 0.46× (UR5) and
//! 0.53× (Panda) of the instructions of one `Dual64` per column (callgrind; 8 or more
//! lanes were no faster), while the `derivatives` test binary, which linearizes every
//! model it checks, took 250 s of CPU to build instead of 138 s (and 3.9 GB instead of
//! 2.8). Every crate that linearizes its models would pay that.

use crate::model::Point;
use nalgebra::SMatrix;
use num_dual::Dual64;
use std::array::from_fn;

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
