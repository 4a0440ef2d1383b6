//! A ball thrown across a floor, bouncing with a coefficient of restitution e: an impact
//! law applied at events.
//!
//! Between impacts the ball is a projectile (x, y) under gravity with a little air drag.
//! A stopping event `floor` watches y falling through 0; the run ends at the located
//! impact, the impact law reverses and scales the vertical velocity (v_y → −e v_y), and a
//! new run starts from there. Without drag, impact k comes at t₀ + 2 v₀ (e + … + e^k) / g
//! with t₀ and v₀ the first fall's time and speed; the example prints the first impacts
//! of the drag-free ball against that formula, then draws the path of the dragged one.
//! A recording event counts the apexes (v_y crossing 0 downward) on the way.

mod common;

use common::{figure, Panel};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Event, Simulation, Trajectory};

lagrangian! {
    /// A ball in the vertical plane, with linear air drag c.
    pub struct Ball {
        parameters: m = 0.2 [kg], g = 9.81 [m/s^2], c = 0.0 [N*s/m];
        coordinates: x [m], y [m];
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = m * g * y;
        dissipation = c/2 * (dot(x)^2 + dot(y)^2);
    }
}

/// The impacts of `ball` thrown from `start` until `t_end`, restitution `e`: the pieces of
/// its path between impacts, and the number of apexes.
fn bounce(
    ball: &Ball,
    mut start: State<2>,
    e: f64,
    t_end: f64,
) -> Result<(Vec<Trajectory<2>>, usize), Box<dyn std::error::Error>> {
    let mut pieces = Vec::new();
    let mut apexes = 0;
    while start.t < t_end && pieces.len() < 50 {
        let piece = Simulation::new(ball, start)
            .event(Event::stop("floor", |_t, s: &State<2>| s.q[1]).falling())
            .event(Event::record("apex", |_t, s: &State<2>| s.qd[1]).falling())
            .run(&DormandPrince::new(1e-10, 1e-12), t_end)?;
        apexes += piece.crossings().len();
        let Some(impact) = piece.stopped_by() else {
            pieces.push(piece);
            break;
        };
        // The impact law: on the floor, the vertical velocity reversed and scaled by e.
        start = impact.state;
        start.q[1] = 0.0;
        start.qd[1] *= -e;
        pieces.push(piece);
        if start.qd[1] < 1e-3 {
            break; // at rest on the floor (the bounces would accumulate without end)
        }
    }
    Ok((pieces, apexes))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (h, e) = (1.0, 0.8);
    let thrown = State::new(0.0, SVector::from([0.0, h]), SVector::from([1.5, 0.0]));

    let ball = Ball::default();
    let (pieces, apexes) = bounce(&ball, thrown, e, 4.0)?;
    let g = ball.g;
    let (t0, v0) = ((2.0 * h / g).sqrt(), (2.0 * g * h).sqrt());
    println!("impacts without drag (e = {e}):");
    println!(
        "{:>3} {:>14} {:>14} {:>10}",
        "k", "simulated [s]", "formula [s]", "error"
    );
    let mut formula = t0;
    for (k, piece) in pieces.iter().enumerate().take(8) {
        if let Some(impact) = piece.stopped_by() {
            let t = impact.state.t;
            println!("{k:>3} {t:>14.10} {formula:>14.10} {:>10.1e}", t - formula);
            formula += 2.0 * v0 * e.powi(k as i32 + 1) / g;
        }
    }
    println!("{} impacts and {apexes} apexes in 4 s", pieces.len() - 1);

    let dragged = Ball { c: 0.05, ..ball };
    let (dragged_pieces, _) = bounce(&dragged, thrown, e, 4.0)?;
    // Each piece drawn at 100 instants, interpolated between the integrator's samples.
    let path = |pieces: &[Trajectory<2>]| -> Vec<(f64, f64)> {
        pieces
            .iter()
            .flat_map(|p| {
                let (a, b) = (p.states()[0].t, p.last().t);
                (0..=100).filter_map(move |i| p.at(a + (b - a) * f64::from(i) / 100.0))
            })
            .map(|s| (s.q[0], s.q[1]))
            .collect()
    };
    let impacts = |pieces: &[Trajectory<2>]| -> Vec<(f64, f64)> {
        pieces
            .iter()
            .filter_map(|p| p.stopped_by())
            .map(|c| (c.state.q[0], c.state.q[1]))
            .collect()
    };
    figure("bouncing_ball", (1200, 600), |root| {
        Panel::new("A bouncing ball (e = 0.8)", "x [m]", "y [m]")
            .line("no drag", path(&pieces))
            .line("air drag c = 0.05", path(&dragged_pieces))
            .points("impacts (located by the event)", impacts(&pieces))
            .draw(root)
    })?;
    Ok(())
}
