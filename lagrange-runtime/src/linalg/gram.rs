//! The Gram matrices of a constraint Jacobian J: J Jᵀ, made regular where a row of J is
//! zero, and the weight ρ that makes ρ JᵀJ the size of a matrix it completes.

use crate::terms::Scalar;
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
/// In any scalar, from the real parts (read in place: no copy of M).
pub(crate) fn weight<S: Scalar, const N: usize, const K: usize>(
    mass: &SMatrix<S, N, N>,
    j: &SMatrix<S, K, N>,
) -> f64 {
    let largest = |m: f64, x: &S| m.max(x.re().abs());
    let j_scale = j.iter().fold(0.0, largest);
    let m_scale = mass.iter().fold(0.0, largest);
    m_scale.max(f64::MIN_POSITIVE) / (j_scale * j_scale).max(f64::MIN_POSITIVE)
}
