//! The continuous algebraic Riccati equation AᵀP + PA − PBR⁻¹BᵀP + Q = 0: its stabilizing
//! solution by the matrix [`sign`](super::sign) function of the Hamiltonian
//! [[A, −G], [−Q, −Aᵀ]] (G = BR⁻¹Bᵀ), after an exact scaling by powers of two and a
//! symplectic balancing, refined by Newton (Kleinman) steps, each a
//! [`lyapunov`](super::lyapunov) solve. The numerical core of
//! [`care`](crate::control::care); the method, the scaling and the references are
//! described for users in the [`control`](crate::control#method) module docs.

use super::eigenvalues::{eigenvalues, is_stable};
use super::lyapunov::lyapunov;
use super::scaling::{exponent, normalized, symmetric_part, times_pow2};
use super::sign::{sign, SignError};
use crate::tolerances::{
    BALANCING_GAIN, BALANCING_SWEEPS, BOUNDARY_MODE, EIGENVALUE_ITERATIONS,
    RICCATI_REFINEMENT_PROGRESS as REFINEMENT_PROGRESS,
    RICCATI_REFINEMENT_STEPS as REFINEMENT_STEPS, RICCATI_RESCALING_PASSES as RESCALING_PASSES,
    RICCATI_RESIDUAL as RESIDUAL_TOLERANCE, RICCATI_TAMING as TAMING,
    RICCATI_TIME_SCALED as TIME_SCALED, RICCATI_TIME_SCALING_PASSES as TIME_SCALING_PASSES,
    RICCATI_UNIT_DIAGONAL as UNIT_DIAGONAL, SUBSPACE_RANK, SVD_ITERATIONS,
};
use nalgebra::{Complex, DMatrix, Schur, SVD};

/// Why the Riccati equation could not be solved: the failures of the numerical method,
/// which [`control`](crate::control) reports as the `ControlError` of the same name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RiccatiError {
    /// R has no Cholesky factor.
    RNotPositiveDefinite,
    /// The Hamiltonian has an eigenvalue on the imaginary axis (to the resolution of the
    /// sign iteration), given at the time scale of the problem posed.
    ImaginaryAxisEigenvalue { eigenvalue: Complex<f64> },
    /// The sign iteration did not converge, with no eigenvalue found on the axis.
    NoConvergence { iterations: usize, change: f64 },
    /// No stabilizing solution can be recovered from the sign matrix.
    NoStabilizingSolution,
    /// `matrix` is out of the range of f64, or (`"P"`) unresolved in double precision,
    /// even after the scaling.
    BadlyScaled { matrix: &'static str },
    /// (Discrete equation only.) A mode of A on the unit circle that Q does not see: it
    /// costs nothing, so the optimal input leaves it where it is, and no solution is
    /// stabilizing ((Q, A) is not detectable). The continuous equation reports the same on
    /// the imaginary axis as [`ImaginaryAxisEigenvalue`](Self::ImaginaryAxisEigenvalue).
    NotDetectable,
}

/// The solution of the scaled Riccati equation and what undoes the scaling.
pub(crate) struct Solution {
    /// P̂ = 2^shift D P D with D = diag(2^δ₁, …, 2^δₙ).
    p: DMatrix<f64>,
    shift: i32,
    delta: Vec<i32>,
    /// R⁻¹Bᵀ = 2^gain_exponent · gain_factor.
    gain_factor: DMatrix<f64>,
    gain_exponent: i32,
}

impl Solution {
    /// P = 2^−shift D⁻¹ P̂ D⁻¹, entry by entry (exact unless it overflows or underflows).
    pub(crate) fn p(&self) -> Result<DMatrix<f64>, RiccatiError> {
        let n = self.p.nrows();
        let p = DMatrix::from_fn(n, n, |i, j| {
            times_pow2(self.p[(i, j)], -self.shift - self.delta[i] - self.delta[j])
        });
        all_finite(p, "P")
    }

    /// K = R⁻¹BᵀP, each term of the product scaled once by its full power of two.
    pub(crate) fn k(&self) -> Result<DMatrix<f64>, RiccatiError> {
        let (m, n) = self.gain_factor.shape();
        let k = DMatrix::from_fn(m, n, |row, j| {
            (0..n)
                .map(|i| {
                    times_pow2(
                        self.gain_factor[(row, i)] * self.p[(i, j)],
                        self.gain_exponent - self.shift - self.delta[i] - self.delta[j],
                    )
                })
                .sum()
        });
        all_finite(k, "K")
    }
}

/// `x`, or [`RiccatiError::BadlyScaled`] naming it when it overflowed.
fn all_finite(x: DMatrix<f64>, matrix: &'static str) -> Result<DMatrix<f64>, RiccatiError> {
    if x.iter().all(|v| v.is_finite()) {
        Ok(x)
    } else {
        Err(RiccatiError::BadlyScaled { matrix })
    }
}

/// The stabilizing solution of AᵀP + PA − PBR⁻¹BᵀP + Q = 0 for matrices of fitting shapes,
/// finite, Q symmetric positive semidefinite and R symmetric (which the caller checks):
/// scales the problem (see [Scaling](crate::control#scaling)) and solves the scaled one.
pub(crate) fn solve(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<Solution, RiccatiError> {
    let (q0, eq) = normalized(q);
    let (b0, eb) = normalized(b);
    // R = 2^er R₀ with an even er, so that G = BR⁻¹Bᵀ = 2^(2 ef) F₀ᵀF₀ below has an even
    // exponent too and F₀ can be scaled with G.
    let er = exponent(r.amax()) & !1;
    let r0 = r.map(|v| times_pow2(v, -er));
    let cholesky = symmetric_part(&r0)
        .cholesky()
        .ok_or(RiccatiError::RNotPositiveDefinite)?;
    // G = 2^(2 eb − er) FᵀF with F = L⁻¹B₀ᵀ (R₀ = LLᵀ), kept as a power of two times a
    // matrix of moderate size: G itself may be out of the range of f64, and PGP is formed
    // as (FP)ᵀ(FP), which does not lose the small entries of a graded P to cancellation.
    let f = cholesky
        .l()
        .solve_lower_triangular(&b0.transpose())
        .ok_or(RiccatiError::RNotPositiveDefinite)?;
    let gain_factor = cholesky.solve(&b0.transpose());
    if !f.iter().chain(gain_factor.iter()).all(|v| v.is_finite()) {
        // R is positive definite but so close to singular that R⁻¹Bᵀ overflows.
        return Err(RiccatiError::BadlyScaled { matrix: "R" });
    }
    let (f0, ef) = normalized(&f);
    let n = a.nrows();
    let mut solution = Solution {
        p: DMatrix::zeros(n, n),
        shift: 0,
        delta: vec![0; n],
        gain_factor,
        gain_exponent: eb - er,
    };
    if n == 0 {
        return Ok(solution);
    }
    let blocks = Blocks {
        a,
        f0: &f0,
        ef: eb - er / 2 + ef,
        q0: &q0,
        eq,
    };
    let solved = match blocks.solve() {
        Ok((p, shift, delta)) => {
            (solution.p, solution.shift, solution.delta) = (p, shift, delta);
            return Ok(solution);
        }
        Err(error @ RiccatiError::BadlyScaled { matrix }) if matrix != "P" => return Err(error),
        Err(error) => {
            // Stabilizability and the modes on the axis do not depend on the size of Q
            // next to R, but the time scales do: with g q ≫ ‖A‖² (a large Q, a small R)
            // the closed loop has modes as fast as √(g q) beside modes as slow as ‖A‖. If
            // the same problem with Q scaled down to g q ≈ ‖A‖² has a solution, the
            // failure was the scaling.
            let (a_norm, g_norm) = (a.amax(), f0.amax());
            let taming = 2 * exponent(a_norm) - 2 * blocks.ef - eq;
            if a_norm == 0.0 || g_norm == 0.0 || q0.amax() == 0.0 || taming > -TAMING {
                Err(error)
            } else {
                let tamed = Blocks {
                    eq: eq + taming,
                    ..blocks
                };
                match tamed.solve() {
                    Ok(_) => Err(RiccatiError::BadlyScaled { matrix: "P" }),
                    Err(tamed_error) => Err(tamed_error),
                }
            }
        }
    };
    // A failure with a mode that the input cannot move or Q does not see, on the axis or
    // to its right, is put down to that mode, whatever the iteration made of it (a mode
    // on the axis that the rounding of the data moved off it converges, to a P out of
    // all proportion that the rescaling then calls badly scaled).
    match solved {
        Err(RiccatiError::BadlyScaled { matrix }) if matrix != "P" => solved,
        Err(error) => Err(boundary_cause(a, &f0, &q0, Boundary::ImaginaryAxis).unwrap_or(error)),
        Ok(_) => solved,
    }
}

/// The stability boundary of a Riccati equation: the imaginary axis (continuous time) or
/// the unit circle (discrete time).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Boundary {
    ImaginaryAxis,
    UnitCircle,
}

/// Why a Riccati equation with A, G = FᵀF (F m × n) and Q has no stabilizing solution, if
/// the Popov–Belevitch–Hautus tests on the eigenvalues λ of A find the cause: a mode on or
/// beyond the `boundary` that the input cannot move (rank [A − λI, Fᵀ] < n: (A, B) is not
/// stabilizable), or a mode on the boundary that Q does not see (rank [A − λI; Q] < n).
/// Continuous time: a mode right of the axis that the input cannot move is
/// [`NoStabilizingSolution`](RiccatiError::NoStabilizingSolution), one on the axis,
/// uncontrollable or unseen, [`ImaginaryAxisEigenvalue`](RiccatiError::ImaginaryAxisEigenvalue)
/// (λ is an eigenvalue of the Hamiltonian either way). Discrete time: a mode on or
/// outside the circle that the input cannot move is
/// [`NoStabilizingSolution`](RiccatiError::NoStabilizingSolution), one on the circle that Q
/// does not see [`NotDetectable`](RiccatiError::NotDetectable). `None` when neither test
/// finds a mode: the failure is the method's, or the scaling's.
///
/// Called only on a failure, so its tolerances decide which error names the cause, never
/// whether a problem is solved: a mode counts as on the boundary, and a rank as deficient,
/// to within [`BOUNDARY_MODE`] (√ε) of the size of the matrices, since an eigenvalue of a
/// Jordan block on the boundary is only computed to about that. The blocks are balanced
/// first (as the solvers balance them) and F and Q normalized to the size of A, so that
/// the units of the states and the sizes of the weights do not decide the ranks.
pub(crate) fn boundary_cause(
    a: &DMatrix<f64>,
    f: &DMatrix<f64>,
    q: &DMatrix<f64>,
    boundary: Boundary,
) -> Option<RiccatiError> {
    let n = a.nrows();
    if n == 0
        || !a
            .iter()
            .chain(f.iter())
            .chain(q.iter())
            .all(|v| v.is_finite())
    {
        return None;
    }
    let (f0, _) = normalized(f);
    let (q0, _) = normalized(q);
    let (mut a, mut g, mut q) = (a.clone(), symmetric_part(&f0.tr_mul(&f0)), q0);
    let delta = balance(&mut a, &mut g, &mut q);
    let f = DMatrix::from_fn(f0.nrows(), n, |i, j| times_pow2(f0[(i, j)], -delta[j]));
    // The size of A − λI: that of A, and at least 1 on the unit circle.
    let size = match boundary {
        Boundary::ImaginaryAxis => a.amax(),
        Boundary::UnitCircle => a.amax().max(1.0),
    };
    if size == 0.0 {
        // A = 0 in continuous time: every mode is at s = 0, on the axis.
        let zero = Complex::new(0.0, 0.0);
        let unreachable = f.amax() == 0.0 || q.amax() == 0.0;
        return unreachable.then_some(RiccatiError::ImaginaryAxisEigenvalue { eigenvalue: zero });
    }
    let (f_size, q_size) = (f.amax(), q.amax());
    let complex = |x: &DMatrix<f64>| x.map(|v| Complex::new(v, 0.0));
    // Whether the smallest singular value of `x` is zero to within BOUNDARY_MODE of `size`.
    let deficient = |x: DMatrix<Complex<f64>>| {
        x.svd(false, false).singular_values.min() <= BOUNDARY_MODE * size
    };
    let shifted = |lambda: Complex<f64>| {
        let mut x = complex(&a);
        for i in 0..n {
            x[(i, i)] -= lambda;
        }
        x
    };
    let uncontrollable = |lambda: Complex<f64>| {
        let m = f.nrows();
        let mut x = DMatrix::zeros(n, n + m);
        x.columns_mut(0, n).copy_from(&shifted(lambda));
        if f_size > 0.0 {
            x.columns_mut(n, m)
                .copy_from(&complex(&(f.transpose() * (size / f_size))));
        }
        deficient(x)
    };
    let unseen = |lambda: Complex<f64>| {
        let mut x = DMatrix::zeros(2 * n, n);
        x.rows_mut(0, n).copy_from(&shifted(lambda));
        if q_size > 0.0 {
            x.rows_mut(n, n)
                .copy_from(&complex(&(&q * (size / q_size))));
        }
        deficient(x)
    };
    // Distance inside the boundary, relative to `size` (negative outside).
    let inside = |lambda: Complex<f64>| match boundary {
        Boundary::ImaginaryAxis => -lambda.re / size,
        Boundary::UnitCircle => 1.0 - lambda.norm(),
    };
    let modes = eigenvalues(&a)?;
    let mut cause = None;
    for &lambda in &modes {
        let distance = inside(lambda);
        let on = distance.abs() <= BOUNDARY_MODE;
        if distance > BOUNDARY_MODE {
            continue;
        }
        if uncontrollable(lambda) {
            match (boundary, on) {
                (Boundary::ImaginaryAxis, true) => {
                    cause = Some(RiccatiError::ImaginaryAxisEigenvalue { eigenvalue: lambda })
                }
                // Beyond the boundary (or on the circle): not stabilizable, the first cause.
                _ => return Some(RiccatiError::NoStabilizingSolution),
            }
        } else if on && cause.is_none() && unseen(lambda) {
            cause = Some(match boundary {
                Boundary::ImaginaryAxis => {
                    RiccatiError::ImaginaryAxisEigenvalue { eigenvalue: lambda }
                }
                Boundary::UnitCircle => RiccatiError::NotDetectable,
            });
        }
    }
    cause
}

/// The blocks of a scaled Hamiltonian, with G = FᵀF.
struct Scaled {
    a: DMatrix<f64>,
    f: DMatrix<f64>,
    g: DMatrix<f64>,
    q: DMatrix<f64>,
}

/// A − GP, formed as A − Fᵀ(FP).
fn closed_loop(s: &Scaled, p: &DMatrix<f64>) -> DMatrix<f64> {
    &s.a - s.f.transpose() * (&s.f * p)
}

/// AᵀP + PA − PGP + Q, with PGP = (FP)ᵀ(FP).
fn riccati_residual(s: &Scaled, p: &DMatrix<f64>) -> DMatrix<f64> {
    let pa = p * &s.a;
    let fp = &s.f * p;
    symmetric_part(&(&pa + pa.transpose() - fp.transpose() * fp + &s.q))
}

/// The largest ratio, entry by entry, of the residual AᵀP + PA − PGP + Q to the size of its
/// terms, T = |P||A| + |A|ᵀ|P| + |FP|ᵀ|FP| + |Q|, where the size of entry (i, j) is at
/// least √(Tᵢᵢ Tⱼⱼ), the size of the terms of its row and column. Entry by entry rather than
/// in norm, because the small entries of a graded P are fixed by equations whose terms are
/// all small; and with PGP as (FP)ᵀ(FP), because |P||G||P| can be far larger than the terms
/// that cancel. But not below √(Tᵢᵢ Tⱼⱼ): an entry whose terms are all much smaller, such as
/// one of the zero entries of P that couple two decoupled subsystems (the axes of a
/// hovering quadrotor), holds rounding errors of P of size ε √(Pᵢᵢ Pⱼⱼ) — what any
/// normwise stable method leaves in them — and its residual is as large as its own terms,
/// however good P. Invariant under the diagonal scalings of the problem, as T → DTD.
fn relative_residual(s: &Scaled, p: &DMatrix<f64>) -> f64 {
    let residual = riccati_residual(s, p);
    let pa = p.abs() * s.a.abs();
    let fp = (&s.f * p).abs();
    let terms = &pa + pa.transpose() + fp.transpose() * fp + s.q.abs();
    let diagonal: Vec<f64> = terms.diagonal().iter().map(|t| t.sqrt()).collect();
    residual
        .iter()
        .zip(terms.iter())
        .enumerate()
        .map(|(index, (r, t))| {
            // Column-major: entry (index % n, index / n).
            let (i, j) = (index % terms.nrows(), index / terms.nrows());
            if *r == 0.0 {
                0.0
            } else {
                r.abs() / t.max(diagonal[i] * diagonal[j])
            }
        })
        .fold(0.0, |worst, ratio| {
            if ratio.is_nan() {
                f64::INFINITY
            } else {
                worst.max(ratio)
            }
        })
}

/// A solution of a scaled Riccati equation and how good it is.
struct Attempt {
    p: DMatrix<f64>,
    /// Its [`relative_residual`].
    residual: f64,
    /// Whether A − GP is stable.
    stable: bool,
}

/// The solution of a scaled Riccati equation by the sign function of its Hamiltonian,
/// refined by Newton steps; an error when the sign function does not converge or no P can
/// be recovered from it.
fn attempt(s: &Scaled) -> Result<Attempt, RiccatiError> {
    let n = s.a.nrows();
    let mut h = DMatrix::zeros(2 * n, 2 * n);
    h.view_mut((0, 0), (n, n)).copy_from(&s.a);
    h.view_mut((0, n), (n, n)).copy_from(&-&s.g);
    h.view_mut((n, 0), (n, n)).copy_from(&-&s.q);
    h.view_mut((n, n), (n, n)).copy_from(&-s.a.transpose());
    let w = sign(h).map_err(|error| match error {
        SignError::ImaginaryAxis(eigenvalue) => {
            RiccatiError::ImaginaryAxisEigenvalue { eigenvalue }
        }
        SignError::NoConvergence { iterations, change } => {
            RiccatiError::NoConvergence { iterations, change }
        }
        SignError::SingularLastStep => RiccatiError::NoStabilizingSolution,
    })?;
    let p = refine(s, stable_subspace_solution(&w, n)?);
    Ok(Attempt {
        residual: relative_residual(s, &p),
        stable: is_stable(&closed_loop(s, &p)),
        p,
    })
}

/// The blocks of the Hamiltonian: A, G = 2^(2 ef) F₀ᵀF₀ and Q = 2^eq Q₀, with F₀ and Q₀
/// of size about 1.
struct Blocks<'a> {
    a: &'a DMatrix<f64>,
    f0: &'a DMatrix<f64>,
    ef: i32,
    q0: &'a DMatrix<f64>,
    eq: i32,
}

impl Blocks<'_> {
    /// The uniform part of the state scaling: the exponent `shift` that brings
    /// P̂ = 2^shift P to about 1, by the scalar estimate p = (α + √(α² + g q)) / g with α ≥ 0
    /// the largest real part of an eigenvalue of A (or 0), g = ‖G‖ and q = ‖Q‖: for a stable
    /// or marginal A the geometric mean √(q/g), which balances 2^−shift G against 2^shift Q,
    /// for an unstable A and a weak input about 2α/g. When G = 0 (a Lyapunov equation),
    /// q / 2‖A‖.
    fn magnitude(&self) -> i32 {
        let (a0, ea) = normalized(self.a);
        let eg = 2 * self.ef;
        let (g_zero, q_zero) = (self.f0.amax() == 0.0, self.q0.amax() == 0.0);
        // α = 2^ea α₀.
        let alpha0 = Schur::try_new(a0.clone(), f64::EPSILON, EIGENVALUE_ITERATIONS)
            .and_then(|schur| {
                schur
                    .complex_eigenvalues()
                    .iter()
                    .map(|e| e.re)
                    .reduce(f64::max)
            })
            .unwrap_or(0.0);
        let log_p = match (g_zero, q_zero) {
            (false, false) if alpha0 > 0.0 => {
                (ea + exponent(alpha0) - eg + 1).max((self.eq - eg).div_euclid(2))
            }
            (false, false) => (self.eq - eg).div_euclid(2),
            (false, true) if alpha0 > 0.0 => ea + exponent(alpha0) - eg + 1,
            (true, false) if a0.amax() > 0.0 => self.eq - ea - 1,
            _ => 0,
        };
        -log_p
    }

    /// The blocks scaled by the state scaling S = 2^(shift/2) diag(2^δ) and the time
    /// scaling 2^time: 2^time S⁻¹AS, 2^(time/2) F S⁻¹ (so Ĝ = 2^time S⁻¹GS⁻¹) and
    /// 2^time SQS, each entry multiplied once by its power of two. `time` is adjusted so
    /// that the largest entry is about 1 (and time − shift stays even).
    fn scaled(&self, shift: i32, time: &mut i32, delta: &[i32]) -> Result<Scaled, RiccatiError> {
        let (m, n) = self.f0.shape();
        let build = |time: i32| {
            let half = (time - shift) / 2;
            let f = DMatrix::from_fn(m, n, |k, j| {
                times_pow2(self.f0[(k, j)], self.ef + half - delta[j])
            });
            Scaled {
                a: DMatrix::from_fn(n, n, |i, j| {
                    times_pow2(self.a[(i, j)], time + delta[j] - delta[i])
                }),
                g: symmetric_part(&f.tr_mul(&f)),
                f,
                q: DMatrix::from_fn(n, n, |i, j| {
                    times_pow2(
                        self.q0[(i, j)],
                        self.eq + time + shift + delta[i] + delta[j],
                    )
                }),
            }
        };
        let even = |time: i32| time - (time - shift).rem_euclid(2);
        *time = even(*time);
        let mut scaled = build(*time);
        for _ in 0..TIME_SCALING_PASSES {
            let largest = [&scaled.a, &scaled.g, &scaled.q]
                .iter()
                .map(|x| x.amax())
                .fold(0.0, f64::max);
            let e = if largest.is_finite() {
                exponent(largest)
            } else {
                1000
            };
            if largest == 0.0 || e.abs() <= TIME_SCALED {
                break;
            }
            *time = even(*time - e);
            scaled = build(*time);
        }
        for (matrix, x) in [("A", &scaled.a), ("BR⁻¹Bᵀ", &scaled.g), ("Q", &scaled.q)] {
            if !x.iter().all(|v| v.is_finite()) {
                return Err(RiccatiError::BadlyScaled { matrix });
            }
        }
        Ok(scaled)
    }

    /// The solution P̂ of the scaled problem with the exponents `shift` and δ of its state
    /// scaling: balancing, then solves while P̂'s diagonal is far from 1, rescaling the
    /// states by it before the next. A P̂ whose entries differ much in size (the stable
    /// subspace, the range of [I; P̂], nearly containing a coordinate vector) is what limits
    /// the accuracy of the sign function, and its large entries are right even when its
    /// small ones are not.
    fn solve(&self) -> Result<(DMatrix<f64>, i32, Vec<i32>), RiccatiError> {
        let n = self.a.nrows();
        let shift = self.magnitude();
        let mut time = 0;
        let mut delta = {
            let mut scaled = self.scaled(shift, &mut time, &vec![0; n])?;
            balance(&mut scaled.a, &mut scaled.g, &mut scaled.q)
        };
        for pass in 0..RESCALING_PASSES {
            let scaled = self.scaled(shift, &mut time, &delta)?;
            let attempt = match attempt(&scaled) {
                Ok(attempt) => attempt,
                // After a rescaling, the failure is the problem's scaling.
                Err(_) if pass > 0 => return Err(RiccatiError::BadlyScaled { matrix: "P" }),
                Err(error) => return Err(self.explain(&scaled, error, time)),
            };
            // The state scaling that would give P̂ a unit diagonal.
            let correction: Vec<i32> = attempt
                .p
                .diagonal()
                .iter()
                .map(|&d| {
                    if d > 0.0 {
                        -(d.log2() / 2.0).round() as i32
                    } else {
                        0
                    }
                })
                .collect();
            let settled =
                correction.iter().all(|e| e.abs() <= UNIT_DIAGONAL) || pass + 1 == RESCALING_PASSES;
            if !settled {
                for (d, e) in delta.iter_mut().zip(&correction) {
                    *d += e;
                }
                continue;
            }
            return if attempt.stable && attempt.residual <= RESIDUAL_TOLERANCE {
                Ok((attempt.p, shift, delta))
            } else if pass == 0 && !attempt.stable {
                Err(RiccatiError::NoStabilizingSolution)
            } else {
                // An unstable closed loop after a rescaling, or a residual far above
                // rounding: the parts of P fixed by the slow time scales are lost in the
                // fast ones.
                Err(RiccatiError::BadlyScaled { matrix: "P" })
            };
        }
        unreachable!("the last pass returns")
    }

    /// The error to report for a failure of the scaled problem `s`: [`BadlyScaled`] if one
    /// of its blocks is not zero but underflowed (so that the problem solved was not the
    /// one posed), else the failure, with an eigenvalue scaled back to the time of H.
    ///
    /// [`BadlyScaled`]: RiccatiError::BadlyScaled
    fn explain(&self, s: &Scaled, error: RiccatiError, time: i32) -> RiccatiError {
        let lost = [
            ("A", self.a, &s.a),
            ("BR⁻¹Bᵀ", self.f0, &s.g),
            ("Q", self.q0, &s.q),
        ]
        .into_iter()
        .find(|(_, x, x_s)| x.amax() > 0.0 && x_s.amax() < f64::MIN_POSITIVE);
        match (lost, error) {
            (Some((matrix, _, _)), _) => RiccatiError::BadlyScaled { matrix },
            (None, RiccatiError::ImaginaryAxisEigenvalue { eigenvalue }) => {
                RiccatiError::ImaginaryAxisEigenvalue {
                    eigenvalue: Complex::new(
                        times_pow2(eigenvalue.re, -time),
                        times_pow2(eigenvalue.im, -time),
                    ),
                }
            }
            (None, error) => error,
        }
    }
}

/// Symplectic balancing of the Hamiltonian [[A, −G], [−Q, −Aᵀ]] (Benner): exponents δ
/// of the state scaling D = diag(2^δ), the similarity by diag(D, D⁻¹) that maps A, G, Q to
/// D⁻¹AD, D⁻¹GD⁻¹, DQD, chosen in the manner of Parlett and Reinsch: one state at a time,
/// the power of two that minimises the sum of the magnitudes of the entries it changes,
/// taken when that sum drops by 5 % ([`BALANCING_GAIN`]). The blocks are scaled in place.
pub(crate) fn balance(
    a: &mut DMatrix<f64>,
    g: &mut DMatrix<f64>,
    q: &mut DMatrix<f64>,
) -> Vec<i32> {
    let n = a.nrows();
    let mut delta = vec![0; n];
    for _ in 0..BALANCING_SWEEPS {
        let mut changed = false;
        for j in 0..n {
            let column = |x: &DMatrix<f64>| -> f64 {
                (0..n).filter(|&i| i != j).map(|i| x[(i, j)].abs()).sum()
            };
            let row = |x: &DMatrix<f64>| -> f64 {
                (0..n).filter(|&i| i != j).map(|i| x[(j, i)].abs()).sum()
            };
            // Entries of H multiplied by 2^k: column j of A (twice in H, in A and in −Aᵀ)
            // and of Q (off the diagonal twice, in column j and row n + j), Q_jj by 4^k;
            // divided by 2^k: row j of A and of G likewise, G_jj by 4^k.
            let up = [2.0 * (column(a) + column(q)), q[(j, j)].abs()];
            let down = [2.0 * (row(a) + row(g)), g[(j, j)].abs()];
            let (total_up, total_down) = (up[0] + up[1], down[0] + down[1]);
            if total_up == 0.0 || total_down == 0.0 {
                continue;
            }
            let cost = |k: i32| {
                times_pow2(up[0], k)
                    + times_pow2(up[1], 2 * k)
                    + times_pow2(down[0], -k)
                    + times_pow2(down[1], -2 * k)
            };
            // Near the minimum of the convex cost, then to it.
            let mut k = ((total_down.log2() - total_up.log2()) / 2.0).round() as i32;
            while cost(k + 1) < cost(k) {
                k += 1;
            }
            while cost(k - 1) < cost(k) {
                k -= 1;
            }
            if k == 0 || cost(k) >= BALANCING_GAIN * cost(0) {
                continue;
            }
            for i in (0..n).filter(|&i| i != j) {
                a[(i, j)] = times_pow2(a[(i, j)], k);
                a[(j, i)] = times_pow2(a[(j, i)], -k);
                for (x, sign) in [(&mut *q, 1), (&mut *g, -1)] {
                    x[(i, j)] = times_pow2(x[(i, j)], sign * k);
                    x[(j, i)] = times_pow2(x[(j, i)], sign * k);
                }
            }
            q[(j, j)] = times_pow2(q[(j, j)], 2 * k);
            g[(j, j)] = times_pow2(g[(j, j)], -2 * k);
            delta[j] += k;
            changed = true;
        }
        if !changed {
            break;
        }
    }
    delta
}

/// P from the sign matrix `w` of the 2n × 2n Hamiltonian: the least-squares solution of
/// [W₁₂; W₂₂ + I] P = −[W₁₁ + I; W₂₁], symmetrized. Rank-deficient when the stable
/// subspace is not the graph of a matrix (the problem is not stabilizable).
fn stable_subspace_solution(w: &DMatrix<f64>, n: usize) -> Result<DMatrix<f64>, RiccatiError> {
    let mut lhs = w.view((0, n), (2 * n, n)).into_owned();
    let mut rhs = -w.view((0, 0), (2 * n, n)).into_owned();
    for i in 0..n {
        lhs[(n + i, i)] += 1.0;
        rhs[(i, i)] -= 1.0;
    }
    let svd = SVD::try_new(lhs, true, true, f64::EPSILON, SVD_ITERATIONS)
        .ok_or(RiccatiError::NoStabilizingSolution)?;
    let largest = svd.singular_values.max();
    let tolerance = SUBSPACE_RANK * f64::EPSILON * (2 * n) as f64 * largest;
    if largest == 0.0 || svd.rank(tolerance) < n {
        return Err(RiccatiError::NoStabilizingSolution);
    }
    let p = svd
        .solve(&rhs, tolerance)
        .map_err(|_| RiccatiError::NoStabilizingSolution)?;
    Ok(symmetric_part(&p))
}

/// Newton steps on the Riccati equation from `p` (Kleinman's iteration, started from the
/// sign function's solution): with A_c = A − G P, the correction Δ solves the Lyapunov
/// equation A_cᵀΔ + ΔA_c + Res(P) = 0. Each step squares the error of an accurate
/// enough P; they are kept while they halve the [`relative_residual`]
/// ([`REFINEMENT_PROGRESS`]), which also recovers the small entries of a graded P that the
/// sign function got wrong.
fn refine(s: &Scaled, mut p: DMatrix<f64>) -> DMatrix<f64> {
    let mut size = relative_residual(s, &p);
    for _ in 0..REFINEMENT_STEPS {
        if size <= f64::EPSILON {
            break;
        }
        let Some(delta) = lyapunov(&closed_loop(s, &p), &riccati_residual(s, &p)) else {
            break;
        };
        let next = symmetric_part(&(&p + delta));
        let next_size = relative_residual(s, &next);
        if next_size >= REFINEMENT_PROGRESS * size || next_size.is_nan() {
            break;
        }
        (p, size) = (next, next_size);
    }
    p
}
