//! Slider (cart) of mass m1 on a horizontal line, coordinate x, pushed by an input force F;
//! a point mass m2 hangs from it on a massless rod of length l, angle θ from the downward
//! vertical. Truth: the textbook cart–pendulum equations
//!   (m1+m2) ẍ + m2 l cos θ θ̈ − m2 l sin θ θ̇² = F
//!   m2 l cos θ ẍ + m2 l² θ̈ + m2 g l sin θ = 0
//! solved in closed form with D = m1 + m2 sin²θ:
//!   ẍ = (F + m2 sin θ (l θ̇² + g cos θ)) / D
//!   θ̈ = −(F cos θ + m2 l θ̇² sin θ cos θ + (m1+m2) g sin θ) / (l D)
use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

lagrangian! {
    /// Pendulum hanging from a slider on a horizontal rail.
    pub struct SliderPendulum {
        parameters: m1 = 2.0, m2 = 0.5, l = 0.8, g = 9.81;
        coordinates: x, theta;
        inputs: F;

        let xb = x + l * sin(theta);
        let yb = -l * cos(theta);

        kinetic = m1/2 * dot(x)^2 + m2/2 * (dot(xb)^2 + dot(yb)^2);
        potential = m2 * g * yb;
        force F on x;
    }
}

/// Irregular states [x, θ, ẋ, θ̇] and input forces F.
const CASES: [([f64; 4], f64); 6] = [
    ([0.0, 0.0, 0.0, 0.0], 0.0),
    ([0.3, 0.6, 0.0, 0.0], 0.0),
    ([-1.2, 1.3, 0.7, -2.1], 0.0),
    ([2.5, -2.6, -1.4, 3.3], 1.75),
    ([0.01, 3.0, 4.0, 0.2], -6.2),
    ([-0.4, -0.9, -0.35, -5.5], 0.3),
];

fn state([x, th, xd, thd]: [f64; 4]) -> State<2> {
    State::new(0.0, SVector::from([x, th]), SVector::from([xd, thd]))
}

fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: got {got:e}, want {want:e}"
    );
}

#[test]
fn mass_matrix_and_accelerations_match_closed_form() {
    for model in [
        SliderPendulum::default(),
        SliderPendulum::new(0.65, 1.8, 1.35, 9.81),
    ] {
        let SliderPendulum { m1, m2, l, g } = model;
        for (x, f) in CASES {
            let (s, u) = (state(x), SVector::from([f]));
            let (th, thd) = (x[1], x[3]);
            // M = [[m1+m2, m2 l cos θ], [m2 l cos θ, m2 l²]].
            let mm = model.mass_matrix(&s, &u);
            assert_close(mm[(0, 0)], m1 + m2, 1e-12, "M_xx");
            assert_close(mm[(0, 1)], m2 * l * th.cos(), 1e-12, "M_xθ");
            assert_close(mm[(1, 1)], m2 * l * l, 1e-12, "M_θθ");
            assert_eq!(mm, mm.transpose(), "mass matrix must be symmetric");
            // Q = [F, 0]: the force on the cart does virtual work F δx only.
            assert_eq!(model.generalized_forces(&s, &u), SVector::from([f, 0.0]));
            let d = m1 + m2 * th.sin().powi(2);
            let xdd = (f + m2 * th.sin() * (l * thd * thd + g * th.cos())) / d;
            let thdd = -(f * th.cos()
                + m2 * l * thd * thd * th.sin() * th.cos()
                + (m1 + m2) * g * th.sin())
                / (l * d);
            let acc = model.accelerations(&s, &u).unwrap();
            assert_close(acc[0], xdd, 1e-12, "ẍ");
            assert_close(acc[1], thdd, 1e-12, "θ̈");
        }
    }
}

#[test]
fn inverse_dynamics_recovers_the_input_force() {
    let model = SliderPendulum::new(1.3, 0.45, 0.9, 9.81);
    for (x, f) in CASES {
        let (s, u) = (state(x), SVector::from([f]));
        let qdd = model.accelerations(&s, &u).unwrap();
        let tau = model.inverse_dynamics(&s, &qdd, &u);
        assert!(tau.norm() <= 1e-12 * (1.0 + f.abs()), "τ = {tau}");
        // Without the input, the missing generalized force is exactly Q = [F, 0].
        let tau = model.inverse_dynamics(&s, &qdd, &SVector::zeros());
        assert_close(tau[0], f, 1e-12, "τ_x");
        assert_close(tau[1], 0.0, 1e-12, "τ_θ");
    }
}

#[test]
fn energy_balance_and_horizontal_momentum() {
    // h = T + V with T = ½(m1+m2)ẋ² + m2 l cos θ ẋ θ̇ + ½ m2 l² θ̇², V = −m2 g l cos θ.
    // Along the motion dh/dt = q̇·Q = ẋ F (conserved when F = 0), and x is cyclic so
    // p_x = ∂L/∂ẋ = (m1+m2)ẋ + m2 l cos θ θ̇ obeys dp_x/dt = F.
    let model = SliderPendulum::new(1.1, 0.7, 0.6, 9.81);
    let SliderPendulum { m1, m2, l, g } = model;
    for (x, f) in &CASES[2..] {
        let (s, u) = (state(*x), SVector::from([*f]));
        let (th, xd, thd) = (x[1], x[2], x[3]);
        let t_hand =
            0.5 * (m1 + m2) * xd * xd + m2 * l * th.cos() * xd * thd + 0.5 * m2 * l * l * thd * thd;
        let h_hand = t_hand - m2 * g * l * th.cos();
        assert_close(model.energy(&s, &u), h_hand, 1e-12, "h");
        let p_x = (m1 + m2) * xd + m2 * l * th.cos() * thd;
        assert_close(model.momenta(&s, &u)[0], p_x, 1e-12, "p_x");

        // Central differences along the exact flow direction (q̇, q̈).
        let qdd = model.accelerations(&s, &u).unwrap();
        let eps = 1e-6;
        let at = |e: f64| State::new(s.t + e, s.q + s.qd * e, s.qd + qdd * e);
        let dh = (model.energy(&at(eps), &u) - model.energy(&at(-eps), &u)) / (2.0 * eps);
        let power = s.qd.dot(&(model.mass_matrix(&s, &u) * qdd)).abs();
        assert!(
            (dh - xd * f).abs() <= 1e-6 * (power + (xd * f).abs()),
            "dh/dt = {dh:e}"
        );
        let dp = (model.momenta(&at(eps), &u)[0] - model.momenta(&at(-eps), &u)[0]) / (2.0 * eps);
        assert!(
            (dp - f).abs() <= 1e-6 * (1.0 + f.abs()),
            "dp_x/dt = {dp:e}, F = {f}"
        );
    }
}

#[test]
fn named_coordinates_and_inputs() {
    // The generated structs name q and u; a push to the right at rest, hanging straight
    // down: ẍ = F/m1 and θ̈ = −F/(m1 l) (the bob lags behind the cart).
    let model = SliderPendulum::default();
    let q: SVector<f64, 2> = SliderPendulumCoordinates { x: 0.4, theta: 0.0 }.into();
    let u: SVector<f64, 1> = SliderPendulumInputs { F: 3.0 }.into();
    let acc = SliderPendulumCoordinates::from(model.accelerations(&State::at_rest(q), &u).unwrap());
    assert_close(acc.x, 3.0 / 2.0, 1e-12, "ẍ");
    assert_close(acc.theta, -3.0 / (2.0 * 0.8), 1e-12, "θ̈");
    assert_eq!(SliderPendulum::COORDINATES, ["x", "theta"]);
    assert_eq!(SliderPendulum::INPUTS, ["F"]);
}

/// Exact derivatives against central differences (`common::derivatives`).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("SliderPendulum", &SliderPendulum::default())
        .standard()
        .state(
            "inverted, pushed",
            State::at_rest(SVector::from([0.0, std::f64::consts::PI])),
            SVector::from([1.0]),
        )
        .check();
}
