//! The continuous Lyapunov equation AᵀX + XA + C = 0 for a stable A, by the sign function
//! of a block triangular matrix (J. D. Roberts, "Linear model reduction and solution of the
//! algebraic Riccati equation by use of the sign function", Int. J. Control 32 (1980)
//! 677–687, report of 1971).

use crate::tolerances::{SIGN_CONVERGED as CONVERGED, SIGN_ITERATIONS as MAX_ITERATIONS};
use nalgebra::DMatrix;

/// X with AᵀX + XA + C = 0 for a stable A, by the sign function of the block triangular
/// [[A, 0], [C, −Aᵀ]] (Roberts 1971): its iterates keep that form, (Aₖ, Cₖ) → (−I, 2X)
/// with Aₖ₊₁ = (Aₖ/c + c Aₖ⁻¹)/2 and Cₖ₊₁ = (Cₖ/c + c Aₖ⁻ᵀCₖAₖ⁻¹)/2, c = |det Aₖ|^(1/n).
/// `None` when it does not converge (A not stable enough).
pub(crate) fn lyapunov(a: &DMatrix<f64>, c: &DMatrix<f64>) -> Option<DMatrix<f64>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_stable_lyapunov_equation() {
        let a = DMatrix::from_row_slice(3, 3, &[-1.0, 2.0, 0.0, 0.0, -3.0, 1.0, 0.5, 0.0, -2.0]);
        let c = DMatrix::from_row_slice(3, 3, &[2.0, 1.0, 0.0, 1.0, 3.0, -1.0, 0.0, -1.0, 1.0]);
        let x = lyapunov(&a, &c).unwrap();
        let residual = a.transpose() * &x + &x * &a + &c;
        assert!(residual.amax() < 1e-13 * c.amax(), "{residual}");
    }

    #[test]
    fn an_eigenvalue_at_zero_has_no_solution() {
        let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, -1.0]);
        assert_eq!(lyapunov(&a, &DMatrix::identity(2, 2)), None);
    }
}
