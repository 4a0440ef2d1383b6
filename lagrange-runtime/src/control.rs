//! Linear-quadratic regulators: the continuous algebraic Riccati equation and the optimal
//! state-feedback gain.
//!
//! For ẋ = A x + B u, the input u = −K x minimising ∫ (xᵀQ x + uᵀR u) dt is given by
//! K = R⁻¹BᵀP, where P is the stabilizing solution of the continuous algebraic Riccati
//! equation (CARE)
//!
//! ```text
//! AᵀP + PA − PBR⁻¹BᵀP + Q = 0.
//! ```
//!
//! Together with [`linearize`](crate::linearize::linearize) this designs a controller for a
//! model around an equilibrium: [`lqr_gain`] takes the linearization (in independent
//! coordinates when the model has constraints) and returns a [`Gain`] in fixed-size blocks
//! whose [`law`](Gain::law) a [`Simulation`](crate::simulate::Simulation) takes as its
//! inputs; [`lqr`] is the same design on any `a`, `b`. [`Gain::closed_loop_spectrum`]
//! gives the eigenvalues, modes and stability of the closed loop the gain makes.
//!
//! For a controller that runs at a fixed sample rate and holds its output between samples,
//! [`c2d`] discretizes ẋ = A x + B u exactly with a zero-order hold, and [`dlqr`] (with
//! [`dare`], the discrete algebraic Riccati equation) designs the gain of
//! u_k = −K x_k on the result; [`dlqr_gain`] is that design around a linearization, whose
//! law a [`Sampled`](crate::simulate::Sampled) controller runs, and
//! [`Gain::sampled_closed_loop_spectrum`] gives the multipliers of the sampled closed loop
//! (a [`DiscreteSpectrum`]: stable when every |z| < 1).
//!
//! Integral action: [`lqi`] and [`dlqi`] design on the state augmented with the integral
//! of the error of chosen outputs y = C x, so that a constant reference is held without
//! steady error. Observers: [`lqe`] and [`dlqe`] give the steady-state Kalman gain from
//! measured outputs and the covariances of the process and measurement noise, by the dual
//! Riccati equations.
//!
//! # Method
//!
//! [`care`] uses the matrix sign function of the 2n × 2n Hamiltonian matrix
//!
//! ```text
//! H = [  A   −G  ]      G = B R⁻¹ Bᵀ,
//!     [ −Q   −Aᵀ ]
//! ```
//!
//! whose eigenvalues come in pairs λ, −λ. When none lies on the imaginary axis, its stable
//! invariant subspace (eigenvalues with Re λ < 0) is the range of [I; P] for the
//! stabilizing solution P: H [I; P] = [I; P] (A − G P). The sign function W = sign(H) is
//! −1 on that subspace and +1 on the other, so (W + I) [I; P] = 0, that is
//!
//! ```text
//! [   W₁₂   ] P = − [ W₁₁ + I ]
//! [ W₂₂ + I ]       [   W₂₁   ]
//! ```
//!
//! an overdetermined but consistent system, solved by least squares (an SVD) and
//! symmetrized. sign(H) is the limit of Newton's iteration Z ← (Z/c + c Z⁻¹)/2 from Z = H,
//! with the determinant scaling c = |det Z|^(1/2n) that makes it converge in a few tens of
//! steps even for eigenvalues of very different magnitudes; it converges quadratically.
//! The sign function is not backward stable on its own, so, as is customary, up to six
//! Newton (Kleinman) steps then polish P while they halve the residual: each solves the
//! Lyapunov equation (A − GP)ᵀΔ + Δ(A − GP) + Res(P) = 0, again with a sign iteration
//! (Roberts). The residual is measured entry by entry against the size of its terms, with
//! G = FᵀF (F = L⁻¹Bᵀ, R = LLᵀ) and PGP formed as (FP)ᵀ(FP), so that these steps also fix
//! the small entries of a P whose entries span many orders of magnitude; the size of entry
//! (i, j) counts as at least the geometric mean of the sizes of the diagonal entries i and
//! j, since an entry of P that is zero (two decoupled subsystems) or tiny next to Pᵢᵢ and
//! Pⱼⱼ is only ever computed to rounding errors of the size of those. The result is
//! checked: A − G P must be stable and that residual below 10⁻⁸.
//!
//! # Scaling
//!
//! Before the sign iteration the problem is scaled by powers of two, which is exact in
//! floating point, and the solution is scaled back; so the magnitudes of A, B, Q and R
//! themselves do not matter, only whether P and K, and the ratios that the problem depends
//! on, fit in double precision. The transformations, each an exact identity of the CARE:
//!
//! - weights: Q → αQ, R → αR give P → αP, K unchanged;
//! - input: u = β ũ, that is B → Bβ, R → Rβ², give P unchanged, K → K/β;
//! - states: x = D x̃ for a diagonal D, that is A → D⁻¹AD, B → D⁻¹B, Q → DQD, give
//!   P → DPD, K → KD (a uniform D = c I trades G against Q: G → G/c², Q → c²Q);
//! - time: t = τ t̃ multiplies A, G and Q, hence H, by τ; P and K are unchanged.
//!
//! B, R and Q are first split into a power of two and a matrix of size about 1, and
//! G = BR⁻¹Bᵀ is kept in that form (it may be far out of range when P is not). A uniform
//! state scaling then brings P to about 1 by the scalar estimate
//! p = (α + √(α² + ‖G‖‖Q‖)) / ‖G‖, α the largest real part of an eigenvalue of A (or 0): for
//! a stable A the geometric mean √(‖Q‖/‖G‖) of the common practice (Kenney, Laub and Wette)
//! and 2α/‖G‖ for an unstable A with a weak input. A diagonal state scaling balances the
//! Hamiltonian, with the symplectic similarity diag(D, D⁻¹) (Benner), and the time scaling
//! brings its largest entry to about 1. After a solve, when the diagonal of the scaled P is
//! far from 1 the states are rescaled by it and the problem solved again, a few times at
//! most: the large entries of P come out right even when the small ones do not, and a P
//! with a unit diagonal makes the stable subspace [I; P] well conditioned.
//!
//! What scaling cannot remove is reported as [`ControlError::BadlyScaled`]: P or K out of
//! the range of f64, or closed-loop time scales too far apart to resolve in double
//! precision. The latter happens with a Q very large or an R very small next to A (cheap
//! control) and fewer inputs than states: some closed-loop modes become as fast as
//! √(‖G‖‖Q‖) while others stay as slow as A, and the slow part of P is then lost in
//! rounding. Such a failure is told from a problem without a stabilizing solution by
//! solving the same problem with Q scaled down to ‖G‖‖Q‖ ≈ ‖A‖², which changes neither
//! stabilizability nor detectability.
//!
//! References: R. Byers, "Solving the algebraic Riccati equation with the matrix sign
//! function", Linear Algebra Appl. 85 (1987) 267–279; J. D. Roberts, "Linear model
//! reduction and solution of the algebraic Riccati equation by use of the sign function",
//! Int. J. Control 32 (1980) 677–687 (report of 1971); J. D. Gardiner and A. J. Laub, "A
//! generalization of the matrix-sign-function solution for algebraic Riccati equations",
//! Int. J. Control 44 (1986) 823–832; D. L. Kleinman, "On an iterative technique for
//! Riccati equation computations", IEEE Trans. Autom. Control 13 (1968) 114–115;
//! N. J. Higham, "Functions of Matrices" (SIAM 2008), ch. 5; C. Kenney, A. J. Laub and
//! M. Wette, "A stability-enhancing scaling procedure for Schur-Riccati solvers", Systems
//! Control Lett. 12 (1989); P. Benner, "Symplectic balancing of Hamiltonian matrices",
//! SIAM J. Sci. Comput. 22 (2001).
//!
//! # Requirements
//!
//! - Q symmetric positive semidefinite (checked: an eigenvalue below −100 n ε ‖Q‖₂ is
//!   an error, so that the rounding errors of a Q formed as CᵀC pass), R symmetric
//!   positive definite (checked by its Cholesky factorization).
//! - (A, B) stabilizable: every unstable mode of A can be moved by the input.
//! - (Q, A) detectable: every mode of A that Q does not see is stable.
//!
//! Under these conditions the stabilizing solution exists, is unique, symmetric and
//! positive semidefinite. A violation shows as a Hamiltonian eigenvalue on the imaginary
//! axis (a mode on the axis that is uncontrollable or unobserved) or as a sign matrix from
//! which no stabilizing P can be recovered (an unstable mode that the input cannot reach).
//! Since the rounding of the data moves such a mode off the axis by about ε, the iteration
//! may instead converge to a P out of all proportion; so whenever a solve fails, the modes
//! of A on or right of the axis are tested (Popov–Belevitch–Hautus: the rank of
//! [A − λI, B] and of [A − λI; Q], to √ε) and a mode found is reported:
//! [`ControlError::ImaginaryAxisEigenvalue`] for one on the axis that the input cannot
//! move or Q does not see, [`ControlError::NoStabilizingSolution`] for one right of the
//! axis that the input cannot move. The discrete equation ([`dare`]) is diagnosed the same
//! way on the unit circle.
//!
//! The matrices are dense [`DMatrix`]es and each call allocates: control design happens
//! once, before a simulation, not in its inner loop.
//!
//! # Example
//! The double integrator sampled every T with a zero-order hold ([`c2d`]):
//! A_d = [[1, T], [0, 1]], B_d = [T²/2, T]; then its discrete LQR ([`dlqr`]) stabilizes it,
//! every multiplier of A_d − B_d K inside the unit circle.
//! ```
//! use lagrange_runtime::control::{c2d, dlqr};
//! use lagrange_runtime::nalgebra::DMatrix;
//!
//! let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
//! let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
//! let t = 0.1;
//! let (ad, bd) = c2d(&a, &b, t).unwrap();
//! assert!((&ad - DMatrix::from_row_slice(2, 2, &[1.0, t, 0.0, 1.0])).amax() < 1e-15);
//! assert!((&bd - DMatrix::from_row_slice(2, 1, &[t * t / 2.0, t])).amax() < 1e-15);
//!
//! let (k, _p) = dlqr(&ad, &bd, &DMatrix::identity(2, 2), &DMatrix::identity(1, 1)).unwrap();
//! let closed = &ad - &bd * &k;
//! assert!(closed.complex_eigenvalues().iter().all(|z| z.norm() < 1.0));
//! ```

mod estimation;
mod integral;

pub use estimation::{dlqe, lqe};
pub use integral::{dlqi, lqi};

use crate::linalg::discrete_riccati;
use crate::linalg::riccati::{self, RiccatiError, Solution};
use crate::linalg::{normalized, symmetric_part, times_pow2};
use crate::linearize::Linearization;
use crate::stability::{Spectrum, Stability};
use crate::tolerances::{self, SEMIDEFINITE};
use crate::{DynamicsError, State};
use nalgebra::{Complex, DMatrix, SMatrix, SVector};
use std::fmt;

/// Why a Riccati equation or an LQR design could not be solved.
///
/// # Example
/// Matching on a variant: a weight Q of the wrong size is named with the shape it must have.
/// ```
/// use lagrange_runtime::control::{lqr, ControlError};
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]); // the double integrator
/// let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
/// match lqr(&a, &b, &DMatrix::identity(3, 3), &DMatrix::identity(1, 1)) {
///     Err(ControlError::DimensionMismatch { matrix, expected, found }) => {
///         assert_eq!((matrix, expected, found), ("Q", (2, 2), (3, 3)));
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ControlError {
    /// A matrix that must be square is not.
    NotSquare {
        /// Which one: `"A"`, `"Q"` or `"R"`.
        matrix: &'static str,
        /// Its number of rows.
        rows: usize,
        /// Its number of columns.
        columns: usize,
    },
    /// A matrix's shape does not fit the others (B must be n × m for an n × n A, Q n × n,
    /// R m × m).
    DimensionMismatch {
        /// Which one: `"B"`, `"Q"`, `"R"`, `"K"` (a gain given to [`Gain::from_matrix`]) or
        /// `"tangent"` (the tangent basis of a [`Linearization`]).
        matrix: &'static str,
        /// The shape (rows, columns) it must have.
        expected: (usize, usize),
        /// The shape it has.
        found: (usize, usize),
    },
    /// A matrix holds a NaN or an infinity.
    NonFinite {
        /// Which one: `"A"`, `"B"`, `"Q"` or `"R"`.
        matrix: &'static str,
    },
    /// Q or R is not symmetric (a weight xᵀQx only sees the symmetric part, so an
    /// asymmetric one is most likely a mistake).
    NotSymmetric {
        /// Which one: `"Q"` or `"R"`.
        matrix: &'static str,
    },
    /// Q is not positive semidefinite: some state would earn a reward rather than cost, so
    /// the cost has no minimum, and a solution of the Riccati equation would not be the
    /// optimal cost. Q counts as semidefinite when its smallest eigenvalue is at least
    /// −100 n ε ‖Q‖₂ (‖Q‖₂ its largest eigenvalue magnitude, ε the machine epsilon), which
    /// lets through the rounding errors of a semidefinite Q formed in floating point, such
    /// as CᵀC.
    QNotPositiveSemidefinite {
        /// The smallest eigenvalue of (the symmetric part of) Q.
        min_eigenvalue: f64,
    },
    /// R is not positive definite: some input combination would cost nothing, and the
    /// optimal gain would be infinite.
    RNotPositiveDefinite,
    /// The Hamiltonian matrix has an eigenvalue on the imaginary axis (or, after scaling,
    /// numerically indistinguishable from it): a mode of A on the axis is uncontrollable by
    /// B or unseen by Q, so no stabilizing solution exists.
    ImaginaryAxisEigenvalue {
        /// The eigenvalue of the Hamiltonian closest to the imaginary axis.
        eigenvalue: Complex<f64>,
    },
    /// The sign-function iteration did not converge although no eigenvalue of the
    /// Hamiltonian was found on the imaginary axis: a badly conditioned problem (for
    /// instance, eigenvalues of the Hamiltonian very close to the axis). The problem has
    /// already been scaled (see [Scaling](self#scaling)), so rescaling the states and
    /// inputs by hand does not help.
    NoConvergence {
        /// Iterations made.
        iterations: usize,
        /// The last relative change ‖Zₖ₊₁ − Zₖ‖₁ / ‖Zₖ₊₁‖₁.
        change: f64,
    },
    /// There is no stabilizing solution: (A, B) is not stabilizable (an unstable mode of A
    /// that the input cannot move; for the discrete equation also one on the unit circle,
    /// whose multiplier no input can bring inside), or the problem is too badly
    /// conditioned to tell.
    NoStabilizingSolution,
    /// The problem is too badly scaled for double precision, even after the automatic
    /// scaling (see [Scaling](self#scaling)); the magnitudes, not the controllability, are
    /// the cause. Either a quantity is out of the range of f64: the solution P or the gain
    /// K overflows, R is so nearly singular that R⁻¹Bᵀ overflows, or one of A, BR⁻¹Bᵀ and Q
    /// is so much smaller than the others that it underflows and the problem without it
    /// has no solution. Or (`matrix` is `"P"`) the closed loop has time scales too far
    /// apart to resolve, typically a Q very large or an R very small next to A with fewer
    /// inputs than states: the problem with a smaller Q would be solved, but this one's P
    /// cannot be computed to better than 10⁻⁸ relative residual.
    BadlyScaled {
        /// The quantity out of range or unresolved: `"P"`, `"K"`, `"R"`, `"A"`,
        /// `"BR⁻¹Bᵀ"` or `"Q"`.
        matrix: &'static str,
    },
    /// A setting is invalid (a sample period that is not positive and finite), or a
    /// result overflows: the message says which.
    InvalidSetting(&'static str),
    /// The QR iteration of the eigenvalues of a closed loop did not converge (a
    /// pathological matrix).
    EigenvaluesDidNotConverge,
    /// A covariance that must be positive semidefinite is not (the process noise W of
    /// [`lqe`] and [`dlqe`]; the weight Q of a regulator has
    /// [`QNotPositiveSemidefinite`](Self::QNotPositiveSemidefinite)). The tolerance is
    /// that of Q.
    NotPositiveSemidefinite {
        /// Which one: `"W"`.
        matrix: &'static str,
        /// The smallest eigenvalue of (the symmetric part of) the matrix.
        min_eigenvalue: f64,
    },
    /// A covariance that must be positive definite is not (the measurement noise V of
    /// [`lqe`] and [`dlqe`]: some combination of the measurements would be exact, and the
    /// gain infinite; R of a regulator has [`RNotPositiveDefinite`](Self::RNotPositiveDefinite)).
    NotPositiveDefinite {
        /// Which one: `"V"`.
        matrix: &'static str,
    },
    /// A Riccati equation has no stabilizing solution because of a mode it does not see.
    /// For a sampled regulator ([`dare`], [`dlqr`], [`dlqi`]): a mode of A on the unit
    /// circle that Q does not see ((Q, A) is not detectable there); it costs nothing, so
    /// the optimal input leaves it on the circle, however well the input could move it.
    /// (The continuous regulator reports a mode on the imaginary axis that Q does not see
    /// as [`ImaginaryAxisEigenvalue`](Self::ImaginaryAxisEigenvalue).) For an estimator
    /// ([`lqe`], [`dlqe`]): a mode of A that is unstable, or on the stability boundary, is
    /// seen by no measurement ((A, C) is not detectable), or one on the boundary is not
    /// excited by the process noise W.
    NotDetectable,
}

impl fmt::Display for ControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotSquare {
                matrix,
                rows,
                columns,
            } => write!(f, "{matrix} must be square, but it is {rows} × {columns}"),
            Self::DimensionMismatch {
                matrix,
                expected,
                found,
            } => write!(
                f,
                "{matrix} must be {} × {} to fit the other matrices, but it is {} × {}",
                expected.0, expected.1, found.0, found.1
            ),
            Self::NonFinite { matrix } => write!(f, "{matrix} holds a NaN or an infinity"),
            Self::NotSymmetric { matrix } => write!(f, "{matrix} must be symmetric"),
            Self::QNotPositiveSemidefinite { min_eigenvalue } => write!(
                f,
                "Q must be positive semidefinite, but it has the eigenvalue {min_eigenvalue:e}"
            ),
            Self::RNotPositiveDefinite => write!(f, "R must be positive definite"),
            Self::ImaginaryAxisEigenvalue { eigenvalue } => write!(
                f,
                "the Hamiltonian matrix has an eigenvalue on the imaginary axis ({} {:+}i): \
                 a mode of A on the axis is uncontrollable from B or unseen by Q",
                eigenvalue.re, eigenvalue.im
            ),
            Self::NoConvergence { iterations, change } => write!(
                f,
                "the matrix sign iteration did not converge in {iterations} iterations \
                 (last relative change {change:e}): the problem is too badly conditioned"
            ),
            Self::NoStabilizingSolution => write!(
                f,
                "the Riccati equation has no stabilizing solution: (A, B) is not stabilizable"
            ),
            Self::BadlyScaled { matrix } => write!(
                f,
                "the problem is too badly scaled for double precision: {matrix} is out of \
                 range or unresolved even after scaling"
            ),
            Self::InvalidSetting(message) => f.write_str(message),
            Self::EigenvaluesDidNotConverge => write!(
                f,
                "the QR iteration of the closed loop's eigenvalues did not converge"
            ),
            Self::NotPositiveSemidefinite {
                matrix,
                min_eigenvalue,
            } => write!(
                f,
                "{matrix} must be positive semidefinite, but it has the eigenvalue {min_eigenvalue:e}"
            ),
            Self::NotPositiveDefinite { matrix } => {
                write!(f, "{matrix} must be positive definite")
            }
            Self::NotDetectable => write!(
                f,
                "the Riccati equation has no stabilizing solution: a regulator's Q does not \
                 see a mode on the unit circle ((Q, A) is not detectable), or an estimator's \
                 (A, C) is not detectable (an unstable mode that no measurement sees), or a \
                 mode on the stability boundary is unseen by C or unexcited by W"
            ),
        }
    }
}

impl std::error::Error for ControlError {}

/// The stabilizing solution P of the **c**ontinuous **a**lgebraic **R**iccati **e**quation
/// (named as in MATLAB and SciPy, `care` and `solve_continuous_are`)
/// AᵀP + PA − PBR⁻¹BᵀP + Q = 0, symmetric positive semidefinite, with A − BR⁻¹BᵀP stable.
///
/// A is n × n, B n × m, Q n × n symmetric positive semidefinite, R m × m symmetric positive
/// definite; (A, B) must be stabilizable and (Q, A) detectable. The method (the matrix sign
/// function of the Hamiltonian) and its references are in the [module docs](self). The
/// problem is first scaled by powers of two, exactly (see [Scaling](self#scaling)), so the
/// magnitudes of A, B, Q and R do not matter in themselves: what scaling cannot remove (P
/// or K out of the range of f64, closed-loop time scales too far apart for double
/// precision) is reported as [`BadlyScaled`].
///
/// # Errors
/// [`ControlError`] for wrongly shaped, non-finite or asymmetric matrices, a Q with a
/// clearly negative eigenvalue ([`QNotPositiveSemidefinite`]), an R that is not positive
/// definite, problems without a stabilizing solution, and problems that are too badly
/// scaled for double precision even after the scaling ([`BadlyScaled`]).
///
/// [`QNotPositiveSemidefinite`]: ControlError::QNotPositiveSemidefinite
/// [`BadlyScaled`]: ControlError::BadlyScaled
///
/// # Example
/// ```
/// use lagrange_runtime::control::care;
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // The double integrator ẍ = u with Q = I, R = 1.
/// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
/// let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
/// let p = care(&a, &b, &DMatrix::identity(2, 2), &DMatrix::identity(1, 1)).unwrap();
/// let s3 = 3f64.sqrt();
/// assert!((p[(0, 0)] - s3).abs() < 1e-12); // P = [[√3, 1], [1, √3]]
/// assert!((p[(0, 1)] - 1.0).abs() < 1e-12);
/// assert!((p[(1, 1)] - s3).abs() < 1e-12);
/// ```
pub fn care(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<DMatrix<f64>, ControlError> {
    solve(a, b, q, r)?.p().map_err(reported)
}

/// The linear-quadratic regulator: the gain K = R⁻¹BᵀP of the state feedback u = −K x
/// that minimises ∫ (xᵀQ x + uᵀR u) dt for ẋ = A x + B u, and the solution P of the
/// Riccati equation (the optimal cost from x₀ is x₀ᵀP x₀). A − B K is stable.
///
/// The requirements, the scaling and the method are those of [`care`].
///
/// # Errors
/// As [`care`], and [`ControlError::BadlyScaled`] also when K does not fit in double
/// precision.
///
/// # Example
/// ```
/// use lagrange_runtime::control::lqr;
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // The double integrator ẍ = u with Q = I, R = 1.
/// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
/// let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
/// let (k, _p) = lqr(&a, &b, &DMatrix::identity(2, 2), &DMatrix::identity(1, 1)).unwrap();
/// assert!((k[(0, 0)] - 1.0).abs() < 1e-12); // K = [1, √3]
/// assert!((k[(0, 1)] - 3f64.sqrt()).abs() < 1e-12);
/// ```
pub fn lqr(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
    let solution = solve(a, b, q, r)?;
    Ok((
        solution.k().map_err(reported)?,
        solution.p().map_err(reported)?,
    ))
}

/// A state-feedback law around an operating point (q*, q̇*, u*), in fixed-size blocks:
///
/// ```text
/// u = u* − K_q (q − q*) − K_q̇ (q̇ − q̇*)
/// ```
///
/// [`lqr_gain`] designs one from a [`Linearization`]; [`law`](Self::law) hands it to
/// [`Simulation::inputs`](crate::simulate::Simulation::inputs). Evaluating it does not
/// allocate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gain<const N: usize, const M: usize> {
    /// K_q, M × N: the gain on the coordinates.
    pub positions: SMatrix<f64, M, N>,
    /// K_q̇, M × N: the gain on the velocities.
    pub velocities: SMatrix<f64, M, N>,
    /// The operating point (q*, q̇*).
    pub state: State<N>,
    /// The inputs at the operating point, u*.
    pub inputs: SVector<f64, M>,
}

impl<const N: usize, const M: usize> Gain<N, M> {
    /// The gain K (M × 2N, columns (q, q̇)) of u = u* − K (x − x*) around the operating
    /// point of `lin`, split into its blocks; or, M × d, a gain on the independent
    /// coordinates z of [`Linearization::reduced_a`] (x = V z), which becomes K Vᵀ.
    ///
    /// # Errors
    /// [`ControlError::DimensionMismatch`] for any other shape (or a `lin.tangent` that is
    /// not 2N × d, d ≤ 2N), [`ControlError::NonFinite`] for a NaN or an infinity.
    pub fn from_matrix(k: &DMatrix<f64>, lin: &Linearization<N, M>) -> Result<Self, ControlError> {
        check_tangent(lin)?;
        let reduced = lin.tangent.ncols();
        let full = if k.shape() == (M, 2 * N) {
            k.clone()
        } else if k.shape() == (M, reduced) {
            k * lin.tangent.transpose()
        } else {
            return Err(ControlError::DimensionMismatch {
                matrix: "K",
                expected: (M, 2 * N),
                found: k.shape(),
            });
        };
        if !full.iter().all(|v| v.is_finite()) {
            return Err(ControlError::NonFinite { matrix: "K" });
        }
        Ok(Gain {
            positions: SMatrix::from_fn(|i, j| full[(i, j)]),
            velocities: SMatrix::from_fn(|i, j| full[(i, N + j)]),
            state: lin.state,
            inputs: lin.inputs,
        })
    }

    /// The inputs the law gives at `s`.
    pub fn inputs_at(&self, s: &State<N>) -> SVector<f64, M> {
        self.inputs
            - self.positions * (s.q - self.state.q)
            - self.velocities * (s.qd - self.state.qd)
    }

    /// The law as a closure for [`Simulation::inputs`](crate::simulate::Simulation::inputs).
    pub fn law(self) -> impl FnMut(f64, &State<N>) -> SVector<f64, M> {
        move |_, s| self.inputs_at(s)
    }

    /// The gain as one M × 2N matrix K = [K_q K_q̇], columns (q, q̇).
    pub fn matrix(&self) -> DMatrix<f64> {
        let mut k = DMatrix::zeros(M, 2 * N);
        k.view_mut((0, 0), (M, N)).copy_from(&self.positions);
        k.view_mut((0, N), (M, N)).copy_from(&self.velocities);
        k
    }

    /// The closed loop ẋ = (A − B K) x of this gain on the linearization `lin`, x = (q, q̇),
    /// 2N × 2N.
    pub fn closed_loop(&self, lin: &Linearization<N, M>) -> DMatrix<f64> {
        lin.a() - lin.b() * self.matrix()
    }

    /// The eigenvalues, modes and stability of the closed loop on `lin`, in the independent
    /// coordinates of the constraint manifold (Vᵀ (A − B K) V, V = `lin.tangent`), as
    /// [`Linearization::spectrum`] gives them for the open loop: whether the gain
    /// stabilizes the operating point, and how fast each mode decays.
    ///
    /// # Errors
    /// As [`Linearization::spectrum`].
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::prelude::*;
    /// use lagrange_runtime::control::lqr_gain;
    /// use lagrange_runtime::linearize::linearize;
    /// use lagrange_runtime::nalgebra::DMatrix;
    /// use lagrange_runtime::stability::Stability;
    ///
    /// lagrangian! {
    ///     /// A unit mass pushed along a line: the double integrator.
    ///     struct Mass {
    ///         parameters: m = 1.0;
    ///         coordinates: x;
    ///         inputs: f;
    ///         kinetic = m/2 * dot(x)^2;
    ///         force f on x;
    ///     }
    /// }
    ///
    /// let lin = linearize(&Mass::default(), &State::at_rest(SVector::zeros()), &SVector::zeros()).unwrap();
    /// let (gain, _) = lqr_gain(&lin, &DMatrix::identity(2, 2), &SMatrix::identity()).unwrap();
    /// let closed = gain.closed_loop_spectrum(&lin).unwrap();
    /// // K = [1, √3]: s² + √3 s + 1 = 0, s = (−√3 ± i)/2.
    /// assert_eq!(closed.stability(), Stability::AsymptoticallyStable);
    /// assert!((closed.eigenvalues[0].re - -3f64.sqrt() / 2.0).abs() < 1e-12);
    /// assert!((closed.eigenvalues[0].im.abs() - 0.5).abs() < 1e-12);
    /// ```
    pub fn closed_loop_spectrum(
        &self,
        lin: &Linearization<N, M>,
    ) -> Result<Spectrum<N>, DynamicsError> {
        lin.spectrum_of(&self.closed_loop(lin))
    }

    /// The closed loop x_{k+1} = (A_d − B_d K) x_k of this gain applied by a controller
    /// sampled every `period` with a zero-order hold (a
    /// [`SampledController`](crate::simulate::SampledController)) on the linearization
    /// `lin`, x = (q, q̇) at the samples, 2N × 2N; (A_d, B_d) is [`c2d`] of `lin.a()`,
    /// `lin.b()`.
    ///
    /// # Errors
    /// As [`c2d`]: a `period` that is not positive and finite, or an overflow.
    pub fn sampled_closed_loop(
        &self,
        lin: &Linearization<N, M>,
        period: f64,
    ) -> Result<DMatrix<f64>, ControlError> {
        let (ad, bd) = c2d(&lin.a(), &lin.b(), period)?;
        Ok(ad - bd * self.matrix())
    }

    /// The eigenvalues (multipliers per sample) and stability of the closed loop of this
    /// gain sampled every `period` with a zero-order hold on `lin`, in the independent
    /// coordinates of the constraint manifold as in
    /// [`closed_loop_spectrum`](Self::closed_loop_spectrum): the eigenvalues of
    /// A_d − B_d K V with (A_d, B_d) = [`c2d`] of (Vᵀ A V, Vᵀ B), V = `lin.tangent`. The
    /// loop is stable when every |z| < 1; [`DiscreteSpectrum::continuous_eigenvalues`]
    /// gives the decay rates per second.
    ///
    /// # Errors
    /// As [`c2d`], [`ControlError::DimensionMismatch`] for a `lin.tangent` that does not
    /// fit, and [`ControlError::EigenvaluesDidNotConverge`].
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::prelude::*;
    /// use lagrange_runtime::control::dlqr_gain;
    /// use lagrange_runtime::linearize::linearize;
    /// use lagrange_runtime::nalgebra::DMatrix;
    /// use lagrange_runtime::stability::Stability;
    ///
    /// lagrangian! {
    ///     /// A pendulum with a torque at its pivot, balanced upside down.
    ///     struct Pendulum {
    ///         parameters: m = 1.0, l = 1.0, g = 9.81;
    ///         coordinates: theta;
    ///         inputs: tau;
    ///         kinetic = m/2 * l^2 * dot(theta)^2;
    ///         potential = m * g * l * cos(theta);
    ///         force tau on theta;
    ///     }
    /// }
    ///
    /// let lin = linearize(&Pendulum::default(), &State::at_rest(SVector::zeros()), &SVector::zeros()).unwrap();
    /// let (gain, _p) = dlqr_gain(&lin, 0.02, &DMatrix::identity(2, 2), &SMatrix::identity()).unwrap();
    /// let closed = gain.sampled_closed_loop_spectrum(&lin, 0.02).unwrap();
    /// assert_eq!(closed.stability(), Stability::AsymptoticallyStable);
    /// assert!(closed.spectral_radius() < 1.0);
    /// // Far too slow a sampling for the same gain: the loop is unstable.
    /// let slow = gain.sampled_closed_loop_spectrum(&lin, 1.0).unwrap();
    /// assert_eq!(slow.stability(), Stability::Unstable);
    /// ```
    pub fn sampled_closed_loop_spectrum(
        &self,
        lin: &Linearization<N, M>,
        period: f64,
    ) -> Result<DiscreteSpectrum, ControlError> {
        check_tangent(lin)?;
        let (ad, bd) = c2d(&lin.reduced_a(), &lin.reduced_b(), period)?;
        let closed = ad - bd * self.matrix() * &lin.tangent;
        DiscreteSpectrum::new(&closed, period)
    }
}

/// The eigenvalues z of a sampled closed loop x_{k+1} = Φ x_k (its multipliers per
/// sample), sorted by decreasing magnitude, and the sample period: the loop is stable when
/// every |z| < 1. A mode decays by |z| per sample, at the rate −ln|z| / Ts per second.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscreteSpectrum {
    /// The eigenvalues z of Φ, counted with multiplicity, sorted by decreasing |z| (then
    /// decreasing imaginary part).
    pub eigenvalues: Vec<Complex<f64>>,
    /// The sample period Ts.
    pub period: f64,
}

impl DiscreteSpectrum {
    /// The spectrum of the square matrix `phi` (A_d − B_d K, say) of a loop sampled every
    /// `period`.
    ///
    /// # Errors
    /// [`ControlError::NotSquare`] and [`ControlError::NonFinite`] (naming `"Φ"`),
    /// [`ControlError::InvalidSetting`] for a period that is not positive and finite,
    /// [`ControlError::EigenvaluesDidNotConverge`].
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::control::{c2d, dlqr, DiscreteSpectrum};
    /// use lagrange_runtime::nalgebra::DMatrix;
    ///
    /// // The double integrator at 100 Hz under its discrete LQR gain.
    /// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
    /// let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
    /// let (ad, bd) = c2d(&a, &b, 0.01).unwrap();
    /// let (k, _) = dlqr(&ad, &bd, &DMatrix::identity(2, 2), &DMatrix::identity(1, 1)).unwrap();
    /// let spectrum = DiscreteSpectrum::new(&(&ad - &bd * &k), 0.01).unwrap();
    /// assert!(spectrum.spectral_radius() < 1.0);
    /// // Nearly the continuous design's poles (−√3 ± i)/2 at this rate.
    /// let s = spectrum.continuous_eigenvalues();
    /// assert!((s[0].re + 3f64.sqrt() / 2.0).abs() < 0.05 && (s[0].im.abs() - 0.5).abs() < 0.05);
    /// ```
    pub fn new(phi: &DMatrix<f64>, period: f64) -> Result<Self, ControlError> {
        if !phi.is_square() {
            let (rows, columns) = phi.shape();
            return Err(ControlError::NotSquare {
                matrix: "Φ",
                rows,
                columns,
            });
        }
        if !phi.iter().all(|v| v.is_finite()) {
            return Err(ControlError::NonFinite { matrix: "Φ" });
        }
        check_period(period)?;
        let mut eigenvalues =
            crate::linalg::eigenvalues(phi).ok_or(ControlError::EigenvaluesDidNotConverge)?;
        eigenvalues.sort_by(|a, b| b.norm().total_cmp(&a.norm()).then(b.im.total_cmp(&a.im)));
        Ok(DiscreteSpectrum {
            eigenvalues,
            period,
        })
    }

    /// The largest |z|: the factor by which the slowest decaying (or fastest growing) mode
    /// changes per sample; 0 without states.
    pub fn spectral_radius(&self) -> f64 {
        self.eigenvalues.first().map_or(0.0, |z| z.norm())
    }

    /// The classification with the default margin: a multiplier within 10⁻⁴ of the unit
    /// circle counts as on it (see [`classify`](Self::classify)).
    pub fn stability(&self) -> Stability {
        self.classify(tolerances::MARGINAL_MULTIPLIER)
    }

    /// Asymptotically stable when every |z| < 1 − `margin`, unstable when some
    /// |z| > 1 + `margin`, marginal otherwise. A margin that is NaN or negative counts as 0.
    pub fn classify(&self, margin: f64) -> Stability {
        let margin = if margin > 0.0 { margin } else { 0.0 };
        if self.eigenvalues.iter().any(|z| z.norm() > 1.0 + margin) {
            Stability::Unstable
        } else if self.eigenvalues.iter().all(|z| z.norm() < 1.0 - margin) {
            Stability::AsymptoticallyStable
        } else {
            Stability::Marginal
        }
    }

    /// The eigenvalues s = ln(z) / Ts of a continuous-time system whose motion at the
    /// samples is the same (principal logarithm, |Im s| ≤ π/Ts), in the order of
    /// [`eigenvalues`](Self::eigenvalues): Re s is the decay rate per second to compare
    /// with a simulation, Im s the frequency (aliased beyond π/Ts). A multiplier z = 0
    /// (a mode gone in one sample) gives Re s = −∞.
    pub fn continuous_eigenvalues(&self) -> Vec<Complex<f64>> {
        self.eigenvalues
            .iter()
            .map(|z| z.ln() / self.period)
            .collect()
    }
}

/// `Ok` for a sample period that is positive and finite.
fn check_period(period: f64) -> Result<(), ControlError> {
    if period.is_finite() && period > 0.0 {
        Ok(())
    } else {
        Err(ControlError::InvalidSetting(
            "the sample period dt must be positive and finite",
        ))
    }
}

/// The LQR design around the operating point of a linearization: the gain minimising
/// ∫ (δxᵀ Q δx + δuᵀ R δu) dt for δx = x − x*, δu = u − u*, with x = (q, q̇), and the
/// Riccati solution P.
///
/// For a constrained model the design is made in the independent coordinates of the
/// constraint manifold ([`Linearization::reduced_a`], x = V z, with weights Vᵀ Q V): in
/// the redundant coordinates A has modes along the constraints that no input moves, and
/// the Riccati equation would have no stabilizing solution. P is then d × d, in z.
/// Without constraints V is the identity and this is [`lqr`] on `a()` and `b()`.
///
/// # Errors
/// As [`lqr`]; Q must be 2N × 2N, and `lin.tangent` 2N × d with d ≤ 2N
/// ([`ControlError::DimensionMismatch`] naming `"tangent"`).
///
/// # Example
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::control::lqr_gain;
/// use lagrange_runtime::linearize::linearize;
/// use lagrange_runtime::nalgebra::DMatrix;
/// use lagrange_runtime::simulate::{Rk4, Simulation};
///
/// lagrangian! {
///     /// A pendulum with a torque at its pivot, balanced upside down.
///     struct Pendulum {
///         parameters: m = 1.0, l = 1.0, g = 9.81;
///         coordinates: theta;
///         inputs: tau;
///         kinetic = m/2 * l^2 * dot(theta)^2;
///         potential = m * g * l * cos(theta);
///         force tau on theta;
///     }
/// }
///
/// let model = Pendulum::default();
/// let up = State::at_rest(SVector::from([0.0]));
/// let lin = linearize(&model, &up, &SVector::zeros()).unwrap();
/// let (gain, _p) = lqr_gain(&lin, &DMatrix::identity(2, 2), &SMatrix::identity()).unwrap();
/// let run = Simulation::new(&model, State::at_rest(SVector::from([0.2])))
///     .inputs(gain.law())
///     .run(&Rk4::new(1e-3), 10.0)
///     .unwrap();
/// assert!(run.last().q[0].abs() < 1e-6); // back upright
/// ```
pub fn lqr_gain<const N: usize, const M: usize>(
    lin: &Linearization<N, M>,
    q: &DMatrix<f64>,
    r: &SMatrix<f64, M, M>,
) -> Result<(Gain<N, M>, DMatrix<f64>), ControlError> {
    let (weights, r) = reduced_weights(lin, q, r)?;
    let (k, p) = lqr(&lin.reduced_a(), &lin.reduced_b(), &weights, &r)?;
    Ok((Gain::from_matrix(&k, lin)?, p))
}

/// The discrete-time LQR design around the operating point of a linearization, for a
/// controller sampled every `period` with a zero-order hold: [`dlqr`] on [`c2d`] of the
/// linearization, minimising Σ (δx_kᵀ Q δx_k + δu_kᵀ R δu_k) over the samples, with
/// δx = x − x*, δu = u − u*, x = (q, q̇); returns the gain and the solution P of [`dare`].
/// The sum weighs samples, not seconds: Q and R of a continuous design scaled by the
/// period give nearly its gain at a fast rate.
///
/// A constrained model is designed in the independent coordinates of the constraint
/// manifold, as [`lqr_gain`] does (P is then d × d). The gain's [`law`](Gain::law),
/// sampled by [`Sampled`](crate::simulate::Sampled) at the same period, is the controller
/// the design assumes; [`Gain::sampled_closed_loop_spectrum`] gives its closed loop.
///
/// # Errors
/// As [`c2d`] and [`dlqr`]; Q must be 2N × 2N, and `lin.tangent` 2N × d with d ≤ 2N
/// ([`ControlError::DimensionMismatch`] naming `"tangent"`).
///
/// # Example
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::control::dlqr_gain;
/// use lagrange_runtime::linearize::linearize;
/// use lagrange_runtime::nalgebra::DMatrix;
/// use lagrange_runtime::simulate::{Rk4, Sampled, Simulation};
///
/// lagrangian! {
///     /// A pendulum with a torque at its pivot, balanced upside down.
///     struct Pendulum {
///         parameters: m = 1.0, l = 1.0, g = 9.81;
///         coordinates: theta;
///         inputs: tau;
///         kinetic = m/2 * l^2 * dot(theta)^2;
///         potential = m * g * l * cos(theta);
///         force tau on theta;
///     }
/// }
///
/// let model = Pendulum::default();
/// let lin = linearize(&model, &State::at_rest(SVector::zeros()), &SVector::zeros()).unwrap();
/// // A 50 Hz controller.
/// let (gain, _p) = dlqr_gain(&lin, 0.02, &DMatrix::identity(2, 2), &SMatrix::identity()).unwrap();
/// let run = Simulation::new(&model, State::at_rest(SVector::from([0.2])))
///     .controller(Sampled::new(0.02, gain.law()))
///     .run(&Rk4::new(1e-3), 10.0)
///     .unwrap();
/// assert!(run.last().q[0].abs() < 1e-6); // back upright
/// ```
pub fn dlqr_gain<const N: usize, const M: usize>(
    lin: &Linearization<N, M>,
    period: f64,
    q: &DMatrix<f64>,
    r: &SMatrix<f64, M, M>,
) -> Result<(Gain<N, M>, DMatrix<f64>), ControlError> {
    let (weights, r) = reduced_weights(lin, q, r)?;
    let (ad, bd) = c2d(&lin.reduced_a(), &lin.reduced_b(), period)?;
    let (k, p) = dlqr(&ad, &bd, &weights, &r)?;
    Ok((Gain::from_matrix(&k, lin)?, p))
}

/// The weights of a design around `lin` in its independent coordinates: Vᵀ Q V (V the
/// tangent basis, checked) and R as a dynamic matrix; Q must be 2N × 2N.
fn reduced_weights<const N: usize, const M: usize>(
    lin: &Linearization<N, M>,
    q: &DMatrix<f64>,
    r: &SMatrix<f64, M, M>,
) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
    if q.shape() != (2 * N, 2 * N) {
        return Err(ControlError::DimensionMismatch {
            matrix: "Q",
            expected: (2 * N, 2 * N),
            found: q.shape(),
        });
    }
    check_tangent(lin)?;
    let v = &lin.tangent;
    Ok((
        v.transpose() * q * v,
        DMatrix::from_fn(M, M, |i, j| r[(i, j)]),
    ))
}

/// `Ok` if the tangent basis of `lin` (a public field) has a shape that fits.
fn check_tangent<const N: usize, const M: usize>(
    lin: &Linearization<N, M>,
) -> Result<(), ControlError> {
    match lin.tangent_mismatch() {
        None => Ok(()),
        Some((expected, found)) => Err(ControlError::DimensionMismatch {
            matrix: "tangent",
            expected,
            found,
        }),
    }
}

/// The exact discretization with a zero-order hold of ẋ = A x + B u sampled every `dt`:
/// the input held constant over each period gives x_{k+1} = A_d x_k + B_d u_k with
///
/// ```text
/// A_d = e^{A dt},    B_d = ∫₀^dt e^{A s} ds B,
/// ```
///
/// both read off one matrix exponential, exp([A B; 0 0] dt) = [A_d B_d; 0 I] (Van Loan),
/// computed by nalgebra's scaling and squaring with a Padé approximant. Exact, not an Euler
/// step: a linearization sampled at any rate keeps its modes (eigenvalues λ of A become
/// e^{λ dt}).
///
/// # Errors
/// [`ControlError::NotSquare`], [`ControlError::DimensionMismatch`] (B must have A's
/// rows), [`ControlError::NonFinite`], and [`ControlError::InvalidSetting`] for a `dt` that
/// is not positive and finite or a result that overflows.
///
/// # Example
/// ```
/// use lagrange_runtime::control::c2d;
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // The double integrator ẍ = u held over 0.1 s: x moves by v dt + u dt²/2.
/// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
/// let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
/// let (ad, bd) = c2d(&a, &b, 0.1).unwrap();
/// assert!((ad - DMatrix::from_row_slice(2, 2, &[1.0, 0.1, 0.0, 1.0])).amax() < 1e-15);
/// assert!((bd - DMatrix::from_row_slice(2, 1, &[0.005, 0.1])).amax() < 1e-15);
/// ```
pub fn c2d(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    dt: f64,
) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
    check_system(a, b)?;
    check_period(dt)?;
    let (n, m) = (a.nrows(), b.ncols());
    let mut augmented = DMatrix::zeros(n + m, n + m);
    augmented.view_mut((0, 0), (n, n)).copy_from(&(a * dt));
    augmented.view_mut((0, n), (n, m)).copy_from(&(b * dt));
    let e = augmented.exp();
    if !e.iter().all(|v| v.is_finite()) {
        return Err(ControlError::InvalidSetting(
            "e^(A dt) overflows: the sample period is far longer than the fastest growth of A",
        ));
    }
    Ok((
        e.view((0, 0), (n, n)).into_owned(),
        e.view((0, n), (n, m)).into_owned(),
    ))
}

/// The stabilizing solution P of the discrete algebraic Riccati equation
/// (**d**iscrete **a**lgebraic **R**iccati **e**quation, as MATLAB and SciPy name it)
///
/// ```text
/// P = AᵀPA − AᵀPB (R + BᵀPB)⁻¹ BᵀPA + Q,
/// ```
///
/// symmetric positive semidefinite, with every eigenvalue of A − BK inside the unit
/// circle, K = (R + BᵀPB)⁻¹BᵀPA. The requirements are those of [`care`] with "stable"
/// meaning inside the unit circle: Q symmetric positive semidefinite, R symmetric
/// positive definite, (A, B) stabilizable (every mode on or outside the unit circle can be
/// moved by the input), and no mode on the unit circle unseen by Q ((Q, A) detectable
/// there; an unseen mode outside the circle is fine: the solution stabilizes it at no
/// cost). The states are first balanced by an exact scaling by powers of two (as in
/// [`care`], see [Scaling](self#scaling)), so states in very different units do not
/// matter; the problem is solved by the structure-preserving doubling algorithm (Chu, Fan
/// and Lin, 2005), which converges quadratically, then polished by Newton (Hewer) steps
/// while they halve the residual, as [`care`] is, which brings P to the accuracy its
/// conditioning allows also at high sample rates (A ≈ I, where the doubling alone left
/// residuals up to 10⁻⁸). The result is checked: every multiplier of the closed loop must
/// lie inside the unit circle by more than the rounding of its computation
/// (|z| < 1 − 100 n ε ‖A − BK‖_F: a mode the input cannot move, left at 1 − 2⁻⁵² by the
/// rounding of the data, is not stable), and the residual must be below 10⁻⁸ relative to
/// its terms. Weights whose magnitudes differ by many orders (Q next to R) are not
/// rescaled and can still fail with [`ControlError::BadlyScaled`].
///
/// # Errors
/// As [`care`]: wrongly shaped, non-finite or asymmetric matrices, a Q that is not
/// positive semidefinite, an R that is not positive definite;
/// [`ControlError::NoStabilizingSolution`] when a mode on or outside the unit circle
/// cannot be moved by the input ((A, B) is not stabilizable),
/// [`ControlError::NotDetectable`] when a mode on the unit circle is not seen by Q (the
/// causes are found, after a failure, by the Popov–Belevitch–Hautus tests on the modes of
/// A), [`ControlError::NoConvergence`] when the doubling does not converge and neither
/// cause is found, and [`ControlError::BadlyScaled`].
///
/// # Example
/// ```
/// use lagrange_runtime::control::dare;
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // x_{k+1} = x_k + u_k with q = r = 1: p = p − p²/(1 + p) + 1, so p² = p + 1.
/// let one = DMatrix::from_element(1, 1, 1.0);
/// let p = dare(&one, &one, &one, &one).unwrap();
/// assert!((p[(0, 0)] - (1.0 + 5f64.sqrt()) / 2.0).abs() < 1e-14); // the golden ratio
/// ```
pub fn dare(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<DMatrix<f64>, ControlError> {
    discrete(a, b, q, r).map(|(p, _)| p)
}

/// The discrete-time linear-quadratic regulator: the gain K of u_k = −K x_k minimising
/// Σ (x_kᵀQx_k + u_kᵀRu_k) for x_{k+1} = A x_k + B u_k, K = (R + BᵀPB)⁻¹BᵀPA with P from
/// [`dare`]; returns (K, P). For a continuous model sampled with a zero-order hold, A and B
/// are those of [`c2d`].
///
/// # Errors
/// As [`dare`].
///
/// # Example
/// ```
/// use lagrange_runtime::control::{c2d, dlqr};
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // The double integrator sampled at 100 Hz.
/// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
/// let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
/// let (ad, bd) = c2d(&a, &b, 0.01).unwrap();
/// let (k, _p) = dlqr(&ad, &bd, &DMatrix::identity(2, 2), &DMatrix::identity(1, 1)).unwrap();
/// let closed = &ad - &bd * &k;
/// assert!(closed.complex_eigenvalues().iter().all(|z| z.norm() < 1.0));
/// ```
pub fn dlqr(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
    discrete(a, b, q, r).map(|(p, k)| (k, p))
}

/// Checks the four matrices and solves the discrete Riccati equation: (P, K).
fn discrete(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
    check(a, b, q, r)?;
    check_semidefinite(q)?;
    discrete_riccati::solve(a, b, q, r).map_err(reported)
}

/// A square, finite A and a finite B with as many rows.
fn check_system(a: &DMatrix<f64>, b: &DMatrix<f64>) -> Result<(), ControlError> {
    check_matrices(a, &[("B", b, (a.nrows(), b.ncols()))], &[])
}

/// The checks every design shares, the matrices named as its documentation names them:
/// A square, each of `shaped` of its expected shape, A and then each of `shaped` finite,
/// each of `symmetric` symmetric; the first failure in that order is the error.
fn check_matrices(
    a: &DMatrix<f64>,
    shaped: &[(&'static str, &DMatrix<f64>, (usize, usize))],
    symmetric: &[(&'static str, &DMatrix<f64>)],
) -> Result<(), ControlError> {
    if !a.is_square() {
        let (rows, columns) = a.shape();
        return Err(ControlError::NotSquare {
            matrix: "A",
            rows,
            columns,
        });
    }
    for &(matrix, x, expected) in shaped {
        if x.shape() != expected {
            return Err(ControlError::DimensionMismatch {
                matrix,
                expected,
                found: x.shape(),
            });
        }
    }
    let all = std::iter::once(("A", a)).chain(shaped.iter().map(|&(matrix, x, _)| (matrix, x)));
    for (matrix, x) in all {
        if !x.iter().all(|v| v.is_finite()) {
            return Err(ControlError::NonFinite { matrix });
        }
    }
    for &(matrix, x) in symmetric {
        if (x - x.transpose()).amax() > tolerances::SYMMETRY * x.amax() {
            return Err(ControlError::NotSymmetric { matrix });
        }
    }
    Ok(())
}

/// Checks the four matrices and solves the Riccati equation (see the module docs for the
/// scaling and the method).
fn solve(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<Solution, ControlError> {
    check(a, b, q, r)?;
    check_semidefinite(q)?;
    riccati::solve(a, b, q, r).map_err(reported)
}

/// A failure of the Riccati solve as the error of the same name.
fn reported(error: RiccatiError) -> ControlError {
    match error {
        RiccatiError::RNotPositiveDefinite => ControlError::RNotPositiveDefinite,
        RiccatiError::ImaginaryAxisEigenvalue { eigenvalue } => {
            ControlError::ImaginaryAxisEigenvalue { eigenvalue }
        }
        RiccatiError::NoConvergence { iterations, change } => {
            ControlError::NoConvergence { iterations, change }
        }
        RiccatiError::NoStabilizingSolution => ControlError::NoStabilizingSolution,
        RiccatiError::BadlyScaled { matrix } => ControlError::BadlyScaled { matrix },
        RiccatiError::NotDetectable => ControlError::NotDetectable,
    }
}

/// Shapes, finiteness and symmetry of the four matrices.
fn check(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<(), ControlError> {
    let (n, m) = (a.nrows(), b.ncols());
    check_matrices(
        a,
        &[("B", b, (n, m)), ("Q", q, (n, n)), ("R", r, (m, m))],
        &[("Q", q), ("R", r)],
    )
}

/// Whether Q is positive semidefinite up to rounding (see [`SEMIDEFINITE`]), by the
/// eigenvalues of the symmetric part of Q = 2^eq Q₀ scaled to Q₀ of size about 1, which
/// neither overflow nor underflow.
fn check_semidefinite(q: &DMatrix<f64>) -> Result<(), ControlError> {
    match indefinite(q) {
        Some(min_eigenvalue) => Err(ControlError::QNotPositiveSemidefinite { min_eigenvalue }),
        None => Ok(()),
    }
}

/// The smallest eigenvalue of a finite symmetric `q` when it is clearly negative (below
/// −[`SEMIDEFINITE`] n ε ‖q‖₂), computed on q = 2^e q₀ scaled to q₀ of size about 1, which
/// neither overflows nor underflows; `None` for a positive semidefinite `q`.
fn indefinite(q: &DMatrix<f64>) -> Option<f64> {
    let (q0, eq) = normalized(q);
    let n = q0.nrows();
    if n == 0 {
        return None;
    }
    let eigenvalues = symmetric_part(&q0).symmetric_eigenvalues();
    let smallest = eigenvalues.min();
    let norm = eigenvalues.amax();
    (smallest < -SEMIDEFINITE * n as f64 * f64::EPSILON * norm).then(|| times_pow2(smallest, eq))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// e^(A dt) and the held input's effect against closed forms: the double integrator
    /// (x moves by v dt + u dt²/2), a first-order lag (e^(−dt/τ), 1 − e^(−dt/τ)) and an
    /// undamped oscillator (a rotation by ω dt, and ∫₀^dt of it applied to B).
    #[test]
    fn c2d_matches_closed_forms() {
        let (ad, bd) = c2d(&m(2, 2, &[0.0, 1.0, 0.0, 0.0]), &m(2, 1, &[0.0, 1.0]), 0.3).unwrap();
        assert!((ad - m(2, 2, &[1.0, 0.3, 0.0, 1.0])).amax() < 1e-15);
        assert!((bd - m(2, 1, &[0.045, 0.3])).amax() < 1e-15);

        let (tau, dt) = (0.7, 0.05);
        let (ad, bd) = c2d(&m(1, 1, &[-1.0 / tau]), &m(1, 1, &[1.0 / tau]), dt).unwrap();
        let e = (-dt / tau).exp();
        assert!((ad[(0, 0)] - e).abs() < 1e-15);
        assert!((bd[(0, 0)] - (1.0 - e)).abs() < 1e-15);

        let (w, dt) = (3.0, 0.4);
        let (ad, bd) = c2d(&m(2, 2, &[0.0, w, -w, 0.0]), &m(2, 1, &[0.0, 1.0]), dt).unwrap();
        let (c, s) = ((w * dt).cos(), (w * dt).sin());
        assert!((ad - m(2, 2, &[c, s, -s, c])).amax() < 1e-14);
        assert!((bd - m(2, 1, &[(1.0 - c) / w, s / w])).amax() < 1e-14);
    }

    /// A step of the sampled system is the continuous motion under the held input: x(dt)
    /// of ẋ = A x + B u from the closed form x(t) = e^(At) x₀ + A⁻¹(e^(At) − I) B u for an
    /// invertible A, evaluated by the eigen-decomposition of a symmetric A (another way to
    /// the exponential than the Padé approximant).
    #[test]
    fn c2d_is_the_motion_under_a_held_input() {
        let a = m(3, 3, &[-2.0, 0.5, 0.1, 0.5, -1.0, 0.3, 0.1, 0.3, -0.5]);
        let b = m(3, 2, &[1.0, 0.0, 0.2, 1.0, -0.4, 0.5]);
        let dt = 0.25;
        let (ad, bd) = c2d(&a, &b, dt).unwrap();
        let eigen = a.clone().symmetric_eigen();
        let v = &eigen.eigenvectors;
        let exp =
            v * DMatrix::from_diagonal(&eigen.eigenvalues.map(|l| (l * dt).exp())) * v.transpose();
        let integral = v
            * DMatrix::from_diagonal(&eigen.eigenvalues.map(|l| ((l * dt).exp() - 1.0) / l))
            * v.transpose()
            * &b;
        assert!((ad - exp).amax() < 1e-14);
        assert!((bd - integral).amax() < 1e-14);
    }

    #[test]
    fn c2d_refuses_bad_settings() {
        let (a, b) = (m(2, 2, &[0.0, 1.0, 0.0, 0.0]), m(2, 1, &[0.0, 1.0]));
        for dt in [0.0, -0.1, f64::NAN, f64::INFINITY] {
            assert!(
                matches!(c2d(&a, &b, dt), Err(ControlError::InvalidSetting(_))),
                "{dt}"
            );
        }
        assert!(matches!(
            c2d(&a, &m(3, 1, &[0.0, 1.0, 0.0]), 0.1),
            Err(ControlError::DimensionMismatch { matrix: "B", .. })
        ));
        assert!(matches!(
            c2d(&m(1, 2, &[0.0, 1.0]), &b, 0.1),
            Err(ControlError::NotSquare { matrix: "A", .. })
        ));
        assert!(matches!(
            c2d(&m(1, 1, &[1e3]), &m(1, 1, &[1.0]), 10.0),
            Err(ControlError::InvalidSetting(_))
        ));
    }

    /// The scalar DARE p = a²p − a²b²p²/(r + b²p) + q, that is
    /// b²p² + (r − a²r − qb²)p − qr = 0, has the stabilizing root
    /// p = (−c + √(c² + 4b²qr)) / 2b², c = r − a²r − qb² (for an unstable and for a stable a).
    #[test]
    fn dare_solves_the_scalar_equation() {
        for (a, b, q, r) in [
            (1.2, 0.5, 2.0, 0.3f64),
            (0.6, 2.0, 0.1, 5.0),
            (-3.0, 1.0, 1.0, 1e-3),
        ] {
            let c = r - a * a * r - q * b * b;
            let p = (-c + (c * c + 4.0 * b * b * q * r).sqrt()) / (2.0 * b * b);
            let (k, pd) = dlqr(
                &m(1, 1, &[a]),
                &m(1, 1, &[b]),
                &m(1, 1, &[q]),
                &m(1, 1, &[r]),
            )
            .unwrap();
            assert!(
                (pd[(0, 0)] - p).abs() < 1e-13 * p,
                "{a} {b} {q} {r}: {} vs {p}",
                pd[(0, 0)]
            );
            let gain = a * b * p / (r + b * b * p);
            assert!(
                (k[(0, 0)] - gain).abs() < 1e-13 * gain.abs(),
                "{}",
                k[(0, 0)]
            );
            assert!((a - b * k[(0, 0)]).abs() < 1.0);
        }
    }

    /// A 4-state, 2-input system with an unstable mode: P satisfies the DARE to rounding,
    /// is symmetric positive definite, and A − BK is stable.
    #[test]
    fn dlqr_stabilizes_and_solves_the_riccati_equation() {
        let a = m(
            4,
            4,
            &[
                1.1, 0.2, 0.0, 0.05, //
                0.0, 0.9, 0.3, 0.0, //
                0.1, 0.0, 1.02, 0.2, //
                0.0, 0.05, 0.0, 0.7,
            ],
        );
        let b = m(4, 2, &[0.0, 0.1, 1.0, 0.0, 0.0, 0.5, 0.3, 0.0]);
        let q = m(
            4,
            4,
            &[
                2.0, 0.1, 0.0, 0.0, //
                0.1, 1.0, 0.0, 0.0, //
                0.0, 0.0, 0.5, 0.0, //
                0.0, 0.0, 0.0, 0.1,
            ],
        );
        let r = m(2, 2, &[1.0, 0.2, 0.2, 0.5]);
        let (k, p) = dlqr(&a, &b, &q, &r).unwrap();
        assert!(discrete_riccati::relative_residual(&a, &b, &q, &r, &p) < 1e-13);
        assert!((&p - p.transpose()).amax() < 1e-13 * p.amax());
        assert!(p.clone().cholesky().is_some());
        let gain = (&r + b.transpose() * &p * &b)
            .lu()
            .solve(&(b.transpose() * &p * &a))
            .unwrap();
        assert!((&k - gain).amax() < 1e-12 * k.amax());
        let closed = &a - &b * &k;
        assert!(closed.complex_eigenvalues().iter().all(|z| z.norm() < 1.0));
        assert!(dare(&a, &b, &q, &r).unwrap() == p);
    }

    /// Sampled ever faster, with the weights of the sum scaled by dt, the discrete design
    /// tends to the continuous one: K_d → K of `lqr` with an error of order dt.
    #[test]
    fn dlqr_of_a_fast_sampling_tends_to_lqr() {
        let a = m(2, 2, &[0.0, 1.0, 9.81, 0.0]);
        let b = m(2, 1, &[0.0, 1.0]);
        let (q, r) = (DMatrix::identity(2, 2), m(1, 1, &[0.5]));
        let (continuous, _) = lqr(&a, &b, &q, &r).unwrap();
        let mut last = f64::INFINITY;
        for dt in [1e-2, 1e-3, 1e-4] {
            let (ad, bd) = c2d(&a, &b, dt).unwrap();
            let (k, _) = dlqr(&ad, &bd, &(&q * dt), &(&r * dt)).unwrap();
            let error = (&k - &continuous).amax() / continuous.amax();
            assert!(error < 10.0 * dt, "dt {dt}: {error}");
            assert!(error < last / 5.0, "dt {dt}: {error} after {last}");
            last = error;
        }
    }

    /// Without a stabilizing solution: an unstable mode the input cannot move; a mode on
    /// the unit circle the input cannot move and the cost does not see (P = 0 stays, but the
    /// closed loop is not stable); one the cost sees (its cost grows with the horizon, and
    /// the doubling does not converge): each (A, B) not stabilizable, a mode on or beyond
    /// the circle that the input cannot move.
    #[test]
    fn dare_reports_problems_without_a_stabilizing_solution() {
        let (zero, one) = (m(1, 1, &[0.0]), m(1, 1, &[1.0]));
        assert_eq!(
            dare(&m(1, 1, &[2.0]), &zero, &one, &one),
            Err(ControlError::NoStabilizingSolution)
        );
        assert_eq!(
            dare(&one, &zero, &zero, &one),
            Err(ControlError::NoStabilizingSolution)
        );
        assert_eq!(
            dare(&one, &zero, &one, &one),
            Err(ControlError::NoStabilizingSolution)
        );
        assert_eq!(
            dare(&one, &one, &one, &zero),
            Err(ControlError::RNotPositiveDefinite)
        );
        assert!(matches!(
            dare(&one, &one, &m(1, 1, &[-1.0]), &one),
            Err(ControlError::QNotPositiveSemidefinite { .. })
        ));
    }

    fn m(rows: usize, columns: usize, entries: &[f64]) -> DMatrix<f64> {
        DMatrix::from_row_slice(rows, columns, entries)
    }

    /// AᵀP + PA − PBR⁻¹BᵀP + Q, relative to the size of its terms.
    fn relative_residual(
        a: &DMatrix<f64>,
        b: &DMatrix<f64>,
        q: &DMatrix<f64>,
        r: &DMatrix<f64>,
        p: &DMatrix<f64>,
    ) -> f64 {
        let g = b * r.clone().try_inverse().unwrap() * b.transpose();
        let residual = a.transpose() * p + p * a - p * &g * p + q;
        let scale = (a.transpose() * p).amax() + (p * &g * p).amax() + q.amax();
        residual.amax() / scale
    }

    #[test]
    fn scalar_matches_the_closed_form() {
        for (a, b, q, r) in [
            (2.0, 0.5, 3.0, 0.7),
            (-1.5, 2.0, 1.0, 4.0),
            (0.0, 1.0, 1.0, 1.0),
            (10.0, 0.01, 100.0, 1e-3),
        ] {
            let (k, p) = lqr(
                &m(1, 1, &[a]),
                &m(1, 1, &[b]),
                &m(1, 1, &[q]),
                &m(1, 1, &[r]),
            )
            .unwrap();
            // a p + p a − p² b²/r + q = 0, positive root.
            let want = (a + (a * a + b * b * q / r).sqrt()) * r / (b * b);
            assert!(
                (p[(0, 0)] - want).abs() <= 1e-12 * want,
                "a = {a}: P = {p}, want {want}"
            );
            assert!((k[(0, 0)] - b * want / r).abs() <= 1e-12 * b * want / r);
            assert!(a - b * k[(0, 0)] < 0.0);
        }
    }

    #[test]
    fn double_integrator() {
        let a = m(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let b = m(2, 1, &[0.0, 1.0]);
        let (k, p) = lqr(&a, &b, &DMatrix::identity(2, 2), &m(1, 1, &[1.0])).unwrap();
        let s3 = 3f64.sqrt();
        let want = m(2, 2, &[s3, 1.0, 1.0, s3]);
        assert!((&p - want).amax() < 1e-13, "P = {p}");
        assert!((&k - m(1, 2, &[1.0, s3])).amax() < 1e-13, "K = {k}");
        // With weights Q = diag(q1, q2), R = r: K = [√(q1/r), √(q2/r + 2√(q1/r))].
        let (q1, q2, r) = (4.0, 0.5, 0.25);
        let q = m(2, 2, &[q1, 0.0, 0.0, q2]);
        let (k, _) = lqr(&a, &b, &q, &m(1, 1, &[r])).unwrap();
        let k1 = (q1 / r).sqrt();
        let want = m(1, 2, &[k1, (q2 / r + 2.0 * k1).sqrt()]);
        assert!((&k - want).amax() < 1e-12, "K = {k}");
    }

    /// Deterministic pseudo-random numbers in [−1, 1) (xorshift64).
    fn uniform(seed: u64) -> impl FnMut() -> f64 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
    }

    /// A random-ish 4-state system with `inputs` inputs and an unstable A (eigenvalues
    /// shifted right by 1), with Q = CᵀC + I/10 and an R with a cross term.
    fn four_states(seed: u64, inputs: usize) -> [DMatrix<f64>; 4] {
        let mut x = uniform(seed);
        let a = DMatrix::from_fn(4, 4, |i, j| 2.0 * x() + if i == j { 1.0 } else { 0.0 });
        let b = DMatrix::from_fn(4, inputs, |_, _| x());
        let c = DMatrix::from_fn(2, 4, |_, _| x());
        let q = c.transpose() * c + DMatrix::identity(4, 4) * 0.1;
        let r = DMatrix::from_fn(inputs, inputs, |i, j| if i == j { 1.5 } else { 0.4 });
        [a, b, q, r]
    }

    #[test]
    fn four_state_systems_residual_and_stability() {
        for (seed, inputs) in [(1, 2), (2, 1), (3, 3), (4, 1), (5, 2)] {
            let [a, b, q, r] = four_states(seed, inputs);
            let (k, p) = lqr(&a, &b, &q, &r).unwrap();
            let g = &b * r.clone().try_inverse().unwrap() * b.transpose();
            let residual = a.transpose() * &p + &p * &a - &p * g * &p + &q;
            assert!(residual.amax() < 1e-9, "seed {seed}: residual {residual}");
            assert!(relative_residual(&a, &b, &q, &r, &p) < 1e-12);
            assert_eq!(p, p.transpose());
            assert!(p.clone().cholesky().is_some(), "P is positive definite");
            let open = a.complex_eigenvalues();
            let closed = (&a - &b * &k).complex_eigenvalues();
            assert!(open.iter().any(|e| e.re > 0.0), "seed {seed}: A is stable");
            assert!(closed.iter().all(|e| e.re < 0.0), "seed {seed}: {closed}");
        }
    }

    /// The quadrotor of `examples/quadrotor.rs` linearized at hover: states (x, y, z, yaw,
    /// pitch, roll) and their rates, inputs (thrust, mx, my, mz). A is nilpotent (a 12-fold
    /// eigenvalue 0), the gravity couples the tilts to the horizontal accelerations.
    fn quadrotor() -> [DMatrix<f64>; 4] {
        let mut a = DMatrix::zeros(12, 12);
        for i in 0..6 {
            a[(i, 6 + i)] = 1.0;
        }
        a[(6, 4)] = 9.81;
        a[(7, 5)] = -9.81;
        let mut b = DMatrix::zeros(12, 4);
        b[(8, 0)] = 0.8333333333333334;
        b[(9, 3)] = 47.619047619047606;
        b[(10, 2)] = 76.9230769230769;
        b[(11, 1)] = 90.90909090909092;
        let diag = |v: &[f64]| DMatrix::from_diagonal(&nalgebra::DVector::from_row_slice(v));
        let q = diag(&[
            1.0, 1.0, 1.0, 4.0, 11.0, 11.0, 1.0, 1.0, 1.0, 0.25, 0.25, 0.25,
        ]);
        let r = diag(&[0.25, 400.0, 400.0, 400.0]);
        [a, b, q, r]
    }

    /// Ok, a small residual relative to the terms of the equation, P symmetric positive
    /// definite and A − BK stable.
    fn assert_good_design(
        what: &str,
        a: &DMatrix<f64>,
        b: &DMatrix<f64>,
        q: &DMatrix<f64>,
        r: &DMatrix<f64>,
    ) {
        let (k, p) = lqr(a, b, q, r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let g = b * r.clone().try_inverse().unwrap() * b.transpose();
        let residual = a.transpose() * &p + &p * a - &p * g * &p + q;
        assert!(
            residual.amax() < 1e-10 * q.amax(),
            "{what}: residual {residual:e}"
        );
        assert!(relative_residual(a, b, q, r, &p) < 1e-12, "{what}");
        assert_eq!(p, p.transpose(), "{what}");
        assert!(p.symmetric_eigenvalues().min() > 0.0, "{what}: P = {p}");
        let closed = (a - b * &k).complex_eigenvalues();
        assert!(closed.iter().all(|e| e.re < 0.0), "{what}: {closed}");
    }

    #[test]
    fn quadrotor_at_hover() {
        let [a, b, q, r] = quadrotor();
        assert_good_design("quadrotor", &a, &b, &q, &r);
    }

    #[test]
    fn decoupled_nilpotent_and_marginal_systems() {
        // Three double integrators ẍᵢ = bᵢ uᵢ with their own scales, Q = diag(qᵢ, qᵢ),
        // R = diag(rᵢ), with the states ordered as `linearize` gives them, positions then
        // velocities: A nilpotent, and P and K block diagonal after a permutation, their
        // entries between the blocks exactly zero.
        let blocks = [(1.0, 1.0, 1.0), (4.0, 0.01, 100.0), (0.25, 30.0, 1e-3)];
        let mut a = DMatrix::zeros(6, 6);
        let mut b = DMatrix::zeros(6, 3);
        let mut q = DMatrix::zeros(6, 6);
        let mut r = DMatrix::zeros(3, 3);
        for (i, &(qi, ri, bi)) in blocks.iter().enumerate() {
            a[(i, 3 + i)] = 1.0;
            b[(3 + i, i)] = bi;
            q[(i, i)] = qi;
            q[(3 + i, 3 + i)] = qi;
            r[(i, i)] = ri;
        }
        assert_good_design("double integrators", &a, &b, &q, &r);
        let (k, p) = lqr(&a, &b, &q, &r).unwrap();
        for (i, &(qi, ri, bi)) in blocks.iter().enumerate() {
            let (want_p, want_k) = double_integrator_closed_form(qi, ri, bi);
            let block = m(
                2,
                2,
                &[p[(i, i)], p[(i, 3 + i)], p[(3 + i, i)], p[(3 + i, 3 + i)]],
            );
            assert!(entrywise_error(&block, &want_p) < 1e-12, "P = {p:e}");
            let gain = m(1, 2, &[k[(i, i)], k[(i, 3 + i)]]);
            assert!(entrywise_error(&gain, &want_k) < 1e-12, "K = {k:e}");
        }
        // Between the blocks, rounding errors only.
        for i in 0..6 {
            for j in (0..6).filter(|j| j % 3 != i % 3) {
                let size = (p[(i, i)] * p[(j, j)]).sqrt();
                assert!(p[(i, j)].abs() < 1e-12 * size, "P = {p:e}");
            }
        }
        // A triple integrator driven by one input beside an undamped oscillator and a
        // double integrator driven by two: eigenvalues 0 (fivefold) and ±2i.
        let mut a = DMatrix::zeros(7, 7);
        a[(0, 1)] = 1.0;
        a[(1, 2)] = 1.0;
        a[(3, 4)] = 2.0;
        a[(4, 3)] = -2.0;
        a[(5, 6)] = 1.0;
        let mut b = DMatrix::zeros(7, 2);
        b[(2, 0)] = 5.0;
        b[(4, 1)] = 0.5;
        b[(6, 1)] = 20.0;
        let q = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![
            10.0, 1.0, 0.1, 1.0, 1.0, 100.0, 0.01,
        ]));
        let r = m(2, 2, &[0.5, 0.0, 0.0, 2.0]);
        assert_good_design("integrator chains and an oscillator", &a, &b, &q, &r);
    }

    #[test]
    fn stiff_spectrum() {
        // Eigenvalues from 1e-3 to 1e3: the determinant scaling keeps the iteration short.
        let a = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![1e3, -1e-3, 1.0]));
        let b = DMatrix::from_element(3, 1, 1.0);
        let (q, r) = (DMatrix::identity(3, 3), m(1, 1, &[1.0]));
        let p = care(&a, &b, &q, &r).unwrap();
        assert!(relative_residual(&a, &b, &q, &r, &p) < 1e-12);
    }

    #[test]
    fn shapes_are_checked() {
        let (a, b, q, r) = (
            DMatrix::identity(2, 2),
            m(2, 1, &[0.0, 1.0]),
            DMatrix::identity(2, 2),
            m(1, 1, &[1.0]),
        );
        assert_eq!(
            care(&m(2, 3, &[0.0; 6]), &b, &q, &r),
            Err(ControlError::NotSquare {
                matrix: "A",
                rows: 2,
                columns: 3
            })
        );
        assert_eq!(
            care(&a, &m(3, 1, &[0.0; 3]), &q, &r),
            Err(ControlError::DimensionMismatch {
                matrix: "B",
                expected: (2, 1),
                found: (3, 1)
            })
        );
        assert!(matches!(
            care(&a, &b, &q, &DMatrix::identity(2, 2)),
            Err(ControlError::DimensionMismatch { matrix: "R", .. })
        ));
        assert_eq!(
            care(&a, &b, &m(2, 2, &[1.0, 0.5, 0.0, 1.0]), &r),
            Err(ControlError::NotSymmetric { matrix: "Q" })
        );
        assert_eq!(
            care(&a, &b, &q, &m(1, 1, &[f64::NAN])),
            Err(ControlError::NonFinite { matrix: "R" })
        );
    }

    #[test]
    fn r_must_be_positive_definite() {
        let (a, b) = (m(1, 1, &[1.0]), m(1, 2, &[1.0, 1.0]));
        let r = m(2, 2, &[1.0, 2.0, 2.0, 1.0]);
        assert_eq!(
            lqr(&a, &b, &m(1, 1, &[1.0]), &r),
            Err(ControlError::RNotPositiveDefinite)
        );
    }

    #[test]
    fn undamped_uncontrollable_oscillator_is_on_the_imaginary_axis() {
        // A harmonic oscillator that neither B nor Q touches: H has eigenvalues ±i.
        let a = m(2, 2, &[0.0, 1.0, -1.0, 0.0]);
        let err = care(
            &a,
            &m(2, 1, &[0.0, 0.0]),
            &DMatrix::zeros(2, 2),
            &m(1, 1, &[1.0]),
        );
        let Err(ControlError::ImaginaryAxisEigenvalue { eigenvalue }) = err else {
            panic!("{err:?}");
        };
        assert!((eigenvalue.im.abs() - 1.0).abs() < 1e-6);
        // The double integrator with Q = 0: a fourfold zero eigenvalue.
        let a = m(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let err = care(
            &a,
            &m(2, 1, &[0.0, 1.0]),
            &DMatrix::zeros(2, 2),
            &m(1, 1, &[1.0]),
        );
        assert!(
            matches!(err, Err(ControlError::ImaginaryAxisEigenvalue { .. })),
            "{err:?}"
        );
    }

    #[test]
    fn unstable_uncontrollable_mode_has_no_stabilizing_solution() {
        let a = m(2, 2, &[1.0, 0.0, 0.0, -1.0]);
        let b = m(2, 1, &[0.0, 1.0]);
        let err = care(&a, &b, &DMatrix::identity(2, 2), &m(1, 1, &[1.0]));
        assert_eq!(err, Err(ControlError::NoStabilizingSolution));
    }

    #[test]
    fn indefinite_q_is_rejected() {
        // With Q = −1/2 the "solution" would be P = −1 + 1/√2 < 0: no longer a cost.
        let (a, b, r) = (m(1, 1, &[-1.0]), m(1, 1, &[1.0]), m(1, 1, &[1.0]));
        assert_eq!(
            care(&a, &b, &m(1, 1, &[-0.5]), &r),
            Err(ControlError::QNotPositiveSemidefinite {
                min_eigenvalue: -0.5
            })
        );
        // Eigenvalues 3 and −1, on the double integrator, through lqr.
        let a = m(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let b = m(2, 1, &[0.0, 1.0]);
        let q = m(2, 2, &[1.0, 2.0, 2.0, 1.0]);
        let err = lqr(&a, &b, &q, &r);
        let Err(ControlError::QNotPositiveSemidefinite { min_eigenvalue }) = err else {
            panic!("{err:?}");
        };
        assert!((min_eigenvalue + 1.0).abs() < 1e-14, "{min_eigenvalue}");
        // Huge or tiny magnitudes do not change the verdict or the reported eigenvalue.
        let err = care(&a, &b, &(&q * 1e300), &r);
        let Err(ControlError::QNotPositiveSemidefinite { min_eigenvalue }) = err else {
            panic!("{err:?}");
        };
        assert!(
            (min_eigenvalue / 1e300 + 1.0).abs() < 1e-14,
            "{min_eigenvalue}"
        );
        // Beyond the tolerance (100 n ε ‖Q‖ ≈ 4.4e-14 here), however slightly.
        assert_eq!(
            care(&a, &b, &m(2, 2, &[1.0, 0.0, 0.0, -1e-12]), &r),
            Err(ControlError::QNotPositiveSemidefinite {
                min_eigenvalue: -1e-12
            })
        );
    }

    #[test]
    fn semidefinite_q_with_rounding_noise_is_accepted() {
        // Q = CᵀC of rank 1: its computed eigenvalues include a negative one at rounding
        // level, which must not be taken for indefiniteness.
        let [a, b, _, r] = four_states(1, 2);
        let mut x = uniform(1);
        let c = DMatrix::from_fn(1, 4, |_, _| x());
        let q = c.transpose() * &c;
        let smallest = q.symmetric_eigenvalues().min();
        assert!(smallest < 0.0 && smallest > -1e-15, "{smallest}");
        let (k, p) = lqr(&a, &b, &q, &r).unwrap();
        assert!(relative_residual(&a, &b, &q, &r, &p) < 1e-12);
        assert!(p.symmetric_eigenvalues().min() > 0.0, "P = {p}");
        let closed = (&a - &b * &k).complex_eigenvalues();
        assert!(closed.iter().all(|e| e.re < 0.0), "{closed}");
        // An eigenvalue below zero but within the tolerance is accepted too.
        let a = m(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let b = m(2, 1, &[0.0, 1.0]);
        let q = m(2, 2, &[1.0, 0.0, 0.0, -1e-15]);
        let p = care(&a, &b, &q, &m(1, 1, &[1.0])).unwrap();
        // Nearly P for Q = diag(1, 0): [[√2, 1], [1, √2]].
        let s2 = 2f64.sqrt();
        assert!(
            (&p - m(2, 2, &[s2, 1.0, 1.0, s2])).amax() < 1e-14,
            "P = {p}"
        );
    }

    /// P and K of the double integrator ẋ₁ = x₂, ẋ₂ = b u with Q = q I, R = r: the CARE's
    /// entries read q = p₁₂² b²/r, p₁₁ = p₁₂ p₂₂ b²/r, 2 p₁₂ + q = p₂₂² b²/r, so with
    /// s = √(q r)/b: p₁₂ = s, p₂₂ = (√r/b) √(q + 2s), p₁₁ = √q √(q + 2s), and
    /// K = (b/r) [p₁₂, p₂₂] = [√(q/r), √((q + 2s)/r)]. Written so that no intermediate
    /// leaves the range of f64 when P and K do not.
    fn double_integrator_closed_form(q: f64, r: f64, b: f64) -> (DMatrix<f64>, DMatrix<f64>) {
        let s = q.sqrt() * r.sqrt() / b;
        let t = (q + 2.0 * s).sqrt();
        let p = m(2, 2, &[q.sqrt() * t, s, s, r.sqrt() / b * t]);
        let k = m(1, 2, &[q.sqrt() / r.sqrt(), t / r.sqrt()]);
        (p, k)
    }

    /// The largest entry-by-entry relative difference.
    fn entrywise_error(x: &DMatrix<f64>, want: &DMatrix<f64>) -> f64 {
        x.iter()
            .zip(want.iter())
            .map(|(x, w)| ((x - w) / w).abs())
            .fold(0.0, f64::max)
    }

    #[test]
    fn badly_scaled_double_integrators_match_the_closed_form() {
        let a = m(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        for (q, r, b) in [
            (1.0, 1.0, 1.0),
            // The three from the report: a cheap input, a heavy Q, a weak actuator.
            (1.0, 1e-30, 1.0),
            (1e200, 1.0, 1.0),
            (1.0, 1.0, 1e-150),
            // Time scales 1 and 10²⁵ apart in the closed loop; P graded by 10²⁵.
            (1e50, 1.0, 1.0),
            // BR⁻¹Bᵀ = 1e-400 is not a double, but P (up to 1.4e300) and K are.
            (1.0, 1.0, 1e-200),
            (1e-200, 1.0, 1.0),
            (1.0, 1e-300, 1.0),
            (1.0, 1e300, 1.0),
            (3e-7, 2e5, 7e40),
        ] {
            let (want_p, want_k) = double_integrator_closed_form(q, r, b);
            let (k, p) = lqr(
                &a,
                &m(2, 1, &[0.0, b]),
                &(DMatrix::identity(2, 2) * q),
                &m(1, 1, &[r]),
            )
            .unwrap_or_else(|e| panic!("q = {q:e}, r = {r:e}, b = {b:e}: {e}"));
            assert!(
                entrywise_error(&p, &want_p) < 1e-13 && entrywise_error(&k, &want_k) < 1e-13,
                "q = {q:e}, r = {r:e}, b = {b:e}: P = {p:e} want {want_p:e}, K = {k:e} want {want_k:e}"
            );
            assert_eq!(p, p.transpose());
        }
    }

    #[test]
    fn badly_scaled_scalars_match_the_closed_form() {
        // ṗ-free scalar CARE 2ap − p²b²/r + q = 0: p = (a + √(a² + b²q/r)) r/b².
        for (a, b, q, r) in [
            (1.0, 1e-150, 1.0, 1.0),
            (-3.0, 1e-170, 1e-100, 1.0),
            (2.0, 1.0, 1e250, 1e-50),
            (0.5, 1e100, 1e-200, 1e150),
        ] {
            let (k, p) = lqr(
                &m(1, 1, &[a]),
                &m(1, 1, &[b]),
                &m(1, 1, &[q]),
                &m(1, 1, &[r]),
            )
            .unwrap_or_else(|e| panic!("a = {a}, b = {b:e}, q = {q:e}, r = {r:e}: {e}"));
            let x = b * q.sqrt() / r.sqrt();
            let root = a.hypot(x);
            // For a < 0 the root cancels: use a + √(a² + x²) = x²/(√(a² + x²) − a), and
            // x² r/b² = q.
            let want = if a >= 0.0 {
                (a + root) * (r / b) / b
            } else {
                q / (root - a)
            };
            assert!(
                ((p[(0, 0)] - want) / want).abs() < 1e-13,
                "a = {a}, b = {b:e}: P = {p}, want {want:e}"
            );
            let want_k = want * (b / r);
            assert!(((k[(0, 0)] - want_k) / want_k).abs() < 1e-13, "K = {k}");
        }
    }

    #[test]
    fn scaling_the_weights_or_the_input_is_exact() {
        let [a, b, q, r] = four_states(1, 2);
        let (k, p) = lqr(&a, &b, &q, &r).unwrap();
        // P(αQ, αR) = αP and K(αQ, αR) = K; with α a power of two, to the last bit.
        let alpha = 2f64.powi(-100);
        let (k2, p2) = lqr(&a, &b, &(&q * alpha), &(&r * alpha)).unwrap();
        assert_eq!(p2, &p * alpha);
        assert_eq!(k2, k);
        // u = β ũ: B → Bβ, R → Rβ² leave P and scale K by 1/β.
        let beta = 2f64.powi(40);
        let (k3, p3) = lqr(&a, &(&b * beta), &q, &(&r * (beta * beta))).unwrap();
        assert_eq!(p3, p);
        assert_eq!(k3, &k / beta);
        // With α not a power of two, to rounding.
        let (k4, p4) = lqr(&a, &b, &(&q * 1e-30), &(&r * 1e-30)).unwrap();
        assert!(entrywise_error(&(p4 * 1e30), &p) < 1e-13);
        assert!(entrywise_error(&k4, &k) < 1e-13);
        // x = D x̃: Ã = D⁻¹AD, B̃ = D⁻¹B, Q̃ = DQD give P̃ = DPD, K̃ = KD.
        let d = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![1e8, 1.0, 1e-8, 3.0]));
        let d_inv = d.clone().try_inverse().unwrap();
        let (k5, p5) = lqr(&(&d_inv * &a * &d), &(&d_inv * &b), &(&d * &q * &d), &r).unwrap();
        assert!(entrywise_error(&p5, &(&d * &p * &d)) < 1e-12);
        assert!(entrywise_error(&k5, &(&k * &d)) < 1e-12);
    }

    /// AᵀP + PA + Q − KᵀRK relative to the size of AᵀP and Q: the residual with PGP as
    /// KᵀRK, which does not cancel away P's small entries when K is large.
    fn gain_residual(
        a: &DMatrix<f64>,
        q: &DMatrix<f64>,
        r: &DMatrix<f64>,
        k: &DMatrix<f64>,
        p: &DMatrix<f64>,
    ) -> f64 {
        let residual = a.transpose() * p + p * a + q - k.transpose() * r * k;
        residual.amax() / ((a.transpose() * p).amax() + q.amax())
    }

    #[test]
    fn badly_scaled_four_state_systems_are_solved_or_said_to_be() {
        for seed in 1..=5 {
            let [a, b, q, r] = four_states(seed, 1 + seed as usize % 3);
            // Solvable at any scale: weak inputs (P up to 1e301), tiny Q, heavy R.
            for (b, q, r) in [
                (&b * 1e-150, q.clone(), r.clone()),
                (b.clone(), &q * 1e-200, r.clone()),
                (b.clone(), q.clone(), &r * 1e200),
                (b.clone(), &q * 1e10, r.clone()),
            ] {
                let (k, p) = lqr(&a, &b, &q, &r).unwrap();
                assert!(gain_residual(&a, &q, &r, &k, &p) < 1e-10, "seed {seed}");
                assert_eq!(p, p.transpose());
            }
            // Cheap control with fewer inputs than states: closed-loop modes as fast as
            // √(‖Q‖/‖R‖) beside modes as slow as ‖A‖. Either solved, or reported as a
            // matter of scaling, never as an uncontrollable or unobserved mode.
            for (q, r) in [
                (&q * 1e20, r.clone()),
                (q.clone(), &r * 1e-30),
                (&q * 1e200, r.clone()),
            ] {
                match lqr(&a, &b, &q, &r) {
                    Ok((k, p)) => assert!(gain_residual(&a, &q, &r, &k, &p) < 1e-10),
                    Err(e) => assert_eq!(e, ControlError::BadlyScaled { matrix: "P" }),
                }
            }
        }
        // With as many inputs as states nothing is slow: solved.
        let [a, b, q, r] = four_states(3, 4);
        let (k, p) = lqr(&a, &b, &q, &(&r * 1e-30)).unwrap();
        assert!(gain_residual(&a, &q, &(&r * 1e-30), &k, &p) < 1e-12);
        let (k2, p2) = lqr(&a, &b, &(&q * 1e30), &r).unwrap();
        assert!(entrywise_error(&(p * 1e30), &p2) < 1e-12);
        assert!(entrywise_error(&k, &k2) < 1e-12);
    }

    #[test]
    fn out_of_range_solutions_are_badly_scaled() {
        // ẋ = x + 1e-200 u: P = 2e400 > f64::MAX.
        let (a, b, q, r) = (
            m(1, 1, &[1.0]),
            m(1, 1, &[1e-200]),
            m(1, 1, &[1.0]),
            m(1, 1, &[1.0]),
        );
        assert_eq!(
            care(&a, &b, &q, &r),
            Err(ControlError::BadlyScaled { matrix: "P" })
        );
        // P = √(q r) = 0.1 fits, K = √(q/r) = 1e309 does not.
        let (a, q, r) = (m(1, 1, &[0.0]), m(1, 1, &[1e308]), m(1, 1, &[1e-310]));
        let p = care(&a, &m(1, 1, &[1.0]), &q, &r).unwrap();
        assert!((p[(0, 0)] - 0.1).abs() < 1e-14, "P = {p}");
        assert_eq!(
            lqr(&a, &m(1, 1, &[1.0]), &q, &r),
            Err(ControlError::BadlyScaled { matrix: "K" })
        );
        // The double integrator with b = 1e-300: p₂₂ ≈ 1.4e450.
        let a = m(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let err = care(
            &a,
            &m(2, 1, &[0.0, 1e-300]),
            &DMatrix::identity(2, 2),
            &m(1, 1, &[1.0]),
        );
        assert_eq!(err, Err(ControlError::BadlyScaled { matrix: "P" }));
    }

    #[test]
    fn unstabilizable_stays_unstabilizable_at_any_scale() {
        for (q, r) in [(1.0, 1.0), (1e200, 1.0), (1.0, 1e-30), (1e-100, 1e100)] {
            let err = care(
                &m(1, 1, &[1.0]),
                &m(1, 1, &[0.0]),
                &m(1, 1, &[q]),
                &m(1, 1, &[r]),
            );
            assert_eq!(
                err,
                Err(ControlError::NoStabilizingSolution),
                "q = {q:e}, r = {r:e}"
            );
            // The unstable mode is out of reach of the input, however cheap or strong.
            let a = m(2, 2, &[1.0, 0.0, 0.0, -1.0]);
            let err = care(
                &a,
                &m(2, 1, &[0.0, 1.0]),
                &(DMatrix::identity(2, 2) * q),
                &m(1, 1, &[r]),
            );
            assert_eq!(
                err,
                Err(ControlError::NoStabilizingSolution),
                "q = {q:e}, r = {r:e}"
            );
        }
    }

    #[test]
    fn errors_read_well() {
        let e = ControlError::DimensionMismatch {
            matrix: "B",
            expected: (4, 1),
            found: (1, 4),
        };
        assert_eq!(
            e.to_string(),
            "B must be 4 × 1 to fit the other matrices, but it is 1 × 4"
        );
        assert!(ControlError::NoStabilizingSolution
            .to_string()
            .contains("not stabilizable"));
        let e = ControlError::QNotPositiveSemidefinite {
            min_eigenvalue: -0.5,
        };
        assert_eq!(
            e.to_string(),
            "Q must be positive semidefinite, but it has the eigenvalue -5e-1"
        );
        let e = ControlError::BadlyScaled { matrix: "P" };
        assert!(e.to_string().contains("badly scaled"), "{e}");
        assert!(!e.to_string().contains("stabilizable"), "{e}");
    }

    /// A = Tᵀ diag(1, ½) T, B = Tᵀ [0 1]ᵀ with T the rotation by `angle`: the mode at z = 1
    /// (the first row of T) is one the input cannot move, however the rounding of T mixes
    /// it in. Continuous: A = Tᵀ diag(0, −½) T, the mode at s = 0.
    fn rotated(angle: f64, modes: [f64; 2]) -> (DMatrix<f64>, DMatrix<f64>) {
        let (sin, cos) = angle.sin_cos();
        let t = m(2, 2, &[cos, -sin, sin, cos]);
        let a =
            t.transpose() * DMatrix::from_diagonal(&nalgebra::DVector::from_row_slice(&modes)) * &t;
        let b = t.transpose() * m(2, 1, &[0.0, 1.0]);
        (a, b)
    }

    /// Issue 45 item 3: an unreachable mode on the unit circle has no stabilizing solution
    /// (with Q = I, the cost of the first 2ᵏ steps grows without bound), at every angle.
    /// Before, the doubling stalled at P ≈ 2e8 and returned it, the closed loop's
    /// |z|max = 1 − 2⁻⁵², "inside" the circle by one rounding. The same mode moved inside
    /// by 10⁻⁶ is solved, its multiplier left where it is.
    #[test]
    fn dare_refuses_an_unreachable_mode_on_the_unit_circle() {
        let (q, r) = (DMatrix::identity(2, 2), m(1, 1, &[1.0]));
        for angle in [0.15, 0.3, 0.45, 1.15] {
            let (a, b) = rotated(angle, [1.0, 0.5]);
            assert_eq!(
                dare(&a, &b, &q, &r),
                Err(ControlError::NoStabilizingSolution),
                "{angle}"
            );
            assert_eq!(
                dlqr(&a, &b, &q, &r),
                Err(ControlError::NoStabilizingSolution),
                "{angle}"
            );
            let inside = 1.0 - 1e-6;
            let (a, b) = rotated(angle, [inside, 0.5]);
            let (k, p) = dlqr(&a, &b, &q, &r).unwrap();
            let radius = (&a - &b * &k)
                .complex_eigenvalues()
                .iter()
                .map(|z| z.norm())
                .fold(0.0, f64::max);
            assert!((radius - inside).abs() < 1e-12, "{angle}: {radius}");
            // The unreachable mode's cost: 1/(1 − z²) on its own.
            let cost = 1.0 / (1.0 - inside * inside);
            assert!(p.amax() < 1.01 * cost, "{angle}: {p}");
        }
    }

    /// The scalar DARE's stabilizing root for exact f64 data, without cancellation: c =
    /// r(1 − a)(1 + a) − q b² (1 − a is exact for a near 1), and the root of
    /// b²p² + c p − q r = 0 in the form that adds terms of one sign.
    fn scalar_dare(a: f64, b: f64, q: f64, r: f64) -> f64 {
        let c = r * (1.0 - a) * (1.0 + a) - q * b * b;
        let root = (c * c + 4.0 * b * b * q * r).sqrt();
        if c > 0.0 {
            2.0 * q * r / (c + root)
        } else {
            (root - c) / (2.0 * b * b)
        }
    }

    /// Issue 45 item 4: at 10 and 100 kHz the DARE is ill-conditioned (A ≈ I, its terms
    /// cancel to a fraction dt of P), and the doubling alone left residuals near 1e-12 and
    /// P wrong in the 8th digit. Polished by Newton steps, P is within its conditioning of
    /// the truth: for a decoupled plant, each scalar DARE's closed form on the same f64 data,
    /// to 16 ε over 1 − a_c² (the condition number of the scalar equation, a_c the closed
    /// loop's multiplier); for coupled, stiff ones (the regulator and the estimator), a
    /// residual of a few ε relative to its terms.
    #[test]
    fn dare_at_high_sample_rates_is_accurate_to_its_conditioning() {
        let rates = [-1.0, -2.0, 0.5, -0.1];
        let continuous = DMatrix::from_diagonal(&nalgebra::DVector::from_row_slice(&rates));
        let identity = DMatrix::<f64>::identity(4, 4);
        let (q, r) = (
            m(
                4,
                4,
                &[
                    1.0, 0.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 2.0,
                ],
            ),
            identity.clone(),
        );
        for dt in [1e-4, 1e-5] {
            let (ad, bd) = c2d(&continuous, &identity, dt).unwrap();
            let (k, p) = dlqr(&ad, &bd, &q, &r).unwrap();
            for i in 0..4 {
                let (a, b, qi) = (ad[(i, i)], bd[(i, i)], q[(i, i)]);
                let want = scalar_dare(a, b, qi, 1.0);
                let closed = a - b * a * b * want / (1.0 + b * b * want);
                let condition = 1.0 / (1.0 - closed * closed);
                let error = (p[(i, i)] - want).abs() / want;
                assert!(
                    error <= 16.0 * f64::EPSILON * condition,
                    "dt {dt}, state {i}: P = {}, want {want}: {error:e} (condition {condition:e})",
                    p[(i, i)]
                );
                assert!(
                    (k[(i, i)] - a * b * want / (1.0 + b * b * want)).abs()
                        <= 1e-9 * k[(i, i)].abs()
                );
                for j in (0..4).filter(|&j| j != i) {
                    assert!(
                        p[(i, j)].abs() <= 16.0 * f64::EPSILON * condition * p[(i, i)],
                        "{p}"
                    );
                }
            }
        }
        // Stiff plants: modes at about −1000, −0.02 … −0.3, one unstable and one at 0,
        // mixed by a random similarity; one input, two measurements. The estimator with
        // W = I, V = I/100 left residuals of 1e-9 to 8e-9 after the doubling alone.
        for seed in [1, 5, 18, 31] {
            let mut x = uniform(seed);
            let modes = [
                -(10f64.powf(3.0 * x().abs())),
                -(10f64.powf(-2.0 * x().abs())),
                2.0 * x(),
                0.0,
            ];
            let t = DMatrix::from_fn(4, 4, |i, j| x() + if i == j { 2.0 } else { 0.0 });
            let a = t.clone().try_inverse().unwrap()
                * DMatrix::from_diagonal(&nalgebra::DVector::from_row_slice(&modes))
                * &t;
            let b = DMatrix::from_fn(4, 1, |_, _| x());
            let c = DMatrix::from_fn(2, 4, |_, _| x());
            for dt in [1e-4, 1e-5] {
                let (ad, bd) = c2d(&a, &b, dt).unwrap();
                let (w, v) = (DMatrix::identity(4, 4), DMatrix::identity(2, 2) * 1e-2);
                let (_, p) = dlqe(&ad, &c, &w, &v).unwrap();
                let residual = discrete_riccati::relative_residual(
                    &ad.transpose(),
                    &c.transpose(),
                    &w,
                    &v,
                    &p,
                );
                // A few ε for each of the n terms of an entry.
                let rounding = 16.0 * 4.0 * f64::EPSILON;
                assert!(
                    residual <= rounding,
                    "estimator {seed}, dt {dt}: {residual:e}"
                );
                let (q, r) = (DMatrix::identity(4, 4), m(1, 1, &[1.0]));
                let (_, p) = dlqr(&ad, &bd, &q, &r).unwrap();
                let residual = discrete_riccati::relative_residual(&ad, &bd, &q, &r, &p);
                assert!(
                    residual <= rounding,
                    "regulator {seed}, dt {dt}: {residual:e}"
                );
            }
        }
    }

    /// Issue 45 item 14: a stabilizable problem with its states scaled by
    /// D = diag(2³⁰, 2⁻³⁰, 1, 1) (x = D x̃: A → D⁻¹AD, B → D⁻¹B, Q → DQD, exact) has the
    /// solution DPD; before, `dare` called it not stabilizable.
    #[test]
    fn dare_solves_a_problem_with_badly_scaled_states() {
        for (seed, inputs) in [(1, 2), (2, 1), (5, 2)] {
            let [a, b, q, r] = four_states(seed, inputs);
            // As a discrete system: spectral radius up to about 3, stabilizable.
            let p = dare(&a, &b, &q, &r).unwrap();
            for e in [30, -30] {
                let d: Vec<f64> = [e, -e, 0, 0].iter().map(|&k| 2f64.powi(k)).collect();
                let a_s = DMatrix::from_fn(4, 4, |i, j| a[(i, j)] * d[j] / d[i]);
                let b_s = DMatrix::from_fn(4, inputs, |i, j| b[(i, j)] / d[i]);
                let q_s = DMatrix::from_fn(4, 4, |i, j| q[(i, j)] * d[i] * d[j]);
                let p_s = dare(&a_s, &b_s, &q_s, &r)
                    .unwrap_or_else(|err| panic!("seed {seed}, 2^{e}: {err}"));
                let want = DMatrix::from_fn(4, 4, |i, j| p[(i, j)] * d[i] * d[j]);
                let error = DMatrix::from_fn(4, 4, |i, j| {
                    (p_s[(i, j)] - want[(i, j)]).abs() / (want[(i, i)] * want[(j, j)]).sqrt()
                });
                assert!(error.amax() < 1e-12, "seed {seed}, 2^{e}: {error}");
            }
        }
    }

    /// Issue 45 item 14: A = diag(1, ½), B = [1; 1], Q = diag(0, 1): the mode at z = 1 is
    /// controllable but Q does not see it, so the only solution gives it no feedback (its
    /// cost is 0 whatever the input) and the closed loop keeps z = 1: no stabilizing
    /// solution, because (Q, A) is not detectable on the unit circle, not because (A, B) is
    /// not stabilizable. Likewise in continuous time with A = diag(0, −½).
    #[test]
    fn a_mode_on_the_boundary_unseen_by_q_is_not_detectable() {
        let (b, q, r) = (
            m(2, 1, &[1.0, 1.0]),
            m(2, 2, &[0.0, 0.0, 0.0, 1.0]),
            m(1, 1, &[1.0]),
        );
        let a = m(2, 2, &[1.0, 0.0, 0.0, 0.5]);
        assert_eq!(dare(&a, &b, &q, &r), Err(ControlError::NotDetectable));
        assert_eq!(
            dlqr(&a, &b, &q, &r).map(|_| ()),
            Err(ControlError::NotDetectable)
        );
        let a = m(2, 2, &[0.0, 0.0, 0.0, -0.5]);
        let err = care(&a, &b, &q, &r);
        let Err(ControlError::ImaginaryAxisEigenvalue { eigenvalue }) = err else {
            panic!("{err:?}");
        };
        assert!(eigenvalue.norm() < 1e-6, "{eigenvalue}");
        // An unseen mode inside the boundary is fine, and so is one outside: it costs
        // nothing, but the stabilizing solution still moves it inside (to 1/2 for z = 2,
        // the mirror image; to −1 for s = 1), at the least cost of the input.
        let a = m(2, 2, &[0.5, 0.0, 0.0, 1.0]);
        assert!(dare(&a, &b, &q, &r).is_ok());
        let a = m(2, 2, &[2.0, 0.0, 0.0, 0.5]);
        let (k, p) = dlqr(&a, &b, &q, &r).unwrap();
        let residual = discrete_riccati::relative_residual(&a, &b, &q, &r, &p);
        assert!(residual < 1e-14, "{residual:e}");
        let radius = (&a - &b * &k)
            .complex_eigenvalues()
            .iter()
            .map(|z| z.norm())
            .fold(0.0, f64::max);
        assert!(radius < 1.0, "{radius}");
        // Scalar: p = 4p − 4p²/(1 + p) has the stabilizing root p = 3 (closed loop ½), and
        // 2p − p² = 0 the stabilizing root p = 2 (closed loop −1); p = 0 is the other root.
        let (one, zero) = (m(1, 1, &[1.0]), m(1, 1, &[0.0]));
        let p = dare(&m(1, 1, &[2.0]), &one, &zero, &one).unwrap();
        assert!((p[(0, 0)] - 3.0).abs() < 1e-14, "{p}");
        let p = care(&one, &one, &zero, &one).unwrap();
        assert!((p[(0, 0)] - 2.0).abs() < 1e-14, "{p}");
        let a = m(2, 2, &[1.0, 0.0, 0.0, -0.5]);
        let (k, _) = lqr(&a, &b, &q, &r).unwrap();
        assert!((&a - &b * &k)
            .complex_eigenvalues()
            .iter()
            .all(|s| s.re < 0.0));
    }

    /// Issue 45 item 14: `care`/`lqr` with a mode on the imaginary axis that B cannot reach
    /// (A = Tᵀ diag(0, −½) T at four angles; an undamped oscillator beside a controlled
    /// state) said `BadlyScaled { P }`; the cause is the Hamiltonian's eigenvalue on the
    /// axis, the unreachable mode's: 0 and ±i.
    #[test]
    fn an_unreachable_mode_on_the_imaginary_axis_is_named() {
        let (q, r) = (DMatrix::identity(2, 2), m(1, 1, &[1.0]));
        for angle in [0.15, 0.3, 0.45, 1.15] {
            let (a, b) = rotated(angle, [0.0, -0.5]);
            for err in [care(&a, &b, &q, &r), lqr(&a, &b, &q, &r).map(|(_, p)| p)] {
                let Err(ControlError::ImaginaryAxisEigenvalue { eigenvalue }) = err else {
                    panic!("{angle}: {err:?}");
                };
                assert!(eigenvalue.norm() < 1e-6, "{angle}: {eigenvalue}");
            }
        }
        // ẍ = −x undriven, beside a driven first-order state.
        let a = m(3, 3, &[0.0, 1.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, -1.0]);
        let b = m(3, 1, &[0.0, 0.0, 1.0]);
        for b in [b, DMatrix::zeros(3, 1)] {
            let err = care(&a, &b, &DMatrix::identity(3, 3), &r);
            let Err(ControlError::ImaginaryAxisEigenvalue { eigenvalue }) = err else {
                panic!("{err:?}");
            };
            assert!(
                (eigenvalue.im.abs() - 1.0).abs() < 1e-6 && eigenvalue.re.abs() < 1e-6,
                "{eigenvalue}"
            );
        }
    }
}
