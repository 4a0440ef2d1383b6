//! Consistent initial conditions: `ConstraintSolver::project` with coordinates held.

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

lagrangian! {
    /// A crank (angle a) driving a slider (position x) through a rod of length l: the
    /// slider-crank, with the crank angle prescribed by a driving constraint.
    struct SliderCrank {
        parameters: m = 1.0, r = 0.2, l = 0.6, w = 3.0;
        coordinates: a, x;
        kinetic = m/2 * (dot(x)^2 + r^2 * dot(a)^2);
        constraint rod = (x - r*cos(a))^2 + (r*sin(a))^2 - l^2;
        constraint drive = a - w*t;
    }
}

/// Slider position for crank angle a: x = r cos a + √(l² − r² sin² a).
fn slider(a: f64) -> f64 {
    0.2 * a.cos() + (0.36 - 0.04 * a.sin().powi(2)).sqrt()
}

#[test]
fn holding_the_driven_coordinate_moves_only_the_others() {
    let model = SliderCrank::default();
    let u = SVector::zeros();
    let t = 0.4;
    let a = 3.0 * t; // on the driving constraint
    let guess = State::new(t, SVector::from([a, 0.5]), SVector::from([3.0, 0.0]));
    let s = model.project(&guess, &u, &[0], 1e-13).unwrap();
    assert_eq!(s.q[0], a, "the held crank angle must not move");
    assert!((s.q[1] - slider(a)).abs() < 1e-12);
    // ẋ = dx/da · ȧ, by central differences of the closed form (second opinion).
    let dx = (slider(a + 1e-6) - slider(a - 1e-6)) / 2e-6 * 3.0;
    assert!((s.qd[1] - dx).abs() < 1e-7, "{} vs {dx}", s.qd[1]);
    let v = model.violation(&s, &u);
    assert!(v.position < 1e-12 && v.velocity < 1e-12, "{v:?}");
}

#[test]
fn a_violated_constraint_on_held_coordinates_is_reported() {
    let model = SliderCrank::default();
    // The crank is off its prescribed angle and held: nothing can fix the drive.
    let guess = State::new(0.4, SVector::from([0.3, 0.7]), SVector::zeros());
    let error = model
        .project(&guess, &SVector::zeros(), &[0], 1e-13)
        .unwrap_err();
    assert!(
        matches!(error, DynamicsError::ProjectionFailed { .. }),
        "{error}"
    );
}

/// Exact derivatives against central differences (`common::derivatives`), at structured
/// and random states and on the constraints at t = 0.4.
#[test]
fn derivatives_match_finite_differences() {
    let model = SliderCrank::default();
    let t = 0.4;
    let a = model.w * t;
    let on = State::new(
        t,
        SVector::from([a, slider(a)]),
        SVector::from([model.w, 0.0]),
    );
    let on = model.project(&on, &SVector::zeros(), &[0], 1e-13).unwrap();
    Derivatives::new("SliderCrank", &model)
        .standard()
        .state("on the constraints", on, SVector::zeros())
        .check();
}
