//! A Furuta pendulum held upright by a digital controller: a discrete LQR with integral
//! action on the arm angle and a Kalman observer from the two angle encoders, running at
//! 500 Hz with its torque held between samples, recovering from a push.
//!
//! The plant: an arm turning about the vertical (angle φ, driven by the motor torque τ)
//! carries at its tip a pendulum swinging in the plane normal to the arm (θ from upright),
//! with the proportions of a small laboratory rig. Upright at rest is an unstable
//! equilibrium.
//!
//! The design, all from the model: `linearize` at upright; `control::c2d` samples it
//! exactly with a zero-order hold at Ts = 2 ms; `control::dlqi` adds the integral of the
//! arm's error ξ_{k+1} = ξ_k + Ts (φ_ref − φ_k) and designs the gain on (x, ξ);
//! `control::dlqe` designs the observer from the encoders (φ, θ), each quantized to 4096
//! counts per turn, whose rounding is a noise of variance q²/12. The controller
//! (`SampledController`) quantizes the encoders, corrects its prediction, applies
//! τ_k = −K_x x̂_k − K_ξ ξ_k, and predicts the next state; the simulation holds τ_k until the
//! next sample.
//!
//! The check: by the separation principle the closed loop's multipliers are those of the
//! regulator (the augmented A − B K) and of the observer (A − A M C). With exact encoders
//! (no quantization), the slowest of them, ln|z|/Ts, must be the decay rate the nonlinear
//! simulation shows once the fast modes have died out. With the encoders quantized the
//! motion ends in a small limit cycle of a few counts, which the plot shows.
//!
//! Run with `cargo run --release --example furuta_digital`; it writes
//! `target/plots/furuta_digital.png`.

mod common;

use common::{figure, Panel};
use lagrange_runtime::control::{c2d, dlqe, dlqi, DiscreteSpectrum};
use lagrange_runtime::linearize::linearize;
use lagrange_runtime::nalgebra::{DMatrix, DVector};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, SampledController, Simulation};
use std::f64::consts::PI;

lagrangian! {
    /// A Furuta (rotary inverted) pendulum: a uniform arm of radius r turning about the
    /// vertical, and at its tip a uniform rod of length lp swinging in the plane normal to
    /// the arm; θ = 0 is upright. Viscous friction in both joints.
    pub struct Furuta {
        parameters: r = 0.085, jr = 2.3e-4, mp = 0.024, lp = 0.129, br = 5e-4, bp = 2e-5,
                    g = 9.81;
        coordinates: phi, theta;
        inputs: tau;
        // The rod's centre of mass.
        let c = [r * cos(phi) - lp / 2 * sin(theta) * sin(phi),
                 r * sin(phi) + lp / 2 * sin(theta) * cos(phi),
                 lp / 2 * cos(theta)];
        // Arm, rod's centre, and the rod turning about its centre (a thin rod: about its
        // two axes normal to it, at θ̇ and at φ̇ sin θ).
        kinetic = jr / 2 * dot(phi)^2 + mp / 2 * dot(c)^2
                + mp * lp^2 / 24 * (dot(theta)^2 + sin(theta)^2 * dot(phi)^2);
        potential = mp * g * c.z;
        dissipation = br / 2 * dot(phi)^2 + bp / 2 * dot(theta)^2;
        force tau on phi;
    }
}

/// The sample period: 500 Hz.
const TS: f64 = 0.002;
/// One encoder count: 4096 counts per turn.
const COUNT: f64 = 2.0 * PI / 4096.0;

/// The digital controller: quantized encoders, a Kalman observer of (φ, θ, φ̇, θ̇), the
/// integral of the arm's error, and the LQI gain.
struct Digital {
    ad: SMatrix<f64, 4, 4>,
    bd: SVector<f64, 4>,
    /// Innovation gain M (4 × 2) of `dlqe`.
    m: SMatrix<f64, 4, 2>,
    /// K = [K_x, K_ξ] of `dlqi`.
    k: SVector<f64, 5>,
    /// The arm's reference angle.
    reference: f64,
    /// Whether the encoders round to whole counts.
    quantized: bool,
    /// The predicted state x̂⁻ (4) and the integral ξ, as recorded in the trajectory.
    state: [f64; 5],
}

impl Digital {
    fn read(&self, angle: f64) -> f64 {
        if self.quantized {
            (angle / COUNT).round() * COUNT
        } else {
            angle
        }
    }
}

impl SampledController<2, 1> for Digital {
    fn period(&self) -> f64 {
        TS
    }

    fn update(&mut self, _t: f64, s: &State<2>) -> SVector<f64, 1> {
        let y = SVector::<f64, 2>::new(self.read(s.q[0]), self.read(s.q[1]));
        let prior = SVector::<f64, 4>::from_column_slice(&self.state[..4]);
        let estimate = prior + self.m * (y - prior.fixed_rows::<2>(0));
        let xi = self.state[4];
        let tau = -(self.k.fixed_rows::<4>(0).dot(&estimate) + self.k[4] * xi);
        let next = self.ad * estimate + self.bd * tau;
        self.state[..4].copy_from_slice(next.as_slice());
        self.state[4] = xi + TS * (self.reference - y[0]);
        SVector::from([tau])
    }

    fn state_names(&self) -> &[&str] {
        &["phi_hat", "theta_hat", "dphi_hat", "dtheta_hat", "xi"]
    }

    fn state(&self) -> &[f64] {
        &self.state
    }
}

/// The least-squares slope of ln‖x‖ against t: the decay rate of the slowest mode once the
/// others have died out.
fn decay_rate(samples: &[(f64, f64)]) -> f64 {
    let n = samples.len() as f64;
    let (st, sy) = samples
        .iter()
        .fold((0.0, 0.0), |(a, b), &(t, x)| (a + t, b + x.ln()));
    let (mt, my) = (st / n, sy / n);
    let (num, den) = samples.iter().fold((0.0, 0.0), |(a, b), &(t, x)| {
        (a + (t - mt) * (x.ln() - my), b + (t - mt) * (t - mt))
    });
    num / den
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = Furuta::default();
    let upright = State::at_rest(SVector::zeros());
    let lin = linearize(&model, &upright, &SVector::zeros())?;
    let (ad, bd) = c2d(&lin.a(), &lin.b(), TS)?;

    // Regulator on (φ, θ, φ̇, θ̇, ξ), by Bryson's rule: 0.5 rad of arm, 0.05 rad of
    // pendulum, 5 and 5 rad/s, an integral of 0.5 rad·s, 0.1 N·m of torque.
    let arm = DMatrix::from_row_slice(1, 4, &[1.0, 0.0, 0.0, 0.0]);
    let q = DMatrix::from_diagonal(&DVector::from_vec(vec![4.0, 400.0, 0.04, 0.04, 4.0]));
    let r = DMatrix::from_element(1, 1, 100.0);
    let (k, _) = dlqi(&ad, &bd, &arm, &q, &r, TS)?;

    // Observer from the two encoders: rounding to a count is a noise of variance q²/12;
    // the process noise is a torque disturbance of 1e-3 N·m per sample on both joints'
    // velocities, and a little on the angles.
    let encoders = DMatrix::from_row_slice(2, 4, &[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    let w = DMatrix::from_diagonal(&DVector::from_vec(vec![1e-10, 1e-10, 1e-4, 1e-4]));
    let v = DMatrix::identity(2, 2) * (COUNT * COUNT / 12.0);
    let (m, _) = dlqe(&ad, &encoders, &w, &v)?;

    // The closed loop's multipliers: the regulator's and the observer's.
    let mut regulator = DMatrix::zeros(5, 5);
    regulator.view_mut((0, 0), (4, 4)).copy_from(&ad);
    regulator.view_mut((4, 0), (1, 4)).copy_from(&(-&arm * TS));
    regulator[(4, 4)] = 1.0;
    let mut b5 = DMatrix::zeros(5, 1);
    b5.view_mut((0, 0), (4, 1)).copy_from(&bd);
    let regulator = &regulator - &b5 * &k;
    let observer = &ad - &ad * &m * &encoders;
    let mut closed = DMatrix::zeros(9, 9);
    closed.view_mut((0, 0), (5, 5)).copy_from(&regulator);
    closed.view_mut((5, 5), (4, 4)).copy_from(&observer);
    let spectrum = DiscreteSpectrum::new(&closed, TS)?;
    let slowest = spectrum.continuous_eigenvalues()[0];
    println!("Furuta pendulum, 500 Hz discrete LQI with a Kalman observer");
    println!(
        "K = [{:.4} N·m/rad, {:.4} N·m/rad, {:.4} N·m·s/rad, {:.4} N·m·s/rad; {:.4} N·m/(rad·s)]",
        k[0], k[1], k[2], k[3], k[4]
    );
    println!(
        "closed-loop multipliers |z| ≤ {:.6} (spectral radius); slowest mode ln(z)/Ts = {:.4}{:+.4}i /s",
        spectrum.spectral_radius(),
        slowest.re,
        slowest.im
    );
    if spectrum.spectral_radius() >= 1.0 {
        return Err("the discrete design is not stable".into());
    }

    let controller = |quantized: bool| Digital {
        ad: SMatrix::from_fn(|i, j| ad[(i, j)]),
        bd: SVector::from_fn(|i, _| bd[(i, 0)]),
        m: SMatrix::from_fn(|i, j| m[(i, j)]),
        k: SVector::from_fn(|i, _| k[(0, i)]),
        reference: 0.0,
        quantized,
        state: [0.0; 5],
    };
    // A push: the pendulum swinging at 1.5 rad/s through upright, the arm at rest.
    let start = State::new(0.0, SVector::zeros(), SVector::from([0.0, 1.5]));
    let times: Vec<f64> = (0..=2000).map(|i| f64::from(i) * 0.005).collect();
    let integrator = DormandPrince::new(1e-10, 1e-12);

    // Exact encoders: the decay rate against the slowest multiplier.
    let exact = Simulation::new(&model, start)
        .controller(controller(false))
        .run_at(&integrator, &times)?;
    let size: Vec<(f64, f64)> = exact
        .states()
        .iter()
        .map(|s| (s.t, s.q.norm().hypot(s.qd.norm())))
        .collect();
    let window: Vec<(f64, f64)> = size
        .iter()
        .copied()
        .filter(|&(t, x)| t >= 3.0 && x > 1e-9)
        .collect();
    let measured = decay_rate(&window);
    println!(
        "exact encoders: decay rate from t = 3 s on {measured:.4} /s, slowest multiplier's {:.4} /s",
        slowest.re
    );
    if (measured - slowest.re).abs() > 0.05 * slowest.re.abs() {
        return Err("the simulated decay does not follow the design's slowest mode".into());
    }

    // Encoders of 4096 counts per turn: the same recovery, ending in a limit cycle of a few
    // counts.
    let quantized = Simulation::new(&model, start)
        .controller(controller(true))
        .run_at(&integrator, &times)?;
    let late = quantized.states().iter().filter(|s| s.t >= 5.0);
    let (arm_late, pendulum_late) = late.fold((0.0f64, 0.0f64), |(a, p), s| {
        (a.max(s.q[0].abs()), p.max(s.q[1].abs()))
    });
    let largest_tau = quantized
        .inputs()
        .iter()
        .map(|u| u[0].abs())
        .fold(0.0, f64::max);
    println!(
        "4096-count encoders: largest |τ| {largest_tau:.3} N·m; after 5 s |φ| ≤ {:.1} counts, |θ| ≤ {:.1} counts",
        arm_late / COUNT,
        pendulum_late / COUNT
    );
    if pendulum_late > 5.0 * COUNT {
        return Err("the quantized loop did not settle near upright".into());
    }

    let series = |run: &lagrange_runtime::simulate::Trajectory<2, 1>,
                  f: &dyn Fn(&State<2>) -> f64| {
        run.states().iter().map(|s| (s.t, f(s))).collect::<Vec<_>>()
    };
    let torque = |run: &lagrange_runtime::simulate::Trajectory<2, 1>| {
        run.states()
            .iter()
            .zip(run.inputs())
            .map(|(s, u)| (s.t, u[0]))
            .collect::<Vec<_>>()
    };
    let envelope: Vec<(f64, f64)> = times
        .iter()
        .map(|&t| (t, window[0].1 * ((t - window[0].0) * slowest.re).exp()))
        .collect();
    figure("furuta_digital", (1400, 1300), |root| {
        let panels = root.split_evenly((4, 1));
        Panel::new("Pendulum angle from upright", "t [s]", "θ [rad]")
            .line("4096-count encoders", series(&quantized, &|s| s.q[1]))
            .line("exact encoders", series(&exact, &|s| s.q[1]))
            .draw(&panels[0])?;
        Panel::new("Arm angle", "t [s]", "φ [rad]")
            .line("4096-count encoders", series(&quantized, &|s| s.q[0]))
            .line("exact encoders", series(&exact, &|s| s.q[0]))
            .draw(&panels[1])?;
        Panel::new("Motor torque, held between samples", "t [s]", "τ [N·m]")
            .line("4096-count encoders", torque(&quantized))
            .line("exact encoders", torque(&exact))
            .draw(&panels[2])?;
        Panel::new("Size of the state, exact encoders", "t [s]", "‖(q, q̇)‖")
            .log_y()
            .line("simulated", size.clone())
            .line("slowest multiplier's rate", envelope)
            .draw(&panels[3])
    })?;
    Ok(())
}
