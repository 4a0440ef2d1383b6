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

/// [`weight`] for a mass matrix, in any scalar from the real parts: ρ JᵀJ of the size of
/// M's diagonal on the coordinates the constraints involve (the block it completes), read
/// off the diagonal, which holds M's largest entries when M is positive semidefinite
/// (|Mᵢⱼ| ≤ √(Mᵢᵢ Mⱼⱼ)), the case this weight completes; N entries instead of N², and no
/// copy of M. Not M's largest entry over all coordinates: a floating base's quaternion
/// (C = W(n)/|n|², so its entries are the rotational inertia / |n|², J = 2n) next to the
/// base's mass would be completed by ρ JᵀJ of the mass's size, |n|² m / I times its own,
/// and eliminating that cancels M's digits on the quaternion (at |n| = 1e3 the singular
/// pivot of a base whose turn a joint repeats came out at ±1e-9 of its diagonal, above
/// `SINGULAR_MASS`). M's largest where the involved coordinates carry no inertia at all
/// (at most `NEGLIGIBLE_INERTIA` of it): a velocity only a constraint fixes.
pub(crate) fn mass_weight<S: Scalar, const N: usize, const K: usize>(
    mass: &SMatrix<S, N, N>,
    j: &SMatrix<S, K, N>,
) -> f64 {
    let j = j.map(|x| x.re());
    let largest = super::mass::largest_diagonal(mass);
    let involved = (0..N)
        .filter(|&c| (0..K).any(|r| j[(r, c)] != 0.0))
        .fold(0.0, |m: f64, c| m.max(mass[(c, c)].re()));
    let scale = if involved > tolerances::NEGLIGIBLE_INERTIA * largest {
        involved
    } else {
        largest
    };
    ratio(scale, &j)
}

/// m / max|J|², both kept away from zero.
fn ratio<const N: usize, const K: usize>(m: f64, j: &SMatrix<f64, K, N>) -> f64 {
    let j_scale = j.amax();
    m.max(f64::MIN_POSITIVE) / (j_scale * j_scale).max(f64::MIN_POSITIVE)
}
