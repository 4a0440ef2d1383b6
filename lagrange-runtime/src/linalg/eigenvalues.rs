//! Eigenvalues of a general real matrix: those its structure isolates, exactly, and the
//! rest from the real Schur form, whose 2 × 2 blocks give real pairs as well as complex
//! ones; and whether a matrix is stable.

use crate::tolerances::EIGENVALUE_ITERATIONS;
use nalgebra::{Complex, DMatrix, Schur};

/// The eigenvalues of `a`, in no particular order: the ones that its structure isolates
/// (see [`isolated_eigenvalues`]), then those of the real Schur form of the rest. `None`
/// when the QR iteration of the Schur form does not converge.
pub(crate) fn eigenvalues(a: &DMatrix<f64>) -> Option<Vec<Complex<f64>>> {
    let (mut eigenvalues, rest) = isolated_eigenvalues(a);
    if rest.nrows() > 0 {
        let schur = Schur::try_new(rest, f64::EPSILON, EIGENVALUE_ITERATIONS)?;
        eigenvalues.extend(quasi_triangular_eigenvalues(&schur.unpack().1));
    }
    Some(eigenvalues)
}

/// The eigenvalues that the structure of `a` isolates, exactly, and the matrix that is
/// left for the Schur form (the permutation step of LAPACK's balancing): a column or a row
/// whose off-diagonal entries are all zero makes `a` block triangular under a permutation,
/// with its diagonal entry as an eigenvalue; removing it may isolate more. This is what
/// keeps the zero eigenvalues of cyclic coordinates exact: in a Jordan chain (a heading
/// that makes a position grow at the speed of the motion) the Schur form would split
/// them by the square root of rounding, 10⁻⁶ where the chain meets a slow mode.
fn isolated_eigenvalues(a: &DMatrix<f64>) -> (Vec<Complex<f64>>, DMatrix<f64>) {
    let mut left: Vec<usize> = (0..a.nrows()).collect();
    let mut isolated = Vec::new();
    loop {
        let alone = |k: usize| {
            left.iter().all(|&i| i == k || a[(i, k)] == 0.0)
                || left.iter().all(|&j| j == k || a[(k, j)] == 0.0)
        };
        let Some(position) = left.iter().position(|&k| alone(k)) else {
            break;
        };
        let k = left.remove(position);
        isolated.push(Complex::new(a[(k, k)], 0.0));
    }
    (isolated, a.select_rows(&left).select_columns(&left))
}

/// The eigenvalues of a real Schur form: 1×1 blocks on the diagonal, and 2×2 blocks where
/// the subdiagonal is not negligible (real pairs included, which nalgebra's own extraction
/// assumes away).
fn quasi_triangular_eigenvalues(t: &DMatrix<f64>) -> Vec<Complex<f64>> {
    let d = t.nrows();
    let mut out = Vec::with_capacity(d);
    let mut m = 0;
    while m < d {
        let n = m + 1;
        let negligible = |i: usize| {
            t[(i + 1, i)].abs() <= f64::EPSILON * (t[(i, i)].abs() + t[(i + 1, i + 1)].abs())
        };
        if n == d || negligible(m) {
            out.push(Complex::new(t[(m, m)], 0.0));
            m += 1;
            continue;
        }
        let (a, b, c, e) = (t[(m, m)], t[(m, n)], t[(n, m)], t[(n, n)]);
        let half_trace = (a + e) / 2.0;
        let half_difference = (a - e) / 2.0;
        let discriminant = half_difference * half_difference + b * c;
        if discriminant >= 0.0 {
            let root = discriminant.sqrt();
            out.push(Complex::new(half_trace + root, 0.0));
            out.push(Complex::new(half_trace - root, 0.0));
        } else {
            let root = (-discriminant).sqrt();
            out.push(Complex::new(half_trace, root));
            out.push(Complex::new(half_trace, -root));
        }
        m += 2;
    }
    out
}

/// Whether every eigenvalue of `x` has a negative real part (by nalgebra's eigenvalues of
/// the Schur form of the whole matrix).
pub(crate) fn is_stable(x: &DMatrix<f64>) -> bool {
    Schur::try_new(x.clone(), f64::EPSILON, EIGENVALUE_ITERATIONS)
        .is_some_and(|schur| schur.complex_eigenvalues().iter().all(|e| e.re < 0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structure_isolates_eigenvalues_and_leaves_the_rest() {
        // What is left after isolation goes to the Schur form.
        let mixed = DMatrix::from_row_slice(3, 3, &[0.0, 1.0, 0.0, -4.0, 0.0, 0.0, 3.0, 0.0, 0.0]);
        let (isolated, rest) = isolated_eigenvalues(&mixed);
        assert_eq!(isolated, [Complex::new(0.0, 0.0)]);
        assert_eq!(rest, DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -4.0, 0.0]));
    }

    #[test]
    fn stability_is_a_strictly_negative_real_part() {
        let decaying = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -4.0, -0.1]);
        assert!(is_stable(&decaying));
        let oscillating = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -4.0, 0.0]);
        assert!(!is_stable(&oscillating));
    }
}
