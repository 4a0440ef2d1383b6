//! The stabilizing solution of the discrete algebraic Riccati equation
//!
//! ```text
//! P = AᵀPA − AᵀPB (R + BᵀPB)⁻¹ BᵀPA + Q
//! ```
//!
//! by the structure-preserving doubling algorithm (SDA): with G₀ = BR⁻¹Bᵀ, H₀ = Q, A₀ = A,
//!
//! ```text
//! Wₖ = I + Gₖ Hₖ
//! Aₖ₊₁ = Aₖ Wₖ⁻¹ Aₖ
//! Gₖ₊₁ = Gₖ + Aₖ Wₖ⁻¹ Gₖ Aₖᵀ
//! Hₖ₊₁ = Hₖ + Aₖᵀ Hₖ Wₖ⁻¹ Aₖ
//! ```
//!
//! Hₖ converges to P quadratically when the stabilizing solution exists and no eigenvalue
//! of the symplectic pencil lies on the unit circle (Hₖ is the cost of the first 2ᵏ
//! steps of the optimal control problem). Wₖ is nonsingular for G, H positive
//! semidefinite. The result is checked: A − BK (K = (R + BᵀPB)⁻¹BᵀPA) must have every
//! eigenvalue inside the unit circle, and the residual must be below
//! [`RICCATI_RESIDUAL`] relative to its terms.
//!
//! Reference: E. K.-W. Chu, H.-Y. Fan, W.-W. Lin, "A structure-preserving doubling
//! algorithm for discrete-time algebraic Riccati equations", Linear Algebra Appl. 396
//! (2005) 55–80.

use super::riccati::RiccatiError;
use super::{eigenvalues, symmetric_part};
use crate::tolerances::{DOUBLING_ITERATIONS, DOUBLING_STALL, DOUBLING_STEP, RICCATI_RESIDUAL};
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
    let n = a.nrows();
    let chol = symmetric_part(r)
        .cholesky()
        .ok_or(RiccatiError::RNotPositiveDefinite)?;
    // G = BR⁻¹Bᵀ = FᵀF with F = L⁻¹Bᵀ: symmetric positive semidefinite by construction.
    let f = chol
        .l()
        .solve_lower_triangular(&b.transpose())
        .ok_or(RiccatiError::RNotPositiveDefinite)?;
    let mut g = f.tr_mul(&f);
    let mut h = symmetric_part(q);
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
        // small (rounding noise in an ill-conditioned P; the residual check below decides).
        converged =
            change <= DOUBLING_STEP || (previous <= DOUBLING_STALL && change >= previous / 2.0);
        (h, g, ak) = (next_h, next_g, next_a);
    }
    if !converged {
        return Err(RiccatiError::NoConvergence { iterations, change });
    }
    let p = h;
    // K = (R + BᵀPB)⁻¹ BᵀPA, and the checks: a stable closed loop, a small residual.
    let btp = b.transpose() * &p;
    let k = solve_dense(symmetric_part(&(r + &btp * b)), &(&btp * a))
        .ok_or(RiccatiError::NoStabilizingSolution)?;
    let closed = a - b * &k;
    let stable = eigenvalues(&closed).is_some_and(|e| e.iter().all(|z| z.norm() < 1.0));
    if !stable {
        return Err(RiccatiError::NoStabilizingSolution);
    }
    if relative_residual(a, b, q, r, &p) > RICCATI_RESIDUAL {
        return Err(RiccatiError::BadlyScaled { matrix: "P" });
    }
    Ok((p, k))
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
