//! A four-bar linkage driven at constant crank speed: a closed kinematic chain.
//!
//! Ground pivots O = (0, 0) and D = (d, 0); the crank OA (angle θ1), the coupler AB (θ2)
//! and the rocker DB (θ3) are uniform bars in a vertical plane, all angles from the +x
//! axis. Closing the loop O → A → B → D → O gives two holonomic constraints, and a third,
//! `drive = θ1 − ω t`, is a driving (time-dependent) constraint: the motor turns the crank
//! at constant speed whatever the load. Three coordinates, three constraints: the motion
//! is fixed by the kinematics, and the dynamics tell what the constraints must do for it.
//!
//! The multiplier λ_drive gives the motor torque. The generalized force of a constraint
//! on the coordinates is −Φ_qᵀλ and ∂drive/∂θ1 = 1, so the motor torque on the crank is
//! τ = −λ_drive. (`reaction_forces()[θ1]` would be the sum of the torque from the motor and
//! the torque from the coupler's pin force at A.) The loop-closure constraints do no
//! work, so the motor's power τ ω is the rate of change of T + V: the check at the end.
//!
//! Run with `cargo run --release --example four_bar`.

mod common;

use common::{figure, Panel};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Projected, Simulation};

lagrangian! {
    /// A crank-rocker four-bar linkage of uniform bars, the crank driven at `w` (60 rpm).
    pub struct FourBar {
        parameters: l1 = 0.1 [m], l2 = 0.35 [m], l3 = 0.3 [m], d = 0.4 [m],
                    m1 = 0.5 [kg], m2 = 1.2 [kg], m3 = 1.0 [kg], g = 9.81 [m/s^2],
                    w = 2*pi [rad/s];
        coordinates: theta1 [rad], theta2 [rad], theta3 [rad];

        // Crank tip A and centre of mass of the coupler.
        let xa = l1 * cos(theta1);
        let ya = l1 * sin(theta1);
        let xc = xa + l2/2 * cos(theta2);
        let yc = ya + l2/2 * sin(theta2);

        // Crank and rocker turn about fixed pivots (J = m l²/3); the coupler translates
        // with its centre of mass and turns about it (J = m l²/12).
        kinetic = m1*l1^2/6 * dot(theta1)^2 + m3*l3^2/6 * dot(theta3)^2
            + m2/2 * (dot(xc)^2 + dot(yc)^2) + m2*l2^2/24 * dot(theta2)^2;
        potential = g * (m1*ya/2 + m2*yc + m3*l3/2 * sin(theta3));

        constraint loop_x = xa + l2*cos(theta2) - l3*cos(theta3) - d;
        constraint loop_y = ya + l2*sin(theta2) - l3*sin(theta3);
        constraint drive = theta1 - w * t;
    }
}

/// The traced coupler point: 0.2 m along AB from A, 0.12 m to its left.
fn coupler_point(model: &FourBar, q: &SVector<f64, 3>) -> (f64, f64) {
    let FourBarCoordinates { theta1, theta2, .. } = (*q).into();
    let (along, across) = (0.2, 0.12);
    (
        model.l1 * theta1.cos() + along * theta2.cos() - across * theta2.sin(),
        model.l1 * theta1.sin() + along * theta2.sin() + across * theta2.cos(),
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = FourBar::default();
    let u = SVector::zeros();
    // A rough guess of the assembled linkage at t = 0 (elbow up), moving at crank speed,
    // projected onto the constraints: positions by Newton, then velocities exactly.
    let guess = FourBarCoordinates {
        theta1: 0.0,
        theta2: 1.0,
        theta3: 1.9,
    };
    let omega = model.w;
    let speed = FourBarCoordinates {
        theta1: omega,
        theta2: 0.0,
        theta3: 0.0,
    };
    let start = model.project(&State::new(0.0, guess.into(), speed.into()), &u, &[], 1e-13)?;

    // Two crank revolutions, projected back onto the constraints after every step.
    let times: Vec<f64> = (0..=1000).map(|i| f64::from(i) * 2e-3).collect();
    let integrator = Projected::new(DormandPrince::new(1e-10, 1e-12));
    let trajectory = Simulation::new(&model, start).run_at(&integrator, &times)?;

    let (mut curve, mut torque) = (Vec::new(), Vec::new());
    let (mut work, mut worst, mut violation, mut swing) = (0.0, 0.0f64, 0.0f64, 0.0f64);
    let (e0, mut previous) = (trajectory.energies()[0], None);
    for (s, e) in trajectory.states().iter().zip(trajectory.energies()) {
        let tau = -model.multipliers(s, &u)?[2];
        if let Some((t0, p0)) = previous {
            work += (s.t - t0) * (p0 + tau * s.qd[0]) / 2.0; // ∫ τ ω dt, trapezoid rule
        }
        previous = Some((s.t, tau * s.qd[0]));
        worst = worst.max((work - (e - e0)).abs());
        swing = swing.max((e - e0).abs());
        let v = model.violation(s, &u);
        violation = violation.max(v.position).max(v.velocity);
        if s.q[0] <= 2.0 * std::f64::consts::PI + 1e-6 {
            curve.push(coupler_point(&model, &s.q)); // one revolution: the curve is closed
        }
        torque.push((s.q[0].to_degrees(), tau));
    }
    let extent = |f: fn(&(f64, f64)) -> f64| {
        let v = curve.iter().map(f);
        (
            v.clone().fold(f64::INFINITY, f64::min),
            v.fold(f64::NEG_INFINITY, f64::max),
        )
    };
    let ((x0, x1), (y0, y1)) = (extent(|p| p.0), extent(|p| p.1));
    let peak = torque.iter().map(|p| p.1.abs()).fold(0.0, f64::max);
    println!(
        "four-bar crank-rocker, crank at {} rpm",
        model.w * 30.0 / std::f64::consts::PI
    );
    println!("coupler curve: x in [{x0:.4}, {x1:.4}] m, y in [{y0:.4}, {y1:.4}] m");
    println!("peak driving torque |τ| = {peak:.3} N m");
    println!("largest constraint violation (position or velocity): {violation:.1e}");
    println!("T + V varies by up to {swing:.3} J; the motor's work ∫τω dt matches it within {worst:.1e} J");

    // The linkage at t = 0 over the coupler curve: bars O-A-B-D and the coupler plate A-P-B.
    let FourBarCoordinates { theta1, theta2, .. } = start.q.into();
    let a = (model.l1 * theta1.cos(), model.l1 * theta1.sin());
    let b = (a.0 + model.l2 * theta2.cos(), a.1 + model.l2 * theta2.sin());
    let p = coupler_point(&model, &start.q);
    let (o, d) = ((0.0, 0.0), (model.d, 0.0));
    figure("four_bar", (1400, 700), |root| {
        let (left, right) = root.split_horizontally(620);
        Panel::new("Coupler curve", "x [m]", "y [m]")
            .line("path of the coupler point P", curve)
            .line("bars at t = 0", [o, a, b, d])
            .line("coupler plate A-P-B", [a, p, b])
            .points("", [o, d, p])
            .x_range(-0.15..0.5) // equal scales on both axes
            .y_range(-0.15..0.6)
            .draw(&left)?;
        Panel::new(
            "Motor torque on the crank",
            "crank angle θ1 [deg]",
            "τ [N m]",
        )
        .line("τ = −λ_drive", torque)
        .draw(&right)
    })?;
    Ok(())
}
