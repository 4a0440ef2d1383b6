//! Task-space control of a real robot read from its URDF: the Franka Emika Panda draws a
//! horizontal circle with its hand.
//!
//! ```sh
//! cargo run --release --example panda_task_space
//! ```
//!
//! The model is the Panda's URDF file (`tests/robots/panda.urdf`), imported at compile time
//! by `urdf:` (nine coordinates: seven arm joints, two fingers, the second finger tied to
//! the first by a mimic constraint). Nothing about the arm is typed by hand: the position
//! of the hand's tool centre point is the `let` `panda_hand_tcp_p` that the import declares
//! for the link `panda_hand_tcp`, and `Panda::jacobians` gives its exact Jacobian J = ∂p/∂q
//! and drift J̇ q̇, so that p̈ = J q̈ + J̇ q̇.
//!
//! The controller is resolved-acceleration control (computed torque in task space):
//!
//! 1. the desired hand acceleration, from the circle p_d(t) and the tracking error:
//!    a* = p̈_d + K_d (ṗ_d − ṗ) + K_p (p_d − p), with ṗ = J q̇;
//! 2. joint accelerations that produce it: q̈* = J⁺ (a* − J̇ q̇) + (I − J⁺ J) q̈₀. J is 3×7
//!    (the fingers do not move the hand), J⁺ = Jᵀ (J Jᵀ)⁻¹ its pseudo-inverse, and q̈₀ a
//!    joint-space law (a spring to a comfortable posture, joint damping) projected onto the
//!    null space of J: the four joint motions that do not move the hand;
//! 3. the torques that produce q̈*: τ = `inverse_dynamics`(q̈*), the model's M q̈* + Coriolis,
//!    gravity and joint friction.
//!
//! The hand's error then obeys ë + K_d ė + K_p e = 0 exactly, whatever the arm does in its
//! null space: with K_p = ω², K_d = 2ω it decays critically damped. The hand starts on the
//! circle but at rest, 0.31 m/s slower than the reference; after the first period (2 s) the
//! error is what the integrator leaves, far below a micrometre. The example prints the
//! RMS and largest tracking error after the first period and checks that it stays below a
//! micrometre, so it fails loudly if the model or its Jacobians are wrong (leaving out the
//! drift J̇ q̇ alone gives a millimetre). It also prints how much of the joint limits of the
//! file (`Panda::JOINT_LIMITS`: position, speed, effort) the motion uses. It writes
//! `target/plots/panda_task_space.png`: the tracking error against its closed form, the
//! torques, and the arm seen from above and from the side.

mod common;

use common::{figure, Panel, SeriesLabelPosition};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Simulation};
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

lagrangian! {
    /// The Franka Emika Panda from its URDF: a motor torque on each arm joint and a force on
    /// each finger. With units on the inputs, the whole model is dimension-checked.
    pub struct Panda {
        urdf: "tests/robots/panda.urdf";
        inputs: tau1 [N*m], tau2 [N*m], tau3 [N*m], tau4 [N*m], tau5 [N*m], tau6 [N*m],
                tau7 [N*m], f1 [N], f2 [N];
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        dissipation = urdf_dissipation;
        force tau1 on panda_joint1;
        force tau2 on panda_joint2;
        force tau3 on panda_joint3;
        force tau4 on panda_joint4;
        force tau5 on panda_joint5;
        force tau6 on panda_joint6;
        force tau7 on panda_joint7;
        force f1 on panda_finger_joint1;
        force f2 on panda_finger_joint2;
    }
}

type V3 = SVector<f64, 3>;
type Q = SVector<f64, 9>;

/// Radius (m) and period (s) of the circle.
const RADIUS: f64 = 0.1;
const PERIOD: f64 = 2.0;
/// The hand's error dynamics ë + 2ω ė + ω² e = 0, critically damped at ω = 20 rad/s.
const OMEGA: f64 = 20.0;
/// The null-space posture law: a spring of ω_n² and damping 2ω_n, ω_n = 5 rad/s.
const OMEGA_POSTURE: f64 = 5.0;
/// How long the arm is simulated (s).
const DURATION: f64 = 3.0 * PERIOD;

/// Franka's "ready" posture, comfortably inside every joint limit, fingers half open.
fn ready() -> Q {
    PandaCoordinates {
        panda_joint1: 0.0,
        panda_joint2: -FRAC_PI_4,
        panda_joint3: 0.0,
        panda_joint4: -3.0 * FRAC_PI_4,
        panda_joint5: 0.0,
        panda_joint6: FRAC_PI_2,
        panda_joint7: FRAC_PI_4,
        panda_finger_joint1: 0.02,
        panda_finger_joint2: 0.02,
    }
    .into()
}

/// The circle, in a horizontal plane through `start`, which it passes at t = 0.
struct Circle {
    centre: V3,
}

impl Circle {
    fn through(start: V3) -> Self {
        Circle {
            centre: start - V3::new(RADIUS, 0.0, 0.0),
        }
    }

    /// (p_d, ṗ_d, p̈_d) at time t.
    fn at(&self, t: f64) -> [V3; 3] {
        let w = 2.0 * PI / PERIOD;
        let (s, c) = (w * t).sin_cos();
        [
            self.centre + V3::new(RADIUS * c, RADIUS * s, 0.0),
            V3::new(-RADIUS * w * s, RADIUS * w * c, 0.0),
            V3::new(-RADIUS * w * w * c, -RADIUS * w * w * s, 0.0),
        ]
    }
}

/// The resolved-acceleration law: the inputs (joint torques, finger forces) that make the
/// hand follow `circle` while the rest of the arm settles at `posture`.
fn control(panda: &Panda, circle: &Circle, posture: &Q, t: f64, s: &State<9>) -> Q {
    let none = Q::zeros();
    let p = panda.lets(s, &none).panda_hand_tcp_p;
    let hand = panda.jacobians(s, &none).panda_hand_tcp_p;
    // 1. The hand acceleration wanted.
    let [p_d, v_d, a_d] = circle.at(t);
    let v = hand.matrix * s.qd;
    let a = a_d + (v_d - v) * (2.0 * OMEGA) + (p_d - p) * (OMEGA * OMEGA);
    // 2. Arm joint accelerations that give it; J's last two columns (fingers) are zero.
    let j = hand.matrix.fixed_columns::<7>(0).into_owned();
    let pinv = j.transpose()
        * (j * j.transpose())
            .try_inverse()
            .expect("the hand is away from singular postures");
    let posture_law = (posture - s.q) * OMEGA_POSTURE.powi(2) - s.qd * (2.0 * OMEGA_POSTURE);
    let arm = pinv * (a - hand.drift)
        + (SMatrix::<f64, 7, 7>::identity() - pinv * j) * posture_law.fixed_rows::<7>(0);
    // The fingers are held half open by the same spring (their accelerations are equal, as
    // the mimic constraint wants, so the constraint carries no force).
    let mut qdd = posture_law;
    qdd.fixed_rows_mut::<7>(0).copy_from(&arm);
    // 3. The inputs: each is the generalized force on its own coordinate, so the vector
    // `inverse_dynamics` returns (evaluated with no input) is the input vector.
    panda.inverse_dynamics(s, &qdd, &none)
}

/// A sample of the run.
struct Sample {
    t: f64,
    /// The hand's tracking error p_d − p (m).
    error: V3,
    hand: V3,
    /// The inputs: τ1..τ7 (N m), f1, f2 (N).
    inputs: Q,
    /// The chain of link origins, base to tool centre point, for the pictures.
    links: Vec<V3>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let panda = Panda::default();
    let posture = ready();
    let start = State::at_rest(posture);
    let none = Q::zeros();
    let circle = Circle::through(panda.lets(&start, &none).panda_hand_tcp_p);

    let times: Vec<f64> = (0..=600).map(|i| f64::from(i) * DURATION / 600.0).collect();
    let clock = std::time::Instant::now();
    let run = Simulation::new(&panda, start)
        .inputs(|t, s| control(&panda, &circle, &posture, t, s))
        .run_at(&DormandPrince::new(1e-10, 1e-12), &times)?;
    let elapsed = clock.elapsed();

    let samples: Vec<Sample> = run
        .states()
        .iter()
        .zip(run.inputs())
        .map(|(s, u)| {
            let l = panda.lets(s, &none);
            Sample {
                t: s.t,
                error: circle.at(s.t)[0] - l.panda_hand_tcp_p,
                hand: l.panda_hand_tcp_p,
                inputs: *u,
                links: vec![
                    l.panda_link0_p,
                    l.panda_link1_p,
                    l.panda_link3_p,
                    l.panda_link4_p,
                    l.panda_link5_p,
                    l.panda_link7_p,
                    l.panda_link8_p,
                    l.panda_hand_tcp_p,
                ],
            }
        })
        .collect();

    let after: Vec<f64> = samples
        .iter()
        .filter(|x| x.t >= PERIOD)
        .map(|x| x.error.norm())
        .collect();
    let rms = (after.iter().map(|e| e * e).sum::<f64>() / after.len() as f64).sqrt();
    let largest = after.iter().fold(0.0_f64, |m, &e| m.max(e));
    // The whole run against the limits the URDF gives each joint (`Panda::JOINT_LIMITS`):
    // position, speed and effort, as the largest fraction of the limit used.
    let mut used = [0.0_f64; 3];
    for (x, s) in samples.iter().zip(run.states()) {
        for (k, (_, limit)) in Panda::JOINT_LIMITS.iter().enumerate().take(7) {
            let limit = limit.expect("the Panda's arm joints have limits");
            let middle = (limit.upper + limit.lower) / 2.0;
            let half_range = (limit.upper - limit.lower) / 2.0;
            used[0] = used[0].max((s.q[k] - middle).abs() / half_range);
            used[1] = used[1].max(s.qd[k].abs() / limit.velocity);
            used[2] = used[2].max(x.inputs[k].abs() / limit.effort);
        }
    }
    let first_period = samples
        .iter()
        .filter(|x| x.t < PERIOD)
        .map(|x| x.error.norm())
        .fold(0.0, f64::max);
    println!(
        "Panda from tests/robots/panda.urdf: coordinates {:?}, constraint {:?}",
        <Panda as Dynamics<9, 9>>::COORDINATES,
        <Panda as Constrained<9, 9, 1>>::CONSTRAINTS
    );
    println!(
        "circle: radius {RADIUS} m, period {PERIOD} s, centre {:.3?} m; gains ω = {OMEGA}/s (hand), {OMEGA_POSTURE}/s (posture)",
        circle.centre.as_slice()
    );
    println!(
        "simulated {DURATION} s in {:.2} s of computing ({} samples, Dormand–Prince, rtol 1e-10)",
        elapsed.as_secs_f64(),
        samples.len()
    );
    println!(
        "first period: largest |error| {first_period:.3e} m (closed form |ṗ_d| / (ω e) = {:.3e} m: the hand starts at rest)",
        circle.at(0.0)[1].norm() / (OMEGA * std::f64::consts::E)
    );
    println!("after the first period: RMS |error| = {rms:.1e} m, largest {largest:.1e} m");
    println!(
        "largest fraction of the URDF's joint limits used: position {:.0}%, speed {:.0}%, effort {:.0}%",
        100.0 * used[0],
        100.0 * used[1],
        100.0 * used[2]
    );
    // Far above what the controller achieves (about 1e-12 m), far below what a wrong
    // Jacobian or drift would give (a fraction of a millimetre or more).
    assert!(
        largest < 1e-6,
        "the hand does not follow the circle: largest error {largest:e} m after the first period"
    );
    assert!(used[0] < 1.0, "a joint left its range");

    figure("panda_task_space", (1400, 1300), |root| {
        let panels = root.split_evenly((2, 2));
        // The error dynamics from e(0) = 0, ė(0) = ṗ_d(0): e(t) = ṗ_d(0) t e^(−ω t).
        let v0 = circle.at(0.0)[1].norm();
        let ideal = samples
            .iter()
            .map(|x| (x.t, v0 * x.t * (-OMEGA * x.t).exp()));
        Panel::new("Hand tracking error", "t [s]", "|desired − actual| [m]")
            .log_y()
            .line("ideal: |ṗ(0)| t e^(−ωt)", ideal.filter(|p| p.1 >= 1e-15))
            .line("simulated", samples.iter().map(|x| (x.t, x.error.norm())))
            .draw(&panels[0])?;
        let mut torques = Panel::new("Joint torques", "t [s]", "τ [N m]");
        for k in 0..7 {
            torques = torques.line(
                &format!("τ{}", k + 1),
                samples.iter().map(|x| (x.t, x.inputs[k])),
            );
        }
        torques.draw(&panels[1])?;
        arm_view("Seen from above", &samples, &circle, [0, 1], "y [m]").draw(&panels[2])?;
        arm_view("Seen from the side", &samples, &circle, [0, 2], "z [m]").draw(&panels[3])
    })?;
    Ok(())
}

/// The arm projected on two world axes (`axes`: x = 0, y = 1, z = 2), base to tool centre
/// point, at four instants a quarter of a period apart, with the circle and the hand's
/// positions every 0.05 s, on equal scales.
fn arm_view(title: &str, samples: &[Sample], circle: &Circle, axes: [usize; 2], y: &str) -> Panel {
    let at = |x: &V3| (x[axes[0]], x[axes[1]]);
    let mut panel = Panel::new(title, "x [m]", y)
        .x_range(-0.4..0.5)
        .y_range(if axes[1] == 2 {
            -0.05..0.85
        } else {
            -0.45..0.45
        })
        .legend(SeriesLabelPosition::UpperLeft);
    for quarter in 0..4 {
        let t = PERIOD * (1.0 + f64::from(quarter) / 4.0);
        if let Some(x) = samples.iter().find(|x| x.t >= t - 1e-9) {
            panel = panel.line(&format!("arm at t = {:.1} s", x.t), x.links.iter().map(at));
        }
    }
    let circle_points = (0..=100).map(|i| at(&circle.at(PERIOD * f64::from(i) / 100.0)[0]));
    panel.line("circle", circle_points).points(
        "hand every 0.05 s",
        samples.iter().step_by(5).map(|x| at(&x.hand)),
    )
}
