//! The square-root-free Cholesky factorization of a mass matrix, in any [`Scalar`].

use super::mass::{clear_pivot, largest_diagonal};
use crate::scalar::Scalar;
use nalgebra::{SMatrix, SVector};

/// Solves `mass · x = rhs` by the square-root-free Cholesky factorization L D Lᵀ (along
/// the model's `tree` when it has a valid one): the constrained solve
/// ([`kkt::solve`](super::kkt::solve)) without constraints, in `f64`; a 2×2 matrix by its
/// adjugate ([`adjugate_solve`]) under the same test. `None` where a pivot fails the test
/// of [`factor_mass`](super::factor_mass) (or is NaN): see [`Ldlt`].
#[inline]
pub(crate) fn cholesky_solve<const N: usize>(
    mass: &SMatrix<f64, N, N>,
    rhs: &SVector<f64, N>,
    tree: Option<&super::MassTree<N>>,
) -> Option<SVector<f64, N>> {
    if N == 2
        && let Some(x) = adjugate_solve(mass, rhs)
    {
        return Some(x);
    }
    let none = SMatrix::<f64, 0, N>::zeros();
    super::kkt::solve(mass, rhs, &none, &SVector::zeros(), tree)
        .ok()
        .map(|(x, _)| x)
}

/// A 2×2 mass matrix's solve by its adjugate, x = adj(M) rhs / det M: one division where
/// L D Lᵀ takes two in sequence (the second pivot waits on the first), which is most of
/// the difference between a two-coordinate model and its textbook closed form. Accepted
/// under the pivot test of [`Ldlt`], its second pivot d₂ = det M / M₁₁ compared without
/// the division; `None` otherwise (a determinant that overflows or underflows too), and
/// the caller factors the matrix as any other.
#[inline]
fn adjugate_solve<const N: usize>(
    mass: &SMatrix<f64, N, N>,
    rhs: &SVector<f64, N>,
) -> Option<SVector<f64, N>> {
    let (a, b, c) = (mass[(0, 0)], mass[(1, 0)], mass[(1, 1)]);
    let det = a * c - b * b;
    let threshold = crate::tolerances::SINGULAR_MASS;
    // The test of `clear_pivot` for both pivots, a and d₂ = det / a (compared without the
    // division), in the fewest comparisons, every one false for NaN: `a > ε² max(a, c)`
    // holds only for a > 0 (and then a > threshold a), the same for c, so that
    // det > threshold c a > 0, and `det < ∞` is then `det.is_finite()`. With a and c
    // positive, max(a, c) is `largest_diagonal`.
    let negligible = crate::tolerances::NEGLIGIBLE_INERTIA * if a > c { a } else { c };
    let regular =
        a > negligible && c > negligible && det > threshold * c * a && det < f64::INFINITY;
    if !regular {
        return None;
    }
    let inv = det.recip();
    let mut x = SVector::<f64, N>::zeros();
    x[0] = (c * rhs[0] - b * rhs[1]) * inv;
    x[1] = (a * rhs[1] - b * rhs[0]) * inv;
    Some(x)
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
    /// `l[i][j]` (i > j) of the unit lower factor; above the diagonal, `l[j][i]` holds
    /// `l[i][j] d_j` as computed before the division (the diagonal is the matrix's).
    l: [[S; N]; N],
    /// 1 / dⱼ.
    inv: [S; N],
}

/// start − Σ a_k b_k: subtracted term by term for short rows, and from [`SPLIT_SUMS`]
/// terms on the sum in four interleaved partial sums, subtracted once.
#[inline]
fn reduce<S: Scalar>(start: S, a: &[S], b: &[S]) -> S {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    if n < SPLIT_SUMS {
        let mut x = start;
        for (&a, &b) in a.iter().zip(b) {
            x -= a * b;
        }
        return x;
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
    start - sum
}

/// From this many terms on, [`reduce`] splits its sum (measured: chains of 24 and 64 links
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
        let mut factored = Ldlt {
            l: mass.data.0,
            inv: [S::zero(); N],
        };
        if factored.factor_rows(mass, threshold) {
            Some(factored)
        } else {
            None
        }
    }

    /// [`factor`](Self::factor) into `self` (whatever it held): false where it fails. For
    /// a factorization kept where its caller chooses (on the heap for a large matrix, a
    /// 101-coordinate robot's is 80 KiB, whose copies in an unoptimized build's frames
    /// overflow a thread's stack: `kkt::with_scratch`).
    pub(crate) fn refactor(&mut self, mass: &SMatrix<S, N, N>) -> bool {
        self.l = mass.data.0;
        self.inv = [S::zero(); N];
        self.factor_rows(mass, crate::tolerances::SINGULAR_MASS)
    }

    /// Factors in place `self.l`, a copy of `mass` (row i column i), with `inv` zero:
    /// false where a pivot fails the test of [`factor_above`](Self::factor_above).
    #[inline]
    fn factor_rows(&mut self, mass: &SMatrix<S, N, N>, threshold: f64) -> bool {
        let Ldlt { l, inv } = self;
        let largest = largest_diagonal(mass);
        // w = l[j][k] d_k for the column j being computed, as computed before the
        // division by d_k: kept in the triangle above the diagonal, which nothing else
        // reads (`l[k][j]`, k < j).
        let mut w = [S::zero(); N];
        for j in 0..N {
            for (k, w) in w.iter_mut().enumerate().take(j) {
                *w = l[k][j];
            }
            let (row_j, below) = l[j..].split_first_mut().expect("j < N");
            let d = reduce(row_j[j], &row_j[..j], &w[..j]);
            if !clear_pivot(d.re(), mass[(j, j)].re(), threshold, largest) {
                return false;
            }
            let inv_j = d.recip();
            inv[j] = inv_j;
            for (i, row_i) in below.iter_mut().enumerate() {
                let x = reduce(row_i[j], &row_i[..j], &w[..j]);
                row_i[j] = x * inv_j;
                row_j[j + 1 + i] = x;
            }
        }
        true
    }

    /// Solves `mass · x = rhs`: L y = rhs by rows, then Lᵀ x = D⁻¹ y from the last.
    #[inline]
    pub(crate) fn solve(&self, rhs: &SVector<S, N>) -> SVector<S, N> {
        let (l, inv) = (&self.l, &self.inv);
        let mut y: [S; N] = super::Factor::half(self, rhs).into();
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

// SAFETY: two arrays of `f64`, for which all bits zero is 0.0.
unsafe impl<const N: usize> crate::linalg::kkt::Zeroable for Ldlt<f64, N> {}

impl<S: Scalar, const N: usize> super::Factor<S, N> for Ldlt<S, N> {
    fn solve(&self, rhs: &SVector<S, N>) -> SVector<S, N> {
        Ldlt::solve(self, rhs)
    }

    /// y of L y = rhs: M = L D Lᵀ, so that a Jᵀ's J M⁻¹ Jᵀ = Yᵀ D⁻¹ Y.
    fn half(&self, rhs: &SVector<S, N>) -> SVector<S, N> {
        let l = &self.l;
        let mut y: [S; N] = (*rhs).into();
        for i in 0..N {
            y[i] = reduce(y[i], &l[i][..i], &y[..i]);
        }
        SVector::from(y)
    }

    fn inverse_pivots(&self) -> &[S; N] {
        &self.inv
    }
}

#[cfg(test)]
mod tests {
    use super::{adjugate_solve, cholesky_solve, Ldlt};
    use nalgebra::{SMatrix, SVector};

    type M2 = SMatrix<f64, 2, 2>;

    /// The solve of L D Lᵀ, the reference of the 2×2 adjugate.
    fn by_ldlt(m: &SMatrix<f64, 2, 2>, b: &SVector<f64, 2>) -> Option<SVector<f64, 2>> {
        Ldlt::factor(m).map(|f| f.solve(b))
    }

    /// A symmetric positive definite matrix of scale `scale` and condition up to 1e6, from
    /// a seed: [[a, b], [b, c]] with b² < a c.
    fn spd(seed: u64, scale: f64) -> SMatrix<f64, 2, 2> {
        let r = |k: u64| (((seed * 7919 + k * 104_729) % 1000) as f64 + 1.0) / 1000.0;
        let (a, c) = (scale * r(1), scale * r(2) * 10f64.powi((seed % 4) as i32));
        let b = (a * c).sqrt() * (2.0 * r(3) - 1.0) * 0.999;
        M2::new(a, b, b, c)
    }

    /// Whatever the scale, the adjugate solves as L D Lᵀ does (to rounding), and M x = b.
    #[test]
    fn solves_as_the_factorization_does() {
        for seed in 0..200 {
            for scale in [1e-150, 1e-3, 1.0, 7.5, 1e4, 1e150] {
                let m = spd(seed, scale);
                let b = SVector::<f64, 2>::new(1.0 - seed as f64 * 0.01, 0.3 * scale);
                let want = by_ldlt(&m, &b).expect("positive definite");
                let got = cholesky_solve(&m, &b, None).expect("positive definite");
                let size = want.amax();
                assert!(
                    (got - want).amax() <= 1e-9 * size,
                    "seed {seed}, scale {scale:e}: {got} against {want}"
                );
                let residual = (m * got - b).amax();
                assert!(residual <= 1e-9 * (m.amax() * size).max(b.amax()));
            }
        }
    }

    /// The adjugate's few comparisons accept exactly the matrices that `clear_pivot` accepts
    /// for both pivots (a, and d₂ = det / a compared without the division) with a finite
    /// determinant, over values where the comparisons flip: NaN, infinities, signs, zero,
    /// negligible and huge entries.
    #[test]
    fn accepts_what_the_pivot_test_accepts() {
        use super::super::mass::{clear_pivot, largest_diagonal};
        use crate::tolerances::SINGULAR_MASS;
        let values = [
            f64::NAN,
            f64::NEG_INFINITY,
            -1.0,
            -1e-300,
            -0.0,
            0.0,
            1e-300,
            1e-40,
            1e-33,
            1e-30,
            0.5,
            1.0,
            1.0 + 1e-13,
            2.0,
            1e30,
            1e200,
            f64::INFINITY,
        ];
        let b = SVector::<f64, 2>::new(1.0, 2.0);
        let mut accepted = 0;
        for &a in &values {
            for &c in &values {
                for &off in &[0.0, 1e-20, 0.5, 1.0, -1.0, 1e100, f64::NAN] {
                    let m = M2::new(a, off, off, c);
                    let det = a * c - off * off;
                    // The test as written before, pivot by pivot.
                    let largest = largest_diagonal(&m);
                    let want = clear_pivot(a, a, SINGULAR_MASS, largest)
                        && det.is_finite()
                        && det > 0.0
                        && det > SINGULAR_MASS * c * a
                        && c > crate::tolerances::NEGLIGIBLE_INERTIA * largest;
                    assert_eq!(adjugate_solve(&m, &b).is_some(), want, "{m}");
                    accepted += usize::from(want);
                }
            }
        }
        assert!(accepted > 50, "{accepted}");
    }

    /// A singular, indefinite or non-finite matrix, or one with a negligible diagonal
    /// entry, is left to the factorization, which refuses it; a determinant that overflows
    /// or underflows too, and the factorization solves it.
    #[test]
    fn leaves_what_it_cannot_take_to_the_factorization() {
        let b = SVector::<f64, 2>::new(1.0, 2.0);
        let refused = [
            M2::new(1.0, 2.0, 2.0, 4.0),
            M2::new(1.0, 3.0, 3.0, 4.0),
            M2::new(-1.0, 0.0, 0.0, 4.0),
            M2::new(1.0, 0.0, 0.0, 0.0),
            M2::new(1.0, 0.0, 0.0, 1e-40),
            M2::new(f64::NAN, 0.0, 0.0, 1.0),
            M2::new(1.0, 0.0, 0.0, f64::INFINITY),
        ];
        for m in refused {
            assert!(adjugate_solve(&m, &b).is_none(), "{m}");
            assert!(cholesky_solve(&m, &b, None).is_none(), "{m}");
            assert!(by_ldlt(&m, &b).is_none(), "{m}");
        }
        for m in [
            M2::new(1e200, 1e199, 1e199, 1e200),
            M2::new(1e-200, 1e-201, 1e-201, 1e-200),
        ] {
            assert!(adjugate_solve(&m, &b).is_none(), "{m}");
            let want = by_ldlt(&m, &b).expect("positive definite");
            assert_eq!(cholesky_solve(&m, &b, None), Some(want));
        }
    }
}
