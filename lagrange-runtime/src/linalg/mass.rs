//! Solving with a mass matrix, and saying why it cannot be done: a velocity the kinetic
//! energy lacks, a singular or an indefinite matrix.

use super::Ldlt;
use crate::error::DynamicsError;
use crate::scalar::Scalar;
use nalgebra::{Cholesky, Const, SMatrix, SVector};

/// Whether a Cholesky pivot d = l_jj² (for L D Lᵀ: d_j) is clearly positive against the
/// diagonal entry it came from: above `threshold` times it; false for NaN. And whether that
/// diagonal entry itself counts against `largest`, the largest diagonal entry of the
/// matrix: a velocity whose inertia is at most
/// [`NEGLIGIBLE_INERTIA`](crate::tolerances::NEGLIGIBLE_INERTIA) (ε²) times the largest has
/// none, to working precision (the azimuth of a spherical pendulum within 2e-16 of its
/// pole). [`diagnose`] then names it.
pub(crate) fn clear_pivot(d: f64, diagonal: f64, threshold: f64, largest: f64) -> bool {
    d > 0.0
        && d > threshold * diagonal
        && diagonal > crate::tolerances::NEGLIGIBLE_INERTIA * largest
}

/// The largest diagonal entry of a mass matrix (its largest entry when it is positive
/// definite), the scale of [`clear_pivot`]; NaN for a NaN entry.
pub(crate) fn largest_diagonal<S: Scalar, const N: usize>(mass: &SMatrix<S, N, N>) -> f64 {
    (0..N).fold(0.0, |m: f64, j| {
        let d = mass[(j, j)].re();
        if d.is_nan() || m.is_nan() {
            f64::NAN
        } else {
            m.max(d)
        }
    })
}

/// Solves `mass · x = rhs` by Cholesky ([`cholesky_solve`](super::cholesky_solve) first, the cheap path), or says
/// why the mass matrix does not allow it, naming the `coordinates` of its rows.
pub(crate) fn solve_mass<const N: usize>(
    mass: &SMatrix<f64, N, N>,
    rhs: &SVector<f64, N>,
    coordinates: &[&'static str; N],
) -> Result<SVector<f64, N>, DynamicsError> {
    if let Some(x) = Ldlt::factor(mass).map(|f| f.solve(rhs))
        && x.iter().all(|x| x.is_finite())
    {
        return Ok(x);
    }
    factor_mass(mass, coordinates).map(|chol| chol.solve(rhs))
}

/// The Cholesky factor of the mass matrix, or why it has none (naming the `coordinates` of
/// its rows).
pub(crate) fn factor_mass<const N: usize>(
    mass: &SMatrix<f64, N, N>,
    coordinates: &[&'static str; N],
) -> Result<Cholesky<f64, Const<N>>, DynamicsError> {
    if !mass.iter().all(|x| x.is_finite()) {
        return Err(DynamicsError::NonFiniteResult {
            quantity: "mass matrix",
        });
    }
    if let Some(chol) = mass.cholesky() {
        let l = chol.l_dirty();
        let largest = largest_diagonal(mass);
        if (0..N).all(|i| {
            clear_pivot(
                l[(i, i)] * l[(i, i)],
                mass[(i, i)],
                crate::tolerances::SINGULAR_MASS,
                largest,
            )
        }) {
            return Ok(chol);
        }
    }
    Err(diagnose(mass, coordinates))
}

/// Why the mass matrix has no Cholesky factor: a row of zeros (the velocity of that
/// coordinate is missing from the kinetic energy), a singular or an indefinite matrix.
fn diagnose<const N: usize>(
    mass: &SMatrix<f64, N, N>,
    coordinates: &[&'static str; N],
) -> DynamicsError {
    let scale = mass.amax().max(f64::MIN_POSITIVE);
    let tiny = f64::EPSILON * scale;
    // A row of rounding noise, or a diagonal entry that `clear_pivot` calls negligible (a
    // clearly negative one makes the matrix indefinite, below).
    let negligible = crate::tolerances::NEGLIGIBLE_INERTIA * largest_diagonal(mass);
    let missing = |i: usize| mass.row(i).amax() <= tiny || mass[(i, i)].abs() <= negligible;
    if let Some(i) = (0..N).find(|&i| missing(i)) {
        return DynamicsError::MissingVelocity {
            coordinate: coordinates[i],
        };
    }
    // Positive semi-definite (singular) matrices become definite under a small shift;
    // indefinite ones do not.
    let shifted = mass
        + SMatrix::<f64, N, N>::identity() * (crate::tolerances::SEMIDEFINITE_MASS_SHIFT * tiny);
    if shifted.cholesky().is_some() {
        DynamicsError::SingularMassMatrix
    } else {
        DynamicsError::IndefiniteMassMatrix
    }
}
