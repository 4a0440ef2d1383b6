//! The equations of motion with constraints, a KKT (Karush–Kuhn–Tucker) system
//!
//! ```text
//! M q̈ + Jᵀ λ = f
//! J q̈       = γ
//! ```
//!
//! solved in any [`Scalar`] through the Schur complement J M⁻¹ Jᵀ, with the L D Lᵀ of the
//! mass matrix completed by the constraints when it is only semidefinite (see
//! [the constrained module](crate::constrained#semidefinite-mass-matrices)). With K = 0 it
//! is the solve with M alone. One algorithm for every scalar, behind every acceleration
//! (and RATTLE's velocity step, the same system): in `f64` the runtime's diagnosing
//! wrapper (`constrained::solve_diagnosed`) turns an [`Unsolvable`] into the error that
//! names its cause; in dual numbers the solution is differentiated exactly, the multipliers
//! eliminated. [`Factored`] keeps the factorization for many right-hand sides: the implicit
//! derivatives of a solve (the constrained linearization and parameter sensitivities).

use super::tree::{MassTree, TreeLdlt};
use super::{gram, lu, Factor, Ldlt};
use crate::scalar::Scalar;
use crate::tolerances;
use nalgebra::{SMatrix, SVector};

/// Values of this many bytes or more are built on the heap by the derivatives' code paths
/// ([`zeroed_box`], `linearize::built`) rather than in a stack frame: the matrices of a
/// robot of 64 coordinates and more (an N × N matrix of `f64` is 32 KiB at N = 64). In an
/// unoptimized build (Cargo's default `dev` profile) every by-value return and temporary
/// of such a value is a copy in some frame, and a 101-coordinate robot's linearization
/// overflowed a test thread's 2 MiB stack; below, the values stay on the stack, so that
/// small models do not allocate.
pub(crate) const ON_HEAP_FROM: usize = 32 * 1024;

/// Types for which the value whose bits are all zero is a valid one (zero matrices of
/// `f64` and the structs of them), which [`zeroed_box`] allocates directly on the heap.
///
/// # Safety
/// Every bit zero must be a valid value of the type, and the type must not need `Drop`.
pub(crate) unsafe trait Zeroable: Sized {}

// SAFETY: an array of `f64` (and zero-sized markers): all bits zero is 0.0.
unsafe impl<const R: usize, const C: usize> Zeroable for SMatrix<f64, R, C> {}

/// A zero value on the heap, written there directly: `Box::new(SMatrix::zeros())` builds
/// it on the stack first, several times over in an unoptimized build (nalgebra's
/// construction is a chain of calls, each frame with its copy).
pub(crate) fn zeroed_box<T: Zeroable>() -> Box<T> {
    // Never `T` by value in this frame, not even in a branch not taken: an unoptimized
    // build gives it a slot all the same.
    let layout = std::alloc::Layout::new::<T>();
    if layout.size() == 0 {
        // SAFETY: a dangling, aligned pointer is a valid `Box` of a zero-sized type, and
        // its one value is valid (`Zeroable`).
        return unsafe { Box::from_raw(std::ptr::NonNull::<T>::dangling().as_ptr()) };
    }
    // SAFETY: `layout` is `T`'s and not zero-sized, so `alloc_zeroed` may be called with
    // it, and the memory it returns (checked not null) is what `Box::from_raw` takes: from
    // the global allocator, with `T`'s layout, holding a valid `T` (all bits zero, by
    // `Zeroable`'s contract).
    unsafe {
        let memory = std::alloc::alloc_zeroed(layout).cast::<T>();
        if memory.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(memory)
    }
}

/// `f` of a zero `T` it may write: the `T` in `f`'s frame for a small model, on the heap
/// from [`ON_HEAP_FROM`] bytes on (a large model's matrices, each copy of which an
/// unoptimized build keeps in a frame of its own), so that neither costs the other.
pub(crate) fn with_scratch<T: Zeroable, R>(f: impl FnOnce(&mut T) -> R) -> R {
    if size_of::<T>() >= ON_HEAP_FROM {
        f(&mut zeroed_box::<T>())
    } else {
        on_stack(f)
    }
}

/// [`with_scratch`]'s `T` in a frame: a function of its own, so that a large `T`'s
/// monomorphization, which never calls it, never has that frame.
fn on_stack<T: Zeroable, R>(f: impl FnOnce(&mut T) -> R) -> R {
    // SAFETY: all bits zero is a valid `T` (`Zeroable`'s contract).
    let mut value: T = unsafe { std::mem::zeroed() };
    f(&mut value)
}

/// Why [`solve`] found no solution, with what the diagnosis reads.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Unsolvable<S, const K: usize> {
    /// No constraints (K = 0) and M has no L D Lᵀ with clear pivots.
    Mass,
    /// M + ρ JᵀJ has no L D Lᵀ with clear pivots either (or ρ is not finite): M is
    /// indefinite, J is rank deficient, or some velocity is fixed by neither.
    Completed {
        /// The weight that was tried.
        rho: f64,
    },
    /// The Schur complement J M⁻¹ Jᵀ, not finite (an overflow inside M⁻¹ Jᵀ) or found
    /// singular by LU: dependent constraint rows.
    Schur(SMatrix<S, K, K>),
}

/// Whether M alone is too close to singular for the plain path of a solve with
/// constraints (its L D Lᵀ has a pivot at most [`PLAIN_MASS`](crate::tolerances::PLAIN_MASS)
/// times its diagonal entry, or a negligible diagonal entry), so that, for K > 0,
/// [`factor_completed`] factors M + ρ JᵀJ instead. RATTLE (`simulate/rattle.rs`) completes
/// its SHAKE Newton Jacobians by the same test.
pub(crate) fn needs_completion<S: Scalar, const N: usize>(mass: &SMatrix<S, N, N>) -> bool {
    Ldlt::factor_above(mass, tolerances::PLAIN_MASS).is_none()
}

/// The dense factorization of M, or of M + ρ JᵀJ when M alone is too close to singular
/// (with the weight ρ it took). Without constraints the pivot test is
/// [`SINGULAR_MASS`](crate::tolerances::SINGULAR_MASS); with them, the plain path needs
/// [`PLAIN_MASS`](crate::tolerances::PLAIN_MASS) and the completed matrix the former.
/// Along a tree, [`TreeLdlt::factor_completing`] makes the same choice.
#[inline]
fn factor_completed<S: Scalar, const N: usize, const K: usize>(
    mass: &SMatrix<S, N, N>,
    j: &SMatrix<S, K, N>,
) -> Result<(Ldlt<S, N>, Option<f64>), Unsolvable<S, K>> {
    if let Some(ldlt) = Ldlt::factor_above(mass, plain::<K>()) {
        return Ok((ldlt, None));
    }
    if K == 0 {
        return Err(Unsolvable::Mass);
    }
    let rho = gram::mass_weight(mass, j);
    if !rho.is_finite() {
        return Err(Unsolvable::Completed { rho });
    }
    match Ldlt::factor(&completed(mass, j, rho)) {
        Some(ldlt) => Ok((ldlt, Some(rho))),
        None => Err(Unsolvable::Completed { rho }),
    }
}

/// What a debug build says of a [`MassTree`] that does not hold.
const BROKEN_TREE: &str = "Model::MASS_TREE does not hold: the mass matrix or JᵀJ has a \
     nonzero entry between two coordinates of which neither is an ancestor of the other, or \
     a constraint involves a coordinate from `constrained` on";

/// The pivot test of M's own factorization: [`SINGULAR_MASS`](crate::tolerances::SINGULAR_MASS)
/// without constraints, [`PLAIN_MASS`](crate::tolerances::PLAIN_MASS) with them.
fn plain<const K: usize>() -> f64 {
    if K == 0 {
        tolerances::SINGULAR_MASS
    } else {
        tolerances::PLAIN_MASS
    }
}

/// M + ρ JᵀJ, in one copy of M without N×N temporaries (and exactly symmetric): the
/// matrix [`factor_completed`] factors, the one its failure is diagnosed on, and RATTLE's
/// completed Newton Jacobian.
pub(crate) fn completed<S: Scalar, const N: usize, const K: usize>(
    mass: &SMatrix<S, N, N>,
    j: &SMatrix<S, K, N>,
    rho: f64,
) -> SMatrix<S, N, N> {
    let mut completed = *mass;
    let weight = S::from(rho);
    for r in 0..K {
        let row: [S; N] = std::array::from_fn(|c| j[(r, c)]);
        for (column, &jb) in completed.as_mut_slice().chunks_exact_mut(N).zip(&row) {
            for (x, &ja) in column.iter_mut().zip(&row) {
                *x += ja * jb * weight;
            }
        }
    }
    completed
}

/// q̈ and λ of `M q̈ + Jᵀ λ = f, J q̈ = γ` (for K = 0, q̈ = M⁻¹ f): M factored along the
/// model's `tree` when it has a valid one ([`TreeLdlt`], in place, the tree covering
/// the constraints' columns too), else densely ([`factor_completed`]), completed by
/// ρ JᵀJ when only semidefinite (which adds ρ Jᵀ γ to f, cancelled by J q̈ = γ); then λ
/// from the Schur complement J M⁻¹ Jᵀ by LU.
#[inline]
pub(crate) fn solve<S: Scalar, const N: usize, const K: usize>(
    mass: &SMatrix<S, N, N>,
    f: &SVector<S, N>,
    j: &SMatrix<S, K, N>,
    gamma: &SVector<S, K>,
    tree: Option<&MassTree<N>>,
) -> Result<(SVector<S, N>, SVector<S, K>), Unsolvable<S, K>> {
    if let Some(tree) = tree.filter(|t| t.is_valid()) {
        let mut factor = TreeLdlt::new(mass, tree);
        let rho = factor_along(&mut factor, mass, j, tree)?;
        return solve_factored(|x| factor.solve(x), rho, f, j, gamma);
    }
    let (factor, rho) = factor_completed(mass, j)?;
    solve_factored(|x| factor.solve(x), rho, f, j, gamma)
}

/// Factors `factor`, the working copy of `mass` along `tree`, as [`solve`] does: M's own
/// pivots where they pass, else M + ρ JᵀJ with ρ from the mass weight of `j`
/// ([`TreeLdlt::factor_completing`]); ρ, or why neither factors. In place: a large
/// model's factor is not moved through another frame.
fn factor_along<S: Scalar, const N: usize, const K: usize>(
    factor: &mut TreeLdlt<S, N>,
    mass: &SMatrix<S, N, N>,
    j: &SMatrix<S, K, N>,
    tree: &MassTree<N>,
) -> Result<Option<f64>, Unsolvable<S, K>> {
    debug_assert!(tree.holds(mass, j), "{BROKEN_TREE}");
    let weight = || gram::mass_weight(mass, j);
    factor
        .factor_completing(mass, j, tree.constrained, plain::<K>(), weight)
        .map_err(|rho| match rho {
            Some(rho) => Unsolvable::Completed { rho },
            None => Unsolvable::Mass,
        })
}

/// [`solve`], keeping what it factored for more right-hand sides ([`Factored`]): the same
/// factorization, choices, failures and numbers as `solve`, not [`Factored::new`]'s (which
/// falls back to a dense factorization where the tree's fails), so that the implicit
/// derivatives of a solve factor its KKT matrix once.
#[allow(clippy::type_complexity)]
pub(crate) fn solve_keeping<S: Scalar, const N: usize, const K: usize>(
    mass: &SMatrix<S, N, N>,
    f: &SVector<S, N>,
    j: &SMatrix<S, K, N>,
    gamma: &SVector<S, K>,
    tree: Option<&MassTree<N>>,
) -> Result<(SVector<S, N>, SVector<S, K>, Factored<S, N, K>), Unsolvable<S, K>> {
    let (factor, rho) = if let Some(tree) = tree.filter(|t| t.is_valid()) {
        let mut factor = TreeLdlt::new(mass, tree);
        let rho = factor_along(&mut factor, mass, j, tree)?;
        (AnyFactor::Tree(factor), rho)
    } else {
        let (factor, rho) = factor_completed(mass, j)?;
        (AnyFactor::Dense(factor), rho)
    };
    let (x, lambda) = solve_factored(|x| factor.solve(x), rho, f, j, gamma)?;
    let completion = Completion { rho, rows: K };
    let kept = Factored::from_factor(factor, completion, j, &[false; K])?;
    Ok((x, lambda, kept))
}

/// The rest of [`solve`], given the factorization's solve and the completion's weight.
#[inline]
fn solve_factored<S: Scalar, const N: usize, const K: usize>(
    solve: impl Fn(&SVector<S, N>) -> SVector<S, N>,
    rho: Option<f64>,
    f: &SVector<S, N>,
    j: &SMatrix<S, K, N>,
    gamma: &SVector<S, K>,
) -> Result<(SVector<S, N>, SVector<S, K>), Unsolvable<S, K>> {
    let free = solve(&completed_rhs(f, rho, j, gamma));
    if K == 0 {
        return Ok((free, SVector::zeros()));
    }
    let mut y = SMatrix::<S, N, K>::zeros();
    for k in 0..K {
        y.set_column(k, &solve(&j.row(k).transpose()));
    }
    let schur = j * y;
    if schur.iter().any(|x| !x.re().is_finite()) {
        return Err(Unsolvable::Schur(schur));
    }
    match lu::solve(schur, j * free - gamma) {
        Some(lambda) => Ok((free - y * lambda, lambda)),
        None => Err(Unsolvable::Schur(schur)),
    }
}

/// The KKT matrix `[M Jᵀ; J 0]` factored once, for many right-hand sides: M as [`reduce`]
/// factors it (along the tree, or densely, completed when only semidefinite), M⁻¹ Jᵀ and
/// the LU of the Schur complement J M⁻¹ Jᵀ kept, the idle rows' multipliers zero (a 1 on
/// their diagonal). The implicit derivatives of a constrained solve are one solve with it
/// per direction (`linearize`, with the model's own rows; `contact::linearize`, with the
/// active contacts' under them).
pub(crate) struct Factored<S, const N: usize, const R: usize> {
    factor: AnyFactor<S, N>,
    completion: Completion,
    j: SMatrix<S, R, N>,
    /// M⁻¹ Jᵀ (of the completed M where it was completed).
    y: SMatrix<S, N, R>,
    schur: lu::Lu<S, R>,
}

impl<S: Scalar, const N: usize, const R: usize> Factored<S, N, R> {
    /// The factorization of `[M Jᵀ; J 0]` for J = `j`, whose first K rows are the model's
    /// own, `own` (all of them for a model without contacts), and whose rows flagged in
    /// `idle` are zero and carry no multiplier: the choices and the failures of [`reduce`]
    /// (of [`solve`] when `own` is `j`), the Schur complement's by LU.
    pub(crate) fn new<const K: usize>(
        mass: &SMatrix<S, N, N>,
        own: &SMatrix<S, K, N>,
        j: &SMatrix<S, R, N>,
        idle: &[bool; R],
        tree: Option<&MassTree<N>>,
    ) -> Result<Self, Unsolvable<S, R>> {
        let (factor, completion) = factor_for(mass, own, j, tree)?;
        Self::from_factor(factor, completion, j, idle)
    }

    /// The rest of [`new`](Self::new), given M's factorization and how it was completed.
    fn from_factor(
        factor: AnyFactor<S, N>,
        completion: Completion,
        j: &SMatrix<S, R, N>,
        idle: &[bool; R],
    ) -> Result<Self, Unsolvable<S, R>> {
        let mut y = SMatrix::<S, N, R>::zeros();
        for r in 0..R {
            y.set_column(r, &factor.solve(&j.row(r).transpose()));
        }
        let mut schur = j * y;
        for r in (0..R).filter(|&r| idle[r]) {
            schur[(r, r)] = S::one();
        }
        if schur.iter().any(|x| !x.re().is_finite()) {
            return Err(Unsolvable::Schur(schur));
        }
        let Some(lu) = lu::Lu::factor(schur) else {
            return Err(Unsolvable::Schur(schur));
        };
        Ok(Factored {
            factor,
            completion,
            j: *j,
            y,
            schur: lu,
        })
    }

    /// The part of the inverse of `[M Jᵀ; J 0]` that takes f to x (with γ = 0), into
    /// `out`: M̃⁻¹ − Y S⁻¹ Yᵀ, M̃ the factored (completed) M, Y = M̃⁻¹ Jᵀ and S = J Y, as
    /// [`solve`](Self::solve) applies it (completing f with ρ J_cᵀ γ_c adds nothing for
    /// γ = 0, and J M̃⁻¹ = Yᵀ), without a solve per column.
    pub(crate) fn dynamics_inverse_into(&self, out: &mut SMatrix<S, N, N>) {
        self.factor.inverse_into(out);
        if R > 0 {
            let t = self.schur.solve_columns(&self.y.transpose());
            out.gemm(-S::one(), &self.y, &t, S::one());
        }
    }

    /// x and λ of `M x + Jᵀ λ = f, J x = γ` (γ zero on the idle rows).
    pub(crate) fn solve(
        &self,
        f: &SVector<S, N>,
        gamma: &SVector<S, R>,
    ) -> (SVector<S, N>, SVector<S, R>) {
        let free = self.factor.solve(&self.completion.rhs(f, &self.j, gamma));
        if R == 0 {
            return (free, SVector::zeros());
        }
        let lambda = self.schur.solve(&(self.j * free - gamma));
        (free - self.y * lambda, lambda)
    }
}

/// How M was completed: not at all, or by ρ J_cᵀ J_c with J_c the first `rows` rows of J.
#[derive(Clone, Copy)]
struct Completion {
    rho: Option<f64>,
    rows: usize,
}

impl Completion {
    /// f + ρ J_cᵀ γ_c ([`completed_rhs`] with the rows that completed M).
    fn rhs<S: Scalar, const N: usize, const R: usize>(
        &self,
        f: &SVector<S, N>,
        j: &SMatrix<S, R, N>,
        gamma: &SVector<S, R>,
    ) -> SVector<S, N> {
        let Some(rho) = self.rho else {
            return *f;
        };
        let mut out = *f;
        for r in 0..self.rows {
            out += j.row(r).transpose() * (S::from(rho) * gamma[r]);
        }
        out
    }
}

/// M factored for the rows `j` whose first K are the model's own, `own`: along `tree` when
/// it has a valid one, else densely, completed when only semidefinite by `own` alone (the
/// tree promises their structure, not the others'; the other rows enter only through
/// solves with the factor); where that fails, densely completed by every row (a velocity
/// that only a contact determines), or why not.
fn factor_for<S: Scalar, const N: usize, const K: usize, const R: usize>(
    mass: &SMatrix<S, N, N>,
    own: &SMatrix<S, K, N>,
    j: &SMatrix<S, R, N>,
    tree: Option<&MassTree<N>>,
) -> Result<(AnyFactor<S, N>, Completion), Unsolvable<S, R>> {
    let by_own = |rho| Completion { rho, rows: K };
    if let Some(tree) = tree.filter(|t| t.is_valid()) {
        let mut factor = TreeLdlt::new(mass, tree);
        if let Ok(rho) = factor_along(&mut factor, mass, own, tree) {
            return Ok((AnyFactor::Tree(factor), by_own(rho)));
        }
    } else if let Ok((factor, rho)) = factor_completed(mass, own) {
        return Ok((AnyFactor::Dense(factor), by_own(rho)));
    }
    let (factor, rho) = factor_completed(mass, j)?;
    Ok((AnyFactor::Dense(factor), Completion { rho, rows: R }))
}

impl<S: Scalar, const N: usize> AnyFactor<S, N> {
    fn solve(&self, rhs: &SVector<S, N>) -> SVector<S, N> {
        match self {
            AnyFactor::Tree(f) => f.solve(rhs),
            AnyFactor::Dense(f) => f.solve(rhs),
        }
    }

    /// M⁻¹ (of the completed M where it was completed) into `out`: along the tree, or a
    /// solve per column.
    fn inverse_into(&self, out: &mut SMatrix<S, N, N>) {
        match self {
            AnyFactor::Tree(f) => f.inverse_into(out),
            AnyFactor::Dense(f) => {
                for i in 0..N {
                    let mut e = SVector::<S, N>::zeros();
                    e[i] = S::one();
                    out.set_column(i, &f.solve(&e));
                }
            }
        }
    }
}

/// `M x + Jᵀ λ = f, J x = γ` reduced to the multipliers, for the contacts: `schur` λ =
/// `rhs` (J M⁻¹ Jᵀ and J M⁻¹ f − γ, f completed where M was), and x from λ
/// ([`accelerations`](Reduced::accelerations)) by one more solve.
pub(crate) struct Reduced<S, const N: usize, const R: usize> {
    pub(crate) schur: SMatrix<S, R, R>,
    pub(crate) rhs: SVector<S, R>,
    f: SVector<S, N>,
    factor: AnyFactor<S, N>,
}

enum AnyFactor<S, const N: usize> {
    Tree(TreeLdlt<S, N>),
    Dense(Ldlt<S, N>),
}

impl<S: Scalar, const N: usize, const R: usize> Reduced<S, N, R> {
    /// x = M⁻¹ (f − Jᵀ λ) for the multipliers `lambda` (J the rows it was reduced with).
    pub(crate) fn accelerations(
        &self,
        j: &SMatrix<S, R, N>,
        lambda: &SVector<S, R>,
    ) -> SVector<S, N> {
        self.factor.solve(&(self.f - j.transpose() * lambda))
    }

    /// J M⁻¹ Jᵀ and J M⁻¹ f − γ with `factor` of M (or of its completion, `f` completed
    /// with it).
    fn schur_and_rhs<F: Factor<S, N>>(
        factor: &F,
        f: SVector<S, N>,
        j: &SMatrix<S, R, N>,
        gamma: &SVector<S, R>,
    ) -> (SMatrix<S, R, R>, SVector<S, R>) {
        let free = factor.solve(&f);
        let mut z = SMatrix::<S, N, R>::zeros();
        for r in 0..R {
            z.set_column(r, &factor.half(&j.row(r).transpose()));
        }
        let inv = factor.inverse_pivots();
        let mut schur = SMatrix::<S, R, R>::zeros();
        for a in 0..R {
            for b in 0..=a {
                let mut sum = S::zero();
                for (i, &d) in inv.iter().enumerate() {
                    sum += z[(i, a)] * d * z[(i, b)];
                }
                schur[(a, b)] = sum;
                schur[(b, a)] = sum;
            }
        }
        (schur, j * free - gamma)
    }
}

/// [`Reduced`] for J = the model's own rows `own` (J's first K rows, their γ the first K
/// of `gamma`) over others that the model's tree knows nothing of (contacts): M factored
/// as [`factor_for`] does, f completed with it.
pub(crate) fn reduce<S: Scalar, const N: usize, const K: usize, const R: usize>(
    mass: &SMatrix<S, N, N>,
    f: &SVector<S, N>,
    own: &SMatrix<S, K, N>,
    j: &SMatrix<S, R, N>,
    gamma: &SVector<S, R>,
    tree: Option<&MassTree<N>>,
) -> Result<Reduced<S, N, R>, Unsolvable<S, R>> {
    let (factor, completion) = factor_for(mass, own, j, tree)?;
    let f = completion.rhs(f, j, gamma);
    let (schur, rhs) = match &factor {
        AnyFactor::Tree(x) => Reduced::schur_and_rhs(x, f, j, gamma),
        AnyFactor::Dense(x) => Reduced::schur_and_rhs(x, f, j, gamma),
    };
    Ok(Reduced {
        schur,
        rhs,
        f,
        factor,
    })
}

/// f + ρ Jᵀ γ, what the completion of M by ρ JᵀJ adds to the right-hand side (cancelled by
/// J q̈ = γ); f itself without completion.
fn completed_rhs<S: Scalar, const N: usize, const K: usize>(
    f: &SVector<S, N>,
    rho: Option<f64>,
    j: &SMatrix<S, K, N>,
    gamma: &SVector<S, K>,
) -> SVector<S, N> {
    match rho {
        None => *f,
        Some(rho) => f + j.transpose() * S::from(rho) * gamma,
    }
}
