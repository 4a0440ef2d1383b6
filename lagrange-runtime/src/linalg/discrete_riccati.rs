//! The stabilizing solution of the discrete algebraic Riccati equation
//!
//! ```text
//! P = AᵀPA − AᵀPB (R + BᵀPB)⁻¹ BᵀPA + Q
//! ```
//!
//! in three stages:
//!
//! 1. **Balancing.** The states are scaled by powers of two, x = D x̃ (A → D⁻¹AD,
//!    B → D⁻¹B, Q → DQD, exact in floating point, P → DPD), chosen by the symplectic
//!    balancing of the continuous solver ([`riccati`](super::riccati)), which applies as it
//!    is: the blocks A, G = BR⁻¹Bᵀ and Q of the symplectic pencil scale as those of the
//!    Hamiltonian. States whose units differ by many orders of magnitude (a problem scaled
//!    by diag(2³⁰, 2⁻³⁰, 1, 1)) are then solved as the problem in sensible units is.
//! 2. **Doubling.** The structure-preserving doubling algorithm (SDA): with G₀ = BR⁻¹Bᵀ,
//!    H₀ = Q, A₀ = A,
//!
//!    ```text
//!    Wₖ = I + Gₖ Hₖ
//!    Aₖ₊₁ = Aₖ Wₖ⁻¹ Aₖ
//!    Gₖ₊₁ = Gₖ + Aₖ Wₖ⁻¹ Gₖ Aₖᵀ
//!    Hₖ₊₁ = Hₖ + Aₖᵀ Hₖ Wₖ⁻¹ Aₖ
//!    ```
//!
//!    Hₖ converges to P quadratically when the stabilizing solution exists and no
//!    eigenvalue of the symplectic pencil lies on the unit circle (Hₖ is the cost of the
//!    first 2ᵏ steps of the optimal control problem). Wₖ is nonsingular for G, H positive
//!    semidefinite.
//! 3. **Newton steps** (Hewer's iteration, the discrete counterpart of Kleinman's that
//!    polishes [`care`](crate::control::care)): with K = (R + BᵀPB)⁻¹BᵀPA and
//!    A_c = A − BK, the correction Δ solves the Stein equation A_cᵀΔA_c − Δ + Res(P) = 0,
//!    summed by Smith's doubling. The doubling's rounding errors grow with the horizon it
//!    needs (of order the slowest closed-loop time constant in samples, 10⁴ and more at
//!    high sample rates) and, with time scales far apart, left residuals up to 10⁻⁸; a
//!    Newton step from there brings the residual to rounding, and P to the accuracy its
//!    conditioning allows.
//!
//! 4. **A stabilizing start**, when this fails and [`boundary_cause`] finds no reason: an
//!    unstable mode that Q does not see costs nothing over any finite horizon, so the
//!    doubling converges to a solution that leaves it unstable, while the stabilizing
//!    solution exists. Hewer's iteration from the stabilizing gain of the same problem with
//!    Q + c I finds it (Newton steps from a stabilizing gain stay stabilizing and converge
//!    to the stabilizing solution).
//!
//! The result is checked: every eigenvalue of A − BK must lie inside the unit circle by
//! more than the rounding of its computation ([`UNIT_CIRCLE_MARGIN`]), and the residual
//! must be below [`RICCATI_RESIDUAL`] relative to its terms. A problem that fails is
//! diagnosed by [`boundary_cause`]: an unstable or marginal mode the input cannot move
//! ((A, B) not stabilizable), or a mode on the unit circle Q does not see ((Q, A) not
//! detectable there).
//!
//! References: E. K.-W. Chu, H.-Y. Fan, W.-W. Lin, "A structure-preserving doubling
//! algorithm for discrete-time algebraic Riccati equations", Linear Algebra Appl. 396
//! (2005) 55–80; G. A. Hewer, "An iterative technique for the computation of the steady
//! state gains for the discrete optimal regulator", IEEE Trans. Autom. Control 16 (1971)
//! 382–384; R. A. Smith, "Matrix equation XA + BX = C", SIAM J. Appl. Math. 16 (1968)
//! 198–201.

use super::riccati::{balance, boundary_cause, Boundary, RiccatiError};
use super::{eigenvalues, symmetric_part, times_pow2};
use crate::tolerances::{
    DOUBLING_ITERATIONS, DOUBLING_STALL, DOUBLING_STEP, HEWER_STEPS, RICCATI_REFINEMENT_PROGRESS,
    RICCATI_REFINEMENT_STEPS, RICCATI_RESIDUAL, UNIT_CIRCLE_MARGIN,
};
use nalgebra::DMatrix;

/// The stabilizing solution P of the discrete algebraic Riccati equation and the gain
/// K = (R + BᵀPB)⁻¹BᵀPA, for checked matrices (A n × n, B n × m, Q n × n symmetric
/// positive semidefinite, R m × m symmetric).
pub(crate) fn solve(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<(DMatrix<f64>, DMatrix<f64>), RiccatiError> {
    let (n, m) = b.shape();
    let chol = symmetric_part(r)
        .cholesky()
        .ok_or(RiccatiError::RNotPositiveDefinite)?;
    // G = BR⁻¹Bᵀ = FᵀF with F = L⁻¹Bᵀ: symmetric positive semidefinite by construction.
    let f = chol
        .l()
        .solve_lower_triangular(&b.transpose())
        .filter(|f| f.iter().all(|v| v.is_finite()))
        .ok_or(RiccatiError::BadlyScaled { matrix: "R" })?;
    // The balanced problem: Â = D⁻¹AD, Ĝ = D⁻¹GD⁻¹, Q̂ = DQD, B̂ = D⁻¹B, F̂ = FD⁻¹.
    let (mut a_b, mut g_b, mut q_b) = (a.clone(), symmetric_part(&f.tr_mul(&f)), symmetric_part(q));
    let delta = balance(&mut a_b, &mut g_b, &mut q_b);
    let b_b = DMatrix::from_fn(n, m, |i, j| times_pow2(b[(i, j)], -delta[i]));
    let f_b = DMatrix::from_fn(f.nrows(), n, |i, j| times_pow2(f[(i, j)], -delta[j]));
    let solved = match solve_balanced(&a_b, &b_b, &g_b, &q_b, r) {
        Err(error) => match boundary_cause(&a_b, &f_b, &q_b, Boundary::UnitCircle) {
            Some(cause) => return Err(cause),
            // Stabilizable, and no mode on the circle unseen by Q: a stabilizing solution
            // exists. The doubling (the cost over ever longer horizons) misses it when Q
            // does not see an unstable mode, which costs nothing over any finite horizon;
            // Newton steps from a stabilizing gain find it.
            None => stabilized(&a_b, &b_b, &g_b, &q_b, r).map_err(|_| error),
        },
        solved => solved,
    };
    // P = D⁻¹P̂D⁻¹, K = K̂D⁻¹, exact unless out of range.
    let (p, k) = solved?;
    let p = DMatrix::from_fn(n, n, |i, j| times_pow2(p[(i, j)], -delta[i] - delta[j]));
    let k = DMatrix::from_fn(m, n, |i, j| times_pow2(k[(i, j)], -delta[j]));
    for (matrix, x) in [("P", &p), ("K", &k)] {
        if !x.iter().all(|v| v.is_finite()) {
            return Err(RiccatiError::BadlyScaled { matrix });
        }
    }
    Ok((p, k))
}

/// The solution of the balanced problem (G = BR⁻¹Bᵀ given): doubling, Newton steps, and
/// the checks.
fn solve_balanced(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    g: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<(DMatrix<f64>, DMatrix<f64>), RiccatiError> {
    let p = doubling(a, g, q)?;
    checked(a, b, q, r, newton(a, b, q, r, p))
}

/// The stabilizing solution by Hewer's iteration from the stabilizing gain of the problem
/// with Q + c I (c the size of Q, or 1/‖G‖ for Q = 0), which sees every mode: Newton steps
/// from a stabilizing gain keep it stabilizing and converge to the stabilizing solution
/// when one exists (Hewer 1971), monotonically, though not at first by halving the
/// residual; so up to [`HEWER_STEPS`] steps are taken while they change P by more than
/// rounding, then the polishing of [`solve_balanced`].
fn stabilized(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    g: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<(DMatrix<f64>, DMatrix<f64>), RiccatiError> {
    let n = a.nrows();
    let c = if q.amax() > 0.0 {
        q.amax()
    } else if g.amax() > 0.0 {
        1.0 / g.amax()
    } else {
        1.0
    };
    let seeing = q + DMatrix::<f64>::identity(n, n) * c;
    let mut p = doubling(a, g, &seeing)?;
    for _ in 0..HEWER_STEPS {
        let Some(delta) = hewer_correction(a, b, q, r, &p) else {
            break;
        };
        let change = delta.amax();
        p = symmetric_part(&(&p + delta));
        if change <= DOUBLING_STEP * p.amax() {
            break;
        }
    }
    checked(a, b, q, r, newton(a, b, q, r, p))
}

/// (P, K) when A − BK is stable by a margin and the residual small, else the error.
fn checked(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
    p: DMatrix<f64>,
) -> Result<(DMatrix<f64>, DMatrix<f64>), RiccatiError> {
    let n = a.nrows();
    let (k, _) = gain_and_residual(a, b, q, r, &p).ok_or(RiccatiError::NoStabilizingSolution)?;
    let closed = a - b * &k;
    // Inside the unit circle by more than the rounding of the multipliers: the QR
    // iteration gives the eigenvalues of a matrix within a few n ε ‖A_c‖ of A_c, and a
    // multiplier that close to the circle cannot be told from one on it (a mode the input
    // cannot move, left at z = 1 − 2⁻⁵² by the rounding of the data).
    let margin = UNIT_CIRCLE_MARGIN * n as f64 * f64::EPSILON * closed.norm();
    let stable = eigenvalues(&closed).is_some_and(|e| e.iter().all(|z| z.norm() < 1.0 - margin));
    if !stable {
        return Err(RiccatiError::NoStabilizingSolution);
    }
    if relative_residual(a, b, q, r, &p) > RICCATI_RESIDUAL {
        return Err(RiccatiError::BadlyScaled { matrix: "P" });
    }
    Ok((p, k))
}

/// The structure-preserving doubling algorithm from G₀ = G, H₀ = Q, A₀ = A: P = lim Hₖ.
fn doubling(
    a: &DMatrix<f64>,
    g: &DMatrix<f64>,
    q: &DMatrix<f64>,
) -> Result<DMatrix<f64>, RiccatiError> {
    let n = a.nrows();
    let mut g = g.clone();
    let mut h = q.clone();
    let mut ak = a.clone();
    let identity = DMatrix::<f64>::identity(n, n);
    let mut change = f64::INFINITY;
    let mut converged = n == 0;
    let mut iterations = 0;
    while !converged && iterations < DOUBLING_ITERATIONS {
        iterations += 1;
        let w = &identity + &g * &h;
        // Wₖ⁻¹ [Aₖ, Gₖ] in one solve.
        let mut rhs = DMatrix::zeros(n, 2 * n);
        rhs.columns_mut(0, n).copy_from(&ak);
        rhs.columns_mut(n, n).copy_from(&g);
        let x = solve_dense(w, &rhs).ok_or(RiccatiError::NoStabilizingSolution)?;
        let (wa, wg) = (x.columns(0, n), x.columns(n, n));
        let next_h = symmetric_part(&(&h + ak.transpose() * &h * wa));
        let next_g = symmetric_part(&(&g + &ak * wg * ak.transpose()));
        let next_a = &ak * wa;
        let previous = change;
        change = (&next_h - &h).amax() / next_h.amax().max(f64::MIN_POSITIVE);
        if !(next_h.iter().chain(next_g.iter()).chain(next_a.iter())).all(|v| v.is_finite()) {
            // Aₖ tends to zero when a stabilizing solution exists (it is the closed loop
            // over 2ᵏ steps); one that has not shrunk below one is an unstable mode the
            // input cannot reach, whose cost grows without bound.
            return Err(if ak.amax() >= 1.0 {
                RiccatiError::NoStabilizingSolution
            } else {
                RiccatiError::BadlyScaled { matrix: "P" }
            });
        }
        // Converged: a change of rounding size, or one that has stopped shrinking once
        // small (rounding noise in an ill-conditioned P; the Newton steps and the residual
        // check below decide).
        converged =
            change <= DOUBLING_STEP || (previous <= DOUBLING_STALL && change >= previous / 2.0);
        (h, g, ak) = (next_h, next_g, next_a);
    }
    if converged {
        Ok(h)
    } else {
        Err(RiccatiError::NoConvergence { iterations, change })
    }
}

/// Up to [`RICCATI_REFINEMENT_STEPS`] Newton steps on the Riccati equation from `p`
/// ([`hewer_correction`]): with
/// A_c = A − BK, K = (R + BᵀPB)⁻¹BᵀPA, the correction Δ solves
/// A_cᵀΔA_c − Δ + Res(P) = 0 (the derivative of the residual at P is Δ ↦ A_cᵀΔA_c − Δ).
/// Kept while they bring the [`relative_residual`] below [`RICCATI_REFINEMENT_PROGRESS`]
/// times the last (a halving, as for the continuous solver).
fn newton(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
    mut p: DMatrix<f64>,
) -> DMatrix<f64> {
    let mut size = relative_residual(a, b, q, r, &p);
    for _ in 0..RICCATI_REFINEMENT_STEPS {
        if size <= f64::EPSILON || size.is_nan() {
            break;
        }
        let Some(delta) = hewer_correction(a, b, q, r, &p) else {
            break;
        };
        let next = symmetric_part(&(&p + delta));
        let next_size = relative_residual(a, b, q, r, &next);
        if next_size >= RICCATI_REFINEMENT_PROGRESS * size || next_size.is_nan() {
            break;
        }
        (p, size) = (next, next_size);
    }
    p
}

/// The correction of one Newton (Hewer) step of the discrete Riccati equation from P: the
/// gain K of P, then the Stein solution for A − BK and the residual of P. `None` when the
/// gain or the Stein equation cannot be solved.
fn hewer_correction(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
    p: &DMatrix<f64>,
) -> Option<DMatrix<f64>> {
    let (k, residual) = gain_and_residual(a, b, q, r, p)?;
    stein(&(a - b * k), &residual)
}

/// X with AᵀXA − X + C = 0 (the Stein equation) for an A with every eigenvalue inside the
/// unit circle: X = Σₖ (Aᵀ)ᵏ C Aᵏ, summed by Smith's doubling, X ← X + AⱼᵀXAⱼ with
/// Aⱼ₊₁ = Aⱼ², until ‖Aⱼ‖_F² ≤ ε (the rest of the sum is then below rounding). `None`
/// when that takes more than [`DOUBLING_ITERATIONS`] (a horizon of 2⁶⁰ steps: A not
/// stable enough) or X is not finite.
fn stein(a: &DMatrix<f64>, c: &DMatrix<f64>) -> Option<DMatrix<f64>> {
    let mut x = symmetric_part(c);
    let mut aj = a.clone();
    for _ in 0..DOUBLING_ITERATIONS {
        x = symmetric_part(&(&x + aj.transpose() * &x * &aj));
        aj = &aj * &aj;
        if !x.iter().chain(aj.iter()).all(|v| v.is_finite()) {
            return None;
        }
        if aj.norm_squared() <= f64::EPSILON {
            return Some(x);
        }
    }
    None
}

/// K = (R + BᵀPB)⁻¹BᵀPA and the residual AᵀPA − P − AᵀPB K + Q; `None` when R + BᵀPB
/// is singular or the result not finite.
fn gain_and_residual(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
    p: &DMatrix<f64>,
) -> Option<(DMatrix<f64>, DMatrix<f64>)> {
    let btp = b.transpose() * p;
    let k = solve_dense(symmetric_part(&(r + &btp * b)), &(&btp * a))?;
    let atp = a.transpose() * p;
    let residual = symmetric_part(&(&atp * a - p - (&atp * b) * &k + q));
    residual
        .iter()
        .all(|v| v.is_finite())
        .then_some((k, residual))
}

/// The largest entry of AᵀPA − P − AᵀPB (R + BᵀPB)⁻¹ BᵀPA + Q relative to the largest
/// entry of its terms.
pub(crate) fn relative_residual(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
    p: &DMatrix<f64>,
) -> f64 {
    let atp = a.transpose() * p;
    let apa = &atp * a;
    let apb = &atp * b;
    let Some(solved) = solve_dense(r + b.transpose() * p * b, &apb.transpose()) else {
        return f64::INFINITY;
    };
    let correction = &apb * solved;
    let residual = &apa - p - &correction + q;
    let scale = [apa.amax(), p.amax(), correction.amax(), q.amax()]
        .into_iter()
        .fold(f64::MIN_POSITIVE, f64::max);
    residual.amax() / scale
}

/// `a⁻¹ b` by LU with partial pivoting, `None` when `a` is singular or the solution is not
/// finite.
fn solve_dense(a: DMatrix<f64>, b: &DMatrix<f64>) -> Option<DMatrix<f64>> {
    a.lu().solve(b).filter(|x| x.iter().all(|v| v.is_finite()))
}
