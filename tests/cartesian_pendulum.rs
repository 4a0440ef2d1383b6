//! A pendulum (point mass m on a massless rod of length l, gravity g, y pointing up) written
//! twice: in Cartesian coordinates (x, y) of the bob with the holonomic constraint
//!   rod: x² + y² − l² = 0,
//! and in one angle θ from the downward vertical, x = l sin θ, y = −l cos θ.
//!
//! First-kind equations (DSL convention M q̈ + Φ_qᵀ λ = −∂V/∂q, Φ_q = 2 (x, y)):
//!   m ẍ = −2 λ x,   m ÿ = −m g − 2 λ y.
//! The force of the rod on the bob is −2 λ (x, y): toward the pivot with magnitude 2 λ l
//! when λ > 0. The rod tension is T = m (l θ̇² + g cos θ) (centripetal balance along the
//! rod: m l θ̇² = T − m g cos θ), so λ = T / (2 l).
//!
//! The angle model has θ̈ = −(g/l) sin θ; from rest at θ0 its period is
//!   P = 4 √(l/g) K(sin(θ0/2))
//! with K the complete elliptic integral of the first kind, K(k) = π / (2 AGM(1, √(1−k²))).
use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

lagrangian! {
    /// Pendulum in Cartesian coordinates of the bob, y up.
    pub struct CartesianPendulum {
        parameters: m = 1.3, l = 0.9, g = 9.81;
        coordinates: x, y;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = m * g * y;
        constraint rod = x^2 + y^2 - l^2;
    }
}

lagrangian! {
    /// The same pendulum in the angle from the downward vertical.
    pub struct AnglePendulum {
        parameters: m = 1.3, l = 0.9, g = 9.81;
        coordinates: theta;
        let x = l * sin(theta);
        let y = -l * cos(theta);
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = m * g * y;
    }
}

const U: SVector<f64, 0> =
    SVector::from_array_storage(lagrange_runtime::nalgebra::ArrayStorage([[]]));

/// The Cartesian state of (θ, θ̇): x = l sin θ, y = −l cos θ, ẋ = l cos θ θ̇, ẏ = l sin θ θ̇.
fn cartesian(l: f64, t: f64, th: f64, thd: f64) -> State<2> {
    let (s, c) = th.sin_cos();
    State::new(
        t,
        SVector::from([l * s, -l * c]),
        SVector::from([l * c * thd, l * s * thd]),
    )
}

/// Rod tension T = m (l θ̇² + g cos θ).
fn tension(p: &CartesianPendulum, th: f64, thd: f64) -> f64 {
    p.m * (p.l * thd * thd + p.g * th.cos())
}

/// Complete elliptic integral of the first kind K(k) by the arithmetic–geometric mean.
fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    while (a - b).abs() > 1e-16 * a {
        (a, b) = ((a + b) / 2.0, (a * b).sqrt());
    }
    std::f64::consts::PI / (2.0 * a)
}

fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: got {got:e}, want {want:e}"
    );
}

const STATES: [(f64, f64); 6] = [
    (0.0, 0.0),
    (0.3, 0.0),
    (-0.7, 1.9),
    (1.234, -2.71),
    (2.9, 0.45),
    (-3.05, -5.3),
];

#[test]
fn accelerations_and_multiplier_match_the_angle_pendulum() {
    for p in [
        CartesianPendulum::default(),
        CartesianPendulum::new(0.4, 2.2, 1.62),
    ] {
        for (th, thd) in STATES {
            let s = cartesian(p.l, 0.0, th, thd);
            let qdd = p.accelerations(&s, &U).unwrap();
            // ẍ = l cos θ θ̈ − l sin θ θ̇², ÿ = l sin θ θ̈ + l cos θ θ̇², θ̈ = −(g/l) sin θ.
            let thdd = -(p.g / p.l) * th.sin();
            let (sn, cs) = th.sin_cos();
            assert_close(qdd[0], p.l * (cs * thdd - sn * thd * thd), 1e-12, "ẍ");
            assert_close(qdd[1], p.l * (sn * thdd + cs * thd * thd), 1e-12, "ÿ");
            let lambda = p.multipliers(&s, &U).unwrap();
            assert_close(lambda[0], tension(&p, th, thd) / (2.0 * p.l), 1e-12, "λ");
            // The reaction −Jᵀλ = −2λ (x, y) is T along the rod toward the pivot.
            let r = p.reaction_forces(&s, &U).unwrap();
            let t = tension(&p, th, thd);
            assert_close(r[0], -t * sn, 1e-12, "R_x");
            assert_close(r[1], t * cs, 1e-12, "R_y");
        }
    }
}

#[test]
fn long_run_follows_the_angle_pendulum() {
    // Large swing with an initial push: θ0 = 2.0 rad, θ̇0 = 1.5 rad/s, 30 s (≈ 12 periods).
    // Both integrated with Dormand–Prince at rtol = atol = 1e-13; the Cartesian one is
    // projected back onto the rod after each step.
    let p = CartesianPendulum::default();
    let a = AnglePendulum::new(p.m, p.l, p.g);
    let (th0, thd0) = (2.0, 1.5);
    let times: Vec<f64> = (0..=300).map(|i| 0.1 * i as f64).collect();
    let dp = DormandPrince::new(1e-13, 1e-13);
    let angle = Simulation::new(
        &a,
        State::new(0.0, SVector::from([th0]), SVector::from([thd0])),
    )
    .run_at(&dp, &times)
    .unwrap();
    let cart = Simulation::new(&p, cartesian(p.l, 0.0, th0, thd0))
        .run_at(&Projected::new(dp), &times)
        .unwrap();
    let (mut dpos, mut dvel, mut dlam, mut drift) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (sa, sc) in angle.states().iter().zip(cart.states()) {
        assert_eq!(sa.t, sc.t);
        let (th, thd) = (sa.q[0], sa.qd[0]);
        let want = cartesian(p.l, sa.t, th, thd);
        dpos = dpos.max((sc.q - want.q).amax());
        dvel = dvel.max((sc.qd - want.qd).amax());
        // λ along the run equals T / (2l) of the angle solution at the same time.
        let lambda = p.multipliers(sc, &U).unwrap()[0];
        let t_over_2l = tension(&p, th, thd) / (2.0 * p.l);
        dlam = dlam.max((lambda - t_over_2l).abs() / (1.0 + t_over_2l.abs()));
        // And T / (2l) of the Cartesian state itself (θ = atan2(x, −y), θ̇ = (x ẏ − y ẋ)/l²)
        // to round-off, the state being on the rod.
        let th_c = sc.q[0].atan2(-sc.q[1]);
        let thd_c = (sc.q[0] * sc.qd[1] - sc.q[1] * sc.qd[0]) / (p.l * p.l);
        assert_close(
            lambda,
            tension(&p, th_c, thd_c) / (2.0 * p.l),
            1e-11,
            "λ(state)",
        );
        let v = p.violation(sc, &U);
        drift = drift.max(v.position.max(v.velocity));
    }
    assert_eq!(angle.len(), 301);
    assert_eq!(cart.len(), 301);
    // Measured: positions 1.4e-10, velocities 8.1e-10, λ 8.5e-10 (relative) apart; the
    // violation stays below the projection tolerance, 1e-12 relative to the rod's scale
    // max|∂φ/∂q| max|q| ≤ 2l².
    assert!(dpos < 5e-10, "positions differ by {dpos:e}");
    assert!(dvel < 3e-9, "velocities differ by {dvel:e}");
    assert!(dlam < 3e-9, "λ differs from T/(2l) by {dlam:e}");
    assert!(drift <= 2e-12 * p.l * p.l, "constraint violation {drift:e}");
}

#[test]
fn period_is_the_elliptic_integral() {
    // Released from rest at θ0 = 2.5 rad (143°), the Cartesian pendulum is back at its start
    // after each period P = 4 √(l/g) K(sin(θ0/2)), and on the far side (x = −l sin θ0,
    // y = −l cos θ0) after half a period.
    let p = CartesianPendulum::default();
    let th0: f64 = 2.5;
    let period = 4.0 * (p.l / p.g).sqrt() * elliptic_k((th0 / 2.0).sin());
    let start = cartesian(p.l, 0.0, th0, 0.0);
    let times = [0.5 * period, period, 2.5 * period, 5.0 * period];
    let run = Simulation::new(&p, start)
        .run_at(&Projected::new(DormandPrince::new(1e-13, 1e-13)), &times)
        .unwrap();
    let s = run.states();
    let far = SVector::from([-start.q[0], start.q[1]]);
    // Measured: positions within 4.5e-12, velocities within 1.3e-10 (at 5 P).
    for (state, want) in [
        (&s[0], far),
        (&s[1], start.q),
        (&s[2], far),
        (&s[3], start.q),
    ] {
        assert!(
            (state.q - want).amax() < 2e-11 && state.qd.amax() < 5e-10,
            "t = {}: q = {}, q̇ = {}, want q = {want}, q̇ = 0",
            state.t,
            state.q,
            state.qd
        );
    }
}

/// Exact derivatives against central differences (`common::derivatives`). The Cartesian
/// model's structured states sit at the bottom of the circle, (0, −l): at q = 0 the rod's
/// gradient 2 (x, y) vanishes and the constrained accelerations do not exist.
#[test]
fn derivatives_match_finite_differences() {
    let model = CartesianPendulum::default();
    let l = model.l;
    Derivatives::new("CartesianPendulum", &model)
        .structured_at(SVector::from([0.0, -l]))
        .random(3)
        .state(
            "swinging through the bottom",
            cartesian(l, 0.0, 0.0, 2.0),
            U,
        )
        .state(
            "horizontal, at rest",
            cartesian(l, 0.0, std::f64::consts::FRAC_PI_2, 0.0),
            U,
        )
        .state("inverted", cartesian(l, 0.0, std::f64::consts::PI, 0.0), U)
        .check();
    let angle = AnglePendulum::default();
    Derivatives::new("AnglePendulum", &angle)
        .standard()
        .state(
            "inverted",
            State::at_rest(SVector::from([std::f64::consts::PI])),
            U,
        )
        .check();
}
