//! The square-root-free Cholesky factorization of a mass matrix, in any [`Scalar`].

use super::mass::{clear_pivot, largest_diagonal};
use crate::terms::Scalar;
use nalgebra::{SMatrix, SVector};

/// Solves `mass · x = rhs` by the square-root-free Cholesky factorization L D Lᵀ (along
/// the model's `tree` when it has a valid one: [`TreeLdlt`](super::tree::TreeLdlt)),
/// `None` where a pivot fails the test of [`factor_mass`](super::factor_mass) (or is
/// NaN): see [`Ldlt`].
pub(crate) fn cholesky_solve<const N: usize>(
    mass: &SMatrix<f64, N, N>,
    rhs: &SVector<f64, N>,
    tree: Option<&super::MassTree<N>>,
) -> Option<SVector<f64, N>> {
    let threshold = crate::tolerances::SINGULAR_MASS;
    if let Some(tree) = tree.filter(|t| t.is_valid()) {
        let mut factor = super::tree::TreeLdlt::new(mass, tree);
        return factor
            .factor_above(mass, threshold)
            .then(|| factor.solve(rhs));
    }
    Some(Ldlt::factor_above(mass, threshold)?.solve(rhs))
}

/// The square-root-free Cholesky factorization L D Lᵀ of a mass matrix. The pivots dⱼ are
/// the squares of the Cholesky diagonal, so the pivot test is that of [`factor_mass`](super::factor_mass).
/// Plain loops over stack arrays with one division per coordinate and no square root: for
/// the small matrices of mechanical models several times cheaper than nalgebra's
/// decomposition, and it accepts nothing [`factor_mass`](super::factor_mass) would reject.
///
/// In any [`Scalar`]: the pivot tests read the real parts, and nothing else branches, so
/// with dual numbers the solution is differentiated exactly wherever it is accepted (there
/// is no pivoting whose choice could change within a derivative).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ldlt<S, const N: usize> {
    /// `l[i][j]` (i > j) of the unit lower factor.
    l: [[S; N]; N],
    /// 1 / dⱼ.
    inv: [S; N],
}

impl<S: Scalar, const N: usize> Ldlt<S, N> {
    /// `None` where a pivot fails the test of [`factor_mass`](super::factor_mass) (or is NaN).
    pub(crate) fn factor(mass: &SMatrix<S, N, N>) -> Option<Self> {
        Self::factor_above(mass, crate::tolerances::SINGULAR_MASS)
    }

    /// `None` where a pivot is at most `threshold` times its diagonal entry (or is NaN), or
    /// a diagonal entry is negligible against the largest (see
    /// [`clear_pivot`]).
    pub(crate) fn factor_above(mass: &SMatrix<S, N, N>, threshold: f64) -> Option<Self> {
        // w[i][j] = l[i][j] dⱼ.
        let mut l = [[S::zero(); N]; N];
        let mut w = [[S::zero(); N]; N];
        let mut inv = [S::zero(); N];
        let largest = largest_diagonal(mass);
        for j in 0..N {
            let mut d = mass[(j, j)];
            for k in 0..j {
                d -= l[j][k] * w[j][k];
            }
            if !clear_pivot(d.re(), mass[(j, j)].re(), threshold, largest) {
                return None;
            }
            inv[j] = d.recip();
            for i in j + 1..N {
                let mut x = mass[(i, j)];
                for k in 0..j {
                    x -= l[i][k] * w[j][k];
                }
                w[i][j] = x;
                l[i][j] = x * inv[j];
            }
        }
        Some(Ldlt { l, inv })
    }

    /// Solves `mass · x = rhs`.
    pub(crate) fn solve(&self, rhs: &SVector<S, N>) -> SVector<S, N> {
        let (l, inv) = (&self.l, &self.inv);
        let mut y = [S::zero(); N];
        for i in 0..N {
            let mut x = rhs[i];
            for k in 0..i {
                x -= l[i][k] * y[k];
            }
            y[i] = x;
        }
        for i in (0..N).rev() {
            let mut x = y[i] * inv[i];
            for k in i + 1..N {
                x -= l[k][i] * y[k];
            }
            y[i] = x;
        }
        SVector::from(y)
    }
}
