//! Slider of mass m1 on a horizontal rail with a pendulum (point mass m2 on a massless rod
//! of length l), written in Cartesian coordinates (x1, y1) of the slider and (x2, y2) of the
//! bob, with two holonomic constraints (Lagrange equations of the first kind):
//!
//!   f1 = y1 = 0                                (rail)
//!   f2 = (x1 − x2)² + (y1 − y2)² − l² = 0      (rod)
//!
//! As in the textbook treatment of this example, y points down and gravity is +g along y:
//! V = −g (m1 y1 + m2 y2). With the DSL convention M q̈ + Φ_qᵀ λ = −∂V/∂q:
//!
//!   m1 ẍ1 = −2 λ2 (x1 − x2)
//!   m1 ÿ1 = m1 g − λ1 − 2 λ2 (y1 − y2)
//!   m2 ẍ2 = +2 λ2 (x1 − x2)
//!   m2 ÿ2 = m2 g + 2 λ2 (y1 − y2)
//!
//! Eliminating: the third row gives λ2 = m2 ẍ2 / (2 (x1 − x2)), the sum of the y rows
//! λ1 = (m1 + m2) g − m1 ÿ1 − m2 ÿ2 (textbook elimination).
//!
//! Independent truth for q̈: the same system in minimal coordinates (x, θ), θ from the
//! downward vertical, x1 = x, y1 = 0, x2 = x + l sin θ, y2 = l cos θ, whose equations
//!   (m1+m2) ẍ + m2 l cos θ θ̈ − m2 l sin θ θ̇² = 0
//!   m2 l cos θ ẍ + m2 l² θ̈ + m2 g l sin θ = 0
//! have the closed form (D = m1 + m2 sin²θ)
//!   ẍ = m2 sin θ (l θ̇² + g cos θ) / D
//!   θ̈ = −(m2 l θ̇² sin θ cos θ + (m1+m2) g sin θ) / (l D).
//! The rod tension follows from the slider's horizontal equation m1 ẍ = T sin θ:
//!   T = m1 m2 (l θ̇² + g cos θ) / D,
//! and the force the rod exerts on the bob, −λ2 ∂f2/∂r2 = 2 λ2 (r1 − r2), has magnitude
//! 2 λ2 l, so λ2 = T / (2 l).
use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

// Slider on a rail with a pendulum, Cartesian coordinates, y pointing down.
use lagrange_test_models::SliderPendulum as SliderPendulumCartesian;

lagrangian! {
    /// The same system in minimal coordinates (x, θ), y pointing down.
    pub struct SliderPendulumMinimal {
        parameters: m1 = 2.0, m2 = 0.5, l = 0.8, g = 9.81;
        coordinates: x, theta;

        let x2 = x + l * sin(theta);
        let y2 = l * cos(theta);

        kinetic = m1/2 * dot(x)^2 + m2/2 * (dot(x2)^2 + dot(y2)^2);
        potential = -g * m2 * y2;
    }
}

const U: SVector<f64, 0> =
    SVector::from_array_storage(lagrange_runtime::nalgebra::ArrayStorage([[]]));

/// Irregular minimal states [x, θ, ẋ, θ̇], none with sin θ = 0 (λ2 = m2 ẍ2 / (2 (x1 − x2))
/// needs x1 ≠ x2), some beyond horizontal (cos θ < 0) and some fast.
const CASES: [[f64; 4]; 6] = [
    [0.0, 0.3, 0.0, 0.0],
    [0.3, 0.6, 0.2, 0.0],
    [-1.2, 1.3, 0.7, -2.1],
    [2.5, -2.6, -1.4, 3.3],
    [0.01, 3.0, 4.0, 0.2],
    [-0.4, -0.9, -0.35, -5.5],
];

fn models() -> [(SliderPendulumCartesian, SliderPendulumMinimal); 2] {
    [
        (
            SliderPendulumCartesian::default(),
            SliderPendulumMinimal::default(),
        ),
        (
            SliderPendulumCartesian::new(0.65, 1.8, 1.35, 9.81),
            SliderPendulumMinimal::new(0.65, 1.8, 1.35, 9.81),
        ),
    ]
}

/// The Cartesian state of the minimal state [x, θ, ẋ, θ̇]: positions and their time
/// derivatives (ẋ2 = ẋ + l cos θ θ̇, ẏ2 = −l sin θ θ̇), consistent with both constraints.
fn cartesian(l: f64, [x, th, xd, thd]: [f64; 4]) -> State<4> {
    let (s, c) = th.sin_cos();
    State::new(
        0.0,
        SVector::from([x, 0.0, x + l * s, l * c]),
        SVector::from([xd, 0.0, xd + l * c * thd, -l * s * thd]),
    )
}

/// Closed form of the minimal equations: (ẍ, θ̈) and the rod tension T.
fn closed_form(model: &SliderPendulumCartesian, [_, th, _, thd]: [f64; 4]) -> (f64, f64, f64) {
    let SliderPendulumCartesian { m1, m2, l, g } = *model;
    let (s, c) = th.sin_cos();
    let d = m1 + m2 * s * s;
    let xdd = m2 * s * (l * thd * thd + g * c) / d;
    let thdd = -(m2 * l * thd * thd * s * c + (m1 + m2) * g * s) / (l * d);
    let tension = m1 * m2 * (l * thd * thd + g * c) / d;
    (xdd, thdd, tension)
}

/// Cartesian accelerations of the minimal motion: second time derivatives of
/// x1 = x, y1 = 0, x2 = x + l sin θ, y2 = l cos θ.
fn cartesian_accelerations(l: f64, [_, th, _, thd]: [f64; 4], xdd: f64, thdd: f64) -> [f64; 4] {
    let (s, c) = th.sin_cos();
    [
        xdd,
        0.0,
        xdd + l * c * thdd - l * s * thd * thd,
        -l * s * thdd - l * c * thd * thd,
    ]
}

fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: got {got:e}, want {want:e}"
    );
}

#[test]
fn names_and_residuals() {
    assert_eq!(
        SliderPendulumCartesian::COORDINATES,
        ["x1", "y1", "x2", "y2"]
    );
    assert_eq!(SliderPendulumCartesian::CONSTRAINTS, ["rail", "rod"]);
    let model = SliderPendulumCartesian::default();
    for case in CASES {
        let r = model.constraint_residuals(&cartesian(model.l, case), &U);
        assert!(r.amax() < 1e-15, "consistent state, residuals {r}");
    }
    // Off the constraints the residuals are the constraint functions as written:
    // f1 = y1 = 0.1, f2 = (1 − 0.5)² + (0.1 − 0.9)² − 0.64 = 0.25 + 0.64 − 0.64 = 0.25.
    let s = State::new(
        0.0,
        SVector::from([1.0, 0.1, 0.5, 0.9]),
        SVector::from([0.3, -0.2, 0.1, 0.7]),
    );
    let r = model.constraint_residuals(&s, &U);
    assert_close(r[0], 0.1, 1e-15, "rail residual");
    assert_close(r[1], 0.25, 1e-15, "rod residual");
}

#[test]
fn accelerations_match_minimal_coordinates() {
    for (model, minimal) in models() {
        for case in CASES {
            let s = cartesian(model.l, case);
            let qdd = model.accelerations(&s, &U).unwrap();
            let (xdd, thdd, _) = closed_form(&model, case);
            let want = cartesian_accelerations(model.l, case, xdd, thdd);
            for (i, name) in ["ẍ1", "ÿ1", "ẍ2", "ÿ2"].iter().enumerate() {
                assert_close(qdd[i], want[i], 1e-12, name);
            }
            // The library's own minimal model agrees with the closed form too, so both
            // formulations of the same system give the same motion.
            let sm = State::new(
                0.0,
                SVector::from([case[0], case[1]]),
                SVector::from([case[2], case[3]]),
            );
            let acc = minimal.accelerations(&sm, &U).unwrap();
            assert_close(acc[0], xdd, 1e-12, "minimal ẍ");
            assert_close(acc[1], thdd, 1e-12, "minimal θ̈");
            let want = cartesian_accelerations(model.l, case, acc[0], acc[1]);
            for i in 0..4 {
                assert_close(qdd[i], want[i], 1e-12, "Cartesian vs minimal model");
            }
        }
    }
}

#[test]
fn multipliers_match_textbook_elimination() {
    for (model, _) in models() {
        let SliderPendulumCartesian { m1, m2, l, g } = model;
        for case in CASES {
            let s = cartesian(l, case);
            let lambda = model.multipliers(&s, &U).unwrap();
            let (xdd, thdd, tension) = closed_form(&model, case);
            let [_, y1dd, x2dd, y2dd] = cartesian_accelerations(l, case, xdd, thdd);
            let (x1, y1, x2, y2) = (s.q[0], s.q[1], s.q[2], s.q[3]);
            // Textbook elimination with the independent (minimal-coordinate) accelerations.
            let lambda1 = (m1 + m2) * g - m1 * y1dd - m2 * y2dd;
            let lambda2 = m2 * x2dd / (2.0 * (x1 - x2));
            assert_close(lambda[0], lambda1, 1e-12, "λ1 (rail)");
            assert_close(lambda[1], lambda2, 1e-12, "λ2 (rod)");
            // λ2 = T / (2 l) with the closed-form rod tension.
            assert_close(lambda[1], tension / (2.0 * l), 1e-12, "λ2 = T/(2l)");
            // The same elimination with the library's own accelerations: the first-kind
            // equations hold row by row with the library's λ.
            let qdd = model.accelerations(&s, &U).unwrap();
            let l1 = (m1 + m2) * g - m1 * qdd[1] - m2 * qdd[3];
            let l2 = m2 * qdd[2] / (2.0 * (x1 - x2));
            assert_close(lambda[0], l1, 1e-12, "λ1 from library q̈");
            assert_close(lambda[1], l2, 1e-12, "λ2 from library q̈");
            assert_close(
                m1 * qdd[0],
                -2.0 * lambda[1] * (x1 - x2),
                1e-12,
                "m1 ẍ1 row",
            );
            assert_close(
                m2 * qdd[3],
                m2 * g + 2.0 * lambda[1] * (y1 - y2),
                1e-12,
                "m2 ÿ2 row",
            );
        }
    }
}

#[test]
fn reaction_forces_are_rail_normal_force_and_rod_tension() {
    // On the slider: the rod pulls with T toward the bob, T (sin θ, cos θ), and the rail
    // pushes up with N = m1 g + T cos θ (ÿ1 = 0), so the total reaction on (x1, y1) is
    // (T sin θ, T cos θ − N) = (T sin θ, −m1 g). On the bob: T toward the slider,
    // −T (sin θ, cos θ). These are −Jᵀλ.
    for (model, _) in models() {
        let SliderPendulumCartesian { m1, m2, l, g } = model;
        for case in CASES {
            let s = cartesian(l, case);
            let r = model.reaction_forces(&s, &U).unwrap();
            let (_, _, tension) = closed_form(&model, case);
            let (sn, cs) = case[1].sin_cos();
            let want = [tension * sn, -m1 * g, -tension * sn, -tension * cs];
            for i in 0..4 {
                assert_close(r[i], want[i], 1e-12, "reaction force");
            }
            // −Jᵀλ from the multipliers and the constraint gradients by hand:
            // ∇f1 = (0, 1, 0, 0), ∇f2 = 2 (x1 − x2, y1 − y2, x2 − x1, y2 − y1).
            let lambda = model.multipliers(&s, &U).unwrap();
            let (dx, dy) = (s.q[0] - s.q[2], s.q[1] - s.q[3]);
            let by_hand = [
                -2.0 * lambda[1] * dx,
                -lambda[0] - 2.0 * lambda[1] * dy,
                2.0 * lambda[1] * dx,
                2.0 * lambda[1] * dy,
            ];
            for i in 0..4 {
                assert_close(r[i], by_hand[i], 1e-12, "−Jᵀλ");
            }
            // Newton: M q̈ = gravity + reaction.
            let qdd = model.accelerations(&s, &U).unwrap();
            let gravity = [0.0, m1 * g, 0.0, m2 * g];
            let mass = [m1, m1, m2, m2];
            for i in 0..4 {
                assert_close(mass[i] * qdd[i], gravity[i] + r[i], 1e-12, "M q̈ = F + R");
            }
        }
    }
}

/// Exact derivatives against central differences (`common::derivatives`), of both forms,
/// at structured, random and the file's consistent states. The Cartesian form's structured
/// states hang the bob below the slider (at q = 0 the rod's gradient vanishes).
#[test]
fn derivatives_match_finite_differences() {
    for (k, (cartesian_model, minimal)) in models().into_iter().enumerate() {
        let l = cartesian_model.l;
        let mut check =
            Derivatives::new(&format!("SliderPendulumCartesian ({k})"), &cartesian_model)
                .structured_at(SVector::from([0.0, 0.0, 0.0, l]))
                .random(3);
        for (i, case) in CASES.iter().enumerate() {
            check = check.state(&format!("CASES[{i}]"), cartesian(l, *case), U);
        }
        check.check();
        let mut check =
            Derivatives::new(&format!("SliderPendulumMinimal ({k})"), &minimal).standard();
        for (i, [x, th, xd, thd]) in CASES.iter().enumerate() {
            let s = State::new(0.0, SVector::from([*x, *th]), SVector::from([*xd, *thd]));
            check = check.state(&format!("CASES[{i}]"), s, U);
        }
        check.check();
    }
}
