//! `linearize` against independent truths.
//!
//! For ẋ = f(x, u) with x = (q, q̇) and f = (q̇, q̈(q, q̇, t, u)), the linearization around
//! (x₀, u₀) is δẋ = A δx + B δu with
//!
//! ```text
//! A = [[0, I], [∂q̈/∂q, ∂q̈/∂q̇]],   B = [[0], [∂q̈/∂u]].
//! ```
//!
//! Truths used below:
//! - closed forms: the pendulum (θ̈ = −(g/l) sin θ), the cart-pole near upright, the
//!   double pendulum's normal modes, the 2-link arm at rest (∂q̈/∂τ = M⁻¹, ∂q̈/∂q̇ = −M⁻¹ b),
//!   a damped, driven, parametrically modulated oscillator, a charged particle in a trap;
//! - central finite differences of `Dynamics::accelerations` (a second opinion, 1e-6);
//! - for a constrained model (a pendulum in Cartesian coordinates with the rod as a
//!   constraint): the angle model's hand-derived linearization carried through the map
//!   q = (l sin θ, −l cos θ).

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::linearize::linearize;
use lagrange_runtime::model::Model;
use lagrange_runtime::nalgebra::DMatrix;
use lagrange_runtime::prelude::*;

const NO_INPUT: SVector<f64, 0> =
    SVector::from_array_storage(lagrange_runtime::nalgebra::ArrayStorage([[]]));

fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * want.abs().max(1.0),
        "{what}: got {got:e}, want {want:e} (diff {:e})",
        (got - want).abs()
    );
}

fn assert_matrix_close(got: &DMatrix<f64>, want: &DMatrix<f64>, tol: f64, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    for i in 0..got.nrows() {
        for j in 0..got.ncols() {
            assert_close(got[(i, j)], want[(i, j)], tol, &format!("{what}[{i},{j}]"));
        }
    }
}

/// Eigenvalues of a real square matrix as (re, im), sorted by imaginary then real part.
fn eigenvalues(a: &DMatrix<f64>) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = a
        .clone()
        .complex_eigenvalues()
        .iter()
        .map(|z| (z.re, z.im))
        .collect();
    v.sort_by(|x, y| x.1.total_cmp(&y.1).then(x.0.total_cmp(&y.0)));
    v
}

/// Checks `linearize` against central finite differences of `accelerations` in every
/// coordinate, velocity and input. Step h = 1e-6 (1 + |x|): truncation O(h²) ≈ 1e-12,
/// round-off O(ε/h) ≈ 1e-10, so 1e-6 relative to max(1, |entry|) is a wide margin that
/// still catches any wrong term. Returns the largest deviation seen.
fn check_against_finite_differences<T, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    what: &str,
) -> f64
where
    T: Model<N, M>,
{
    let lin = linearize(model, s, u).unwrap_or_else(|e| panic!("{what}: {e}"));
    let qdd = |s: &State<N>, u: &SVector<f64, M>| model.accelerations(s, u).unwrap();
    let base = qdd(s, u);
    for i in 0..N {
        assert_eq!(lin.accelerations[i], base[i], "{what}: accelerations[{i}]");
    }
    let mut worst = 0.0f64;
    let mut compare = |fd: SVector<f64, N>, exact: SVector<f64, N>, label: &str| {
        for i in 0..N {
            worst = worst.max((fd[i] - exact[i]).abs() / exact[i].abs().max(1.0));
            assert_close(fd[i], exact[i], 1e-6, &format!("{what}: {label} row {i}"));
        }
    };
    for j in 0..N {
        let h = 1e-6 * (1.0 + s.q[j].abs());
        let (mut plus, mut minus) = (*s, *s);
        plus.q[j] += h;
        minus.q[j] -= h;
        let fd = (qdd(&plus, u) - qdd(&minus, u)) / (2.0 * h);
        compare(fd, lin.d_q.column(j).into(), &format!("d_q column {j}"));

        let h = 1e-6 * (1.0 + s.qd[j].abs());
        let (mut plus, mut minus) = (*s, *s);
        plus.qd[j] += h;
        minus.qd[j] -= h;
        let fd = (qdd(&plus, u) - qdd(&minus, u)) / (2.0 * h);
        compare(fd, lin.d_qd.column(j).into(), &format!("d_qd column {j}"));
    }
    for j in 0..M {
        let h = 1e-6 * (1.0 + u[j].abs());
        let (mut plus, mut minus) = (*u, *u);
        plus[j] += h;
        minus[j] -= h;
        let fd = (qdd(s, &plus) - qdd(s, &minus)) / (2.0 * h);
        compare(fd, lin.d_u.column(j).into(), &format!("d_u column {j}"));
    }
    // A and B are assembled from the blocks as documented.
    let (a, b) = (lin.a(), lin.b());
    assert_eq!(a.shape(), (2 * N, 2 * N));
    assert_eq!(b.shape(), (2 * N, M));
    for i in 0..N {
        for j in 0..N {
            assert_eq!(a[(i, j)], 0.0);
            assert_eq!(a[(i, N + j)], if i == j { 1.0 } else { 0.0 });
            assert_eq!(a[(N + i, j)], lin.d_q[(i, j)]);
            assert_eq!(a[(N + i, N + j)], lin.d_qd[(i, j)]);
        }
        for j in 0..M {
            assert_eq!(b[(i, j)], 0.0);
            assert_eq!(b[(N + i, j)], lin.d_u[(i, j)]);
        }
    }
    worst
}

// ---------------------------------------------------------------------------------------
// Pendulum: θ̈ = −(g/l) sin θ + τ/(m l²).

use lagrange_test_models::Pendulum;

/// At the bottom A = [[0, 1], [−g/l, 0]]: trace 0, determinant g/l, so λ² = −g/l and
/// λ = ±i√(g/l) (small oscillations). At the top A = [[0, 1], [g/l, 0]]: λ = ±√(g/l)
/// (one unstable and one stable direction). B = [0, 1/(m l²)] in both.
#[test]
fn pendulum_bottom_and_top_eigenvalues() {
    for p in [Pendulum::default(), Pendulum::new(0.2, 2.5, 3.71)] {
        let w = (p.g / p.l).sqrt();
        let b_want = DMatrix::from_row_slice(2, 1, &[0.0, 1.0 / (p.m * p.l * p.l)]);

        let bottom =
            linearize(&p, &State::at_rest(SVector::from([0.0])), &SVector::zeros()).unwrap();
        let a = bottom.a();
        assert_matrix_close(
            &a,
            &DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -w * w, 0.0]),
            1e-14,
            "A bottom",
        );
        assert_matrix_close(&bottom.b(), &b_want, 1e-14, "B bottom");
        // By hand: trace and determinant.
        assert_close(a.trace(), 0.0, 1e-15, "trace bottom");
        assert_close(a.determinant(), w * w, 1e-14, "det bottom");
        // By nalgebra: ±i√(g/l).
        let ev = eigenvalues(&a);
        assert_eq!(ev.len(), 2);
        for ((re, im), want_im) in ev.iter().zip([-w, w]) {
            assert_close(*re, 0.0, 1e-12, "Re λ bottom");
            assert_close(*im, want_im, 1e-12, "Im λ bottom");
        }

        let pi = std::f64::consts::PI;
        let top = linearize(&p, &State::at_rest(SVector::from([pi])), &SVector::zeros()).unwrap();
        let a = top.a();
        assert_matrix_close(
            &a,
            &DMatrix::from_row_slice(2, 2, &[0.0, 1.0, w * w, 0.0]),
            1e-14,
            "A top",
        );
        assert_matrix_close(&top.b(), &b_want, 1e-14, "B top");
        assert_close(a.determinant(), -w * w, 1e-14, "det top");
        let ev = eigenvalues(&a);
        // Real eigenvalues: sort by the real part.
        let mut re: Vec<f64> = ev.iter().map(|z| z.0).collect();
        re.sort_by(f64::total_cmp);
        assert_close(re[0], -w, 1e-12, "λ− top");
        assert_close(re[1], w, 1e-12, "λ+ top");
        for (_, im) in ev {
            assert_close(im, 0.0, 1e-12, "Im λ top");
        }
    }
}

/// Away from rest, with torque and speed: ∂θ̈/∂θ = −(g/l) cos θ, ∂θ̈/∂θ̇ = 0,
/// ∂θ̈/∂τ = 1/(m l²), and finite differences agree.
#[test]
fn pendulum_general_state() {
    let p = Pendulum::default();
    for (th, thd, tau) in [(0.4, 1.3, 0.2), (-2.9, -3.1, -1.7), (1.57, 0.0, 5.0)] {
        let s = State::new(0.3, SVector::from([th]), SVector::from([thd]));
        let u = SVector::from([tau]);
        let lin = linearize(&p, &s, &u).unwrap();
        assert_close(
            lin.accelerations[0],
            -p.g / p.l * th.sin() + tau / (p.m * p.l * p.l),
            1e-14,
            "θ̈",
        );
        assert_close(lin.d_q[(0, 0)], -p.g / p.l * th.cos(), 1e-14, "∂θ̈/∂θ");
        assert_eq!(lin.d_qd[(0, 0)], 0.0, "∂θ̈/∂θ̇");
        assert_close(lin.d_u[(0, 0)], 1.0 / (p.m * p.l * p.l), 1e-14, "∂θ̈/∂τ");
        check_against_finite_differences(&p, &s, &u, "pendulum");
    }
}

// ---------------------------------------------------------------------------------------
// Cart-pole.

// The cart-pole of `examples/cart_pole.rs`: cart (mass M) pushed by a horizontal force f,
// carrying a uniform pole (mass m, length L) on a pivot; theta from the upward vertical.
use lagrange_test_models::CartPole;

lagrangian! {
    /// The textbook cart-pole: the pole is a point mass m at distance l from the pivot.
    pub struct PointCartPole {
        parameters: M = 1.0, m = 0.1, l = 0.5, g = 9.81;
        coordinates: x, theta;
        inputs: f;
        kinetic = M/2 * dot(x)^2
            + m/2 * ((dot(x) + l*cos(theta)*dot(theta))^2 + (l*sin(theta)*dot(theta))^2);
        potential = m * g * l * cos(theta);
        force f on x;
    }
}

/// Closed-form A and B of a cart-pole upright (θ = 0, at rest, any x) with pole mass m,
/// pivot-to-centre-of-mass distance ℓ and inertia J about the pivot. The equations
///
/// ```text
/// (M + m) ẍ + m ℓ cos θ θ̈ − m ℓ sin θ θ̇² = f
/// m ℓ cos θ ẍ + J θ̈ − m g ℓ sin θ = 0
/// ```
///
/// linearize at θ = θ̇ = 0 to (M + m) ẍ + m ℓ θ̈ = f, m ℓ ẍ + J θ̈ = m g ℓ θ; with
/// Δ = (M + m) J − m² ℓ²:
///
/// ```text
/// ẍ = (J f − m² g ℓ² θ) / Δ,   θ̈ = ((M + m) m g ℓ θ − m ℓ f) / Δ.
/// ```
///
/// For a point mass (J = m l², ℓ = l) this is the textbook form Δ = M m l²,
/// ẍ = (f − m g θ)/M, θ̈ = ((M + m) g θ − f)/(M l). The velocity terms are quadratic
/// (θ̇²) and drop out: ∂q̈/∂q̇ = 0 at rest.
fn cart_pole_upright(big_m: f64, m: f64, ell: f64, j: f64, g: f64) -> (DMatrix<f64>, DMatrix<f64>) {
    let det = (big_m + m) * j - (m * ell).powi(2);
    #[rustfmt::skip]
    let a = DMatrix::from_row_slice(4, 4, &[
        0.0, 0.0, 1.0, 0.0,
        0.0, 0.0, 0.0, 1.0,
        0.0, -m * m * g * ell * ell / det, 0.0, 0.0,
        0.0, (big_m + m) * m * g * ell / det, 0.0, 0.0,
    ]);
    let b = DMatrix::from_row_slice(4, 1, &[0.0, 0.0, j / det, -m * ell / det]);
    (a, b)
}

#[test]
fn cart_pole_upright_matches_closed_form() {
    for cp in [CartPole::default(), CartPole::new(2.7, 0.45, 1.6, 3.71)] {
        let (ell, j) = (cp.L / 2.0, cp.m * cp.L * cp.L / 3.0);
        let (a_want, b_want) = cart_pole_upright(cp.M, cp.m, ell, j, cp.g);
        // Any cart position and any constant force: upright is still θ = 0 for the pole's
        // linearization (f enters linearly, so A does not depend on it).
        for (x, f) in [(0.0, 0.0), (-3.2, 0.0), (1.7, 4.5)] {
            let s = State::at_rest(SVector::from([x, 0.0]));
            let lin = linearize(&cp, &s, &SVector::from([f])).unwrap();
            assert_matrix_close(&lin.a(), &a_want, 1e-12, "uniform cart-pole A");
            assert_matrix_close(&lin.b(), &b_want, 1e-12, "uniform cart-pole B");
        }
    }
    // Cross-check of the closed form itself on the textbook point-mass values.
    let (a_want, b_want) = cart_pole_upright(1.0, 0.1, 0.5, 0.1 * 0.25, 9.81);
    assert_close(a_want[(2, 1)], -0.1 * 9.81 / 1.0, 1e-15, "ẍ/θ = −m g/M");
    assert_close(
        a_want[(3, 1)],
        1.1 * 9.81 / 0.5,
        1e-14,
        "θ̈/θ = (M+m) g/(M l)",
    );
    assert_close(b_want[(2, 0)], 1.0, 1e-15, "ẍ/f = 1/M");
    assert_close(b_want[(3, 0)], -1.0 / 0.5, 1e-15, "θ̈/f = −1/(M l)");

    for cp in [
        PointCartPole::default(),
        PointCartPole::new(0.6, 1.4, 0.35, 9.81),
    ] {
        let (a_want, b_want) = cart_pole_upright(cp.M, cp.m, cp.l, cp.m * cp.l * cp.l, cp.g);
        let s = State::at_rest(SVector::from([0.8, 0.0]));
        let lin = linearize(&cp, &s, &SVector::from([0.0])).unwrap();
        assert_matrix_close(&lin.a(), &a_want, 1e-12, "point cart-pole A");
        assert_matrix_close(&lin.b(), &b_want, 1e-12, "point cart-pole B");
        // The upright A has eigenvalues 0, 0 (the cart) and ±√((M + m) g/(M l)).
        let w = ((cp.M + cp.m) * cp.g / (cp.M * cp.l)).sqrt();
        let mut re: Vec<f64> = eigenvalues(&lin.a()).iter().map(|z| z.0).collect();
        re.sort_by(f64::total_cmp);
        for (got, want) in re.iter().zip([-w, 0.0, 0.0, w]) {
            assert_close(*got, want, 1e-7, "cart-pole eigenvalue");
        }
    }
}

/// An LQR gain's closed-loop spectrum against the nonlinear closed loop it predicts: the
/// cart-pole balanced upright, started 1e-6 along the slowest closed-loop mode, decays at
/// that mode's rate. Measured from the simulated motion between two times a whole number
/// of half periods apart (where an oscillating mode is at the same phase).
#[test]
fn lqr_closed_loop_decays_as_its_spectrum_says() {
    use lagrange_runtime::control::lqr_gain;
    use lagrange_runtime::simulate::{DormandPrince, Simulation};
    use lagrange_runtime::stability::Stability;

    let model = CartPole::default();
    let upright = State::at_rest(SVector::zeros());
    let lin = linearize(&model, &upright, &SVector::zeros()).unwrap();
    let (gain, _) = lqr_gain(&lin, &DMatrix::identity(4, 4), &SMatrix::identity()).unwrap();
    let closed = gain.closed_loop_spectrum(&lin).unwrap();
    assert_eq!(closed.stability(), Stability::AsymptoticallyStable);
    assert_eq!(lin.spectrum().unwrap().stability(), Stability::Unstable);
    let slowest = closed.eigenvalues[0];
    let mode = closed.mode(0).unwrap();
    let eps = 1e-6;
    let start = State::new(
        0.0,
        mode.positions.map(|z| z.re * eps),
        mode.velocities.map(|z| z.re * eps),
    );
    let t1 = 1.0 / slowest.re.abs();
    let dt = if slowest.im == 0.0 {
        t1
    } else {
        let half = std::f64::consts::PI / slowest.im.abs();
        half * (t1 / half).ceil()
    };
    let run = Simulation::new(&model, start)
        .inputs(gain.law())
        .run_at(&DormandPrince::new(1e-12, 1e-20), &[0.0, t1, t1 + dt])
        .unwrap();
    let size = |s: &State<2>| (s.q.norm_squared() + s.qd.norm_squared()).sqrt();
    let states = run.states();
    let rate = (size(&states[2]) / size(&states[1])).ln() / dt;
    assert!(
        (rate - slowest.re).abs() < 1e-4 * slowest.re.abs(),
        "simulated decay rate {rate}, closed-loop eigenvalue {slowest}"
    );
    // The closed loop is the open loop minus B K.
    let k = gain.matrix();
    assert_matrix_close(
        &gain.closed_loop(&lin),
        &(lin.a() - lin.b() * k),
        0.0,
        "A − B K",
    );
}

#[test]
fn cart_pole_away_from_upright_matches_finite_differences() {
    let cp = CartPole::default();
    for [x, th, xd, thd, f] in [
        [0.3, 0.4, -0.7, 1.9, 2.5],
        [-1.1, 2.8, 2.2, -0.6, -7.0],
        [0.0, -1.3, 0.05, 3.3, 0.0],
    ] {
        let s = State::new(0.0, SVector::from([x, th]), SVector::from([xd, thd]));
        check_against_finite_differences(&cp, &s, &SVector::from([f]), "cart-pole");
    }
}

// ---------------------------------------------------------------------------------------
// Double pendulum.

use lagrange_test_models::DoublePendulum;

/// Normal modes of the hanging double pendulum. Linearized: M₀ θ̈ + K θ = 0 with
/// M₀ = [[(m1+m2) l1², m2 l1 l2], [m2 l1 l2, m2 l2²]], K = diag((m1+m2) g l1, m2 g l2).
/// det(K − ω² M₀) = 0 divided by m2 l1 l2 gives
///
/// ```text
/// m1 l1 l2 ω⁴ − (m1+m2) g (l1+l2) ω² + (m1+m2) g² = 0,
/// ```
///
/// for equal masses and lengths ω² = (g/l)(2 ± √2). A's eigenvalues are ±i ω₁, ±i ω₂.
#[test]
fn double_pendulum_normal_modes() {
    for p in [
        DoublePendulum::default(),
        DoublePendulum::new(0.7, 1.9, 1.3, 0.55, 9.81),
    ] {
        let DoublePendulum { m1, m2, l1, l2, g } = p;
        let (qa, qb, qc) = (m1 * l1 * l2, -(m1 + m2) * g * (l1 + l2), (m1 + m2) * g * g);
        let disc = (qb * qb - 4.0 * qa * qc).sqrt();
        let (w1, w2) = (
            ((-qb - disc) / (2.0 * qa)).sqrt(),
            ((-qb + disc) / (2.0 * qa)).sqrt(),
        );
        if p == DoublePendulum::default() {
            assert_close(w1 * w1, g * (2.0 - 2f64.sqrt()), 1e-13, "ω₁² = g(2−√2)/l");
            assert_close(w2 * w2, g * (2.0 + 2f64.sqrt()), 1e-13, "ω₂² = g(2+√2)/l");
        }
        let lin = linearize(&p, &State::at_rest(SVector::zeros()), &NO_INPUT).unwrap();
        let ev = eigenvalues(&lin.a());
        assert_eq!(ev.len(), 4);
        for ((re, im), want) in ev.iter().zip([-w2, -w1, w1, w2]) {
            assert_close(*re, 0.0, 1e-10, "Re λ");
            assert_close(*im, want, 1e-10, "Im λ");
        }
        // Directly: ∂θ̈/∂θ = −M₀⁻¹ K.
        let m0 = SMatrix::<f64, 2, 2>::new(
            (m1 + m2) * l1 * l1,
            m2 * l1 * l2,
            m2 * l1 * l2,
            m2 * l2 * l2,
        );
        let k = SMatrix::<f64, 2, 2>::new((m1 + m2) * g * l1, 0.0, 0.0, m2 * g * l2);
        let want = -(m0.try_inverse().unwrap() * k);
        for i in 0..2 {
            for j in 0..2 {
                assert_close(lin.d_q[(i, j)], want[(i, j)], 1e-13, "−M₀⁻¹K");
                assert_eq!(lin.d_qd[(i, j)], 0.0, "∂θ̈/∂θ̇ at rest");
            }
        }
    }
}

#[test]
fn double_pendulum_matches_finite_differences() {
    let mut worst = 0.0f64;
    for p in [
        DoublePendulum::default(),
        DoublePendulum::new(2.5, 0.3, 0.4, 1.7, 3.71),
    ] {
        for [a, b, ad, bd] in [
            [0.4, -0.25, 0.0, 0.0],
            [1.1, 2.3, -0.8, 1.7],
            [-2.2, 0.37, 3.1, -2.4],
            [3.0, -3.0, 0.05, 6.2],
        ] {
            let s = State::new(0.0, SVector::from([a, b]), SVector::from([ad, bd]));
            worst = worst.max(check_against_finite_differences(
                &p, &s, &NO_INPUT, "double",
            ));
        }
    }
    assert!(worst < 1e-7, "worst relative deviation {worst:e}");
}

// ---------------------------------------------------------------------------------------
// Two-link arm with joint torques and damping (Spong, Hutchinson & Vidyasagar §7.4.2).

use lagrange_test_models::TwoLinkArm as Arm;

/// The textbook inertia matrix M(q2): M11 = m1 lc1² + m2 (l1² + lc2² + 2 l1 lc2 cos q2)
/// + I1 + I2, M12 = m2 (lc2² + l1 lc2 cos q2) + I2, M22 = m2 lc2² + I2.
fn arm_inertia(a: &Arm, q2: f64) -> SMatrix<f64, 2, 2> {
    let c2 = q2.cos();
    let m11 = a.m1 * a.lc1.powi(2)
        + a.m2 * (a.l1.powi(2) + a.lc2.powi(2) + 2.0 * a.l1 * a.lc2 * c2)
        + a.I1
        + a.I2;
    let m12 = a.m2 * (a.lc2.powi(2) + a.l1 * a.lc2 * c2) + a.I2;
    let m22 = a.m2 * a.lc2.powi(2) + a.I2;
    SMatrix::<f64, 2, 2>::new(m11, m12, m12, m22)
}

/// M q̈ + c(q, q̇) + φ(q) + b q̇ = τ gives ∂q̈/∂τ = M⁻¹ everywhere, and at rest (c is
/// quadratic in q̇) ∂q̈/∂q̇ = −M⁻¹ diag(b1, b2). Moving: finite differences.
#[test]
fn two_link_arm() {
    let arm = Arm::default();
    let mut worst = 0.0f64;
    for [q1, q2, qd1, qd2, t1, t2] in [
        [0.3, -1.2, 0.0, 0.0, 1.5, -0.4],
        [-2.7, 0.55, -0.13, 1.7, 0.0, 0.0],
        [1.9, 3.1, 2.4, -0.8, -3.0, 2.2],
        [0.01, 1.57, -0.61, -2.29, 0.7, 0.9],
    ] {
        let s = State::new(0.25, SVector::from([q1, q2]), SVector::from([qd1, qd2]));
        let u = SVector::from([t1, t2]);
        let lin = linearize(&arm, &s, &u).unwrap();
        let m_inv = arm_inertia(&arm, q2).try_inverse().unwrap();
        for i in 0..2 {
            for j in 0..2 {
                assert_close(lin.d_u[(i, j)], m_inv[(i, j)], 1e-12, "∂q̈/∂τ = M⁻¹");
            }
        }
        if qd1 == 0.0 && qd2 == 0.0 {
            let want = -(m_inv * SMatrix::<f64, 2, 2>::new(arm.b1, 0.0, 0.0, arm.b2));
            for i in 0..2 {
                for j in 0..2 {
                    assert_close(lin.d_qd[(i, j)], want[(i, j)], 1e-12, "−M⁻¹ b at rest");
                }
            }
        }
        worst = worst.max(check_against_finite_differences(&arm, &s, &u, "arm"));
    }
    assert!(worst < 1e-7, "worst relative deviation {worst:e}");
}

// ---------------------------------------------------------------------------------------
// Damped, driven oscillator with time dependence.

lagrangian! {
    /// m ẍ + c ẋ + k (1 + e cos(w t)) x = F0 cos(w t) + f: damping, a drive, a modulated
    /// stiffness (so the linearization depends on t) and an input force f.
    pub struct Oscillator {
        parameters: m = 1.7, c = 0.35, k = 5.2, e = 0.4, F0 = 0.8, w = 1.3;
        coordinates: x;
        inputs: f;
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * (1 + e*cos(w*t)) * x^2;
        dissipation = c/2 * dot(x)^2;
        force F0*cos(w*t) on x;
        force f on x;
    }
}

/// ẍ = (F0 cos ωt + f − c ẋ − k (1 + e cos ωt) x)/m, so ∂ẍ/∂x = −k (1 + e cos ωt)/m,
/// ∂ẍ/∂ẋ = −c/m (the damping), ∂ẍ/∂f = 1/m; A's eigenvalues are those of
/// s² + (c/m) s + k(1 + e cos ωt)/m (frozen in time).
#[test]
fn damped_driven_oscillator() {
    for o in [
        Oscillator::default(),
        Oscillator::new(0.45, 1.9, 12.5, -0.7, -2.7, 4.1),
    ] {
        for (t, x, xd, f) in [
            (0.0, 0.3, -1.1, 0.0),
            (0.73, -0.42, 0.57, 1.2),
            (2.19, 1.37, 2.3, -0.6),
            (11.3, 0.88, 0.012, 3.0),
        ] {
            let s = State::new(t, SVector::from([x]), SVector::from([xd]));
            let u = SVector::from([f]);
            let lin = linearize(&o, &s, &u).unwrap();
            let stiffness = o.k * (1.0 + o.e * (o.w * t).cos());
            let drive = o.F0 * (o.w * t).cos();
            assert_close(
                lin.accelerations[0],
                (drive + f - o.c * xd - stiffness * x) / o.m,
                1e-13,
                "ẍ",
            );
            assert_close(lin.d_q[(0, 0)], -stiffness / o.m, 1e-14, "∂ẍ/∂x");
            assert_close(lin.d_qd[(0, 0)], -o.c / o.m, 1e-14, "∂ẍ/∂ẋ = −c/m");
            assert_close(lin.d_u[(0, 0)], 1.0 / o.m, 1e-14, "∂ẍ/∂f");
            // trace = −c/m, det = k(1 + e cos ωt)/m.
            let a = lin.a();
            assert_close(a.trace(), -o.c / o.m, 1e-14, "tr A");
            assert_close(a.determinant(), stiffness / o.m, 1e-13, "det A");
            check_against_finite_differences(&o, &s, &u, "oscillator");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Inputs in the energies: B cannot come from the forces alone.

lagrangian! {
    /// A mass on a spring whose anchor `a` is an input (in the potential and the
    /// dissipation), in a frame moving at the input speed `w` (in the kinetic energy), pushed
    /// by the input force `f`.
    pub struct MovedAnchor {
        parameters: m = 1.5, k = 6.0, c = 0.4;
        coordinates: x;
        inputs: a, w, f;
        kinetic = m/2 * (dot(x) - w)^2;
        potential = k/2 * (x - a)^2;
        dissipation = c/2 * dot(x)^2 * (1 + a^2);
        force f on x;
    }
}

/// m ẍ = −k (x − a) − c (1 + a²) ẋ + f (w enters only the momentum m (ẋ − w), constant
/// while the inputs are): ∂ẍ/∂a = (k − 2 c a ẋ)/m, of which the forces alone give only the
/// dissipation's part, ∂ẍ/∂w = 0, ∂ẍ/∂f = 1/m. A model whose energies read its inputs is
/// told apart from one whose forces alone do.
#[test]
fn inputs_in_the_energies_and_in_the_forces() {
    const { assert!(!<MovedAnchor as Model<1, 3>>::INPUTS_ONLY_IN_FORCES) };
    const { assert!(<Oscillator as Model<1, 1>>::INPUTS_ONLY_IN_FORCES) };
    let p = MovedAnchor::default();
    for (x, xd, a, w, f) in [(0.3, -1.1, 0.2, 0.7, 0.5), (0.0, 0.0, 0.0, 0.0, 0.0)] {
        let s = State::new(0.0, SVector::from([x]), SVector::from([xd]));
        let u = SVector::from([a, w, f]);
        let lin = linearize(&p, &s, &u).unwrap();
        let damping = p.c * (1.0 + a * a);
        assert_close(
            lin.accelerations[0],
            (-p.k * (x - a) - damping * xd + f) / p.m,
            1e-14,
            "ẍ",
        );
        assert_close(
            lin.d_u[(0, 0)],
            (p.k - 2.0 * p.c * a * xd) / p.m,
            1e-14,
            "∂ẍ/∂a",
        );
        assert_eq!(lin.d_u[(0, 1)], 0.0, "∂ẍ/∂w");
        assert_close(lin.d_u[(0, 2)], 1.0 / p.m, 1e-14, "∂ẍ/∂f");
        check_against_finite_differences(&p, &s, &u, "moved anchor");
    }
}

// ---------------------------------------------------------------------------------------
// Charged particle: a Lagrangian linear in the velocities.

lagrangian! {
    /// Charged particle in a uniform magnetic field B ẑ (symmetric gauge A = B/2 (−y, x))
    /// and a harmonic electric trap of stiffness k.
    pub struct TrappedCharge {
        parameters: m = 0.7, qe = 1.3, B = 2.1, k = 0.9;
        coordinates: x, y;
        let ax = -B/2 * y;
        let ay = B/2 * x;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2) + qe * (ax*dot(x) + ay*dot(y));
        potential = k/2 * (x^2 + y^2);
    }
}

/// m r̈ = q_e v × B − k r: ẍ = ω ẏ − (k/m) x, ÿ = −ω ẋ − (k/m) y with ω = q_e B/m, so
/// ∂q̈/∂q = −(k/m) I and ∂q̈/∂q̇ = [[0, ω], [−ω, 0]] at every state (the dynamics is linear).
/// A's eigenvalues are ±i(ω/2 ± √(ω²/4 + k/m)) (Penning-trap-like modes: s² ± iωs + k/m).
#[test]
fn charged_particle() {
    for p in [
        TrappedCharge::default(),
        TrappedCharge::new(2.3, -0.6, 4.4, 1.7),
    ] {
        let w = p.qe * p.B / p.m;
        let k = p.k / p.m;
        for [x, y, xd, yd] in [
            [0.3, -1.2, 0.9, 0.4],
            [-2.7, 0.55, -0.13, 1.7],
            [0.0, 0.0, -0.61, -0.29],
        ] {
            let s = State::new(0.5, SVector::from([x, y]), SVector::from([xd, yd]));
            let lin = linearize(&p, &s, &NO_INPUT).unwrap();
            assert_close(lin.accelerations[0], w * yd - k * x, 1e-13, "ẍ");
            assert_close(lin.accelerations[1], -w * xd - k * y, 1e-13, "ÿ");
            let d_q = DMatrix::from_row_slice(2, 2, &[-k, 0.0, 0.0, -k]);
            let d_qd = DMatrix::from_row_slice(2, 2, &[0.0, w, -w, 0.0]);
            let got_q = DMatrix::from_column_slice(2, 2, lin.d_q.as_slice());
            let got_qd = DMatrix::from_column_slice(2, 2, lin.d_qd.as_slice());
            assert_matrix_close(&got_q, &d_q, 1e-13, "∂q̈/∂q");
            assert_matrix_close(&got_qd, &d_qd, 1e-13, "∂q̈/∂q̇");
            check_against_finite_differences(&p, &s, &NO_INPUT, "charge");

            // det(s² I − s D − K) = (s² + k)² + ω² s² = 0 → s = ±i ν with
            // ν² ∓ ω ν − k = 0: ν = ω/2 ± √(ω²/4 + k) (and the negatives).
            let r = (w * w / 4.0 + k).sqrt();
            let mut want = [w / 2.0 + r, w / 2.0 - r, -w / 2.0 + r, -w / 2.0 - r];
            want.sort_by(f64::total_cmp);
            let ev = eigenvalues(&lin.a());
            for ((re, im), want) in ev.iter().zip(want) {
                assert_close(*re, 0.0, 1e-10, "Re λ");
                assert_close(*im, want, 1e-10, "Im λ");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Constrained: a pendulum in Cartesian coordinates.

use lagrange_test_models::ForcedCartesianPendulum as CartesianPendulum;

/// The Cartesian state of (θ, θ̇): q = l (sin θ, −cos θ), q̇ = l (cos θ, sin θ) θ̇.
fn cartesian(l: f64, th: f64, thd: f64) -> State<2> {
    let (s, c) = th.sin_cos();
    State::new(
        0.0,
        SVector::from([l * s, -l * c]),
        SVector::from([l * c * thd, l * s * thd]),
    )
}

/// At the bottom, at rest: eliminating λ from m q̈ = F − 2λ q, q·q̈ = −|q̇|² gives, at rest,
/// q̈ = (F − (q·F) q/|q|²)/m with F = (fx, −m g): near (0, −l), ẍ ≈ −(g/l) x + fx/m, and
/// ÿ is second order. So ∂q̈/∂q = [[−g/l, 0], [0, 0]], ∂q̈/∂q̇ = 0, ∂q̈/∂fx = (1/m, 0):
/// the angle pendulum's −g/l along the tangent (x = l θ), nothing across it.
#[test]
fn cartesian_pendulum_at_the_bottom() {
    let p = CartesianPendulum::default();
    let s = State::at_rest(SVector::from([0.0, -p.l]));
    let lin = linearize(&p, &s, &SVector::from([0.0])).unwrap();
    #[rustfmt::skip]
    let a_want = DMatrix::from_row_slice(4, 4, &[
        0.0, 0.0, 1.0, 0.0,
        0.0, 0.0, 0.0, 1.0,
        -p.g / p.l, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0,
    ]);
    assert_matrix_close(&lin.a(), &a_want, 1e-13, "Cartesian A at the bottom");
    let b_want = DMatrix::from_row_slice(4, 1, &[0.0, 0.0, 1.0 / p.m, 0.0]);
    assert_matrix_close(&lin.b(), &b_want, 1e-13, "Cartesian B at the bottom");
    // Eigenvalues: ±i√(g/l) (the swing) and a double 0 (the radial direction, which the
    // constrained accelerations do not restore: the constraint only holds at the
    // acceleration level).
    let w = (p.g / p.l).sqrt();
    let ev = eigenvalues(&lin.a());
    for ((re, im), want) in ev.iter().zip([-w, 0.0, 0.0, w]) {
        assert_close(*re, 0.0, 1e-7, "Re λ");
        assert_close(*im, want, 1e-7, "Im λ");
    }
}

/// Along the constraint, the Cartesian linearization must reproduce the angle model's.
/// With q = φ(θ) = l (sin θ, −cos θ), J = φ' = l (cos θ, sin θ), J' = l (−sin θ, cos θ),
/// J'' = −J, the motion has q̇ = J θ̇, q̈ = J θ̈ + J' θ̇². The angle model (force fx on
/// x = l sin θ) is θ̈ = −(g/l) sin θ + fx cos θ/(m l), so by hand
/// θ̈_θ = −(g/l) cos θ − fx sin θ/(m l), θ̈_θ̇ = 0, θ̈_fx = cos θ/(m l).
/// A perturbation (δθ, δθ̇, δfx) that stays on the constraint moves the state by
/// δq = J δθ, δq̇ = J δθ̇ + J' θ̇ δθ, and q̈ by
/// (J' θ̈ + J θ̈_θ + J'' θ̇²) δθ + (J θ̈_θ̇ + 2 J' θ̇) δθ̇ + J θ̈_fx δfx. Hence
///
/// ```text
/// d_q J + d_qd J' θ̇ = J' θ̈ + J θ̈_θ + J'' θ̇²
/// d_qd J            = 2 J' θ̇           (θ̈_θ̇ = 0)
/// d_u               = J θ̈_fx = (cos² θ, sin θ cos θ)/m
/// ```
///
/// (Across the constraint the Cartesian model has directions of its own, which the angle
/// model says nothing about; they are checked by finite differences.)
#[test]
fn cartesian_pendulum_agrees_with_the_angle_pendulum_along_the_constraint() {
    let mut worst = 0.0f64;
    for p in [
        CartesianPendulum::default(),
        CartesianPendulum::new(0.4, 2.2, 3.71),
    ] {
        let CartesianPendulum { m, l, g } = p;
        for (th, thd, fx) in [
            (0.0, 0.0, 0.0),
            (0.3, 0.0, 1.1),
            (-0.7, 1.9, 0.0),
            (1.234, -2.71, -2.5),
            (2.9, 0.4, 0.7),
            (-3.0, -5.0, 4.0),
        ] {
            let s = cartesian(l, th, thd);
            let u = SVector::from([fx]);
            let lin = linearize(&p, &s, &u).unwrap();
            let (sn, cs) = th.sin_cos();
            let jac = SVector::<f64, 2>::new(l * cs, l * sn);
            let jac_d = SVector::<f64, 2>::new(-l * sn, l * cs);
            let jac_dd = -jac;
            let thdd = -g / l * sn + fx * cs / (m * l);
            let thdd_th = -g / l * cs - fx * sn / (m * l);
            let thdd_fx = cs / (m * l);

            let got = lin.d_q * jac + lin.d_qd * jac_d * thd;
            let want = jac_d * thdd + jac * thdd_th + jac_dd * thd * thd;
            let got_v = lin.d_qd * jac;
            let want_v = jac_d * (2.0 * thd);
            let got_u = lin.d_u.column(0);
            let want_u = jac * thdd_fx;
            for i in 0..2 {
                assert_close(got[i], want[i], 1e-12, "δθ response");
                assert_close(got_v[i], want_v[i], 1e-12, "δθ̇ response");
                assert_close(got_u[i], want_u[i], 1e-12, "δfx response");
                worst = worst
                    .max((got[i] - want[i]).abs() / want[i].abs().max(1.0))
                    .max((got_v[i] - want_v[i]).abs() / want_v[i].abs().max(1.0));
            }
            // The accelerations themselves: q̈ = J θ̈ + J' θ̇².
            let qdd = jac * thdd + jac_d * thd * thd;
            for i in 0..2 {
                assert_close(lin.accelerations[i], qdd[i], 1e-12, "q̈");
            }
            // Every direction, across the constraint too.
            check_against_finite_differences(&p, &s, &u, "Cartesian pendulum");
        }
    }
    assert!(worst < 1e-12, "worst relative deviation {worst:e}");
}

// ---------------------------------------------------------------------------------------
// Constrained: slider with a pendulum in Cartesian coordinates, two constraints.

lagrangian! {
    /// Slider on a rail with a pendulum, Cartesian coordinates, y pointing down; a force f
    /// pushes the slider along the rail.
    pub struct SliderPendulum {
        parameters: m1 = 2.0, m2 = 0.5, l = 0.8, g = 9.81;
        coordinates: x1, y1, x2, y2;
        inputs: f;
        kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * (dot(x2)^2 + dot(y2)^2);
        potential = -g * (m1*y1 + m2*y2);
        force f on x1;
        constraint rail = y1;
        constraint rod = (x1 - x2)^2 + (y1 - y2)^2 - l^2;
    }
}

/// Finite differences of the constrained accelerations on states consistent with both
/// constraints (x1 = x, y1 = 0, x2 = x + l sin θ, y2 = l cos θ and their derivatives),
/// and at the hanging rest state the closed form: in minimal coordinates (x, θ)
/// (m1+m2) ẍ + m2 l θ̈ = f, m2 l ẍ + m2 l² θ̈ = −m2 g l θ, so
/// ẍ = (f + m2 g θ)/m1, θ̈ = −((m1+m2) g θ + f)/(m1 l), and the bob x2 = x + l θ has
/// ẍ2 = ẍ + l θ̈ = −g θ. There the constraint tangent is exactly {δy1 = δy2 = 0} (the rod
/// is vertical), so in Cartesian coordinates, with θ = (x2 − x1)/l to first order:
/// ∂ẍ1/∂x1 = −m2 g/(m1 l), ∂ẍ1/∂x2 = m2 g/(m1 l), ∂ẍ2/∂x1 = g/l, ∂ẍ2/∂x2 = −g/l,
/// ∂ÿ1/∂x = ∂ÿ2/∂x = 0 (ÿ2 = −l sin θ θ̈ − l cos θ θ̇² is second order);
/// ∂ẍ1/∂f = 1/m1, ∂ẍ2/∂f = 0.
#[test]
fn slider_pendulum_constrained() {
    let mut worst = 0.0f64;
    for p in [
        SliderPendulum::default(),
        SliderPendulum::new(0.65, 1.8, 1.35, 9.81),
    ] {
        let l = p.l;
        for [x, th, xd, thd, f] in [
            [0.0, 0.3, 0.0, 0.0, 0.0],
            [0.3, 0.6, 0.2, 0.0, 1.5],
            [-1.2, 1.3, 0.7, -2.1, -0.8],
            [2.5, -2.6, -1.4, 3.3, 0.0],
            [-0.4, -0.9, -0.35, -5.5, 2.0],
        ] {
            let (sn, cs) = f64::sin_cos(th);
            let s = State::new(
                0.4,
                SVector::from([x, 0.0, x + l * sn, l * cs]),
                SVector::from([xd, 0.0, xd + l * cs * thd, -l * sn * thd]),
            );
            let u = SVector::from([f]);
            worst = worst.max(check_against_finite_differences(&p, &s, &u, "slider"));
        }

        // Hanging at rest below the slider at x = 0.6.
        let SliderPendulum { m1, m2, l, g } = p;
        let s = State::at_rest(SVector::from([0.6, 0.0, 0.6, l]));
        let lin = linearize(&p, &s, &SVector::from([0.0])).unwrap();
        let k = g / l;
        let want_x = [
            (0, 0, -m2 * k / m1),
            (0, 2, m2 * k / m1),
            (2, 0, k),
            (2, 2, -k),
        ];
        for (i, j, want) in want_x {
            assert_close(lin.d_q[(i, j)], want, 1e-12, &format!("d_q[{i},{j}]"));
        }
        for (i, j) in [(1, 0), (1, 2), (3, 0), (3, 2)] {
            assert_close(lin.d_q[(i, j)], 0.0, 1e-12, &format!("d_q[{i},{j}]"));
        }
        assert_close(lin.d_u[(0, 0)], 1.0 / m1, 1e-12, "∂ẍ1/∂f");
        assert_close(lin.d_u[(2, 0)], 0.0, 1e-12, "∂ẍ2/∂f");
        for i in [1, 3] {
            // The rail holds y1; the rod is vertical, so y2 is second order.
            assert_close(lin.d_u[(i, 0)], 0.0, 1e-12, "∂ÿ/∂f");
        }
        assert!(lin.d_qd.amax() < 1e-12, "∂q̈/∂q̇ at rest: {}", lin.d_qd);
    }
    assert!(worst < 1e-7, "worst relative deviation {worst:e}");
}

/// Errors are passed through, not panics: a non-finite state is reported.
#[test]
fn non_finite_state_is_an_error() {
    let p = Pendulum::default();
    let s = State::new(0.0, SVector::from([f64::NAN]), SVector::from([0.0]));
    assert!(matches!(
        linearize(&p, &s, &SVector::from([0.0])),
        Err(DynamicsError::NonFiniteState { .. })
    ));
}

/// Every model of this file through `common::derivatives`: the linearization, and also the
/// sensitivities, the sweep and the variational Jacobian, against central differences at
/// structured, random and the states the tests above look at (upright cart-poles, the
/// pendulum at the top). The Cartesian models' structured states hang on their rods (at
/// q = 0 the rods' gradients vanish).
#[test]
fn derivatives_match_finite_differences() {
    use std::f64::consts::PI;
    let top = |q: f64| State::at_rest(SVector::from([q]));
    Derivatives::new("Pendulum", &Pendulum::default())
        .standard()
        .state("top, pushed", top(PI), SVector::from([0.3]))
        .check();
    let upright = State::at_rest(SVector::from([0.0, 0.0]));
    Derivatives::new("CartPole", &CartPole::default())
        .standard()
        .state("upright, pushed", upright, SVector::from([4.5]))
        .check();
    Derivatives::new("PointCartPole", &PointCartPole::default())
        .standard()
        .state(
            "hanging",
            State::at_rest(SVector::from([0.8, PI])),
            SVector::from([0.0]),
        )
        .check();
    let dp = DoublePendulum::default();
    Derivatives::new("DoublePendulum", &dp)
        .standard()
        .state(
            "inverted",
            State::at_rest(SVector::from([PI, PI])),
            NO_INPUT,
        )
        .check();
    Derivatives::new("Arm", &Arm::default())
        .standard()
        .state(
            "straight up",
            State::at_rest(SVector::from([PI / 2.0, 0.0])),
            SVector::zeros(),
        )
        .check();
    Derivatives::new("Oscillator", &Oscillator::default())
        .standard()
        .check();
    Derivatives::new("TrappedCharge", &TrappedCharge::default())
        .standard()
        .check();
    let cp = CartesianPendulum::default();
    Derivatives::new("CartesianPendulum", &cp)
        .structured_at(SVector::from([0.0, -cp.l]))
        .random(3)
        .state(
            "swinging through the bottom",
            cartesian(cp.l, 0.0, 1.5),
            SVector::zeros(),
        )
        .state("top", cartesian(cp.l, PI, 0.0), SVector::zeros())
        .check();
    let sp = SliderPendulum::default();
    Derivatives::new("SliderPendulum", &sp)
        .structured_at(SVector::from([0.0, 0.0, 0.0, sp.l]))
        .random(3)
        .check();
}

/// Issue 29, item 6: `tangent` is a public field; with a wrong shape, `spectrum`,
/// `lqr_gain` and `Gain::from_matrix`, which return `Result`, panicked in a matrix product.
/// They now return errors naming the tangent basis.
#[test]
fn a_tangent_of_the_wrong_shape_is_an_error_not_a_panic() {
    use lagrange_runtime::control::{lqr_gain, ControlError, Gain};
    let model = Pendulum::default();
    let lin = linearize(
        &model,
        &State::at_rest(SVector::from([3.0])),
        &SVector::zeros(),
    )
    .unwrap();
    for (rows, columns) in [(3, 2), (1, 1), (2, 3), (0, 0)] {
        let mut bad = lin.clone();
        bad.tangent = DMatrix::identity(rows, columns);
        let error = bad.spectrum().unwrap_err();
        assert!(
            matches!(error, DynamicsError::InvalidSetting(w) if w.contains("tangent")),
            "{rows} × {columns}: {error}"
        );
        let expected = (2, columns.min(2));
        let want = ControlError::DimensionMismatch {
            matrix: "tangent",
            expected,
            found: (rows, columns),
        };
        let q = DMatrix::identity(2, 2);
        assert_eq!(lqr_gain(&bad, &q, &SMatrix::identity()).unwrap_err(), want);
        assert_eq!(
            Gain::from_matrix(&DMatrix::zeros(1, 2), &bad).unwrap_err(),
            want
        );
    }
    // The right shape: a reduced basis of one column works.
    let mut reduced = lin.clone();
    reduced.tangent = DMatrix::from_column_slice(2, 1, &[1.0, 0.0]);
    assert_eq!(reduced.spectrum().unwrap().eigenvalues.len(), 1);
}
