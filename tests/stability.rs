//! Steady motions and their stability, against closed forms of the textbooks:
//!
//! - a torque-free rigid body spinning about a principal axis (Landau & Lifshitz,
//!   "Mechanics", §37): stable about the largest and the smallest moment, unstable about
//!   the intermediate one with the growth rate Ω √((I_s − I_a)(I_b − I_s)/(I_a I_b));
//! - a heavy symmetric top spinning upright (the sleeping top, Goldstein §5.7): stable for
//!   ω₃² > 4 m g l I₁/I₃², with the nutation frequencies of the linear theory;
//! - a centrifugal governor with a free shaft, a sleeve on a spring and the sleeve as a
//!   constrained coordinate: the steady spin rate from the balance of centrifugal force,
//!   weight and spring, and the small oscillation about it from the amended potential
//!   (Routh), with no spurious eigenvalues from the constraint.
//!
//! The rolling coin, through the nonholonomic reduction, is in tests/rolling_coin.rs.
use crate::common;

use common::assert_close;
use common::derivatives::Derivatives;
use lagrange_runtime::linearize::linearize;
use lagrange_runtime::prelude::*;
use lagrange_runtime::stability::Stability;
use lagrange_runtime::steady::{steady_motion, Turning};

fn none() -> SVector<f64, 0> {
    SVector::zeros()
}

// A free rigid body, z-y-x Euler angles. At pitch = roll = 0 the body z axis is the
// fixed z axis, and yaw, on which nothing depends, turns the body about it.
use lagrange_test_models::FreeBody;

/// Spin Ω about the body z axis, whose moment is `spin`; `a` and `b` the other two.
/// Linearized, the body rates across the spin obey ω̈ = −Ω² (I_s − I_a)(I_s − I_b)/(I_a I_b) ω,
/// and the tilt of the spin axis, the conserved angular momentum's direction seen in the
/// yaw-pitch-roll angles, turns at Ω: eigenvalues 0, 0 (yaw and the spin rate), ±iΩ and
/// ±√(−Ω² (I_s − I_a)(I_s − I_b)/(I_a I_b)).
#[test]
fn a_free_body_spins_stably_about_its_largest_and_smallest_axes_only() {
    let omega = 3.0;
    let cases = [
        (
            "largest",
            FreeBody::new(0.1, 0.2, 0.25),
            Stability::Marginal,
        ),
        (
            "smallest",
            FreeBody::new(0.2, 0.25, 0.1),
            Stability::Marginal,
        ),
        (
            "intermediate",
            FreeBody::new(0.1, 0.25, 0.2),
            Stability::Unstable,
        ),
    ];
    for (axis, body, expected) in cases {
        let guess = State::at_rest(SVector::from([0.0, 0.05, -0.03]));
        let motion = steady_motion(&body, &guess, &[("yaw", Turning::Rate(omega))], &none())
            .unwrap_or_else(|e| panic!("{axis}: {e}"));
        assert!(
            motion.state.q.rows(1, 2).amax() < 1e-12,
            "{axis}: the spin axis is vertical"
        );
        assert_eq!(
            motion.stability(),
            expected,
            "{axis}: {:?}",
            motion.spectrum.eigenvalues
        );
        let (ia, ib, is) = (body.I1, body.I2, body.I3);
        let squared = -omega * omega * (is - ia) * (is - ib) / (ia * ib);
        let mut want = vec![(0.0, 0.0), (0.0, 0.0), (0.0, omega), (0.0, -omega)];
        if squared > 0.0 {
            want.extend([(squared.sqrt(), 0.0), (-squared.sqrt(), 0.0)]);
        } else {
            want.extend([(0.0, (-squared).sqrt()), (0.0, -(-squared).sqrt())]);
        }
        let got = &motion.spectrum.eigenvalues;
        assert_eq!(got.len(), 6);
        for (re, im) in want {
            let nearest = got
                .iter()
                .map(|l| ((l.re - re).powi(2) + (l.im - im).powi(2)).sqrt())
                .fold(f64::INFINITY, f64::min);
            // The zero pair is a Jordan block: rounding splits it by about √ε.
            assert!(
                nearest < 1e-7 * omega,
                "{axis}: {re} + {im}i not among {got:?}"
            );
        }
        if squared > 0.0 {
            assert_close(
                motion.spectrum.largest_real_part(),
                squared.sqrt(),
                omega,
                1e-12,
                "growth rate about the intermediate axis",
            );
        }
    }
}

lagrangian! {
    /// A heavy symmetric top on a fixed pivot: moments I1 (about the pivot, across the
    /// axis) and I3 (about the axis), centre of mass at l along the axis (body z). Tilt by
    /// `a` about x and `b` about y, then `spin` about the axis: no singularity upright.
    pub struct Top {
        parameters: m = 0.5, l = 0.04, I1 = 1.2e-3, I3 = 0.4e-3, g = 9.81;
        coordinates: a, b, spin;

        let R = rot_x(a) * rot_y(b) * rot_z(spin);
        let w = body_angular_velocity(R);

        kinetic = inner(w, diag(I1, I1, I3) * w) / 2;
        potential = m * g * l * (R * [0, 0, 1]).z;
    }
}

/// Upright, spinning at ω₃, the tilt w = a + i b obeys I₁ ẅ − i I₃ ω₃ ẇ − m g l w = 0
/// (linear theory of the sleeping top), so λ = i (I₃ ω₃ ± √(I₃² ω₃² − 4 I₁ m g l)) / (2 I₁)
/// and their conjugates: on the imaginary axis (nutation and precession) exactly when
/// ω₃² > 4 m g l I₁ / I₃².
#[test]
fn a_top_sleeps_above_the_critical_spin() {
    let top = Top::default();
    let critical = (4.0 * top.m * top.g * top.l * top.I1).sqrt() / top.I3;
    let upright = |spin: f64| {
        steady_motion(
            &top,
            &State::at_rest(SVector::from([0.02, -0.01, 0.0])),
            &[("spin", Turning::Rate(spin))],
            &none(),
        )
        .unwrap()
    };
    for ratio in [0.5, 0.9, 1.1, 2.0] {
        let spin = ratio * critical;
        let motion = upright(spin);
        assert!(motion.state.q.rows(0, 2).amax() < 1e-12, "upright");
        let (i1, i3) = (top.I1, top.I3);
        let discriminant = (i3 * spin).powi(2) - 4.0 * i1 * top.m * top.g * top.l;
        let got = &motion.spectrum.eigenvalues;
        assert_eq!(got.len(), 6, "{got:?}");
        if ratio > 1.0 {
            assert_eq!(motion.stability(), Stability::Marginal, "{got:?}");
            for sign in [1.0, -1.0] {
                let frequency = (i3 * spin + sign * discriminant.sqrt()) / (2.0 * i1);
                let nearest = got
                    .iter()
                    .map(|l| (l.im.abs() - frequency).abs() + l.re.abs())
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    nearest < 1e-9 * frequency,
                    "frequency {frequency} in {got:?}"
                );
            }
        } else {
            assert_eq!(motion.stability(), Stability::Unstable, "{got:?}");
            let growth = (-discriminant).sqrt() / (2.0 * i1);
            assert_close(
                motion.spectrum.largest_real_part(),
                growth,
                growth,
                1e-10,
                "growth",
            );
        }
    }
    // The threshold itself, found from the eigenvalues by bisection on the spin.
    let (mut low, mut high) = (0.5 * critical, 2.0 * critical);
    for _ in 0..40 {
        let mid = (low + high) / 2.0;
        if upright(mid).spectrum.largest_real_part() > 1e-6 * mid {
            low = mid;
        } else {
            high = mid;
        }
    }
    assert_close(
        high,
        critical,
        critical,
        1e-5,
        "critical spin √(4 m g l I₁)/I₃",
    );
}

lagrangian! {
    /// A centrifugal governor: two balls (mass m each) on arms of length l hinged to the
    /// shaft, at angle theta from it; links of length l carry the sleeve (mass ms) at
    /// z = 2 l cos θ below the hinge, where a spring (k, relaxed at z0) holds it. The shaft
    /// (inertia J) turns freely: phi is cyclic. The sleeve's position is a coordinate of
    /// its own, tied to the arms by a constraint.
    pub struct Governor {
        parameters: m = 0.3, ms = 0.5, l = 0.15, J = 0.02, k = 150.0, z0 = 0.22, g = 9.81;
        coordinates: phi, theta, z;

        kinetic = J/2 * dot(phi)^2 + m * l^2 * (dot(theta)^2 + sin(theta)^2 * dot(phi)^2)
            + ms/2 * dot(z)^2;
        potential = -2 * m * g * l * cos(theta) - ms * g * z + k/2 * (z - z0)^2;
        constraint sleeve = z - 2 * l * cos(theta);
    }
}

/// Steady spin Ω: with z = 2 l cos θ, ∂L/∂θ = 0 at rest in θ gives
/// cos θ* = ((m + ms) g + k z0) / (m l Ω² + 2 k l). About it, at the conserved shaft
/// momentum p = (J + 2 m l² sin²θ) Ω, the arms oscillate with
/// ω² = V_a''(θ*) / (2 m l² + 4 ms l² sin²θ*), V_a = V + p²/(2 I(θ)), I = J + 2 m l² sin²θ.
#[test]
fn the_governor_spins_steadily_and_oscillates_about_its_steady_angle() {
    let gov = Governor::default();
    let (m, ms, l, j, k, z0, g) = (gov.m, gov.ms, gov.l, gov.J, gov.k, gov.z0, gov.g);
    let omega = 14.0;
    let cos = ((m + ms) * g + k * z0) / (m * l * omega * omega + 2.0 * k * l);
    let theta = cos.acos();
    let guess = State::at_rest(SVector::from([0.0, 0.6, 2.0 * l * 0.6f64.cos()]));
    let motion = steady_motion(&gov, &guess, &[("phi", Turning::Rate(omega))], &none()).unwrap();
    assert_close(motion.state.q[1], theta, 1.0, 1e-12, "steady angle θ*");
    assert_close(motion.state.q[2], 2.0 * l * cos, l, 1e-12, "sleeve");
    assert_eq!(motion.state.qd, SVector::from([omega, 0.0, 0.0]));

    // The same steady motion, given the shaft's momentum instead of its rate.
    let inertia = |t: f64| j + 2.0 * m * l * l * t.sin().powi(2);
    let p = inertia(theta) * omega;
    let by_momentum =
        steady_motion(&gov, &guess, &[("phi", Turning::Momentum(p))], &none()).unwrap();
    assert_close(
        by_momentum.state.qd[0],
        omega,
        omega,
        1e-12,
        "rate from the momentum",
    );
    assert_close(
        by_momentum.state.q[1],
        theta,
        1.0,
        1e-12,
        "θ* from the momentum",
    );

    // Small oscillations: V_a'' by hand.
    let (s, c) = theta.sin_cos();
    let v2 =
        2.0 * (m + ms) * g * l * c + k * (4.0 * l * l * s * s - 2.0 * l * c * (2.0 * l * c - z0));
    let (i, i1, i2) = (
        inertia(theta),
        4.0 * m * l * l * s * c,
        4.0 * m * l * l * (2.0 * theta).cos(),
    );
    let amended = v2 + p * p * (i1 * i1 / i.powi(3) - i2 / (2.0 * i * i));
    let frequency = (amended / (2.0 * m * l * l + 4.0 * ms * l * l * s * s)).sqrt();

    // Six states, two constraint rows (the sleeve at position and velocity level): four
    // eigenvalues, ±iω and the shaft's pair at zero. Nothing else.
    let got = &motion.spectrum.eigenvalues;
    assert_eq!(got.len(), 4, "{got:?}");
    let mut order: Vec<usize> = (0..4).collect();
    order.sort_by(|&a, &b| got[b].im.total_cmp(&got[a].im));
    assert_close(
        got[order[0]].im,
        frequency,
        frequency,
        1e-10,
        "oscillation frequency",
    );
    assert_close(
        got[order[3]].im,
        -frequency,
        frequency,
        1e-10,
        "its conjugate",
    );
    for i in [order[0], order[3]] {
        assert!(got[i].re.abs() < 1e-10 * frequency, "{got:?}");
    }
    for i in [order[1], order[2]] {
        assert!(got[i].norm() < 1e-7 * frequency, "{got:?}");
    }
    assert_eq!(motion.stability(), Stability::Marginal);
    // The mode: arms and sleeve move together as the constraint says, δz = −2 l sin θ δθ.
    let mode = motion.spectrum.mode(order[0]).unwrap();
    let ratio = mode.positions[2] / mode.positions[1];
    assert_close(ratio.re, -2.0 * l * s, l, 1e-9, "δz/δθ");
    assert!(ratio.im.abs() < 1e-9);

    // The linearization in the redundant coordinates has spurious eigenvalues along the
    // constraint: six of them, two more than the system has.
    let lin = linearize(&gov, &motion.state, &none()).unwrap();
    assert_eq!(lin.a().nrows(), 6);
    assert_eq!(lin.reduced_a().nrows(), 4);
}

#[test]
fn steady_motion_settings_are_checked() {
    let gov = Governor::default();
    let guess = State::at_rest(SVector::from([0.0, 0.6, 0.25]));
    let invalid = [
        ("psi", Turning::Rate(1.0)),
        ("phi", Turning::Rate(f64::NAN)),
        ("phi", Turning::Momentum(f64::INFINITY)),
    ];
    for turning in invalid {
        let err = steady_motion(&gov, &guess, &[turning], &none()).unwrap_err();
        assert!(
            matches!(err, DynamicsError::InvalidSetting(_)),
            "{turning:?}: {err}"
        );
    }
    let twice = [("phi", Turning::Rate(1.0)), ("phi", Turning::Momentum(1.0))];
    let err = steady_motion(&gov, &guess, &twice, &none()).unwrap_err();
    assert_eq!(
        err,
        DynamicsError::InvalidSetting("a turning coordinate is named twice")
    );
    // A non-finite guess is the state's error.
    let bad = State::at_rest(SVector::from([0.0, f64::NAN, 0.25]));
    let err = steady_motion(&gov, &bad, &[], &none()).unwrap_err();
    assert!(
        matches!(err, DynamicsError::NonFiniteState { name: "theta", .. }),
        "{err}"
    );
}

lagrangian! {
    /// A pendulum in Cartesian coordinates pushed sideways by a force f on the bob, to be
    /// balanced upright (y up).
    pub struct CartesianPendulum {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: x, y;
        inputs: f;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = m * g * y;
        force [f, 0] on [x, y];
        constraint rod = x^2 + y^2 - l^2;
    }
}

/// Upright, the reduced linearization has the one degree of freedom's ±√(g/l) (the four
/// states less the rod at position and velocity level). The LQR design in independent
/// coordinates stabilizes it, its gain comes back in fixed-size blocks on (x, y) and
/// (ẋ, ẏ), and its law catches the pendulum in simulation; in the redundant coordinates the
/// Riccati equation has no stabilizing solution (the constraint directions are modes no
/// input moves).
#[test]
fn lqr_in_independent_coordinates_balances_a_constrained_pendulum() {
    use lagrange_runtime::control::{lqr, lqr_gain};
    use lagrange_runtime::nalgebra::DMatrix;
    use lagrange_runtime::simulate::{Projected, Rk4, Simulation};

    let model = CartesianPendulum::default();
    let zero = SVector::from([0.0]);
    let up = State::at_rest(SVector::from([0.0, model.l]));
    let lin = linearize(&model, &up, &zero).unwrap();
    let spectrum = lin.spectrum().unwrap();
    assert_eq!(spectrum.eigenvalues.len(), 2);
    let rate = (model.g / model.l).sqrt();
    assert_close(spectrum.largest_real_part(), rate, rate, 1e-12, "√(g/l)");
    assert_eq!(spectrum.stability(), Stability::Unstable);

    let weights = DMatrix::identity(4, 4);
    let r = SMatrix::<f64, 1, 1>::new(0.5);
    assert!(lqr(
        &lin.a(),
        &lin.b(),
        &weights,
        &DMatrix::from_element(1, 1, 0.5)
    )
    .is_err());
    let (gain, p) = lqr_gain(&lin, &weights, &r).unwrap();
    assert_eq!(p.shape(), (2, 2));
    // The closed loop in independent coordinates: A_r − B_r K V, both eigenvalues stable.
    let k = DMatrix::from_iterator(
        1,
        4,
        gain.positions.iter().chain(gain.velocities.iter()).copied(),
    );
    let closed = lin.reduced_a() - lin.reduced_b() * k * &lin.tangent;
    for lambda in closed.complex_eigenvalues().iter() {
        assert!(lambda.re < -0.1, "closed-loop eigenvalue {lambda}");
    }
    // Started 0.2 rad off upright, on the rod.
    let start = State::at_rest(SVector::from([
        model.l * 0.2f64.sin(),
        model.l * 0.2f64.cos(),
    ]));
    let run = Simulation::new(&model, start)
        .inputs(gain.law())
        .run(&Projected::new(Rk4::new(1e-3)), 15.0)
        .unwrap();
    let end = run.last();
    assert!(
        (end.q - up.q).amax() < 1e-6 && end.qd.amax() < 1e-6,
        "{end:?}"
    );
    assert!(model.violation(end, &zero).position < 1e-12);
    // The law is u* − K_q (q − q*) − K_q̇ (q̇ − q̇*).
    let s = State::new(0.0, SVector::from([0.1, 0.9]), SVector::from([0.3, -0.2]));
    let by_hand = -(gain.positions * (s.q - up.q) + gain.velocities * s.qd);
    assert_eq!(gain.inputs_at(&s), by_hand);
}

/// Exact derivatives against central differences (`common::derivatives`), at structured
/// and random states and at the steady motions this file finds: the free body spinning
/// about its axis, the sleeping top above and below its critical spin, the governor at
/// its steady angle. The Cartesian pendulum's structured states hang (at q = 0 the rod's
/// gradient vanishes).
#[test]
fn derivatives_match_finite_differences() {
    let spinning = State::new(0.0, SVector::zeros(), SVector::from([3.0, 0.0, 0.0]));
    Derivatives::new("FreeBody", &FreeBody::default())
        .standard()
        .state("spinning about the body z axis", spinning, none())
        .check();

    let top = Top::default();
    let critical = (4.0 * top.m * top.g * top.l * top.I1).sqrt() / top.I3;
    let mut check = Derivatives::new("Top", &top).standard();
    for ratio in [0.5, 2.0] {
        let sleeping = steady_motion(
            &top,
            &State::at_rest(SVector::from([0.02, -0.01, 0.0])),
            &[("spin", Turning::Rate(ratio * critical))],
            &none(),
        )
        .unwrap()
        .state;
        check = check.state(
            &format!("upright at {ratio} × the critical spin"),
            sleeping,
            none(),
        );
    }
    check.check();

    let gov = Governor::default();
    let guess = State::at_rest(SVector::from([0.0, 0.6, 2.0 * gov.l * 0.6f64.cos()]));
    let steady = steady_motion(&gov, &guess, &[("phi", Turning::Rate(14.0))], &none())
        .unwrap()
        .state;
    Derivatives::new("Governor", &gov)
        .standard()
        .state("steady spin", steady, none())
        .check();

    let cp = CartesianPendulum::default();
    Derivatives::new("CartesianPendulum", &cp)
        .structured_at(SVector::from([0.0, -cp.l]))
        .random(3)
        .state(
            "inverted",
            State::at_rest(SVector::from([0.0, cp.l])),
            SVector::zeros(),
        )
        .check();
}

lagrangian! {
    /// An inverted pendulum: θ̈ = (g/l) sin θ, eigenvalues ±√(g/l) at the top.
    pub struct Inverted {
        parameters: g = 9.81, l = 1.0;
        coordinates: theta;
        kinetic = l^2/2 * dot(theta)^2;
        potential = g * l * cos(theta);
    }
}

/// Issue 29, item 12: `classify(f64::NAN)` called an unstable spectrum Marginal (every
/// comparison with a NaN is false). A NaN or negative margin now counts as 0.
#[test]
fn a_nan_margin_does_not_hide_an_instability() {
    let top = State::at_rest(SVector::from([0.0]));
    let spectrum = linearize(&Inverted::default(), &top, &SVector::zeros())
        .unwrap()
        .spectrum()
        .unwrap();
    assert_close(
        spectrum.largest_real_part(),
        9.81f64.sqrt(),
        1.0,
        1e-12,
        "growth rate",
    );
    for margin in [f64::NAN, -1.0, 0.0, 1e-4] {
        assert_eq!(spectrum.classify(margin), Stability::Unstable, "{margin}");
    }
    // An infinite margin counts every real part as zero.
    assert_eq!(spectrum.classify(f64::INFINITY), Stability::Marginal);
}
