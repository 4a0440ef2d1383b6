//! The double pendulum of the README, simulated with the library's three integrators.
//!
//! The positions of the two bobs are `let`s; the kinetic energy is built from their time
//! derivatives `dot(x1)`, … which the library computes exactly by automatic
//! differentiation. Released from rest at θ1 = 2, θ2 = 1 the motion is chaotic, but it
//! conserves the energy h = T + V exactly: over a long run, |h − h0| measures the error of
//! an integrator. Runge–Kutta methods (fixed-step RK4, adaptive Dormand–Prince) let it
//! drift; the variational integrator is symplectic, so its error oscillates but stays
//! bounded however long the run.
//!
//! Run with `cargo run --release --example double_pendulum`.

mod common;

use common::{figure, plot_path, progress_bar, Panel, SeriesLabelPosition};
use lagrange_runtime::plot::{animate, snapshot, Animation};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Integrator, Rk4, Simulation, Variational};
use std::cell::Cell;
use std::error::Error;
use std::time::Instant;

lagrangian! {
    /// Planar double pendulum with point masses.
    pub struct DoublePendulum {
        parameters: m1 = 1.0 [kg], m2 = 1.0 [kg], l1 = 1.0 [m], l2 = 1.0 [m], g = 9.81 [m/s^2];
        coordinates: theta1 [rad], theta2 [rad];

        let x1 = l1 * sin(theta1);
        let y1 = -l1 * cos(theta1);
        let x2 = x1 + l2 * sin(theta2);
        let y2 = y1 - l2 * cos(theta2);

        kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * (dot(x2)^2 + dot(y2)^2);
        potential = g * (m1*y1 + m2*y2);
    }
}

/// Length of the long runs that compare the integrators, in seconds.
const LONG_RUN: f64 = 200.0;

fn main() -> Result<(), Box<dyn Error>> {
    let model = DoublePendulum::default();
    let start = State::at_rest(
        DoublePendulumCoordinates {
            theta1: 2.0,
            theta2: 1.0,
        }
        .into(),
    );

    // The first 20 s at tight tolerances, sampled every 10 ms, for the pictures of the motion.
    let frames: Vec<f64> = (0..=2000).map(|i| f64::from(i) * 0.01).collect();
    let motion =
        Simulation::new(&model, start).run_at(&DormandPrince::new(1e-10, 1e-12), &frames)?;
    let angles = |i: usize| motion.states().iter().map(move |s| (s.t, s.q[i]));
    // The lower bob's position, read from the model's own `let`s (not typed a second time).
    let tip = motion.states().iter().map(|s| {
        let DoublePendulumLets { x2, y2, .. } = model.lets(s, &SVector::zeros());
        (x2, y2)
    });

    // The long runs, one per integrator. RK4 and the variational integrator take the same
    // step and cost about the same: four evaluations of the accelerations against a few
    // Newton iterations on the discrete Euler–Lagrange equations.
    let runs = [
        long_run(&model, start, "RK4, h = 2 ms", &Rk4::new(2e-3), true)?,
        long_run(
            &model,
            start,
            "Dormand-Prince, rtol = 1e-9",
            &DormandPrince::new(1e-9, 1e-12),
            true,
        )?,
        long_run(
            &model,
            start,
            "variational, h = 2 ms",
            &Variational::new(2e-3),
            false,
        )?,
    ];

    println!(
        "energy error |h - h0| after {LONG_RUN} s of chaotic motion (h0 = {:.6} J):",
        runs[0].h0
    );
    println!(
        "{:<28} {:>8} {:>10} {:>8} {:>11} {:>11}",
        "integrator", "steps", "f evals", "time", "max error", "final error"
    );
    for run in &runs {
        let evals = run.evaluations.map_or("-".into(), |n| n.to_string());
        println!(
            "{:<28} {:>8} {:>10} {:>6.0}ms {:>11.2e} {:>11.2e}",
            run.name, run.steps, evals, run.millis, run.max_error, run.final_error
        );
    }
    println!("(f evals: evaluations of the accelerations; the variational integrator solves");
    println!(" its implicit step by Newton's method on the discrete Lagrangian instead)");

    // The first 10 s as an animated GIF: the two links from the model's `let`s.
    let links = |s: &State<2>| {
        let DoublePendulumLets { x1, y1, x2, y2 } = model.lets(s, &SVector::zeros());
        vec![vec![(0.0, 0.0), (x1, y1), (x2, y2)]]
    };
    let first_10_s = Simulation::new(&model, start)
        .run_at(&DormandPrince::new(1e-10, 1e-12), &frames[..=1000])?;
    let settings = Animation {
        size: (420, 420),
        fps: 20,
        bounds: Some((-2.2..2.2, -2.2..2.2)),
        title: "double pendulum".into(),
        ..Animation::default()
    };
    let gif = plot_path("double_pendulum.gif");
    animate(&first_10_s, &gif, &settings, links)?;
    println!("animation written to {}", gif.display());
    let frame = plot_path("double_pendulum_frame.png");
    snapshot(&first_10_s.states()[250], &frame, &settings, links)?;

    figure("double_pendulum", (1400, 1100), |root| {
        let (top, bottom) = root.split_vertically(560);
        let (left, right) = top.split_horizontally(860);
        Panel::new("Angles (first 20 s)", "t [s]", "angle [rad]")
            .line("θ1", angles(0))
            .line("θ2", angles(1))
            .legend(SeriesLabelPosition::UpperLeft)
            .draw(&left)?;
        Panel::new("Path of the lower bob (x2, y2)", "x2 [m]", "y2 [m]")
            .line("", tip)
            .x_range(-2.1..2.1)
            .y_range(-2.1..2.1)
            .draw(&right)?;
        let mut energy = Panel::new(
            "Energy error: largest |h − h0| in each 1 s window",
            "t [s]",
            "|h − h0| [J]",
        )
        .log_y()
        .legend(SeriesLabelPosition::LowerRight);
        for run in &runs {
            energy = energy.line(&run.name, run.envelope.iter().copied());
        }
        energy.draw(&bottom)
    })?;
    Ok(())
}

/// What a long run reports.
struct Run {
    name: String,
    steps: usize,
    /// Evaluations of the accelerations, for the explicit methods.
    evaluations: Option<usize>,
    millis: f64,
    h0: f64,
    max_error: f64,
    final_error: f64,
    /// (end of window, largest |h − h0| in the window) for 1 s windows.
    envelope: Vec<(f64, f64)>,
}

/// Simulates `LONG_RUN` seconds with a progress bar and measures the energy error.
fn long_run<I: Integrator<DoublePendulum, 2, 0>>(
    model: &DoublePendulum,
    start: State<2>,
    name: &str,
    integrator: &I,
    explicit: bool,
) -> Result<Run, Box<dyn Error>> {
    // An explicit method evaluates the control law once per evaluation of the dynamics, so
    // counting its calls counts the evaluations (the model has no inputs: u is empty).
    let calls = Cell::new(0);
    let mut bar = progress_bar(name);
    let mut steps = 0;
    let clock = Instant::now();
    let trajectory = Simulation::new(model, start)
        .inputs(|_, _| {
            calls.set(calls.get() + 1);
            SVector::zeros()
        })
        .progress(|p| {
            steps = p.steps;
            bar(p);
        })
        .run(integrator, LONG_RUN)?;
    let millis = clock.elapsed().as_secs_f64() * 1e3;

    let h = trajectory.energies();
    let h0 = h[0];
    let mut envelope: Vec<(f64, f64)> = Vec::new();
    for (t, h) in trajectory.times().zip(h) {
        let window = t.ceil().max(1.0);
        match envelope.last_mut() {
            Some((end, max)) if *end == window => *max = max.max((h - h0).abs()),
            _ => envelope.push((window, (h - h0).abs())),
        }
    }
    // The driver also calls the control law once per recorded sample, for its energy.
    // The variational integrator calls it once per step (inputs are held over a step);
    // its work is in Newton iterations, which the library does not report.
    Ok(Run {
        name: name.into(),
        steps,
        evaluations: explicit.then(|| calls.get() - trajectory.len()),
        millis,
        h0,
        max_error: trajectory.energy_drift(),
        final_error: (h[h.len() - 1] - h0).abs(),
        envelope,
    })
}
