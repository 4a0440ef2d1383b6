//! A model's names never clash with items in the user's scope, and lets of literals are
//! plain numbers in every generated function (regressions found in review).

use lagrange_runtime::linearize::sensitivities;
use lagrange_runtime::prelude::*;

// Constants named like the model's parameters: `G` and the imported `E` (Young's modulus).
#[allow(dead_code)]
const G: f64 = 1.0;
#[allow(unused_imports)]
use std::f64::consts::E;

lagrangian! {
    struct Oscillator {
        parameters: m = 2.0, k = 8.0, G = 9.81, E = 2.0;
        coordinates: x;
        let half = 1/2;
        let b = 3;
        let c = 2*b;
        let p = pi;
        kinetic = half * m * dot(x)^2;
        potential = k * half * x^2 + c - x + p / (x + 10) + G * E * 0 * x;
    }
}

#[test]
fn parameters_named_like_constants_in_scope_and_lets_of_literals() {
    let model = Oscillator::default();
    assert_eq!(model.G, 9.81); // the field, not the constant
    let x = 0.5;
    let s = State::new(0.0, SVector::from([x]), SVector::from([0.1]));
    let a = model.accelerations(&s, &SVector::zeros()).unwrap();
    // m ẍ = −V′(x), V′ = k x − 1 − π/(x + 10)²
    let force = -(8.0 * x - 1.0 - std::f64::consts::PI / (x + 10.0).powi(2));
    assert!((a[0] - force / 2.0).abs() < 1e-14);
    // The parametric code (parameters as variables) compiles and is right: ∂ẍ/∂k = −x/m,
    // ∂ẍ/∂m = −ẍ/m.
    let d = sensitivities(&model, &s, &SVector::zeros()).unwrap();
    assert!((d[(0, 1)] - -x / 2.0).abs() < 1e-14);
    assert!((d[(0, 0)] - -a[0] / 2.0).abs() < 1e-14);
    assert_eq!(d[(0, 2)], 0.0);
}
