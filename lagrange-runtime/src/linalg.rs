//! Dense linear algebra on stack matrices of a const-generic size.
//!
//! nalgebra's LU needs type-level dimension bounds (`DimMin`, typenum) that a `const N:
//! usize` generic cannot satisfy, so the general (non-symmetric) solve lives here.

use nalgebra::{SMatrix, SVector};

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None` when a pivot is
/// zero or below `1e-14` of the largest entry of its column (a singular matrix).
pub(crate) fn solve<const N: usize>(
    mut a: SMatrix<f64, N, N>,
    mut b: SVector<f64, N>,
) -> Option<SVector<f64, N>> {
    for k in 0..N {
        let (offset, _) = a.view((k, k), (N - k, 1)).iamax_full();
        let pivot_row = k + offset;
        let column_scale = a.column(k).amax();
        let pivot = a[(pivot_row, k)];
        // Also rejects NaN pivots, for which every comparison is false.
        if !pivot.is_finite() || pivot.abs() <= 1e-14 * column_scale {
            return None;
        }
        a.swap_rows(k, pivot_row);
        b.swap_rows(k, pivot_row);
        for i in k + 1..N {
            let factor = a[(i, k)] / pivot;
            if factor != 0.0 {
                for j in k..N {
                    a[(i, j)] -= factor * a[(k, j)];
                }
                b[i] -= factor * b[k];
            }
        }
    }
    for k in (0..N).rev() {
        let mut sum = b[k];
        for j in k + 1..N {
            sum -= a[(k, j)] * b[j];
        }
        b[k] = sum / a[(k, k)];
    }
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_with_pivoting_and_rejects_singular() {
        // The first pivot is zero: only row exchange makes this solvable.
        let a = SMatrix::<f64, 3, 3>::new(0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0);
        let x = SVector::from([1.0, -2.0, 0.5]);
        let solved = solve(a, a * x).unwrap();
        assert!((solved - x).amax() < 1e-15);
        let singular = SMatrix::<f64, 2, 2>::new(1.0, 2.0, 2.0, 4.0);
        assert!(solve(singular, SVector::from([1.0, 1.0])).is_none());
    }
}
