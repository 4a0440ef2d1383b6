//! A double pendulum written as a textbook writes it, simulated for a few seconds.
//!
//! The positions of the two bobs are `let`s; the kinetic energy is built from their time
//! derivatives `dot(x1)`, … which the library computes exactly by automatic
//! differentiation. The table shows the angles and the energy, which the exact dynamics
//! conserve: its drift is the error of the integrator.

use lagrange_runtime::prelude::*;

lagrangian! {
    /// Planar double pendulum with point masses.
    pub struct DoublePendulum {
        parameters: m1 = 1.0, m2 = 1.0, l1 = 1.0, l2 = 1.0, g = 9.81;
        coordinates: theta1, theta2;

        let x1 = l1 * sin(theta1);
        let y1 = -l1 * cos(theta1);
        let x2 = x1 + l2 * sin(theta2);
        let y2 = y1 - l2 * cos(theta2);

        kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * (dot(x2)^2 + dot(y2)^2);
        potential = g * (m1*y1 + m2*y2);
    }
}

/// One classic Runge–Kutta step of q̈ = f(q, q̇).
fn rk4_step(model: &DoublePendulum, s: &State<2>, h: f64) -> Result<State<2>, DynamicsError> {
    let u = SVector::zeros();
    let f = |s: &State<2>| model.accelerations(s, &u).map(|a| (s.qd, a));
    let at = |dq, dqd, c: f64| State::new(s.t + c * h, s.q + dq * (c * h), s.qd + dqd * (c * h));
    let (k1q, k1v) = f(s)?;
    let (k2q, k2v) = f(&at(k1q, k1v, 0.5))?;
    let (k3q, k3v) = f(&at(k2q, k2v, 0.5))?;
    let (k4q, k4v) = f(&at(k3q, k3v, 1.0))?;
    Ok(State::new(
        s.t + h,
        s.q + (k1q + k2q * 2.0 + k3q * 2.0 + k4q) * (h / 6.0),
        s.qd + (k1v + k2v * 2.0 + k3v * 2.0 + k4v) * (h / 6.0),
    ))
}

fn main() -> Result<(), DynamicsError> {
    let model = DoublePendulum::default();
    let start = DoublePendulumCoordinates { theta1: 2.0, theta2: 1.0 };
    let mut s = State::new(0.0, start.into(), SVector::zeros());
    let h0 = model.energy(&s, &SVector::zeros());

    println!("{:>6} {:>10} {:>10} {:>12}", "t", "theta1", "theta2", "energy err");
    let h = 1e-3;
    for step in 0..=10_000 {
        if step % 500 == 0 {
            let q = DoublePendulumCoordinates::from(s.q);
            let err = model.energy(&s, &SVector::zeros()) - h0;
            println!("{:6.2} {:10.4} {:10.4} {:12.3e}", s.t, q.theta1, q.theta2, err);
        }
        s = rk4_step(&model, &s, h)?;
    }
    Ok(())
}
