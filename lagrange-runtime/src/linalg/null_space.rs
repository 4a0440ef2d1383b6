//! An orthonormal basis of the null space of a matrix of full row rank that keeps the
//! variables the matrix does not involve apart, as exact unit vectors.

use nalgebra::DMatrix;

/// An orthonormal basis (n × d) of the null space of `c` (rows × n, full row rank),
/// d = n − rows. A variable that `c` does not involve (its column exactly zero) is a null
/// direction by itself and gets its unit vector, exactly; the rest of the basis, the
/// eigenvectors of cᵀc with the smallest eigenvalues, spans the other variables only. So a
/// matrix reduced by the basis keeps the exact zeros of such variables. The identity when
/// `c` has no rows.
pub(crate) fn null_space(c: &DMatrix<f64>) -> DMatrix<f64> {
    let (rows, n) = c.shape();
    if rows == 0 {
        return DMatrix::identity(n, n);
    }
    let (free, involved): (Vec<usize>, Vec<usize>) =
        (0..n).partition(|&j| c.column(j).iter().all(|&x| x == 0.0));
    let sub = c.select_columns(&involved);
    let eigen = (sub.transpose() * sub).symmetric_eigen();
    let mut order: Vec<usize> = (0..involved.len()).collect();
    order.sort_by(|&a, &b| eigen.eigenvalues[a].total_cmp(&eigen.eigenvalues[b]));
    let d = involved.len().saturating_sub(rows);
    let mut basis = DMatrix::zeros(n, free.len() + d);
    for (k, &j) in free.iter().enumerate() {
        basis[(j, k)] = 1.0;
    }
    for (k, &i) in order.iter().take(d).enumerate() {
        for (r, &j) in involved.iter().enumerate() {
            basis[(j, free.len() + k)] = eigen.eigenvectors[(r, i)];
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
}
