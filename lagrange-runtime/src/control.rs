//! Linear-quadratic regulators: the continuous algebraic Riccati equation and the optimal
//! state-feedback gain.
//!
//! For ẋ = A x + B u, the input u = −K x minimising ∫ (xᵀQ x + uᵀR u) dt is given by
//! K = R⁻¹BᵀP, where P is the stabilizing solution of the continuous algebraic Riccati
//! equation (CARE)
//!
//! ```text
//! AᵀP + PA − PBR⁻¹BᵀP + Q = 0.
//! ```
//!
//! Together with [`linearize`](crate::linearize::linearize) this designs a controller for a
//! model around an equilibrium: [`lqr`] takes its `a()` and `b()`.
//!
//! # Method
//!
//! [`care`] uses the matrix sign function of the 2n × 2n Hamiltonian matrix
//!
//! ```text
//! H = [  A   −G  ]      G = B R⁻¹ Bᵀ,
//!     [ −Q   −Aᵀ ]
//! ```
//!
//! whose eigenvalues come in pairs λ, −λ. When none lies on the imaginary axis, its stable
//! invariant subspace (eigenvalues with Re λ < 0) is the range of [I; P] for the
//! stabilizing solution P: H [I; P] = [I; P] (A − G P). The sign function W = sign(H) is
//! −1 on that subspace and +1 on the other, so (W + I) [I; P] = 0, that is
//!
//! ```text
//! [   W₁₂   ] P = − [ W₁₁ + I ]
//! [ W₂₂ + I ]       [   W₂₁   ]
//! ```
//!
//! an overdetermined but consistent system, solved by least squares (an SVD) and
//! symmetrized. sign(H) is the limit of Newton's iteration Z ← (Z/c + c Z⁻¹)/2 from Z = H,
//! with the determinant scaling c = |det Z|^(1/2n) that makes it converge in a few tens of
//! steps even for eigenvalues of very different magnitudes; it converges quadratically.
//! The sign function is not backward stable on its own, so, as is customary, up to three
//! Newton (Kleinman) steps then polish P while they shrink the residual: each solves the
//! Lyapunov equation (A − GP)ᵀΔ + Δ(A − GP) + Res(P) = 0, again with a sign iteration
//! (Roberts). The result is checked: A − G P must be stable.
//!
//! References: R. Byers, "Solving the algebraic Riccati equation with the matrix sign
//! function", Linear Algebra Appl. 85 (1987) 267–279; J. D. Roberts, "Linear model
//! reduction and solution of the algebraic Riccati equation by use of the sign function",
//! Int. J. Control 32 (1980) 677–687 (report of 1971); J. D. Gardiner and A. J. Laub, "A
//! generalization of the matrix-sign-function solution for algebraic Riccati equations",
//! Int. J. Control 44 (1986) 823–832; D. L. Kleinman, "On an iterative technique for
//! Riccati equation computations", IEEE Trans. Autom. Control 13 (1968) 114–115;
//! N. J. Higham, "Functions of Matrices" (SIAM 2008), ch. 5.
//!
//! # Requirements
//!
//! - Q symmetric positive semidefinite (the symmetry is checked), R symmetric positive
//!   definite (checked).
//! - (A, B) stabilizable: every unstable mode of A can be moved by the input.
//! - (Q, A) detectable: every mode of A that Q does not see is stable.
//!
//! Under these conditions the stabilizing solution exists, is unique, symmetric and
//! positive semidefinite. A violation shows as a Hamiltonian eigenvalue on the imaginary
//! axis (a mode on the axis that is uncontrollable or unobserved) or as a sign matrix from
//! which no P can be recovered (an unstable mode that the input cannot reach).
//!
//! The matrices are dense [`DMatrix`]es and each call allocates: control design happens
//! once, before a simulation, not in its inner loop.

use nalgebra::{Complex, DMatrix, Schur, SVD};
use std::fmt;

/// Why a Riccati equation or an LQR design could not be solved.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ControlError {
    /// A matrix that must be square is not.
    NotSquare {
        /// Which one: `"A"`, `"Q"` or `"R"`.
        matrix: &'static str,
        /// Its number of rows.
        rows: usize,
        /// Its number of columns.
        columns: usize,
    },
    /// A matrix's shape does not fit the others (B must be n × m for an n × n A, Q n × n,
    /// R m × m).
    DimensionMismatch {
        /// Which one: `"B"`, `"Q"` or `"R"`.
        matrix: &'static str,
        /// The shape (rows, columns) it must have.
        expected: (usize, usize),
        /// The shape it has.
        found: (usize, usize),
    },
    /// A matrix holds a NaN or an infinity.
    NonFinite {
        /// Which one: `"A"`, `"B"`, `"Q"` or `"R"`.
        matrix: &'static str,
    },
    /// Q or R is not symmetric (a weight xᵀQx only sees the symmetric part, so an
    /// asymmetric one is most likely a mistake).
    NotSymmetric {
        /// Which one: `"Q"` or `"R"`.
        matrix: &'static str,
    },
    /// R is not positive definite: some input combination would cost nothing, and the
    /// optimal gain would be infinite.
    RNotPositiveDefinite,
    /// The Hamiltonian matrix has an eigenvalue on the imaginary axis (or numerically
    /// indistinguishable from it): a mode of A on the axis is uncontrollable by B or unseen
    /// by Q, so no stabilizing solution exists.
    ImaginaryAxisEigenvalue {
        /// The eigenvalue of the Hamiltonian closest to the imaginary axis.
        eigenvalue: Complex<f64>,
    },
    /// The sign-function iteration did not converge although no eigenvalue of the
    /// Hamiltonian was found on the imaginary axis (a badly conditioned problem: try
    /// scaling the states and inputs to similar magnitudes).
    NoConvergence {
        /// Iterations made.
        iterations: usize,
        /// The last relative change ‖Zₖ₊₁ − Zₖ‖₁ / ‖Zₖ₊₁‖₁.
        change: f64,
    },
    /// There is no stabilizing solution: (A, B) is not stabilizable (an unstable mode of A
    /// that the input cannot move), or the problem is too badly conditioned to tell.
    NoStabilizingSolution,
}

impl fmt::Display for ControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotSquare {
                matrix,
                rows,
                columns,
            } => write!(f, "{matrix} must be square, but it is {rows} × {columns}"),
            Self::DimensionMismatch {
                matrix,
                expected,
                found,
            } => write!(
                f,
                "{matrix} must be {} × {} to fit the other matrices, but it is {} × {}",
                expected.0, expected.1, found.0, found.1
            ),
            Self::NonFinite { matrix } => write!(f, "{matrix} holds a NaN or an infinity"),
            Self::NotSymmetric { matrix } => write!(f, "{matrix} must be symmetric"),
            Self::RNotPositiveDefinite => write!(f, "R must be positive definite"),
            Self::ImaginaryAxisEigenvalue { eigenvalue } => write!(
                f,
                "the Hamiltonian matrix has an eigenvalue on the imaginary axis ({} {:+}i): \
                 a mode of A on the axis is uncontrollable from B or unseen by Q",
                eigenvalue.re, eigenvalue.im
            ),
            Self::NoConvergence { iterations, change } => write!(
                f,
                "the matrix sign iteration did not converge in {iterations} iterations \
                 (last relative change {change:e}); try scaling states and inputs"
            ),
            Self::NoStabilizingSolution => write!(
                f,
                "the Riccati equation has no stabilizing solution: (A, B) is not stabilizable"
            ),
        }
    }
}

impl std::error::Error for ControlError {}

/// The stabilizing solution P of the continuous algebraic Riccati equation
/// AᵀP + PA − PBR⁻¹BᵀP + Q = 0, symmetric positive semidefinite, with A − BR⁻¹BᵀP stable.
///
/// A is n × n, B n × m, Q n × n symmetric positive semidefinite, R m × m symmetric positive
/// definite; (A, B) must be stabilizable and (Q, A) detectable. The method (the matrix sign
/// function of the Hamiltonian) and its references are in the [module docs](self).
///
/// # Errors
/// [`ControlError`] for wrongly shaped, non-finite or asymmetric matrices, an R that is
/// not positive definite, and problems without a stabilizing solution.
///
/// # Example
/// ```
/// use lagrange_runtime::control::care;
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // The double integrator ẍ = u with Q = I, R = 1.
/// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
/// let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
/// let p = care(&a, &b, &DMatrix::identity(2, 2), &DMatrix::identity(1, 1)).unwrap();
/// let s3 = 3f64.sqrt();
/// assert!((p[(0, 0)] - s3).abs() < 1e-12); // P = [[√3, 1], [1, √3]]
/// assert!((p[(0, 1)] - 1.0).abs() < 1e-12);
/// assert!((p[(1, 1)] - s3).abs() < 1e-12);
/// ```
pub fn care(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<DMatrix<f64>, ControlError> {
    check(a, b, q, r)?;
    let g = symmetric_part(&(b * r_inverse_times(r, &b.transpose())?));
    let n = a.nrows();
    if n == 0 {
        return Ok(DMatrix::zeros(0, 0));
    }
    let mut h = DMatrix::zeros(2 * n, 2 * n);
    h.view_mut((0, 0), (n, n)).copy_from(a);
    h.view_mut((0, n), (n, n)).copy_from(&-&g);
    h.view_mut((n, 0), (n, n)).copy_from(&-q);
    h.view_mut((n, n), (n, n)).copy_from(&-a.transpose());
    let w = sign(h)?;
    let p = refine(a, &g, q, stable_subspace_solution(&w, n)?);
    if is_stable(&(a - &g * &p)) {
        Ok(p)
    } else {
        Err(ControlError::NoStabilizingSolution)
    }
}

/// The linear-quadratic regulator: the gain K = R⁻¹BᵀP of the state feedback u = −K x
/// that minimises ∫ (xᵀQ x + uᵀR u) dt for ẋ = A x + B u, and the solution P of the
/// Riccati equation (the optimal cost from x₀ is x₀ᵀP x₀). A − B K is stable.
///
/// The requirements and the method are those of [`care`].
///
/// # Errors
/// As [`care`].
///
/// # Example
/// ```
/// use lagrange_runtime::control::lqr;
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // The double integrator ẍ = u with Q = I, R = 1.
/// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
/// let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
/// let (k, _p) = lqr(&a, &b, &DMatrix::identity(2, 2), &DMatrix::identity(1, 1)).unwrap();
/// assert!((k[(0, 0)] - 1.0).abs() < 1e-12); // K = [1, √3]
/// assert!((k[(0, 1)] - 3f64.sqrt()).abs() < 1e-12);
/// ```
pub fn lqr(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
    let p = care(a, b, q, r)?;
    let k = r_inverse_times(r, &(b.transpose() * &p))?;
    Ok((k, p))
}

/// Shapes, finiteness and symmetry of the four matrices.
fn check(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<(), ControlError> {
    if !a.is_square() {
        let (rows, columns) = a.shape();
        return Err(ControlError::NotSquare {
            matrix: "A",
            rows,
            columns,
        });
    }
    let (n, m) = (a.nrows(), b.ncols());
    for (matrix, x, expected) in [("B", b, (n, m)), ("Q", q, (n, n)), ("R", r, (m, m))] {
        if x.shape() != expected {
            return Err(ControlError::DimensionMismatch {
                matrix,
                expected,
                found: x.shape(),
            });
        }
    }
    for (matrix, x) in [("A", a), ("B", b), ("Q", q), ("R", r)] {
        if !x.iter().all(|v| v.is_finite()) {
            return Err(ControlError::NonFinite { matrix });
        }
    }
    for (matrix, x) in [("Q", q), ("R", r)] {
        if (x - x.transpose()).amax() > 1e-10 * x.amax() {
            return Err(ControlError::NotSymmetric { matrix });
        }
    }
    Ok(())
}

/// R⁻¹ X by a Cholesky factorization, which also checks that R is positive definite.
fn r_inverse_times(r: &DMatrix<f64>, x: &DMatrix<f64>) -> Result<DMatrix<f64>, ControlError> {
    let cholesky = symmetric_part(r)
        .cholesky()
        .ok_or(ControlError::RNotPositiveDefinite)?;
    Ok(cholesky.solve(x))
}

fn symmetric_part(x: &DMatrix<f64>) -> DMatrix<f64> {
    (x + x.transpose()) * 0.5
}

/// Iterations allowed to the sign function; with determinant scaling it needs about 10
/// plus log₂ of the ratio between the largest eigenvalue and the real part closest to
/// zero, so 100 covers every problem whose answer means anything in double precision.
const MAX_ITERATIONS: usize = 100;

/// Relative change below which the quadratically convergent iteration is one step from
/// full precision.
const CONVERGED: f64 = 1e-10;

/// The matrix sign function of `h` by the scaled Newton iteration.
fn sign(h: DMatrix<f64>) -> Result<DMatrix<f64>, ControlError> {
    let mut z = h.clone();
    let mut change = f64::INFINITY;
    for _ in 0..MAX_ITERATIONS {
        let Some(next) = newton_step(&z, true) else {
            // A singular iterate: an eigenvalue (numerically) at zero.
            return Err(imaginary_axis_or(h, MAX_ITERATIONS, change));
        };
        change = (&next - &z).lp_norm(1) / next.lp_norm(1);
        z = next;
        if change <= CONVERGED {
            // The error is now about the square of the change: one unscaled step more
            // reaches rounding level.
            return newton_step(&z, false).ok_or(ControlError::NoStabilizingSolution);
        }
        if !change.is_finite() {
            break;
        }
    }
    Err(imaginary_axis_or(h, MAX_ITERATIONS, change))
}

/// (Z/c + c Z⁻¹)/2 with c = |det Z|^(1/n) (or c = 1); `None` when Z is singular.
fn newton_step(z: &DMatrix<f64>, scaled: bool) -> Option<DMatrix<f64>> {
    let lu = z.clone().lu();
    let inverse = lu.try_inverse()?;
    let c = if scaled {
        // The log of |det Z| from the diagonal of U, free of overflow.
        let u = lu.u();
        let log_det: f64 = u.diagonal().iter().map(|d| d.abs().ln()).sum();
        (log_det / z.nrows() as f64).exp()
    } else {
        1.0
    };
    let next = (z / c + inverse * c) * 0.5;
    (c.is_finite() && c > 0.0 && next.iter().all(|v| v.is_finite())).then_some(next)
}

/// Why the iteration on `h` failed: an eigenvalue at the imaginary axis if there is one
/// within √ε of the spectrum's size (eigenvalues of Jordan blocks on the axis are only
/// computed to about that), else a plain failure to converge.
fn imaginary_axis_or(h: DMatrix<f64>, iterations: usize, change: f64) -> ControlError {
    let size = h.amax().max(f64::MIN_POSITIVE);
    let closest = Schur::try_new(h, f64::EPSILON, 10_000).and_then(|schur| {
        schur
            .complex_eigenvalues()
            .iter()
            .copied()
            .min_by(|x, y| x.re.abs().total_cmp(&y.re.abs()))
    });
    match closest {
        Some(eigenvalue) if eigenvalue.re.abs() <= f64::EPSILON.sqrt() * size => {
            ControlError::ImaginaryAxisEigenvalue { eigenvalue }
        }
        _ => ControlError::NoConvergence { iterations, change },
    }
}

/// P from the sign matrix `w` of the 2n × 2n Hamiltonian: the least-squares solution of
/// [W₁₂; W₂₂ + I] P = −[W₁₁ + I; W₂₁], symmetrized. Rank-deficient when the stable
/// subspace is not the graph of a matrix (the problem is not stabilizable).
fn stable_subspace_solution(w: &DMatrix<f64>, n: usize) -> Result<DMatrix<f64>, ControlError> {
    let mut lhs = w.view((0, n), (2 * n, n)).into_owned();
    let mut rhs = -w.view((0, 0), (2 * n, n)).into_owned();
    for i in 0..n {
        lhs[(n + i, i)] += 1.0;
        rhs[(i, i)] -= 1.0;
    }
    let svd = SVD::try_new(lhs, true, true, f64::EPSILON, 10_000)
        .ok_or(ControlError::NoStabilizingSolution)?;
    let largest = svd.singular_values.max();
    let tolerance = 1e3 * f64::EPSILON * (2 * n) as f64 * largest;
    if largest == 0.0 || svd.rank(tolerance) < n {
        return Err(ControlError::NoStabilizingSolution);
    }
    let p = svd
        .solve(&rhs, tolerance)
        .map_err(|_| ControlError::NoStabilizingSolution)?;
    Ok(symmetric_part(&p))
}

/// AᵀP + PA − PGP + Q.
fn riccati_residual(
    a: &DMatrix<f64>,
    g: &DMatrix<f64>,
    q: &DMatrix<f64>,
    p: &DMatrix<f64>,
) -> DMatrix<f64> {
    let pa = p * a;
    symmetric_part(&(&pa + pa.transpose() - p * g * p + q))
}

/// Newton steps on the Riccati equation from `p` (Kleinman's iteration, started from the
/// sign function's solution): with A_c = A − G P, the correction Δ solves the Lyapunov
/// equation A_cᵀΔ + ΔA_c + Res(P) = 0. Each step squares the error of an accurate
/// enough P; they are kept while they shrink the residual.
fn refine(
    a: &DMatrix<f64>,
    g: &DMatrix<f64>,
    q: &DMatrix<f64>,
    mut p: DMatrix<f64>,
) -> DMatrix<f64> {
    const STEPS: usize = 3;
    let mut residual = riccati_residual(a, g, q, &p);
    for _ in 0..STEPS {
        let size = residual.amax();
        if size == 0.0 {
            break;
        }
        let Some(delta) = lyapunov(&(a - g * &p), &residual) else {
            break;
        };
        let next = symmetric_part(&(&p + delta));
        let next_residual = riccati_residual(a, g, q, &next);
        let shrunk = next_residual.amax() < 0.5 * size;
        if !shrunk {
            break;
        }
        (p, residual) = (next, next_residual);
    }
    p
}

/// X with AᵀX + XA + C = 0 for a stable A, by the sign function of the block triangular
/// [[A, 0], [C, −Aᵀ]] (Roberts 1971): its iterates keep that form, (Aₖ, Cₖ) → (−I, 2X)
/// with Aₖ₊₁ = (Aₖ/c + c Aₖ⁻¹)/2 and Cₖ₊₁ = (Cₖ/c + c Aₖ⁻ᵀCₖAₖ⁻¹)/2, c = |det Aₖ|^(1/n).
/// `None` when it does not converge (A not stable enough).
fn lyapunov(a: &DMatrix<f64>, c: &DMatrix<f64>) -> Option<DMatrix<f64>> {
    let (mut a, mut c) = (a.clone(), c.clone());
    let n = a.nrows() as f64;
    for _ in 0..MAX_ITERATIONS {
        let lu = a.clone().lu();
        let inverse = lu.try_inverse()?;
        let log_det: f64 = lu.u().diagonal().iter().map(|d| d.abs().ln()).sum();
        let scale = (log_det / n).exp();
        if !(scale.is_finite() && scale > 0.0) {
            return None;
        }
        let next = (&a / scale + &inverse * scale) * 0.5;
        c = (&c / scale + inverse.transpose() * &c * &inverse * scale) * 0.5;
        let change = (&next - &a).lp_norm(1) / next.lp_norm(1);
        a = next;
        if change <= CONVERGED {
            // One more unscaled step, as for the sign function.
            let inverse = a.clone().try_inverse()?;
            c = (&c + inverse.transpose() * &c * &inverse) * 0.5;
            return Some(c * 0.5).filter(|x| x.iter().all(|v| v.is_finite()));
        }
    }
    None
}

/// Whether every eigenvalue of `x` has a negative real part.
fn is_stable(x: &DMatrix<f64>) -> bool {
    Schur::try_new(x.clone(), f64::EPSILON, 10_000)
        .is_some_and(|schur| schur.complex_eigenvalues().iter().all(|e| e.re < 0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rows: usize, columns: usize, entries: &[f64]) -> DMatrix<f64> {
        DMatrix::from_row_slice(rows, columns, entries)
    }

    /// AᵀP + PA − PBR⁻¹BᵀP + Q, relative to the size of its terms.
    fn relative_residual(
        a: &DMatrix<f64>,
        b: &DMatrix<f64>,
        q: &DMatrix<f64>,
        r: &DMatrix<f64>,
        p: &DMatrix<f64>,
    ) -> f64 {
        let g = b * r.clone().try_inverse().unwrap() * b.transpose();
        let residual = a.transpose() * p + p * a - p * &g * p + q;
        let scale = (a.transpose() * p).amax() + (p * &g * p).amax() + q.amax();
        residual.amax() / scale
    }

    #[test]
    fn scalar_matches_the_closed_form() {
        for (a, b, q, r) in [
            (2.0, 0.5, 3.0, 0.7),
            (-1.5, 2.0, 1.0, 4.0),
            (0.0, 1.0, 1.0, 1.0),
            (10.0, 0.01, 100.0, 1e-3),
        ] {
            let (k, p) = lqr(
                &m(1, 1, &[a]),
                &m(1, 1, &[b]),
                &m(1, 1, &[q]),
                &m(1, 1, &[r]),
            )
            .unwrap();
            // a p + p a − p² b²/r + q = 0, positive root.
            let want = (a + (a * a + b * b * q / r).sqrt()) * r / (b * b);
            assert!(
                (p[(0, 0)] - want).abs() <= 1e-12 * want,
                "a = {a}: P = {p}, want {want}"
            );
            assert!((k[(0, 0)] - b * want / r).abs() <= 1e-12 * b * want / r);
            assert!(a - b * k[(0, 0)] < 0.0);
        }
    }

    #[test]
    fn double_integrator() {
        let a = m(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let b = m(2, 1, &[0.0, 1.0]);
        let (k, p) = lqr(&a, &b, &DMatrix::identity(2, 2), &m(1, 1, &[1.0])).unwrap();
        let s3 = 3f64.sqrt();
        let want = m(2, 2, &[s3, 1.0, 1.0, s3]);
        assert!((&p - want).amax() < 1e-13, "P = {p}");
        assert!((&k - m(1, 2, &[1.0, s3])).amax() < 1e-13, "K = {k}");
        // With weights Q = diag(q1, q2), R = r: K = [√(q1/r), √(q2/r + 2√(q1/r))].
        let (q1, q2, r) = (4.0, 0.5, 0.25);
        let q = m(2, 2, &[q1, 0.0, 0.0, q2]);
        let (k, _) = lqr(&a, &b, &q, &m(1, 1, &[r])).unwrap();
        let k1 = (q1 / r).sqrt();
        let want = m(1, 2, &[k1, (q2 / r + 2.0 * k1).sqrt()]);
        assert!((&k - want).amax() < 1e-12, "K = {k}");
    }

    /// Deterministic pseudo-random numbers in [−1, 1) (xorshift64).
    fn uniform(seed: u64) -> impl FnMut() -> f64 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
    }

    /// A random-ish 4-state system with `inputs` inputs and an unstable A (eigenvalues
    /// shifted right by 1), with Q = CᵀC + I/10 and an R with a cross term.
    fn four_states(seed: u64, inputs: usize) -> [DMatrix<f64>; 4] {
        let mut x = uniform(seed);
        let a = DMatrix::from_fn(4, 4, |i, j| 2.0 * x() + if i == j { 1.0 } else { 0.0 });
        let b = DMatrix::from_fn(4, inputs, |_, _| x());
        let c = DMatrix::from_fn(2, 4, |_, _| x());
        let q = c.transpose() * c + DMatrix::identity(4, 4) * 0.1;
        let r = DMatrix::from_fn(inputs, inputs, |i, j| if i == j { 1.5 } else { 0.4 });
        [a, b, q, r]
    }

    #[test]
    fn four_state_systems_residual_and_stability() {
        for (seed, inputs) in [(1, 2), (2, 1), (3, 3), (4, 1), (5, 2)] {
            let [a, b, q, r] = four_states(seed, inputs);
            let (k, p) = lqr(&a, &b, &q, &r).unwrap();
            let g = &b * r.clone().try_inverse().unwrap() * b.transpose();
            let residual = a.transpose() * &p + &p * &a - &p * g * &p + &q;
            assert!(residual.amax() < 1e-9, "seed {seed}: residual {residual}");
            assert!(relative_residual(&a, &b, &q, &r, &p) < 1e-12);
            assert_eq!(p, p.transpose());
            assert!(p.clone().cholesky().is_some(), "P is positive definite");
            let open = a.complex_eigenvalues();
            let closed = (&a - &b * &k).complex_eigenvalues();
            assert!(open.iter().any(|e| e.re > 0.0), "seed {seed}: A is stable");
            assert!(closed.iter().all(|e| e.re < 0.0), "seed {seed}: {closed}");
        }
    }

    #[test]
    fn stiff_spectrum() {
        // Eigenvalues from 1e-3 to 1e3: the determinant scaling keeps the iteration short.
        let a = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![1e3, -1e-3, 1.0]));
        let b = DMatrix::from_element(3, 1, 1.0);
        let (q, r) = (DMatrix::identity(3, 3), m(1, 1, &[1.0]));
        let p = care(&a, &b, &q, &r).unwrap();
        assert!(relative_residual(&a, &b, &q, &r, &p) < 1e-12);
    }

    #[test]
    fn shapes_are_checked() {
        let (a, b, q, r) = (
            DMatrix::identity(2, 2),
            m(2, 1, &[0.0, 1.0]),
            DMatrix::identity(2, 2),
            m(1, 1, &[1.0]),
        );
        assert_eq!(
            care(&m(2, 3, &[0.0; 6]), &b, &q, &r),
            Err(ControlError::NotSquare {
                matrix: "A",
                rows: 2,
                columns: 3
            })
        );
        assert_eq!(
            care(&a, &m(3, 1, &[0.0; 3]), &q, &r),
            Err(ControlError::DimensionMismatch {
                matrix: "B",
                expected: (2, 1),
                found: (3, 1)
            })
        );
        assert!(matches!(
            care(&a, &b, &q, &DMatrix::identity(2, 2)),
            Err(ControlError::DimensionMismatch { matrix: "R", .. })
        ));
        assert_eq!(
            care(&a, &b, &m(2, 2, &[1.0, 0.5, 0.0, 1.0]), &r),
            Err(ControlError::NotSymmetric { matrix: "Q" })
        );
        assert_eq!(
            care(&a, &b, &q, &m(1, 1, &[f64::NAN])),
            Err(ControlError::NonFinite { matrix: "R" })
        );
    }

    #[test]
    fn r_must_be_positive_definite() {
        let (a, b) = (m(1, 1, &[1.0]), m(1, 2, &[1.0, 1.0]));
        let r = m(2, 2, &[1.0, 2.0, 2.0, 1.0]);
        assert_eq!(
            lqr(&a, &b, &m(1, 1, &[1.0]), &r),
            Err(ControlError::RNotPositiveDefinite)
        );
    }

    #[test]
    fn undamped_uncontrollable_oscillator_is_on_the_imaginary_axis() {
        // A harmonic oscillator that neither B nor Q touches: H has eigenvalues ±i.
        let a = m(2, 2, &[0.0, 1.0, -1.0, 0.0]);
        let err = care(
            &a,
            &m(2, 1, &[0.0, 0.0]),
            &DMatrix::zeros(2, 2),
            &m(1, 1, &[1.0]),
        );
        let Err(ControlError::ImaginaryAxisEigenvalue { eigenvalue }) = err else {
            panic!("{err:?}");
        };
        assert!((eigenvalue.im.abs() - 1.0).abs() < 1e-6);
        // The double integrator with Q = 0: a fourfold zero eigenvalue.
        let a = m(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let err = care(
            &a,
            &m(2, 1, &[0.0, 1.0]),
            &DMatrix::zeros(2, 2),
            &m(1, 1, &[1.0]),
        );
        assert!(
            matches!(err, Err(ControlError::ImaginaryAxisEigenvalue { .. })),
            "{err:?}"
        );
    }

    #[test]
    fn unstable_uncontrollable_mode_has_no_stabilizing_solution() {
        let a = m(2, 2, &[1.0, 0.0, 0.0, -1.0]);
        let b = m(2, 1, &[0.0, 1.0]);
        let err = care(&a, &b, &DMatrix::identity(2, 2), &m(1, 1, &[1.0]));
        assert_eq!(err, Err(ControlError::NoStabilizingSolution));
    }

    #[test]
    fn errors_read_well() {
        let e = ControlError::DimensionMismatch {
            matrix: "B",
            expected: (4, 1),
            found: (1, 4),
        };
        assert_eq!(
            e.to_string(),
            "B must be 4 × 1 to fit the other matrices, but it is 1 × 4"
        );
        assert!(ControlError::NoStabilizingSolution
            .to_string()
            .contains("not stabilizable"));
    }
}
