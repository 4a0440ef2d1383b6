//! A knife edge (skate) sliding on an inclined plane: the classic nonholonomic example
//! (Neimark & Fufaev, "Dynamics of Nonholonomic Systems", and Bloch, "Nonholonomic
//! Mechanics and Control", ch. 1). Coordinates in the plane: the contact point (x, y), x
//! pointing straight down the slope (inclination α), and the blade's heading θ from the x
//! axis. The blade cannot move sideways:
//!   blade: −sin θ ẋ + cos θ ẏ = 0          (A q̇ + b = 0, A = (−sin θ, cos θ, 0), b = 0)
//! L = ½ m (ẋ² + ẏ²) + ½ J θ̇² + m g sin α x.
//!
//! Derivation of the motion. First-kind equations (M q̈ + Aᵀ λ = −∂V/∂q):
//!   m ẍ = m G + λ sin θ,   m ÿ = −λ cos θ,   J θ̈ = 0,       G = g sin α,
//! so θ = θ0 + ω t. Write the velocity along the blade v = ẋ cos θ + ẏ sin θ; the
//! constraint makes (ẋ, ẏ) = v (cos θ, sin θ). Projecting the x, y equations on the blade
//! direction e = (cos θ, sin θ) (the constraint force λ (sin θ, −cos θ) is normal to it):
//!   m v̇ = m (ẍ cos θ + ÿ sin θ) + m θ̇ (−ẋ sin θ + ẏ cos θ) = m G cos θ + 0,
//! hence v(t) = v0 + (G/ω)(sin θ − sin θ0). Integrating ẋ = v cos θ and ẏ = v sin θ with
//! c0 = v0 − (G/ω) sin θ0:
//!   x(t) = x0 + c0 (sin θ − sin θ0)/ω + G (sin²θ − sin²θ0)/(2ω²)
//!   y(t) = y0 − c0 (cos θ − cos θ0)/ω + (G/ω) (t/2 − (sin 2θ − sin 2θ0)/(4ω)).
//! From rest at the origin with θ0 = 0 (the textbook case):
//!   x(t) = G sin²(ωt) / (2ω²),   y(t) = G (ωt − ½ sin 2ωt) / (2ω²):
//! the skate does not slide down the hill on average but drifts sideways.
//! Projecting on the normal n = (sin θ, −cos θ) and using d/dt(A q̇) = 0, i.e.
//! ẍ sin θ − ÿ cos θ = −θ̇ (ẋ cos θ + ẏ sin θ) = −ω v:
//!   λ = −m ω v − m G sin θ        (λ = −2 m G sin ωt in the textbook case).
//! The energy E = ½ m v² + ½ J ω² − m G x is conserved: the constraint force does no work,
//! its power −λ A q̇ vanishing because A q̇ = 0 (b = 0).
use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

lagrangian! {
    /// Knife edge on an inclined plane, x down the slope.
    pub struct KnifeEdge {
        parameters: m = 1.5, J = 0.2, g = 9.81, alpha = 0.4;
        coordinates: x, y, theta;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2) + J/2 * dot(theta)^2;
        potential = -m * g * sin(alpha) * x;
        constraint blade = -sin(theta) * dot(x) + cos(theta) * dot(y);
    }
}

const U: SVector<f64, 0> =
    SVector::from_array_storage(lagrange_runtime::nalgebra::ArrayStorage([[]]));

/// Initial data: position (x0, y0), heading θ0, speed along the blade v0, turn rate ω.
#[derive(Clone, Copy)]
struct Start {
    x0: f64,
    y0: f64,
    th0: f64,
    v0: f64,
    w: f64,
}

impl Start {
    /// The exact state at time t (see the derivation above) and λ(t).
    fn exact(&self, k: &KnifeEdge, t: f64) -> (State<3>, f64) {
        let Start { x0, y0, th0, v0, w } = *self;
        let big_g = k.g * k.alpha.sin();
        let th = th0 + w * t;
        let (s, c) = th.sin_cos();
        let (s0, c0) = th0.sin_cos();
        let v = v0 + big_g / w * (s - s0);
        let cc = v0 - big_g / w * s0;
        let x = x0 + cc * (s - s0) / w + big_g * (s * s - s0 * s0) / (2.0 * w * w);
        let y = y0 - cc * (c - c0) / w
            + big_g / w * (t / 2.0 - ((2.0 * th).sin() - (2.0 * th0).sin()) / (4.0 * w));
        let lambda = -k.m * w * v - k.m * big_g * s;
        (
            State::new(
                t,
                SVector::from([x, y, th]),
                SVector::from([v * c, v * s, w]),
            ),
            lambda,
        )
    }
}

fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: got {got:e}, want {want:e}"
    );
}

const STARTS: [Start; 2] = [
    // The textbook case: from rest at the origin, heading down the slope.
    Start {
        x0: 0.0,
        y0: 0.0,
        th0: 0.0,
        v0: 0.0,
        w: 1.3,
    },
    // Anywhere, already moving backwards, turning the other way.
    Start {
        x0: 0.7,
        y0: -1.1,
        th0: 2.2,
        v0: -0.8,
        w: -2.05,
    },
];

#[test]
fn names_and_nonholonomic_residual() {
    assert_eq!(KnifeEdge::CONSTRAINTS, ["blade"]);
    let k = KnifeEdge::default();
    // The residual is A q̇ + b = −sin θ ẋ + cos θ ẏ: at θ = 0.5, (ẋ, ẏ) = (1, 2):
    // −sin 0.5 + 2 cos 0.5.
    let s = State::new(
        0.0,
        SVector::from([0.3, 0.4, 0.5]),
        SVector::from([1.0, 2.0, 3.0]),
    );
    let r = k.constraint_residuals(&s, &U)[0];
    assert_close(r, -(0.5f64).sin() + 2.0 * (0.5f64).cos(), 1e-15, "residual");
    // A nonholonomic constraint restricts velocities only: no position violation.
    let v = k.violation(&s, &U);
    assert_eq!(v.position, 0.0);
    assert_close(v.velocity, r.abs(), 1e-15, "velocity violation");
}

#[test]
fn accelerations_and_multiplier_match_closed_form() {
    // On a consistent state (ẋ, ẏ) = v (cos θ, sin θ), θ̇ = ω:
    //   ẍ = v̇ cos θ − v ω sin θ,  ÿ = v̇ sin θ + v ω cos θ,  θ̈ = 0,  v̇ = G cos θ,
    //   λ = −m ω v − m G sin θ, and the reaction −Aᵀλ = λ (sin θ, −cos θ, 0).
    for k in [KnifeEdge::default(), KnifeEdge::new(0.3, 1.7, 9.81, 1.1)] {
        let big_g = k.g * k.alpha.sin();
        for (th, v, w) in [
            (0.0, 0.0, 1.3),
            (0.4, 1.2, -0.7),
            (2.5, -0.6, 3.1),
            (-1.9, 2.4, 0.0),
        ] {
            let (sn, cs) = f64::sin_cos(th);
            let s = State::new(
                0.0,
                SVector::from([0.2, -0.3, th]),
                SVector::from([v * cs, v * sn, w]),
            );
            let qdd = k.accelerations(&s, &U).unwrap();
            let vd = big_g * cs;
            assert_close(qdd[0], vd * cs - v * w * sn, 1e-12, "ẍ");
            assert_close(qdd[1], vd * sn + v * w * cs, 1e-12, "ÿ");
            assert_close(qdd[2], 0.0, 1e-12, "θ̈");
            let lambda = k.multipliers(&s, &U).unwrap()[0];
            let want = -k.m * w * v - k.m * big_g * sn;
            assert_close(lambda, want, 1e-12, "λ");
            let r = k.reaction_forces(&s, &U).unwrap();
            assert_close(r[0], want * sn, 1e-12, "R_x");
            assert_close(r[1], -want * cs, 1e-12, "R_y");
            assert_eq!(r[2], 0.0);
        }
    }
}

#[test]
fn motion_matches_the_analytic_solution() {
    // 12 s of Dormand–Prince (rtol = atol = 1e-12), velocities projected onto the blade
    // constraint after each step, compared with the closed form at 120 times.
    let k = KnifeEdge::default();
    for start in STARTS {
        let (s0, _) = start.exact(&k, 0.0);
        let times: Vec<f64> = (1..=120).map(|i| 0.1 * i as f64).collect();
        let run = Simulation::new(&k, s0)
            .run_at(&Projected::new(DormandPrince::new(1e-12, 1e-12)), &times)
            .unwrap();
        let (mut dq, mut dv, mut dl) = (0.0f64, 0.0f64, 0.0f64);
        for s in run.states() {
            let (want, lambda) = start.exact(&k, s.t);
            dq = dq.max((s.q - want.q).amax());
            dv = dv.max((s.qd - want.qd).amax());
            let got = k.multipliers(s, &U).unwrap()[0];
            dl = dl.max((got - lambda).abs() / (1.0 + lambda.abs()));
            assert!(k.violation(s, &U).velocity < 1e-14);
        }
        // Measured: positions 5.7e-13 / 8.6e-13, velocities 1.6e-13 / 3.6e-13, λ 2.4e-13
        // / 8.9e-13 (relative; textbook / general start).
        assert!(dq < 5e-12, "positions differ by {dq:e}");
        assert!(dv < 5e-12, "velocities differ by {dv:e}");
        assert!(dl < 5e-12, "λ differs by {dl:e}");
    }
    // The textbook case at t = 12: x = G sin²(ωt)/(2ω²), y = G (ωt − ½ sin 2ωt)/(2ω²).
    let (end, _) = STARTS[0].exact(&k, 12.0);
    let (big_g, w) = (k.g * k.alpha.sin(), STARTS[0].w);
    let wt = w * 12.0;
    assert_close(
        end.q[0],
        big_g * wt.sin().powi(2) / (2.0 * w * w),
        1e-14,
        "x(12)",
    );
    assert_close(
        end.q[1],
        big_g * (wt - 0.5 * (2.0 * wt).sin()) / (2.0 * w * w),
        1e-14,
        "y(12)",
    );
}

#[test]
fn energy_is_conserved_and_the_constraint_does_no_work() {
    // E = ½ m (ẋ² + ẏ²) + ½ J θ̇² − m G x is constant; the constraint power
    // R·q̇ = −λ A q̇ is zero on consistent states. Plain Dormand–Prince, no projection:
    // the velocity constraint is held by the dynamics alone.
    let k = KnifeEdge::default();
    for start in STARTS {
        let (s0, _) = start.exact(&k, 0.0);
        let e0 = k.energy(&s0, &U);
        let big_g = k.g * k.alpha.sin();
        let by_hand = 0.5 * k.m * start.v0 * start.v0 + 0.5 * k.J * start.w * start.w
            - k.m * big_g * start.x0;
        assert_close(e0, by_hand, 1e-14, "E(0)");
        let run = Simulation::new(&k, s0)
            .run(&DormandPrince::new(1e-12, 1e-12), 12.0)
            .unwrap();
        let (mut de, mut power, mut drift) = (0.0f64, 0.0f64, 0.0f64);
        for s in run.states() {
            de = de.max((k.energy(s, &U) - e0).abs());
            power = power.max(k.reaction_forces(s, &U).unwrap().dot(&s.qd).abs());
            drift = drift.max(k.violation(s, &U).velocity);
        }
        // Measured over 1088 / 1584 steps (textbook / general start): |ΔE| ≤ 4.8e-12 /
        // 7.6e-12, constraint power ≤ 1.4e-12 / 3.4e-12, velocity violation ≤ 1.2e-13 /
        // 2.6e-13.
        assert!(de < 5e-11, "energy error {de:e}");
        assert!(power < 2e-11, "constraint power {power:e}");
        assert!(drift < 2e-12, "velocity violation {drift:e}");
    }
}

/// Exact derivatives against central differences (`common::derivatives`), at structured
/// and random states and along the exact motions from each start.
#[test]
fn derivatives_match_finite_differences() {
    let k = KnifeEdge::default();
    let mut check = Derivatives::new("KnifeEdge", &k).standard();
    for (i, start) in STARTS.iter().enumerate() {
        for t in [0.0, 0.8] {
            let label = format!("start {i} at t = {t}");
            check = check.state(&label, start.exact(&k, t).0, U);
        }
    }
    check
        .state(
            "rolling straight down the slope",
            State::new(0.0, SVector::zeros(), SVector::from([1.5, 0.0, 0.0])),
            U,
        )
        .check();
}
