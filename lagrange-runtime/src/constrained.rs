//! Constrained models: the Lagrange equations of the first kind.
//!
//! With K constraints whose velocity forms are v = J(q, t) q̇ + j(q, t) (J = Φ_q for
//! holonomic constraints, A for nonholonomic ones), the accelerations and multipliers solve
//!
//! ```text
//! M q̈ + Jᵀ λ = ∂L/∂q − ∂²L/∂q̇∂q q̇ − ∂²L/∂q̇∂t + Q
//! J q̈       = γ,      γ = −(∂v/∂q q̇ + ∂v/∂t)
//! ```
//!
//! the constraints differentiated to acceleration level. The constraint force on the
//! coordinates is −Jᵀλ (DSL sign convention, as in m r̈ = F − Σ λ ∂f/∂r). The system is solved
//! through the Schur complement J M⁻¹ Jᵀ with the Cholesky factor of the mass matrix;
//! γ comes from one dual pass along (q̇, 1) in (q, t), J from one pass over q̇. Nothing
//! allocates, except the errors that name coordinates or constraints.
//!
//! # Semidefinite mass matrices
//!
//! M need not be positive definite by itself: quaternion coordinates (whose kinetic energy
//! ignores the quaternion's length), a coordinate that only the constraints determine. What
//! the equations need is the KKT matrix `[M Jᵀ; J 0]` nonsingular, that is J of full rank
//! and M positive definite on the velocities the constraints allow (J v = 0). When the
//! factorization of M fails or is ill-conditioned (a pivot below 10⁻⁸ of its diagonal
//! entry), the solver completes M with the constraints:
//!
//! ```text
//! (M + ρ JᵀJ) q̈ + Jᵀ λ = rest + ρ Jᵀ γ,      J q̈ = γ
//! ```
//!
//! has exactly the solution of the original system (the added terms cancel because
//! J q̈ = γ), and M + ρ JᵀJ is positive definite precisely when the KKT matrix is
//! nonsingular (for M positive semidefinite). ρ = max|M| / max|J|² makes the two terms
//! of the same size. The positive definite case takes the plain path, unchanged.
//!
//! These functions take the number of constraints `K` as a const parameter. The blanket
//! impls of [`Dynamics`] and [`ConstraintSolver`], for every `T: Model<N, M>`, call them
//! with the model's own K through [`ConstraintCount::with`] (see [`model`](crate::model)),
//! as any generic code over `T: Model<N, M>` can; that of
//! [`Constrained<N, M, K>`](crate::Constrained) reads K from `Constraints = Count<K>`. A
//! model with no constraints takes the unconstrained solve.

use crate::dual_passes::{gamma, velocity_terms_in};
use crate::dynamics::{ConstraintSolver, Dynamics};
pub use crate::dynamics::{Stabilization, Violation};
use crate::error::DynamicsError;
use crate::eval::{check_state, equations};
use crate::linalg::{self, factor_mass, kkt::Unsolvable};
use crate::model::{ConstraintCount, ConstraintKinds, Equations, Level, Model, Point, WithCount};
use crate::rounding::Rounded;
use crate::{tolerances, State};
use nalgebra::{Const, SMatrix, SVector, U1};
use num_dual::DualSVec;
use std::array::from_fn;

/// The constraints as written: φ(q, t) for holonomic ones, A q̇ + b for nonholonomic ones.
pub(crate) fn residuals<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> SVector<f64, K> {
    let mut out = SVector::zeros();
    model.eval_constraints(Level::Position, &Point::new(s, u), |k, v| {
        set(&mut out, k, v);
    });
    out
}

fn set<const K: usize>(out: &mut SVector<f64, K>, k: usize, v: f64) {
    if let Some(slot) = out.get_mut(k) {
        *slot = v;
    }
}

/// The velocity forms v = J q̇ + j and the Jacobian J = ∂v/∂q̇, from one pass over q̇.
pub fn velocity_terms<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> (SVector<f64, K>, SMatrix<f64, K, N>) {
    velocity_terms_in(model, &Point::new(s, u))
}

/// The holonomic residuals φ and their Jacobian ∂φ/∂q; nonholonomic rows are zero.
pub(crate) fn position_terms<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    t: f64,
    q: &SVector<f64, N>,
    u: &SVector<f64, M>,
) -> (SVector<f64, K>, SMatrix<f64, K, N>) {
    let (mut phi, mut j) = (SVector::zeros(), SMatrix::<f64, K, N>::zeros());
    let x = Point {
        t: DualSVec::from_re(t),
        q: from_fn(|i| DualSVec::from_re(q[i]).derivative(i)),
        qd: [DualSVec::from_re(0.0); N],
        u: u.map(DualSVec::from_re).into(),
    };
    model.eval_constraints(Level::Position, &x, |k, c| {
        if k < K && T::holonomic(k) {
            phi[k] = c.re;
            j.set_row(k, &c.eps.unwrap_generic(Const::<N>, U1).transpose());
        }
    });
    (phi, j)
}

/// The Jacobian of the constraints in the state x = (q, q̇), `(2K) × 2N` with its rows
/// in two blocks: the holonomic constraints at position level `[∂φ/∂q, 0]` (zero rows for
/// nonholonomic ones), then every constraint at velocity level `[∂v/∂q, ∂v/∂q̇]`. The
/// state space of the constrained model is the manifold where they vanish; the nonzero
/// rows span the normal space of its tangent.
fn state_jacobian<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> nalgebra::DMatrix<f64> {
    let (_, position) = position_terms::<T, N, M, K>(model, s.t, &s.q, u);
    let (_, velocity) = velocity_terms::<T, N, M, K>(model, s, u);
    let x = Point {
        q: from_fn(|i| DualSVec::from_re(s.q[i]).derivative(i)),
        ..Point::new(s, u).map(DualSVec::from_re)
    };
    let mut c = nalgebra::DMatrix::zeros(2 * K, 2 * N);
    c.view_mut((0, 0), (K, N)).copy_from(&position);
    c.view_mut((K, N), (K, N)).copy_from(&velocity);
    model.eval_constraints(Level::Velocity, &x, |k, v| {
        if k < K {
            let row: SVector<f64, N> = v.eps.unwrap_generic(Const::<N>, U1);
            c.view_mut((K + k, 0), (1, N)).copy_from(&row.transpose());
        }
    });
    c
}

/// [`state_jacobian`] with the model's own number of constraints, its zero rows (the
/// nonholonomic constraints at position level) removed: `0 × 2N` without constraints.
pub(crate) fn constraints_in_state<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> nalgebra::DMatrix<f64> {
    let c = T::Constraints::with(StateJacobian { model, s, u });
    let kept: Vec<usize> = (0..c.nrows())
        .filter(|&k| k >= c.nrows() / 2 || T::holonomic(k))
        .collect();
    c.select_rows(&kept)
}

/// The solution of the constrained equations of motion at one state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Solution<const N: usize, const K: usize> {
    /// q̈.
    pub accelerations: SVector<f64, N>,
    /// λ, one per constraint; the constraint force on the coordinates is −Jᵀλ.
    pub multipliers: SVector<f64, K>,
}

/// The accelerations and the multipliers λ, optionally with Baumgarte stabilization.
///
/// # Errors
/// As [`Dynamics::accelerations`],
/// [`DynamicsError::RedundantConstraints`] naming the constraints whose Jacobian rows are
/// dependent, and [`DynamicsError::InvalidSetting`] for gains that
/// [`Stabilization::check`] refuses.
#[deprecated(
    note = "call `Dynamics::accelerations` (or `ConstraintSolver::stabilized_accelerations`) and `Constrained::multipliers`"
)]
pub fn solve<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    stabilization: Option<Stabilization>,
) -> Result<Solution<N, K>, DynamicsError> {
    solution::<T, N, M, K>(model, s, u, stabilization)
}

/// The accelerations and the multipliers λ, optionally with Baumgarte stabilization: what
/// [`Dynamics::accelerations`], [`ConstraintSolver::stabilized_accelerations`],
/// [`Constrained::multipliers`](crate::Constrained::multipliers) and
/// [`ConstraintSolver::reaction_forces`] return a part of.
///
/// # Errors
/// As [`Dynamics::accelerations`],
/// [`DynamicsError::RedundantConstraints`] naming the constraints whose Jacobian rows are
/// dependent, and [`DynamicsError::InvalidSetting`] for gains that
/// [`Stabilization::check`] refuses.
pub(crate) fn solution<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    stabilization: Option<Stabilization>,
) -> Result<Solution<N, K>, DynamicsError> {
    let tree = T::MASS_TREE;
    solved::<T, N, M, K, ()>(model, s, u, stabilization, |mass, f, j, gamma| {
        linalg::kkt::solve(mass, f, j, gamma, tree.as_ref()).map(|(x, lambda)| (x, lambda, ()))
    })
    .map(|(solution, ())| solution)
}

/// [`solution`] without stabilization, with the KKT matrix it factored kept for more
/// right-hand sides: what the implicit derivatives of the solve (`linearize`) solve with.
pub(crate) fn solution_and_factored<
    T: Model<N, M>,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> Result<(Solution<N, K>, linalg::kkt::Factored<f64, N, K>), DynamicsError> {
    let tree = T::MASS_TREE;
    solved::<T, N, M, K, _>(model, s, u, None, |mass, f, j, gamma| {
        linalg::kkt::solve_keeping(mass, f, j, gamma, tree.as_ref())
    })
}

/// The solution at `s`, `u` by `solve` (q̈, λ and what else it keeps), its failures
/// diagnosed as [`solve_diagnosed`]'s.
fn solved<T: Model<N, M>, const N: usize, const M: usize, const K: usize, X>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    stabilization: Option<Stabilization>,
    solve: impl FnOnce(
        &SMatrix<f64, N, N>,
        &SVector<f64, N>,
        &SMatrix<f64, K, N>,
        &SVector<f64, K>,
    ) -> Result<(SVector<f64, N>, SVector<f64, K>, X), Unsolvable<f64, K>>,
) -> Result<(Solution<N, K>, X), DynamicsError> {
    if let Some(gains) = stabilization {
        gains.check()?;
    }
    check_state::<T, N, M>(s, u)?;
    let Equations {
        mass,
        bias: rhs,
        lagrangian: value,
        ..
    } = equations(model, s, u);
    if !value.is_finite() {
        return Err(DynamicsError::NonFiniteResult {
            quantity: "Lagrangian",
        });
    }
    finite(&mass, "mass matrix")?;
    let (j, gamma) = rows_and_targets::<T, N, M, K>(model, s, u, stabilization);
    finite(&rhs, "forces of the equations of motion")?;
    finite(&j, "constraint Jacobian")?;
    finite(&gamma, "constraints differentiated to acceleration level")?;
    let (qdd, lambda, kept) = solve(&mass, &rhs, &j, &gamma).map_err(|e| {
        here_or_everywhere::<T, N, M, K>(model, s, u, why_unsolvable::<T, N, M, K>(&mass, &j, e))
    })?;
    finite(&qdd, "accelerations")?;
    finite(&lambda, "constraint multipliers")?;
    let solution = Solution {
        accelerations: qdd,
        multipliers: lambda,
    };
    Ok((solution, kept))
}

/// [`linalg::kkt::solve`] in `f64`, or why it has no solution: which velocities neither
/// the kinetic energy nor the constraints determine, which constraints are redundant, an
/// indefinite mass matrix, or a non-finite Schur complement.
pub(crate) fn solve_diagnosed<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    mass: &SMatrix<f64, N, N>,
    f: &SVector<f64, N>,
    j: &SMatrix<f64, K, N>,
    gamma: &SVector<f64, K>,
) -> Result<(SVector<f64, N>, SVector<f64, K>), DynamicsError> {
    linalg::kkt::solve(mass, f, j, gamma, T::MASS_TREE.as_ref())
        .map_err(|e| why_unsolvable::<T, N, M, K>(mass, j, e))
}

/// The diagnosis of the one constrained solve ([`linalg::kkt`]) in `f64`: why it found no
/// solution, in the words of a [`DynamicsError`] (which coordinate's velocity is missing,
/// which constraints are redundant, an indefinite or a non-finite matrix).
fn why_unsolvable<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    mass: &SMatrix<f64, N, N>,
    j: &SMatrix<f64, K, N>,
    unsolvable: Unsolvable<f64, K>,
) -> DynamicsError {
    match unsolvable {
        Unsolvable::Mass => factor_mass(mass, &T::COORDINATES)
            .err()
            .unwrap_or(DynamicsError::SingularMassMatrix),
        Unsolvable::Completed { rho } => {
            ill_posed::<T, N, M, K>(mass, j, &linalg::kkt::completed(mass, j, rho))
        }
        Unsolvable::Schur(schur) => finite(&schur, "constraint Schur complement J M⁻¹ Jᵀ")
            .err()
            .unwrap_or_else(|| redundant::<T, N, M, K>(&schur)),
    }
}

/// Why `[M Jᵀ; J 0]` is singular although M + ρ JᵀJ was tried: an indefinite M, dependent
/// constraint rows, or a combination of velocities that neither T nor the constraints
/// fix (named by the coordinates it involves: the null vector of M + ρ JᵀJ).
fn ill_posed<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    mass: &SMatrix<f64, N, N>,
    j: &SMatrix<f64, K, N>,
    completed: &SMatrix<f64, N, N>,
) -> DynamicsError {
    let scale = completed.amax().max(f64::MIN_POSITIVE);
    let eigen = nalgebra::DMatrix::from_column_slice(N, N, completed.as_slice()).symmetric_eigen();
    let smallest = eigen.eigenvalues.imin();
    if eigen.eigenvalues[smallest] < -tolerances::SINGULAR_MASS * scale {
        let shifted = mass + SMatrix::<f64, N, N>::identity() * (tolerances::SINGULAR_MASS * scale);
        if shifted.cholesky().is_none() {
            return DynamicsError::IndefiniteMassMatrix;
        }
    }
    let gram = j * j.transpose();
    if linalg::Lu::factor(gram).is_none() {
        return redundant::<T, N, M, K>(&gram);
    }
    let null = eigen.eigenvectors.column(smallest);
    let largest = null.amax();
    let coordinates: Vec<&'static str> = (0..N)
        .filter(|&i| null[i].abs() > tolerances::NULL_COMPONENT * largest)
        .map(|i| T::COORDINATES[i])
        .collect();
    match coordinates[..] {
        [coordinate] => DynamicsError::MissingVelocity { coordinate },
        _ => DynamicsError::UndeterminedVelocities { coordinates },
    }
}

/// A dependency of the constraint rows found at `s` (`error`, a
/// [`DynamicsError::RedundantConstraints`]; any other error is returned as it is), told
/// apart: [`DynamicsError::SingularConstraints`] when the rows are independent at a state
/// on the constraints nearby (a kinematic singularity: a linkage at a dead point), else
/// redundant everywhere. The nearby states are `s` moved by 10⁻³ of its size in three fixed
/// directions and projected onto the constraints.
fn here_or_everywhere<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    error: DynamicsError,
) -> DynamicsError {
    let DynamicsError::RedundantConstraints { constraints } = error else {
        return error;
    };
    let size = tolerances::NEARBY_STATE * s.q.amax().max(1.0);
    for k in 0..3 {
        // Fixed, irregular directions (no randomness: the same error every time).
        let dq = SVector::<f64, N>::from_fn(|i, _| size * (1.0 + (i * 7 + k * 13) as f64).sin());
        let near = State::new(s.t, s.q + dq, s.qd);
        let Ok(on) = project::<T, N, M, K>(model, &near, u, &[], tolerances::PROJECTED_TOLERANCE)
        else {
            continue;
        };
        let (_, j) = velocity_terms::<T, N, M, K>(model, &on, u);
        if linalg::Lu::factor(j * j.transpose()).is_some() {
            return DynamicsError::SingularConstraints { constraints };
        }
    }
    DynamicsError::RedundantConstraints { constraints }
}

/// Names the constraints in a dependency: those whose replacement by a trivial equation
/// makes the system solvable (all of them when no single one does).
fn redundant<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    schur: &SMatrix<f64, K, K>,
) -> DynamicsError {
    let name = |i: usize| T::CONSTRAINT_NAMES.get(i).copied().unwrap_or("?");
    DynamicsError::RedundantConstraints {
        constraints: dependent_rows(schur, 0..K).into_iter().map(name).collect(),
    }
}

/// The rows among `candidates` in a dependency of the singular `matrix` (a Schur
/// complement or a Gram matrix of constraint rows): those whose replacement by a trivial
/// equation makes it regular (every candidate when no single one does).
pub(crate) fn dependent_rows<const K: usize>(
    matrix: &SMatrix<f64, K, K>,
    candidates: impl Iterator<Item = usize> + Clone,
) -> Vec<usize> {
    let involved: Vec<usize> = candidates
        .clone()
        .filter(|&i| {
            let mut reduced = *matrix;
            reduced.row_mut(i).fill(0.0);
            reduced.column_mut(i).fill(0.0);
            reduced[(i, i)] = matrix.diagonal().amax().max(1.0);
            crate::linalg::solve(reduced, SVector::zeros()).is_some()
        })
        .collect();
    if involved.is_empty() {
        candidates.collect()
    } else {
        involved
    }
}

/// [`ConstraintSolver::project`] with the model's K.
pub(crate) fn project<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    hold: &[usize],
    tolerance: f64,
) -> Result<State<N>, DynamicsError> {
    check_projection::<N>(hold, tolerance).map_err(DynamicsError::InvalidSetting)?;
    check_state::<T, N, M>(s, u)?;
    let free =
        SMatrix::<f64, N, N>::from_fn(|i, j| f64::from(u8::from(i == j && !hold.contains(&i))));
    let mut q = s.q;
    let mut residual = f64::INFINITY;
    let mut converged = false;
    for _ in 0..tolerances::PROJECTION_ITERATIONS {
        let (phi, j) = position_terms::<T, N, M, K>(model, s.t, &q, u);
        finite(&phi, "constraint residuals")?;
        finite(&j, "constraint Jacobian")?;
        residual = phi.amax();
        // Relative to max|∂φ_k/∂q| max|q| as before, or within a few times the rounding
        // bound of φ_k, which no Newton step can get below (at q = 0 the first is 0).
        let at = State::new(s.t, q, SVector::zeros());
        let floor = rounding_bounds::<T, N, M, K>(model, &at, u, Level::Position)
            * tolerances::ROUNDING_FLOOR;
        let scale = scales(&j, &q);
        converged = (0..K).all(|k| phi[k].abs() <= tolerance * scale[k] + floor[k]);
        if converged {
            break;
        }
        let jf = j * free;
        let g = linalg::gram_with_idle_rows(&jf);
        finite(&g, "constraint Gram matrix J Jᵀ")?;
        let y = crate::linalg::solve(g, phi).ok_or_else(|| redundant::<T, N, M, K>(&g))?;
        q -= jf.transpose() * y;
        finite(&q, "projected coordinates")?;
    }
    if !converged {
        return Err(DynamicsError::ProjectionFailed { residual });
    }
    let at = State::new(s.t, q, s.qd);
    let (v, j) = velocity_terms::<T, N, M, K>(model, &at, u);
    finite(&v, "constraint velocity residuals")?;
    finite(&j, "constraint Jacobian")?;
    let jf = j * free;
    let g = linalg::gram_with_idle_rows(&jf);
    let y = crate::linalg::solve(g, v).ok_or_else(|| redundant::<T, N, M, K>(&g))?;
    let qd = s.qd - jf.transpose() * y;
    finite(&qd, "projected velocities")?;
    // A constraint on held coordinates only (a driving constraint with the driven
    // coordinate held) gets no correction: it must already hold, as the start check of a
    // simulation ([`check_on_constraints`]) sees it, so that the state projected is one a
    // simulation starts from.
    let on = State::new(s.t, q, qd);
    let (v, j) = velocity_terms::<T, N, M, K>(model, &on, u);
    finite(&v, "constraint velocity residuals")?;
    if worst(&v, &velocity_scales::<T, N, M, K>(model, &on, u, &v, &j))
        > tolerances::CONSTRAINED_START
    {
        return Err(DynamicsError::ProjectionFailed { residual: v.amax() });
    }
    Ok(on)
}

/// max_i |c_ki| · max_i |x_i| for each row k of `c`: how much the constraint of row k
/// changes when the entries of x change by their size, one part of the scale its residual
/// is relative to. Not Σ_i |c_ki x_i|: an entry of c that is itself a cancellation (a
/// contact constraint's row at a symmetric state) can be rounding noise times a large
/// x_i, and the residual's rounding is that of the whole row. It vanishes at x = 0, where
/// the other part, the rounding of the evaluation ([`rounding_sizes`]), does not.
fn scales<const K: usize, const N: usize>(
    c: &SMatrix<f64, K, N>,
    x: &SVector<f64, N>,
) -> SVector<f64, K> {
    SVector::from_fn(|k, _| c.row(k).amax() * x.amax())
}

/// The bound on the rounding error of each constraint's evaluation in `f64` at `level`
/// and the state `s`: one evaluation of the constraints in [`Rounded`] from the exact
/// state. It is 0 only when the evaluation is exact (exact inputs through no operation
/// that rounds), and then so is the residual. A bound that is not finite (a power or a
/// quotient whose operand's error is as large as the operand) says nothing, and counts as
/// 0: an infinite scale would accept any residual.
fn rounding_bounds<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    level: Level,
) -> SVector<f64, K> {
    let x = Point::new(s, u).map(Rounded::exact);
    let mut out = SVector::zeros();
    model.eval_constraints(level, &x, |k, c: Rounded| {
        let bound = if c.error.is_finite() { c.error } else { 0.0 };
        set(&mut out, k, bound);
    });
    out
}

/// What each constraint's rounding contributes to its scale, at `level` and the state `s`:
/// its rounding bound ([`rounding_bounds`]) times
/// [`ROUNDING_TO_SIZE`](tolerances::ROUNDING_TO_SIZE), so that the start check accepts
/// [`ROUNDING_ACCEPTED`](tolerances::ROUNDING_ACCEPTED) bounds of it: the lengths in
/// `x + l*cos(theta + pi/2)`, where at q = 0 the residual is l·6e-17 and max|∂φ/∂q| max|q|
/// is 0.
fn rounding_sizes<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    level: Level,
) -> SVector<f64, K> {
    rounding_bounds::<T, N, M, K>(model, s, u, level) * tolerances::ROUNDING_TO_SIZE
}

/// The scale of each holonomic constraint's residual at (t, q) with Jacobian `j`:
/// max|∂φ_k/∂q| max|q| (what φ_k changes by when the coordinates change by their size)
/// plus the size of its terms ([`rounding_sizes`]). Never 0 where φ_k rounds.
fn position_scales<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    t: f64,
    q: &SVector<f64, N>,
    u: &SVector<f64, M>,
    j: &SMatrix<f64, K, N>,
) -> SVector<f64, K> {
    let at = State::new(t, *q, SVector::zeros());
    scales(j, q) + rounding_sizes::<T, N, M, K>(model, &at, u, Level::Position)
}

/// The scale of each velocity form v_k = J_k q̇ + j_k at `s` (`v` and `j` its values and
/// Jacobian there): max|J_k| max|q̇| + |j_k| plus the size of its terms ([`rounding_sizes`]
/// at velocity level).
fn velocity_scales<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    v: &SVector<f64, K>,
    j: &SMatrix<f64, K, N>,
) -> SVector<f64, K> {
    scales(j, &s.qd)
        + (v - j * s.qd).abs()
        + rounding_sizes::<T, N, M, K>(model, s, u, Level::Velocity)
}

/// The largest residual of the holonomic constraints at (t, q), relative to its scale
/// ([`position_scales`]): what the start check ([`check_on_constraints`]) compares with
/// [`CONSTRAINED_START`](tolerances::CONSTRAINED_START).
pub(crate) fn position_violation<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    t: f64,
    q: &SVector<f64, N>,
    u: &SVector<f64, M>,
) -> f64 {
    let (phi, j) = position_terms::<T, N, M, K>(model, t, q, u);
    worst(&phi, &position_scales::<T, N, M, K>(model, t, q, u, &j))
}

/// |r| relative to `scale`: 0 for an exact 0, infinite for a residual that is not finite,
/// nonzero at a zero scale, or of a scale that is not a number.
fn relative(r: f64, scale: f64) -> f64 {
    if r == 0.0 {
        0.0
    } else {
        let x = r.abs() / scale;
        if x.is_nan() {
            f64::INFINITY
        } else {
            x
        }
    }
}

/// The largest residual relative to its scale.
fn worst<const K: usize>(residuals: &SVector<f64, K>, scales: &SVector<f64, K>) -> f64 {
    (0..K)
        .map(|k| relative(residuals[k], scales[k]))
        .fold(0.0, f64::max)
}

/// `Ok` if `s` satisfies the constraints to rounding ([`CONSTRAINED_START`](tolerances::CONSTRAINED_START)
/// relative to each one's scale), at position level (holonomic ones) and velocity level
/// (all), else [`DynamicsError::OffConstraints`] naming those it violates: the check of a
/// simulation's start. A residual φ_k may be `CONSTRAINED_START` times max|∂φ_k/∂q| max|q|
/// plus [`ROUNDING_ACCEPTED`](tolerances::ROUNDING_ACCEPTED) bounds on the rounding of
/// its own evaluation ([`position_scales`]), a velocity form J q̇ + j the same relative to
/// max|J_k| max|q̇| + |j_k| plus its rounding ([`velocity_scales`]): a state at q = 0 is on
/// `x + l*cos(theta + pi/2)` although its residual is l·6e-17 where the sensitivity to q
/// vanishes. Every state [`project`] returns with a tolerance at most `CONSTRAINED_START`
/// passes (it stops at `tolerance` max|∂φ_k/∂q| max|q| plus
/// [`ROUNDING_FLOOR`](tolerances::ROUNDING_FLOOR) rounding bounds, fewer than
/// `ROUNDING_ACCEPTED`), and so does every steady motion ([`steady`](crate::steady)) found.
pub(crate) fn check_on_constraints<
    T: Model<N, M>,
    const N: usize,
    const M: usize,
    const K: usize,
>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> Result<(), DynamicsError> {
    check_state::<T, N, M>(s, u)?;
    let (phi, jq) = position_terms::<T, N, M, K>(model, s.t, &s.q, u);
    let (v, jv) = velocity_terms::<T, N, M, K>(model, s, u);
    let position_scales = position_scales::<T, N, M, K>(model, s.t, &s.q, u, &jq);
    let velocity_scales = velocity_scales::<T, N, M, K>(model, s, u, &v, &jv);
    let name = |k: usize| T::CONSTRAINT_NAMES.get(k).copied().unwrap_or("?");
    let off = |r: &SVector<f64, K>, scale: &SVector<f64, K>| -> Vec<(&'static str, f64)> {
        (0..K)
            .filter(|&k| relative(r[k], scale[k]) > tolerances::CONSTRAINED_START)
            .map(|k| (name(k), r[k]))
            .collect()
    };
    let (positions, velocities) = (off(&phi, &position_scales), off(&v, &velocity_scales));
    if positions.is_empty() && velocities.is_empty() {
        Ok(())
    } else {
        Err(DynamicsError::OffConstraints {
            positions,
            velocities,
        })
    }
}

/// Why the settings of a projection are invalid, if they are: the tolerance must be
/// positive and finite, the held indices those of coordinates.
pub(crate) fn check_projection<const N: usize>(
    hold: &[usize],
    tolerance: f64,
) -> Result<(), &'static str> {
    if !(tolerance.is_finite() && tolerance > 0.0) {
        Err("the projection tolerance must be positive and finite")
    } else if hold.iter().any(|&i| i >= N) {
        Err("a held coordinate's index is past the last coordinate")
    } else {
        Ok(())
    }
}

/// `Ok` if every element of `m` is finite, else the error naming `quantity`.
pub(crate) fn finite<const R: usize, const C: usize>(
    m: &SMatrix<f64, R, C>,
    quantity: &'static str,
) -> Result<(), DynamicsError> {
    if linalg::all_finite(m.as_slice()) {
        Ok(())
    } else {
        Err(DynamicsError::NonFiniteResult { quantity })
    }
}

/// [`Violation`] of the state `s`.
pub(crate) fn violation<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> Violation {
    let (phi, _) = position_terms::<T, N, M, K>(model, s.t, &s.q, u);
    let (v, _) = velocity_terms::<T, N, M, K>(model, s, u);
    Violation {
        position: phi.amax(),
        velocity: v.amax(),
    }
}

/// The accelerations at a state of a model with K constraints: the unconstrained solve
/// for K = 0, else the constrained system (optionally stabilized). What
/// [`Dynamics::accelerations`] and [`ConstraintSolver::stabilized_accelerations`] return.
pub(crate) fn accelerations<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    stabilization: Option<Stabilization>,
) -> Result<SVector<f64, N>, DynamicsError> {
    if let Some(gains) = stabilization {
        gains.check()?;
    }
    if T::TREE_ACCELERATIONS
        && let Some((qdd, _)) = along_tree::<T, N, M, K>(model, s, u, stabilization)?
    {
        return Ok(qdd);
    }
    if K == 0 {
        // The hot path of every integrator step of a model without constraints.
        crate::eval::accelerations(model, s, u)
    } else {
        solution::<T, N, M, K>(model, s, u, stabilization).map(|r| r.accelerations)
    }
}

/// The constraints' rows J at `s` and their targets γ (J q̈ = γ), the velocity and
/// position errors fed back with `stabilization`'s gains: γ − 2α J q̇ − β² Φ.
fn rows_and_targets<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    stabilization: Option<Stabilization>,
) -> (SMatrix<f64, K, N>, SVector<f64, K>) {
    let (v, j) = velocity_terms::<T, N, M, K>(model, s, u);
    let mut gamma = gamma::<T, f64, N, M, K>(model, &Point::new(s, u));
    if let Some(Stabilization { alpha, beta }) = stabilization {
        let (phi, _) = position_terms::<T, N, M, K>(model, s.t, &s.q, u);
        gamma -= v * (2.0 * alpha) + phi * (beta * beta);
    }
    (j, gamma)
}

/// q̈ of a robot by the articulated-body algorithm over its tree
/// ([`Model::eval_tree_accelerations`]), with its floating base's constraint (K = 1) as
/// [`solution`] takes it, and the constraints' rows J at `s` (none for K = 0); `None` where
/// that does not give them (the state checked first), for the KKT solve to find them or to
/// say why it cannot. `linearize` takes the rows too: the multipliers follow from them
/// ([`crate::linearize`]).
#[allow(clippy::type_complexity)]
pub(crate) fn along_tree<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    stabilization: Option<Stabilization>,
) -> Result<Option<(SVector<f64, N>, SMatrix<f64, K, N>)>, DynamicsError> {
    check_state::<T, N, M>(s, u)?;
    let x = Point::new(s, u);
    let mut qdd = [0.0; N];
    let (found, j) = match K {
        0 => (
            model.eval_tree_accelerations(&x, None, &mut qdd),
            SMatrix::zeros(),
        ),
        1 => {
            let (j, gamma) = rows_and_targets::<T, N, M, K>(model, s, u, stabilization);
            let row: [f64; N] = from_fn(|i| j[(0, i)]);
            let found = model.eval_tree_accelerations(&x, Some((&row, gamma[0])), &mut qdd);
            (found, j)
        }
        _ => (false, SMatrix::zeros()),
    };
    Ok(found.then(|| (SVector::from(qdd), j)))
}

// The state Jacobian with the model's number of constraints K, for code generic over Model.

struct StateJacobian<'a, T, const N: usize, const M: usize> {
    model: &'a T,
    s: &'a State<N>,
    u: &'a SVector<f64, M>,
}

impl<T: Model<N, M>, const N: usize, const M: usize> WithCount for StateJacobian<'_, T, N, M> {
    type Output = nalgebra::DMatrix<f64>;
    fn run<const K: usize>(self) -> Self::Output {
        state_jacobian::<T, N, M, K>(self.model, self.s, self.u)
    }
}

/// A constrained model whose accelerations use Baumgarte stabilization: wrap a model in it
/// and simulate the wrapper with any integrator.
///
/// # Example
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::constrained::{Baumgarte, Stabilization};
/// use lagrange_runtime::simulate::{Rk4, Simulation};
///
/// lagrangian! {
///     struct Pendulum {
///         parameters: m = 1.0, l = 1.0, g = 9.81;
///         coordinates: x, y;
///         kinetic = m/2 * (dot(x)^2 + dot(y)^2);
///         potential = m * g * y;
///         constraint rod = x^2 + y^2 - l^2;
///     }
/// }
///
/// let model = Pendulum::default();
/// let stabilized = Baumgarte::new(&model, Stabilization { alpha: 10.0, beta: 10.0 });
/// // Start 1 cm off the circle: the stabilization pulls the motion back onto it.
/// let start = State::new(0.0, SVector::from([1.01, 0.0]), SVector::zeros());
/// let run = Simulation::new(&stabilized, start).run(&Rk4::new(1e-3), 3.0).unwrap();
/// assert!(model.violation(run.last(), &SVector::zeros()).position < 1e-6);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Baumgarte<'a, T> {
    /// The constrained model.
    pub model: &'a T,
    /// The gains.
    pub stabilization: Stabilization,
}

impl<'a, T> Baumgarte<'a, T> {
    /// `model` with the given gains.
    pub fn new(model: &'a T, stabilization: Stabilization) -> Self {
        Baumgarte {
            model,
            stabilization,
        }
    }
}

impl<T: ConstraintSolver<N, M>, const N: usize, const M: usize> Dynamics<N, M>
    for Baumgarte<'_, T>
{
    const COORDINATES: [&'static str; N] = T::COORDINATES;
    const INPUTS: [&'static str; M] = T::INPUTS;
    const UNITS: Option<crate::Units<N, M>> = T::UNITS;

    fn lagrangian(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.model.lagrangian(s, u)
    }
    fn kinetic_energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.model.kinetic_energy(s, u)
    }
    fn potential_energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.model.potential_energy(s, u)
    }
    fn dissipation(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.model.dissipation(s, u)
    }
    fn energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.model.energy(s, u)
    }
    fn momenta(&self, s: &State<N>, u: &SVector<f64, M>) -> SVector<f64, N> {
        self.model.momenta(s, u)
    }
    fn mass_matrix(&self, s: &State<N>, u: &SVector<f64, M>) -> SMatrix<f64, N, N> {
        self.model.mass_matrix(s, u)
    }
    fn generalized_forces(&self, s: &State<N>, u: &SVector<f64, M>) -> SVector<f64, N> {
        self.model.generalized_forces(s, u)
    }
    fn accelerations(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
    ) -> Result<SVector<f64, N>, DynamicsError> {
        self.model
            .stabilized_accelerations(s, u, self.stabilization)
    }
    /// The gains must be valid ([`Stabilization::check`]); the state need not be on the
    /// constraints, which the stabilization pulls it back to.
    fn check_start(&self, _: &State<N>, _: &SVector<f64, M>) -> Result<(), DynamicsError> {
        self.stabilization.check()
    }
    fn inverse_dynamics(
        &self,
        s: &State<N>,
        qdd: &SVector<f64, N>,
        u: &SVector<f64, M>,
    ) -> SVector<f64, N> {
        self.model.inverse_dynamics(s, qdd, u)
    }
}

/// −Jᵀλ at `s`.
///
/// # Errors
/// As [`solution`].
pub(crate) fn reaction_forces<T: Model<N, M>, const N: usize, const M: usize, const K: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
) -> Result<SVector<f64, N>, DynamicsError> {
    let lambda = solution::<T, N, M, K>(model, s, u, None)?.multipliers;
    let (_, j) = velocity_terms::<T, N, M, K>(model, s, u);
    Ok(-(j.transpose() * lambda))
}
