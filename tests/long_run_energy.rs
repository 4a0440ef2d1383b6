//! Energy over 10⁵ steps of a double pendulum: bounded for the variational integrator,
//! drifting for RK4.
//!
//! ```text
//! L = m1/2 |ṙ1|² + m2/2 |ṙ2|² − g (m1 y1 + m2 y2),    h = T + V conserved exactly
//! ```
//!
//! A symplectic integrator exactly conserves a modified energy h̃ = h + O(h_step²) over
//! exponentially long times (backward error analysis), so its error h − h₀ oscillates
//! inside a band of fixed width and shows no trend. RK4 is not symplectic: on oscillatory
//! motion its stability function has |R(iωh)| = 1 − (ωh)⁶/144 + … < 1, so it loses energy
//! at a steady rate and its error grows linearly with time.
//!
//! Measure: the largest |h − h₀| over each tenth of the run. No trend means the first and
//! last tenths (and all between) have maxima of the same size; a linear drift means the
//! maxima grow tenth by tenth, the last ≈ 10× the first.
//!
//! Step h = 0.02 (the fastest normal mode has ω ≈ 5.8 rad/s, so ωh ≈ 0.12): large enough
//! that RK4's drift is plain (≈ 4.7e-6 per second of simulated time), small enough that the
//! variational band (≈ 3e-3) is tight. 10⁵ steps take ≈ 0.25 s per run with the dev
//! profile (opt-level 1).

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::*;
use std::time::Instant;

use lagrange_test_models::double_pendulum::*;

const STEPS: usize = 100_000;

/// Runs 10⁵ steps of h from rest at (θ1, θ2); returns the trajectory and prints the time.
fn run<I: Integrator<DoublePendulum, 2, 0>>(
    name: &str,
    integrator: &I,
    h: f64,
    theta1: f64,
    theta2: f64,
) -> Trajectory<2> {
    let model = DoublePendulum::default();
    let start = DoublePendulumCoordinates { theta1, theta2 };
    let s0 = State::new(0.0, start.into(), SVector::zeros());
    let clock = Instant::now();
    let trajectory = Simulation::new(&model, s0)
        .run(integrator, h * STEPS as f64)
        .unwrap();
    println!("{name}: {STEPS} steps in {:.2?}", clock.elapsed());
    assert_eq!(trajectory.len(), STEPS + 1);
    trajectory
}

/// max |h − h₀| over each tenth of the run.
fn tenths(trajectory: &Trajectory<2>) -> [f64; 10] {
    let e = trajectory.energies();
    let h0 = e[0];
    let n = e.len();
    std::array::from_fn(|k| {
        e[k * n / 10..(k + 1) * n / 10]
            .iter()
            .map(|h| (h - h0).abs())
            .fold(0.0, f64::max)
    })
}

fn show(xs: &[f64]) -> Vec<String> {
    xs.iter().map(|x| format!("{x:.2e}")).collect()
}

/// No trend: every tenth's maximum within 25 % of the first tenth's (measured: all
/// 3.06e-3 … 3.10e-3 for θ = (1, 0.5), h₀ = −19.21), and small: 2e-4 relative.
#[test]
fn variational_energy_error_stays_bounded() {
    let trajectory = run("variational", &Variational::new(0.02), 0.02, 1.0, 0.5);
    let band = tenths(&trajectory);
    let h0 = trajectory.energies()[0];
    println!(
        "variational, h0 = {h0:.4}: max |h − h0| per tenth {:?}",
        show(&band)
    );
    for (k, b) in band.iter().enumerate() {
        assert!(
            *b < 2e-4 * h0.abs(),
            "tenth {k}: energy error {b:e} for h0 = {h0}"
        );
        assert!(
            (b / band[0] - 1.0).abs() < 0.25,
            "tenth {k}: {b:e} against {:e} in the first: a trend",
            band[0]
        );
    }
}

/// A trend: the maxima grow every tenth, the last ≈ 10× the first (measured: 9.5e-4,
/// 1.9e-3, …, 9.45e-3), and the energy only goes down (RK4 dissipates on oscillatory
/// motion). By the end RK4 is worse than the variational integrator at the same step,
/// though it began three times better.
#[test]
fn rk4_energy_drifts() {
    let trajectory = run("RK4", &Rk4::new(0.02), 0.02, 1.0, 0.5);
    let drift = tenths(&trajectory);
    let e = trajectory.energies();
    let h0 = e[0];
    println!(
        "RK4, h0 = {h0:.4}: max |h − h0| per tenth {:?}",
        show(&drift)
    );
    for w in drift.windows(2) {
        assert!(
            w[1] > w[0],
            "RK4 energy error does not grow: {:?}",
            show(&drift)
        );
    }
    let ratio = drift[9] / drift[0];
    assert!((8.0..12.0).contains(&ratio), "last/first tenth = {ratio}");
    // Linear drift: the error at the middle of the run is half that at its end.
    let (mid, end) = (e[STEPS / 2] - h0, e[STEPS] - h0);
    assert!(end < 0.0 && mid < 0.0, "RK4 loses energy: {mid:e}, {end:e}");
    assert!((mid / end - 0.5).abs() < 0.1, "mid {mid:e}, end {end:e}");
    // Visible: 5e-4 relative at the end, beyond the variational band of 2e-4.
    assert!(drift[9] > 4e-4 * h0.abs(), "RK4 drift {:e}", drift[9]);
}

/// Also in the chaotic regime (θ = (2, 1) from rest, h = 0.01): the variational band stays
/// level (measured 9.3e-2 … 9.7e-2), while RK4 drifts from 8.3e-3 to 7.5e-2 (×9).
#[test]
fn chaotic_motion_bounded_versus_drifting() {
    let vi = tenths(&run(
        "variational (chaotic)",
        &Variational::new(0.01),
        0.01,
        2.0,
        1.0,
    ));
    let rk4 = tenths(&run("RK4 (chaotic)", &Rk4::new(0.01), 0.01, 2.0, 1.0));
    println!("chaotic: variational per tenth {:?}", show(&vi));
    println!("chaotic: RK4 per tenth {:?}", show(&rk4));
    let vi_ratio = vi[9] / vi[0];
    let rk4_ratio = rk4[9] / rk4[0];
    assert!(
        (0.8..1.25).contains(&vi_ratio),
        "variational last/first {vi_ratio}"
    );
    assert!(
        vi.iter().all(|b| *b < 0.15),
        "variational band {:?}",
        show(&vi)
    );
    assert!(rk4_ratio > 6.0, "RK4 last/first {rk4_ratio}");
}

/// Exact derivatives against central differences (`common::derivatives`).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("DoublePendulum", &DoublePendulum::default())
        .standard()
        .check();
}
