//! LU with partial pivoting, in any [`Scalar`]: the general
//! (non-symmetric) solve.
//!
//! nalgebra's LU needs type-level dimension bounds (`DimMin`, typenum) that a `const N:
//! usize` generic cannot satisfy, and its decompositions need `ComplexField`, which dual
//! numbers over dual numbers do not provide; so it lives here. With dual numbers it
//! differentiates the solution exactly.

use crate::scalar::Scalar;
use nalgebra::{SMatrix, SVector};

/// Solves `a x = b` by Gaussian elimination with partial pivoting (on the real parts);
/// `None` when a pivot is zero or below `1e-14` of the largest entry of its column (a
/// singular matrix).
pub(crate) fn solve<S: Scalar, const N: usize>(
    a: SMatrix<S, N, N>,
    b: SVector<S, N>,
) -> Option<SVector<S, N>> {
    solve_columns(a, &b)
}

/// Solves `a X = b` for every column of `b` at once: one elimination, as [`solve`].
pub(crate) fn solve_columns<S: Scalar, const N: usize, const K: usize>(
    a: SMatrix<S, N, N>,
    b: &SMatrix<S, N, K>,
) -> Option<SMatrix<S, N, K>> {
    Some(Lu::factor(a)?.solve_columns(b))
}

/// Solves the Gauss–Newton normal equations `(A + μ I) x = b`, A = JᵀJ (+ any other
/// Gram terms), with a damping μ = ε max diag(A) of rounding size: a direction A does not
/// see (an unknown nothing depends on, a neutral direction) gets no step instead of
/// making the system singular.
pub(crate) fn solve_damped_normal<const N: usize>(
    mut normal: SMatrix<f64, N, N>,
    b: SVector<f64, N>,
) -> Option<SVector<f64, N>> {
    let damping = f64::EPSILON * normal.diagonal().amax().max(f64::MIN_POSITIVE);
    for i in 0..N {
        normal[(i, i)] += damping;
    }
    solve(normal, b)
}

/// An LU factorization with partial pivoting on the real parts, P a = L U: factored once,
/// it solves for any right-hand side in O(N²) (the variational integrator keeps its
/// Newton Jacobian factored across steps).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lu<S, const N: usize> {
    /// U on and above the diagonal, the multipliers of L (unit diagonal) below it.
    packed: SMatrix<S, N, N>,
    /// Row k was exchanged with row `swaps[k]` at step k.
    swaps: [usize; N],
}

impl<S: Scalar, const N: usize> Lu<S, N> {
    /// `None` when a pivot is zero or below `1e-14` of the largest entry of its column (a
    /// singular matrix).
    pub(crate) fn factor(mut a: SMatrix<S, N, N>) -> Option<Self> {
        let mut swaps = [0; N];
        for k in 0..N {
            let column_scale = (0..N).map(|i| a[(i, k)].re().abs()).fold(0.0, f64::max);
            let (pivot_row, largest) = (k..N)
                .map(|i| (i, a[(i, k)].re().abs()))
                .fold((k, -1.0), |best, x| if x.1 > best.1 { x } else { best });
            // Also rejects NaN pivots, for which every comparison is false.
            if !largest.is_finite() || largest <= crate::tolerances::PIVOT * column_scale {
                return None;
            }
            a.swap_rows(k, pivot_row);
            swaps[k] = pivot_row;
            let pivot = a[(k, k)];
            for i in k + 1..N {
                let factor = a[(i, k)] / pivot;
                a[(i, k)] = factor;
                if exactly_zero(factor) {
                    continue;
                }
                for j in k + 1..N {
                    let akj = a[(k, j)];
                    a[(i, j)] -= factor * akj;
                }
            }
        }
        Some(Lu { packed: a, swaps })
    }

    /// Solves `a x = b`.
    pub(crate) fn solve(&self, b: &SVector<S, N>) -> SVector<S, N> {
        self.solve_columns(b)
    }

    /// Solves `a X = b` for every column of `b`.
    pub(crate) fn solve_columns<const K: usize>(&self, b: &SMatrix<S, N, K>) -> SMatrix<S, N, K> {
        let (a, mut b) = (&self.packed, *b);
        for (k, &row) in self.swaps.iter().enumerate() {
            b.swap_rows(k, row);
        }
        for c in 0..K {
            for k in 0..N {
                let bkc = b[(k, c)];
                for i in k + 1..N {
                    let factor = a[(i, k)];
                    if !exactly_zero(factor) {
                        b[(i, c)] -= factor * bkc;
                    }
                }
            }
            for k in (0..N).rev() {
                let mut sum = b[(k, c)];
                for j in k + 1..N {
                    sum -= a[(k, j)] * b[(j, c)];
                }
                b[(k, c)] = sum / a[(k, k)];
            }
        }
        b
    }
}

/// Whether `x` is zero with all its derivatives, so that an update by it may be skipped.
/// A plain float only: num-dual's `is_zero` and `==` look at the real part alone, and a
/// multiplier whose value is zero but whose derivative is not (an entry that vanishes at a
/// symmetric state and grows away from it) must still be applied, or the solution's
/// derivative is wrong exactly there.
fn exactly_zero<S: Scalar>(x: S) -> bool {
    S::NDERIV == 0 && x.is_zero()
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_dual::Dual64;

    #[test]
    fn solves_with_pivoting_and_rejects_singular() {
        // The first pivot is zero: only row exchange makes this solvable.
        let a = SMatrix::<f64, 3, 3>::new(0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0);
        let x = SVector::from([1.0, -2.0, 0.5]);
        let solved = solve(a, a * x).unwrap();
        assert!((solved - x).amax() < 1e-15);
        let singular = SMatrix::<f64, 2, 2>::new(1.0, 2.0, 2.0, 4.0);
        assert!(solve(singular, SVector::from([1.0, 1.0])).is_none());
        // Several right-hand sides in one elimination.
        let xs = SMatrix::<f64, 3, 2>::new(1.0, 4.0, -2.0, 0.0, 0.5, -1.5);
        let solved = solve_columns(a, &(a * xs)).unwrap();
        assert!((solved - xs).amax() < 1e-15);
    }

    #[test]
    fn differentiates_the_solution() {
        // x(s) solves [[s, 1], [1, 2]] x = [1, 0]: x0 = 2 / (2s − 1), dx0/ds = −4 / (2s − 1)².
        let s = Dual64::new(3.0, 1.0);
        let one = Dual64::from(1.0);
        let a = SMatrix::<Dual64, 2, 2>::new(s, one, one, Dual64::from(2.0));
        let x = solve(a, SVector::from([one, Dual64::from(0.0)])).unwrap();
        assert!((x[0].re - 0.4).abs() < 1e-15);
        assert!((x[0].eps - -4.0 / 25.0).abs() < 1e-15);
    }

    #[test]
    fn differentiates_where_an_entry_is_zero_but_its_derivative_is_not() {
        // a(s) = [[2, 1, 0], [s, 2, 1], [0, 1, 2]] at s = 0: the elimination multiplier
        // a₁₀/a₀₀ is zero there, its derivative 1/2 is not (num-dual's `==` and `is_zero`
        // compare real parts only, so skipping on them dropped it, in the factorization
        // and in the solve). x solves a x = [1, 1, 1]: x = (1, 1, 1)/3 and
        // dx/ds = −a⁻¹ (∂a/∂s) x = (1, −2, 1)/9.
        let (s, zero) = (Dual64::new(0.0, 1.0), Dual64::from(0.0));
        let [one, two] = [1.0, 2.0].map(Dual64::from);
        let a = SMatrix::<Dual64, 3, 3>::new(two, one, zero, s, two, one, zero, one, two);
        let x = solve(a, SVector::from([one; 3])).unwrap();
        for (x, dx) in x.iter().zip([1.0, -2.0, 1.0]) {
            assert!((x.re - 1.0 / 3.0).abs() < 1e-15, "{}", x.re);
            assert!((x.eps - dx / 9.0).abs() < 1e-15, "{}", x.eps);
        }
    }
}
