//! Reading a model back: every `let` by name (`Name::lets`, typed by shape), and T, V and
//! D separately, against values computed independently here.

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

lagrangian! {
    /// A double pendulum with a damped first joint, its bobs' positions as lets.
    struct DoublePendulum {
        parameters: m1 = 1.0, m2 = 2.0, l1 = 1.0, l2 = 0.5, g = 9.81, c = 0.3;
        coordinates: a, b;
        let x1 = l1 * sin(a);
        let y1 = -l1 * cos(a);
        let p2 = [x1 + l2 * sin(b), y1 - l2 * cos(b)];
        let v2 = dot(p2);
        let R1 = rot_z(a);
        let k = 3;
        kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * v2^2;
        potential = m1 * g * y1 + m2 * g * p2.y;
        dissipation = c/2 * dot(a)^2;
    }
}

lagrangian! {
    /// A pendulum hanging from a slider on a rail: the cart at x, the bob at angle θ.
    struct SliderPendulum {
        parameters: mc = 2.0, mb = 0.5, l = 0.8, g = 9.81;
        coordinates: x, theta;
        inputs: push;
        let bob = [x + l * sin(theta), -l * cos(theta)];
        let speed = norm(dot(bob));
        kinetic = mc/2 * dot(x)^2 + mb/2 * dot(bob)^2;
        potential = mb * g * bob[1];
        force push on x;
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-13 * (1.0 + b.abs())
}

#[test]
fn the_lets_of_a_double_pendulum_are_its_closed_form_positions_and_velocities() {
    let model = DoublePendulum::default();
    let (a, b, ad, bd) = (0.3, -0.4, 1.0, 2.0);
    let s = State::new(0.0, SVector::from([a, b]), SVector::from([ad, bd]));
    let lets: DoublePendulumLets = model.lets(&s, &SVector::zeros());
    let (x1, y1) = (a.sin(), -a.cos());
    let p2 = SVector::<f64, 2>::new(x1 + 0.5 * b.sin(), y1 - 0.5 * b.cos());
    let v2 = SVector::<f64, 2>::new(
        a.cos() * ad + 0.5 * b.cos() * bd,
        a.sin() * ad + 0.5 * b.sin() * bd,
    );
    assert!(close(lets.x1, x1) && close(lets.y1, y1), "{lets:?}");
    assert!((lets.p2 - p2).norm() < 1e-14, "{}", lets.p2);
    assert!((lets.v2 - v2).norm() < 1e-14, "{}", lets.v2);
    let r1: SMatrix<f64, 3, 3> = lets.R1;
    let rz =
        SMatrix::<f64, 3, 3>::new(a.cos(), -a.sin(), 0.0, a.sin(), a.cos(), 0.0, 0.0, 0.0, 1.0);
    assert!((r1 - rz).norm() < 1e-15, "{r1}");
    assert_eq!(lets.k, 3.0);

    // T, V and D, and L = T − V; the power of the damping is −2D (D quadratic in q̇).
    let u = SVector::zeros();
    assert!(close(model.power(&s, &u), -0.3 * ad * ad));
    let t = 0.5 * (ad * ad) + 0.5 * 2.0 * v2.norm_squared();
    let v = 9.81 * y1 + 2.0 * 9.81 * p2.y;
    assert!(close(model.kinetic_energy(&s, &u), t));
    assert!(close(model.potential_energy(&s, &u), v));
    assert!(close(model.dissipation(&s, &u), 0.3 / 2.0 * ad * ad));
    assert!(close(model.lagrangian(&s, &u), t - v));
    // The energy function of a natural system is T + V.
    assert!(close(model.energy(&s, &u), t + v));
}

#[test]
fn lets_of_a_model_with_inputs_and_a_velocity_level_let() {
    let model = SliderPendulum::default();
    let (x, theta, xd, thetad) = (0.2, 0.7, -0.3, 1.5);
    let s = State::new(0.0, SVector::from([x, theta]), SVector::from([xd, thetad]));
    let u = SVector::from([4.0]);
    let lets = model.lets(&s, &u);
    let bob = SVector::<f64, 2>::new(x + 0.8 * theta.sin(), -0.8 * theta.cos());
    let bob_velocity =
        SVector::<f64, 2>::new(xd + 0.8 * theta.cos() * thetad, 0.8 * theta.sin() * thetad);
    assert!((lets.bob - bob).norm() < 1e-15, "{}", lets.bob);
    assert!(close(lets.speed, bob_velocity.norm()), "{}", lets.speed);
    // The power of the push on the cart: Q·q̇ = push · ẋ.
    assert!(close(model.power(&s, &u), 4.0 * xd));
    // No dissipation statement: D is 0.
    assert_eq!(model.dissipation(&s, &u), 0.0);
    let t = 2.0 / 2.0 * xd * xd + 0.5 / 2.0 * bob_velocity.norm_squared();
    assert!(close(model.kinetic_energy(&s, &u), t));
    assert!(close(model.potential_energy(&s, &u), 0.5 * 9.81 * bob.y));
}

use lagrange_test_models::oscillators::{FreeParticle as Free, FreeParticleLets as FreeLets};

#[test]
fn a_model_without_lets_or_potential() {
    let s = State::new(0.0, SVector::from([1.0]), SVector::from([3.0]));
    let u = SVector::zeros();
    assert_eq!(Free.lets(&s, &u), FreeLets {});
    assert_eq!(Free.kinetic_energy(&s, &u), 4.5);
    assert_eq!(Free.potential_energy(&s, &u), 0.0);
}

/// The lets along a trajectory in one call, a column by scalar name, and CSV columns.
#[test]
fn lets_along_a_trajectory_by_name() {
    use lagrange_runtime::simulate::{Rk4, Simulation};
    let model = DoublePendulum::default();
    let start = State::at_rest(SVector::from([0.5, -0.3]));
    let run = Simulation::new(&model, start)
        .run(&Rk4::new(0.01), 0.5)
        .unwrap();
    let lets = model.lets_along(&run);
    assert_eq!(lets.len(), run.len());
    assert_eq!(
        &DoublePendulumLets::SCALARS[..6],
        ["x1", "y1", "p2[0]", "p2[1]", "v2[0]", "v2[1]"]
    );
    assert_eq!(DoublePendulumLets::SCALARS[6], "R1[0][0]");
    assert_eq!(DoublePendulumLets::SCALARS.len(), 2 + 2 + 2 + 9 + 1);
    let x1 = DoublePendulumLets::column(&lets, "x1").unwrap();
    let p2y = DoublePendulumLets::column(&lets, "p2[1]").unwrap();
    let r01 = DoublePendulumLets::column(&lets, "R1[0][1]").unwrap();
    for ((s, (x1, p2y)), r01) in run.states().iter().zip(x1.iter().zip(&p2y)).zip(&r01) {
        let (a, b) = (s.q[0], s.q[1]);
        assert!(close(*x1, a.sin()));
        assert!(close(*p2y, -a.cos() - 0.5 * b.cos()));
        assert!(close(*r01, -a.sin())); // rot_z(a)[0, 1]
    }
    assert!(DoublePendulumLets::column(&lets, "p2").is_none());
    let mut csv = Vec::new();
    run.write_csv_with(&mut csv, &[("x1", &x1), ("p2[1]", &p2y)])
        .unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert!(
        text.starts_with("t,a,b,dot(a),dot(b),energy,x1,p2[1]\n"),
        "{text}"
    );
}

/// Exact derivatives against central differences (`common::derivatives`). SliderPendulum's
/// `speed = norm(dot(bob))` is not differentiable where the bob stands still, but it is a
/// `let` that no energy uses: the structured states at rest check that it stays out of
/// the equations.
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("DoublePendulum", &DoublePendulum::default())
        .standard()
        .check();
    Derivatives::new("SliderPendulum", &SliderPendulum::default())
        .standard()
        .check();
    Derivatives::new("Free", &Free).standard().check();
}
