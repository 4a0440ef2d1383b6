//! Linear-quadratic regulators (the continuous algebraic Riccati equation and the optimal
//! state-feedback gain), their sampled, integral and estimator forms, and linear systems to
//! analyze ([`LinearSystem`]: responses, frequency response, margins, pole placement).
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
//! A design may drive some of a model's inputs only, named by [`DrivenInputs`]
//! ([`lqr_gain_driving`], [`dlqr_gain_driving`], [`LinearSystem::select_inputs`]): its gain
//! is zero on the others (disturbances), which a run adds beside the controller
//! ([`Simulation::disturbances`](crate::simulate::Simulation::disturbances)).
//!
//! Integral action: [`lqi`] and [`dlqi`] design on the state augmented with the integral
//! of the error of chosen outputs y = C x, so that a constant reference is held without
//! steady error. Observers: [`lqe`] and [`dlqe`] give the steady-state Kalman gain from
//! measured outputs and the covariances of the process and measurement noise, by the dual
//! Riccati equations.
//!
//! An observer-based controller: [`ObserverController`] (MATLAB's `lqgtrack`, `reg`) runs
//! a [`dlqe`] estimator from measured outputs and a [`dlqi`] (or [`dlqr`]) state feedback
//! as a [`SampledController`](crate::simulate::SampledController), with a reference
//! input, actuator limits with anti-windup, and its closed loop and multipliers. The glue
//! between designs and hand-written controllers: [`fixed`] (a design's [`DMatrix`] as an
//! [`SMatrix`]) and [`split_columns`] (a gain split by blocks of states, K_x and K_ξ).
//!
//! A linear system to look at: [`LinearSystem`] holds A, B, C, D and knows whether it is
//! continuous or sampled (built from matrices, or from a [`Linearization`] with
//! [`LinearSystem::from_linearization`]; sampled by [`LinearSystem::c2d`]), so that its
//! designs ([`LinearSystem::lqr`], [`LinearSystem::dlqi`], ...) refuse the other kind
//! ([`ControlError::DomainMismatch`]). It gives its poles, DC gain, controllability and
//! observability ([`ctrb`], [`obsv`]), step, impulse, initial-condition and
//! arbitrary-input responses ([`Response`]), the frequency response
//! ([`FrequencyResponse`]), the gain and phase margins ([`Margins`]) and, with the `plot`
//! feature, a Bode diagram. [`place`] ([`place_with`]) places the poles of a state
//! feedback robustly (Kautsky–Nichols–Van Dooren, Tits–Yang: SciPy's `place_poles`).
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

mod blocks;
#[cfg(feature = "plot")]
mod bode;
mod driven;
mod estimation;
mod frequency;
mod integral;
mod linear_system;
mod observer;
mod place;
mod response;

pub use blocks::{fixed, split_columns};
pub use driven::{dlqr_gain_driving, lqr_gain_driving, DrivenInputs};
pub use estimation::{dlqe, lqe};
pub use frequency::{FrequencyResponse, Margins};
pub use integral::{dlqi, lqi};
pub use linear_system::{ctrb, obsv, LinearSystem, RankTest};
pub use observer::ObserverController;
pub use place::{place, place_with, PlaceMethod, Placement};
pub use response::Response;

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
    /// A design or an analysis meant for one kind of [`LinearSystem`] was asked of the
    /// other: a continuous design ([`LinearSystem::lqr`], [`LinearSystem::lqi`],
    /// [`LinearSystem::lqe`], [`LinearSystem::c2d`]) of a sampled system, or a sampled one
    /// ([`LinearSystem::dlqr`], ...) of a continuous system. Sample a continuous system
    /// first with [`LinearSystem::c2d`].
    DomainMismatch {
        /// The operation asked for: `"lqr"`, `"dlqi"`, `"c2d"`, ...
        operation: &'static str,
        /// What it needs: `"continuous"` or `"sampled"`.
        expected: &'static str,
        /// What the system is.
        found: &'static str,
    },
    /// The response was asked at a pole of the system, where the gain is infinite: the DC
    /// gain ([`LinearSystem::dc_gain`]) of a system with a pole at s = 0 (an integrator)
    /// or, sampled, at z = 1; a frequency response at s = jω (z = e^{jωTs}) on a pole.
    PoleAtFrequency {
        /// The frequency ω in rad/s (0 for the DC gain).
        frequency: f64,
    },
    /// An analysis defined for one input and one output (the gain and phase margins) was
    /// asked of a system with several: choose a pair with [`LinearSystem::channel`].
    NotSiso {
        /// The system's number of outputs.
        outputs: usize,
        /// Its number of inputs.
        inputs: usize,
    },
    /// An input or output index beyond the system's.
    NoSuchChannel {
        /// `"input"` or `"output"`.
        kind: &'static str,
        /// The index asked for.
        index: usize,
        /// How many the system has.
        count: usize,
    },
    /// Pole placement ([`place`]) on a system that is not controllable: the controllability
    /// matrix has rank below the number of states (see [`LinearSystem::controllability`]),
    /// so some mode cannot be moved.
    Uncontrollable {
        /// The rank of the controllability matrix.
        rank: usize,
        /// The number of states.
        states: usize,
    },
    /// Pole placement ([`place`]) asked for a pole more times than B has independent
    /// columns: a state feedback can give an eigenvalue at most rank(B) independent
    /// eigenvectors, and the robust methods need a diagonalizable closed loop.
    RepeatedPole {
        /// The pole.
        pole: Complex<f64>,
        /// How many times it was asked for.
        multiplicity: usize,
        /// The rank of B.
        rank: usize,
    },
    /// An input named for a design ([`DrivenInputs::named`]) that the model does not have.
    UnknownInput {
        /// The name given.
        name: String,
        /// The model's inputs.
        inputs: Vec<&'static str>,
    },
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
            Self::DomainMismatch {
                operation,
                expected,
                found,
            } => write!(
                f,
                "{operation} needs a {expected} system, but this one is {found}"
            ),
            Self::PoleAtFrequency { frequency } => write!(
                f,
                "the system has a pole at the frequency {frequency} rad/s, where its gain is infinite"
            ),
            Self::NotSiso { outputs, inputs } => write!(
                f,
                "this needs one input and one output, but the system has {inputs} inputs and \
                 {outputs} outputs: choose a pair with LinearSystem::channel"
            ),
            Self::NoSuchChannel { kind, index, count } => write!(
                f,
                "there is no {kind} {index}: the system has {count}"
            ),
            Self::Uncontrollable { rank, states } => write!(
                f,
                "the system is not controllable (the controllability matrix has rank {rank} \
                 for {states} states), so its poles cannot all be placed"
            ),
            Self::RepeatedPole {
                pole,
                multiplicity,
                rank,
            } => write!(
                f,
                "the pole {} {:+}i is asked for {multiplicity} times, more than rank(B) = {rank}",
                pole.re, pole.im
            ),
            Self::UnknownInput { name, inputs } => write!(
                f,
                "the model has no input `{name}`; its inputs are {inputs:?}"
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
    Ok((reduced_q(lin, q)?, DMatrix::from_fn(M, M, |i, j| r[(i, j)])))
}

/// The state weight of a design around `lin` in its independent coordinates, Vᵀ Q V (V
/// the tangent basis, checked); Q must be 2N × 2N.
fn reduced_q<const N: usize, const M: usize>(
    lin: &Linearization<N, M>,
    q: &DMatrix<f64>,
) -> Result<DMatrix<f64>, ControlError> {
    if q.shape() != (2 * N, 2 * N) {
        return Err(ControlError::DimensionMismatch {
            matrix: "Q",
            expected: (2 * N, 2 * N),
            found: q.shape(),
        });
    }
    check_tangent(lin)?;
    let v = &lin.tangent;
    Ok(v.transpose() * q * v)
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
mod lti_tests;
// Generated by reference/linear_systems.py, kept as the script writes it.
#[cfg(test)]
#[rustfmt::skip]
#[path = "reference/linear_systems.rs"]
mod reference;
#[cfg(test)]
mod tests;
