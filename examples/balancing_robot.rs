//! A two-wheeled balancing robot driven to a new position by an observer-based digital
//! controller, against a push on its body, with its motor torque limited.
//!
//! The plant: a body (pitch θ from upright) on an axle carrying the wheels (rotation φ,
//! rolling without slipping, so the robot is at x = r φ). The motor's torque τ acts
//! between body and wheels; a horizontal push w on the body at its centre of mass is a
//! second input, a disturbance no controller drives. Upright at rest is unstable.
//!
//! The design, all from the model and the control module: `linearize` at upright;
//! `DrivenInputs::named(&robot, &["tau"])` takes the motor as the only input the design
//! drives; `ObserverController::plant` samples the linearization at 200 Hz with the
//! sensors (the wheel position from the encoders, the tilt, the gyro); `dlqi` on the wheel
//! position and `dlqe` from the three sensors give the gains; `ObserverController` runs
//! them with the reference input, the torque limited to ±0.4 N·m with anti-windup, and
//! returns its closed loop and the loop broken at the motor.
//!
//! What it prints and plots: the closed loop's multipliers; the linear step response from
//! the reference to the position (rise, overshoot, settling); the loop's gain and phase
//! margins with its Bode diagram; the nonlinear simulation (a reference step, then a push,
//! the disturbance added beside the controller by `Simulation::disturbances`) against the
//! closed loop's linear prediction of the same inputs; a reference step large enough to
//! saturate the motor, the limits and the anti-windup keeping the robot up; one too large,
//! the robot falling over and a check (`Event::require`, |θ| < π/2) failing the run with
//! its name instead of returning the fall as a result; and the same move as a ramp of the
//! reference (`with_reference_schedule`), which the motor can follow.
//!
//! Run with `cargo run --release --example balancing_robot`; it writes
//! `target/plots/balancing_robot.png` and `target/plots/balancing_robot_bode.png`.

mod common;

use common::{figure, plot_path, Panel};
use lagrange_runtime::control::{DrivenInputs, ObserverController};
use lagrange_runtime::linearize::linearize;
use lagrange_runtime::nalgebra::{DMatrix, DVector};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Event, Simulation, StepError, Trajectory};
use std::f64::consts::FRAC_PI_2;

lagrangian! {
    /// A two-wheeled balancing robot in the plane: wheels of radius r (mass mw, inertia
    /// iw, both together) rolling without slipping (x = r φ), a body of mass mb and
    /// inertia ib about its centre of mass, l above the axle, pitched θ from upright. The
    /// motor torque τ acts between body and wheels (with viscous friction b), the push w
    /// horizontally on the body's centre of mass.
    pub struct BalancingRobot {
        parameters: r = 0.04, mw = 0.6, iw = 4.8e-4, mb = 1.5, l = 0.12, ib = 0.02,
                    b = 0.005, g = 9.81;
        coordinates: phi, theta;
        inputs: tau, w;
        let body = [r * phi + l * sin(theta), r + l * cos(theta)];
        kinetic = mw / 2 * (r * dot(phi))^2 + iw / 2 * dot(phi)^2
                + mb / 2 * dot(body)^2 + ib / 2 * dot(theta)^2;
        potential = mb * g * l * cos(theta);
        dissipation = b / 2 * (dot(phi) - dot(theta))^2;
        force tau + r * w on phi;
        force -tau + l * cos(theta) * w on theta;
    }
}

/// The sample period: 200 Hz.
const TS: f64 = 0.005;
/// The motor's torque limit, N·m.
const TAU_MAX: f64 = 0.4;
/// The wheel radius, m (the model's `r`).
const R: f64 = 0.04;

/// The wheel position r φ, the body's tilt θ and the motor torque τ along a run.
fn series(run: &Trajectory<2, 2>) -> [Vec<(f64, f64)>; 3] {
    let position = run.states().iter().map(|s| (s.t, R * s.q[0])).collect();
    let tilt = run.states().iter().map(|s| (s.t, s.q[1])).collect();
    let torque = run
        .states()
        .iter()
        .zip(run.inputs())
        .map(|(s, u)| (s.t, u[0]))
        .collect();
    [position, tilt, torque]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let robot = BalancingRobot::default();
    let upright = State::at_rest(SVector::zeros());
    let lin = linearize(&robot, &upright, &SVector::zeros())?;
    let motor = DrivenInputs::named(&robot, &["tau"])?;

    // Sensors: the wheel position r φ (encoders), the tilt θ and the gyro θ̇.
    let sensors = DMatrix::from_row_slice(
        3,
        4,
        &[R, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
    );
    let plant = ObserverController::plant(&lin, &motor, TS, &sensors)?;
    let unstable = plant.poles()?.iter().map(|z| z.norm()).fold(0.0, f64::max);
    println!("Balancing robot, 200 Hz LQG with integral action on the wheel position");
    println!(
        "open loop: largest multiplier |z| = {unstable:.5} (ln|z|/Ts = {:.3} /s)",
        unstable.ln() / TS
    );

    // dlqi on (φ, θ, φ̇, θ̇, ξ) by Bryson's rule: 1 rad of wheel, 0.05 rad of tilt,
    // 10 and 2 rad/s, 0.05 m·s of integral; 1 N·m of torque.
    let q = DMatrix::from_diagonal(&DVector::from_vec(vec![4.0, 400.0, 0.01, 0.25, 4000.0]));
    let (k, _) = plant
        .select_outputs(&[0])?
        .dlqi(&q, &DMatrix::from_element(1, 1, 1.0))?;
    // dlqe: the process noise a torque on the motor's channel (W = B Bᵀ, plus a little on
    // every state), which recovers at the motor the margins of the state feedback (loop
    // transfer recovery, Doyle and Stein); the sensors to 1 mm, 0.01 rad and 0.01 rad/s.
    let w = DMatrix::identity(4, 4) * 1e-10 + plant.b() * plant.b().transpose();
    let v = DMatrix::from_diagonal(&DVector::from_vec(vec![1e-6, 1e-4, 1e-4]));
    let (m, _) = plant.dlqe(&w, &v)?;
    // The controller with the reference `reference(t)` for the wheel position.
    let design = |reference: Box<dyn Fn(f64) -> f64>| -> Result<ObserverController<2, 2>, Box<dyn std::error::Error>> {
        Ok(ObserverController::new(&lin, &motor, TS, &sensors, &[0], &k, &m)?
            .with_limits(SVector::from([-TAU_MAX, 0.0]), SVector::from([TAU_MAX, 0.0]))?
            .with_reference_schedule(move |t, r| r[0] = reference(t))
            .recording(&["phi_hat", "theta_hat", "dphi_hat", "dtheta_hat", "xi"])?)
    };
    // A step of `size` at `at`, and a ramp to `size` at `speed` from `at`.
    let step_to = |size: f64, at: f64| -> Box<dyn Fn(f64) -> f64> {
        Box::new(move |t| if t >= at { size } else { 0.0 })
    };
    let ramp = |size: f64, at: f64, speed: f64| -> Box<dyn Fn(f64) -> f64> {
        Box::new(move |t| (speed * (t - at)).clamp(0.0, size))
    };
    let controller = design(step_to(0.0, 0.0))?;
    let spectrum = controller.spectrum();
    println!(
        "K = [{:.3}, {:.3}, {:.3}, {:.3}; {:.3}] (N·m per rad, rad/s, m·s)",
        k[0], k[1], k[2], k[3], k[4]
    );
    println!(
        "closed loop: {} multipliers, spectral radius {:.5} (slowest mode {:.3} /s)",
        spectrum.eigenvalues.len(),
        spectrum.spectral_radius(),
        spectrum.continuous_eigenvalues()[0].re
    );
    if spectrum.spectral_radius() >= 1.0 {
        return Err("the closed loop is not stable".into());
    }

    // The linear step response from the reference to the position (the first output).
    let closed = controller.closed_loop();
    let times: Vec<f64> = (0..=2000).map(|i| f64::from(i) * TS).collect();
    let step = closed.step(&times, 0)?;
    let position = step.output(0);
    let last = position.last().map_or(0.0, |p| p.1);
    let peak = position.iter().map(|p| p.1).fold(f64::MIN, f64::max);
    let undershoot = position.iter().map(|p| p.1).fold(f64::MAX, f64::min);
    let rise = position
        .iter()
        .find(|p| p.1 >= 0.9 * last)
        .map_or(f64::NAN, |p| p.0);
    let settle = position
        .iter()
        .rev()
        .find(|p| (p.1 - last).abs() > 0.02 * last.abs())
        .map_or(0.0, |p| p.0 + TS);
    let torque_peak = step.output(3).iter().map(|p| p.1.abs()).fold(0.0, f64::max);
    println!(
        "unit step of the reference (linear): final {last:.4} m, rise (90 %) {rise:.3} s, overshoot {:.1} %, \
         undershoot {:.3} m (the wheels first roll back to tip the body forward), settling (2 %) {settle:.3} s, peak torque {torque_peak:.2} N·m per m",
        100.0 * (peak - last) / last,
        undershoot
    );

    // The loop broken at the motor: margins and the Bode diagram.
    let open = controller.loop_at_inputs()?;
    let margins = open.margins()?;
    println!(
        "loop at the motor: gain margin {:.2} dB at {:.2} rad/s, phase margin {:.1}° at {:.2} rad/s",
        20.0 * margins.gain.log10(),
        margins.phase_crossover,
        margins.phase,
        margins.gain_crossover
    );
    let nyquist = std::f64::consts::PI / TS;
    let omegas: Vec<f64> = (0..=300)
        .map(|i| 0.1 * (nyquist / 0.1).powf(f64::from(i) / 300.0) * 0.999)
        .collect();
    let bode = plot_path("balancing_robot_bode.png");
    open.bode_plot(&omegas, 0, 0, &bode)?;
    println!("plot written to {}", bode.display());

    // The nonlinear robot: a reference step of 0.2 m at 0.5 s, then a push of 3 N on the
    // body for 0.1 s at 3 s (beside the controller), against the closed loop's linear
    // prediction of the same inputs.
    let (step_size, step_at, push, push_from, push_to) = (0.2, 0.5, 3.0, 3.0, 3.1);
    let pushing = move |t: f64| {
        if (push_from..push_to).contains(&t) {
            push
        } else {
            0.0
        }
    };
    let upright_check = || Event::require("upright", |_t, s: &State<2>| FRAC_PI_2 - s.q[1].abs());
    let integrator = DormandPrince::new(1e-9, 1e-11);
    let mut small = design(step_to(step_size, step_at))?;
    let run = Simulation::new(&robot, upright)
        .controller(&mut small)
        .disturbances(move |t, _s| SVector::from([0.0, pushing(t)]))
        .event(upright_check())
        .run_at(&integrator, &times)?;
    let mut u = DMatrix::zeros(2, times.len());
    for (j, &t) in times.iter().enumerate() {
        u[(0, j)] = if t >= step_at { step_size } else { 0.0 };
        u[(1, j)] = pushing(t);
    }
    let linear = closed.lsim(&times, &u, &DVector::zeros(closed.states()))?;
    let simulated = series(&run);
    let predicted: [Vec<(f64, f64)>; 3] = [linear.output(0), linear.output(1), linear.output(3)];
    let gap = |i: usize| {
        simulated[i]
            .iter()
            .zip(&predicted[i])
            .map(|(a, b)| (a.1 - b.1).abs())
            .fold(0.0, f64::max)
    };
    let largest = |s: &[(f64, f64)]| s.iter().map(|p| p.1.abs()).fold(0.0, f64::max);
    println!(
        "step of {step_size} m and a push of {push} N: simulated against linear, largest gaps {:.2e} m (of {:.3}), {:.2e} rad (of {:.3}), {:.2e} N·m (of {:.3}); {} samples at the torque limit",
        gap(0),
        largest(&simulated[0]),
        gap(1),
        largest(&simulated[1]),
        gap(2),
        largest(&simulated[2]),
        small.saturated_samples()
    );
    println!(" t [s]   position [m]  (linear)    tilt [rad]  (linear)   torque [N·m]  (linear)");
    for &t in &[0.5, 0.6, 0.8, 1.0, 1.5, 2.0, 3.0, 3.1, 3.3, 4.0, 6.0, 10.0] {
        let j = (t / TS).round() as usize;
        println!(
            "{t:6.2}  {:12.5} {:10.5}  {:12.5} {:10.5}  {:12.4} {:10.4}",
            simulated[0][j].1,
            predicted[0][j].1,
            simulated[1][j].1,
            predicted[1][j].1,
            simulated[2][j].1,
            predicted[2][j].1
        );
    }
    let end = run.last();
    if (R * end.q[0] - step_size).abs() > 1e-3 || gap(0) > 0.05 * step_size {
        return Err("the robot did not follow its linear prediction to the reference".into());
    }

    // A step of 1.5 m: the torque reaches its limit, the estimator predicts with the
    // torque applied, the integral is held while integrating would push it further, and
    // the robot stays up.
    let mut large = design(step_to(1.5, step_at))?;
    let big = Simulation::new(&robot, upright)
        .controller(&mut large)
        .event(upright_check())
        .run_at(&integrator, &times)?;
    let big_series = series(&big);
    println!(
        "step of 1.5 m: {} samples at the ±{TAU_MAX} N·m limit, largest tilt {:.3} rad, position at {:.0} s {:.5} m",
        large.saturated_samples(),
        largest(&big_series[1]),
        times[times.len() - 1],
        R * big.last().q[0]
    );
    if (R * big.last().q[0] - 1.5).abs() > 1e-3 {
        return Err("the robot did not reach the 1.5 m reference".into());
    }

    // A step of 3 m is more than the limited motor can take: the robot falls over. The
    // check fails the run where |θ| reaches π/2, naming it, instead of returning the fall
    // as a result.
    let mut huge = design(step_to(3.0, step_at))?;
    let fall = Simulation::new(&robot, upright)
        .controller(&mut huge)
        .event(upright_check())
        .run_at(&integrator, &times);
    let fall = match fall {
        Err(error)
            if matches!(
                error.reason,
                StepError::CheckFailed {
                    check: "upright",
                    ..
                }
            ) =>
        {
            println!(
                "step of 3 m: {} ({} samples at the limit)",
                error.reason,
                huge.saturated_samples()
            );
            error.trajectory
        }
        Err(error) => return Err(error.into()),
        Ok(_) => return Err("the 3 m step was expected to topple the robot".into()),
    };
    let fall_series = series(&fall);

    // The same 3 m as a ramp of 0.5 m/s: the motor follows, and the robot gets there.
    let mut ramped = design(ramp(3.0, step_at, 0.5))?;
    let moved = Simulation::new(&robot, upright)
        .controller(&mut ramped)
        .event(upright_check())
        .run_at(&integrator, &times)?;
    let moved_series = series(&moved);
    println!(
        "3 m as a ramp of 0.5 m/s: {} samples at the limit, largest tilt {:.3} rad, position at {:.0} s {:.5} m",
        ramped.saturated_samples(),
        largest(&moved_series[1]),
        times[times.len() - 1],
        R * moved.last().q[0]
    );
    if (R * moved.last().q[0] - 3.0).abs() > 0.02 {
        return Err("the ramp did not bring the robot to 3 m".into());
    }

    figure("balancing_robot", (1400, 1300), |root| {
        let panels = root.split_evenly((4, 1));
        Panel::new(
            "Wheel position: reference step 0.2 m at 0.5 s, push 3 N at 3 s",
            "t [s]",
            "x [m]",
        )
        .line("simulated", simulated[0].clone())
        .line("linear prediction", predicted[0].clone())
        .draw(&panels[0])?;
        Panel::new("Body tilt", "t [s]", "θ [rad]")
            .line("simulated", simulated[1].clone())
            .line("linear prediction", predicted[1].clone())
            .draw(&panels[1])?;
        Panel::new("Motor torque, held between samples", "t [s]", "τ [N·m]")
            .line("simulated", simulated[2].clone())
            .line("linear prediction", predicted[2].clone())
            .draw(&panels[2])?;
        Panel::new(
            "Steps of 1.5 m (up) and 3 m (falls: the check fails the run), and 3 m as a ramp",
            "t [s]",
            "x [m], θ [rad], τ [N·m]",
        )
        .line("1.5 m: position", big_series[0].clone())
        .line("1.5 m: torque", big_series[2].clone())
        .line("3 m: position", fall_series[0].clone())
        .line("3 m: tilt", fall_series[1].clone())
        .line("3 m as a ramp: position", moved_series[0].clone())
        .draw(&panels[3])
    })?;
    Ok(())
}
