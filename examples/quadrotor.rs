//! A quadrotor brought back to hover by an LQR designed from the exact linearization.
//!
//! The body is a rigid body with six coordinates: its position p = (x, y, z) and z-y-x
//! Euler angles, R = R_z(yaw) R_y(pitch) R_x(roll). The rotors give a thrust along the body
//! z axis and moments about the body axes; the model states them as they are, a force
//! R (0, 0, thrust) on the point p and a torque R (mx, my, mz) on the body R, and the
//! language turns them into generalized forces by virtual work.
//!
//! Hover (at rest, level, thrust = m g) is an equilibrium but not a stable one: a tilt
//! turns the thrust sideways, and the quadrotor drifts off. The linearization there is the
//! textbook one (ẍ ≈ g pitch, ÿ ≈ −g roll, z̈ ≈ Δthrust/m, each angle driven by its own
//! moment through its moment of inertia), but `linearize` gets it by differentiating the
//! nonlinear model. `lqr` gives the gain K of u = u* − K (X − X*) for the 12 states X =
//! (q, q̇). To move sideways the controller must first tilt the body; from a start 1 m off
//! in x and y, 0.5 m high and turned 0.5 rad in yaw, the nonlinear quadrotor flies back.
//! The linear model does not see that the yaw turns the direction in which a tilt pushes:
//! it predicts a nearly straight path (Ix ≠ Iy bends it a little); the true one curves.

mod common;

use common::{figure, Panel, SeriesLabelPosition};
use lagrange_runtime::control::lqr;
use lagrange_runtime::linearize::linearize;
use lagrange_runtime::nalgebra::{DMatrix, DVector};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Simulation};

lagrangian! {
    /// Quadrotor: a rigid body with z-y-x Euler angles, thrust along its body z axis and
    /// moments about its body axes.
    pub struct Quadrotor {
        parameters: m = 1.2 [kg], Ix = 0.011 [kg*m^2], Iy = 0.013 [kg*m^2], Iz = 0.021 [kg*m^2],
                    g = 9.81 [m/s^2];
        coordinates: x [m], y [m], z [m], yaw [rad], pitch [rad], roll [rad];
        inputs: thrust [N], mx [N*m], my [N*m], mz [N*m];

        let R = rot_z(yaw) * rot_y(pitch) * rot_x(roll);
        let p = [x, y, z];
        let wb = body_angular_velocity(R);

        kinetic = m/2 * dot(p)^2 + inner(wb, diag(Ix, Iy, Iz) * wb) / 2;
        potential = m * g * z;
        force R * [0, 0, thrust] on p;
        torque R * [mx, my, mz] on R;
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let quad = Quadrotor::default();
    let hover = State::at_rest(SVector::zeros());
    let u_star: SVector<f64, 4> = QuadrotorInputs {
        thrust: quad.m * quad.g,
        mx: 0.0,
        my: 0.0,
        mz: 0.0,
    }
    .into();
    let lin = linearize(&quad, &hover, &u_star)?;
    let at_hover = lin.accelerations.amax();
    println!("accelerations at hover: {at_hover:.1e} (an equilibrium)");

    // Bryson's rule, 1/(acceptable size)²: 1 m of position, 0.5 rad of yaw, 0.3 rad of
    // tilt, 1 m/s, 2 rad/s; 2 N of thrust and 0.05 N m of moment.
    let diag = |v: &[f64]| DMatrix::from_diagonal(&DVector::from_row_slice(v));
    let q = diag(&[
        1.0, 1.0, 1.0, 4.0, 11.0, 11.0, 1.0, 1.0, 1.0, 0.25, 0.25, 0.25,
    ]);
    let r = diag(&[0.25, 400.0, 400.0, 400.0]);
    let (k, _) = lqr(&lin.a(), &lin.b(), &q, &r)?;
    let closed_loop = lin.a() - lin.b() * &k;
    let slowest = closed_loop.complex_eigenvalues().map(|e| e.re).max();
    println!("LQR closed loop: slowest eigenvalue has real part {slowest:.3}/s");
    let gain = SMatrix::<f64, 4, 12>::from_iterator(k.iter().copied());
    let control = move |s: &State<6>| {
        u_star - gain * SVector::<f64, 12>::from_iterator(s.q.iter().chain(&s.qd).copied())
    };

    let start: SVector<f64, 6> = QuadrotorCoordinates {
        x: 1.0,
        y: -1.0,
        z: 0.5,
        yaw: 0.5,
        pitch: 0.0,
        roll: 0.0,
    }
    .into();
    let times: Vec<f64> = (0..=1000).map(|i| f64::from(i) * 0.01).collect();
    let run = Simulation::new(&quad, State::at_rest(start))
        .inputs(|_, s| control(s))
        .run_at(&DormandPrince::new(1e-9, 1e-12), &times)?;
    let states = run.states();
    // The linear prediction X(t) = e^((A − BK) t) X₀ of the horizontal path.
    let x0 = DVector::from_iterator(12, start.iter().copied().chain([0.0; 6]));
    let linear = times.iter().map(|&t| (&closed_loop * t).exp() * &x0);
    let linear: Vec<(f64, f64)> = linear.map(|x| (x[0], x[1])).collect();

    let largest = |f: &dyn Fn(&State<6>) -> f64| states.iter().map(f).fold(f64::MIN, f64::max);
    let tilt = largest(&|s| s.q[4].abs().max(s.q[5].abs()));
    let thrust = |s: &State<6>| control(s)[0];
    let (low, high) = (-largest(&|s| -thrust(s)), largest(&thrust));
    println!(
        "largest tilt {tilt:.3} rad; thrust from {low:.2} to {high:.2} N (hover: {:.2} N)",
        u_star[0]
    );
    let end = run.last();
    println!(
        "at t = {} s: distance to hover {:.1e} m, yaw {:.1e} rad, speed {:.1e} m/s",
        end.t,
        end.q.fixed_rows::<3>(0).norm(),
        end.q[3],
        end.qd.fixed_rows::<3>(0).norm()
    );
    if end.q.amax() > 1e-3 || end.qd.amax() > 1e-3 {
        return Err("the quadrotor did not return to hover".into());
    }

    let series = |i: usize| -> Vec<(f64, f64)> { states.iter().map(|s| (s.t, s.q[i])).collect() };
    figure("quadrotor", (1400, 1000), |root| {
        let panels = root.split_evenly((2, 2));
        Panel::new("Path seen from above", "x [m]", "y [m]")
            .line("path", states.iter().map(|s| (s.q[0], s.q[1])))
            .line("linear prediction", linear)
            .points("start", [(start[0], start[1])])
            .points("hover point", [(0.0, 0.0)])
            .x_range(-0.6..1.4)
            .y_range(-1.4..0.6)
            .draw(&panels[0])?;
        Panel::new("Position", "t [s]", "[m]")
            .line("x", series(0))
            .line("y", series(1))
            .line("z (height above hover)", series(2))
            .draw(&panels[1])?;
        Panel::new("Attitude", "t [s]", "[rad]")
            .line("yaw", series(3))
            .line("pitch", series(4))
            .line("roll", series(5))
            .draw(&panels[2])?;
        Panel::new("Thrust", "t [s]", "thrust [N]")
            .line("thrust", states.iter().map(|s| (s.t, thrust(s))))
            .line("m g", [(0.0, u_star[0]), (end.t, u_star[0])])
            .legend(SeriesLabelPosition::LowerRight)
            .draw(&panels[3])
    })?;
    Ok(())
}
