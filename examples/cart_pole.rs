//! A cart-pole balanced upright by a feedback law given as the simulation's input.
//!
//! A cart (mass M, position x) on a rail carries a uniform pole (mass m, length L) on a
//! pivot; θ is the pole's angle from the upward vertical. A force f on the cart is the
//! only input. Upright is an equilibrium, but an unstable one: left alone, the pole falls.
//!
//! The control law is linear state feedback, f = kθ θ + kω θ̇ + kx x + kv ẋ. Near upright,
//! with ℓ = L/2 and J = m L²/3 (the pole's inertia about the pivot), the equations are
//!
//!     (M + m) ẍ + m ℓ θ̈ = f,    m ℓ ẍ + J θ̈ = m g ℓ θ,
//!
//! and the closed loop's characteristic polynomial is
//! s⁴ + (b kω − c kv) s³ + (b kθ − a − c kx) s² + e kv s + e kx with Δ = (M + m) J − m²ℓ²,
//! a = (M + m) m g ℓ / Δ, b = m ℓ / Δ, c = J / Δ, e = m g ℓ / Δ. The gains below make it
//! (s + p)⁴ with p = 3/s: every mode decays like e^(−p t) and none oscillates.
//! kθ and kω are a PD law on the angle: push the cart under the falling pole. kx and kv
//! are positive too, which looks backwards: to return to x = 0 the cart first pushes away
//! from it, so that the pole leans toward the origin (θ crosses zero once) and the angle
//! terms then carry the cart back.

mod common;

use common::{figure, Panel};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Simulation};

// The model `CartPole`, in `tests/models/src/cart_pole.rs` (shared with
// `examples/cart_pole_lqr.rs` and the tests that check it): coordinates x and theta, the
// force on the cart declared as an input (`inputs: f [N];` and `force f on x;`), which is
// how the feedback law below enters the simulation; the kinetic energy is the cart's, the
// translation of the pole's centre of mass and the pole's rotation about it.
use lagrange_test_models::cart_pole::*;

/// Gains [kθ, kω, kx, kv] placing the four closed-loop poles at s = −p (see the top).
fn gains(model: &CartPole, p: f64) -> [f64; 4] {
    let CartPole { M, m, L, g } = *model;
    let (l, j) = (L / 2.0, m * L * L / 3.0);
    let det = (M + m) * j - (m * l).powi(2);
    let (a, b, c, e) = (
        (M + m) * m * g * l / det,
        m * l / det,
        j / det,
        m * g * l / det,
    );
    let (kx, kv) = (p.powi(4) / e, 4.0 * p.powi(3) / e);
    [
        (6.0 * p * p + a + c * kx) / b,
        (4.0 * p + c * kv) / b,
        kx,
        kv,
    ]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = CartPole::default();
    let [k_theta, k_omega, k_x, k_v] = gains(&model, 3.0);
    let control = |s: &State<2>| {
        let (q, qd) = (
            CartPoleCoordinates::from(s.q),
            CartPoleCoordinates::from(s.qd),
        );
        k_theta * q.theta + k_omega * qd.theta + k_x * q.x + k_v * qd.x
    };

    // Released at rest, the pole 0.2 rad (11°) off upright.
    let start = State::at_rest(CartPoleCoordinates { x: 0.0, theta: 0.2 }.into());
    let times: Vec<f64> = (0..=600).map(|i| f64::from(i) * 0.01).collect();
    // The integrator calls the control law wherever it evaluates the dynamics.
    let trajectory = Simulation::new(&model, start)
        .inputs(|_, s| CartPoleInputs { f: control(s) }.into())
        .run_at(&DormandPrince::new(1e-9, 1e-12), &times)?;

    let series = |f: &dyn Fn(&State<2>) -> f64| -> Vec<(f64, f64)> {
        trajectory.states().iter().map(|s| (s.t, f(s))).collect()
    };
    let (theta, x, force) = (series(&|s| s.q[1]), series(&|s| s.q[0]), series(&control));
    let largest = |v: &[(f64, f64)]| v.iter().map(|p| p.1.abs()).fold(0.0, f64::max);
    let end = CartPoleCoordinates::from(trajectory.last().q);
    println!("cart-pole, gains kθ = {k_theta:.2} N/rad, kω = {k_omega:.2} N s/rad, kx = {k_x:.2} N/m, kv = {k_v:.2} N s/m");
    println!(
        "from θ = 0.2 rad: largest |f| = {:.2} N, largest |x| = {:.3} m",
        largest(&force),
        largest(&x)
    );
    println!(
        "after {} s: θ = {:.1e} rad, x = {:.1e} m",
        trajectory.last().t,
        end.theta,
        end.x
    );
    if end.theta.abs() > 1e-3 || end.x.abs() > 1e-3 {
        return Err("the control law did not stabilise the pole".into());
    }

    figure("cart_pole", (1400, 900), |root| {
        let panels = root.split_evenly((3, 1));
        Panel::new("Pole angle from upright", "t [s]", "θ [rad]")
            .line("", theta)
            .draw(&panels[0])?;
        Panel::new("Cart position", "t [s]", "x [m]")
            .line("", x)
            .draw(&panels[1])?;
        Panel::new("Control force on the cart", "t [s]", "f [N]")
            .line("", force)
            .draw(&panels[2])
    })?;
    Ok(())
}
