//! Two carts on a rail, each carrying a swinging pendulum: four coupled degrees of freedom.
//!
//! Cart 1 (mass m1, position x1) is tied to the wall by a spring k1, cart 2 (m2, x2) to
//! cart 1 by a spring k2; both springs are relaxed at x = 0. Each cart carries a rigid
//! pendulum (mass m3/m4, moment of inertia J3/J4 about its pivot, centre of mass at L1/L2
//! from it, angle th1/th2 from the downward vertical). The kinetic energy is written the
//! König way: translation of each centre of mass plus rotation about it, with
//! J_c = J − m L² by Steiner's theorem.
//!
//! Only cart 1 starts displaced, everything at rest. The springs pass the motion on to
//! cart 2, and the carts' accelerations swing the pendulums (a cart that accelerates to
//! the right makes its pendulum lag behind, to the left). No force does work, so the energy
//! h = T + V is conserved; the summary shows how well the integrator keeps it.

mod common;

use common::{figure, Panel};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Simulation};

lagrangian! {
    /// Two spring-coupled carts, each carrying a physical pendulum.
    pub struct TwoCarts {
        parameters: m1 = 1.5 [kg], m2 = 0.8 [kg], m3 = 0.4 [kg], m4 = 0.3 [kg],
            J3 = 0.05 [kg*m^2], J4 = 0.04 [kg*m^2], L1 = 0.3 [m], L2 = 0.25 [m],
            k1 = 40.0 [N/m], k2 = 25.0 [N/m], g = 9.81 [m/s^2];
        coordinates: x1 [m], x2 [m], th1 [rad], th2 [rad];

        // Centres of mass of the two pendulums.
        let xc1 = x1 + L1 * sin(th1);
        let yc1 = -L1 * cos(th1);
        let xc2 = x2 + L2 * sin(th2);
        let yc2 = -L2 * cos(th2);

        kinetic = m1/2 * dot(x1)^2 + m2/2 * dot(x2)^2
            + m3/2 * (dot(xc1)^2 + dot(yc1)^2) + (J3 - m3*L1^2)/2 * dot(th1)^2
            + m4/2 * (dot(xc2)^2 + dot(yc2)^2) + (J4 - m4*L2^2)/2 * dot(th2)^2;
        potential = k1/2 * x1^2 + k2/2 * (x2 - x1)^2 + g * (m3*yc1 + m4*yc2);
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = TwoCarts::default();
    let q0 = TwoCartsCoordinates {
        x1: 0.1,
        ..Default::default()
    };
    let times: Vec<f64> = (0..=2000).map(|i| f64::from(i) * 0.01).collect();
    let trajectory = Simulation::new(&model, State::at_rest(q0.into()))
        .run_at(&DormandPrince::new(1e-10, 1e-12), &times)?;

    // Named coordinates instead of indices: the compiler checks the field names.
    let q: Vec<(f64, TwoCartsCoordinates)> = trajectory
        .states()
        .iter()
        .map(|s| (s.t, s.q.into()))
        .collect();
    let series = |f: fn(&TwoCartsCoordinates) -> f64| q.iter().map(move |(t, c)| (*t, f(c)));
    let largest =
        |f: fn(&TwoCartsCoordinates) -> f64| q.iter().map(|(_, c)| f(c).abs()).fold(0.0, f64::max);

    println!("two carts with pendulums, 20 s from x1 = 0.1 m at rest (Dormand-Prince, rtol 1e-10)");
    println!(
        "largest |x1| = {:.4} m, |x2| = {:.4} m",
        largest(|c| c.x1),
        largest(|c| c.x2)
    );
    println!(
        "largest |th1| = {:.4} rad, |th2| = {:.4} rad",
        largest(|c| c.th1),
        largest(|c| c.th2)
    );
    println!(
        "energy h0 = {:.6} J, largest |h - h0| = {:.1e} J",
        trajectory.energies()[0],
        trajectory.energy_drift()
    );

    figure("two_carts", (1400, 900), |root| {
        let (top, bottom) = root.split_vertically(450);
        Panel::new("Cart positions", "t [s]", "position [m]")
            .line("x1 (cart 1, wall spring)", series(|c| c.x1))
            .line("x2 (cart 2)", series(|c| c.x2))
            .draw(&top)?;
        Panel::new(
            "Pendulum angles from the downward vertical",
            "t [s]",
            "angle [rad]",
        )
        .line("th1 (on cart 1)", series(|c| c.th1))
        .line("th2 (on cart 2)", series(|c| c.th2))
        .draw(&bottom)
    })?;
    Ok(())
}
