//! Derivatives exact where entries vanish: the linearization of a constrained model at the
//! upright, symmetric states that stability analyses look at.
//!
//! The model is the rear half of the Whipple bicycle (issue 25's reproducer): a wheel
//! rolling without slipping, a frame pitching about its axle. At every coordinate zero the
//! constraint Jacobian's derivative along the heading ψ is nonzero while its value is
//! zero, and the constrained solve's elimination skipped such entries (num-dual's `==`
//! compares real parts only): ∂q̈/∂ψ and ∂q̈/∂φ came out wrong by up to 244 there while
//! being right at ψ = 0.1. The reference is central differences of the model's own
//! `accelerations`; the heading ψ is cyclic, so ∂ψ̈/∂ψ and ∂φ̈/∂ψ vanish exactly.

use crate::common;

use common::Rng;
use lagrange_runtime::linearize::linearize;
use lagrange_runtime::prelude::*;

// A rear wheel rolling without slipping, with a frame pitching about its axle.
use lagrange_test_models::Unicycle;

/// max |∂q̈/∂(q, q̇) − central differences| over all entries.
fn deviation(model: &Unicycle, s: &State<6>) -> f64 {
    let u = SVector::zeros();
    let lin = linearize(model, s, &u).unwrap();
    let mut worst = 0.0f64;
    for k in 0..12 {
        let h = 1e-6;
        let (mut plus, mut minus) = (*s, *s);
        let (column, x_plus, x_minus) = if k < 6 {
            (
                lin.d_q.column(k).into_owned(),
                &mut plus.q[k],
                &mut minus.q[k],
            )
        } else {
            let j = k - 6;
            (
                lin.d_qd.column(j).into_owned(),
                &mut plus.qd[j],
                &mut minus.qd[j],
            )
        };
        *x_plus += h;
        *x_minus -= h;
        let fd = (model.accelerations(&plus, &u).unwrap()
            - model.accelerations(&minus, &u).unwrap())
            / (2.0 * h);
        worst = worst.max((column - fd).amax());
    }
    worst
}

#[test]
fn constrained_linearization_is_exact_at_symmetric_states() {
    let model = Unicycle::default();
    let rolling = SVector::from([1.0, 0.0, 0.0, 0.0, 0.0, -1.0 / 0.3]);
    let mut rng = Rng(25);
    let mut random = || SVector::<f64, 6>::from_fn(|_, _| rng.uniform(-1.0, 1.0));
    let states = [
        ("all zero, at rest", State::at_rest(SVector::zeros())),
        (
            "upright, rolling",
            State::new(0.0, SVector::zeros(), rolling),
        ),
        (
            "tilted, heading 0",
            State::at_rest(SVector::from([0.0, 0.0, 0.0, 0.1, 0.05, 0.0])),
        ),
        ("random", State::new(0.0, random(), random())),
    ];
    for (what, s) in states {
        let d = deviation(&model, &s);
        assert!(
            d < 1e-6,
            "{what}: linearize differs from finite differences by {d:e}"
        );
    }
    // ψ is cyclic: at rest upright the heading changes no acceleration but the direction
    // of the forward one (ẍ, ÿ rotate with ψ).
    let s = State::at_rest(SVector::zeros());
    let lin = linearize(&model, &s, &SVector::zeros()).unwrap();
    let a = lin.accelerations;
    for (i, want) in [0.0, a[0], 0.0, 0.0, 0.0, 0.0].into_iter().enumerate() {
        assert!(
            (lin.d_q[(i, 2)] - want).abs() < 1e-10,
            "∂q̈{i}/∂ψ = {}",
            lin.d_q[(i, 2)]
        );
    }
}
