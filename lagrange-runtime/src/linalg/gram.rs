//! The Gram matrices of a constraint Jacobian J: J Jᵀ, made regular where a row of J is
//! zero, and the weight ρ that makes ρ JᵀJ the size of a matrix it completes.

use crate::scalar::Scalar;
use crate::tolerances;
use nalgebra::SMatrix;

/// J Jᵀ with a 1 on the diagonal of every row of J that is zero (a nonholonomic row at
/// position level, or a constraint on held coordinates only): such rows get no correction
/// instead of making the system singular. In any scalar, the test on the real parts.
pub(crate) fn gram_with_idle_rows<S: Scalar, const N: usize, const K: usize>(
    j: &SMatrix<S, K, N>,
) -> SMatrix<S, K, K> {
    let mut g = j * j.transpose();
    let size = |row: usize| (0..N).map(|c| j[(row, c)].re().abs()).fold(0.0, f64::max);
    let scale = (0..K).map(size).fold(0.0, f64::max);
    for k in 0..K {
        if size(k) <= tolerances::IDLE_ROW * scale {
            g[(k, k)] += S::one();
        }
    }
    g
}

/// ρ = max|M| / max|J|²: M and ρ JᵀJ of the same size (M a mass matrix, or a Newton
/// Jacobian that plays its part).
pub(crate) fn weight<const N: usize, const K: usize>(
    mass: &SMatrix<f64, N, N>,
    j: &SMatrix<f64, K, N>,
) -> f64 {
    ratio(mass.amax(), j)
}

/// [`weight`] for a mass matrix, in any scalar from the real parts: max|M| read off the
/// diagonal, which holds it when M is positive semidefinite (|Mᵢⱼ| ≤ √(Mᵢᵢ Mⱼⱼ)), the
/// case this weight completes; N entries instead of N², and no copy of M.
pub(crate) fn mass_weight<S: Scalar, const N: usize, const K: usize>(
    mass: &SMatrix<S, N, N>,
    j: &SMatrix<S, K, N>,
) -> f64 {
    ratio(super::mass::largest_diagonal(mass), &j.map(|x| x.re()))
}

/// m / max|J|², both kept away from zero.
fn ratio<const N: usize, const K: usize>(m: f64, j: &SMatrix<f64, K, N>) -> f64 {
    let j_scale = j.amax();
    m.max(f64::MIN_POSITIVE) / (j_scale * j_scale).max(f64::MIN_POSITIVE)
}
