//! Dense linear algebra: on stack matrices of a const-generic size for the dynamics, on
//! dynamically sized ones for the analysis and the control design. Free of model types:
//! it reads only the [`Scalar`](crate::model::Scalar) trait, the
//! [`tolerances`](crate::tolerances) and, for the mass matrix's diagnosis,
//! [`DynamicsError`](crate::DynamicsError); nothing here imports the modules that use it.
//!
//! - [`lu`]: LU with partial pivoting in any [`Scalar`](crate::model::Scalar) (dual numbers
//!   differentiate the solution), for the general systems of the constrained solver, the
//!   integrators' Newton iterations and equilibria;
//! - [`ldlt`]: the square-root-free Cholesky factorization L D Lᵀ of a mass matrix, the
//!   fast path of every acceleration;
//! - [`tree`]: the same along the kinematic tree of a branched model, where M is
//!   mostly structurally zero;
//! - [`kkt`]: the equations of motion with constraints (the KKT system), in any scalar:
//!   the mass matrix completed by the constraints when only semidefinite, the multipliers
//!   through the Schur complement;
//! - [`mass`]: the solve with a mass matrix that says why it fails (a velocity missing from
//!   the kinetic energy, a singular or an indefinite matrix);
//! - [`gram`]: the Gram matrix J Jᵀ of a constraint Jacobian with its zero rows made
//!   regular, and the weight of ρ JᵀJ beside a mass matrix;
//! - [`null_space`](mod@null_space): an orthonormal basis of the null space of a matrix that keeps the
//!   variables it does not involve as exact unit vectors (the tangent space of the
//!   constraint manifold);
//! - [`eigenvalues`](mod@eigenvalues): the eigenvalues of a general real matrix (those its structure
//!   isolates, exactly, then the real Schur form), and whether a matrix is stable;
//! - [`scaling`]: exact scaling by powers of two, over the whole exponent range, and the
//!   symmetric part of a matrix;
//! - [`sign`]: the matrix sign function by the scaled Newton iteration;
//! - [`lyapunov`]: the continuous Lyapunov equation AᵀX + XA + C = 0;
//! - [`riccati`]: the stabilizing solution of the continuous algebraic Riccati equation,
//!   the numerical core of [`control`](crate::control);
//! - [`discrete_riccati`]: that of the discrete algebraic Riccati equation, by doubling.

pub(crate) mod discrete_riccati;
mod eigenvalues;
pub(crate) mod gram;
pub(crate) mod kkt;
mod ldlt;
mod lu;
mod lyapunov;
mod mass;
mod null_space;
pub(crate) mod riccati;
mod scaling;
mod sign;
pub(crate) mod tree;

/// A factorization M = L D Lᵀ (dense, [`Ldlt`]) or Lᵀ D L (along a tree,
/// [`tree::TreeLdlt`]) that solves with M and gives the half of a solve whose products
/// make a Schur complement: J M⁻¹ Jᵀ = Yᵀ D⁻¹ Y for the columns Y = `half`(Jᵀ), at half
/// the cost of solving for M⁻¹ Jᵀ (and on a tree, a column of one branch stays on it).
pub(crate) trait Factor<S, const N: usize> {
    /// x of M x = rhs.
    fn solve(&self, rhs: &nalgebra::SVector<S, N>) -> nalgebra::SVector<S, N>;
    /// The first triangular solve of [`solve`](Factor::solve).
    fn half(&self, rhs: &nalgebra::SVector<S, N>) -> nalgebra::SVector<S, N>;
    /// D⁻¹'s diagonal.
    fn inverse_pivots(&self) -> &[S; N];
}

pub(crate) use eigenvalues::eigenvalues;
pub(crate) use gram::{gram_with_idle_rows, weight};
pub(crate) use ldlt::{cholesky_solve, Ldlt};
pub(crate) use lu::{solve, solve_columns, solve_damped_normal, Lu};
pub(crate) use mass::{clear_pivot, factor_mass, solve_mass};
pub(crate) use null_space::null_space;
pub(crate) use scaling::{normalized, symmetric_part, times_pow2};
pub use tree::{MassTree, NO_PARENT};

/// Whether every number of `values` is finite, without a branch per number (the
/// derivatives of a G1's linearization are 9 000 numbers): a fold of the comparisons,
/// which the compiler turns into vector compares.
pub(crate) fn all_finite(values: &[f64]) -> bool {
    values.iter().fold(true, |finite, x| finite & x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::all_finite;

    #[test]
    fn finds_every_number_that_is_not_finite() {
        for len in [0, 1, 7, 8, 9, 16, 37] {
            let values: Vec<f64> = (0..len).map(|k| f64::MAX - k as f64).collect();
            assert!(all_finite(&values), "{len}");
            for bad in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
                for at in 0..len {
                    let mut v = values.clone();
                    v[at] = bad;
                    assert!(!all_finite(&v), "{bad} at {at} of {len}");
                }
            }
        }
    }
}
