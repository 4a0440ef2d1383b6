//! One model, one trait family: a `Model` (written by hand or by `lagrangian!`) is a
//! `Dynamics`, a `Constrained` with its own number of constraints, and a
//! `ConstraintSolver`, through the runtime's blanket impls; generic code reaches the number
//! of constraints through `ConstraintCount::with`.

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::model::{ConstraintCount, Count, Energies, Model, Point, Scalar, WithCount};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{Rattle, Simulation, Variational};

/// A pendulum of length `l` in its angle, written without the macro.
struct HandPendulum {
    m: f64,
    l: f64,
    g: f64,
}

impl Model<1, 0> for HandPendulum {
    const COORDINATES: [&'static str; 1] = ["theta"];
    const INPUTS: [&'static str; 0] = [];
    type Constraints = Count<0>;
    fn eval_energies<D: Scalar>(&self, x: &Point<D, 1, 0>) -> Energies<D> {
        let (theta, omega) = (x.q[0], x.qd[0]);
        Energies {
            kinetic: omega * omega * (self.m * self.l * self.l / 2.0),
            potential: -theta.cos() * (self.m * self.g * self.l),
        }
    }
}

// The same pendulum in Cartesian coordinates, with the rod as a constraint.
use lagrange_test_models::CartesianPendulum as Cartesian;

lagrangian! {
    /// A point in the plane on a circle and a line through the origin: two constraints.
    struct Pinned {
        parameters: m = 1.0;
        coordinates: x, y;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        constraint circle = x^2 + y^2 - 1;
        constraint line = y - x;
    }
}

/// The number of constraints as a value, read through the one mechanism.
struct Rows;

impl WithCount for Rows {
    type Output = usize;
    fn run<const K: usize>(self) -> usize {
        SMatrix::<f64, K, 2>::zeros().nrows()
    }
}

fn constraint_count<T: Model<N, M>, const N: usize, const M: usize>(_: &T) -> usize {
    T::Constraints::with(Rows)
}

#[test]
fn the_constraint_count_reaches_generic_code() {
    assert_eq!(
        constraint_count(&HandPendulum {
            m: 1.0,
            l: 1.0,
            g: 1.0
        }),
        0
    );
    assert_eq!(constraint_count(&Cartesian::default()), 1);
    assert_eq!(constraint_count(&Pinned::default()), 2);
    assert_eq!(
        <Pinned as Constrained<2, 0, 2>>::CONSTRAINTS,
        ["circle", "line"]
    );
    assert_eq!(<Cartesian as Constrained<2, 0, 1>>::CONSTRAINTS, ["rod"]);
}

#[test]
fn a_hand_written_model_is_a_dynamics() {
    let (m, l, g) = (0.7, 1.3, 9.81);
    let model = HandPendulum { m, l, g };
    let (theta, omega) = (0.4, -1.1);
    let s = State::new(0.0, SVector::from([theta]), SVector::from([omega]));
    let u = SVector::<f64, 0>::zeros();
    let qdd = model.accelerations(&s, &u).unwrap();
    // θ̈ = −(g/l) sin θ.
    assert!((qdd[0] + g / l * theta.sin()).abs() < 1e-14);
    let t = m * l * l * omega * omega / 2.0;
    let v = -m * g * l * theta.cos();
    assert!((model.kinetic_energy(&s, &u) - t).abs() < 1e-14);
    assert!((model.potential_energy(&s, &u) - v).abs() < 1e-14);
    assert!((model.lagrangian(&s, &u) - (t - v)).abs() < 1e-14);
    assert!((model.energy(&s, &u) - (t + v)).abs() < 1e-14);
    assert_eq!(model.dissipation(&s, &u), 0.0);
    assert!((model.mass_matrix(&s, &u)[(0, 0)] - m * l * l).abs() < 1e-14);
    assert!((model.momenta(&s, &u)[0] - m * l * l * omega).abs() < 1e-14);
    assert_eq!(<HandPendulum as Dynamics<1, 0>>::UNITS, None);
}

/// Without constraints, the constraint interface is the identity: nothing to project,
/// no violation, no reaction, and the stabilized accelerations are the accelerations.
#[test]
fn a_model_without_constraints_is_a_trivial_constraint_solver() {
    let model = HandPendulum {
        m: 1.0,
        l: 2.0,
        g: 9.81,
    };
    let s = State::new(0.5, SVector::from([0.3]), SVector::from([0.2]));
    let u = SVector::<f64, 0>::zeros();
    assert_eq!(model.project(&s, &u, &[], 1e-12).unwrap(), s);
    let violation = model.violation(&s, &u);
    assert_eq!((violation.position, violation.velocity), (0.0, 0.0));
    assert_eq!(
        model.reaction_forces(&s, &u).unwrap(),
        SVector::<f64, 1>::zeros()
    );
    assert_eq!(
        model.constraint_residuals(&s, &u),
        SVector::<f64, 0>::zeros()
    );
    assert_eq!(
        model.multipliers(&s, &u).unwrap(),
        SVector::<f64, 0>::zeros()
    );
    let stabilization = lagrange_runtime::constrained::Stabilization {
        alpha: 5.0,
        beta: 5.0,
    };
    assert_eq!(
        model
            .stabilized_accelerations(&s, &u, stabilization)
            .unwrap(),
        model.accelerations(&s, &u).unwrap()
    );
    // The settings are still checked.
    assert!(model.project(&s, &u, &[1], 1e-12).is_err());
    assert!(model.project(&s, &u, &[], -1.0).is_err());
}

/// RATTLE with no constraints is the midpoint variational integrator.
#[test]
fn rattle_without_constraints_is_the_variational_integrator() {
    let model = HandPendulum {
        m: 1.0,
        l: 2.0,
        g: 9.81,
    };
    let start = State::new(0.0, SVector::from([1.0]), SVector::zeros());
    let h = 1e-2;
    let rattle = Simulation::new(&model, start)
        .run(&Rattle::new(h), 2.0)
        .unwrap();
    let variational = Simulation::new(&model, start)
        .run(&Variational::new(h), 2.0)
        .unwrap();
    let (a, b) = (rattle.last(), variational.last());
    assert!((a.q - b.q).amax() < 1e-12, "{a:?} {b:?}");
    assert!((a.qd - b.qd).amax() < 1e-12, "{a:?} {b:?}");
}

/// The constrained pendulum's multipliers through the blanket `Constrained` impl: at the
/// bottom, at rest, the rod carries the weight, −∂φ/∂y λ = m g with φ = x² + y² − l².
#[test]
fn constrained_models_solve_through_the_blanket_impls() {
    let model = Cartesian::default();
    let s = State::new(0.0, SVector::from([0.0, -1.3]), SVector::zeros());
    let u = SVector::zeros();
    let lambda = model.multipliers(&s, &u).unwrap()[0];
    // −(2 y) λ = m g at y = −l.
    assert!((2.0 * 1.3 * lambda - 0.7 * 9.81).abs() < 1e-12, "{lambda}");
    assert_eq!(
        model.accelerations(&s, &u).unwrap(),
        SVector::<f64, 2>::zeros()
    );
}

/// What generic code bounded on `T: Model<N, M>` alone reads of a model through the `f64`
/// API (it needs no `Dynamics` bound and no `Constraints = Count<K>`: the blanket impls of
/// `Dynamics` and `ConstraintSolver` are for every `Model`): its accelerations, stabilized
/// or not, its projection onto the constraints, the violation, the reaction forces, and
/// its names from `Model`.
fn through_model<T: Model<N, M>, const N: usize, const M: usize>(
    model: &T,
    s: &State<N>,
) -> (
    SVector<f64, N>,
    SVector<f64, N>,
    State<N>,
    f64,
    SVector<f64, N>,
) {
    let u = SVector::zeros();
    assert!(model.check_start(s, &u).is_ok());
    assert_eq!(T::COORDINATES.len(), N);
    let stabilization = lagrange_runtime::constrained::Stabilization {
        alpha: 2.0,
        beta: 3.0,
    };
    let projected = model.project(s, &u, &[], 1e-12).unwrap();
    (
        model.accelerations(s, &u).unwrap(),
        model
            .stabilized_accelerations(s, &u, stabilization)
            .unwrap(),
        projected,
        model.violation(s, &u).position,
        model.reaction_forces(s, &u).unwrap(),
    )
}

/// Generic code over `T: Model<N, M>` gets the same answers as the concrete calls, for a
/// model without constraints (written by hand) and one with (the macro's).
#[test]
fn generic_code_over_model_calls_the_f64_api() {
    let hand = HandPendulum {
        m: 0.7,
        l: 1.3,
        g: 9.81,
    };
    let s = State::new(0.0, SVector::from([0.4]), SVector::from([-1.1]));
    let u = SVector::<f64, 0>::zeros();
    let (qdd, stabilized, projected, violation, reactions) = through_model(&hand, &s);
    assert_eq!(qdd, hand.accelerations(&s, &u).unwrap());
    assert_eq!(stabilized, qdd);
    assert_eq!((projected, violation), (s, 0.0));
    assert_eq!(reactions, SVector::<f64, 1>::zeros());

    let cartesian = Cartesian::default();
    let (x, y) = (1.3 * 0.4f64.sin(), -1.3 * 0.4f64.cos());
    let s = State::new(0.0, SVector::from([x, y]), SVector::from([-y, x]) * 0.5);
    let u = SVector::<f64, 0>::zeros();
    let (qdd, stabilized, projected, violation, reactions) = through_model(&cartesian, &s);
    assert_eq!(qdd, cartesian.accelerations(&s, &u).unwrap());
    let stabilization = lagrange_runtime::constrained::Stabilization {
        alpha: 2.0,
        beta: 3.0,
    };
    assert_eq!(
        stabilized,
        cartesian
            .stabilized_accelerations(&s, &u, stabilization)
            .unwrap()
    );
    assert_eq!(projected, cartesian.project(&s, &u, &[], 1e-12).unwrap());
    assert!(violation < 1e-15, "{violation}");
    assert_eq!(reactions, cartesian.reaction_forces(&s, &u).unwrap());
    // The rod pulls the mass towards the pivot: the reaction is along −(x, y).
    assert!(reactions.dot(&SVector::from([x, y])) < 0.0, "{reactions}");
}

/// Exact derivatives against central differences (`common::derivatives`), of the model
/// written by hand (which has no parameters to differentiate) and of the macro's. The
/// constrained models' structured states are on their constraints: the Cartesian pendulum
/// hangs (at q = 0 its rod's gradient vanishes), Pinned sits where the circle meets the
/// line (at q = 0 the circle's gradient vanishes).
#[test]
fn derivatives_match_finite_differences() {
    let hand = HandPendulum {
        m: 0.7,
        l: 1.3,
        g: 9.81,
    };
    Derivatives::new("HandPendulum", &hand)
        .standard()
        .check_without_parameters();
    let cartesian = Cartesian::default();
    Derivatives::new("Cartesian", &cartesian)
        .structured_at(SVector::from([0.0, -cartesian.l]))
        .random(3)
        .check();
    let r = std::f64::consts::FRAC_1_SQRT_2;
    Derivatives::new("Pinned", &Pinned::default())
        .structured_at(SVector::from([r, r]))
        .random(3)
        .check();
}
