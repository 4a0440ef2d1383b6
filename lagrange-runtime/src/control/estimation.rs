//! Steady-state Kalman gains of an observer from chosen measured outputs: continuous
//! ([`lqe`], the dual of [`lqr`]) and sampled ([`dlqe`], the dual of [`dlqr`]).

use super::{check_matrices, dlqr, indefinite, lqr, ControlError};
use crate::linalg::symmetric_part;
use nalgebra::DMatrix;

/// The steady-state Kalman(–Bucy) gain of a continuous-time observer (as MATLAB's `lqe`
/// with G = I): for ẋ = A x + B u + w measured as y = C x + v, with white noises of
/// intensities E[w wᵀ] = W (process, n × n) and E[v vᵀ] = V (measurements, p × p), the
/// estimate
///
/// ```text
/// d x̂/dt = A x̂ + B u + L (y − C x̂),     L = P Cᵀ V⁻¹,
/// ```
///
/// has the least error covariance P, the stabilizing solution of the filter Riccati
/// equation A P + P Aᵀ − P Cᵀ V⁻¹ C P + W = 0; A − L C is stable. Returns (L, P), L
/// n × p. Noise that enters through G (w = G w̃) has W = G W̃ Gᵀ.
///
/// It is the dual of [`lqr`] (Aᵀ, Cᵀ for A, B; W, V for Q, R), solved as that is, with
/// its scaling. Requirements: W symmetric positive semidefinite, V symmetric positive
/// definite, (A, C) detectable (every unstable mode seen by some measurement), and no
/// mode on the imaginary axis that the measurements do not see or the noise does not
/// excite.
///
/// # Errors
/// [`ControlError::NotSquare`] (A), [`ControlError::DimensionMismatch`] (C with n columns,
/// W n × n, V p × p), [`ControlError::NonFinite`], [`ControlError::NotSymmetric`],
/// [`ControlError::NotPositiveSemidefinite`] (W), [`ControlError::NotPositiveDefinite`]
/// (V), each naming its matrix; [`ControlError::NotDetectable`] when no stabilizing
/// solution exists, and [`ControlError::BadlyScaled`] (naming `"L"` for the gain).
///
/// # Example
/// ```
/// use lagrange_runtime::control::lqe;
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // A position x driven by a random velocity (ẋ = w, intensity q), measured with noise of
/// // intensity r: L = √(q/r), P = √(q r).
/// let (q, r) = (4.0, 0.25);
/// let (l, p) = lqe(
///     &DMatrix::zeros(1, 1),
///     &DMatrix::from_element(1, 1, 1.0),
///     &DMatrix::from_element(1, 1, q),
///     &DMatrix::from_element(1, 1, r),
/// )
/// .unwrap();
/// assert!((l[(0, 0)] - 4.0).abs() < 1e-12);
/// assert!((p[(0, 0)] - 1.0).abs() < 1e-12);
/// ```
pub fn lqe(
    a: &DMatrix<f64>,
    c: &DMatrix<f64>,
    w: &DMatrix<f64>,
    v: &DMatrix<f64>,
) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
    check(a, c, w, v)?;
    let (k, p) = lqr(&a.transpose(), &c.transpose(), w, v).map_err(dual)?;
    Ok((k.transpose(), p))
}

/// The steady-state Kalman gain of a sampled observer (as MATLAB's `dlqe` with G = I): for
/// x_{k+1} = A x_k + B u_k + w_k measured as y_k = C x_k + v_k, with white noises of
/// covariances W (process, n × n) and V (measurements, p × p), the filter
///
/// ```text
/// x̂_k = x̂⁻_k + M (y_k − C x̂⁻_k)          (measurement update)
/// x̂⁻_{k+1} = A x̂_k + B u_k               (prediction)
/// ```
///
/// with the innovation gain M = P Cᵀ (C P Cᵀ + V)⁻¹ has the least error covariance P of
/// the prediction x̂⁻, the stabilizing solution of the filter Riccati equation
/// P = A P Aᵀ − A P Cᵀ (C P Cᵀ + V)⁻¹ C P Aᵀ + W; the prediction's error evolves with
/// A − A M C, stable. Returns (M, P), M n × p; the gain of the one-step predictor
/// x̂⁻_{k+1} = A x̂⁻_k + B u_k + L (y_k − C x̂⁻_k) is L = A M. For a sampled continuous
/// plant, A is that of [`c2d`](super::c2d) and W the covariance the noise adds over one
/// period.
///
/// It is the dual of [`dlqr`] (Aᵀ, Cᵀ for A, B; W, V for Q, R), solved as that is.
/// Requirements: W symmetric positive semidefinite, V symmetric positive definite, (A, C)
/// detectable, and no mode on the unit circle unseen by C or unexcited by W.
///
/// # Errors
/// As [`lqe`].
///
/// # Example
/// ```
/// use lagrange_runtime::control::dlqe;
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // A random walk x_{k+1} = x_k + w_k measured as y_k = x_k + v_k: the prior variance
/// // solves P = P − P²/(P + v) + w, P = (w + √(w² + 4 w v))/2, and M = P/(P + v).
/// let (w, v) = (1.0, 2.0);
/// let one = DMatrix::from_element(1, 1, 1.0);
/// let (m, p) = dlqe(&one, &one, &(&one * w), &(&one * v)).unwrap();
/// let want = (w + (w * w + 4.0 * w * v).sqrt()) / 2.0;
/// assert!((p[(0, 0)] - want).abs() < 1e-12); // 2
/// assert!((m[(0, 0)] - want / (want + v)).abs() < 1e-12); // 1/2
/// ```
pub fn dlqe(
    a: &DMatrix<f64>,
    c: &DMatrix<f64>,
    w: &DMatrix<f64>,
    v: &DMatrix<f64>,
) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
    check(a, c, w, v)?;
    let (_, p) = dlqr(&a.transpose(), &c.transpose(), w, v).map_err(dual)?;
    // M = P Cᵀ S⁻¹ with S = C P Cᵀ + V symmetric positive definite: Mᵀ = S⁻¹ C P.
    let innovation = symmetric_part(&(c * &p * c.transpose() + v));
    let m = innovation
        .cholesky()
        .map(|chol| chol.solve(&(c * &p)).transpose())
        .filter(|m| m.iter().all(|x| x.is_finite()))
        .ok_or(ControlError::BadlyScaled { matrix: "M" })?;
    Ok((m, p))
}

/// Shapes, finiteness, symmetry and definiteness of the estimator's matrices, named as
/// the user passed them (the dual solve would call them B, Q and R).
fn check(
    a: &DMatrix<f64>,
    c: &DMatrix<f64>,
    w: &DMatrix<f64>,
    v: &DMatrix<f64>,
) -> Result<(), ControlError> {
    let (n, p) = (a.nrows(), c.nrows());
    check_matrices(
        a,
        &[("C", c, (p, n)), ("W", w, (n, n)), ("V", v, (p, p))],
        &[("W", w), ("V", v)],
    )?;
    if let Some(min_eigenvalue) = indefinite(w) {
        return Err(ControlError::NotPositiveSemidefinite {
            matrix: "W",
            min_eigenvalue,
        });
    }
    if symmetric_part(v).cholesky().is_none() {
        return Err(ControlError::NotPositiveDefinite { matrix: "V" });
    }
    Ok(())
}

/// A failure of the dual regulator problem, in the estimator's terms.
fn dual(error: ControlError) -> ControlError {
    match error {
        ControlError::NoStabilizingSolution
        | ControlError::ImaginaryAxisEigenvalue { .. }
        | ControlError::NoConvergence { .. } => ControlError::NotDetectable,
        ControlError::BadlyScaled { matrix } => ControlError::BadlyScaled {
            matrix: match matrix {
                "K" => "L",
                "BR⁻¹Bᵀ" => "CᵀV⁻¹C",
                "Q" => "W",
                "R" => "V",
                other => other,
            },
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rows: usize, columns: usize, entries: &[f64]) -> DMatrix<f64> {
        DMatrix::from_row_slice(rows, columns, entries)
    }

    /// ẋ = a x + w, y = c x + v: 2aP − c²P²/v + w = 0, so P = v (a + √(a² + c²w/v))/c² and
    /// L = P c/v, for a stable, a marginal and an unstable a.
    #[test]
    fn scalar_kalman_bucy_gain_matches_the_closed_form() {
        for (a, c, w, v) in [
            (-2.0, 1.0, 3.0, 0.5),
            (0.0, 2.0, 1.0, 1.0),
            (1.5, 0.3, 0.2, 4.0),
        ] {
            let (l, p) = lqe(
                &m(1, 1, &[a]),
                &m(1, 1, &[c]),
                &m(1, 1, &[w]),
                &m(1, 1, &[v]),
            )
            .unwrap();
            let want = v * (a + (a * a + c * c * w / v).sqrt()) / (c * c);
            assert!(
                (p[(0, 0)] - want).abs() < 1e-13 * want,
                "P = {p}, want {want}"
            );
            assert!(
                (l[(0, 0)] - want * c / v).abs() < 1e-13 * want * c / v,
                "L = {l}"
            );
            assert!(a - l[(0, 0)] * c < 0.0);
        }
    }

    /// The double integrator (position measured, velocity driven by noise of intensity w):
    /// the filter CARE's entries give p₁₂ = √(w v), p₁₁ = √(2 v p₁₂), p₂₂ = p₁₁ p₁₂/v, so
    /// L = [√2 (w/v)^¼, √(w/v)], the classic second-order tracker.
    #[test]
    fn double_integrator_tracker_matches_the_closed_form() {
        let (w, v) = (9.0, 0.04);
        let a = m(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let c = m(1, 2, &[1.0, 0.0]);
        let (l, p) = lqe(&a, &c, &m(2, 2, &[0.0, 0.0, 0.0, w]), &m(1, 1, &[v])).unwrap();
        let p12 = (w * v).sqrt();
        let p11 = (2.0 * v * p12).sqrt();
        let want_p = m(2, 2, &[p11, p12, p12, p11 * p12 / v]);
        let want_l = m(2, 1, &[2f64.sqrt() * (w / v).powf(0.25), (w / v).sqrt()]);
        assert!((&p - &want_p).amax() < 1e-12 * want_p.amax(), "P = {p}");
        assert!((&l - &want_l).amax() < 1e-12 * want_l.amax(), "L = {l}");
    }

    /// x_{k+1} = a x_k + w, y = c x + v: c²P² + (v − a²v − wc²)P − wv = 0, whose positive
    /// root is the prior variance, and M = P c/(c²P + v).
    #[test]
    fn scalar_discrete_kalman_gain_matches_the_closed_form() {
        for (a, c, w, v) in [
            (1.0, 1.0, 1.0, 2.0),
            (0.9, 2.0, 0.1, 0.5),
            (1.3, 0.5, 2.0, 1.0),
        ] {
            let (gain, p) = dlqe(
                &m(1, 1, &[a]),
                &m(1, 1, &[c]),
                &m(1, 1, &[w]),
                &m(1, 1, &[v]),
            )
            .unwrap();
            let b = v - a * a * v - w * c * c;
            let want = (-b + (b * b + 4.0 * c * c * w * v).sqrt()) / (2.0 * c * c);
            assert!(
                (p[(0, 0)] - want).abs() < 1e-13 * want,
                "P = {p}, want {want}"
            );
            let want_m = want * c / (c * c * want + v);
            assert!((gain[(0, 0)] - want_m).abs() < 1e-13 * want_m, "M = {gain}");
        }
    }

    /// A constant-velocity target sampled every 0.1 s, its position measured: the
    /// steady-state P is the limit of the covariance recursion
    /// P⁺ = A (P − P Cᵀ (C P Cᵀ + V)⁻¹ C P) Aᵀ + W from P = W (iterated here, an
    /// independent way to it), and M its innovation gain.
    #[test]
    fn discrete_gain_is_the_limit_of_the_covariance_recursion() {
        let dt = 0.1;
        let a = m(2, 2, &[1.0, dt, 0.0, 1.0]);
        let c = m(1, 2, &[1.0, 0.0]);
        let q = 0.5;
        // Piecewise-constant white acceleration of variance q over each period.
        let w = m(
            2,
            2,
            &[
                dt.powi(4) / 4.0,
                dt.powi(3) / 2.0,
                dt.powi(3) / 2.0,
                dt * dt,
            ],
        ) * q;
        let v = m(1, 1, &[0.01]);
        let (gain, p) = dlqe(&a, &c, &w, &v).unwrap();
        let mut x = w.clone();
        for _ in 0..5000 {
            let s = (&c * &x * c.transpose() + &v)[(0, 0)];
            let posterior = &x - &x * c.transpose() * &c * &x / s;
            x = &a * posterior * a.transpose() + &w;
        }
        assert!(
            (&p - &x).amax() < 1e-12 * x.amax(),
            "P = {p}, recursion {x}"
        );
        let s = (&c * &x * c.transpose() + &v)[(0, 0)];
        let want = &x * c.transpose() / s;
        assert!(
            (&gain - &want).amax() < 1e-12 * want.amax(),
            "M = {gain}, want {want}"
        );
        // The prediction error's dynamics A − A M C are stable.
        let error = &a - &a * &gain * &c;
        assert!(error.complex_eigenvalues().iter().all(|z| z.norm() < 1.0));
    }

    /// Settings are checked with the estimator's names, and an unobservable unstable mode
    /// is called undetectable.
    #[test]
    fn estimator_errors_name_their_cause() {
        let a = m(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let c = m(1, 2, &[1.0, 0.0]);
        let (w, v) = (DMatrix::identity(2, 2), m(1, 1, &[1.0]));
        assert_eq!(
            lqe(&a, &m(1, 3, &[1.0, 0.0, 0.0]), &w, &v),
            Err(ControlError::DimensionMismatch {
                matrix: "C",
                expected: (1, 2),
                found: (1, 3)
            })
        );
        assert!(matches!(
            dlqe(&a, &c, &DMatrix::identity(3, 3), &v),
            Err(ControlError::DimensionMismatch { matrix: "W", .. })
        ));
        assert!(matches!(
            lqe(&a, &c, &w, &DMatrix::identity(2, 2)),
            Err(ControlError::DimensionMismatch { matrix: "V", .. })
        ));
        assert_eq!(
            lqe(&a, &c, &w, &m(1, 1, &[f64::INFINITY])),
            Err(ControlError::NonFinite { matrix: "V" })
        );
        assert_eq!(
            lqe(&a, &c, &m(2, 2, &[1.0, 0.5, 0.0, 1.0]), &v),
            Err(ControlError::NotSymmetric { matrix: "W" })
        );
        assert_eq!(
            dlqe(&a, &c, &m(2, 2, &[1.0, 0.0, 0.0, -0.5]), &v),
            Err(ControlError::NotPositiveSemidefinite {
                matrix: "W",
                min_eigenvalue: -0.5
            })
        );
        assert_eq!(
            lqe(&a, &c, &w, &m(1, 1, &[0.0])),
            Err(ControlError::NotPositiveDefinite { matrix: "V" })
        );
        // An unstable mode no measurement sees: ẋ₂ = x₂ measured through x₁ only, which
        // it does not drive.
        let unseen = m(2, 2, &[-1.0, 0.0, 0.0, 1.0]);
        assert_eq!(lqe(&unseen, &c, &w, &v), Err(ControlError::NotDetectable));
        let unseen = m(2, 2, &[0.5, 0.0, 0.0, 1.5]);
        assert_eq!(dlqe(&unseen, &c, &w, &v), Err(ControlError::NotDetectable));
        assert!(ControlError::NotDetectable
            .to_string()
            .contains("detectable"));
    }

    /// Issue 45 item 3, the dual: A = Tᵀ diag(1, ½) T (symmetric), C = [0 1] T, so the
    /// mode at z = 1 is one no measurement sees: no stabilizing solution, at four angles
    /// (before: `Ok` with P ≈ 2e8).
    #[test]
    fn an_unseen_mode_on_the_unit_circle_is_not_detectable() {
        for angle in [0.15f64, 0.3, 0.45, 1.15] {
            let (sin, cos) = angle.sin_cos();
            let t = m(2, 2, &[cos, -sin, sin, cos]);
            let a = t.transpose() * m(2, 2, &[1.0, 0.0, 0.0, 0.5]) * &t;
            let c = m(1, 2, &[0.0, 1.0]) * &t;
            assert_eq!(
                dlqe(&a, &c, &DMatrix::identity(2, 2), &m(1, 1, &[1.0])),
                Err(ControlError::NotDetectable),
                "{angle}"
            );
        }
    }
}
