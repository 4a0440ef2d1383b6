//! The two-link spatial arm of DSL.md, written with rotations, following a smooth
//! reference with computed torque.
//!
//! Link 1 turns about the vertical (yaw ψ); link 2 sits on a pitch joint at height l1 and
//! pitches up from the horizontal (θ). Its orientation is the product R2 = R_z(ψ) R_y(−θ),
//! its angular velocity `body_angular_velocity(R2)`, its centre of mass p2 = (0, 0, l1) +
//! R2 (a2, 0, 0): the model is the textbook's T = ½ m |ṗ|² + ½ ωᵀ Γ ω, nothing expanded by
//! hand. The rotation couples the joints: the yaw inertia M11(θ) = I1z + (m2 a2² + I2z)
//! cos²θ + I2x sin²θ changes with the pitch, so a yawing arm feels a centrifugal torque
//! ½ M11'(θ) ψ̇² that swings link 2 toward the horizontal, and pitching while yawing gives
//! a Coriolis torque −M11'(θ) θ̇ ψ̇ on the yaw joint.
//!
//! Computed torque cancels all of it: with the reference q_d(t) and e = q_d − q it commands
//! v = q̈_d + k_d ė + k_p e and applies τ = M(q) v + (Coriolis, gravity, friction), exactly
//! what `inverse_dynamics` returns for q̈ = v. The error then obeys ë + k_d ė + k_p e = 0
//! in both joints, decoupled, critically damped for k_p = ω², k_d = 2ω.

mod common;

use common::{figure, Panel, SeriesLabelPosition};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Simulation};

lagrangian! {
    /// Two-link spatial arm: a yaw joint about the vertical, a pitch joint, rigid links.
    pub struct SpatialArm {
        parameters: m2 = 0.8 [kg], l1 = 0.5 [m], a2 = 0.2 [m], I1z = 0.01 [kg*m^2],
                    I2x = 0.01 [kg*m^2], I2y = 0.015 [kg*m^2], I2z = 0.015 [kg*m^2],
                    g = 9.81 [m/s^2], c = 0.05 [N*m*s];
        coordinates: yaw [rad], pitch [rad];
        inputs: tau1 [N*m], tau2 [N*m];

        let R1 = rot_z(yaw);                       // link 1 turns about the vertical axis
        let R2 = R1 * rot_y(-pitch);               // link 2 pitches up from the horizontal
        let p2 = [0, 0, l1] + R2 * [a2, 0, 0];     // centre of mass of link 2
        let w1 = body_angular_velocity(R1);
        let w2 = body_angular_velocity(R2);

        kinetic = I1z/2 * w1.z^2
                + m2/2 * dot(p2)^2 + inner(w2, diag(I2x, I2y, I2z) * w2) / 2;
        potential = m2 * g * p2.z;
        dissipation = c/2 * (dot(yaw)^2 + dot(pitch)^2);
        force tau1 on yaw;
        force tau2 on pitch;
    }
}

type V2 = SVector<f64, 2>;

/// The reference (q_d, q̇_d, q̈_d) at time t: the arm sweeps ±86° in yaw while it nods
/// between −17° and 52° in pitch, at an unrelated frequency.
fn reference(t: f64) -> [V2; 3] {
    let (w1, w2) = (0.9, 1.7);
    let (s1, c1) = (w1 * t).sin_cos();
    let (s2, c2) = (w2 * t).sin_cos();
    [
        V2::new(1.5 * s1, 0.3 + 0.6 * c2),
        V2::new(1.5 * w1 * c1, -0.6 * w2 * s2),
        V2::new(-1.5 * w1 * w1 * s1, -0.6 * w2 * w2 * c2),
    ]
}

/// Error dynamics ë + 2ω ė + ω² e = 0, critically damped at ω = 8 rad/s.
const OMEGA: f64 = 8.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arm = SpatialArm::default();
    // The computed-torque law. The inputs (τ1, τ2) are torques on (yaw, pitch) themselves,
    // so the generalized force that `inverse_dynamics` returns (with zero input) is u.
    let law = |t: f64, s: &State<2>| -> V2 {
        let [q, qd, qdd] = reference(t);
        let v = qdd + (qd - s.qd) * (2.0 * OMEGA) + (q - s.q) * (OMEGA * OMEGA);
        arm.inverse_dynamics(s, &v, &V2::zeros())
    };
    // The arm starts at rest with yaw = pitch = 0, stretched out horizontally; the
    // reference starts 0.9 rad higher and already yawing.
    let start = State::at_rest(V2::zeros());
    let times: Vec<f64> = (0..=1000).map(|i| f64::from(i) * 0.01).collect();
    let run = Simulation::new(&arm, start)
        .inputs(&law)
        .run_at(&DormandPrince::new(1e-10, 1e-12), &times)?;

    let states = run.states();
    let error = |s: &State<2>| reference(s.t)[0] - s.q;
    // The torque that would hold the arm still where it is: gravity on the pitch joint.
    let holding =
        |s: &State<2>| arm.inverse_dynamics(&State::at_rest(s.q), &V2::zeros(), &V2::zeros());
    let largest = |from: f64, f: &dyn Fn(&State<2>) -> f64| {
        states
            .iter()
            .filter(|s| s.t >= from)
            .map(f)
            .fold(0.0, f64::max)
    };
    let e_late = largest(3.0, &|s| error(s).amax());
    // The ideal error of the pitch joint, (e₀ + ω e₀ t) e^(−ω t) (ė₀ = 0 there), at 3 s.
    let ideal = error(&start)[1] * (1.0 + OMEGA * 3.0) * (-OMEGA * 3.0).exp();
    let (k_p, k_d) = (OMEGA * OMEGA, 2.0 * OMEGA);
    println!("computed torque on the spatial arm, k_p = {k_p}/s², k_d = {k_d}/s");
    let tau_late = largest(3.0, &|s| law(s.t, s).amax());
    let tau0 = law(0.0, &start).amax();
    println!("largest |τ|: {tau0:.2} N m at the start, {tau_late:.3} N m after 3 s");
    println!(
        "largest |e| after 3 s: {e_late:.1e} rad (ideal decay of the pitch error: {ideal:.1e} rad)"
    );
    let (t_end, e_end) = (run.last().t, error(run.last()).amax());
    println!("|e| at t = {t_end} s: {e_end:.1e} rad");
    if e_late > 1e-6 {
        return Err("the arm did not converge to the reference".into());
    }

    let series = |f: &dyn Fn(&State<2>) -> f64| -> Vec<(f64, f64)> {
        states.iter().map(|s| (s.t, f(s))).collect()
    };
    // The reference as dots every 0.25 s, so that the arm's line stays visible under it.
    let sparse = |i: usize| {
        states
            .iter()
            .step_by(25)
            .map(move |s| (s.t, reference(s.t)[0][i]))
    };
    figure("spatial_arm", (1400, 1100), |root| {
        let (top, bottom) = root.split_vertically(550);
        let (left, right) = bottom.split_horizontally(700);
        Panel::new("Joint angles: reference and arm", "t [s]", "angle [rad]")
            .line("yaw ψ", series(&|s| s.q[0]))
            .points("ψ reference", sparse(0))
            .line("pitch θ", series(&|s| s.q[1]))
            .points("θ reference", sparse(1))
            .legend(SeriesLabelPosition::LowerLeft)
            .draw(&top)?;
        Panel::new("Tracking error", "t [s]", "|e| [rad]")
            .log_y()
            .line("|e| yaw", series(&|s| error(s)[0].abs()))
            .line("|e| pitch", series(&|s| error(s)[1].abs()))
            .draw(&left)?;
        Panel::new("Joint torques", "t [s]", "τ [N m]")
            .line("τ1 (yaw)", series(&|s| law(s.t, s)[0]))
            .line("τ2 (pitch)", series(&|s| law(s.t, s)[1]))
            .line("τ2 holding still (gravity)", series(&|s| holding(s)[1]))
            .draw(&right)
    })?;
    Ok(())
}
