//! A planar four-bar linkage, a closed kinematic chain, in three angle coordinates with two
//! loop-closure constraints (Lagrange equations of the first kind).
//!
//! Ground pivots O2 = (0, 0) and O4 = (d, 0); crank O2A of length a at angle θ1, coupler AB
//! of length b at angle θ2, rocker O4B of length c at angle θ3 (all angles from the +x
//! axis, y up). The loop O2 → A → B = O4 → B closes when
//!   loop_x = a cos θ1 + b cos θ2 − d − c cos θ3 = 0
//!   loop_y = a sin θ1 + b sin θ2     − c sin θ3 = 0.
//! The links are uniform bars (masses m1, m2, m3; moments of inertia m a²/3 and m c²/3
//! about the ground pivots, m b²/12 about the coupler's centre), under gravity g along −y.
//! The coupler point P sits at distance p from A, at angle δ from the coupler line AB.
//!
//! Lengths a = 1, b = 3.2, c = 2.4, d = 3 make a Grashof crank-rocker (shortest + longest
//! = 1 + 3.2 ≤ 2.4 + 3 = other two, shortest link the crank): the crank turns fully and
//! the triangle A–B–O4 never degenerates (|b − c| = 0.8 < |AO4| ∈ [d − a, d + a] = [2, 4]
//! < b + c = 5.6), so the loop Jacobian always has full rank and the assembly mode with B
//! above the line AO4 is kept for all crank angles.
//!
//! Independent truths: the position analysis by circle intersection, the velocity analysis
//! solved by hand, and the energy T + V computed by hand from them.
use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

lagrangian! {
    /// Four-bar linkage whose crank is driven at constant speed w by a driving constraint.
    pub struct DrivenFourBar {
        parameters: a = 1.0, b = 3.2, c = 2.4, d = 3.0,
                    m1 = 0.5, m2 = 1.5, m3 = 1.0, g = 9.81, w = 2.0;
        coordinates: theta1, theta2, theta3;

        let xa = a * cos(theta1);
        let ya = a * sin(theta1);
        let xg2 = xa + b/2 * cos(theta2);
        let yg2 = ya + b/2 * sin(theta2);

        kinetic = m1*a^2/6 * dot(theta1)^2
            + m2/2 * (dot(xg2)^2 + dot(yg2)^2) + m2*b^2/24 * dot(theta2)^2
            + m3*c^2/6 * dot(theta3)^2;
        potential = g * (m1 * a/2 * sin(theta1) + m2 * yg2 + m3 * c/2 * sin(theta3));

        constraint loop_x = a*cos(theta1) + b*cos(theta2) - d - c*cos(theta3);
        constraint loop_y = a*sin(theta1) + b*sin(theta2) - c*sin(theta3);
        constraint drive = theta1 - w*t;
    }
}

lagrangian! {
    /// The same linkage moving freely under gravity (one degree of freedom).
    pub struct FourBar {
        parameters: a = 1.0, b = 3.2, c = 2.4, d = 3.0,
                    m1 = 0.5, m2 = 1.5, m3 = 1.0, g = 9.81;
        coordinates: theta1, theta2, theta3;

        let xa = a * cos(theta1);
        let ya = a * sin(theta1);
        let xg2 = xa + b/2 * cos(theta2);
        let yg2 = ya + b/2 * sin(theta2);

        kinetic = m1*a^2/6 * dot(theta1)^2
            + m2/2 * (dot(xg2)^2 + dot(yg2)^2) + m2*b^2/24 * dot(theta2)^2
            + m3*c^2/6 * dot(theta3)^2;
        potential = g * (m1 * a/2 * sin(theta1) + m2 * yg2 + m3 * c/2 * sin(theta3));

        constraint loop_x = a*cos(theta1) + b*cos(theta2) - d - c*cos(theta3);
        constraint loop_y = a*sin(theta1) + b*sin(theta2) - c*sin(theta3);
    }
}

const U: SVector<f64, 0> =
    SVector::from_array_storage(lagrange_runtime::nalgebra::ArrayStorage([[]]));

/// Link lengths, masses, gravity (shared by both models), and the coupler point (p, δ).
#[derive(Clone, Copy)]
struct Linkage {
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    m1: f64,
    m2: f64,
    m3: f64,
    g: f64,
}

const P: f64 = 1.8;
const DELTA: f64 = 0.5;

impl Linkage {
    fn of_free(f: &FourBar) -> Self {
        let FourBar {
            a,
            b,
            c,
            d,
            m1,
            m2,
            m3,
            g,
        } = *f;
        Linkage {
            a,
            b,
            c,
            d,
            m1,
            m2,
            m3,
            g,
        }
    }

    fn of_driven(f: &DrivenFourBar) -> Self {
        let DrivenFourBar {
            a,
            b,
            c,
            d,
            m1,
            m2,
            m3,
            g,
            ..
        } = *f;
        Linkage {
            a,
            b,
            c,
            d,
            m1,
            m2,
            m3,
            g,
        }
    }

    /// Position analysis by circle intersection: B lies on the circle of radius b about A
    /// and on the circle of radius c about O4. With D = O4 − A, r = |D|, the foot of B on
    /// the line AO4 is at ξ = (b² − c² + r²)/(2r) from A and B is η = √(b² − ξ²) off it,
    /// on the left of A → O4: B = A + (ξ D + η D⊥)/r, D⊥ = (−D_y, D_x).
    /// Returns (θ2, θ3) = (atan2(B − A), atan2(B − O4)).
    fn position(&self, th1: f64) -> (f64, f64) {
        let (xa, ya) = (self.a * th1.cos(), self.a * th1.sin());
        let (dx, dy) = (self.d - xa, -ya);
        let r = dx.hypot(dy);
        let xi = (self.b * self.b - self.c * self.c + r * r) / (2.0 * r);
        let eta = (self.b * self.b - xi * xi).sqrt();
        let (xb, yb) = (xa + (xi * dx - eta * dy) / r, ya + (xi * dy + eta * dx) / r);
        ((yb - ya).atan2(xb - xa), yb.atan2(xb - self.d))
    }

    /// Velocity analysis: the loop equations differentiated,
    ///   −a s1 θ̇1 − b s2 θ̇2 + c s3 θ̇3 = 0,   a c1 θ̇1 + b c2 θ̇2 − c c3 θ̇3 = 0,
    /// combined to eliminate θ̇3 (× cos θ3, × sin θ3) and θ̇2 (× cos θ2, × sin θ2):
    ///   θ̇2 = a θ̇1 sin(θ3 − θ1) / (b sin(θ2 − θ3)),
    ///   θ̇3 = a θ̇1 sin(θ2 − θ1) / (c sin(θ2 − θ3)).
    fn velocity(&self, [th1, th2, th3]: [f64; 3], th1d: f64) -> (f64, f64) {
        let s23 = (th2 - th3).sin();
        (
            self.a * th1d * (th3 - th1).sin() / (self.b * s23),
            self.a * th1d * (th2 - th1).sin() / (self.c * s23),
        )
    }

    /// The configuration and velocities at crank angle θ1 and crank speed θ̇1.
    fn state(&self, t: f64, th1: f64, th1d: f64) -> State<3> {
        let (th2, th3) = self.position(th1);
        let (th2d, th3d) = self.velocity([th1, th2, th3], th1d);
        State::new(
            t,
            SVector::from([th1, th2, th3]),
            SVector::from([th1d, th2d, th3d]),
        )
    }

    /// T + V by hand: crank and rocker rotate about fixed pivots (½ (m a²/3) θ̇²), the
    /// coupler's centre G2 = A + (b/2) e2 moves with v_G2 = a θ̇1 e1⊥ + (b/2) θ̇2 e2⊥.
    fn energy(&self, s: &State<3>) -> f64 {
        let ([th1, th2, th3], [w1, w2, w3]) = (s.q.into(), s.qd.into());
        let vx = -self.a * w1 * th1.sin() - self.b / 2.0 * w2 * th2.sin();
        let vy = self.a * w1 * th1.cos() + self.b / 2.0 * w2 * th2.cos();
        let t = self.m1 * self.a * self.a / 6.0 * w1 * w1
            + self.m2 / 2.0 * (vx * vx + vy * vy)
            + self.m2 * self.b * self.b / 24.0 * w2 * w2
            + self.m3 * self.c * self.c / 6.0 * w3 * w3;
        let yg2 = self.a * th1.sin() + self.b / 2.0 * th2.sin();
        let v = self.g
            * (self.m1 * self.a / 2.0 * th1.sin()
                + self.m2 * yg2
                + self.m3 * self.c / 2.0 * th3.sin());
        t + v
    }

    /// The coupler point P = A + p (cos(θ2 + δ), sin(θ2 + δ)).
    fn coupler_point(&self, th1: f64, th2: f64) -> [f64; 2] {
        [
            self.a * th1.cos() + P * (th2 + DELTA).cos(),
            self.a * th1.sin() + P * (th2 + DELTA).sin(),
        ]
    }
}

#[test]
fn hand_position_analysis_closes_the_loop() {
    // The hand solution is consistent with the model's constraints (a check of the
    // truth itself), and the model names its constraints in order.
    assert_eq!(DrivenFourBar::CONSTRAINTS, ["loop_x", "loop_y", "drive"]);
    assert_eq!(FourBar::CONSTRAINTS, ["loop_x", "loop_y"]);
    let model = FourBar::default();
    let hand = Linkage::of_free(&model);
    for i in 0..36 {
        let th1 = 0.1745 * i as f64;
        let s = hand.state(0.0, th1, 1.3);
        let r = model.constraint_residuals(&s, &U);
        assert!(r.amax() < 1e-14, "θ1 = {th1}: residuals {r}");
        let v = model.violation(&s, &U);
        assert!(v.velocity < 1e-14, "θ1 = {th1}: velocity violation {v:?}");
    }
}

#[test]
fn driven_crank_traces_the_hand_coupler_curve() {
    // Crank driven at w = 2 rad/s for two full turns, RK4 with h = 1e-3 and projection;
    // 3 constraints on 3 coordinates: the configuration is fixed by t alone, and the
    // coupler point must follow the hand position analysis at every sampled crank angle.
    let model = DrivenFourBar::default();
    let hand = Linkage::of_driven(&model);
    let w = model.w;
    let start = hand.state(0.0, 0.0, w);
    let turn = 2.0 * std::f64::consts::PI / w;
    let times: Vec<f64> = (1..=240).map(|i| 2.0 * turn * i as f64 / 240.0).collect();
    let run = Simulation::new(&model, start)
        .run_at(&Projected::new(Rk4::new(1e-3)), &times)
        .unwrap();
    let (mut dp, mut dv) = (0.0f64, 0.0f64);
    for s in run.states() {
        let th1 = w * s.t;
        let want = hand.state(s.t, th1, w);
        let [px, py] = hand.coupler_point(s.q[0], s.q[1]);
        let [hx, hy] = hand.coupler_point(th1, want.q[1]);
        dp = dp.max((px - hx).abs()).max((py - hy).abs());
        // Angles agree modulo 2π (θ2, θ3 are continuous along the run).
        for i in 0..3 {
            let e = s.q[i] - want.q[i];
            dp = dp.max(e.sin().abs()).max((1.0 - e.cos()).abs());
        }
        dv = dv.max((s.qd - want.qd).amax());
    }
    // Measured: coupler point and angles within 6.2e-13, velocities within 3.4e-13.
    assert!(dp < 1e-11, "coupler path differs by {dp:e}");
    assert!(dv < 1e-11, "velocities differ by {dv:e}");
    assert!((run.last().q[0] - 4.0 * std::f64::consts::PI).abs() < 1e-11);
}

#[test]
fn projection_assembles_the_linkage_at_a_held_crank_angle() {
    // Consistent initial conditions at t = 0.8 s: the crank held at its driven angle
    // θ1 = w t with θ̇1 = w, the coupler and rocker guessed 0.05 rad off and at rest.
    // Projection moves only θ2, θ3 and must land on the hand solution.
    let model = DrivenFourBar::default();
    let hand = Linkage::of_driven(&model);
    let t = 0.8;
    let want = hand.state(t, model.w * t, model.w);
    let guess = State::new(
        t,
        want.q + SVector::from([0.0, 0.05, -0.05]),
        SVector::from([model.w, 0.0, 0.0]),
    );
    let s = model.project(&guess, &U, &[0], 1e-13).unwrap();
    assert_eq!(
        (s.q[0], s.qd[0]),
        (want.q[0], want.qd[0]),
        "held crank moved"
    );
    assert!(
        (s.q - want.q).amax() < 1e-13,
        "q = {}, want {}",
        s.q,
        want.q
    );
    assert!(
        (s.qd - want.qd).amax() < 1e-12,
        "q̇ = {}, want {}",
        s.qd,
        want.qd
    );
    assert!(model.constraint_residuals(&s, &U).amax() <= 1e-13);
}

#[test]
fn driving_multiplier_is_the_driving_torque() {
    // The constraint force on θ1 from `drive` (∂φ/∂θ1 = 1) is −λ_drive: the driving torque
    // τ. The loop constraints are workless (J_loop q̇ = 0), so the power balance is
    //   τ θ̇1 = −λ_drive w = d(T + V)/dt.
    // dE/dt by hand: E(t) = T + V of the hand kinematics at θ1 = w t, differentiated by the
    // sixth-order central difference
    //   (−E(t−3h) + 9E(t−2h) − 45E(t−h) + 45E(t+h) − 9E(t+2h) + E(t+3h)) / (60h).
    for model in [
        DrivenFourBar::default(),
        DrivenFourBar::new(1.0, 3.2, 2.4, 3.0, 0.8, 0.6, 2.1, 9.81, -3.5),
    ] {
        let hand = Linkage::of_driven(&model);
        let w = model.w;
        let e = |t: f64| hand.energy(&hand.state(t, w * t, w));
        let h = 1e-3;
        let (mut worst, mut peak) = (0.0f64, 0.0f64);
        for i in 0..48 {
            let t = (i as f64 + 0.37) * std::f64::consts::PI / (24.0 * w.abs());
            let de = (-e(t - 3.0 * h) + 9.0 * e(t - 2.0 * h) - 45.0 * e(t - h) + 45.0 * e(t + h)
                - 9.0 * e(t + 2.0 * h)
                + e(t + 3.0 * h))
                / (60.0 * h);
            let s = hand.state(t, w * t, w);
            let lambda = model.multipliers(&s, &U).unwrap();
            let torque = -lambda[2];
            worst = worst.max((torque * w - de).abs() / (1.0 + de.abs()));
            peak = peak.max(torque.abs());
            // The reaction on θ1 is the driving torque plus the crank-pin forces of the
            // loop; ∂loop/∂θ1 = (−a sin θ1, a cos θ1).
            let r = model.reaction_forces(&s, &U).unwrap();
            let pin = -(lambda[0] * -hand.a * s.q[0].sin() + lambda[1] * hand.a * s.q[0].cos());
            assert!((r[0] - (torque + pin)).abs() < 1e-12 * (1.0 + r[0].abs()));
            // The model's energy function is T + V here (L has no explicit t).
            let diff = (model.energy(&s, &U) - hand.energy(&s)).abs();
            assert!(diff < 1e-12 * (1.0 + hand.energy(&s).abs()));
        }
        // Measured: 4.1e-12 and 2.3e-12 (round-off of the finite difference).
        assert!(
            peak > 1.0,
            "the torque is not trivially small: max |τ| = {peak}"
        );
        assert!(worst < 5e-11, "τ w vs dE/dt: relative error {worst:e}");
    }
}

#[test]
fn free_linkage_conserves_energy_on_the_constraints() {
    // Released from rest at θ1 = 0.3 under gravity, 20 s of Dormand–Prince
    // (rtol = atol = 1e-12) with projection after each step.
    let model = FourBar::default();
    let hand = Linkage::of_free(&model);
    let start = hand.state(0.0, 0.3, 0.0);
    let e0 = hand.energy(&start);
    assert!((model.energy(&start, &U) - e0).abs() < 1e-12 * e0.abs());
    let run = Simulation::new(&model, start)
        .run(&Projected::new(DormandPrince::new(1e-12, 1e-12)), 20.0)
        .unwrap();
    let (mut de, mut drift) = (0.0f64, 0.0f64);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for s in run.states() {
        de = de.max((hand.energy(s) - e0).abs() / e0.abs());
        let v = model.violation(s, &U);
        drift = drift.max(v.position).max(v.velocity);
        lo = lo.min(s.q[0]);
        hi = hi.max(s.q[0]);
    }
    // It really moves: the crank swings through a wide arc (measured θ1 ∈ [−3.74, 0.3]).
    assert!(hi - lo > 3.5, "crank range [{lo}, {hi}]");
    // Measured: relative energy error 1.9e-12 over 5153 steps, violations within the
    // projection tolerance, 1e-12 relative to the loop's scale max|∂φ/∂θ| max|θ|, a
    // link length times angles of up to 3.7 rad.
    assert!(de < 2e-11, "relative energy error {de:e}");
    assert!(drift <= 1e-11, "constraint violation {drift:e}");
}

/// Exact derivatives against central differences (`common::derivatives`). At q = 0 the
/// loop's x row is zero (every sine vanishes) and the constrained accelerations do not
/// exist: the structured states are at the assembled linkage with the crank at 0, the
/// named ones assembled and moving.
#[test]
fn derivatives_match_finite_differences() {
    let free = FourBar::default();
    let hand = Linkage::of_free(&free);
    let base = hand.state(0.0, 0.0, 0.0).q;
    Derivatives::new("FourBar", &free)
        .structured_at(base)
        .random(3)
        .state(
            "assembled, crank at 0, turning",
            hand.state(0.0, 0.0, 2.0),
            U,
        )
        .state(
            "assembled, crank up, turning",
            hand.state(0.0, 1.6, -1.3),
            U,
        )
        .check();
    let driven = DrivenFourBar::default();
    let hand = Linkage::of_driven(&driven);
    Derivatives::new("DrivenFourBar", &driven)
        .structured_at(base)
        .random(3)
        .state(
            "assembled, crank at 0, driven",
            hand.state(0.0, 0.0, driven.w),
            U,
        )
        .state(
            "assembled at t = 0.7, driven",
            hand.state(0.7, 0.7 * driven.w, driven.w),
            U,
        )
        .check();
}
