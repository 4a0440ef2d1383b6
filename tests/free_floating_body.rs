//! A free-floating rigid body with a unit quaternion n = (w, x, y, z) for its orientation:
//! four coordinates and the constraint |n|² = 1. The kinetic energy ½ ω_bᵀ I ω_b does not
//! depend on the quaternion's length, so the mass matrix is only positive semidefinite
//! (n is its null vector, M n = 0); the constraint's Jacobian 2nᵀ completes it, and
//! `[M Φ_qᵀ; Φ_q 0]` is nonsingular everywhere. There is no singular orientation.
//!
//! Truths:
//! - Euler's equations I ω̇_b + ω_b × (I ω_b) = 0 for the body rates, ω_b = 2 vec(n* ⊗ ṅ);
//! - the same body with z-y-x Euler angles (tests/free_rigid_body.rs), away from pitch ±90°:
//!   the same motion;
//! - a spin Ω about the major axis when that axis is horizontal: R(t) = R_y(Ω t) exactly,
//!   through pitch 90°, where the Euler-angle mass matrix is singular;
//! - energy and the fixed-frame angular momentum R I ω_b conserved;
//! - models that are really ill-posed get an error that names the undetermined velocities
//!   or the redundant constraints.
use crate::common;

use common::assert_close;
use common::derivatives::{Derivatives, Part};
use lagrange_runtime::nalgebra::{Quaternion, Rotation3, UnitQuaternion, Vector3};
use lagrange_runtime::prelude::*;
use std::f64::consts::PI;

use lagrange_test_models::QuaternionBody;

lagrangian! {
    /// The same body with z-y-x Euler angles.
    pub struct EulerBody {
        parameters: I1 = 0.1, I2 = 0.2, I3 = 0.25;
        coordinates: yaw, pitch, roll;

        let R = rot_z(yaw) * rot_y(pitch) * rot_x(roll);
        let omega = body_angular_velocity(R);

        kinetic = inner(omega, diag(I1, I2, I3) * omega) / 2;
    }
}

type V3 = Vector3<f64>;

fn none() -> SVector<f64, 0> {
    SVector::zeros()
}

fn quaternion(q: &SVector<f64, 4>) -> Quaternion<f64> {
    Quaternion::new(q[0], q[1], q[2], q[3])
}

/// ω_b = 2 vec(n* ⊗ ṅ) for a unit n.
fn body_rates(s: &State<4>) -> V3 {
    (quaternion(&s.q).conjugate() * quaternion(&s.qd)).vector() * 2.0
}

fn rotation(s: &State<4>) -> Rotation3<f64> {
    UnitQuaternion::from_quaternion(quaternion(&s.q)).to_rotation_matrix()
}

/// The state with orientation `r` and body rates `omega`: ṅ = ½ n ⊗ (0, ω_b).
fn state(r: &UnitQuaternion<f64>, omega: &V3) -> State<4> {
    let n = r.into_inner();
    let nd = n * Quaternion::from_imag(*omega) * 0.5;
    State::new(
        0.0,
        SVector::from([n.w, n.i, n.j, n.k]),
        SVector::from([nd.w, nd.i, nd.j, nd.k]),
    )
}

fn inertia() -> V3 {
    V3::new(0.1, 0.2, 0.25)
}

fn momentum(s: &State<4>) -> V3 {
    rotation(s) * inertia().component_mul(&body_rates(s))
}

fn energy(s: &State<4>) -> f64 {
    let w = body_rates(s);
    w.dot(&inertia().component_mul(&w)) / 2.0
}

#[test]
fn the_mass_matrix_is_semidefinite_and_the_accelerations_satisfy_eulers_equations() {
    let body = QuaternionBody::default();
    let r = UnitQuaternion::from_euler_angles(0.3, -0.7, 1.1);
    let omega = V3::new(0.8, -1.3, 2.1);
    let s = state(&r, &omega);
    let mass = body.mass_matrix(&s, &none());
    // n is a null vector of M: the length of the quaternion carries no kinetic energy.
    assert!((mass * s.q).amax() < 1e-14 * mass.amax());
    let qdd = body.accelerations(&s, &none()).unwrap();
    // ω̇_b = 2 vec(n* ⊗ n̈) (the term ṅ* ⊗ ṅ is real), to compare with Euler's equations.
    let omega_dot = (quaternion(&s.q).conjugate() * quaternion(&qdd)).vector() * 2.0;
    let i = inertia();
    let euler = i.component_mul(&omega_dot) + omega.cross(&i.component_mul(&omega));
    assert!(euler.amax() < 1e-13, "Euler's equations: {euler}");
    // The unit constraint at acceleration level: n·n̈ + |ṅ|² = 0.
    assert!((s.q.dot(&qdd) + s.qd.norm_squared()).abs() < 1e-14);
    // The first-kind equations M n̈ + Φ_qᵀ λ = rest, Φ_q = 2nᵀ: `inverse_dynamics` is
    // M n̈ − rest, so it must cancel 2nλ.
    let lambda = body.multipliers(&s, &none()).unwrap()[0];
    let residual = body.inverse_dynamics(&s, &qdd, &none()) + s.q * (2.0 * lambda);
    assert!(residual.amax() < 1e-13, "M q̈ + Φ_qᵀ λ = rest: {residual}");
}

/// Euler angles (yaw a, pitch b, roll c) of a rotation R = R_z(a) R_y(b) R_x(c).
fn euler_angles(r: &Rotation3<f64>) -> (f64, f64, f64) {
    let (roll, pitch, yaw) = r.euler_angles();
    (yaw, pitch, roll)
}

#[test]
fn quaternions_and_euler_angles_give_the_same_motion() {
    let (quat_body, euler_body) = (QuaternionBody::default(), EulerBody::default());
    let r = UnitQuaternion::from_euler_angles(0.2, 0.1, -0.4);
    let omega = V3::new(0.3, 0.2, 2.0); // mostly about the major axis: the pitch stays small
    let start = state(&r, &omega);
    // The Euler-angle start: angles of R, rates from ω_b = G q̇ (tests/free_rigid_body.rs).
    let (a, b, c) = euler_angles(&r.to_rotation_matrix());
    let (sb, cb) = b.sin_cos();
    let (sc, cc) = c.sin_cos();
    let g = SMatrix::<f64, 3, 3>::new(-sb, 0.0, 1.0, cb * sc, cc, 0.0, cb * cc, -sc, 0.0);
    let rates = g.try_inverse().unwrap() * SVector::<f64, 3>::from(omega);
    let euler_start = State::new(0.0, SVector::from([a, b, c]), rates);
    let tolerance = DormandPrince::new(1e-13, 1e-14);
    let t_end = 5.0;
    let quat_run = Simulation::new(&quat_body, start)
        .run(&Projected::new(tolerance), t_end)
        .unwrap();
    let euler_run = Simulation::new(&euler_body, euler_start)
        .run(&tolerance, t_end)
        .unwrap();
    let mut largest_pitch = 0.0f64;
    for k in 0..=50 {
        let t = t_end * f64::from(k) / 50.0;
        let (sq, se) = (quat_run.at(t).unwrap(), euler_run.at(t).unwrap());
        let (a, b, c) = (se.q[0], se.q[1], se.q[2]);
        largest_pitch = largest_pitch.max(b.abs());
        let from_euler = Rotation3::from_axis_angle(&V3::z_axis(), a)
            * Rotation3::from_axis_angle(&V3::y_axis(), b)
            * Rotation3::from_axis_angle(&V3::x_axis(), c);
        let difference = (rotation(&sq).matrix() - from_euler.matrix()).amax();
        assert!(
            difference < 1e-9,
            "t = {t}: rotations differ by {difference:e}"
        );
    }
    assert!(
        largest_pitch < 0.5,
        "the Euler angles stay away from their singularity"
    );
}

#[test]
fn a_spin_through_pitch_ninety_degrees_is_exact_with_quaternions_and_singular_with_euler_angles() {
    let body = QuaternionBody::default();
    // Spin Ω about the body y axis (I2, here made the major one by a spin about a principal
    // axis: any principal axis is a steady rotation) kept along the fixed y axis:
    // R(t) = R_y(Ω t), the body x axis turning through the vertical (pitch ±90°).
    let spin = 1.5;
    let start = state(&UnitQuaternion::identity(), &V3::new(0.0, spin, 0.0));
    let t_end = 2.0 * PI / spin * 1.25; // past pitch 90°, 270° and 450°
    let settings = [
        ("Rk4 projected", None),
        ("Dormand–Prince projected", None),
        ("RATTLE", None),
        ("Rk4 (acceleration level)", Some(1e-6)),
    ];
    for (name, loose) in settings {
        let run = match name {
            "Rk4 projected" => {
                Simulation::new(&body, start).run(&Projected::new(Rk4::new(1e-3)), t_end)
            }
            "Dormand–Prince projected" => Simulation::new(&body, start)
                .run(&Projected::new(DormandPrince::new(1e-12, 1e-14)), t_end),
            "RATTLE" => Simulation::new(&body, start).run(&Rattle::new(1e-3), t_end),
            _ => Simulation::new(&body, start).run(&Rk4::new(1e-3), t_end),
        }
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        for s in run.states() {
            let exact = Rotation3::from_axis_angle(&V3::y_axis(), spin * s.t);
            let error = (rotation(s).matrix() - exact.matrix()).amax();
            // RATTLE has a second-order phase error in the spin rate: compare the orbit.
            let error = if name == "RATTLE" {
                (rotation(s) * V3::y()).metric_distance(&V3::y())
            } else {
                error
            };
            assert!(
                error < loose.unwrap_or(1e-9),
                "{name}, t = {}: error {error:e}",
                s.t
            );
        }
        // The projection tolerance 1e-12 is relative to the constraint's scale
        // max|∂φ/∂q| max|q| ≤ 2 |n|² = 2.
        let unit = body.violation(run.last(), &none());
        assert!(
            unit.position <= loose.unwrap_or(2e-12),
            "{name}: |n| drifts: {unit:?}"
        );
    }
    // The same motion in Euler angles reaches pitch 90°, where their mass matrix is
    // singular: the yaw and roll velocities become one.
    let euler = EulerBody::default();
    let at_ninety = State::new(
        0.0,
        SVector::from([0.0, PI / 2.0, 0.0]),
        SVector::from([0.0, spin, 0.0]),
    );
    assert!(euler.accelerations(&at_ninety, &none()).is_err());
}

#[test]
fn rattle_conserves_energy_and_angular_momentum_over_a_long_run() {
    let body = QuaternionBody::default();
    let start = state(
        &UnitQuaternion::from_euler_angles(0.4, -0.2, 0.9),
        &V3::new(1.2, -0.7, 1.6),
    );
    let run = Simulation::new(&body, start)
        .run(&Rattle::new(1e-2), 1000.0)
        .unwrap();
    let (e0, l0) = (energy(&start), momentum(&start));
    let mut worst = (0.0f64, 0.0f64, 0.0f64);
    for s in run.states() {
        worst.0 = worst.0.max((energy(s) - e0).abs() / e0);
        worst.1 = worst.1.max((momentum(s) - l0).amax() / l0.norm());
        worst.2 = worst.2.max((s.q.norm_squared() - 1.0).abs());
    }
    // A symplectic method: the energy error stays bounded (O(h²)), the momentum of the
    // rotational symmetry is conserved to round-off, the quaternion stays unit.
    assert!(worst.0 < 1e-5, "energy drifts by {:e}", worst.0);
    assert!(worst.1 < 1e-10, "angular momentum drifts by {:e}", worst.1);
    assert!(worst.2 < 1e-12, "|n|² − 1 reaches {:e}", worst.2);
    assert_close(run.last().t, 1000.0, 1.0, 1e-12, "end time");
}

lagrangian! {
    /// M is singular along (b, c) = (1, −1) and the constraint does not fix it.
    pub struct Undetermined {
        coordinates: a, b, c;
        kinetic = dot(a)^2 / 2 + (dot(b) + dot(c))^2 / 2;
        constraint sum = a + b + c;
    }
}

lagrangian! {
    /// The same M, completed by a constraint that fixes b: well posed.
    pub struct Completed {
        coordinates: a, b, c;
        kinetic = dot(a)^2 / 2 + (dot(b) + dot(c))^2 / 2;
        potential = a^2 / 2 + c^2;
        constraint pin = b - a / 2;
    }
}

lagrangian! {
    /// Two copies of the same constraint complete nothing: they are redundant.
    pub struct Redundant {
        coordinates: a, b;
        kinetic = dot(a)^2 / 2;
        constraint first = b - a;
        constraint second = 2 * b - 2 * a;
    }
}

#[test]
fn ill_posed_models_are_told_why_and_well_posed_ones_are_solved() {
    let s = State::new(
        0.0,
        SVector::from([0.1, 0.2, -0.3]),
        SVector::from([0.0, 0.0, 0.0]),
    );
    let err = Undetermined.accelerations(&s, &none()).unwrap_err();
    assert_eq!(
        err,
        DynamicsError::UndeterminedVelocities {
            coordinates: vec!["b", "c"]
        }
    );
    assert!(err.to_string().contains("`dot(b)`, `dot(c)`"), "{err}");

    // Completed: b = a/2, so with M singular the system is still M̃ q̈ = rest. By hand:
    // L = ȧ²/2 + (ȧ/2 + ċ)²/2 − a²/2 − c² in (a, c) after eliminating b.
    let s = State::new(
        0.0,
        SVector::from([0.4, 0.2, -0.3]),
        SVector::from([0.0, 0.0, 0.0]),
    );
    let qdd = Completed.accelerations(&s, &none()).unwrap();
    // Reduced mass [[1 + 1/4, 1/2], [1/2, 1]], forces (−a, −2c).
    let reduced = SMatrix::<f64, 2, 2>::new(1.25, 0.5, 0.5, 1.0);
    let expected = reduced.try_inverse().unwrap() * SVector::<f64, 2>::new(-0.4, 0.6);
    assert!((qdd[0] - expected[0]).abs() < 1e-14 && (qdd[2] - expected[1]).abs() < 1e-14);
    assert!((qdd[1] - qdd[0] / 2.0).abs() < 1e-15);

    let s = State::new(0.0, SVector::from([0.1, 0.1]), SVector::zeros());
    let err = Redundant.accelerations(&s, &none()).unwrap_err();
    assert_eq!(
        err,
        DynamicsError::RedundantConstraints {
            constraints: vec!["first", "second"]
        }
    );
}

use lagrange_test_models::QuaternionPendulum;

/// Equilibria and linearization with the semidefinite mass matrix: from a guess off the
/// sphere and off the vertical, Newton finds the hanging body (n = ±1), and the
/// linearization in independent coordinates (8 states less the unit constraint at
/// position and velocity level: 6) has the two swings ±i √(m g l / I1), ±i √(m g l / I2)
/// and the free spin about the vertical (a zero pair): marginal.
#[test]
fn a_hanging_quaternion_pendulum_has_the_swing_frequencies_of_the_textbook() {
    let body = QuaternionPendulum::default();
    let guess = SVector::from([0.95, 0.1, -0.08, 0.3]);
    let found =
        lagrange_runtime::steady::equilibrium(&body, &State::at_rest(guess), &none()).unwrap();
    let n = found.state.q;
    assert!((n.norm() - 1.0).abs() < 1e-12, "on the sphere: {n}");
    let down = rotation(&found.state) * V3::z();
    assert!(
        (down - V3::z()).amax() < 1e-10,
        "the body axis hangs: {down}"
    );
    let got = &found.spectrum.eigenvalues;
    assert_eq!(got.len(), 6, "{got:?}");
    let mgl = body.m * body.g * body.l;
    for frequency in [(mgl / body.I1).sqrt(), (mgl / body.I2).sqrt()] {
        let matches = got
            .iter()
            .filter(|l| (l.im.abs() - frequency).abs() < 1e-10 * frequency && l.re.abs() < 1e-10)
            .count();
        assert_eq!(matches, 2, "±i{frequency} in {got:?}");
    }
    assert_eq!(got.iter().filter(|l| l.norm() < 1e-6).count(), 2, "{got:?}");
    assert_eq!(
        found.stability(),
        lagrange_runtime::stability::Stability::Marginal
    );
}

/// A unit quaternion turned by a random rotation and scaled off the unit sphere by up to
/// 10 %, with random rates: states of the quaternion models away from n = 0, where the
/// unit constraint's gradient 2n vanishes.
fn near_unit(rng: &mut common::Rng) -> (State<4>, SVector<f64, 0>) {
    let axis = V3::new(
        rng.uniform(-1.0, 1.0),
        rng.uniform(-1.0, 1.0),
        rng.uniform(-1.0, 1.0),
    );
    let r = UnitQuaternion::from_scaled_axis(axis * 2.0);
    let omega = V3::new(
        rng.uniform(-2.0, 2.0),
        rng.uniform(-2.0, 2.0),
        rng.uniform(-2.0, 2.0),
    );
    let mut s = state(&r, &omega);
    s.q *= 1.0 + rng.uniform(-0.1, 0.1);
    s.t = rng.uniform(0.0, 2.0);
    (s, none())
}

/// Exact derivatives against central differences (`common::derivatives`). The quaternion
/// models' structured states are at the identity n = (1, 0, 0, 0) (at n = 0 the unit
/// constraint's gradient vanishes), their random ones near the unit sphere; their
/// semidefinite mass matrix takes the completed constrained solve. The two ill-posed
/// models have no accelerations: their linearization is left out, their equations checked.
#[test]
fn derivatives_match_finite_differences() {
    let identity = SVector::from([1.0, 0.0, 0.0, 0.0]);
    let pitched = UnitQuaternion::from_axis_angle(&V3::y_axis(), PI / 2.0);
    Derivatives::new("QuaternionBody", &QuaternionBody::default())
        .sampler(near_unit)
        .structured_at(identity)
        .random(3)
        .state(
            "spinning about the major axis, pitched 90°",
            state(&pitched, &V3::new(0.0, 0.0, 3.0)),
            none(),
        )
        .state(
            "tumbling",
            state(&UnitQuaternion::identity(), &V3::new(1.0, 0.5, -0.7)),
            none(),
        )
        .check();
    Derivatives::new("EulerBody", &EulerBody::default())
        .standard()
        .check();
    Derivatives::new("Completed", &Completed).standard().check();
    let ill_posed = "ill-posed by design: no accelerations at any state";
    Derivatives::new("Undetermined", &Undetermined)
        .standard()
        .without(Part::Linearize, ill_posed)
        .check();
    Derivatives::new("Redundant", &Redundant)
        .standard()
        .without(Part::Linearize, ill_posed)
        .check();
    let body = QuaternionPendulum::default();
    let guess = SVector::from([0.95, 0.1, -0.08, 0.3]);
    let hanging = lagrange_runtime::steady::equilibrium(&body, &State::at_rest(guess), &none())
        .unwrap()
        .state;
    Derivatives::new("QuaternionPendulum", &body)
        .sampler(near_unit)
        .structured_at(identity)
        .random(3)
        .state("hanging equilibrium", hanging, none())
        .state(
            "swinging",
            state(&pitched, &V3::new(0.3, -1.0, 2.0)),
            none(),
        )
        .check();
}
