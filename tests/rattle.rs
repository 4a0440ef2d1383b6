//! The constrained variational integrator (SHAKE/RATTLE) on a pendulum in Cartesian
//! coordinates, against the same pendulum in one angle integrated to 1e-12.

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Rattle, Simulation, StepError, Variational};

// A pendulum in Cartesian coordinates: a point on a circle of radius l.
use lagrange_test_models::CartesianPendulum;

lagrangian! {
    /// The same pendulum in its angle from the downward vertical.
    struct AnglePendulum {
        parameters: m = 0.7, l = 1.3, g = 9.81;
        coordinates: theta;
        kinetic = m/2 * l^2 * dot(theta)^2;
        potential = -m * g * l * cos(theta);
    }
}

const L: f64 = 1.3;
const THETA0: f64 = 1.2;

fn cartesian_start() -> State<2> {
    State::new(
        0.0,
        SVector::from([L * THETA0.sin(), -L * THETA0.cos()]),
        SVector::zeros(),
    )
}

/// The exact bob position at `t`, from the angle model at tolerance 1e-12.
fn reference(t: f64) -> (f64, f64) {
    let start = State::new(0.0, SVector::from([THETA0]), SVector::zeros());
    let run = Simulation::new(&AnglePendulum::default(), start)
        .run_at(&DormandPrince::new(1e-12, 1e-14), &[t])
        .unwrap();
    let theta = run.last().q[0];
    (L * theta.sin(), -L * theta.cos())
}

#[test]
fn converges_with_order_two_and_stays_on_the_constraint() {
    let model = CartesianPendulum::default();
    let (xr, yr) = reference(3.0);
    let mut errors = Vec::new();
    for h in [0.02, 0.01, 0.005] {
        let run = Simulation::new(&model, cartesian_start())
            .run(&Rattle::new(h), 3.0)
            .unwrap();
        let end = run.last();
        errors.push((end.q[0] - xr).hypot(end.q[1] - yr));
        // On the circle and tangent to it at every step, to round-off.
        for s in run.states() {
            let v = model.violation(s, &SVector::zeros());
            assert!(
                v.position < 1e-13 && v.velocity < 1e-13,
                "{v:?} at t = {}",
                s.t
            );
        }
    }
    for pair in errors.windows(2) {
        let order = (pair[0] / pair[1]).log2();
        assert!(
            (order - 2.0).abs() < 0.2,
            "observed order {order}, errors {errors:?}"
        );
    }
}

#[test]
fn energy_error_is_bounded_over_a_long_run() {
    // 20 000 steps over about 450 periods: the energy error oscillates at O(h²) with no
    // trend (its maximum over the last quarter is no larger than over the first).
    let model = CartesianPendulum::default();
    let run = Simulation::new(&model, cartesian_start())
        .run(&Rattle::new(0.05), 1000.0)
        .unwrap();
    let h0 = run.energies()[0];
    let quarter = run.len() / 4;
    let worst = |part: &[f64]| part.iter().map(|h| (h - h0).abs()).fold(0.0, f64::max);
    let (first, last) = (
        worst(&run.energies()[..quarter]),
        worst(&run.energies()[3 * quarter..]),
    );
    assert!(first < 0.02 * h0.abs(), "energy error {first}");
    assert!(
        last < 1.1 * first,
        "energy error grows: {first} then {last}"
    );
}

#[test]
fn the_unconstrained_integrator_refuses_constrained_models() {
    let result = Simulation::new(&CartesianPendulum::default(), cartesian_start())
        .run(&Variational::new(0.01), 1.0);
    let error = result.unwrap_err();
    assert!(matches!(error.reason, StepError::InvalidSettings(m) if m.contains("Rattle")));
}

lagrangian! {
    /// The pendulum of `Variational`'s step-size table: bob held by a stiff horizontal
    /// spring, ω ≈ √k = 3.2·10⁴ s⁻¹.
    struct StiffPendulum {
        parameters: m = 1.0, g = 9.81, l = 1.0, k = 1e9;
        coordinates: x, y;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = m * g * y + k/2 * x^2;
        constraint rod = x^2 + y^2 - l^2;
    }
}

/// The step-size rule the docs give (h·ω ≤ 0.3) keeps the energy of a stiff nonlinear
/// spring, the case where larger steps silently lose it.
#[test]
fn a_stiff_spring_keeps_its_energy_at_the_documented_step() {
    let a: f64 = 0.5;
    let start = State::new(0.0, SVector::from([a.sin(), -a.cos()]), SVector::zeros());
    let run = Simulation::new(&StiffPendulum::default(), start)
        .run(&Rattle::new(1e-5), 0.1)
        .unwrap();
    let e0 = run.energies()[0];
    assert!((e0 - 1.149e8).abs() < 1e5, "{e0}"); // k/2 sin²(0.5) dominates
    let drift = run.energy_drift() / e0;
    assert!(drift < 2e-3, "relative energy change {drift:e}");
}

/// Exact derivatives against central differences (`common::derivatives`). The Cartesian
/// models' structured states hang (at q = 0 the rods' gradients vanish).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("CartesianPendulum", &CartesianPendulum::default())
        .structured_at(SVector::from([0.0, -L]))
        .random(3)
        .state("released", cartesian_start(), SVector::zeros())
        .check();
    Derivatives::new("AnglePendulum", &AnglePendulum::default())
        .standard()
        .check();
    let a: f64 = 0.5;
    let stiff = StiffPendulum::default();
    Derivatives::new("StiffPendulum", &stiff)
        .structured_at(SVector::from([0.0, -stiff.l]))
        .random(3)
        .state(
            "released",
            State::new(0.0, SVector::from([a.sin(), -a.cos()]), SVector::zeros()),
            SVector::zeros(),
        )
        .check();
}

lagrangian! {
    /// Two points on a rod of fixed length; the second has no kinetic energy, and the rod
    /// fixes only the distance: the velocity of the second along the circle is free.
    struct Massless {
        parameters: m = 1.0, l = 1.0;
        coordinates: x1, y1, x2, y2;
        kinetic = m/2 * (dot(x1)^2 + dot(y1)^2);
        constraint rod = (x2 - x1)^2 + (y2 - y1)^2 - l^2;
    }
}

/// Issue 29, item 3: RATTLE on a model whose velocities neither T nor the constraints
/// determine said "Newton did not converge"; it now gives the error of `accelerations`, at
/// the start.
#[test]
fn undetermined_velocities_are_named_at_the_start() {
    let model = Massless::default();
    let s = State::new(
        0.0,
        SVector::from([0.0, 0.0, 0.6, 0.8]),
        SVector::from([0.1, 0.0, 0.1, 0.0]),
    );
    let want = model.accelerations(&s, &SVector::zeros()).unwrap_err();
    assert!(
        matches!(&want, DynamicsError::UndeterminedVelocities { coordinates } if coordinates.contains(&"x2") && coordinates.contains(&"y2")),
        "{want}"
    );
    let error = Simulation::new(&model, s)
        .run(&Rattle::new(1e-2), 1.0)
        .unwrap_err();
    assert_eq!(error.reason, StepError::Dynamics(want));
    assert_eq!(error.time, 0.0);
}
