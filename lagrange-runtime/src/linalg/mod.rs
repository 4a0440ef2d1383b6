//! Dense linear algebra on stack matrices of a const-generic size:
//!
//! - [`lu`]: LU with partial pivoting in any [`Scalar`](crate::model::Scalar) (dual numbers
//!   differentiate the solution), for the general systems of the constrained solver, the
//!   integrators' Newton iterations and equilibria;
//! - [`ldlt`]: the square-root-free Cholesky factorization L D Lᵀ of a mass matrix, the
//!   fast path of every acceleration;
//! - [`mass`]: the solve with a mass matrix that says why it fails (a velocity missing from
//!   the kinetic energy, a singular or an indefinite matrix).

mod ldlt;
mod lu;
mod mass;

pub(crate) use ldlt::{cholesky_solve, Ldlt};
pub(crate) use lu::{solve, solve_columns, solve_damped_normal, Lu};
pub(crate) use mass::{factor_mass, solve_mass};
