//! The tests of the LQR design, its checks and its closed loops: against closed forms,
//! SciPy and python-control's values, and the relations the solutions must satisfy.

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
    let a = t.transpose() * DMatrix::from_diagonal(&nalgebra::DVector::from_row_slice(&modes)) * &t;
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
                (k[(i, i)] - a * b * want / (1.0 + b * b * want)).abs() <= 1e-9 * k[(i, i)].abs()
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
            let residual =
                discrete_riccati::relative_residual(&ad.transpose(), &c.transpose(), &w, &v, &p);
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
