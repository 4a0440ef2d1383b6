//! Integral action (LQI): the regulator designed on the plant augmented with the integral
//! of the tracking error of chosen outputs, continuous ([`lqi`]) and sampled ([`dlqi`]).

use super::{check_matrices, check_period, dlqr, lqr, ControlError};
use crate::tolerances::TRACKABLE_RANK;
use nalgebra::DMatrix;

/// The linear-quadratic regulator with integral action (LQI, as MATLAB's `lqi`): for
/// ẋ = A x + B u with p outputs y = C x to hold at a reference r, the integral
/// ξ = ∫ (r − y) dt of their error joins the state,
///
/// ```text
/// d/dt [x]   [ A  0] [x]   [B]     [0]
///      [ξ] = [−C  0] [ξ] + [0] u + [I] r,
/// ```
///
/// and u = −K [x; ξ] minimises ∫ ([x; ξ]ᵀ Q [x; ξ] + uᵀ R u) dt. Returns K = [K_x K_ξ]
/// (m × (n + p)) and the Riccati solution P ((n + p) × (n + p)). In a stable closed loop
/// ξ settles only where y = r: a constant reference is tracked without steady error,
/// whatever constant disturbance acts with the inputs.
///
/// The design is [`lqr`] on the augmented matrices, with its requirements on them: Q
/// (n + p) × (n + p) symmetric positive semidefinite, R positive definite, (A, B)
/// stabilizable, and the integrators controllable, which takes [A B; C 0] of full row
/// rank n + p: no more outputs than inputs, and no zero of the plant at s = 0 (it can hold
/// y at any constant value). That rank is checked first, after scaling the rows of C and
/// the columns of B to unit length: a singular value below 10³ (n + m) ε of the largest
/// counts as zero.
///
/// # Errors
/// As [`lqr`] (which names the augmented Q, (n + p) × (n + p), in a
/// [`ControlError::DimensionMismatch`]); [`ControlError::DimensionMismatch`] or
/// [`ControlError::NonFinite`] naming `"C"` for an output matrix that does not have n
/// columns or holds a NaN or an infinity; [`ControlError::InvalidSetting`] when the
/// outputs cannot be held at a reference (the rank above).
///
/// # Example
/// ```
/// use lagrange_runtime::control::lqi;
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // ẋ = u, y = x: ξ̇ = −x, so ξ̈ = −u. With Q = diag(0, 1), R = 1 the poles are
/// // Butterworth's, s² + √2 s + 1 = 0: u = −√2 x + ξ.
/// let one = DMatrix::from_element(1, 1, 1.0);
/// let q = DMatrix::from_row_slice(2, 2, &[0.0, 0.0, 0.0, 1.0]);
/// let (k, _p) = lqi(&DMatrix::zeros(1, 1), &one, &one, &q, &one).unwrap();
/// assert!((k[(0, 0)] - 2f64.sqrt()).abs() < 1e-12);
/// assert!((k[(0, 1)] + 1.0).abs() < 1e-12);
/// ```
pub fn lqi(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    c: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
    super::check_system(a, b)?;
    check_outputs(a, c)?;
    check_trackable(a, b, c, false)?;
    let (n, p) = (a.nrows(), c.nrows());
    let mut augmented = DMatrix::zeros(n + p, n + p);
    augmented.view_mut((0, 0), (n, n)).copy_from(a);
    augmented.view_mut((n, 0), (p, n)).copy_from(&(-c));
    lqr(&augmented, &augment_inputs(b, p), q, r)
}

/// The discrete-time LQI (as MATLAB's `lqi` on a sampled system): for
/// x_{k+1} = A x_k + B u_k (from [`c2d`](super::c2d), say) with outputs y_k = C x_k
/// sampled every `period`, the integral of the error accumulates by forward Euler,
/// ξ_{k+1} = ξ_k + Ts (r − C x_k), and u_k = −K [x_k; ξ_k] minimises
/// Σ ([x_k; ξ_k]ᵀ Q [x_k; ξ_k] + u_kᵀ R u_k) for
///
/// ```text
/// [x_{k+1}]   [  A    0] [x_k]   [B]       [  0 ]
/// [ξ_{k+1}] = [−Ts C  I] [ξ_k] + [0] u_k + [Ts I] r.
/// ```
///
/// Returns K = [K_x K_ξ] and the solution P of [`dare`](super::dare). The requirements
/// are those of [`dlqr`] on the augmented system; the rank condition of [`lqi`] reads
/// [A − I B; C 0] (no zero of the sampled plant at z = 1).
///
/// # Errors
/// As [`lqi`] and [`dlqr`], and [`ControlError::InvalidSetting`] for a period that is not
/// positive and finite.
///
/// # Example
/// ```
/// use lagrange_runtime::control::{c2d, dlqi, DiscreteSpectrum};
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // A first-order lag ẋ = −x + u sampled at 10 Hz, its output held at a reference.
/// let (ad, bd) = c2d(&DMatrix::from_element(1, 1, -1.0), &DMatrix::from_element(1, 1, 1.0), 0.1).unwrap();
/// let c = DMatrix::from_element(1, 1, 1.0);
/// let (k, _p) = dlqi(&ad, &bd, &c, &DMatrix::identity(2, 2), &DMatrix::identity(1, 1), 0.1).unwrap();
/// // The augmented closed loop [A − B K_x, −B K_ξ; −Ts C, 1] is stable.
/// let phi = DMatrix::from_row_slice(2, 2, &[
///     ad[(0, 0)] - bd[(0, 0)] * k[(0, 0)], -bd[(0, 0)] * k[(0, 1)],
///     -0.1, 1.0,
/// ]);
/// assert!(DiscreteSpectrum::new(&phi, 0.1).unwrap().spectral_radius() < 1.0);
/// ```
pub fn dlqi(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    c: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
    period: f64,
) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
    super::check_system(a, b)?;
    check_outputs(a, c)?;
    check_period(period)?;
    check_trackable(a, b, c, true)?;
    let (n, p) = (a.nrows(), c.nrows());
    let mut augmented = DMatrix::identity(n + p, n + p);
    augmented.view_mut((0, 0), (n, n)).copy_from(a);
    augmented.view_mut((n, 0), (p, n)).copy_from(&(-c * period));
    dlqr(&augmented, &augment_inputs(b, p), q, r)
}

/// [B; 0] with p zero rows.
fn augment_inputs(b: &DMatrix<f64>, p: usize) -> DMatrix<f64> {
    let mut augmented = DMatrix::zeros(b.nrows() + p, b.ncols());
    augmented.view_mut((0, 0), b.shape()).copy_from(b);
    augmented
}

/// C has A's number of columns and is finite (A itself is checked before, by
/// `check_system`).
fn check_outputs(a: &DMatrix<f64>, c: &DMatrix<f64>) -> Result<(), ControlError> {
    check_matrices(a, &[("C", c, (c.nrows(), a.nrows()))], &[])
}

/// Whether the outputs can be held at any constant reference: [A B; C 0] (with A − I for a
/// sampled plant) of full row rank, judged with the rows of C and the columns of B scaled
/// to unit length (which leaves the rank as it is).
fn check_trackable(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    c: &DMatrix<f64>,
    sampled: bool,
) -> Result<(), ControlError> {
    let (n, m, p) = (a.nrows(), b.ncols(), c.nrows());
    let unit = |v: f64| if v > 0.0 { 1.0 / v } else { 1.0 };
    let mut system = DMatrix::zeros(n + p, n + m);
    system.view_mut((0, 0), (n, n)).copy_from(a);
    if sampled {
        for i in 0..n {
            system[(i, i)] -= 1.0;
        }
    }
    for j in 0..m {
        let scale = unit(b.column(j).norm());
        system
            .view_mut((0, n + j), (n, 1))
            .copy_from(&(b.column(j) * scale));
    }
    for i in 0..p {
        let scale = unit(c.row(i).norm());
        system
            .view_mut((n + i, 0), (1, n))
            .copy_from(&(c.row(i) * scale));
    }
    let singular = system.singular_values();
    let largest = singular.max();
    let rank = singular
        .iter()
        .filter(|&&s| s > TRACKABLE_RANK * (n + m) as f64 * f64::EPSILON * largest)
        .count();
    if p > m || rank < n + p {
        return Err(ControlError::InvalidSetting(
            "the outputs C cannot be held at a constant reference ([A B; C 0] is not of full row rank: more outputs than inputs, or a zero of the plant at s = 0, z = 1 when sampled), so their integrals cannot be controlled",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{c2d, lqr};
    use super::*;

    fn m(rows: usize, columns: usize, entries: &[f64]) -> DMatrix<f64> {
        DMatrix::from_row_slice(rows, columns, entries)
    }

    /// ẋ = a x + b u, y = x, ξ̇ = −x, Q = diag(q₁, q₂), R = r: with β = b²/r the CARE's
    /// entries give (2,2): β p₁₂² = q₂, so p₁₂ = −√(q₂/β) (negative for a stable
    /// loop: s² + (βp₁₁ − a) s − βp₁₂ = 0); (1,1): β p₁₁² − 2a p₁₁ + 2p₁₂ − q₁ = 0, so
    /// p₁₁ = (a + √(a² + β(q₁ − 2p₁₂)))/β; (1,2): p₂₂ = p₁₂ (a − β p₁₁); K = (b/r)[p₁₁, p₁₂].
    #[test]
    fn scalar_lqi_matches_the_closed_form() {
        for (a, b, q1, q2, r) in [
            (0.5, 2.0, 1.0, 4.0, 0.3),
            (-1.0, 1.0, 0.0, 1.0, 1.0),
            (3.0, 0.2, 10.0, 0.5, 2.0),
        ] {
            let (k, p) = lqi(
                &m(1, 1, &[a]),
                &m(1, 1, &[b]),
                &m(1, 1, &[1.0]),
                &m(2, 2, &[q1, 0.0, 0.0, q2]),
                &m(1, 1, &[r]),
            )
            .unwrap();
            let beta = b * b / r;
            let p12 = -(q2 / beta).sqrt();
            let p11 = (a + (a * a + beta * (q1 - 2.0 * p12)).sqrt()) / beta;
            let p22 = p12 * (a - beta * p11);
            let want_p = m(2, 2, &[p11, p12, p12, p22]);
            let want_k = m(1, 2, &[b / r * p11, b / r * p12]);
            assert!(
                (&p - &want_p).amax() < 1e-12 * want_p.amax(),
                "P = {p}, want {want_p}"
            );
            assert!(
                (&k - &want_k).amax() < 1e-12 * want_k.amax(),
                "K = {k}, want {want_k}"
            );
        }
    }

    /// The double integrator ẍ = u holding y = x: the augmented system is a triple
    /// integrator, whose LQR with Q = diag(0, 0, 1), R = 1 puts the poles on the
    /// Butterworth pattern s³ + 2s² + 2s + 1 = 0 (from ξ to u the plant is −1/s³, so the
    /// optimal loop's characteristic polynomial satisfies Δ(s)Δ(−s) = 1 − s⁶): with
    /// u = −K (x, ẋ, ξ), ξ‴ + k₂ ξ̈ + k₁ ξ̇ − k₃ ξ = 0, so K = [2, 2, −1].
    #[test]
    fn double_integrator_lqi_puts_the_poles_on_the_butterworth_pattern() {
        let a = m(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let b = m(2, 1, &[0.0, 1.0]);
        let c = m(1, 2, &[1.0, 0.0]);
        let q = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![0.0, 0.0, 1.0]));
        let (k, p) = lqi(&a, &b, &c, &q, &m(1, 1, &[1.0])).unwrap();
        assert!((&k - m(1, 3, &[2.0, 2.0, -1.0])).amax() < 1e-12, "K = {k}");
        // The Riccati residual of the augmented equation.
        let aa = m(3, 3, &[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0]);
        let bb = m(3, 1, &[0.0, 1.0, 0.0]);
        let residual = aa.transpose() * &p + &p * &aa - &p * &bb * bb.transpose() * &p + &q;
        assert!(residual.amax() < 1e-12, "{residual}");
    }

    /// Sampled ever faster, with Q and R scaled by Ts (the sum approximates the integral),
    /// the discrete LQI tends to the continuous one with an error of order Ts.
    #[test]
    fn dlqi_of_a_fast_sampling_tends_to_lqi() {
        let a = m(2, 2, &[0.0, 1.0, -4.0, -0.3]);
        let b = m(2, 1, &[0.0, 1.0]);
        let c = m(1, 2, &[1.0, 0.0]);
        let (q, r) = (DMatrix::identity(3, 3), m(1, 1, &[0.5]));
        let (continuous, _) = lqi(&a, &b, &c, &q, &r).unwrap();
        let mut last = f64::INFINITY;
        for dt in [1e-2, 1e-3, 1e-4] {
            let (ad, bd) = c2d(&a, &b, dt).unwrap();
            let (k, _) = dlqi(&ad, &bd, &c, &(&q * dt), &(&r * dt), dt).unwrap();
            let error = (&k - &continuous).amax() / continuous.amax();
            assert!(error < 10.0 * dt, "dt {dt}: {error}");
            assert!(error < last / 5.0, "dt {dt}: {error} after {last}");
            last = error;
        }
    }

    /// Without outputs LQI is LQR; a C of the wrong shape, non-finite, with more outputs
    /// than inputs or on a plant that cannot hold y (a zero at s = 0: ẋ = −x + u, y = 0·x;
    /// a differentiator y = ẋ of a position) is refused, naming the cause.
    #[test]
    fn outputs_that_cannot_be_tracked_are_refused() {
        let (a, b) = (m(2, 2, &[0.0, 1.0, -4.0, -0.3]), m(2, 1, &[0.0, 1.0]));
        let (q, r) = (DMatrix::identity(2, 2), m(1, 1, &[1.0]));
        assert_eq!(
            lqi(&a, &b, &DMatrix::zeros(0, 2), &q, &r),
            lqr(&a, &b, &q, &r)
        );
        assert!(matches!(
            lqi(&a, &b, &m(1, 3, &[1.0, 0.0, 0.0]), &q, &r),
            Err(ControlError::DimensionMismatch { matrix: "C", .. })
        ));
        assert_eq!(
            lqi(&a, &b, &m(1, 2, &[f64::NAN, 0.0]), &q, &r),
            Err(ControlError::NonFinite { matrix: "C" })
        );
        let q3 = DMatrix::identity(3, 3);
        let q4 = DMatrix::identity(4, 4);
        for (c, q) in [
            (m(2, 2, &[1.0, 0.0, 0.0, 1.0]), &q4),
            (m(1, 2, &[0.0, 0.0]), &q3),
        ] {
            assert!(
                matches!(lqi(&a, &b, &c, q, &r), Err(ControlError::InvalidSetting(why)) if why.contains("constant reference")),
                "{c}"
            );
        }
        // The speed y = ẋ of a double integrator: held at r ≠ 0, x grows without bound
        // (x + ξ is a mode at 0 that no input moves). An output the input does not reach
        // (ẋ₁ = u, ẋ₂ = −x₂, y = x₂). Both are zeros at s = 0.
        let double = m(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        assert!(matches!(
            lqi(&double, &b, &m(1, 2, &[0.0, 1.0]), &q3, &r),
            Err(ControlError::InvalidSetting(_))
        ));
        let decoupled = m(2, 2, &[0.0, 0.0, 0.0, -1.0]);
        assert!(matches!(
            lqi(
                &decoupled,
                &m(2, 1, &[1.0, 0.0]),
                &m(1, 2, &[0.0, 1.0]),
                &q3,
                &r
            ),
            Err(ControlError::InvalidSetting(_))
        ));
        // The sampled rank condition is at z = 1, and the period is checked.
        let (ad, bd) = c2d(&a, &b, 0.1).unwrap();
        let c = m(1, 2, &[1.0, 0.0]);
        assert!(dlqi(&ad, &bd, &c, &q3, &r, 0.1).is_ok());
        for period in [0.0, f64::NAN, -1.0] {
            assert!(matches!(
                dlqi(&ad, &bd, &c, &q3, &r, period),
                Err(ControlError::InvalidSetting(_))
            ));
        }
        assert!(matches!(
            dlqi(&ad, &bd, &m(1, 2, &[0.0, 0.0]), &q3, &r, 0.1),
            Err(ControlError::InvalidSetting(_))
        ));
        // The augmented Q must be (n + p) × (n + p).
        assert!(matches!(
            lqi(&a, &b, &c, &q, &r),
            Err(ControlError::DimensionMismatch {
                matrix: "Q",
                expected: (3, 3),
                ..
            })
        ));
    }
}
