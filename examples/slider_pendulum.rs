//! A pendulum hanging from a slider on a frictionless horizontal rail, in Cartesian
//! coordinates: the reaction forces come out of the constraints' multipliers.
//!
//! The slider (mass m1) is at (x1, y1), the bob (mass m2) at (x2, y2). Two holonomic
//! constraints tie them down: `rail = y1` keeps the slider on the rail, `rod = |r1 − r2|² − l²`
//! keeps the bob at distance l. The constraint forces on the coordinates are −Φ_qᵀλ:
//!
//! - the rail pushes the slider up with N = −λ_rail (∂rail/∂y1 = 1);
//! - the rod pulls the bob towards the slider with −λ_rod ∂rod/∂r2 = 2 λ_rod (r1 − r2), a
//!   force of size 2 l λ_rod along the rod: the tension T = 2 l λ_rod (negative when the
//!   rod is compressed, which a rigid rod, unlike a string, can be).
//!
//! No external horizontal force acts, so the horizontal momentum m1 ẋ1 + m2 ẋ2 is conserved
//! and the slider recoils as the bob swings. Vertically, the slider does not move, so the
//! rail carries the weight of both masses plus the force that accelerates the bob:
//! N = (m1 + m2) g + m2 ÿ2, a check on the multipliers. And the centre of mass stays put
//! horizontally: the bob runs on an ellipse, not a circle, its horizontal swing scaled by
//! m1 / (m1 + m2).
//!
//! Run with `cargo run --release --example slider_pendulum`.

mod common;

use common::{figure, Panel};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Projected, Simulation};

lagrangian! {
    /// A slider on a horizontal rail with a pendulum hanging from it, in Cartesian coordinates.
    pub struct SliderPendulum {
        parameters: m1 = 2.0 [kg], m2 = 1.0 [kg], l = 1.0 [m], g = 9.81 [m/s^2];
        coordinates: x1 [m], y1 [m], x2 [m], y2 [m];

        kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * (dot(x2)^2 + dot(y2)^2);
        potential = g * (m1*y1 + m2*y2);

        constraint rail = y1;
        constraint rod = (x1 - x2)^2 + (y1 - y2)^2 - l^2;
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = SliderPendulum::default();
    let SliderPendulum { m1, m2, l, g } = model;
    let u = SVector::zeros();

    // Released at rest with the rod 100° from the downward vertical: above the horizontal,
    // so the rod starts out compressed.
    let angle = 100f64.to_radians();
    let start = State::at_rest(
        SliderPendulumCoordinates {
            x1: 0.0,
            y1: 0.0,
            x2: l * angle.sin(),
            y2: -l * angle.cos(),
        }
        .into(),
    );
    let times: Vec<f64> = (0..=500).map(|i| f64::from(i) * 1e-2).collect();
    let integrator = Projected::new(DormandPrince::new(1e-10, 1e-12));
    let trajectory = Simulation::new(&model, start).run_at(&integrator, &times)?;

    let (mut tension, mut normal, mut x1, mut x2) = (vec![], vec![], vec![], vec![]);
    let (mut momentum, mut check, mut violation) = (0.0f64, 0.0f64, 0.0f64);
    for s in trajectory.states() {
        let lambda = model.multipliers(s, &u)?;
        let c = SliderPendulumCoordinates::from(s.q);
        tension.push((s.t, 2.0 * l * lambda[1]));
        normal.push((s.t, -lambda[0]));
        x1.push((s.t, c.x1));
        x2.push((s.t, c.x2));
        let y2dd = model.accelerations(s, &u)?[3];
        check = check.max((-lambda[0] - (m1 + m2) * g - m2 * y2dd).abs());
        momentum = momentum.max((m1 * s.qd[0] + m2 * s.qd[2]).abs());
        let v = model.violation(s, &u);
        violation = violation.max(v.position).max(v.velocity);
    }
    let range = |v: &[(f64, f64)]| {
        let y = v.iter().map(|p| p.1);
        (
            y.clone().fold(f64::INFINITY, f64::min),
            y.fold(f64::NEG_INFINITY, f64::max),
        )
    };
    let ((t_min, t_max), (n_min, n_max)) = (range(&tension), range(&normal));
    println!("slider pendulum, m1 = {m1} kg, m2 = {m2} kg, l = {l} m, released at 100°");
    // At the lowest point both masses move horizontally, in opposite directions (zero total
    // momentum), and energy conservation gives the relative speed v: T = m2 g + m2 v² / l.
    let lowest = m2 * g * (1.0 + 2.0 * (1.0 - angle.cos()) * (1.0 + m2 / m1));
    println!("rod tension T from {t_min:.2} to {t_max:.2} N (closed form at the lowest point {lowest:.2} N)");
    println!(
        "rail normal force N from {n_min:.2} to {n_max:.2} N (total weight {:.2} N)",
        (m1 + m2) * g
    );
    println!(
        "|N − (m1 + m2) g − m2 ÿ2| ≤ {check:.1e} N; horizontal momentum ≤ {momentum:.1e} kg m/s"
    );
    println!("largest constraint violation (position or velocity): {violation:.1e}");
    println!("energy drift {:.1e} J", trajectory.energy_drift());

    // One swing of the bob, from release up to the far turning point, where ẏ2 turns
    // negative for the first time after the lowest point (the later swings retrace it).
    let states = trajectory.states();
    let turn = states
        .windows(2)
        .position(|w| w[0].qd[3] > 0.0 && w[1].qd[3] <= 0.0);
    let bob = states[..=turn.map_or(states.len() - 1, |i| i + 1)].iter();
    let travel = range(&x1);
    let weight = [(0.0, (m1 + m2) * g), (trajectory.last().t, (m1 + m2) * g)];
    figure("slider_pendulum", (1400, 900), |root| {
        let (top, bottom) = root.split_vertically(450);
        let (left, right) = bottom.split_horizontally(880);
        Panel::new("Reaction forces", "t [s]", "force [N]")
            .line("rod tension T = 2 l λ_rod", tension)
            .line("rail normal force N = −λ_rail", normal)
            .line("total weight (m1 + m2) g", weight)
            .draw(&top)?;
        Panel::new("Horizontal positions", "t [s]", "x [m]")
            .line("slider x1", x1)
            .line("bob x2", x2)
            .draw(&left)?;
        Panel::new("Path of the bob", "x2 [m]", "y2 [m]")
            .line("bob", bob.map(|s| (s.q[2], s.q[3])))
            .line("slider's travel", [(travel.0, 0.0), (travel.1, 0.0)])
            .x_range(-0.6..1.45) // equal scales on both axes
            .y_range(-1.15..0.55)
            .draw(&right)
    })?;
    Ok(())
}
