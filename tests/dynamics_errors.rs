//! `DynamicsError`: every way a model can have no meaningful acceleration is reported as
//! an error naming the culprit, never as a panic or a silent NaN.

use crate::common;

use common::derivatives::{Derivatives, Part};
use lagrange_runtime::prelude::*;
use lagrange_runtime::StatePart;

lagrangian! {
    /// T lacks dot(y): M = diag(m, 0), a zero row for y.
    pub struct NoYVelocity {
        parameters: m = 1.5, k = 2.0;
        coordinates: x, y;
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * (x^2 + y^2);
    }
}

lagrangian! {
    /// T = m/2 (ẋ² − ẏ²): M = diag(m, −m), indefinite.
    pub struct NegativeKinetic {
        parameters: m = 1.5;
        coordinates: x, y;
        kinetic = m/2 * (dot(x)^2 - dot(y)^2);
    }
}

lagrangian! {
    /// T = m/2 (ẋ + ẏ)²: M = m [[1, 1], [1, 1]], singular with no zero row.
    pub struct SumOnly {
        parameters: m = 0.7;
        coordinates: x, y;
        kinetic = m/2 * (dot(x) + dot(y))^2;
    }
}

lagrangian! {
    /// A well-posed model with inputs, for the non-finite state checks; V = k/x and
    /// sqrt(y) make the result non-finite at x = 0 and y < 0.
    pub struct Fragile {
        parameters: m = 1.0, k = 0.5;
        coordinates: x, y;
        inputs: fx, fy;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = k / x + k * sqrt(y);
        force fx on x;
        force fy on y;
    }
}

lagrangian! {
    /// A heavy cart (x, 10⁶ kg) and a tiny rotor (th, 10⁻⁷ kg m²), uncoupled:
    /// M = diag(big, small) is positive definite, q̈ = (−k1 x / big, −k2 th / small).
    pub struct HeavyAndLight {
        parameters: big = 1e6, small = 1e-7, k1 = 3e5, k2 = 2e-7;
        coordinates: x, th;
        kinetic = big/2 * dot(x)^2 + small/2 * dot(th)^2;
        potential = k1/2 * x^2 + k2/2 * th^2;
    }
}

fn st(q: [f64; 2], qd: [f64; 2]) -> State<2> {
    State::new(0.3, SVector::from(q), SVector::from(qd))
}

#[test]
fn missing_velocity_names_the_coordinate() {
    let s = st([0.4, -0.9], [1.1, 0.6]);
    let err = NoYVelocity::default()
        .accelerations(&s, &SVector::zeros())
        .unwrap_err();
    assert_eq!(err, DynamicsError::MissingVelocity { coordinate: "y" });
    let msg = err.to_string();
    assert!(msg.contains("dot(y)"), "{msg}");
    // The mass matrix itself is what the runtime says: diag(m, 0).
    let mm = NoYVelocity::default().mass_matrix(&s, &SVector::zeros());
    assert_eq!(mm, SMatrix::<f64, 2, 2>::new(1.5, 0.0, 0.0, 0.0));
}

#[test]
fn negative_kinetic_energy_is_indefinite() {
    let s = st([0.4, -0.9], [1.1, 0.6]);
    let err = NegativeKinetic::default()
        .accelerations(&s, &SVector::zeros())
        .unwrap_err();
    assert_eq!(err, DynamicsError::IndefiniteMassMatrix);
    assert!(err.to_string().contains("positive definite"));
}

#[test]
fn singular_mass_matrix_without_zero_row() {
    let s = st([0.4, -0.9], [1.1, 0.6]);
    let model = SumOnly::default();
    let mm = model.mass_matrix(&s, &SVector::zeros());
    assert_eq!(mm, SMatrix::<f64, 2, 2>::new(0.7, 0.7, 0.7, 0.7));
    let err = model.accelerations(&s, &SVector::zeros()).unwrap_err();
    assert_eq!(err, DynamicsError::SingularMassMatrix);
    assert!(err.to_string().contains("singular"));
}

#[test]
fn non_finite_state_names_the_part_and_coordinate() {
    let model = Fragile::default();
    let (q, qd) = ([0.8, 0.3], [-0.2, 0.5]);
    let u: SVector<f64, 2> = FragileInputs { fx: 0.1, fy: -0.4 }.into();
    // Sanity: the clean state is fine, ẍ = (k/x² + fx)/m, ÿ = (−k/(2√y) + fy)/m.
    let a = model.accelerations(&st(q, qd), &u).unwrap();
    assert!((a[0] - (0.5 / 0.64 + 0.1)).abs() < 1e-12);
    assert!((a[1] - (-0.25 / 0.3f64.sqrt() - 0.4)).abs() < 1e-12);

    let nan_state = |part: StatePart, i: usize, bad: f64| -> (State<2>, SVector<f64, 2>) {
        let (mut s, mut u) = (st(q, qd), u);
        match part {
            StatePart::Time => s.t = bad,
            StatePart::Coordinate => s.q[i] = bad,
            StatePart::Velocity => s.qd[i] = bad,
            StatePart::Input => u[i] = bad,
        }
        (s, u)
    };
    let cases = [
        (StatePart::Time, 0, f64::NAN, "t"),
        (StatePart::Time, 0, f64::INFINITY, "t"),
        (StatePart::Coordinate, 1, f64::NAN, "y"),
        (StatePart::Coordinate, 0, f64::NEG_INFINITY, "x"),
        (StatePart::Velocity, 1, f64::INFINITY, "y"),
        (StatePart::Velocity, 0, f64::NAN, "x"),
        (StatePart::Input, 1, f64::NAN, "fy"),
        (StatePart::Input, 0, f64::INFINITY, "fx"),
    ];
    for (part, i, bad, name) in cases {
        let (s, u) = nan_state(part, i, bad);
        let err = model.accelerations(&s, &u).unwrap_err();
        assert_eq!(
            err,
            DynamicsError::NonFiniteState { part, name },
            "{part:?}[{i}] = {bad}"
        );
        let msg = err.to_string();
        assert!(msg.contains(&format!("`{name}`")), "{msg}");
        // The other evaluations return (possibly non-finite) numbers, never panic.
        let _ = (
            model.energy(&s, &u),
            model.lagrangian(&s, &u),
            model.momenta(&s, &u),
        );
        let _ = (model.mass_matrix(&s, &u), model.generalized_forces(&s, &u));
        let _ = model.inverse_dynamics(&s, &SVector::from([1.0, 2.0]), &u);
    }
}

#[test]
fn non_finite_results() {
    let model = Fragile::default();
    let u = SVector::zeros();
    // V = k/x at x = 0: ∂V/∂x = −k/x² is infinite. V ∋ k sqrt(y) at y < 0: NaN.
    for q in [[0.0, 0.3], [0.8, -0.3], [0.0, -1.0]] {
        let err = model.accelerations(&st(q, [0.4, -0.7]), &u).unwrap_err();
        assert!(
            matches!(err, DynamicsError::NonFiniteResult { .. }),
            "{q:?}: {err:?}"
        );
        assert!(err.to_string().contains("non-finite"), "{err}");
    }
    // Huge but finite states are not "non-finite states".
    let s = st([1e300, 1e300], [1e200, -1e200]);
    let r = model.accelerations(&s, &u);
    assert!(
        !matches!(r, Err(DynamicsError::NonFiniteState { .. })),
        "{r:?}"
    );
}

#[test]
fn disparate_but_definite_masses_are_not_an_error() {
    // T clearly depends on dot(th); a diagonal M is solved exactly whatever its scaling.
    let md = HeavyAndLight::default();
    let s = st([0.4, -0.9], [1.1, 0.6]);
    let a = md.accelerations(&s, &SVector::zeros()).unwrap();
    assert!((a[0] - -0.3 * 0.4).abs() <= 1e-12 * 0.12);
    assert!((a[1] - -2.0 * -0.9).abs() <= 1e-12 * 1.8);
}

/// Exact derivatives against central differences (`common::derivatives`). The three
/// models whose mass matrix is singular or indefinite everywhere have no accelerations:
/// their linearization and sensitivities are left out, their equations are checked. Fragile
/// is defined for x ≠ 0 and y > 0 only: its states have x and y in [0.5, 1.5] (structured
/// around q = (1, 1)).
#[test]
fn derivatives_match_finite_differences() {
    let singular = "singular mass matrix: no accelerations";
    Derivatives::new("NoYVelocity", &NoYVelocity::default())
        .standard()
        .without(Part::Linearize, singular)
        .without(Part::Sensitivities, singular)
        .check();
    let indefinite = "indefinite mass matrix: no accelerations";
    Derivatives::new("NegativeKinetic", &NegativeKinetic::default())
        .standard()
        .without(Part::Linearize, indefinite)
        .without(Part::Sensitivities, indefinite)
        .check();
    Derivatives::new("SumOnly", &SumOnly::default())
        .standard()
        .without(Part::Linearize, singular)
        .without(Part::Sensitivities, singular)
        .check();
    Derivatives::new("Fragile", &Fragile::default())
        .sampler(|rng| {
            let (mut s, u) = common::derivatives::order_one::<2, 2>(rng);
            s.q = s.q.map(|x| 1.0 + 0.5 * x);
            (s, u)
        })
        .structured_at(SVector::from([1.0, 1.0]))
        .random(3)
        .check();
    Derivatives::new("HeavyAndLight", &HeavyAndLight::default())
        .standard()
        .check();
}
