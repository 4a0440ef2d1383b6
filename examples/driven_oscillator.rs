//! A damped, harmonically driven oscillator swept through resonance.
//!
//! m ẍ + c ẋ + k x = F0 cos(ω t): the spring and the mass make T and V, the damper is the
//! Rayleigh function D = c ẋ²/2, and the drive is a `force` on x that depends on time.
//! Whatever the start, the free motion dies out as e^(−c t / 2m) and the oscillator
//! settles to the drive's frequency with the amplitude
//!
//!     A(ω) = F0 / sqrt((k − m ω²)² + (c ω)²),
//!
//! which peaks at ω_r = sqrt(k/m − c²/2m²), just below the natural frequency sqrt(k/m).
//! For each ω the example simulates past the transient, measures the amplitude as the
//! largest |x| over a period, and compares it with the formula.

mod common;

use common::{figure, Panel};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Simulation};

lagrangian! {
    /// m ẍ + c ẋ + k x = F0 cos(w t).
    pub struct Driven {
        parameters: m = 1.0 [kg], c = 0.4 [N*s/m], k = 4.0 [N/m], F0 = 1.0 [N], w = 2.0 [rad/s];
        coordinates: x [m];
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * x^2;
        dissipation = c/2 * dot(x)^2;
        force F0*cos(w*t) on x;
    }
}

/// Time after which the transient has decayed by e^(−c t / 2m) = e^(−20) ≈ 2e-9.
const SETTLE: f64 = 100.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base = Driven::default();
    let Driven { m, c, k, F0, .. } = base;
    let formula = |w: f64| F0 / ((k - m * w * w).powi(2) + (c * w).powi(2)).sqrt();

    // A coarse sweep for the curve, then a fine one around its largest amplitude.
    let measured = sweep(&base, (0..76).map(|i| 0.25 + 0.05 * f64::from(i)))?;
    let (w_coarse, _) = peak(&measured);
    let fine = sweep(&base, (-50..=50).map(|i| w_coarse + 1e-3 * f64::from(i)))?;
    let (w_peak, a_peak) = peak(&fine);

    let w_r = (k / m - c * c / (2.0 * m * m)).sqrt();
    let worst = measured
        .iter()
        .chain(&fine)
        .map(|&(w, a)| (a / formula(w) - 1.0).abs())
        .fold(0.0, f64::max);
    println!(
        "driven oscillator m = {m}, c = {c}, k = {k}, F0 = {F0}: natural frequency {:.4} rad/s",
        (k / m).sqrt()
    );
    println!("measured peak:  A = {a_peak:.5} m at ω = {w_peak:.5} rad/s");
    println!(
        "closed form:    A = {:.5} m at ω = {w_r:.5} rad/s",
        formula(w_r)
    );
    println!(
        "largest relative difference to the closed form over {} drive frequencies: {worst:.1e}",
        measured.len() + fine.len()
    );

    // One run at resonance from rest, for the picture of the transient.
    let times: Vec<f64> = (0..=4000).map(|j| f64::from(j) * 0.02).collect();
    let rest = State::at_rest(SVector::from([0.0]));
    let build_up = Simulation::new(&Driven { w: w_r, ..base }, rest)
        .run_at(&DormandPrince::new(1e-10, 1e-12), &times)?;
    let curve = (0..=250).map(|j| 0.25 + 3.75 * f64::from(j) / 250.0);
    figure("driven_oscillator", (1400, 600), |root| {
        let (left, right) = root.split_horizontally(760);
        Panel::new(
            "Resonance curve",
            "drive frequency ω [rad/s]",
            "steady-state amplitude [m]",
        )
        .line(
            "closed form F0 / √((k − mω²)² + (cω)²)",
            curve.map(|w| (w, formula(w))),
        )
        .points("simulated", measured.iter().copied())
        .draw(&left)?;
        Panel::new("Build-up at resonance, from rest", "t [s]", "x [m]")
            .line("", build_up.states().iter().map(|s| (s.t, s.q[0])))
            .draw(&right)
    })?;
    Ok(())
}

/// (ω, steady-state amplitude) for each drive frequency ω, simulated from rest.
fn sweep(
    base: &Driven,
    frequencies: impl Iterator<Item = f64>,
) -> Result<Vec<(f64, f64)>, Box<dyn std::error::Error>> {
    let rest = State::at_rest(SVector::from([0.0]));
    let solver = DormandPrince::new(1e-10, 1e-12);
    let mut measured = Vec::new();
    for w in frequencies {
        // 2000 samples over one period after settling: the largest |x| among them misses
        // the true peak by at most 1 − cos(π/2000) ≈ 1.2e-6 of it.
        let period = 2.0 * std::f64::consts::PI / w;
        let times: Vec<f64> = (0..=2000)
            .map(|j| SETTLE + period * f64::from(j) / 2000.0)
            .collect();
        let run = Simulation::new(&Driven { w, ..*base }, rest).run_at(&solver, &times)?;
        let amplitude = run
            .states()
            .iter()
            .map(|s| s.q[0].abs())
            .fold(0.0, f64::max);
        measured.push((w, amplitude));
    }
    Ok(measured)
}

/// The largest amplitude of a sweep, refined by the parabola through it and its two
/// neighbours.
fn peak(measured: &[(f64, f64)]) -> (f64, f64) {
    let i = (1..measured.len() - 1)
        .max_by(|&a, &b| measured[a].1.total_cmp(&measured[b].1))
        .unwrap_or(1);
    let [(w0, a0), (w1, a1), (_, a2)] = [measured[i - 1], measured[i], measured[i + 1]];
    let shift = 0.5 * (a0 - a2) / (a0 - 2.0 * a1 + a2);
    (w1 + shift * (w1 - w0), a1 - 0.25 * (a0 - a2) * shift)
}
