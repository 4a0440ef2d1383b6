//! A model's names never clash with items in the user's scope, lets of literals are plain
//! numbers in every generated function, raw identifiers are the names they spell, and a
//! model's `#[cfg]` covers everything generated for it (regressions found in review), and
//! `parameters:`, `coordinates:` and `inputs:` given more than once append in order.

use crate::common;

use common::derivatives::Derivatives;
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

// `gen` is reserved from Rust 2024 on: the field is `r#gen`, which compiles in every edition.
// `r#m` is the parameter `m`, `r#c` the constraint `c`.
lagrangian! {
    struct Raw {
        parameters: gen = 2.0, r#m = 3.0;
        coordinates: x, y;
        kinetic = gen * dot(x)^2 / 2 + m * dot(y)^2 / 2;
        potential = 10 * x;
        constraint r#c = x - y;
    }
}

#[test]
fn raw_identifiers_are_the_names_they_spell() {
    let model = Raw::default();
    assert_eq!((model.r#gen, model.m), (2.0, 3.0));
    assert_eq!(
        <Raw as lagrange_runtime::model::Parametric<2, 0, 2>>::PARAMETERS,
        ["gen", "m"]
    );
    assert_eq!(Raw::CONSTRAINTS, ["c"]);
    // x and y move together, mass 2 + 3 under the force −10: q̈ = −2. From x's equation
    // 2·(−2) + λ = −10, the multiplier is λ = −6.
    let s = State::new(0.0, SVector::from([1.0, 1.0]), SVector::from([0.5, 0.5]));
    let u = SVector::zeros();
    let qdd = model.accelerations(&s, &u).unwrap();
    let lambda = model.multipliers(&s, &u).unwrap();
    assert!((qdd - SVector::from([-2.0, -2.0])).norm() < 1e-12, "{qdd}");
    assert!((lambda[0] + 6.0).abs() < 1e-12, "{lambda}");
}

// Compiled out: if anything generated for `Hidden` escaped the `cfg`, it would name a type
// that does not exist and this file would not compile.
lagrangian! {
    #[cfg(any())]
    struct Hidden {
        coordinates: z;
        kinetic = dot(z)^2 / 2;
    }
}

lagrangian! {
    #[cfg(all())]
    #[derive(Debug, Clone, Hash)] // Debug and Clone: the macro leaves them to the user's derive
    struct Shown {
        coordinates: z;
        kinetic = dot(z)^2 / 2;
    }
}

#[test]
fn a_cfg_on_the_model_covers_everything_generated() {
    let s = State::new(0.0, SVector::from([0.0]), SVector::from([1.0]));
    assert_eq!(Shown.energy(&s, &SVector::zeros()), 0.5);
    let _: ShownCoordinates = SVector::from([1.0]).into();
}

/// Exact derivatives against central differences (`common::derivatives`). `Hidden` is
/// compiled out by its `#[cfg]`: there is nothing to check.
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("Oscillator", &Oscillator::default())
        .standard()
        .check();
    Derivatives::new("Raw", &Raw::default()).standard().check();
    Derivatives::new("Shown", &Shown).standard().check();
}

lagrangian! {
    /// A cart and its pendulum, each group of declarations beside the `let`s that use it.
    struct Grouped {
        parameters: mc = 2.0;
        coordinates: x;
        inputs: push;
        let cart = mc/2 * dot(x)^2;
        parameters: mp = 0.5, l = 0.8, g = 9.81;
        coordinates: theta;
        inputs: tau;
        let bob = [x + l * sin(theta), -l * cos(theta)];
        kinetic = cart + mp/2 * inner(dot(bob), dot(bob));
        potential = mp * g * bob[1];
        force push on x;
        force tau on theta;
    }
}

lagrangian! {
    /// The same model with each group declared once.
    struct Together {
        parameters: mc = 2.0, mp = 0.5, l = 0.8, g = 9.81;
        coordinates: x, theta;
        inputs: push, tau;
        let bob = [x + l * sin(theta), -l * cos(theta)];
        kinetic = mc/2 * dot(x)^2 + mp/2 * inner(dot(bob), dot(bob));
        potential = mp * g * bob[1];
        force push on x;
        force tau on theta;
    }
}

#[test]
fn repeated_declarations_append_in_order() {
    assert_eq!(<Grouped as Dynamics<2, 2>>::COORDINATES, ["x", "theta"]);
    assert_eq!(<Grouped as Dynamics<2, 2>>::INPUTS, ["push", "tau"]);
    let grouped = Grouped::new(2.0, 0.5, 0.8, 9.81);
    let values = lagrange_runtime::model::Parametric::parameter_values(&grouped);
    assert_eq!(values, [2.0, 0.5, 0.8, 9.81]);
    let together = Together::default();
    let s = State::new(0.0, SVector::from([0.3, 0.7]), SVector::from([-0.2, 1.1]));
    let u = SVector::from([0.4, -0.3]);
    assert_eq!(
        grouped.accelerations(&s, &u).unwrap(),
        together.accelerations(&s, &u).unwrap()
    );
}
