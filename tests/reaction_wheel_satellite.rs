//! A satellite turned by a reaction wheel: a motor between the body and the wheel, written
//! as DSL.md says a motor between two bodies must be, with both statements
//!
//! ```text
//! torque  τ a on R_w;      torque −τ a on R_b;      a = R_b e_z, the wheel axis (fixed frame)
//! ```
//!
//! An internal torque cannot change the total angular momentum: that is the truth tested
//! here, with the motor torque an input τ(t) = τ0 sin(ω t) supplied by `Simulation::inputs`.
//! (Sidi, "Spacecraft Dynamics and Control", ch. 7; Hughes, "Spacecraft Attitude
//! Dynamics", ch. 3 for the gyrostat equations.)
//!
//! Semantics. `torque τ on R` adds Q_j += τ·∂ω/∂q̇_j, ω = angular_velocity(R) in the fixed
//! frame. With R_w = R_b R_z(α), ω_w = ω_b + α̇ a, so ∂ω_w/∂q̇_j − ∂ω_b/∂q̇_j = a δ_{j,α}: the
//! pair of torques gives Q = τ on the relative angle α and exactly 0 on every body
//! coordinate, however the body is oriented. (The wheel torque alone would give the body
//! coordinates a generalized force too: a torque from nowhere.)
//!
//! Planar case: body yaw ψ (inertia Jb about z, the wheel's mass included), wheel angle α
//! relative to the body (axial inertia Jw):
//!
//! ```text
//! T = ½ Jb ψ̇² + ½ Jw (ψ̇ + α̇)²,    Q = (0, τ),    M = [[Jb + Jw, Jw], [Jw, Jw]]
//! p_ψ = (Jb + Jw) ψ̇ + Jw α̇ = H   (the total angular momentum about z: ṗ_ψ = Q_ψ = 0)
//! Jw (ψ̈ + α̈) = τ                 (the wheel: p_α = Jw (ψ̇ + α̇), ṗ_α = τ)
//! ⇒ ψ̈ = −τ/Jb,   α̈ = τ (Jb + Jw)/(Jb Jw)
//! ```
//!
//! With S(t) = ∫₀ᵗ τ = τ0 (1 − cos ωt)/ω and S₂(t) = ∫₀ᵗ S = τ0 (t − sin(ωt)/ω)/ω:
//! ψ = ψ0 + ψ̇0 t − S₂/Jb and α = α0 + α̇0 t + S₂ (Jb + Jw)/(Jb Jw); from rest,
//! ψ − ψ0 = −Jw/(Jb + Jw) (α − α0): the body turns back by the wheel's turn times the ratio
//! of the inertias. The energy is T(t) of these rates.
//!
//! 3D case (a gyrostat): the body in z-y-x Euler angles (yaw a, pitch b, roll c),
//! R_b = R_z(a) R_y(b) R_x(c), principal moments B = diag(B1, B2, B3) without the wheel's;
//! the wheel on the body z axis, R_w = R_b R_z(α), moments diag(Wt, Wt, Ws). As in
//! `free_rigid_body.rs`, ω_b = G(q) q̇ with
//! G = [[−sin b, 0, 1], [cos b sin c, cos c, 0], [cos b cos c, −sin c, 0]]. The wheel is
//! axisymmetric, so its kinetic energy is ½ (ω_b + α̇ e_z)ᵀ W (ω_b + α̇ e_z) and, with
//! J = B + W:
//!
//! ```text
//! T   = ½ ω_bᵀ J ω_b + Ws α̇ ω3 + ½ Ws α̇²
//! M   = [[Gᵀ J G, Ws Gᵀ e_z], [Ws e_zᵀ G, Ws]]
//! H_b = J ω_b + Ws α̇ e_z,   H = R_b H_b                    (conserved: no external torque)
//! J ω̇_b + Ws α̈ e_z + ω_b × H_b = 0                         (Euler's equations of the whole)
//! Ws (ω̇3 + α̈) = τ,   p_α = Ws (ω3 + α̇) = p_α(0) + ∫₀ᵗ τ   (the wheel about its axis)
//! dT/dt = τ α̇                                               (the motor's power)
//! ```
//!
//! The attitude starts with H along the fixed z axis (as in `free_rigid_body.rs`): then
//! sin b = −H_b1/|H| = −J1 ω1/|H| (the wheel adds nothing about the body x axis), small
//! while the body turns mostly about its z axis (the major axis here), so the Euler angles
//! stay far from their singularity b = ±90° (measured |b| ≤ 0.2).

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::nalgebra::{Rotation3, Vector3};
use lagrange_runtime::prelude::*;

lagrangian! {
    /// A satellite turning about its z axis, a motor-driven reaction wheel on that axis.
    pub struct PlanarSatellite {
        parameters: Jb = 2.0, Jw = 0.05;
        coordinates: yaw, spin;
        inputs: tau;

        let Rb = rot_z(yaw);
        let Rw = Rb * rot_z(spin);
        let wb = body_angular_velocity(Rb);
        let ww = body_angular_velocity(Rw);
        let axis = Rb * [0, 0, 1];

        kinetic = Jb/2 * wb.z^2 + Jw/2 * ww.z^2;
        torque tau * axis on Rw;
        torque -tau * axis on Rb;
    }
}

lagrangian! {
    /// The same satellite with the motor's reaction on the body forgotten.
    pub struct WheelTorqueOnly {
        parameters: Jb = 2.0, Jw = 0.05;
        coordinates: yaw, spin;
        inputs: tau;

        let Rb = rot_z(yaw);
        let Rw = Rb * rot_z(spin);
        let wb = body_angular_velocity(Rb);
        let ww = body_angular_velocity(Rw);

        kinetic = Jb/2 * wb.z^2 + Jw/2 * ww.z^2;
        torque tau * (Rb * [0, 0, 1]) on Rw;
    }
}

lagrangian! {
    /// A rigid satellite (principal moments B1, B2, B3 without the wheel's) with a reaction
    /// wheel (axial moment Ws, transverse Wt) on its z axis; z-y-x Euler angles.
    pub struct Gyrostat {
        parameters: B1 = 0.9, B2 = 1.1, B3 = 1.4, Wt = 0.01, Ws = 0.02;
        coordinates: yaw, pitch, roll, spin;
        inputs: tau;

        let Rb = rot_z(yaw) * rot_y(pitch) * rot_x(roll);
        let Rw = Rb * rot_z(spin);
        let wb = body_angular_velocity(Rb);
        let ww = body_angular_velocity(Rw);
        let motor = Rb * [0, 0, tau];

        kinetic = inner(wb, diag(B1, B2, B3) * wb) / 2 + ww.inner(diag(Wt, Wt, Ws) * ww) / 2;
        torque motor on Rw;
        torque -motor on Rb;
    }
}

type V1 = SVector<f64, 1>;
type V2 = SVector<f64, 2>;
type V3 = SVector<f64, 3>;
type V4 = SVector<f64, 4>;
type M2 = SMatrix<f64, 2, 2>;
type M3 = SMatrix<f64, 3, 3>;
type M4 = SMatrix<f64, 4, 4>;

/// The motor torque τ(t) = τ0 sin(ω t) of the planar runs.
const TAU0: f64 = 0.1;
const W_PLANAR: f64 = 1.5;

fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: got {got:e}, want {want:e}"
    );
}

/// S(t) = ∫₀ᵗ τ0 sin(ω s) ds and S₂(t) = ∫₀ᵗ S.
fn torque_integrals(tau0: f64, w: f64, t: f64) -> (f64, f64) {
    (
        tau0 * (1.0 - (w * t).cos()) / w,
        tau0 * (t - (w * t).sin() / w) / w,
    )
}

/// The exact planar state at t from (ψ0, α0, ψ̇0, α̇0) under τ0 sin(ω t).
fn planar_exact(sat: &PlanarSatellite, start: &State<2>, t: f64) -> State<2> {
    let (s1, s2) = torque_integrals(TAU0, W_PLANAR, t);
    let k = (sat.Jb + sat.Jw) / (sat.Jb * sat.Jw);
    let q = V2::new(
        start.q[0] + start.qd[0] * t - s2 / sat.Jb,
        start.q[1] + start.qd[1] * t + k * s2,
    );
    let qd = V2::new(start.qd[0] - s1 / sat.Jb, start.qd[1] + k * s1);
    State::new(t, q, qd)
}

#[test]
fn planar_motor_torques_act_on_the_relative_angle_only() {
    let sat = PlanarSatellite::default();
    let alone = WheelTorqueOnly::default();
    let (jb, jw) = (sat.Jb, sat.Jw);
    for (yaw, spin, yawd, spind, tau) in [
        (0.0, 0.0, 0.0, 0.0, 0.7),
        (0.4, -2.2, 0.3, 15.0, -0.25),
        (-3.0, 7.1, -1.2, -40.0, 1.9),
    ] {
        let q: V2 = PlanarSatelliteCoordinates { yaw, spin }.into();
        let qd: V2 = PlanarSatelliteCoordinates {
            yaw: yawd,
            spin: spind,
        }
        .into();
        let s = State::new(0.0, q, qd);
        let u: V1 = PlanarSatelliteInputs { tau }.into();

        let f = sat.generalized_forces(&s, &u);
        assert!(f[0].abs() <= 1e-14 * tau.abs(), "Q_yaw = {}", f[0]);
        assert_close(f[1], tau, 1e-14, "Q_spin");
        let m = sat.mass_matrix(&s, &u);
        let want_m = M2::new(jb + jw, jw, jw, jw);
        assert!((m - want_m).amax() <= 1e-14, "M = {m}");
        let qdd = sat.accelerations(&s, &u).unwrap();
        assert_close(qdd[0], -tau / jb, 1e-13, "ψ̈");
        assert_close(qdd[1], tau * (jb + jw) / (jb * jw), 1e-13, "α̈");
        let p = sat.momenta(&s, &u);
        assert_close(p[0], (jb + jw) * yawd + jw * spind, 1e-14, "p_yaw = H");
        assert_close(p[1], jw * (yawd + spind), 1e-14, "p_spin");

        // Without the reaction, the body coordinate gets the torque too: Q = (τ, τ), the
        // body does not turn back (ψ̈ = 0) and H = p_yaw grows at the rate τ.
        let f = alone.generalized_forces(&s, &u);
        assert_close(f[0], tau, 1e-14, "Q_yaw without the reaction");
        assert_close(f[1], tau, 1e-14, "Q_spin without the reaction");
        let qdd = alone.accelerations(&s, &u).unwrap();
        assert!(qdd[0].abs() <= 1e-13 * (tau / jb).abs(), "ψ̈ = {}", qdd[0]);
        assert_close(qdd[1], tau / jw, 1e-13, "α̈ without the reaction");
    }
}

/// RK4 with h = 0.01 over 10 s (1000 steps), sampled every 0.1 s. RK4 integrates the
/// time-only forcing with Simpson-like quadrature; measured in a reference implementation of
/// the same steps: ≤ 7e-11 relative error in angles and rates.
#[test]
fn planar_motion_matches_the_closed_form_and_keeps_the_momentum() {
    let sat = PlanarSatellite::default();
    let (jb, jw) = (sat.Jb, sat.Jw);
    let starts = [
        // From rest: the body turns back by Jw/(Jb + Jw) of the wheel's turn.
        State::new(0.0, V2::new(0.2, -0.4), V2::zeros()),
        // Already turning, the wheel spinning backwards.
        State::new(0.0, V2::new(1.0, 0.5), V2::new(0.3, -2.0)),
    ];
    let times: Vec<f64> = (1..=100).map(|i| 0.1 * i as f64).collect();
    for (n, s0) in starts.into_iter().enumerate() {
        let h0 = (jb + jw) * s0.qd[0] + jw * s0.qd[1];
        let run = Simulation::new(&sat, s0)
            .inputs(|t, _| V1::new(TAU0 * (W_PLANAR * t).sin()))
            .run_at(&Rk4::new(0.01), &times)
            .unwrap();
        assert_eq!(run.len(), times.len());
        for s in run.states() {
            let u = V1::new(TAU0 * (W_PLANAR * s.t).sin());
            let want = planar_exact(&sat, &s0, s.t);
            assert_close(s.q[0], want.q[0], 1e-9, "yaw");
            assert_close(s.q[1], want.q[1], 1e-9, "wheel angle");
            assert_close(s.qd[0], want.qd[0], 1e-9, "yaw rate");
            assert_close(s.qd[1], want.qd[1], 1e-9, "wheel rate");
            // The total angular momentum does not move while the motor works.
            let h = sat.momenta(s, &u)[0];
            assert!(
                (h - h0).abs() <= 1e-12 * (1.0 + h0.abs()),
                "H = {h}, H0 = {h0}"
            );
            // The energy is T of the exact rates.
            let t_exact =
                jb / 2.0 * want.qd[0].powi(2) + jw / 2.0 * (want.qd[0] + want.qd[1]).powi(2);
            assert_close(sat.energy(s, &u), t_exact, 1e-9, "T");
            if n == 0 {
                let ratio = -jw / (jb + jw);
                assert_close(
                    s.q[0] - s0.q[0],
                    ratio * (s.q[1] - s0.q[1]),
                    1e-9,
                    "ψ − ψ0 = −Jw/(Jb + Jw) (α − α0)",
                );
            }
        }
        // Not a trivial run: the wheel has turned by radians, the body by a fraction of one.
        let end = run.last();
        assert!((end.q[1] - s0.q[1]).abs() > 1.0);
    }
}

// ----------------------------------------------------------------------------------------
// The 3D gyrostat
// ----------------------------------------------------------------------------------------

/// The motor torque τ(t) = τ0 sin(ω t) of the 3D runs.
const TAU0_3D: f64 = 0.1;
const W_3D: f64 = 1.0;

fn motor_torque(t: f64) -> V1 {
    V1::new(TAU0_3D * (W_3D * t).sin())
}

/// G(q) with ω_b = G (ȧ, ḃ, ċ).
fn kinematic_matrix(q: &V4) -> M3 {
    let (sb, cb) = q[1].sin_cos();
    let (sc, cc) = q[2].sin_cos();
    M3::new(-sb, 0.0, 1.0, cb * sc, cc, 0.0, cb * cc, -sc, 0.0)
}

fn euler_rates(s: &State<4>) -> V3 {
    V3::new(s.qd[0], s.qd[1], s.qd[2])
}

fn body_rates(s: &State<4>) -> V3 {
    kinematic_matrix(&s.q) * euler_rates(s)
}

/// Ġ q̇, so that ω̇_b = G q̈ + Ġ q̇.
fn kinematic_bias(s: &State<4>) -> V3 {
    let (sb, cb) = s.q[1].sin_cos();
    let (sc, cc) = s.q[2].sin_cos();
    let (ad, bd, cd) = (s.qd[0], s.qd[1], s.qd[2]);
    V3::new(
        -ad * bd * cb,
        -ad * bd * sb * sc + ad * cd * cb * cc - bd * cd * sc,
        -ad * bd * sb * cc - ad * cd * cb * sc - bd * cd * cc,
    )
}

/// The Euler-angle rates of the body angular velocity ω_b at attitude (a, b, c).
fn rates_of(q: &V4, w: &V3) -> V3 {
    let (sb, cb) = q[1].sin_cos();
    let (sc, cc) = q[2].sin_cos();
    let ad = (w[1] * sc + w[2] * cc) / cb;
    let bd = w[1] * cc - w[2] * sc;
    V3::new(ad, bd, w[0] + ad * sb)
}

fn rotation(q: &V4) -> Rotation3<f64> {
    Rotation3::from_axis_angle(&Vector3::z_axis(), q[0])
        * Rotation3::from_axis_angle(&Vector3::y_axis(), q[1])
        * Rotation3::from_axis_angle(&Vector3::x_axis(), q[2])
}

/// J = B + W, the moments of the whole about the body axes.
fn total_inertia(g: &Gyrostat) -> V3 {
    V3::new(g.B1 + g.Wt, g.B2 + g.Wt, g.B3 + g.Ws)
}

/// H_b = J ω_b + Ws α̇ e_z, in body axes.
fn body_momentum(g: &Gyrostat, s: &State<4>) -> V3 {
    total_inertia(g).component_mul(&body_rates(s)) + V3::new(0.0, 0.0, g.Ws * s.qd[3])
}

/// H = R_b H_b, in the fixed frame.
fn angular_momentum(g: &Gyrostat, s: &State<4>) -> V3 {
    rotation(&s.q) * body_momentum(g, s)
}

/// T = ½ ω_bᵀ B ω_b + ½ (ω_b + α̇ e_z)ᵀ W (ω_b + α̇ e_z).
fn kinetic(g: &Gyrostat, s: &State<4>) -> f64 {
    let w = body_rates(s);
    let ww = w + V3::new(0.0, 0.0, s.qd[3]);
    0.5 * (g.B1 * w[0] * w[0] + g.B2 * w[1] * w[1] + g.B3 * w[2] * w[2])
        + 0.5 * (g.Wt * (ww[0] * ww[0] + ww[1] * ww[1]) + g.Ws * ww[2] * ww[2])
}

/// A state from the attitude (a, b, c), the wheel angle, ω_b and α̇.
fn gyro_state(q: V4, w: V3, spind: f64) -> State<4> {
    let r = rates_of(&q, &w);
    State::new(0.0, q, V4::new(r[0], r[1], r[2], spind))
}

/// Irregular moving states (a, b, c, α, ȧ, ḃ, ċ, α̇), |b| ≤ 1.2.
const STATES: [[f64; 8]; 4] = [
    [0.3, 0.4, -1.1, 2.0, 1.7, 0.9, -0.4, 30.0],
    [-2.1, 1.2, 0.6, -5.0, -0.4, -2.3, 1.25, -12.0],
    [1.4, -0.9, 3.0, 0.0, 2.6, 0.35, -2.5, 0.0],
    [0.0, -1.2, 0.2, 11.0, 0.05, 1.9, 0.7, 55.0],
];

fn from_row(r: [f64; 8]) -> State<4> {
    State::new(
        0.0,
        V4::new(r[0], r[1], r[2], r[3]),
        V4::new(r[4], r[5], r[6], r[7]),
    )
}

fn gyrostats() -> [Gyrostat; 2] {
    [
        Gyrostat::default(),
        Gyrostat::new(0.35, 0.8, 0.6, 0.004, 0.011),
    ]
}

#[test]
fn gyrostat_motor_gives_a_generalized_force_on_the_wheel_angle_only() {
    // However the body is oriented and moving, the pair of torques does virtual work only
    // through the relative angle: Q = (0, 0, 0, τ).
    for g in gyrostats() {
        for (row, tau) in STATES.into_iter().zip([0.7, -0.25, 1.9, 0.05]) {
            let s = from_row(row);
            let u: V1 = GyrostatInputs { tau }.into();
            let f = g.generalized_forces(&s, &u);
            let want = V4::new(0.0, 0.0, 0.0, tau);
            assert!(
                (f - want).amax() <= 1e-13 * tau.abs(),
                "Q = {f} at {row:?}, want {want}"
            );
        }
    }
}

#[test]
fn gyrostat_mass_matrix_momenta_and_energy_match_the_closed_form() {
    let u = V1::zeros();
    for g in gyrostats() {
        let j = M3::from_diagonal(&total_inertia(&g));
        for row in STATES {
            let s = from_row(row);
            let gm = kinematic_matrix(&s.q);
            let gjg = gm.transpose() * j * gm;
            let want = M4::from_fn(|r, c| match (r, c) {
                (3, 3) => g.Ws,
                (3, k) | (k, 3) => g.Ws * gm[(2, k)],
                (r, c) => gjg[(r, c)],
            });
            let got = g.mass_matrix(&s, &u);
            assert!(
                (got - want).amax() <= 1e-13 * want.amax(),
                "M at {row:?}: got {got}, want {want}"
            );
            // p = M q̇ (T is quadratic in q̇); p_spin = Ws (ω3 + α̇).
            let p = g.momenta(&s, &u);
            let want_p = want * s.qd;
            assert!((p - want_p).amax() <= 1e-12 * want_p.amax());
            let w = body_rates(&s);
            assert_close(p[3], g.Ws * (w[2] + s.qd[3]), 1e-13, "p_spin");
            // The yaw momentum is the fixed-frame z component of H.
            let h = angular_momentum(&g, &s);
            assert!((p[0] - h[2]).abs() <= 1e-12 * h.norm());
            assert_close(g.energy(&s, &u), kinetic(&g, &s), 1e-13, "T");
        }
    }
}

#[test]
fn gyrostat_accelerations_satisfy_the_gyrostat_equations() {
    for g in gyrostats() {
        let j = total_inertia(&g);
        for (row, tau) in STATES.into_iter().zip([0.7, -0.25, 1.9, 0.05]) {
            let s = from_row(row);
            let u: V1 = GyrostatInputs { tau }.into();
            let qdd = g.accelerations(&s, &u).unwrap();
            let w = body_rates(&s);
            let wd = kinematic_matrix(&s.q) * V3::new(qdd[0], qdd[1], qdd[2]) + kinematic_bias(&s);
            let hb = body_momentum(&g, &s);
            // The whole: J ω̇ + Ws α̈ e_z + ω × H_b = 0.
            let whole = j.component_mul(&wd) + V3::new(0.0, 0.0, g.Ws * qdd[3]) + w.cross(&hb);
            // The wheel about its axis: Ws (ω̇3 + α̈) = τ.
            let wheel = g.Ws * (wd[2] + qdd[3]) - tau;
            let scale = j.amax() * w.norm_squared() + hb.norm() * w.norm() + tau.abs();
            assert!(
                whole.amax() <= 1e-11 * scale,
                "J ω̇ + Ws α̈ e_z + ω × H_b = {whole} at {row:?} (scale {scale:e})"
            );
            assert!(
                wheel.abs() <= 1e-11 * scale,
                "Ws (ω̇3 + α̈) − τ = {wheel:e} at {row:?}"
            );
        }
    }
}

/// Started from rest with the body level, the 3D model turns about the body z axis only,
/// exactly as the planar one with Jb = B3, Jw = Ws.
#[test]
fn gyrostat_from_rest_moves_like_the_planar_satellite() {
    let g = Gyrostat::default();
    let (jb, jw) = (g.B3, g.Ws);
    let q0: V4 = GyrostatCoordinates {
        yaw: 0.4,
        pitch: 0.0,
        roll: 0.0,
        spin: -1.0,
    }
    .into();
    let s0 = State::new(0.0, q0, V4::zeros());
    let times: Vec<f64> = (1..=40).map(|i| 0.1 * i as f64).collect();
    let run = Simulation::new(&g, s0)
        .inputs(|t, _| motor_torque(t))
        .run_at(&Rk4::new(4e-3), &times)
        .unwrap();
    let k = (jb + jw) / (jb * jw);
    for s in run.states() {
        let (s1, s2) = torque_integrals(TAU0_3D, W_3D, s.t);
        assert!(
            s.q[1].abs() < 1e-12 && s.q[2].abs() < 1e-12,
            "tilted: {}",
            s.q
        );
        assert_close(s.q[0], q0[0] - s2 / jb, 1e-9, "yaw");
        assert_close(s.q[3], q0[3] + k * s2, 1e-9, "spin");
        assert_close(s.qd[0], -s1 / jb, 1e-9, "yaw rate");
        assert_close(s.qd[3], k * s1, 1e-9, "spin rate");
    }
}

/// The body tumbling about its major axis, the wheel at rest relative to it, then the
/// motor runs τ = 0.1 sin t N·m for 8 s: RK4, 2000 steps of 4 ms, sampled at each. The
/// wheel's axial momentum follows p_α(0) + ∫τ, the body answers, and H stays put. Measured
/// in a reference implementation of the same RK4 on the gyrostat equations: |ΔH| ≤ 3.4e-14
/// |H|, p_α off its closed form by ≤ 1.8e-14, T − T(0) − ∫τ α̇ dt (Simpson on the samples)
/// ≤ 5.1e-12 while T goes from 0.069 to 0.401 J; |pitch| ≤ 0.196.
#[test]
fn gyrostat_keeps_its_angular_momentum_while_the_motor_works() {
    let g = Gyrostat::default();
    let j = total_inertia(&g);
    let w0 = V3::new(0.05, -0.08, 0.3);
    let hb0 = j.component_mul(&w0);
    // Attitude with H along the fixed z axis, yaw 0.3, wheel angle 0, wheel at rest.
    let n = hb0.normalize();
    let q0 = V4::new(0.3, -n[0].asin(), n[1].atan2(n[2]), 0.0);
    let s0 = gyro_state(q0, w0, 0.0);
    let h0 = angular_momentum(&g, &s0);
    let h_norm = hb0.norm();
    assert!((h0 - V3::new(0.0, 0.0, h_norm)).amax() <= 1e-14 * h_norm);
    let u0 = motor_torque(0.0);
    let p_spin0 = g.momenta(&s0, &u0)[3];
    let t0 = g.energy(&s0, &u0);
    assert_close(t0, kinetic(&g, &s0), 1e-14, "T(0)");

    const STEPS: usize = 2000;
    let h = 4e-3;
    let times: Vec<f64> = (1..=STEPS).map(|i| h * i as f64).collect();
    let run = Simulation::new(&g, s0)
        .inputs(|t, _| motor_torque(t))
        .run_at(&Rk4::new(h), &times)
        .unwrap();
    assert_eq!(run.len(), STEPS);
    let states: Vec<State<4>> = std::iter::once(s0)
        .chain(run.states().iter().copied())
        .collect();

    let (mut dh, mut dp, mut pitch, mut spin_rate) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for s in &states {
        let u = motor_torque(s.t);
        dh = dh.max((angular_momentum(&g, s) - h0).amax());
        let (s1, _) = torque_integrals(TAU0_3D, W_3D, s.t);
        dp = dp.max((g.momenta(s, &u)[3] - (p_spin0 + s1)).abs());
        pitch = pitch.max(s.q[1].abs());
        spin_rate = spin_rate.max(s.qd[3].abs());
    }
    // The energy changes by the motor's work ∫ τ α̇ dt (Simpson's rule on the samples).
    let power: Vec<f64> = states
        .iter()
        .map(|s| motor_torque(s.t)[0] * s.qd[3])
        .collect();
    let (mut work, mut de) = (0.0f64, 0.0f64);
    for k in (0..STEPS).step_by(2) {
        work += h / 3.0 * (power[k] + 4.0 * power[k + 1] + power[k + 2]);
        let e = g.energy(&states[k + 2], &motor_torque(states[k + 2].t));
        de = de.max((e - t0 - work).abs());
    }
    let t_end = g.energy(&states[STEPS], &motor_torque(states[STEPS].t));
    println!(
        "gyrostat: |ΔH|/|H| = {:.2e}, p_spin error {dp:.2e}, energy − work {de:.2e}, T {t0:.4} → {t_end:.4}, max |pitch| {pitch:.3}, max |α̇| {spin_rate:.2}",
        dh / h_norm
    );
    assert!(dh <= 1e-11 * h_norm, "angular momentum error {dh:e}");
    assert!(dp <= 1e-11, "p_spin off p_spin(0) + ∫τ by {dp:e}");
    assert!(de <= 1e-10, "energy − work = {de:e}");
    // The motor did real work and spun the wheel up; the attitude stayed far from gimbal lock.
    assert!(t_end - t0 > 0.1, "T {t0} → {t_end}");
    assert!(spin_rate > 1.0, "wheel rate {spin_rate}");
    assert!(pitch < 0.3, "pitch {pitch}");
}

/// Exact derivatives against central differences (`common::derivatives`), at structured
/// and random states (pitch well inside ±90°) and tumbling about the major axis.
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("PlanarSatellite", &PlanarSatellite::default())
        .standard()
        .check();
    Derivatives::new("WheelTorqueOnly", &WheelTorqueOnly::default())
        .standard()
        .check();
    let g = Gyrostat::default();
    let w0 = V3::new(0.05, -0.08, 0.3);
    let n = total_inertia(&g).component_mul(&w0).normalize();
    let q0 = V4::new(0.3, -n[0].asin(), n[1].atan2(n[2]), 0.0);
    Derivatives::new("Gyrostat", &g)
        .standard()
        .state(
            "tumbling about the major axis",
            gyro_state(q0, w0, 0.0),
            motor_torque(0.5),
        )
        .check();
}
