//! The Whipple bicycle benchmark of Meijaard, Papadopoulos, Ruina and Schwab (Proc. R.
//! Soc. A 463, 2007), written in the DSL from the paper's Table 1 (8 coordinates, 4 bodies,
//! a holonomic contact constraint, four nonholonomic rolling constraints): through
//! `steady_motion` (upright, straight, forward speed v) and its spectrum it reproduces
//! the paper's Table 2 to 1e-8, every other eigenvalue of the reduced system (the cyclic
//! coordinates and the conserved speed) is below 1e-6, and bisection finds the weave and
//! capsize speeds to 1e-6.

mod common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

include!("common/bicycle.rs");

/// |a − b| for a published value `b`, printed as the deviation.
fn deviation(got: f64, want: f64) -> f64 {
    (got - want).abs()
}

#[test]
fn eigenvalues_of_straight_running_are_those_of_table_2() {
    let bike = Bicycle::default();
    let mut worst = 0.0f64;
    for (v, (weave_re, weave_im), capsize, castering) in TABLE_2 {
        let motion = straight_running(&bike, v).unwrap();
        assert_eq!(
            motion.spectrum.eigenvalues.len(),
            10,
            "2·8 − 2·1 − 4 independent states"
        );
        let (mut lateral, other) = lean_and_steer(&motion);
        assert_eq!(
            lateral.len(),
            4,
            "v = {v}: lean and steer modes {lateral:?}"
        );
        for l in &other {
            assert!(
                l.norm() < 1e-6,
                "v = {v}: a cyclic or speed eigenvalue is {l}"
            );
        }
        lateral.sort_by(|a, b| a.re.total_cmp(&b.re).then(a.im.total_cmp(&b.im)));
        let pair: Vec<_> = lateral.iter().filter(|l| l.im != 0.0).collect();
        let real: Vec<f64> = lateral
            .iter()
            .filter(|l| l.im == 0.0)
            .map(|l| l.re)
            .collect();
        assert_eq!((pair.len(), real.len()), (2, 2), "v = {v}: {lateral:?}");
        let deviations = [
            deviation(pair[0].re, weave_re),
            deviation(pair[1].re, weave_re),
            deviation(pair[0].im, -weave_im),
            deviation(pair[1].im, weave_im),
            deviation(real[0], castering),
            deviation(real[1], capsize),
        ];
        let largest = deviations.iter().copied().fold(0.0, f64::max);
        assert!(
            largest < 1e-8,
            "v = {v}: {lateral:?} against Table 2, off by {largest:e}"
        );
        worst = worst.max(largest);
    }
    // Standing still, four real eigenvalues: the inverted pendulum of lean and steer.
    let motion = straight_running(&bike, 0.0).unwrap();
    let (mut lateral, other) = lean_and_steer(&motion);
    assert!(other.iter().all(|l| l.norm() < 1e-6), "{other:?}");
    lateral.sort_by(|a, b| a.re.total_cmp(&b.re));
    assert_eq!(lateral.len(), 4);
    for (got, want) in lateral.iter().zip(STANDING) {
        assert!(
            got.im == 0.0 && deviation(got.re, want) < 1e-8,
            "v = 0: {got} vs {want}"
        );
        worst = worst.max(deviation(got.re, want));
    }
    println!("largest deviation from Table 2: {worst:e}");
}

#[test]
fn weave_and_capsize_speeds() {
    let bike = Bicycle::default();
    let weave = bisect(|v| weave_real_part(&bike, v), 4.0, 5.0, 1e-10);
    let capsize = bisect(|v| capsize_eigenvalue(&bike, v), 6.0, 7.0, 1e-10);
    println!("weave speed {weave} (paper {WEAVE_SPEED}), capsize speed {capsize} (paper {CAPSIZE_SPEED})");
    assert!(deviation(weave, WEAVE_SPEED) < 1e-6, "weave speed {weave}");
    assert!(
        deviation(capsize, CAPSIZE_SPEED) < 1e-6,
        "capsize speed {capsize}"
    );
    // Between them the bicycle is self-stable: every lean and steer eigenvalue decays. The
    // cyclic coordinates keep their zero eigenvalues, so the classification says Marginal
    // there and Unstable outside.
    use lagrange_runtime::stability::Stability;
    for (v, self_stable) in [(4.0, false), (5.0, true), (6.0, true), (7.0, false)] {
        let motion = straight_running(&bike, v).unwrap();
        let (lateral, _) = lean_and_steer(&motion);
        let largest = lateral
            .iter()
            .map(|l| l.re)
            .fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(largest < 0.0, self_stable, "v = {v}: {lateral:?}");
        let want = if self_stable {
            Stability::Marginal
        } else {
            Stability::Unstable
        };
        assert_eq!(motion.stability(), want, "v = {v}");
    }
}

#[test]
fn derivatives_match_finite_differences() {
    // Every derivative the analysis above rests on, at the steady motions it analyses
    // (upright, straight, standing and at speed) as well as the structured and random
    // states of every model: the symmetric states are where a dropped derivative hides.
    let bike = Bicycle::default();
    let mut check = Derivatives::new("Bicycle", &bike).standard();
    for v in [0.0, 1.0, 4.3, 6.0] {
        let motion = straight_running(&bike, v).unwrap();
        let label = format!("upright, straight at {v} m/s");
        check = check.state(&label, motion.state, SVector::zeros());
    }
    check.check();
}
