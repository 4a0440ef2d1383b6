//! A heavy symmetric top (a gyroscope on a fixed tip): precession and nutation.
//!
//! The orientation is R = R_z(ψ) R_x(θ) R_z(φ) in z-x-z Euler angles: ψ the precession of
//! the symmetry axis about the vertical, θ its tilt, φ the spin about itself. The kinetic
//! energy is written in the body frame, ½ ω_bᵀ diag(I1, I1, I3) ω_b with
//! ω_b = `body_angular_velocity(R)`, and the centre of mass is R (0, 0, l): the language
//! expands it into L = I1/2 (θ̇² + ψ̇² sin²θ) + I3/2 (φ̇ + ψ̇ cos θ)² − m g l cos θ.
//!
//! ψ and φ do not appear in L, so their momenta p_ψ and p_φ = I3 ω3 are conserved, and so
//! is the energy. Released at a tilt θ0 with a fast spin and no precession, the top first
//! falls; the spin turns the fall sideways, and the tilt nutates between θ0 and a larger θ1
//! while it precesses, stopping at every return to θ0: the tip of the axis draws cusps.
//! With u = cos θ, the conservation laws give the turning point (Goldstein §5.7)
//! u1 = 2 (p_φ² u0 − a) / (p_φ² + √((p_φ² − 2 a u0)² + 4 a² (1 − u0²))), a = 2 I1 m g l.
//! The variational integrator keeps p_ψ and p_φ to round-off (it is momentum-preserving).

mod common;

use common::{figure, Panel};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{Simulation, Variational};
use std::f64::consts::PI;

lagrangian! {
    /// Heavy symmetric top on a fixed tip; I1 and I3 are the moments about the tip.
    pub struct Top {
        parameters: m = 0.5 [kg], l = 0.1 [m], g = 9.81 [m/s^2], I1 = 0.02 [kg*m^2],
                    I3 = 0.01 [kg*m^2];
        coordinates: psi [rad], theta [rad], phi [rad];

        let R = rot_z(psi) * rot_x(theta) * rot_z(phi);
        let w = body_angular_velocity(R);

        kinetic = inner(w, diag(I1, I1, I3) * w) / 2;
        potential = m * g * (R * [0, 0, l]).z;
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let top = Top::default();
    // Released at a tilt θ0 with only a spin φ̇ (the velocities are named as their
    // coordinates): ω3 = φ̇ + ψ̇ cos θ = 30 rad/s.
    let (theta0, spin) = (0.5, 30.0);
    let start = State::new(
        0.0,
        TopCoordinates {
            psi: 0.0,
            theta: theta0,
            phi: 0.0,
        }
        .into(),
        TopCoordinates {
            psi: 0.0,
            theta: 0.0,
            phi: spin,
        }
        .into(),
    );
    let run = Simulation::new(&top, start).run(&Variational::new(1e-3), 8.0)?;
    let states = run.states();

    // The other turning point θ1 of the nutation (the axis at its lowest), from the
    // conservation laws, and the range of θ the simulation went through.
    let (u0, p_phi) = (theta0.cos(), top.I3 * spin);
    let a = 2.0 * top.I1 * top.m * top.g * top.l;
    let p2 = p_phi * p_phi;
    let root = ((p2 - 2.0 * a * u0).powi(2) + 4.0 * a * a * (1.0 - u0 * u0)).sqrt();
    let theta1 = (2.0 * (p2 * u0 - a) / (p2 + root)).acos();
    let range = |f: fn(f64, f64) -> f64, init| states.iter().map(|s| s.q[1]).fold(init, f);
    let (theta_min, theta_max) = (range(f64::min, PI), range(f64::max, 0.0));
    println!("heavy top released at θ0 = {theta0} rad, spinning at {spin} rad/s");
    println!("nutation: θ between {theta_min:.6} and {theta_max:.6} rad");
    println!("predicted: between θ0 = {theta0:.6} and θ1 = {theta1:.6} rad");
    // The mean precession rate, against the estimate m g l / (I3 ω3) for a top so fast
    // that it barely nutates; this one dips 0.15 rad, and precesses 10 % faster.
    let end = run.last();
    let slow = top.m * top.g * top.l / p_phi;
    println!(
        "mean precession rate {:.3} rad/s (fast-top estimate {slow:.3})",
        end.q[0] / end.t
    );

    let none = SVector::zeros();
    let (p_start, p_end) = (top.momenta(&start, &none), top.momenta(end, &none));
    let (h_start, h_end) = (top.energy(&start, &none), top.energy(end, &none));
    println!(
        "                 start                 end (t = {} s)",
        end.t
    );
    println!("energy h   {h_start:>20.15} {h_end:>20.15} J");
    println!(
        "p_psi      {:>20.15} {:>20.15} kg m²/s",
        p_start[0], p_end[0]
    );
    println!(
        "p_phi      {:>20.15} {:>20.15} kg m²/s",
        p_start[2], p_end[2]
    );
    println!(
        "largest energy error over the run: {:.1e} J",
        run.energy_drift()
    );
    if (theta_max - theta1).abs() > 1e-3 || (theta_min - theta0).abs() > 1e-3 {
        return Err("the nutation does not match the conservation laws".into());
    }

    // The tip of the unit symmetry axis R (0, 0, 1) = (sin θ sin ψ, −sin θ cos ψ, cos θ),
    // seen from above over one turn of precession, between the circles θ = θ0 and θ1.
    let turn = states.iter().take_while(|s| s.q[0] <= 2.0 * PI);
    let axis = turn.step_by(8).map(|s| {
        let (psi, theta) = (s.q[0], s.q[1]);
        (theta.sin() * psi.sin(), -theta.sin() * psi.cos())
    });
    let circle = |theta: f64| {
        (0..=360).map(move |k| {
            let a = f64::from(k) * PI / 180.0;
            (theta.sin() * a.cos(), theta.sin() * a.sin())
        })
    };
    let series = |i: usize| states.iter().map(move |s| (s.t, s.q[i]));
    figure("gyroscope", (1400, 760), |root| {
        let (left, right) = root.split_horizontally(720);
        let (upper, lower) = right.split_vertically(380);
        Panel::new("Symmetry axis seen from above, one turn", "x", "y")
            .line("tip of the axis", axis)
            .line("θ = θ0", circle(theta0))
            .line("θ = θ1 (predicted)", circle(theta1))
            .x_range(-0.75..0.75)
            .y_range(-0.75..0.75)
            .draw(&left)?;
        Panel::new("Nutation", "t [s]", "θ [rad]")
            .line("θ", series(1))
            .line("θ1 (predicted)", [(0.0, theta1), (end.t, theta1)])
            .draw(&upper)?;
        Panel::new("Precession", "t [s]", "ψ [rad]")
            .line("ψ", series(0))
            .line("m g l / (I3 ω3) · t", [(0.0, 0.0), (end.t, slow * end.t)])
            .draw(&lower)
    })?;
    Ok(())
}
