//! An orthonormal basis of the null space of a matrix of full row rank that keeps the
//! variables the matrix does not involve apart, as exact unit vectors.

use nalgebra::DMatrix;

/// An orthonormal basis (n × d) of the null space of `c` (rows × n, full row rank),
/// d = n − rows. A variable that `c` does not involve (its column exactly zero) is a null
/// direction by itself and gets its unit vector, exactly; the rest of the basis spans the
/// other variables only: the last columns of the full Q of the QR factorization of the
/// involved columns' transpose (Householder reflections applied to the identity, which
/// costs a few products where the eigenvectors of cᵀc took 8 % of a floating robot's
/// linearization, and does not square c's condition number). So a matrix reduced by the
/// basis keeps the exact zeros of such variables. The identity when `c` has no rows.
pub(crate) fn null_space(c: &DMatrix<f64>) -> DMatrix<f64> {
    let (rows, n) = c.shape();
    if rows == 0 {
        return DMatrix::identity(n, n);
    }
    let (free, involved): (Vec<usize>, Vec<usize>) =
        (0..n).partition(|&j| c.column(j).iter().all(|&x| x == 0.0));
    let involved_count = involved.len();
    let d = involved_count.saturating_sub(rows);
    // Qᵀ of subᵀ = Q R: its rows from `rows` on are orthonormal and orthogonal to every
    // row of `sub` (which lie in the span of Q's first columns).
    let qr = c.select_columns(&involved).transpose().qr();
    let mut qt = DMatrix::<f64>::identity(involved_count, involved_count);
    qr.q_tr_mul(&mut qt);
    let mut basis = DMatrix::zeros(n, free.len() + d);
    for (k, &j) in free.iter().enumerate() {
        basis[(j, k)] = 1.0;
    }
    for k in 0..d {
        for (r, &j) in involved.iter().enumerate() {
            basis[(j, free.len() + k)] = qt[(involved_count - d + k, r)];
        }
    }
    basis
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_not_involved_are_basis_vectors() {
        // Three variables, one row x₁ + x₂ = 0 that leaves x₀ free.
        let c = DMatrix::from_row_slice(1, 3, &[0.0, 1.0, 1.0]);
        let v = null_space(&c);
        assert_eq!(v.shape(), (3, 2));
        assert_eq!(v.column(0).as_slice(), [1.0, 0.0, 0.0]);
        assert!((v.transpose() * &v - DMatrix::identity(2, 2)).amax() < 1e-15);
        assert!((&c * &v).amax() < 1e-15);
    }

    /// A unit quaternion's two rows in the state (n, ṅ) among free variables: |n|² = 1 at
    /// position level, 2 n · ṅ at velocity level. The basis is orthonormal, annihilated
    /// by the rows, of dimension n − 2, and its free variables' vectors are exact.
    #[test]
    fn spans_a_quaternions_tangent_space() {
        let (n, nd) = ([0.3, -0.5, 0.7, 0.1], [0.2, 0.4, -0.6, 1.1]);
        // Variables: p (3, free), n (4), then ṗ (3, free), ṅ (4).
        let mut c = DMatrix::<f64>::zeros(2, 14);
        for k in 0..4 {
            c[(0, 3 + k)] = 2.0 * n[k];
            c[(1, 3 + k)] = 2.0 * nd[k];
            c[(1, 10 + k)] = 2.0 * n[k];
        }
        let v = null_space(&c);
        assert_eq!(v.shape(), (14, 12));
        assert!((v.transpose() * &v - DMatrix::identity(12, 12)).amax() < 1e-14);
        assert!((&c * &v).amax() < 1e-14);
        for (k, j) in [0, 1, 2, 7, 8, 9].into_iter().enumerate() {
            let e: Vec<f64> = (0..14).map(|i| f64::from(u8::from(i == j))).collect();
            assert_eq!(v.column(k).as_slice(), e.as_slice());
        }
    }
}
