//! The factorization of a mass matrix along its kinematic tree (Featherstone, *Rigid Body
//! Dynamics Algorithms*, §6.5): M = Lᵀ D L with L unit lower triangular, eliminating from
//! the last coordinate to the first, so that a coordinate couples only with its
//! ancestors and nothing fills in. On a branched robot most of M is structurally zero
//! (two legs share no velocity) and this costs Σ depth² instead of N³ / 3.
//!
//! The tree is [`Model::MASS_TREE`](crate::model::Model::MASS_TREE), a [`MassTree`]:
//! `parents[k] < k`, or [`NO_PARENT`] for a root. Entries of M between coordinates of
//! which neither is an ancestor of the other are not read: the tree is the promise that
//! they are zero. A coordinate's ancestors are read as runs of consecutive coordinates
//! (a limb's joints, a floating base's seven), so that the updates are slices.

use super::mass::{clear_pivot, largest_diagonal};
use crate::scalar::Scalar;
use nalgebra::{SMatrix, SVector};

/// The parent of a coordinate that has none in a [`MassTree`].
pub const NO_PARENT: usize = usize::MAX;

/// The kinematic tree of a model's mass matrix: see
/// [`Model::MASS_TREE`](crate::model::Model::MASS_TREE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MassTree<const N: usize> {
    /// Each coordinate's parent, an earlier coordinate, or [`NO_PARENT`].
    pub parents: [usize; N],
    /// One past the last coordinate any constraint's Jacobian involves (0 without
    /// constraints): the completion M + ρ JᵀJ touches only the coordinates before it.
    pub constrained: usize,
}

impl<const N: usize> MassTree<N> {
    /// Whether the factorization can follow it: every parent earlier than its child (or
    /// [`NO_PARENT`]), and `constrained` at most N. A model's tree that is not is ignored
    /// (the dense factorization runs), so that no parent array can make it loop.
    pub(crate) fn is_valid(&self) -> bool {
        self.constrained <= N
            && self
                .parents
                .iter()
                .enumerate()
                .all(|(k, &p)| p == NO_PARENT || p < k)
    }

    /// Whether `mass` and the constraint Jacobian `j` keep the tree's promise, read off
    /// their real parts: every nonzero entry of M and of JᵀJ between a coordinate and one
    /// of its ancestors (or itself), and J zero from `constrained` on. A debug assertion
    /// of the solves that follow the tree: a hand-written tree that breaks it would give
    /// wrong accelerations without any other sign.
    pub(crate) fn holds<S: Scalar, const K: usize>(
        &self,
        mass: &SMatrix<S, N, N>,
        j: &SMatrix<S, K, N>,
    ) -> bool {
        let related = |a: usize, b: usize| {
            let (low, high) = (a.min(b), a.max(b));
            let mut k = high;
            while k != NO_PARENT && k > low {
                k = self.parents[k];
            }
            k == low
        };
        let nonzero = |x: S| x.re() != 0.0;
        (0..N).all(|a| {
            (0..a).all(|b| related(a, b) || !nonzero(mass[(a, b)]))
                && (0..K).all(|r| {
                    (a < self.constrained || !nonzero(j[(r, a)]))
                        && (0..a)
                            .all(|b| related(a, b) || !nonzero(j[(r, a)]) || !nonzero(j[(r, b)]))
                })
        })
    }

    /// The first coordinate of the run of consecutive ancestors each coordinate ends:
    /// `start[j] = start[j − 1]` when j − 1 is j's parent.
    fn starts(&self) -> [usize; N] {
        let mut start = [0; N];
        for j in 0..N {
            start[j] = if j > 0 && self.parents[j] == j - 1 {
                start[j - 1]
            } else {
                j
            };
        }
        start
    }
}

/// M = Lᵀ D L along a tree: row i of `h` holds L's entries at i's ancestors, `inv` the
/// reciprocals of D.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TreeLdlt<S, const N: usize> {
    h: [[S; N]; N],
    inv: [S; N],
    parents: [usize; N],
    start: [usize; N],
}

/// The ranges of consecutive coordinates that make up `top` and its ancestors, nearest
/// first.
fn runs<'a, const N: usize>(
    parents: &'a [usize; N],
    start: &'a [usize; N],
    top: usize,
) -> impl Iterator<Item = std::ops::RangeInclusive<usize>> + 'a {
    let mut top = top;
    std::iter::from_fn(move || {
        if top == NO_PARENT {
            return None;
        }
        let lo = start[top];
        let run = lo..=top;
        top = parents[lo];
        Some(run)
    })
}

impl<S: Scalar, const N: usize> TreeLdlt<S, N> {
    /// The working copy of `mass` (its entries (j, i), j ≤ i, in row i), nothing
    /// eliminated yet: factor it in place with
    /// [`factor_completing`](Self::factor_completing). `tree` must be
    /// [valid](MassTree::is_valid).
    pub(crate) fn new(mass: &SMatrix<S, N, N>, tree: &MassTree<N>) -> Self {
        TreeLdlt {
            h: mass.data.0,
            inv: [S::zero(); N],
            parents: tree.parents,
            start: tree.starts(),
        }
    }

    /// Eliminates the coordinates of `range` from the last down, testing each pivot as
    /// [`Ldlt::factor_above`] does against `diagonal`, the diagonal entries it came from,
    /// and `largest`: `Err(k)` at the first pivot that fails, else the smallest ratio of
    /// a pivot to its diagonal entry (∞ for none), so that a stricter threshold can be
    /// applied afterwards.
    fn eliminate(
        &mut self,
        range: std::ops::Range<usize>,
        diagonal: &[f64; N],
        threshold: f64,
        largest: f64,
    ) -> Result<f64, usize> {
        let (parents, start) = (&self.parents, &self.start);
        let mut smallest = f64::INFINITY;
        for k in range.rev() {
            let d = self.h[k][k];
            if !clear_pivot(d.re(), diagonal[k], threshold, largest) {
                return Err(k);
            }
            smallest = smallest.min(d.re() / diagonal[k]);
            let inv = d.recip();
            self.inv[k] = inv;
            let (rows, rest) = self.h.split_at_mut(k);
            let hk = &mut rest[0];
            let mut i = parents[k];
            while i != NO_PARENT {
                let a = hk[i] * inv;
                let hi = &mut rows[i];
                for run in runs(parents, start, i) {
                    for (x, &y) in hi[run.clone()].iter_mut().zip(&hk[run]) {
                        *x -= a * y;
                    }
                }
                hk[i] = a;
                i = parents[i];
            }
        }
        Ok(smallest)
    }

    /// Factors `mass` (of which this is the [working copy](Self::new)) as
    /// [`kkt::solve`](super::kkt::solve) does, along the tree, in one elimination: M's own
    /// factorization when its pivots pass `plain`, else
    /// that of M + ρ JᵀJ (ρ from `weight`) with the tests of
    /// [`SINGULAR_MASS`](crate::tolerances::SINGULAR_MASS), and ρ. The completion
    /// reaches only the coordinates before `tree.constrained`, which are eliminated last:
    /// the coordinates after them are eliminated once (their pivots are the same in both
    /// matrices; elimination is linear in the block it leaves, so ρ JᵀJ can be added to
    /// what is left of the constrained block), and only that block is eliminated again
    /// when M's pivots in it fail. `Ok(None)` for M's own, `Ok(Some(ρ))` for the
    /// completed matrix's; `Err(None)` when M fails without constraints (K = 0),
    /// `Err(Some(ρ))` when the completed matrix fails too.
    pub(crate) fn factor_completing<const K: usize>(
        &mut self,
        mass: &SMatrix<S, N, N>,
        j: &SMatrix<S, K, N>,
        constrained: usize,
        plain: f64,
        weight: impl FnOnce() -> f64,
    ) -> Result<Option<f64>, Option<f64>> {
        let f = self;
        let mut diagonal: [f64; N] = std::array::from_fn(|k| mass[(k, k)].re());
        let largest = largest_diagonal(mass);
        if K == 0 {
            return match f.eliminate(0..N, &diagonal, plain, largest) {
                Ok(_) => Ok(None),
                Err(_) => Err(None),
            };
        }
        let c = constrained;
        let singular = crate::tolerances::SINGULAR_MASS;
        let outer = f.eliminate(c..N, &diagonal, singular, largest);
        if outer.is_ok_and(|smallest| smallest > plain) {
            // The block's entries (a, b), b < a, kept in the triangle above (which
            // nothing reads) to try M's own pivots first.
            let block_diagonal: [S; N] = std::array::from_fn(|a| f.h[a][a]);
            for a in 0..c {
                for b in 0..a {
                    f.h[b][a] = f.h[a][b];
                }
            }
            if f.eliminate(0..c, &diagonal, plain, largest).is_ok() {
                return Ok(None);
            }
            for (a, &d) in block_diagonal.iter().enumerate().take(c) {
                for b in 0..a {
                    f.h[a][b] = f.h[b][a];
                }
                f.h[a][a] = d;
            }
        }
        let rho = weight();
        if !rho.is_finite() || outer.is_err() {
            return Err(Some(rho));
        }
        let weight = S::from(rho);
        for r in 0..K {
            for a in 0..c {
                let ja = j[(r, a)] * weight;
                for (x, &jb) in f.h[a][..=a].iter_mut().zip(j.row(r).iter()) {
                    *x += ja * jb;
                }
            }
        }
        for (a, d) in diagonal.iter_mut().enumerate().take(c) {
            *d += (0..K).map(|r| j[(r, a)].re().powi(2)).sum::<f64>() * rho;
        }
        let completed_largest = diagonal.iter().fold(largest, |m, &d| m.max(d));
        // The pivots after the block were tested against M's largest diagonal entry: test
        // them against the completed matrix's.
        let negligible = crate::tolerances::NEGLIGIBLE_INERTIA * completed_largest;
        if !diagonal[c..].iter().all(|&d| d > negligible) {
            return Err(Some(rho));
        }
        match f.eliminate(0..c, &diagonal, singular, completed_largest) {
            Ok(_) => Ok(Some(rho)),
            Err(_) => Err(Some(rho)),
        }
    }

    /// Solves `mass · x = rhs`: Lᵀ z = rhs from the leaves up, then D, then L x = D⁻¹ z
    /// from the roots down.
    pub(crate) fn solve(&self, rhs: &SVector<S, N>) -> SVector<S, N> {
        let (h, parents, start) = (&self.h, &self.parents, &self.start);
        let mut x: [S; N] = super::Factor::half(self, rhs).into();
        for (x, &inv) in x.iter_mut().zip(&self.inv) {
            *x *= inv;
        }
        for i in 0..N {
            let mut xi = x[i];
            for run in runs(parents, start, parents[i]) {
                for (&x, &l) in x[run.clone()].iter().zip(&h[i][run]) {
                    xi -= l * x;
                }
            }
            x[i] = xi;
        }
        SVector::from(x)
    }
}

impl<S: Scalar, const N: usize> TreeLdlt<S, N> {
    /// M⁻¹ into `out`: M⁻¹ = Zᵀ D⁻¹ Z with Z = L⁻ᵀ, whose column i (the half solve of e_i)
    /// lies on i and its ancestors, so that it costs a walk up from each coordinate instead
    /// of a solve per column (the G1's 36 solves were a fifth of its linearization).
    /// Z's columns are kept in `out`'s upper triangle (Z_ai, a ≤ i; Z_ii = 1) while the
    /// lower one is filled, then mirrored.
    pub(crate) fn inverse_into(&self, out: &mut SMatrix<S, N, N>) {
        let (h, parents, start) = (&self.h, &self.parents, &self.start);
        // Column-major: column i is `data[i * N..(i + 1) * N]`.
        let data = out.as_mut_slice();
        data.fill(S::zero());
        for i in 0..N {
            let z = &mut data[i * N..(i + 1) * N];
            z[i] = S::one();
            let mut k = i;
            while k != NO_PARENT {
                let zk = z[k];
                for run in runs(parents, start, parents[k]) {
                    for (x, &l) in z[run.clone()].iter_mut().zip(&h[k][run]) {
                        *x -= l * zk;
                    }
                }
                k = parents[k];
            }
        }
        // (M⁻¹)_ij = Σ_a Z_ai Z_aj / d_a over a ≤ j < i into the lower triangle, which no
        // column of Z reaches, with w = Z_·j / d of each column taken before its diagonal
        // is overwritten.
        let mut w = [S::zero(); N];
        for j in 0..N {
            for ((w, &z), &inv) in w.iter_mut().zip(&data[j * N..=j * N + j]).zip(&self.inv) {
                *w = z * inv;
            }
            let w = &w[..=j];
            let dot = |column: &[S]| -> S {
                column
                    .iter()
                    .zip(w)
                    .fold(S::zero(), |sum, (&z, &w)| sum + z * w)
            };
            let diagonal = dot(&data[j * N..=j * N + j]);
            for i in j + 1..N {
                let entry = dot(&data[i * N..=i * N + j]);
                data[j * N + i] = entry;
            }
            data[j * N + j] = diagonal;
        }
        for j in 0..N {
            for i in j + 1..N {
                data[i * N + j] = data[j * N + i];
            }
        }
    }
}

impl<S: Scalar, const N: usize> super::Factor<S, N> for TreeLdlt<S, N> {
    fn solve(&self, rhs: &SVector<S, N>) -> SVector<S, N> {
        TreeLdlt::solve(self, rhs)
    }

    /// z of Lᵀ z = rhs, from the leaves up: M = Lᵀ D L, so that a Jᵀ's J M⁻¹ Jᵀ =
    /// Zᵀ D⁻¹ Z. A column of Jᵀ that involves one branch (a foot's) stays on it.
    fn half(&self, rhs: &SVector<S, N>) -> SVector<S, N> {
        let (h, parents, start) = (&self.h, &self.parents, &self.start);
        let mut x: [S; N] = (*rhs).into();
        for i in (0..N).rev() {
            let xi = x[i];
            // A zero adds nothing to its ancestors (a foot's row is zero off its leg and
            // the base). Only a plain float's zero is known to be one: a dual number's
            // comparison reads its real part alone.
            if S::NDERIV == 0 && xi.re() == 0.0 {
                continue;
            }
            for run in runs(parents, start, parents[i]) {
                for (x, &l) in x[run.clone()].iter_mut().zip(&h[i][run]) {
                    *x -= l * xi;
                }
            }
        }
        SVector::from(x)
    }

    fn inverse_pivots(&self) -> &[S; N] {
        &self.inv
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::kkt;
    use num_dual::Dual64;

    const ROOT: usize = NO_PARENT;

    /// A base of three coordinates (a path) carrying two limbs of three: the shape of a
    /// floating robot, small. The constraint involves the base only.
    const TREE: MassTree<9> = MassTree {
        parents: [ROOT, 0, 1, 2, 3, 4, 2, 6, 7],
        constrained: 3,
    };

    /// Deterministic numbers in (−1, 1).
    fn numbers(seed: u64) -> impl FnMut() -> f64 {
        let mut state = seed;
        move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
    }

    fn is_ancestor(tree: &MassTree<9>, a: usize, k: usize) -> bool {
        let mut j = tree.parents[k];
        while j != ROOT {
            if j == a {
                return true;
            }
            j = tree.parents[j];
        }
        false
    }

    /// M = Lᵀ D L with L unit lower triangular on the tree's pattern, so that M's entry
    /// (i, j) is zero unless one is the other's ancestor; `pivots` is D.
    fn mass_on_tree(seed: u64, pivots: [f64; 9]) -> SMatrix<f64, 9, 9> {
        let mut r = numbers(seed);
        let l = SMatrix::<f64, 9, 9>::from_fn(|k, i| match () {
            _ if k == i => 1.0,
            _ if is_ancestor(&TREE, i, k) => r(),
            _ => 0.0,
        });
        l.transpose() * SMatrix::from_diagonal(&SVector::from(pivots)) * l
    }

    fn pivots(seed: u64) -> [f64; 9] {
        let mut r = numbers(seed);
        std::array::from_fn(|_| 1.5 + r())
    }

    /// Against nalgebra's LU, with the entries off the tree exactly zero, as promised.
    #[test]
    fn solves_as_the_dense_factorization_does() {
        for seed in 1..20 {
            let mass = mass_on_tree(seed, pivots(seed + 100));
            for (i, j) in (0..9).flat_map(|i| (0..9).map(move |j| (i, j))) {
                if i != j && !is_ancestor(&TREE, i, j) && !is_ancestor(&TREE, j, i) {
                    assert_eq!(mass[(i, j)], 0.0);
                }
            }
            let mut r = numbers(seed + 200);
            let rhs = SVector::<f64, 9>::from_fn(|_, _| r());
            let none = SMatrix::<f64, 0, 9>::zeros();
            let (x, _) = kkt::solve(&mass, &rhs, &none, &SVector::zeros(), Some(&TREE)).unwrap();
            let truth = mass.lu().solve(&rhs).unwrap();
            assert!((x - truth).amax() < 1e-12 * truth.amax(), "{x} {truth}");
        }
    }

    /// The constrained solve along the tree against the dense one: with M regular (the
    /// plain path), and with M singular along a direction the constraint fixes (the
    /// completed path, which resumes inside the base instead of starting over).
    #[test]
    fn completes_a_singular_mass_matrix_as_the_dense_solve_does() {
        for seed in 1..20 {
            for singular in [false, true] {
                let mut d = pivots(seed + 300);
                if singular {
                    d[0] = 0.0;
                }
                let mass = mass_on_tree(seed, d);
                let mut r = numbers(seed + 400);
                let j = SMatrix::<f64, 1, 9>::from_fn(|_, c| if c < 3 { 1.0 + r() } else { 0.0 });
                let f = SVector::<f64, 9>::from_fn(|_, _| r());
                let gamma = SVector::from([r()]);
                let (x, l) = kkt::solve(&mass, &f, &j, &gamma, Some(&TREE)).unwrap();
                let (xd, ld) = kkt::solve(&mass, &f, &j, &gamma, None).unwrap();
                let weight = || crate::linalg::gram::mass_weight(&mass, &j);
                let rho = TreeLdlt::new(&mass, &TREE)
                    .factor_completing(&mass, &j, 3, 1e-8, weight)
                    .unwrap();
                assert_eq!(rho.is_some(), singular);
                assert!((x - xd).amax() < 1e-10 * xd.amax(), "{x} {xd}");
                assert!((l - ld).amax() < 1e-10 * ld.amax().max(1.0), "{l} {ld}");
                // The system itself: M q̈ + Jᵀ λ = f, J q̈ = γ.
                assert!((mass * x + j.transpose() * l - f).amax() < 1e-10);
                let residual = (j * x - gamma).amax();
                assert!(residual < 1e-10, "{residual}");
                // Factored once, it solves as `solve` for this and any other right-hand side.
                let f2 = SVector::<f64, 9>::from_fn(|_, _| r());
                let gamma2 = SVector::from([r()]);
                for tree in [Some(&TREE), None] {
                    let kkt = kkt::Factored::new(&mass, &j, &j, &[false], tree).unwrap();
                    let ((x1, l1), (xs, ls)) = (
                        kkt.solve(&f, &gamma),
                        kkt::solve(&mass, &f, &j, &gamma, tree).unwrap(),
                    );
                    assert!(
                        (x1 - xs).amax() < 1e-13 * xs.amax()
                            && (l1 - ls).amax() < 1e-13 * ls.amax()
                    );
                    let (x2, l2) = kkt.solve(&f2, &gamma2);
                    let scale = mass.amax() * x2.amax() + j.amax() * l2.amax() + f2.amax();
                    assert!((mass * x2 + j.transpose() * l2 - f2).amax() < 1e-12 * scale);
                    assert!((j * x2 - gamma2).amax() < 1e-12 * (j.amax() * x2.amax()));
                }
            }
        }
        // Without constraints a singular matrix has no solution, along the tree as densely.
        let mass = mass_on_tree(7, [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
        let none = SMatrix::<f64, 0, 9>::zeros();
        let f = SVector::<f64, 9>::from_element(1.0);
        assert!(kkt::solve(&mass, &f, &none, &SVector::zeros(), Some(&TREE)).is_err());
        assert!(kkt::solve(&mass, &f, &none, &SVector::zeros(), None).is_err());
    }

    /// The block of the KKT matrix's inverse that takes f to x, formed at once (along the
    /// tree from Z = L⁻ᵀ; densely, by a solve per column) against the factored system's
    /// solve of each unit vector: without constraints, and with one that completes a
    /// singular M or does not need to.
    #[test]
    fn forms_the_inverse_as_the_solves_give_its_columns() {
        for seed in 1..12 {
            for singular in [false, true] {
                let mut d = pivots(seed + 600);
                if singular {
                    d[1] = 0.0;
                }
                let mass = mass_on_tree(seed, d);
                let mut r = numbers(seed + 700);
                let j = SMatrix::<f64, 1, 9>::from_fn(|_, c| if c < 3 { 1.0 + r() } else { 0.0 });
                let none = SMatrix::<f64, 0, 9>::zeros();
                for tree in [Some(&TREE), None] {
                    let mut inverse = SMatrix::<f64, 9, 9>::zeros();
                    let check =
                        |kkt_inverse: &SMatrix<f64, 9, 9>,
                         solve: &dyn Fn(usize) -> SVector<f64, 9>| {
                            for i in 0..9 {
                                let column = solve(i);
                                let off = (kkt_inverse.column(i) - column).amax();
                                assert!(
                                    off < 1e-12 * column.amax().max(1.0),
                                    "{seed} {singular} {i}: {off:e}"
                                );
                            }
                        };
                    let unit =
                        |i: usize| SVector::<f64, 9>::from_fn(|k, _| f64::from(u8::from(k == i)));
                    let kkt = kkt::Factored::new(&mass, &j, &j, &[false], tree).unwrap();
                    kkt.dynamics_inverse_into(&mut inverse);
                    check(&inverse, &|i| kkt.solve(&unit(i), &SVector::zeros()).0);
                    if !singular {
                        let kkt = kkt::Factored::new(&mass, &none, &none, &[], tree).unwrap();
                        kkt.dynamics_inverse_into(&mut inverse);
                        check(&inverse, &|i| kkt.solve(&unit(i), &SVector::zeros()).0);
                        let truth = mass.try_inverse().unwrap();
                        assert!((inverse - truth).amax() < 1e-12 * truth.amax());
                    }
                }
            }
        }
    }

    /// In dual numbers the solution's derivative is the dense solve's, also where an
    /// entry of J is zero and its derivative is not (a symmetric state).
    #[test]
    fn differentiates_as_the_dense_solve_does() {
        for seed in 1..10 {
            let mut r = numbers(seed + 500);
            let mass = mass_on_tree(seed, [0.0, 1.2, 0.8, 1.0, 1.1, 0.9, 1.3, 0.7, 1.0]);
            let dmass = mass_on_tree(seed + 50, pivots(seed));
            let mass =
                SMatrix::<Dual64, 9, 9>::from_fn(|i, k| Dual64::new(mass[(i, k)], dmass[(i, k)]));
            let j = SMatrix::<Dual64, 1, 9>::from_fn(|_, c| match c {
                0 => Dual64::new(1.0 + r(), r()),
                1 => Dual64::new(0.0, 1.0),
                2 => Dual64::new(r(), 0.0),
                _ => Dual64::from(0.0),
            });
            let f = SVector::<Dual64, 9>::from_fn(|_, _| Dual64::new(r(), r()));
            let gamma = SVector::from([Dual64::new(r(), r())]);
            let (x, l) = kkt::solve(&mass, &f, &j, &gamma, Some(&TREE)).unwrap();
            let (xd, ld) = kkt::solve(&mass, &f, &j, &gamma, None).unwrap();
            for (a, b) in x.iter().chain(l.iter()).zip(xd.iter().chain(ld.iter())) {
                let scale = 1.0 + b.re.abs() + b.eps.abs();
                assert!((a.re - b.re).abs() < 1e-9 * scale, "{a} {b}");
                assert!((a.eps - b.eps).abs() < 1e-9 * scale, "{a} {b}");
            }
        }
    }

    /// The debug check of the promise: M's zeros off the tree, J's columns from
    /// `constrained` on, and pairs of a row of J on unrelated coordinates.
    #[test]
    fn a_broken_promise_is_seen() {
        let mass = mass_on_tree(3, pivots(4));
        let none = SMatrix::<f64, 0, 9>::zeros();
        assert!(TREE.holds(&mass, &none));
        let mut off = mass;
        off[(5, 8)] = 1e-3;
        off[(8, 5)] = 1e-3;
        assert!(!TREE.holds(&off, &none));
        let mut j = SMatrix::<f64, 1, 9>::zeros();
        j[(0, 1)] = 1.0;
        j[(0, 2)] = 1.0;
        assert!(TREE.holds(&mass, &j));
        j[(0, 4)] = 1.0;
        assert!(!TREE.holds(&mass, &j), "beyond `constrained`");
        let limbs = MassTree {
            constrained: 9,
            ..TREE
        };
        assert!(limbs.holds(&mass, &j), "4 descends from 1 and 2");
        j[(0, 7)] = 1.0;
        assert!(!limbs.holds(&mass, &j), "4 and 7 are on two limbs");
    }

    #[test]
    fn refuses_a_parent_after_its_child() {
        let tree = MassTree {
            parents: [ROOT, 2, 0],
            constrained: 0,
        };
        assert!(!tree.is_valid());
        assert!(!MassTree {
            parents: [ROOT, 0, 1],
            constrained: 4
        }
        .is_valid());
    }
}
