//! The square-root-free Cholesky factorization of a mass matrix, in any [`Scalar`].

use super::mass::{clear_pivot, largest_diagonal};
use crate::terms::Scalar;
use nalgebra::{SMatrix, SVector};

/// Solves `mass · x = rhs` by the square-root-free Cholesky factorization L D Lᵀ (along
/// the model's `tree` when it has a valid one: [`TreeLdlt`](super::tree::TreeLdlt)),
/// `None` where a pivot fails the test of [`factor_mass`](super::factor_mass) (or is
/// NaN): see [`Ldlt`].
#[inline]
pub(crate) fn cholesky_solve<const N: usize>(
    mass: &SMatrix<f64, N, N>,
    rhs: &SVector<f64, N>,
    tree: Option<&super::MassTree<N>>,
) -> Option<SVector<f64, N>> {
    let threshold = crate::tolerances::SINGULAR_MASS;
    if let Some(tree) = tree.filter(|t| t.is_valid()) {
        debug_assert!(
            tree.holds(mass, &SMatrix::<f64, 0, N>::zeros()),
            "{}",
            super::kkt::BROKEN_TREE
        );
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
/// Factored in place in one copy of the matrix (row i holds L's row i left of the
/// diagonal), its inner products summed in four interleaved parts so that long rows do
/// not wait on one chain of additions.
///
/// In any [`Scalar`]: the pivot tests read the real parts, and nothing else branches, so
/// with dual numbers the solution is differentiated exactly wherever it is accepted (there
/// is no pivoting whose choice could change within a derivative).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ldlt<S, const N: usize> {
    /// `l[i][j]` (i > j) of the unit lower factor; the rest is the matrix's.
    l: [[S; N]; N],
    /// 1 / dⱼ.
    inv: [S; N],
}

/// Σ a_k b_k: in order for short rows, in four interleaved partial sums from
/// [`SPLIT_SUMS`] terms on.
#[inline]
pub(crate) fn dot<S: Scalar>(a: &[S], b: &[S]) -> S {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    if n < SPLIT_SUMS {
        let mut sum = S::zero();
        for (&x, &y) in a.iter().zip(b) {
            sum += x * y;
        }
        return sum;
    }
    let mut parts = [S::zero(); 4];
    let (chunks_a, rest_a) = a.split_at(n - n % 4);
    let (chunks_b, rest_b) = b.split_at(n - n % 4);
    for (x, y) in chunks_a.chunks_exact(4).zip(chunks_b.chunks_exact(4)) {
        for p in 0..4 {
            parts[p] += x[p] * y[p];
        }
    }
    let mut sum = (parts[0] + parts[2]) + (parts[1] + parts[3]);
    for (&x, &y) in rest_a.iter().zip(rest_b) {
        sum += x * y;
    }
    sum
}

/// From this many terms on, [`dot`] splits its sum (measured: chains of 24 and 64 links
/// 8% and 18% faster `accelerations`; the double pendulum and the UR5 slower when every
/// row's sum was split).
const SPLIT_SUMS: usize = 12;

impl<S: Scalar, const N: usize> Ldlt<S, N> {
    /// `None` where a pivot fails the test of [`factor_mass`](super::factor_mass) (or is NaN).
    pub(crate) fn factor(mass: &SMatrix<S, N, N>) -> Option<Self> {
        Self::factor_above(mass, crate::tolerances::SINGULAR_MASS)
    }

    /// `None` where a pivot is at most `threshold` times its diagonal entry (or is NaN), or
    /// a diagonal entry is negligible against the largest (see
    /// [`clear_pivot`]).
    #[inline]
    pub(crate) fn factor_above(mass: &SMatrix<S, N, N>, threshold: f64) -> Option<Self> {
        // Row i of the copy is column i of `mass`: by symmetry, M's row i.
        let mut l = mass.data.0;
        let mut inv = [S::zero(); N];
        let largest = largest_diagonal(mass);
        // w = l[j][k] d_k for the column j being computed.
        let mut w = [S::zero(); N];
        for j in 0..N {
            let (above, rest) = l.split_at_mut(j);
            let (row_j, below) = rest.split_first_mut().expect("j < N");
            for (k, w) in w.iter_mut().enumerate().take(j) {
                let lk = row_j[k];
                *w = lk * above[k][k];
            }
            // l[k][k] holds d_k once column k is done.
            let d = row_j[j] - dot(&row_j[..j], &w[..j]);
            if !clear_pivot(d.re(), mass[(j, j)].re(), threshold, largest) {
                return None;
            }
            row_j[j] = d;
            let inv_j = d.recip();
            inv[j] = inv_j;
            for row_i in below.iter_mut() {
                let x = row_i[j] - dot(&row_i[..j], &w[..j]);
                row_i[j] = x * inv_j;
            }
        }
        Some(Ldlt { l, inv })
    }

    /// Solves `mass · x = rhs`: L y = rhs by rows, then Lᵀ x = D⁻¹ y by rows of L from
    /// the last (each x_i, once known, taken out of the earlier rows).
    #[inline]
    pub(crate) fn solve(&self, rhs: &SVector<S, N>) -> SVector<S, N> {
        let (l, inv) = (&self.l, &self.inv);
        let mut y: [S; N] = (*rhs).into();
        for i in 0..N {
            let x = y[i] - dot(&l[i][..i], &y[..i]);
            y[i] = x;
        }
        for (y, &inv) in y.iter_mut().zip(inv) {
            *y *= inv;
        }
        for i in (0..N).rev() {
            let xi = y[i];
            for (y, &lik) in y[..i].iter_mut().zip(&l[i][..i]) {
                *y -= lik * xi;
            }
        }
        SVector::from(y)
    }
}
