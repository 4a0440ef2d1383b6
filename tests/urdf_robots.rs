//! Robots read from their URDF files (`urdf: "path";`) against Pinocchio 4.1: the UR5 and
//! the Franka Panda of `example-robot-data`, their mass matrices (`crba`), inverse
//! dynamics (`rnea`), bias (`nonLinearEffects`), gravity, forward dynamics (`aba`),
//! energies, and the end-effector frame's position, orientation and Jacobian, at the six
//! states of `tests/robots/*.json` (made by `tests/robots/reference.py`; see its README);
//! and the Solo-12 quadruped on a floating base (`urdf: "path" floating;`) against
//! Pinocchio's free flyer, through the map of velocities in that README's "Floating base".

mod common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;
use serde_json::Value;

include!("common/robots.rs");
include!("common/free_flyer.rs");

lagrangian! {
    /// The UR5 with units on the user's declarations: the URDF's names carry theirs, and
    /// the whole model is dimension-checked.
    pub struct Ur5Units {
        urdf: "tests/robots/ur5.urdf";
        inputs: tau1 [N*m];
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        force tau1 on shoulder_pan_joint;
    }
}

fn reference(robot: &str) -> Value {
    let path = format!("{}/tests/robots/{robot}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("the reference data")).expect("JSON")
}

fn vector<const N: usize>(v: &Value) -> SVector<f64, N> {
    let a = v.as_array().expect("an array");
    assert_eq!(a.len(), N);
    SVector::from_fn(|i, _| a[i].as_f64().expect("a number"))
}

fn matrix<const R: usize, const C: usize>(v: &Value) -> SMatrix<f64, R, C> {
    let rows = v.as_array().expect("rows");
    assert_eq!(rows.len(), R);
    SMatrix::from_fn(|i, j| rows[i][j].as_f64().expect("a number"))
}

/// |got − want| ≤ 1e-12 · max(1, |want|), entry by entry.
fn agree<const R: usize, const C: usize>(
    got: &SMatrix<f64, R, C>,
    want: &SMatrix<f64, R, C>,
    what: &str,
) {
    let scale = want.amax().max(1.0);
    let err = (got - want).amax();
    assert!(
        err <= 1e-12 * scale,
        "{what}: off by {err:e} (scale {scale:e})\n got {got}\nwant {want}"
    );
}

/// The end effector of a robot at a state: its frame's origin and orientation, and the
/// Jacobians of its origin and of its angular velocity in the world frame, in Pinocchio's
/// velocities (lagrange's q̇ but for a floating base, see [`FreeFlyer`]).
struct Frame<const N: usize> {
    position: SVector<f64, 3>,
    rotation: SMatrix<f64, 3, 3>,
    linear: SMatrix<f64, 3, N>,
    angular: SMatrix<f64, 3, N>,
}

/// The energies and the end-effector frame against a state of the reference data
/// (`frame_jacobian`: LOCAL_WORLD_ALIGNED, linear rows first, V = Pinocchio's nv columns).
fn agree_energies_and_frame<T: Dynamics<N, M>, const N: usize, const M: usize, const V: usize>(
    model: &T,
    s: &State<N>,
    state: &Value,
    frame: &Frame<V>,
    label: &str,
) {
    let none = SVector::<f64, M>::zeros();
    let energies = SVector::from([
        model.kinetic_energy(s, &none),
        model.potential_energy(s, &none),
    ]);
    let want = SVector::from([
        state["kinetic"].as_f64().unwrap(),
        state["potential"].as_f64().unwrap(),
    ]);
    agree(&energies, &want, &format!("energies, {label}"));
    agree(
        &frame.position,
        &vector(&state["frame_position"]),
        &format!("frame position, {label}"),
    );
    agree(
        &frame.rotation,
        &matrix(&state["frame_rotation"]),
        &format!("frame rotation, {label}"),
    );
    let jacobian: SMatrix<f64, 6, V> = matrix(&state["frame_jacobian"]);
    agree(
        &frame.linear,
        &jacobian.fixed_rows::<3>(0).into_owned(),
        &format!("linear Jacobian, {label}"),
    );
    agree(
        &frame.angular,
        &jacobian.fixed_rows::<3>(3).into_owned(),
        &format!("angular Jacobian, {label}"),
    );
}

#[test]
fn ur5_matches_pinocchio() {
    let model = Ur5::default();
    let data = reference("ur5");
    let names: Vec<&str> = data["joint_names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(<Ur5 as Dynamics<6, 6>>::COORDINATES.to_vec(), names);
    for state in data["states"].as_array().unwrap() {
        let label = state["label"].as_str().unwrap();
        let s = State::new(0.0, vector::<6>(&state["q"]), vector::<6>(&state["v"]));
        let (a, tau) = (vector::<6>(&state["a"]), vector::<6>(&state["tau"]));
        let none = SVector::<f64, 6>::zeros();
        agree(
            &model.mass_matrix(&s, &none),
            &matrix(&state["mass_matrix"]),
            &format!("crba, {label}"),
        );
        agree(
            &model.inverse_dynamics(&s, &a, &none),
            &vector(&state["rnea"]),
            &format!("rnea, {label}"),
        );
        agree(
            &model.inverse_dynamics(&s, &SVector::zeros(), &none),
            &vector(&state["nle"]),
            &format!("nonLinearEffects, {label}"),
        );
        let rest = State::new(0.0, s.q, SVector::zeros());
        agree(
            &model.inverse_dynamics(&rest, &SVector::zeros(), &none),
            &vector(&state["gravity"]),
            &format!("gravity, {label}"),
        );
        let qdd = model.accelerations(&s, &tau).expect("regular");
        agree(&qdd, &vector(&state["aba"]), &format!("aba, {label}"));
        let (lets, j) = (model.lets(&s, &none), model.jacobians(&s, &none));
        let frame = Frame {
            position: lets.tool0_p,
            rotation: lets.tool0_R,
            linear: j.tool0_p.matrix,
            angular: j.tool0_w.matrix,
        };
        agree_energies_and_frame(&model, &s, state, &frame, label);
    }
    // The joint limits of the file, in the order of the coordinates.
    let (joint, limit) = Ur5::JOINT_LIMITS[1];
    assert_eq!(joint, "shoulder_lift_joint");
    let limit = limit.expect("a limit");
    // As the file writes it, `lower="-6.28318530718" upper="6.28318530718"`: 2π to 12 digits.
    let written: f64 = "6.28318530718".parse().unwrap();
    assert_eq!((limit.lower, limit.upper), (-written, written));
    assert_eq!((limit.velocity, limit.effort), (3.15, 150.0));
}

#[test]
fn panda_matches_pinocchio() {
    let model = Panda::default();
    let data = reference("panda");
    let names: Vec<&str> = data["joint_names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(<Panda as Dynamics<9, 0>>::COORDINATES.to_vec(), names);
    // The second finger mimics the first: one constraint, which Pinocchio's reference
    // leaves out, so the quantities compared are those of the unconstrained model.
    assert_eq!(
        <Panda as lagrange_runtime::model::Model<9, 0>>::CONSTRAINT_NAMES,
        ["mimic_panda_finger_joint2"]
    );
    let none = SVector::<f64, 0>::zeros();
    for state in data["states"].as_array().unwrap() {
        let label = state["label"].as_str().unwrap();
        let s = State::new(0.0, vector::<9>(&state["q"]), vector::<9>(&state["v"]));
        let a = vector::<9>(&state["a"]);
        agree(
            &model.mass_matrix(&s, &none),
            &matrix(&state["mass_matrix"]),
            &format!("crba, {label}"),
        );
        // inverse_dynamics includes the joints' damping, which Pinocchio's rnea has not.
        let damping = model.generalized_forces(&s, &none);
        agree(
            &(model.inverse_dynamics(&s, &a, &none) + damping),
            &vector(&state["rnea"]),
            &format!("rnea, {label}"),
        );
        let (lets, j) = (model.lets(&s, &none), model.jacobians(&s, &none));
        let frame = Frame {
            position: lets.panda_hand_p,
            rotation: lets.panda_hand_R,
            linear: j.panda_hand_p.matrix,
            angular: j.panda_hand_w.matrix,
        };
        agree_energies_and_frame(&model, &s, state, &frame, label);
    }
    // The damping of the file: D = ½ Σ c q̇², 0.003 on the arm, 0.3 on the fingers.
    let s = State::new(0.0, SVector::zeros(), SVector::from_element(1.0));
    assert!((model.dissipation(&s, &none) - 0.5 * (7.0 * 0.003 + 2.0 * 0.3)).abs() < 1e-15);
}

#[test]
fn units_carry_through_a_urdf_model() {
    // Dimension-checked at compile time; the dynamics are the UR5's.
    let (plain, with_units) = (Ur5::default(), Ur5Units::default());
    let s = State::new(
        0.0,
        SVector::from([0.1, -0.5, 0.9, 0.2, -0.3, 0.4]),
        SVector::from_element(0.3),
    );
    let m = plain.mass_matrix(&s, &SVector::zeros());
    agree(
        &with_units.mass_matrix(&s, &SVector::zeros()),
        &m,
        "mass matrix with units",
    );
    let units = <Ur5Units as lagrange_runtime::model::Model<6, 1>>::UNITS.expect("units");
    assert_eq!(units.coordinates, ["rad"; 6]);
    assert_eq!(units.inputs, ["N*m"]);
}

#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("Ur5", &Ur5::default()).standard().check();
}

/// A state of the Solo-12 for the derivative checks: the base anywhere in [−1, 1]³, its
/// quaternion in a random direction and up to 10 % off the unit sphere (the accelerations
/// are defined there too, and the linearization is of that function), the joints in
/// [−1.5, 1.5], the velocities (the quaternion's rates along every direction) and inputs
/// in [−1, 1].
fn solo12_state(rng: &mut common::Rng) -> (State<19>, SVector<f64, 18>) {
    let mut q = SVector::<f64, 19>::from_fn(|_, _| rng.uniform(-1.5, 1.5));
    let p = SVector::<f64, 3>::from_fn(|_, _| rng.uniform(-1.0, 1.0));
    q.fixed_rows_mut::<3>(0).copy_from(&p);
    let n = SVector::<f64, 4>::from_fn(|_, _| rng.uniform(-1.0, 1.0)).normalize();
    let scale = 1.0 + rng.uniform(-0.1, 0.1);
    q.fixed_rows_mut::<4>(3).copy_from(&(n * scale));
    let qd = SVector::from_fn(|_, _| rng.uniform(-1.0, 1.0));
    let u = SVector::from_fn(|_, _| rng.uniform(-1.0, 1.0));
    (State::new(rng.uniform(0.0, 2.0), q, qd), u)
}

/// The derivative checks of `common::derivatives` for the floating base, at the structured
/// states around the base at the origin with the identity quaternion and every joint at
/// zero (at rest, moving, and every other coordinate there), at the base turned half
/// about x (w = 0), and at two random states.
///
/// Every part but `Part::Sensitivities`: that part for this model (19 coordinates, 18
/// inputs, its one parameter g) took 33 s more CPU to compile this file (69 s against 36 s,
/// with `CARGO_INCREMENTAL=0`), and more than the 2 MiB stack of a test thread to run (it
/// passed with 8 MiB), for a pass the UR5's check above already runs on a model read from
/// a URDF.
#[test]
fn solo12_derivatives_match_finite_differences() {
    let mut identity = SVector::<f64, 19>::zeros();
    identity[3] = 1.0;
    let mut flipped = identity;
    (flipped[3], flipped[4]) = (0.0, 1.0);
    let mut rng = common::Rng(12);
    let (moving, u) = solo12_state(&mut rng);
    Derivatives::new("Solo12", &Solo12::default())
        .sampler(solo12_state)
        .structured_at(identity)
        .state(
            "half turn about x, joints zero, moving",
            State::new(0.0, flipped, moving.qd),
            u,
        )
        .random(2)
        .check_without_parameters();
}

lagrangian! {
    /// A free-floating box from its URDF: a base position, a unit quaternion.
    pub struct FloatingBox {
        urdf: "tests/robots/box.urdf" floating;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

lagrangian! {
    /// The same box written by hand: the centre of mass c = p + R r, the inertia
    /// R_i diag(I) R_iᵀ in the link frame.
    pub struct HandBox {
        parameters: m = 2.0, g = 9.81;
        coordinates: x, y, z, w, a, b, c;
        let R = quat(w, a, b, c);
        let com = [x, y, z] + R * [0.1, -0.05, 0.2];
        let Ri = rpy(0.3, -0.2, 0.5);
        let omega = body_angular_velocity(R);
        kinetic = m/2 * dot(com)^2 + inner(omega, Ri * diag(0.1, 0.2, 0.25) * transpose(Ri) * omega) / 2;
        potential = m * g * com.z;
        constraint unit = w^2 + a^2 + b^2 + c^2 - 1;
    }
}

#[test]
fn a_floating_base_is_the_free_body_written_by_hand() {
    assert_eq!(
        <FloatingBox as Dynamics<7, 0>>::COORDINATES,
        ["base_x", "base_y", "base_z", "base_qw", "base_qx", "base_qy", "base_qz"]
    );
    let (urdf, hand) = (FloatingBox::default(), HandBox::default());
    let mut rng = common::Rng(3);
    let none = SVector::<f64, 0>::zeros();
    for k in 0..5 {
        // A state on the constraints: |n| = 1 and n · ṅ = 0 (at rest for k = 0).
        let n = SVector::<f64, 4>::from_fn(|_, _| rng.uniform(-1.0, 1.0)).normalize();
        let mut nd = SVector::<f64, 4>::from_fn(|_, _| rng.uniform(-1.0, 1.0));
        nd -= n * n.dot(&nd);
        let p = SVector::<f64, 3>::from_fn(|_, _| rng.uniform(-1.0, 1.0));
        let pd = SVector::<f64, 3>::from_fn(|_, _| rng.uniform(-1.0, 1.0));
        let scale = if k == 0 { 0.0 } else { 1.0 };
        let q = SVector::from_fn(|i, _| if i < 3 { p[i] } else { n[i - 3] });
        let qd = SVector::from_fn(|i, _| scale * if i < 3 { pd[i] } else { nd[i - 3] });
        let s = State::new(0.0, q, qd);
        agree(
            &urdf.mass_matrix(&s, &none),
            &hand.mass_matrix(&s, &none),
            "mass matrix",
        );
        let (a, b) = (
            urdf.accelerations(&s, &none).unwrap(),
            hand.accelerations(&s, &none).unwrap(),
        );
        agree(&a, &b, &format!("accelerations, state {k}"));
        assert!((urdf.energy(&s, &none) - hand.energy(&s, &none)).abs() < 1e-13);
    }
}

/// The Solo-12 on Pinocchio's free flyer, at the seven states of `solo12.json`.
///
/// Compared, each with [`agree`] (1e-12 relative to the largest entry, at least 1): the
/// energies at the same state; lagrange's mass matrix seen through the velocity map,
/// Lᵀ M L = `crba` (and L J M L J = Jᵀ `crba` J, its part on the constraint's tangent
/// space); its Euler–Lagrange residual at λ = 0 (`inverse_dynamics` with no input), Lᵀ E =
/// `rnea`, `nonLinearEffects` and the gravity, where E differs from Jᵀ `rnea` only along the
/// constraint's gradient (0, n, 0); the constrained accelerations with the inputs = `tau`,
/// mapped to v̇, against `aba`; and the front left foot's position, orientation and
/// Jacobians times L against its LOCAL_WORLD_ALIGNED frame Jacobian. The maps of the
/// script (its `lagrange` record, checked there against differences along
/// `pin.integrate`) agree with [`FreeFlyer`]'s to rounding.
#[test]
fn solo12_matches_pinocchio() {
    let model = Solo12::default();
    let data = reference("solo12");
    let names: Vec<&str> = data["lagrange_coordinates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(<Solo12 as Dynamics<19, 18>>::COORDINATES.to_vec(), names);
    let joints: Vec<&str> = data["joint_names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(joints[0], "root_joint");
    assert_eq!(joints[1..], names[7..]);
    assert_eq!(
        <Solo12 as lagrange_runtime::model::Model<19, 18>>::CONSTRAINT_NAMES,
        ["base_unit"]
    );
    let none = SVector::<f64, 18>::zeros();
    for state in data["states"].as_array().unwrap() {
        let label = state["label"].as_str().unwrap();
        let (v, a, tau) = (
            vector::<18>(&state["v"]),
            vector::<18>(&state["a"]),
            vector::<18>(&state["tau"]),
        );
        let pinocchio_q = vector::<19>(&state["q"]);
        let base = FreeFlyer::<19, 18>::at(&pinocchio_q);
        assert_eq!(base.pinocchio_q(), pinocchio_q);
        let s = base.state(&v);
        let qdd = base.qdd(&v, &a);
        let mapped = &state["lagrange"];
        agree(&s.q, &vector(&mapped["q"]), &format!("q, {label}"));
        agree(&s.qd, &vector(&mapped["qd"]), &format!("q̇ = L v, {label}"));
        agree(&qdd, &vector(&mapped["qdd"]), &format!("q̈ from a, {label}"));
        model
            .check_start(&s, &tau)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let (j, l) = (base.j(), base.l());
        agree(&(j * l), &SMatrix::identity(), "J L");

        let mass = model.mass_matrix(&s, &none);
        let crba: SMatrix<f64, 18, 18> = matrix(&state["mass_matrix"]);
        agree(
            &(l.transpose() * mass * l),
            &crba,
            &format!("Lᵀ M L = crba, {label}"),
        );
        let p = base.tangent();
        agree(
            &(p.transpose() * mass * p),
            &(j.transpose() * crba * j),
            &format!("P M P = Jᵀ crba J, {label}"),
        );

        let residual = model.inverse_dynamics(&s, &qdd, &none);
        let rnea = vector::<18>(&state["rnea"]);
        agree(
            &(l.transpose() * residual),
            &rnea,
            &format!("Lᵀ E = rnea, {label}"),
        );
        // E − Jᵀ rnea is a multiple of the constraint's gradient (0, 2n, 0).
        let normal = residual - j.transpose() * rnea;
        agree(
            &(p.transpose() * normal),
            &SVector::zeros(),
            &format!("E − Jᵀ rnea along (0, n, 0), {label}"),
        );
        let coasting = base.qdd(&v, &SVector::zeros());
        agree(
            &(l.transpose() * model.inverse_dynamics(&s, &coasting, &none)),
            &vector(&state["nle"]),
            &format!("nonLinearEffects, {label}"),
        );
        let rest = State::new(0.0, s.q, SVector::zeros());
        agree(
            &(l.transpose() * model.inverse_dynamics(&rest, &SVector::zeros(), &none)),
            &vector(&state["gravity"]),
            &format!("gravity, {label}"),
        );

        let qdd = model.accelerations(&s, &tau).expect("regular");
        agree(
            &qdd,
            &vector(&mapped["qdd_aba"]),
            &format!("q̈ = aba mapped, {label}"),
        );
        agree(
            &base.a(&s, &qdd),
            &vector(&state["aba"]),
            &format!("aba, {label}"),
        );

        let (lets, jac) = (model.lets(&s, &none), model.jacobians(&s, &none));
        let frame = Frame {
            position: lets.FL_FOOT_p,
            rotation: lets.FL_FOOT_R,
            linear: jac.FL_FOOT_p.matrix * l,
            angular: jac.FL_FOOT_w.matrix * l,
        };
        agree_energies_and_frame(&model, &s, state, &frame, label);
    }
}
