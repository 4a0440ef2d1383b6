//! A cart-pole balanced upright by a linear-quadratic regulator designed from the model's
//! exact linearization.
//!
//! A cart (mass M, position x) on a rail carries a uniform pole (mass m, length L); θ is
//! the pole's angle from the upward vertical and a force f on the cart is the only input.
//! Upright at rest is an equilibrium, but an unstable one: the linearization there has the
//! eigenvalues ±√((M + m) m g ℓ / ((M + m) J − m²ℓ²)) = ±4.2/s (ℓ = L/2 and J = m L²/3,
//! the pole's inertia about the pivot), the + one the pole falling over, and a double
//! zero (the cart rolls freely, at any position).
//!
//! The design: `linearize` differentiates the nonlinear accelerations exactly at upright,
//! giving ż ≈ A z + B f for the state deviation z = (q, q̇) − (q*, q̇*) = (x, θ, ẋ, θ̇);
//! `control::lqr_gain` returns the gain K minimising ∫ (zᵀQ z + R f²) dt (as fixed-size
//! blocks on q and q̇), and its `law()`, f = −K z, is fed
//! to the nonlinear model. Q says how much each deviation costs against the force: the
//! angle dominates, the cart may wander a little. The regulator never sees the nonlinear
//! terms (sin θ, the centripetal m ℓ θ̇² sin θ), yet it catches the pole from 0.3 rad
//! (17°); the plot compares the nonlinear motion with the linear prediction
//! z(t) = e^((A − BK) t) z₀.

mod common;

use common::{figure, Panel};
use lagrange_runtime::control::lqr_gain;
use lagrange_runtime::linearize::linearize;
use lagrange_runtime::nalgebra::{DMatrix, DVector};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Simulation};

// The model of `examples/cart_pole.rs`, shared with it and with the tests that check it: a
// cart (position x) pushed by the input f, carrying a uniform pole, theta from the upward
// vertical.
use lagrange_test_models::cart_pole::*;

/// The state vector (q, q̇) of the linearization.
fn stacked(s: &State<2>) -> SVector<f64, 4> {
    SVector::from_iterator(s.q.iter().chain(&s.qd).copied())
}

/// The eigenvalues of `a`, sorted by real part, as text.
fn eigenvalues(a: &DMatrix<f64>) -> String {
    let mut e: Vec<_> = a.complex_eigenvalues().iter().copied().collect();
    e.sort_by(|u, v| u.re.total_cmp(&v.re).then(u.im.total_cmp(&v.im)));
    let text: Vec<String> = e
        .iter()
        .map(|z| format!("{:.3}{:+.3}i", z.re, z.im))
        .collect();
    text.join(", ")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = CartPole::default();
    // The operating point (q*, q̇*): upright, at rest, with no force.
    let upright = State::at_rest(SVector::zeros());
    let lin = linearize(&model, &upright, &SVector::zeros())?;
    let (a, b) = (lin.a(), lin.b());

    // Weights on (x, θ, ẋ, θ̇) and on f by Bryson's rule, 1/(acceptable size)²: about
    // 0.3 m of cart offset, 0.1 rad of tilt, 1 m/s, 1 rad/s and 3 N of force.
    let q = DMatrix::from_diagonal(&DVector::from_vec(vec![10.0, 100.0, 1.0, 1.0]));
    let r = SMatrix::<f64, 1, 1>::new(0.1);
    let (gain, _p) = lqr_gain(&lin, &q, &r)?;
    // K as one row on z = (x, θ, ẋ, θ̇), for printing and the linear prediction.
    let k = DMatrix::from_iterator(
        1,
        4,
        gain.positions.iter().chain(gain.velocities.iter()).copied(),
    );
    // Every gain comes out negative: f = −K z pushes the cart under a leaning pole (f > 0
    // for θ > 0) and, to return from x > 0, first pushes it further away so that the pole
    // leans back toward the origin, as in the hand-tuned cart_pole example.
    let closed_loop = &a - &b * &k;
    // The law u = u* − K_q (q − q*) − K_q̇ (q̇ − q̇*) in fixed-size blocks: no allocation.
    let control = move |s: &State<2>| gain.inputs_at(s)[0];
    let x_star = stacked(&upright);

    let start = State::at_rest(CartPoleCoordinates { x: 0.0, theta: 0.3 }.into());
    let times: Vec<f64> = (0..=600).map(|i| f64::from(i) * 0.01).collect();
    let trajectory = Simulation::new(&model, start)
        .inputs(gain.law())
        .run_at(&DormandPrince::new(1e-9, 1e-12), &times)?;

    // The linear prediction, from the same start: z(t) = e^((A − BK) t) z₀.
    let z0 = DVector::from_iterator(4, (stacked(&start) - x_star).iter().copied());
    let linear: Vec<DVector<f64>> = times
        .iter()
        .map(|&t| (&closed_loop * t).exp() * &z0)
        .collect();

    let series = |f: &dyn Fn(&State<2>) -> f64| -> Vec<(f64, f64)> {
        trajectory.states().iter().map(|s| (s.t, f(s))).collect()
    };
    let predicted = |i: usize| -> Vec<(f64, f64)> {
        times.iter().zip(&linear).map(|(&t, z)| (t, z[i])).collect()
    };
    let predicted_force: Vec<(f64, f64)> = times
        .iter()
        .zip(&linear)
        .map(|(&t, z)| (t, -(&k * z)[0]))
        .collect();
    let (theta, x, force) = (series(&|s| s.q[1]), series(&|s| s.q[0]), series(&control));

    println!("cart-pole LQR, Q = diag(10, 100, 1, 1) on (x, θ, ẋ, θ̇), R = 0.1");
    println!(
        "K = [{:.3} N/m, {:.3} N/rad, {:.3} N s/m, {:.3} N s/rad]  (f = −K z)",
        k[0], k[1], k[2], k[3]
    );
    println!("open-loop eigenvalues:   {}", eigenvalues(&a));
    println!("closed-loop eigenvalues: {}", eigenvalues(&closed_loop));
    let largest = |v: &[(f64, f64)]| v.iter().map(|p| p.1.abs()).fold(0.0, f64::max);
    println!(
        "from θ = 0.3 rad: largest |f| = {:.2} N, largest |x| = {:.3} m",
        largest(&force),
        largest(&x)
    );
    let end = trajectory.last();
    println!(
        "after {} s: x = {:.1e} m, θ = {:.1e} rad, ẋ = {:.1e} m/s, θ̇ = {:.1e} rad/s",
        end.t, end.q[0], end.q[1], end.qd[0], end.qd[1]
    );
    if end.q.amax() > 1e-3 || end.qd.amax() > 1e-3 {
        return Err("the regulator did not stabilise the pole".into());
    }

    figure("cart_pole_lqr", (1400, 1000), |root| {
        let panels = root.split_evenly((3, 1));
        Panel::new("Pole angle from upright", "t [s]", "θ [rad]")
            .line("nonlinear model", theta)
            .line("linear prediction", predicted(1))
            .draw(&panels[0])?;
        Panel::new("Cart position", "t [s]", "x [m]")
            .line("nonlinear model", x)
            .line("linear prediction", predicted(0))
            .draw(&panels[1])?;
        Panel::new("Force on the cart, f = −K (x − x*)", "t [s]", "f [N]")
            .line("nonlinear model", force)
            .line("linear prediction", predicted_force)
            .draw(&panels[2])
    })?;
    Ok(())
}
