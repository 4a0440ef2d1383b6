//! The tests of [`LinearSystem`], its responses, margins and pole placement, against the
//! values python-control and SciPy computed (`reference/linear_systems.py`, which wrote
//! `reference/linear_systems.rs`).
//!
//! Tolerances, each relative to the size of what is compared: poles 10⁻¹¹ (of 1 + ‖A‖),
//! DC gains 10⁻¹², frequency responses 10⁻¹³ (measured: 8·10⁻¹⁵), time responses 10⁻¹³
//! of 1 + the largest value of the series (measured: 2.4·10⁻¹⁵), margins and crossover
//! frequencies 10⁻⁹ (python-control takes them as roots of polynomials, lagrange polishes
//! those roots on the state-space response: the largest difference, 1.8·10⁻¹⁰, is the
//! gain crossover of the sampled loop, where python-control's |L| − 1 is −1.1·10⁻¹⁰ and
//! lagrange's 0), placed poles 10⁻⁹, and gains 10⁻⁹ of max |K| where they are SciPy's:
//! with one input (the gain is unique; measured 5·10⁻¹⁵) and, since the Tits–Yang
//! iteration is a port of SciPy's, with several inputs and real poles (measured 5·10⁻¹⁵);
//! with a complex pair the iterates differ (10⁻³, within the convergence tolerance of
//! |det X|) and only the poles and the conditioning are compared.

use super::reference::{Case, CASES, LOOPS, PLACEMENTS};
use super::*;
use nalgebra::DVector;

/// An r × c matrix from its entries row by row.
fn rows(entries: &[f64], r: usize, c: usize) -> DMatrix<f64> {
    assert_eq!(entries.len(), r * c);
    DMatrix::from_row_slice(r, c, entries)
}

/// The system of a reference's matrices (n from A, m from B, p from C).
fn build(a: &[f64], b: &[f64], c: &[f64], d: &[f64], period: f64) -> LinearSystem {
    let n = (a.len() as f64).sqrt().round() as usize;
    let (m, p) = (b.len() / n, c.len() / n);
    let (a, b, c, d) = (rows(a, n, n), rows(b, n, m), rows(c, p, n), rows(d, p, m));
    if period > 0.0 {
        LinearSystem::sampled(a, b, c, d, period).unwrap()
    } else {
        LinearSystem::continuous(a, b, c, d).unwrap()
    }
}

fn system(case: &Case) -> LinearSystem {
    build(case.a, case.b, case.c, case.d, case.period)
}

/// Complex numbers from (re, im) pairs.
fn complex(pairs: &[f64]) -> Vec<Complex<f64>> {
    pairs.chunks(2).map(|z| Complex::new(z[0], z[1])).collect()
}

fn sorted(mut z: Vec<Complex<f64>>) -> Vec<Complex<f64>> {
    z.sort_by(|p, q| p.re.total_cmp(&q.re).then(p.im.total_cmp(&q.im)));
    z
}

/// The largest difference between a computed series and the reference, relative to
/// 1 + its largest value.
fn series_error(got: impl Iterator<Item = f64>, want: &[f64]) -> f64 {
    let scale = 1.0 + want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    got.zip(want)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0, f64::max)
        / scale
}

/// The output rows of a response, row by row (the reference's [output][time]).
fn outputs(response: &Response) -> Vec<f64> {
    response.outputs.transpose().iter().copied().collect()
}

#[test]
fn poles_dc_gains_and_rank_tests_match_python_control() {
    for case in &CASES {
        let system = system(case);
        let norm = system.a().norm();
        let poles = system.poles().unwrap();
        for (got, want) in poles.iter().zip(complex(case.poles)) {
            assert!(
                (got - want).norm() <= 1e-11 * (1.0 + norm),
                "{}: pole {got}, want {want}",
                case.name
            );
        }
        match case.dc_gain {
            Some(want) => {
                let got = system.dc_gain().unwrap();
                let want = rows(want, system.outputs(), system.inputs());
                assert!(
                    (&got - &want).amax() <= 1e-12 * want.amax().max(1.0),
                    "{}: DC gain {got}, want {want}",
                    case.name
                );
            }
            None => assert_eq!(
                system.dc_gain(),
                Err(ControlError::PoleAtFrequency { frequency: 0.0 }),
                "{}",
                case.name
            ),
        }
        let controllability = system.controllability().unwrap();
        assert_eq!(controllability.rank, case.ctrb_rank, "{}", case.name);
        assert_eq!(
            controllability.matrix.shape(),
            (system.states(), system.states() * system.inputs())
        );
        let observability = system.observability().unwrap();
        assert_eq!(observability.rank, case.obsv_rank, "{}", case.name);
        assert_eq!(
            observability.matrix.shape(),
            (system.states() * system.outputs(), system.states())
        );
    }
}

#[test]
fn time_responses_match_python_control_and_scipy() {
    for case in &CASES {
        let system = system(case);
        let (n, m, p, t) = (
            system.states(),
            system.inputs(),
            system.outputs(),
            case.times.len(),
        );
        for input in 0..m {
            let want = &case.step[input * p * t..(input + 1) * p * t];
            let got = system.step(case.times, input).unwrap();
            let error = series_error(outputs(&got).into_iter(), want);
            assert!(
                error < 1e-11,
                "{}: step from input {input}: {error:e}",
                case.name
            );
            let want = &case.impulse[input * p * t..(input + 1) * p * t];
            let got = system.impulse(case.times, input).unwrap();
            let error = series_error(outputs(&got).into_iter(), want);
            assert!(
                error < 1e-11,
                "{}: impulse of input {input}: {error:e}",
                case.name
            );
        }
        let x0 = DVector::from_column_slice(case.x0);
        let got = system.initial(case.times, &x0).unwrap();
        let error = series_error(outputs(&got).into_iter(), case.initial);
        assert!(error < 1e-13, "{}: initial: {error:e}", case.name);
        let u = rows(case.u, m, t);
        let got = system.lsim(case.times, &u, &x0).unwrap();
        let error = series_error(outputs(&got).into_iter(), case.lsim);
        assert!(error < 1e-13, "{}: lsim: {error:e}", case.name);
        let states: Vec<f64> = got.states.transpose().iter().copied().collect();
        let error = series_error(states.into_iter(), case.lsim_states);
        assert!(error < 1e-13, "{}: lsim states: {error:e}", case.name);
        assert_eq!(got.states.shape(), (n, t));
        assert_eq!(got.times, case.times);
    }
}

#[test]
fn frequency_responses_match_python_control() {
    for case in &CASES {
        let system = system(case);
        let (m, p) = (system.inputs(), system.outputs());
        let response = system.frequency_response(case.omega).unwrap();
        for (k, g) in response.values.iter().enumerate() {
            for i in 0..p {
                for j in 0..m {
                    let at = 2 * ((k * p + i) * m + j);
                    let want = Complex::new(case.fresp[at], case.fresp[at + 1]);
                    let got = g[(i, j)];
                    assert!(
                        (got - want).norm() <= 1e-13 * want.norm() + 1e-300,
                        "{} at ω = {}: G[{i}][{j}] = {got}, want {want}",
                        case.name,
                        case.omega[k]
                    );
                }
            }
        }
    }
}

#[test]
fn margins_match_python_control() {
    for case in &LOOPS {
        let system = build(case.a, case.b, case.c, case.d, case.period);
        let got = system.margins().unwrap();
        let got = [got.gain, got.phase, got.phase_crossover, got.gain_crossover];
        for (what, (g, w)) in [
            "gain margin",
            "phase margin",
            "phase crossover",
            "gain crossover",
        ]
        .iter()
        .zip(got.iter().zip(case.margins))
        {
            let fine = if w.is_nan() {
                g.is_nan()
            } else if w.is_infinite() {
                g == w
            } else {
                (g - w).abs() <= 1e-9 * w.abs()
            };
            assert!(fine, "{}: {what} {g}, want {w}", case.name);
        }
    }
}

#[test]
fn sampling_the_mass_spring_damper_gives_python_controls_c2d() {
    let (msd, sampled) = (&CASES[0], &CASES[3]);
    assert_eq!((msd.name, sampled.name), ("MSD", "SAMPLED"));
    let ours = system(msd).c2d(sampled.period).unwrap();
    let theirs = system(sampled);
    assert!((ours.a() - theirs.a()).amax() < 1e-14);
    assert!((ours.b() - theirs.b()).amax() < 1e-14);
    assert_eq!(ours.period(), Some(0.1));
}

#[test]
fn placed_poles_are_the_requested_ones_and_a_single_input_gain_is_scipys() {
    for case in &PLACEMENTS {
        let n = (case.a.len() as f64).sqrt().round() as usize;
        let m = case.b.len() / n;
        let (a, b) = (rows(case.a, n, n), rows(case.b, n, m));
        let poles = complex(case.poles);
        let placement = place_with(&a, &b, &poles, PlaceMethod::Yt).unwrap();
        let closed = sorted(crate::linalg::eigenvalues(&(&a - &b * &placement.gain)).unwrap());
        for (got, want) in closed.iter().zip(sorted(poles.clone())) {
            assert!(
                (got - want).norm() <= 1e-9 * (1.0 + want.norm()),
                "{}: closed-loop pole {got}, want {want}",
                case.name
            );
        }
        assert!(placement.converged, "{}", case.name);
        let scipy = rows(case.gain, m, n);
        if m == 1 || poles.iter().all(|p| p.im == 0.0) {
            assert!(
                (&placement.gain - &scipy).amax() <= 1e-9 * scipy.amax(),
                "{}: K = {}, SciPy's {scipy}",
                case.name,
                placement.gain
            );
        }
        // SciPy's own computed poles are the requested ones too (a check of the data).
        for (got, want) in sorted(complex(case.computed))
            .iter()
            .zip(sorted(poles.clone()))
        {
            assert!((got - want).norm() <= 1e-9 * (1.0 + want.norm()));
        }
        if poles.iter().all(|p| p.im == 0.0) {
            let knv0 = place_with(&a, &b, &poles, PlaceMethod::Knv0).unwrap();
            let closed = sorted(crate::linalg::eigenvalues(&(&a - &b * &knv0.gain)).unwrap());
            for (got, want) in closed.iter().zip(sorted(poles.clone())) {
                assert!(
                    (got - want).norm() <= 1e-9 * (1.0 + want.norm()),
                    "{}: KNV0",
                    case.name
                );
            }
        }
    }
}

/// With two inputs the gain is not unique; the robust choice (unit eigenvectors X with
/// the largest |det X|) gives a gain as large as SciPy's to 10⁻⁴ also where the iterates
/// differ (a complex pair), after at least one sweep, with well-conditioned eigenvectors
/// (|det X| of unit columns above 0.1; measured 0.11 to 0.27).
#[test]
fn multi_input_placement_is_as_robust_as_scipys() {
    for case in PLACEMENTS.iter().filter(|c| c.b.len() / 4 == 2) {
        let (a, b) = (rows(case.a, 4, 4), rows(case.b, 4, 2));
        let poles = complex(case.poles);
        let placement = place_with(&a, &b, &poles, PlaceMethod::Yt).unwrap();
        let scipy = rows(case.gain, 2, 4);
        assert!(
            (placement.gain.norm() - scipy.norm()).abs() <= 1e-4 * scipy.norm(),
            "{}: ‖K‖ = {}, SciPy's {}",
            case.name,
            placement.gain.norm(),
            scipy.norm()
        );
        assert!(placement.iterations >= 1);
        assert!(
            placement.eigenvectors.determinant().abs() > 0.1,
            "{}: |det X| = {}",
            case.name,
            placement.eigenvectors.determinant().abs()
        );
    }
}

#[test]
fn a_step_on_an_uneven_grid_is_the_step_on_the_even_one() {
    let case = &CASES[0];
    let system = system(case);
    let even = system.step(case.times, 0).unwrap();
    let picked: Vec<usize> = vec![0, 1, 3, 4, 9, 20, 21, 50, 130, 200];
    let times: Vec<f64> = picked.iter().map(|&k| case.times[k]).collect();
    let uneven = system.step(&times, 0).unwrap();
    for (i, &k) in picked.iter().enumerate() {
        assert!((uneven.outputs[(0, i)] - even.outputs[(0, k)]).abs() < 1e-13);
    }
}

/// The designs refuse a system of the other kind: issue 49's lqi on a sampled A, which the
/// free function cannot tell from a continuous one.
#[test]
fn designs_refuse_the_other_kind_of_system() {
    let continuous = system(&CASES[0]);
    let sampled = continuous.c2d(0.1).unwrap();
    let (q2, q3, r) = (
        DMatrix::identity(2, 2),
        DMatrix::identity(3, 3),
        DMatrix::identity(1, 1),
    );
    let mismatch = |operation, expected, found| ControlError::DomainMismatch {
        operation,
        expected,
        found,
    };
    let to_continuous = mismatch("", "continuous", "sampled");
    let to_sampled = mismatch("", "sampled", "continuous");
    let named = |e: ControlError, operation: &'static str, like: &ControlError| match (e, like) {
        (
            ControlError::DomainMismatch {
                operation: o,
                expected,
                found,
            },
            ControlError::DomainMismatch {
                expected: e2,
                found: f2,
                ..
            },
        ) => o == operation && expected == *e2 && found == *f2,
        _ => false,
    };
    assert!(named(
        sampled.lqr(&q2, &r).unwrap_err(),
        "lqr",
        &to_continuous
    ));
    assert!(named(
        sampled.lqi(&q3, &r).unwrap_err(),
        "lqi",
        &to_continuous
    ));
    assert!(named(
        sampled.lqe(&q2, &r).unwrap_err(),
        "lqe",
        &to_continuous
    ));
    assert!(named(sampled.c2d(0.1).unwrap_err(), "c2d", &to_continuous));
    assert!(named(
        continuous.dlqr(&q2, &r).unwrap_err(),
        "dlqr",
        &to_sampled
    ));
    assert!(named(
        continuous.dlqi(&q3, &r).unwrap_err(),
        "dlqi",
        &to_sampled
    ));
    assert!(named(
        continuous.dlqe(&q2, &r).unwrap_err(),
        "dlqe",
        &to_sampled
    ));
    // Each of the right kind is the free function.
    assert_eq!(
        continuous.lqr(&q2, &r),
        lqr(continuous.a(), continuous.b(), &q2, &r)
    );
    assert_eq!(
        sampled.dlqi(&q3, &r),
        dlqi(sampled.a(), sampled.b(), sampled.c(), &q3, &r, 0.1)
    );
    assert_eq!(
        sampled.dlqe(&q2, &r),
        dlqe(sampled.a(), sampled.c(), &q2, &r)
    );
    assert!(continuous.lqi(&q3, &r).is_ok() && continuous.lqe(&q2, &r).is_ok());
    assert!(sampled.dlqr(&q2, &r).is_ok());
    // Outputs with feedthrough cannot be integrated by lqi.
    let mimo = system(&CASES[2]);
    assert!(matches!(
        mimo.lqi(&DMatrix::identity(7, 7), &DMatrix::identity(2, 2)),
        Err(ControlError::InvalidSetting(why)) if why.contains("D must be zero")
    ));
}

#[test]
fn invalid_systems_and_requests_are_refused_naming_the_cause() {
    let m = |r, c| DMatrix::<f64>::zeros(r, c);
    assert_eq!(
        LinearSystem::continuous(m(2, 2), m(2, 1), m(1, 3), m(1, 1)),
        Err(ControlError::DimensionMismatch {
            matrix: "C",
            expected: (1, 2),
            found: (1, 3)
        })
    );
    assert_eq!(
        LinearSystem::continuous(m(2, 2), m(2, 1), m(1, 2), m(2, 1)),
        Err(ControlError::DimensionMismatch {
            matrix: "D",
            expected: (1, 1),
            found: (2, 1)
        })
    );
    let mut nan = m(1, 1);
    nan[(0, 0)] = f64::NAN;
    assert_eq!(
        LinearSystem::continuous(m(1, 1), m(1, 1), m(1, 1), nan),
        Err(ControlError::NonFinite { matrix: "D" })
    );
    for period in [0.0, -1.0, f64::INFINITY, f64::NAN] {
        assert!(matches!(
            LinearSystem::sampled(m(1, 1), m(1, 1), m(1, 1), m(1, 1), period),
            Err(ControlError::InvalidSetting(_))
        ));
    }
    let mimo = system(&CASES[2]);
    assert_eq!(
        mimo.margins(),
        Err(ControlError::NotSiso {
            outputs: 3,
            inputs: 2
        })
    );
    assert!(mimo.channel(0, 1).unwrap().margins().is_ok());
    assert_eq!(
        mimo.channel(3, 0),
        Err(ControlError::NoSuchChannel {
            kind: "output",
            index: 3,
            count: 3
        })
    );
    assert_eq!(
        mimo.step(&[0.0, 1.0], 2),
        Err(ControlError::NoSuchChannel {
            kind: "input",
            index: 2,
            count: 2
        })
    );
    for times in [
        &[][..],
        &[0.0, 0.0][..],
        &[1.0, 0.5][..],
        &[0.0, f64::NAN][..],
    ] {
        assert!(matches!(
            mimo.step(times, 0),
            Err(ControlError::InvalidSetting(_))
        ));
    }
    let sampled = system(&CASES[3]);
    assert!(matches!(
        sampled.step(&[0.0, 0.1, 0.25], 0),
        Err(ControlError::InvalidSetting(why)) if why.contains("t0 + k Ts")
    ));
    assert!(matches!(
        mimo.lsim(&[0.0, 1.0], &m(1, 2), &DVector::zeros(4)),
        Err(ControlError::DimensionMismatch { matrix: "u", .. })
    ));
    assert!(matches!(
        mimo.initial(&[0.0, 1.0], &DVector::zeros(3)),
        Err(ControlError::DimensionMismatch { matrix: "x0", .. })
    ));
    // A frequency at a pole: the double integrator at ω = 0.
    let marginal = system(&CASES[4]);
    assert_eq!(
        marginal.frequency_response(&[1.0, 0.0]),
        Err(ControlError::PoleAtFrequency { frequency: 0.0 })
    );
    // The sampled system has no DC gain when it has a pole at z = 1.
    assert_eq!(
        marginal.c2d(0.1).unwrap().dc_gain(),
        Err(ControlError::PoleAtFrequency { frequency: 0.0 })
    );
}

#[test]
fn placement_refuses_what_cannot_be_placed() {
    let uncontrollable = system(&CASES[5]);
    let two = [Complex::new(-1.0, 0.0), Complex::new(-3.0, 0.0)];
    assert_eq!(
        uncontrollable.place(&two),
        Err(ControlError::Uncontrollable { rank: 1, states: 2 })
    );
    let mimo = system(&CASES[2]);
    let p = |re: f64, im: f64| Complex::new(re, im);
    assert_eq!(
        mimo.place(&[p(-2.0, 0.0), p(-2.0, 0.0), p(-2.0, 0.0), p(-3.0, 0.0)]),
        Err(ControlError::RepeatedPole {
            pole: p(-2.0, 0.0),
            multiplicity: 3,
            rank: 2
        })
    );
    // Twice is fine with two inputs; once only with one.
    assert!(mimo
        .place(&[p(-2.0, 0.0), p(-2.0, 0.0), p(-3.0, 0.0), p(-4.0, 0.0)])
        .is_ok());
    let msd = system(&CASES[0]);
    assert!(matches!(
        msd.place(&[p(-2.0, 0.0), p(-2.0, 0.0)]),
        Err(ControlError::RepeatedPole {
            multiplicity: 2,
            rank: 1,
            ..
        })
    ));
    assert!(matches!(
        msd.place(&[p(-2.0, 1.0), p(-2.0, -1.5)]),
        Err(ControlError::InvalidSetting(why)) if why.contains("conjugates")
    ));
    assert!(matches!(
        msd.place(&[p(-2.0, 0.0)]),
        Err(ControlError::DimensionMismatch {
            matrix: "poles",
            ..
        })
    ));
    assert!(matches!(
        place_with(msd.a(), msd.b(), &[p(-2.0, 1.0), p(-2.0, -1.0)], PlaceMethod::Knv0),
        Err(ControlError::InvalidSetting(why)) if why.contains("KNV0")
    ));
    // A B with a repeated column: its inputs are dependent.
    let b = DMatrix::from_row_slice(2, 2, &[0.0, 0.0, 1.0, 1.0]);
    assert!(matches!(
        place(msd.a(), &b, &[p(-2.0, 0.0), p(-3.0, 0.0)]),
        Err(ControlError::InvalidSetting(why)) if why.contains("independent")
    ));
}

/// The Bode diagrams of the reference loops are drawn (the file is written), and refused
/// for frequencies that are not positive and increasing.
#[cfg(feature = "plot")]
#[test]
fn bode_plots_are_drawn_with_their_margins() {
    let omegas: Vec<f64> = (0..=300)
        .map(|k| 10f64.powf(-2.0 + 0.01 * f64::from(k)))
        .collect();
    let dir = std::env::temp_dir().join("lagrange-bode-test");
    for case in &LOOPS {
        let system = build(case.a, case.b, case.c, case.d, case.period);
        let omegas: Vec<f64> = match system.period() {
            Some(ts) => omegas
                .iter()
                .copied()
                .filter(|&w| w < 0.999 * std::f64::consts::PI / ts)
                .collect(),
            None => omegas.clone(),
        };
        let path = dir.join(format!("{}.png", case.name));
        system.bode_plot(&omegas, 0, 0, &path).unwrap();
        assert!(path.exists());
    }
    let system = build(LOOPS[0].a, LOOPS[0].b, LOOPS[0].c, LOOPS[0].d, 0.0);
    for bad in [&[][..], &[0.0, 1.0][..], &[2.0, 1.0][..]] {
        assert!(system.bode_plot(bad, 0, 0, dir.join("never.png")).is_err());
    }
}

/// A pure gain y = D u has no states: every analysis still answers.
#[test]
fn a_system_without_states_is_its_feedthrough() {
    let d = DMatrix::from_element(1, 1, 0.5);
    for system in [
        LinearSystem::continuous(
            DMatrix::zeros(0, 0),
            DMatrix::zeros(0, 1),
            DMatrix::zeros(1, 0),
            d.clone(),
        )
        .unwrap(),
        LinearSystem::sampled(
            DMatrix::zeros(0, 0),
            DMatrix::zeros(0, 1),
            DMatrix::zeros(1, 0),
            d.clone(),
            0.1,
        )
        .unwrap(),
    ] {
        assert!(system.poles().unwrap().is_empty());
        assert_eq!(system.dc_gain().unwrap(), d);
        let step = system.step(&[0.0, 0.1, 0.2], 0).unwrap();
        assert_eq!(step.outputs.as_slice(), &[0.5, 0.5, 0.5]);
        let g = system.frequency_response(&[1.0]).unwrap();
        assert_eq!(g.magnitude(0, 0), vec![0.5]);
        let margins = system.margins().unwrap();
        assert!(margins.gain.is_infinite() && margins.phase.is_infinite());
        assert!(system.controllability().unwrap().full());
        assert_eq!(system.place(&[]).unwrap().shape(), (1, 0));
    }
}

/// Without inputs nothing can be placed: the cause named is controllability.
#[test]
fn a_system_without_inputs_is_uncontrollable() {
    let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -1.0, 0.0]);
    let poles = [Complex::new(-1.0, 0.0), Complex::new(-2.0, 0.0)];
    assert_eq!(
        place(&a, &DMatrix::zeros(2, 0), &poles),
        Err(ControlError::Uncontrollable { rank: 0, states: 2 })
    );
}
