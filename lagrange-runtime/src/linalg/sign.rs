//! The matrix sign function: sign(H) is −1 on the invariant subspace of the eigenvalues of
//! H with negative real part and +1 on that of those with positive real part, defined when
//! no eigenvalue lies on the imaginary axis. It is the limit of Newton's iteration
//! Z ← (Z/c + c Z⁻¹)/2 from Z = H, with the determinant scaling c = |det Z|^(1/n) that
//! makes it converge in a few tens of steps even for eigenvalues of very different
//! magnitudes; it converges quadratically (N. J. Higham, "Functions of Matrices", SIAM
//! 2008, ch. 5).

use crate::tolerances::{
    EIGENVALUE_ITERATIONS, IMAGINARY_AXIS, SIGN_CONVERGED as CONVERGED,
    SIGN_ITERATIONS as MAX_ITERATIONS,
};
use nalgebra::{Complex, DMatrix, Schur};

/// Why the sign function of a matrix could not be computed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SignError {
    /// An eigenvalue on the imaginary axis, to within [`IMAGINARY_AXIS`] of the size of
    /// the matrix: the one closest to it.
    ImaginaryAxis(Complex<f64>),
    /// No eigenvalue was found on the axis, but the iteration did not converge.
    NoConvergence {
        /// Iterations made.
        iterations: usize,
        /// The last relative change ‖Zₖ₊₁ − Zₖ‖₁ / ‖Zₖ₊₁‖₁.
        change: f64,
    },
    /// The iteration converged, but its last, unscaled step met a singular iterate.
    SingularLastStep,
}

/// The matrix sign function of `h` by the scaled Newton iteration.
pub(crate) fn sign(h: DMatrix<f64>) -> Result<DMatrix<f64>, SignError> {
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
            return newton_step(&z, false).ok_or(SignError::SingularLastStep);
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
/// within [`IMAGINARY_AXIS`] of the spectrum's size, else a plain failure to converge.
fn imaginary_axis_or(h: DMatrix<f64>, iterations: usize, change: f64) -> SignError {
    let size = h.amax().max(f64::MIN_POSITIVE);
    let closest = Schur::try_new(h, f64::EPSILON, EIGENVALUE_ITERATIONS).and_then(|schur| {
        schur
            .complex_eigenvalues()
            .iter()
            .copied()
            .min_by(|x, y| x.re.abs().total_cmp(&y.re.abs()))
    });
    match closest {
        Some(eigenvalue) if eigenvalue.re.abs() <= IMAGINARY_AXIS * size => {
            SignError::ImaginaryAxis(eigenvalue)
        }
        _ => SignError::NoConvergence { iterations, change },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_of_a_diagonalizable_matrix() {
        // Eigenvalues 3, −1/2 and −100 under a similarity: sign = T diag(1, −1, −1) T⁻¹.
        let t = DMatrix::from_row_slice(3, 3, &[1.0, 2.0, 0.0, 0.0, 1.0, -1.0, 1.0, 0.0, 3.0]);
        let t_inv = t.clone().try_inverse().unwrap();
        let diagonal = |v: [f64; 3]| DMatrix::from_diagonal(&nalgebra::DVector::from_row_slice(&v));
        let h = &t * diagonal([3.0, -0.5, -100.0]) * &t_inv;
        let want = &t * diagonal([1.0, -1.0, -1.0]) * &t_inv;
        let w = sign(h).unwrap();
        assert!((&w - &want).amax() < 1e-12 * want.amax(), "{w}");
    }

    #[test]
    fn eigenvalues_on_the_axis_are_reported() {
        let rotation = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -1.0, 0.0]);
        let Err(SignError::ImaginaryAxis(eigenvalue)) = sign(rotation) else {
            panic!("±i must be found on the axis");
        };
        assert!((eigenvalue.im.abs() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_axis_tolerance_is_the_square_root_of_epsilon() {
        assert_eq!(IMAGINARY_AXIS, f64::EPSILON.sqrt());
    }
}
