//! Computed-torque control: a two-link arm, and a motor-driven pendulum, following smooth
//! trajectories with one controller written once for every model.
//!
//! A robot's equations of motion are M(q) q̈ + c(q, q̇) + φ(q) + b q̇ = τ: inertia,
//! Coriolis and centripetal torques, gravity, joint friction, and the motor torques.
//! Computed torque (feedback linearization) picks τ so that the model's own dynamics are
//! cancelled and replaced by a chosen linear law: with the reference q_d(t) and the error
//! e = q_d − q, it commands the acceleration
//!
//!     v = q̈_d + k_d ė + k_p e,
//!
//! and applies τ = M(q) v + c + φ + b q̇, exactly what `inverse_dynamics` returns for
//! q̈ = v (the generalized force to add to the model's own forces, here with zero input).
//! The closed loop is then ë + k_d ė + k_p e = 0 in every joint, whatever the
//! configuration: with k_p = ω², k_d = 2ω the error decays critically damped as
//! (e₀ + (ė₀ + ω e₀) t) e^(−ω t), without overshoot and without coupling between the
//! joints. That needs an exact model, which `lagrangian!` provides by differentiating T, V
//! and D; a real arm adds PD robustness against the model's errors.

mod common;

use common::{figure, Panel};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Simulation};

lagrangian! {
    /// Planar two-link arm with distributed link inertia, joint damping and joint torques;
    /// q1 from the horizontal, q2 relative to the first link.
    pub struct Arm {
        parameters: m1 = 1.3 [kg], m2 = 0.9 [kg], l1 = 0.8 [m], lc1 = 0.35 [m], lc2 = 0.42 [m],
                    I1 = 0.07 [kg*m^2], I2 = 0.045 [kg*m^2], g = 9.81 [m/s^2],
                    b1 = 0.3 [N*m*s], b2 = 0.17 [N*m*s];
        coordinates: q1 [rad], q2 [rad];
        inputs: tau1 [N*m], tau2 [N*m];
        // Centres of mass of the links.
        let xc1 = lc1 * cos(q1);
        let yc1 = lc1 * sin(q1);
        let xc2 = l1 * cos(q1) + lc2 * cos(q1 + q2);
        let yc2 = l1 * sin(q1) + lc2 * sin(q1 + q2);
        // Each link: translation of its centre of mass, rotation about it.
        kinetic = m1/2 * (dot(xc1)^2 + dot(yc1)^2) + I1/2 * dot(q1)^2
                + m2/2 * (dot(xc2)^2 + dot(yc2)^2) + I2/2 * (dot(q1) + dot(q2))^2;
        potential = g * (m1*yc1 + m2*yc2);
        dissipation = b1/2 * dot(q1)^2 + b2/2 * dot(q2)^2;
        force tau1 on q1;
        force tau2 on q2;
    }
}

lagrangian! {
    /// A rod swinging about a motor shaft; theta from hanging straight down.
    pub struct Pendulum {
        parameters: m = 0.5 [kg], lc = 0.35 [m], I = 0.02 [kg*m^2], b = 0.05 [N*m*s],
                    g = 9.81 [m/s^2];
        coordinates: theta [rad];
        inputs: tau [N*m];
        kinetic = (m*lc^2 + I)/2 * dot(theta)^2;
        potential = -m * g * lc * cos(theta);
        dissipation = b/2 * dot(theta)^2;
        force tau on theta;
    }
}

/// The computed-torque law for any model: the generalized forces τ that make q̈ equal
/// v = q̈_d + k_d (q̇_d − q̇) + k_p (q_d − q).
///
/// `inverse_dynamics` returns the generalized force that must be added to the model's own
/// forces Q for q̈ = v to happen. Evaluated with zero input, Q holds only what the model
/// does by itself (here the joint friction −b q̇), so for models whose inputs are torques
/// on the coordinates themselves (`force tau1 on q1;` …) the result is the input vector.
fn computed_torque<D: Dynamics<N, M>, const N: usize, const M: usize>(
    model: &D,
    s: &State<N>,
    q_des: &SVector<f64, N>,
    qdot_des: &SVector<f64, N>,
    qddot_des: &SVector<f64, N>,
    kp: f64,
    kd: f64,
) -> SVector<f64, N> {
    let v = qddot_des + (qdot_des - s.qd) * kd + (q_des - s.q) * kp;
    model.inverse_dynamics(s, &v, &SVector::zeros())
}

/// A reference q_d(t) = mean + amplitude · sin(ω t) per coordinate, with its derivatives.
struct Sinusoids<const N: usize> {
    mean: [f64; N],
    amplitude: [f64; N],
    omega: [f64; N],
}

impl<const N: usize> Sinusoids<N> {
    /// (q_d, q̇_d, q̈_d) at time t.
    fn at(&self, t: f64) -> [SVector<f64, N>; 3] {
        let terms: [[f64; 3]; N] = std::array::from_fn(|k| {
            let (a, w) = (self.amplitude[k], self.omega[k]);
            let (sin, cos) = (w * t).sin_cos();
            [self.mean[k] + a * sin, a * w * cos, -a * w * w * sin]
        });
        [0, 1, 2].map(|d| SVector::from_fn(|k, _| terms[k][d]))
    }
}

/// Gains of the error dynamics ë + k_d ė + k_p e = 0: critically damped at ω = 10 rad/s.
const OMEGA: f64 = 10.0;
const KP: f64 = OMEGA * OMEGA;
const KD: f64 = 2.0 * OMEGA;

/// After this time the initial error has decayed by about e^(−ω t) ≈ 1e-13.
const TRANSIENT: f64 = 3.0;

/// A sample of a tracking run.
struct Sample<const N: usize> {
    t: f64,
    /// The tracking error e = q_d − q.
    error: SVector<f64, N>,
    /// The closed-form error (e₀ + (ė₀ + ω e₀) t) e^(−ω t) of the ideal error dynamics.
    ideal: SVector<f64, N>,
    q: SVector<f64, N>,
    q_des: SVector<f64, N>,
    torque: SVector<f64, N>,
}

/// Runs `model` from rest at `start` under the computed-torque law tracking `reference`,
/// for any model whose input vector is the torque vector, mapped by `inputs`.
fn track<D: Dynamics<N, M>, const N: usize, const M: usize>(
    model: &D,
    reference: &Sinusoids<N>,
    start: SVector<f64, N>,
    inputs: impl Fn(SVector<f64, N>) -> SVector<f64, M>,
) -> Result<Vec<Sample<N>>, Box<dyn std::error::Error>> {
    let law = |t: f64, s: &State<N>| {
        let [q, qd, qdd] = reference.at(t);
        computed_torque(model, s, &q, &qd, &qdd, KP, KD)
    };
    let times: Vec<f64> = (0..=800).map(|i| f64::from(i) * 0.01).collect();
    let trajectory = Simulation::new(model, State::at_rest(start))
        .inputs(|t, s| inputs(law(t, s)))
        .run_at(&DormandPrince::new(1e-10, 1e-12), &times)?;
    let [q0, qd0, _] = reference.at(0.0);
    let (e0, ed0) = (q0 - start, qd0);
    let samples = trajectory.states().iter().map(|s| {
        let q_des = reference.at(s.t)[0];
        Sample {
            t: s.t,
            error: q_des - s.q,
            ideal: (e0 + (ed0 + e0 * OMEGA) * s.t) * (-OMEGA * s.t).exp(),
            q: s.q,
            q_des,
            torque: law(s.t, s),
        }
    });
    Ok(samples.collect())
}

/// The largest |e| and |τ| over the samples after the transient.
fn largest_after_transient<const N: usize>(run: &[Sample<N>]) -> (f64, f64) {
    run.iter()
        .filter(|x| x.t >= TRANSIENT)
        .fold((0.0, 0.0), |(e, tau), x| {
            (e.max(x.error.amax()), tau.max(x.torque.amax()))
        })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The arm starts hanging straight down at rest, away from the reference, which swings
    // both joints at unrelated frequencies.
    let arm = Arm::default();
    let arm_reference = Sinusoids {
        mean: [-1.0, 0.9],
        amplitude: [0.6, 0.7],
        omega: [1.1, 2.3],
    };
    let hanging = ArmCoordinates {
        q1: -std::f64::consts::FRAC_PI_2,
        q2: 0.0,
    }
    .into();
    let arm_run = track(&arm, &arm_reference, hanging, |tau| {
        ArmInputs {
            tau1: tau[0],
            tau2: tau[1],
        }
        .into()
    })?;

    // The same controller drives the pendulum through swings of ±126°, where gravity's
    // torque is far from linear in the angle.
    let pendulum = Pendulum::default();
    let pendulum_reference = Sinusoids {
        mean: [0.0],
        amplitude: [2.2],
        omega: [1.4],
    };
    let pendulum_run = track(
        &pendulum,
        &pendulum_reference,
        SVector::from([-0.4]),
        |tau| PendulumInputs { tau: tau[0] }.into(),
    )?;

    // The first instant asks for a large torque: the whole initial error is to be removed
    // in a few tenths of a second. A real arm would saturate its motors; one would start
    // the reference where the arm is, or lower ω.
    let (arm_error, arm_torque) = largest_after_transient(&arm_run);
    let (pendulum_error, pendulum_torque) = largest_after_transient(&pendulum_run);
    println!("computed torque, k_p = {KP}/s², k_d = {KD}/s (critically damped at ω = {OMEGA}/s)");
    println!(
        "two-link arm: |τ| = {:.1} N m at the start; after {TRANSIENT} s: largest |e| = {arm_error:.1e} rad, largest |τ| = {arm_torque:.2} N m",
        arm_run[0].torque.amax()
    );
    println!(
        "pendulum:     |τ| = {:.1} N m at the start; after {TRANSIENT} s: largest |e| = {pendulum_error:.1e} rad, largest |τ| = {pendulum_torque:.2} N m",
        pendulum_run[0].torque.amax()
    );
    if arm_error.max(pendulum_error) > 1e-6 {
        return Err("the computed-torque controller did not converge to the reference".into());
    }

    figure("arm_computed_torque", (1500, 1000), |root| {
        let panels = root.split_evenly((2, 2));
        let angles = |run: &[Sample<2>], i: usize, desired: bool| -> Vec<(f64, f64)> {
            run.iter()
                .map(|x| (x.t, if desired { x.q_des[i] } else { x.q[i] }))
                .collect()
        };
        Panel::new("Two-link arm: joint angles", "t [s]", "angle [rad]")
            .line("q1", angles(&arm_run, 0, false))
            .line("q1 desired", angles(&arm_run, 0, true))
            .line("q2", angles(&arm_run, 1, false))
            .line("q2 desired", angles(&arm_run, 1, true))
            .draw(&panels[0])?;
        errors("Two-link arm: tracking error", &arm_run, &["q1", "q2"]).draw(&panels[1])?;
        Panel::new("Pendulum: angle", "t [s]", "θ [rad]")
            .line("θ", pendulum_run.iter().map(|x| (x.t, x.q[0])))
            .line("θ desired", pendulum_run.iter().map(|x| (x.t, x.q_des[0])))
            .draw(&panels[2])?;
        errors("Pendulum: tracking error", &pendulum_run, &["θ"]).draw(&panels[3])
    })?;
    Ok(())
}

/// A panel of |e| per coordinate on a log scale, with the ideal decay down to 1e-15 (the
/// simulated error levels off at the integrator's precision, about 1e-12).
fn errors<const N: usize>(title: &str, run: &[Sample<N>], names: &[&str; N]) -> Panel {
    let mut panel = Panel::new(title, "t [s]", "|e| [rad]").log_y();
    for (i, name) in names.iter().enumerate() {
        let ideal = run.iter().map(|x| (x.t, x.ideal[i].abs()));
        // The ideal curve first, so that the simulated one is drawn over it.
        panel = panel
            .line(
                &format!("{name}: ideal (e₀ + (ė₀ + ωe₀) t) e^(−ωt)"),
                ideal.filter(|p| p.1 >= 1e-15),
            )
            .line(
                &format!("|e| of {name}"),
                run.iter().map(|x| (x.t, x.error[i].abs())),
            );
    }
    panel
}
