//! Robots read from their URDF files (`urdf: "path";`) against Pinocchio 4.1: the UR5 and
//! the Franka Panda of `example-robot-data`, their mass matrices (`crba`), inverse
//! dynamics (`rnea`), bias (`nonLinearEffects`), gravity, forward dynamics (`aba`),
//! energies, and the end-effector frame's position, orientation and Jacobian, at the six
//! states of `tests/robots/*.json` (made by `tests/robots/reference.py`; see its README);
//! and the Solo-12 quadruped on a floating base (`urdf: "path" floating;`) against
//! Pinocchio's free flyer, through the map of velocities in that README's "Floating base".

use crate::common;

use crate::reference::*;
use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;
use lagrange_test_models::robots::*;

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

/// The derivatives of the inverse dynamics (`inverse_dynamics_derivatives`) against
/// Pinocchio's `computeRNEADerivatives` at (q, v, a), and of the forward dynamics
/// (`linearize`) against its `computeABADerivatives` at (q, v, τ), at the six stored
/// states of the UR5 and the Panda (`tests/robots/*_derivatives.json`). The Panda's damping
/// (Q = −c q̇, which Pinocchio leaves out) moves ∂τ/∂q̇ by +diag(c); its mimic finger is a
/// constraint, so its linearization is of the constrained motion, which Pinocchio's is not:
/// only its inverse dynamics is compared.
#[test]
fn derivatives_match_pinocchio() {
    use lagrange_runtime::linearize::{inverse_dynamics_derivatives, linearize};

    fn inverse<
        T: Dynamics<N, M> + lagrange_runtime::model::Model<N, M>,
        const N: usize,
        const M: usize,
    >(
        model: &T,
        state: &serde_json::Value,
        damping: &SMatrix<f64, N, N>,
    ) {
        let label = state["label"].as_str().unwrap();
        let s = State::new(0.0, vector::<N>(&state["q"]), vector::<N>(&state["v"]));
        let a = vector::<N>(&state["a"]);
        let d = inverse_dynamics_derivatives(model, &s, &a, &SVector::zeros()).expect("finite");
        agree(
            &d.d_q,
            &matrix(&state["rnea_dq"]),
            &format!("∂τ/∂q, {label}"),
        );
        agree(
            &(d.d_qd - damping),
            &matrix(&state["rnea_dv"]),
            &format!("∂τ/∂q̇, {label}"),
        );
        agree(
            &d.mass,
            &matrix(&state["rnea_da"]),
            &format!("∂τ/∂q̈, {label}"),
        );
    }

    let ur5 = Ur5::default();
    let data = reference("ur5_derivatives");
    for state in data["states"].as_array().unwrap() {
        inverse(&ur5, state, &SMatrix::zeros());
        // The UR5's inputs are its joint torques: ∂q̈/∂u = M⁻¹.
        let label = state["label"].as_str().unwrap();
        let s = State::new(0.0, vector::<6>(&state["q"]), vector::<6>(&state["v"]));
        let lin = linearize(&ur5, &s, &vector::<6>(&state["tau"])).expect("regular");
        agree(
            &lin.accelerations,
            &vector(&state["aba"]),
            &format!("aba, {label}"),
        );
        agree(
            &lin.d_q,
            &matrix(&state["aba_dq"]),
            &format!("∂q̈/∂q, {label}"),
        );
        agree(
            &lin.d_qd,
            &matrix(&state["aba_dv"]),
            &format!("∂q̈/∂q̇, {label}"),
        );
        agree(
            &lin.d_u,
            &matrix(&state["aba_dtau"]),
            &format!("∂q̈/∂τ, {label}"),
        );
    }

    let panda = Panda::default();
    // Q = −c q̇ is linear: its derivative is minus the forces at unit velocities.
    let none = SVector::<f64, 0>::zeros();
    let damping = SMatrix::<f64, 9, 9>::from_fn(|i, j| {
        let unit = State::new(
            0.0,
            SVector::zeros(),
            SVector::from_fn(|k, _| f64::from(u8::from(k == j))),
        );
        -panda.generalized_forces(&unit, &none)[i]
    });
    assert_eq!(damping[(0, 0)], 0.003);
    assert_eq!(damping[(8, 8)], 0.3);
    let data = reference("panda_derivatives");
    for state in data["states"].as_array().unwrap() {
        inverse(&panda, state, &damping);
    }
}

/// The floating robots' derivatives of the inverse dynamics
/// (`inverse_dynamics_derivatives`, from their tree) against Pinocchio's
/// `computeRNEADerivatives` at stored states (`tests/robots/{solo12,g1}_derivatives.json`:
/// the Solo-12 at the neutral pose at rest and moving, a random pose at rest, the half
/// turn about x moving and three random states; the G1 at its first three), through the
/// free flyer's maps (`reference.py`, `floating_map`). On the unit quaternion lagrange's
/// τ(q, q̇, q̈) is Jᵀ τ_pin(q, v, a) with v = J q̇ and q̈ from a, J = blockdiag(Rᵀ, G, 1);
/// along each of Pinocchio's tangent directions δ (q ⊕ δ, v and a held), each velocity and
/// each acceleration, both sides move alike:
///
/// ```text
/// Jᵀ ∂τ_pin/∂δ + (∂J/∂δ)ᵀ τ_pin = ∂τ/∂q L δ + ∂τ/∂q̇ ∂(L v)/∂δ + M ∂q̈/∂δ
/// Jᵀ ∂τ_pin/∂v δv             = ∂τ/∂q̇ L δv + M ∂q̈/∂v δv
/// Jᵀ M_pin δa                 = M L δa
/// ```
///
/// with L δ = (R δ_lin, ½ n ⊗ (0, δ_ang), δ_joints), to 1e-10 of each side's largest
/// entry. The directions off the unit sphere have no counterpart in Pinocchio: they are
/// checked against dual numbers (`the_tree_gives_the_derivatives_of_the_inverse_dynamics`).
#[test]
fn floating_derivatives_match_pinocchio() {
    use lagrange_runtime::linearize::inverse_dynamics_derivatives;
    use lagrange_runtime::nalgebra::{Quaternion, UnitQuaternion, Vector3};

    /// a ⊗ b.
    fn times(a: Quaternion<f64>, b: Quaternion<f64>) -> Quaternion<f64> {
        a * b
    }
    fn pure(v: Vector3<f64>) -> Quaternion<f64> {
        Quaternion::from_imag(v)
    }

    fn check<
        T: Dynamics<N, M> + lagrange_runtime::model::Model<N, M>,
        const N: usize,
        const M: usize,
        const V: usize,
    >(
        model: &T,
        file: &str,
    ) {
        let data = reference(file);
        for state in data["states"].as_array().unwrap() {
            let label = format!("{file}, {}", state["label"].as_str().unwrap());
            let ours = &state["lagrange"];
            let (ql, qd, qdd) = (
                vector::<N>(&ours["q"]),
                vector::<N>(&ours["qd"]),
                vector::<N>(&ours["qdd"]),
            );
            let (v, a, tau) = (
                vector::<V>(&state["v"]),
                vector::<V>(&state["a"]),
                vector::<V>(&state["rnea"]),
            );
            let n = Quaternion::new(ql[3], ql[4], ql[5], ql[6]);
            let r = UnitQuaternion::new_unchecked(n)
                .to_rotation_matrix()
                .into_inner();
            let three = |x: &SVector<f64, V>, at: usize| Vector3::new(x[at], x[at + 1], x[at + 2]);
            let (v_lin, w) = (three(&v, 0), three(&v, 3));
            let a_lin = three(&a, 0);
            let a_ang = three(&a, 3);
            // lagrange's generalized vector from (p part, n part, joints).
            let assemble = |p: Vector3<f64>, q: Quaternion<f64>, joints: &dyn Fn(usize) -> f64| {
                SVector::<f64, N>::from_fn(|i, _| match i {
                    0..3 => p[i],
                    3 => q.w,
                    4..7 => q.imag()[i - 4],
                    _ => joints(i - 7),
                })
            };
            let d = inverse_dynamics_derivatives(
                model,
                &State::new(0.0, ql, qd),
                &qdd,
                &SVector::zeros(),
            )
            .expect("finite");
            // Jᵀ x = (R x_lin, 2 n ⊗ (0, x_ang), x_joints).
            let jt = |x: &SVector<f64, V>| {
                assemble(r * three(x, 0), times(n, pure(three(x, 3))) * 2.0, &|j| {
                    x[6 + j]
                })
            };
            for k in 0..V {
                let e = SVector::<f64, V>::from_fn(|i, _| f64::from(u8::from(i == k)));
                let (e_lin, e_ang) = (three(&e, 0), three(&e, 3));
                let joint = |j: usize| e[6 + j];
                let none = |_: usize| 0.0;
                // L e, and what moving along e does to n: δn = ½ n ⊗ (0, e_ang).
                let dn = times(n, pure(e_ang)) * 0.5;
                let lift = assemble(r * e_lin, dn, &joint);
                // Along q ⊕ e, v and a held.
                let rates = assemble(r * e_ang.cross(&v_lin), times(dn, pure(w)) * 0.5, &none);
                let accelerations = assemble(
                    r * e_ang.cross(&(a_lin + w.cross(&v_lin))),
                    times(dn, pure(a_ang)) * 0.5 - dn * (0.25 * w.norm_squared()),
                    &none,
                );
                let turned = assemble(
                    r * e_ang.cross(&three(&tau, 0)),
                    times(dn, pure(three(&tau, 3))) * 2.0,
                    &none,
                );
                let pin_dq = matrix::<V, V>(&state["rnea_dq"]).column(k).into_owned();
                let want = jt(&pin_dq) + turned;
                let got = d.d_q * lift + d.d_qd * rates + d.mass * accelerations;
                close(&got, &want, &format!("∂τ/∂q along δ{k}, {label}"));
                // Along v: q̈ moves by (R (ω × δv + δω × v), −½ (ω · δω) n).
                let along_v = assemble(
                    r * (w.cross(&e_lin) + e_ang.cross(&v_lin)),
                    n * (-0.5 * w.dot(&e_ang)),
                    &none,
                );
                let pin_dv = matrix::<V, V>(&state["rnea_dv"]).column(k).into_owned();
                let got = d.d_qd * lift + d.mass * along_v;
                close(&got, &jt(&pin_dv), &format!("∂τ/∂v_{k}, {label}"));
                let pin_m = matrix::<V, V>(&state["rnea_da"]).column(k).into_owned();
                close(
                    &(d.mass * lift),
                    &jt(&pin_m),
                    &format!("M along a_{k}, {label}"),
                );
            }
        }
    }

    fn close<const N: usize>(got: &SVector<f64, N>, want: &SVector<f64, N>, what: &str) {
        let scale = want.amax().max(got.amax()).max(1.0);
        let off = (got - want).amax();
        assert!(
            off <= 1e-10 * scale,
            "{what}: off by {off:e} of {scale:e}\n got {got}\nwant {want}"
        );
    }

    check::<_, 19, 18, 18>(&Solo12::default(), "solo12_derivatives");
    check::<_, 36, 35, 35>(&lagrange_test_models::g1::G1::default(), "g1_derivatives");
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

/// Moving the whole Solo-12 by a horizontal translation changes nothing of its dynamics:
/// the mass matrix, the accelerations and the inverse dynamics at a state and at the same
/// state 10 km away agree to rounding of the quantities themselves (the kinetic energy is
/// written about the base's origin, its arms summed from it, never as a difference of
/// positions 1e4 m from the origin, which would lose ε · 1e4 / 0.2 m ≈ 1e-11 of them). At
/// rest and moving.
#[test]
fn a_floating_robot_far_from_the_origin_moves_as_near_it() {
    let solo = Solo12::default();
    let mut rng = common::Rng(41);
    for k in 0..4 {
        let (mut s, u) = solo12_state(&mut rng);
        if k == 0 {
            s.qd = SVector::zeros();
        }
        // On the unit sphere, so that the constraint holds.
        let n = s.q.fixed_rows::<4>(3).normalize();
        s.q.fixed_rows_mut::<4>(3).copy_from(&n);
        let nd = s.qd.fixed_rows::<4>(3) - n * n.dot(&s.qd.fixed_rows::<4>(3));
        s.qd.fixed_rows_mut::<4>(3).copy_from(&nd);
        let mut far = s;
        far.q[0] += 1e4;
        far.q[1] -= 7e3;
        let qdd = SVector::<f64, 19>::from_fn(|i, _| 0.1 * (i as f64 * 0.7).sin());
        let (near, away) = (solo.mass_matrix(&s, &u), solo.mass_matrix(&far, &u));
        assert!(
            (near - away).amax() <= 1e-13 * near.amax(),
            "{k}: {near}{away}"
        );
        let (near, away) = (
            solo.accelerations(&s, &u).expect("regular"),
            solo.accelerations(&far, &u).expect("regular"),
        );
        assert!(
            (near - away).amax() <= 1e-12 * near.amax().max(1.0),
            "{k}: {near}{away}"
        );
        let (near, away) = (
            solo.inverse_dynamics(&s, &qdd, &u),
            solo.inverse_dynamics(&far, &qdd, &u),
        );
        assert!(
            (near - away).amax() <= 1e-12 * near.amax().max(1.0),
            "{k}: {near}{away}"
        );
    }
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
        // The mass matrices on the velocities that keep |n| = 1 (the base's, and the
        // quaternion's three tangents n ⊗ (0, e_k)): off them, along n itself, the two
        // kinetic energies extend differently (the URDF's is written with the angular
        // velocity, which ignores n's rate along itself; the hand's differentiates R r).
        let (w, a, b, c) = (n[0], n[1], n[2], n[3]);
        let tangents = SMatrix::<f64, 4, 3>::new(-a, -b, -c, w, -c, b, c, w, -a, -b, a, w);
        let mut basis = SMatrix::<f64, 7, 6>::zeros();
        basis.fixed_view_mut::<3, 3>(0, 0).fill_with_identity();
        basis.fixed_view_mut::<4, 3>(3, 3).copy_from(&tangents);
        let (mu, mh) = (urdf.mass_matrix(&s, &none), hand.mass_matrix(&s, &none));
        agree(
            &(basis.transpose() * mu * basis),
            &(basis.transpose() * mh * basis),
            "mass matrix on the unit quaternion",
        );
        let radial = SVector::<f64, 7>::from_fn(|i, _| if i < 3 { 0.0 } else { n[i - 3] });
        assert!((mu * radial).amax() < 1e-14, "{}", mu * radial);
        let (a, b) = (
            urdf.accelerations(&s, &none).unwrap(),
            hand.accelerations(&s, &none).unwrap(),
        );
        agree(&a, &b, &format!("accelerations, state {k}"));
        assert!((urdf.energy(&s, &none) - hand.energy(&s, &none)).abs() < 1e-13);
    }
}

/// The Solo-12 on Pinocchio's free flyer (see [`floating_matches_pinocchio`]), with its
/// front left foot's frame.
#[test]
fn solo12_matches_pinocchio() {
    let model = Solo12::default();
    let none = SVector::zeros();
    floating_matches_pinocchio(&model, "solo12", |s| {
        let (lets, j) = (model.lets(s, &none), model.jacobians(s, &none));
        Frame {
            position: lets.FL_FOOT_p,
            rotation: lets.FL_FOOT_R,
            linear: j.FL_FOOT_p.matrix,
            angular: j.FL_FOOT_w.matrix,
        }
    });
}

lagrangian! {
    /// A gripper whose right finger is locked by `type="fixed"` alone, the `<mimic>` it
    /// had left in place: the tag means nothing on a fixed joint.
    pub struct LockedGripper {
        urdf: "tests/robots/locked_gripper.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

lagrangian! {
    /// The same gripper without the tag.
    pub struct LockedGripperPlain {
        urdf: "tests/robots/locked_gripper_plain.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

#[test]
fn a_mimic_on_a_fixed_joint_means_nothing() {
    assert_eq!(
        <LockedGripper as Dynamics<2, 0>>::COORDINATES,
        ["wrist", "left_finger"]
    );
    assert!(<LockedGripper as lagrange_runtime::model::Model<2, 0>>::CONSTRAINT_NAMES.is_empty());
    let (locked, plain) = (LockedGripper::default(), LockedGripperPlain::default());
    let none = SVector::<f64, 0>::zeros();
    let mut rng = common::Rng(45);
    for _ in 0..4 {
        let q = SVector::from([rng.uniform(-2.0, 2.0), rng.uniform(0.0, 0.04)]);
        let qd = SVector::from([rng.uniform(-1.0, 1.0), rng.uniform(-0.1, 0.1)]);
        let s = State::new(0.0, q, qd);
        assert_eq!(locked.mass_matrix(&s, &none), plain.mass_matrix(&s, &none));
        assert_eq!(
            locked.accelerations(&s, &none).unwrap(),
            plain.accelerations(&s, &none).unwrap()
        );
    }
    // Against the closed form at the finger's opening 0.01: about the wrist's x axis, the
    // palm's 1e-3 (its centre of mass on the axis), each finger's 1e-4 plus 0.1 (y² + z²),
    // the left at y = 0.02 + 0.01 + 0.01, the right at −0.02 − 0.01, both at z = 0.03; the
    // finger slides with its mass alone.
    let s = State::new(0.0, SVector::from([0.4, 0.01]), SVector::zeros());
    let m = locked.mass_matrix(&s, &none);
    let wrist = 1e-3
        + (1e-4 + 0.1 * (0.04_f64.powi(2) + 0.03_f64.powi(2)))
        + (1e-4 + 0.1 * (0.03_f64.powi(2) + 0.03_f64.powi(2)));
    assert!((m[(0, 0)] - wrist).abs() < 1e-17, "{m}");
    // One ulp of 0.1: the tree's composite-rigid-body algorithm forms m |a|² with a the
    // axis turned by the wrist's rotation.
    assert!((m[(1, 1)] - 0.1).abs() < 2e-17, "{m}");
}

lagrangian! {
    /// Joints named `gen` (a keyword from Rust 2024 on) and `async`, links `match` and
    /// `gen`: `gen` is kept (raw in the generated code, so that it compiles in every
    /// edition), the keywords get a trailing `_` (`async_`, `match_`).
    pub struct Keywords {
        urdf: "tests/robots/keywords.urdf";
        inputs: tau;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        force tau on r#gen;
    }
}

#[test]
fn joints_named_like_keywords_keep_their_names() {
    assert_eq!(<Keywords as Dynamics<2, 1>>::COORDINATES, ["gen", "async_"]);
    assert_eq!(Keywords::JOINT_LIMITS[0].0, "gen");
    let model = Keywords::default();
    // A pendulum of 2 kg at 0.5 m about y (its own 0.1 about its centre of mass) beside a
    // 3 kg slider along x: M = diag(2 · 0.25 + 0.1, 3), and the pendulum's gravity torque
    // is 2 · 9.81 · 0.5 sin q.
    let (q, tau) = (0.3_f64, 0.7);
    let s = State::new(0.0, SVector::from([q, 0.1]), SVector::from([0.5, -0.2]));
    let u = SVector::from([tau]);
    let m = model.mass_matrix(&s, &u);
    assert!(
        (m - SMatrix::<f64, 2, 2>::new(0.6, 0.0, 0.0, 3.0)).amax() < 1e-15,
        "{m}"
    );
    let qdd = model.accelerations(&s, &u).unwrap();
    let want = (tau - 9.81 * q.sin()) / 0.6;
    assert!(
        (qdd[0] - want).abs() < 1e-14 && qdd[1].abs() < 1e-15,
        "{qdd}"
    );
    let lets = model.lets(&s, &u);
    assert!((lets.match__c - SVector::from([-0.5 * q.sin(), 0.0, -0.5 * q.cos()])).amax() < 1e-16);
    assert_eq!(lets.gen_p, SVector::from([0.1, 0.0, 0.0]));
}

lagrangian! {
    /// A slider that follows a crank, 0.1 m per radian, in a model with units.
    pub struct MimicSlider {
        urdf: "tests/robots/mimic_slider.urdf";
        inputs: tau [N*m];
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        force tau on crank;
    }
}

#[test]
fn a_prismatic_joint_mimics_a_revolute_one_in_metres_per_radian() {
    let units = <MimicSlider as lagrange_runtime::model::Model<2, 1>>::UNITS.expect("units");
    assert_eq!(units.coordinates, ["rad", "m"]);
    let model = MimicSlider::default();
    let u = SVector::from([0.3]);
    // r = 0.1 θ + 0.02.
    let off = State::new(0.0, SVector::from([0.7, 0.3]), SVector::zeros());
    let residual = Constrained::<2, 1, 1>::constraint_residuals(&model, &off, &u)[0];
    assert!(
        (residual - (0.3 - (0.1 * 0.7 + 0.02))).abs() < 1e-16,
        "{residual}"
    );
    // On the constraint, one degree of freedom: J(θ) θ̈ + ½ J′(θ) θ̇² = τ with J = 0.0501
    // (the arm's 0.01 + 1 · 0.2², the carriage's own 1e-4) + 0.5 (0.1² + r²), J′ = 0.1 r.
    let (theta, rate) = (0.7_f64, 1.3_f64);
    let r = 0.1 * theta + 0.02;
    let s = State::new(
        0.0,
        SVector::from([theta, r]),
        SVector::from([rate, 0.1 * rate]),
    );
    let qdd = model.accelerations(&s, &u).unwrap();
    let j = 0.0501 + 0.5 * (0.01 + r * r);
    let want = (0.3 - 0.05 * r * rate * rate) / j;
    assert!((qdd[0] - want).abs() < 1e-14, "{qdd} against {want}");
    assert!((qdd[1] - 0.1 * want).abs() < 1e-14, "{qdd}");
}

lagrangian! {
    /// A light wrist (a 0.06 kg hand, inertias of 1e-6 kg m²) and a 0.01 kg finger on a
    /// 3 kg arm with turned joint origins, at the world's origin (issue 50).
    pub struct LightWrist {
        urdf: "tests/robots/light_wrist.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

lagrangian! {
    /// The same robot mounted 10 m away.
    pub struct LightWrist10 {
        urdf: "tests/robots/light_wrist_10m.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

lagrangian! {
    /// The same robot mounted at (100, 70, 0) m.
    pub struct LightWrist100 {
        urdf: "tests/robots/light_wrist_100m.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

lagrangian! {
    /// The same robot mounted at (1 000, 1 000, 3) m.
    pub struct LightWrist1000 {
        urdf: "tests/robots/light_wrist_1000m.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

/// A fixed robot's dynamics do not depend on where it is mounted (a translation: gravity
/// stays along z): the light wrist's mass matrix, accelerations and inverse dynamics at
/// 10, 122 and 1 414 m from the world's origin equal those at the origin, each entry to
/// 1e-12 of itself, at zero, at rest and at random states. Each link's velocity is written
/// about the origin of the link above it that does not move (the mount), its arms summed
/// from there. Written about the world's origin, the terms grew with the distance and
/// cancelled (issue 50: TIAGo's wrist M₇₇ off by 2.2e-5 at 1 414 m): over 20 random states
/// the mass matrix's entries were off by up to 3.1e-11 of themselves at 10 m, 1.4e-8 at
/// 122 m and 1.8e-6 at 1 414 m, the accelerations by 3.3e-11, 1.4e-8 and 1.6e-6 of their
/// largest; now by 9e-15 and 2e-15 at most.
#[test]
fn a_fixed_robot_far_from_the_origin_moves_as_near_it() {
    fn close<const R: usize, const C: usize>(
        near: &SMatrix<f64, R, C>,
        away: &SMatrix<f64, R, C>,
        what: &str,
    ) {
        for (a, b) in near.iter().zip(away.iter()) {
            assert!(
                (a - b).abs() <= 1e-12 * a.abs() + 1e-15 * near.amax(),
                "{what}: {near}{away}"
            );
        }
    }
    /// Where the robot is, and its mass matrix, accelerations and inverse dynamics there.
    type Far = (
        &'static str,
        SMatrix<f64, 4, 4>,
        SVector<f64, 4>,
        SVector<f64, 4>,
    );
    let near = LightWrist::default();
    let mut rng = common::Rng(50);
    let mut states = vec![State::new(0.0, SVector::zeros(), SVector::zeros())];
    for k in 0..4 {
        let q = SVector::<f64, 4>::from_fn(|_, _| rng.uniform(-2.0, 2.0));
        let qd = SVector::<f64, 4>::from_fn(|_, _| rng.uniform(-2.0, 2.0));
        states.push(State::new(
            0.0,
            q,
            if k == 0 { SVector::zeros() } else { qd },
        ));
    }
    let u = SVector::<f64, 0>::zeros();
    let qdd = SVector::<f64, 4>::new(0.3, -0.7, 1.1, 0.05);
    for s in &states {
        let m = near.mass_matrix(s, &u);
        let a = near.accelerations(s, &u).expect("regular");
        let tau = near.inverse_dynamics(s, &qdd, &u);
        let far: [Far; 3] = [
            (
                "10 m",
                LightWrist10::default().mass_matrix(s, &u),
                LightWrist10::default()
                    .accelerations(s, &u)
                    .expect("regular"),
                LightWrist10::default().inverse_dynamics(s, &qdd, &u),
            ),
            (
                "122 m",
                LightWrist100::default().mass_matrix(s, &u),
                LightWrist100::default()
                    .accelerations(s, &u)
                    .expect("regular"),
                LightWrist100::default().inverse_dynamics(s, &qdd, &u),
            ),
            (
                "1 414 m",
                LightWrist1000::default().mass_matrix(s, &u),
                LightWrist1000::default()
                    .accelerations(s, &u)
                    .expect("regular"),
                LightWrist1000::default().inverse_dynamics(s, &qdd, &u),
            ),
        ];
        for (at, m_far, a_far, tau_far) in &far {
            close(&m, m_far, &format!("mass matrix at {at}"));
            close(&a, a_far, &format!("accelerations at {at}"));
            close(&tau, tau_far, &format!("inverse dynamics at {at}"));
        }
    }
}

/// `Name::coordinate`: a joint's coordinate index by its name in the URDF file or in the
/// model (characters an identifier cannot hold become `_`, a keyword gets a trailing `_`,
/// `gen` stays `gen`), in the order of the coordinates; `None` for a fixed joint and for a
/// name the file does not have (issue 50: the order differs from Pinocchio's in 9 of 16
/// robots, so a user needs the lookup, not a count).
#[test]
fn joints_are_found_by_their_names_in_the_file() {
    for (k, joint) in [
        "shoulder_pan_joint",
        "shoulder_lift_joint",
        "elbow_joint",
        "wrist_1_joint",
        "wrist_2_joint",
        "wrist_3_joint",
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(Ur5::coordinate(joint), Some(k), "{joint}");
        assert_eq!(Ur5::COORDINATES[k], joint);
    }
    assert_eq!(Ur5::coordinate("ee_fixed_joint"), None, "a fixed joint");
    assert_eq!(Ur5::coordinate("shoulder"), None);
    // The Panda's fingers: the second is a mimic joint, still a coordinate.
    assert_eq!(Panda::coordinate("panda_finger_joint1"), Some(7));
    assert_eq!(Panda::coordinate("panda_finger_joint2"), Some(8));
    // A name that is not an identifier, by either spelling.
    assert_eq!(LightWrist::coordinate("finger.tip"), Some(3));
    assert_eq!(LightWrist::coordinate("finger_tip"), Some(3));
    assert_eq!(LightWrist::COORDINATES[3], "finger_tip");
    assert_eq!(LightWrist::coordinate("mount"), None, "a fixed joint");
    // The file's friction, by coordinate (not in the equations).
    assert_eq!(
        LightWrist::JOINT_FRICTION,
        [
            ("shoulder", 0.0),
            ("elbow", 0.2),
            ("wrist", 0.0),
            ("finger_tip", 0.0)
        ]
    );
    // Keywords.
    assert_eq!(Keywords::coordinate("gen"), Some(0));
    assert_eq!(Keywords::coordinate("async"), Some(1));
    assert_eq!(Keywords::coordinate("async_"), Some(1));
}

/// `floating_base`'s public map is the one the Solo-12's comparison with Pinocchio runs
/// through (`lagrange_test_models::FreeFlyer`, checked against Pinocchio's free flyer): the twist
/// (Rᵀ ṗ, ω) of lagrange's rates is J q̇, `set_twist` inverts it on the unit sphere, and
/// `set_acceleration` gives the q̈ of Pinocchio's `a`, at the identity at rest and at
/// random states.
#[test]
fn the_floating_base_map_is_pinocchio_s() {
    use lagrange_runtime::floating_base::{self, BaseTwist};
    use lagrange_test_models::FreeFlyer;
    let mut rng = common::Rng(48);
    let mut states = Vec::new();
    let mut identity = SVector::<f64, 19>::zeros();
    identity[3] = 1.0;
    states.push(State::at_rest(identity));
    for _ in 0..3 {
        let (mut s, _) = solo12_state(&mut rng);
        let n = s.q.fixed_rows::<4>(3).normalize();
        s.q.fixed_rows_mut::<4>(3).copy_from(&n);
        states.push(s);
    }
    for s in &states {
        let map = FreeFlyer::<19, 18>::at_lagrange(&s.q);
        let v = map.j() * s.qd;
        let twist = floating_base::twist(s);
        assert!((twist.linear - v.fixed_rows::<3>(0)).amax() < 1e-14);
        assert!((twist.angular - v.fixed_rows::<3>(3)).amax() < 1e-14);
        // From Pinocchio's v back to lagrange's rates.
        let mut back = *s;
        floating_base::set_twist(&mut back, &twist);
        let want = map.l() * v;
        assert!((back.qd - want).amax() < 1e-14, "{}{}", back.qd, want);
        // Accelerations: Pinocchio's a to q̈, on the state with those rates.
        let a = SVector::<f64, 18>::from_fn(|i, _| 0.1 * i as f64 - 0.4);
        let base = BaseTwist {
            linear: a.fixed_rows::<3>(0).into_owned(),
            angular: a.fixed_rows::<3>(3).into_owned(),
        };
        let mut qdd = map.qdd(&v, &a);
        let joints = qdd.fixed_rows::<12>(7).into_owned();
        floating_base::set_acceleration(&back, &base, &mut qdd);
        let want = map.qdd(&v, &a);
        assert!((qdd - want).amax() < 1e-14, "{qdd}{want}");
        assert_eq!(qdd.fixed_rows::<12>(7), joints);
        let round = floating_base::acceleration(&back, &qdd);
        assert!((round.linear - base.linear).amax() < 1e-14);
        assert!((round.angular - base.angular).amax() < 1e-14);
    }
}

lagrangian! {
    /// The UR5 driven by `actuated`: one input per joint and its force.
    pub struct Ur5Actuated {
        urdf: "tests/robots/ur5.urdf" actuated;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

lagrangian! {
    /// The light wrist with units, `actuated` and `floating` in either order: torques for
    /// its revolute joints, a force for its prismatic finger, the user's own input after.
    pub struct LightWristActuated {
        urdf: "tests/robots/light_wrist.urdf" actuated floating;
        inputs: push [N];
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        force push on finger_tip;
    }
}

/// `urdf: "path" actuated;` is the hand-written `inputs` and `force` lines of every joint
/// that has a coordinate and mimics none (DSL.md, "Robots from a URDF"): the UR5's
/// accelerations equal those of `Ur5` (six `force tauN on joint;` written by hand) at
/// random states and inputs, its inputs are named `tau_<joint>` in coordinate order, a
/// mimic joint gets none, and with units they are N·m for a revolute joint and N for a
/// prismatic one, before the model's own.
#[test]
fn actuated_declares_an_input_and_its_force_per_driven_joint() {
    assert_eq!(
        Ur5Actuated::INPUTS,
        [
            "tau_shoulder_pan_joint",
            "tau_shoulder_lift_joint",
            "tau_elbow_joint",
            "tau_wrist_1_joint",
            "tau_wrist_2_joint",
            "tau_wrist_3_joint"
        ]
    );
    let (by_hand, actuated) = (Ur5::default(), Ur5Actuated::default());
    let mut rng = common::Rng(48);
    for _ in 0..4 {
        let q = SVector::<f64, 6>::from_fn(|_, _| rng.uniform(-1.5, 1.5));
        let qd = SVector::<f64, 6>::from_fn(|_, _| rng.uniform(-1.0, 1.0));
        let u = SVector::<f64, 6>::from_fn(|_, _| rng.uniform(-5.0, 5.0));
        let s = State::new(0.0, q, qd);
        let (a, b) = (
            by_hand.accelerations(&s, &u).expect("regular"),
            actuated.accelerations(&s, &u).expect("regular"),
        );
        assert!((a - b).amax() <= 1e-14 * a.amax().max(1.0), "{a}{b}");
    }
    assert_eq!(
        LightWristActuated::INPUTS,
        [
            "tau_shoulder",
            "tau_elbow",
            "tau_wrist",
            "tau_finger_tip",
            "push"
        ]
    );
    let units = LightWristActuated::UNITS.expect("units");
    assert_eq!(units.inputs, ["N*m", "N*m", "N*m", "N", "N"]);
}

/// The centroidal `let`s of a model at a state (`urdf_mass`, `urdf_com`, `urdf_momentum`,
/// `urdf_angular_momentum`) with their Jacobians.
macro_rules! centroidal {
    ($model:expr, $s:expr) => {{
        let u = SVector::zeros();
        let (lets, j) = ($model.lets($s, &u), $model.jacobians($s, &u));
        Centroidal::new(
            (
                lets.urdf_mass,
                lets.urdf_com,
                lets.urdf_momentum,
                lets.urdf_angular_momentum,
            ),
            [&j.urdf_com, &j.urdf_momentum, &j.urdf_angular_momentum],
        )
    }};
}

/// The centroidal `let`s (DSL.md, "Robots from a URDF") against Pinocchio 4.1 at the states
/// of the four robots (`centroidal_matches_pinocchio`): the total mass, the centre of mass,
/// its velocity, acceleration and Jacobian (`jacobianCenterOfMass`), the centroidal momentum
/// h_G, the centroidal momentum matrix A_G (`ccrba`), its drift dA_G v (`dccrba`) and ḣ_G;
/// the Solo-12 and the G1 through the floating base's map of velocities. Pinocchio's
/// bodies fixed to the world (the UR5's 4 kg base) are not in its mass, nor in lagrange's.
#[test]
fn centroidal_lets_match_pinocchio() {
    let ur5 = Ur5::default();
    centroidal_matches_pinocchio::<6, 6>("ur5", false, |s| centroidal!(ur5, s));
    let panda = Panda::default();
    centroidal_matches_pinocchio::<9, 9>("panda", false, |s| centroidal!(panda, s));
    let solo = Solo12::default();
    centroidal_matches_pinocchio::<19, 18>("solo12", true, |s| centroidal!(solo, s));
    let g1 = lagrange_test_models::g1::G1::default();
    centroidal_matches_pinocchio::<36, 35>("g1", true, |s| centroidal!(g1, s));
}

/// The relations between the centroidal `let`s, by themselves (no reference data): the
/// linear momentum is the mass times the velocity of the centre of mass, m J_com q̇ =
/// `urdf_momentum` (and the rows of A_G, m J_com = ∂p/∂q̇, for the Solo-12 on the
/// velocities that keep |n| = 1), and so also the central
/// difference of `urdf_com` along the motion (step 1e-6, to 1e-8); `urdf_potential` is
/// `urdf_mass * g * urdf_com.z`; at zero, at rest, and at random states of the UR5, the
/// Panda and the Solo-12. The Solo-12's velocities keep the quaternion's norm (n · ṅ = 0):
/// along n itself `urdf_com` dilates (as every link's frame does) while the momentum, made
/// of the kinetic energy's velocities, ignores that rate, which the constraint forbids.
#[test]
fn the_momentum_is_the_mass_times_the_velocity_of_the_centre_of_mass() {
    fn check<T: Dynamics<N, M>, const N: usize, const M: usize>(
        model: &T,
        states: &[State<N>],
        centroidal: impl Fn(&State<N>) -> Centroidal<N>,
        what: &str,
    ) {
        let u = SVector::<f64, M>::zeros();
        for (k, s) in states.iter().enumerate() {
            let c = centroidal(s);
            let p = c.momentum.fixed_rows::<3>(0).into_owned();
            let what = format!("{what}, state {k}");
            agree(&(c.mass * c.com_jacobian * s.qd), &p, &what);
            // On the velocities that keep |n| = 1, for a floating base.
            let tangent = if N == 19 {
                let p = lagrange_test_models::FreeFlyer::<19, 18>::at_lagrange(&SVector::from_fn(
                    |i, _| s.q[i],
                ))
                .tangent();
                SMatrix::<f64, N, N>::from_fn(|i, j| p[(i, j)])
            } else {
                SMatrix::identity()
            };
            agree(
                &(c.mass * c.com_jacobian * tangent),
                &(c.matrix.fixed_rows::<3>(0) * tangent),
                &what,
            );
            let h = 1e-6;
            let at = |t: f64| centroidal(&State::new(0.0, s.q + s.qd * t, s.qd)).com;
            let difference = (at(h) - at(-h)) / (2.0 * h);
            assert!(
                (c.mass * difference - p).amax() <= 1e-8 * p.amax().max(1.0),
                "{what}: {difference} against {p}"
            );
            let height = c.mass * 9.81 * c.com[2];
            let potential = model.potential_energy(s, &u);
            assert!(
                (potential - height).abs() <= 1e-13 * potential.abs().max(1.0),
                "{what}: {potential} against {height}"
            );
        }
    }
    let mut rng = common::Rng(480);
    let mut random = |n: usize, scale: f64| -> Vec<f64> {
        (0..n).map(|_| scale * rng.uniform(-1.5, 1.5)).collect()
    };
    fn fixed<const N: usize>(q: Vec<f64>, qd: Vec<f64>) -> State<N> {
        State::new(0.0, SVector::from_vec(q), SVector::from_vec(qd))
    }
    let ur5 = Ur5::default();
    let mut states = vec![
        State::at_rest(SVector::zeros()),
        fixed(random(6, 1.0), vec![0.0; 6]),
    ];
    for _ in 0..3 {
        states.push(fixed(random(6, 1.0), random(6, 1.0)));
    }
    states.push(fixed(vec![0.0; 6], random(6, 1.0)));
    check(&ur5, &states, |s| centroidal!(ur5, s), "UR5");
    let panda = Panda::default();
    let mut states = vec![State::at_rest(SVector::zeros())];
    for _ in 0..3 {
        states.push(fixed(random(9, 1.0), random(9, 1.0)));
    }
    check(&panda, &states, |s| centroidal!(panda, s), "Panda");
    let solo = Solo12::default();
    let mut identity = SVector::<f64, 19>::zeros();
    identity[3] = 1.0;
    let mut states = vec![State::at_rest(identity)];
    for k in 0..4 {
        let (mut s, _) = solo12_state(&mut rng);
        if k == 0 {
            s.q = identity;
        }
        let n = s.q.fixed_rows::<4>(3).normalize();
        s.q.fixed_rows_mut::<4>(3).copy_from(&n);
        let nd = s.qd.fixed_rows::<4>(3) - n * n.dot(&s.qd.fixed_rows::<4>(3));
        s.qd.fixed_rows_mut::<4>(3).copy_from(&nd);
        states.push(s);
    }
    check(&solo, &states, |s| centroidal!(solo, s), "Solo-12");
}

/// The centroidal `let`s do not depend on where the robot stands: the light wrist's at
/// 1 414 m from the world's origin are the ones at the origin, the centre of mass shifted
/// by the mount (to the rounding of its position there, 4 ε · 1 414 m), its Jacobian and
/// drift, the momenta, A_G and its drift each entry to 1e-12 of itself (every lever is
/// measured from the mount, never as a difference of positions from the origin); and the
/// Solo-12's 1.2 × 10⁴ m away, at rest and moving.
#[test]
fn the_centroidal_lets_do_not_depend_on_where_the_robot_stands() {
    fn same<const N: usize>(
        near: &Centroidal<N>,
        far: &Centroidal<N>,
        shift: [f64; 3],
        what: &str,
    ) {
        fn close<const R: usize, const C: usize>(
            near: &SMatrix<f64, R, C>,
            away: &SMatrix<f64, R, C>,
            what: &str,
        ) {
            for (a, b) in near.iter().zip(away.iter()) {
                assert!(
                    (a - b).abs() <= 1e-12 * a.abs() + 1e-15 * near.amax(),
                    "{what}: {near}{away}"
                );
            }
        }
        assert_eq!(near.mass, far.mass);
        let com = far.com - SVector::from(shift);
        let rounding = 4.0 * f64::EPSILON * far.com.amax();
        assert!(
            (com - near.com).amax() <= rounding,
            "{what}: {}{}",
            near.com,
            far.com
        );
        close(
            &near.com_jacobian,
            &far.com_jacobian,
            &format!("J_com, {what}"),
        );
        close(
            &near.com_drift,
            &far.com_drift,
            &format!("J_com's drift, {what}"),
        );
        close(&near.momentum, &far.momentum, &format!("h_G, {what}"));
        close(&near.matrix, &far.matrix, &format!("A_G, {what}"));
        close(&near.drift, &far.drift, &format!("A_G's drift, {what}"));
    }
    let (near, far) = (LightWrist::default(), LightWrist1000::default());
    let mut rng = common::Rng(148);
    let mut states = vec![State::new(0.0, SVector::zeros(), SVector::zeros())];
    for k in 0..4 {
        let q = SVector::<f64, 4>::from_fn(|_, _| rng.uniform(-2.0, 2.0));
        let qd = SVector::<f64, 4>::from_fn(|_, _| rng.uniform(-2.0, 2.0));
        states.push(State::new(
            0.0,
            q,
            if k == 0 { SVector::zeros() } else { qd },
        ));
    }
    for (k, s) in states.iter().enumerate() {
        let c = centroidal!(near, s);
        assert!(c.momentum.amax() > 0.0 || k < 2);
        same(
            &c,
            &centroidal!(far, s),
            [1000.0, 1000.0, 3.0],
            &format!("light wrist, state {k}"),
        );
    }
    let solo = Solo12::default();
    for k in 0..3 {
        let (mut s, _) = solo12_state(&mut rng);
        if k == 0 {
            s.qd = SVector::zeros();
        }
        let mut away = s;
        away.q[0] += 1e4;
        away.q[1] -= 7e3;
        same(
            &centroidal!(solo, &s),
            &centroidal!(solo, &away),
            [1e4, -7e3, 0.0],
            &format!("Solo-12, state {k}"),
        );
    }
}

lagrangian! {
    /// A rotor of inertia only on a base fixed to the world: no mass that moves.
    pub struct Massless {
        urdf: "tests/robots/massless.urdf";
        kinetic = urdf_kinetic;
    }
}

/// A robot whose links that move have no mass has no centre of mass: `urdf_com` is not
/// declared (naming it is a compile error, `tests/ui/urdf/com_without_mass.rs`), its
/// `urdf_mass` is 0 (the base fixed to the world is not in it), its linear momentum zero,
/// and its angular momentum, then the same about every point, the rotor's R I Rᵀ ω, whose
/// ½ ω · h is its kinetic energy.
#[test]
fn a_robot_without_mass_has_no_centre_of_mass() {
    let model = Massless::default();
    let u = SVector::zeros();
    for (q, qd) in [(0.0, 0.0), (0.7, 1.3), (-2.0, -0.4)] {
        let s = State::new(0.0, SVector::from([q]), SVector::from([qd]));
        let lets = model.lets(&s, &u);
        assert_eq!(lets.urdf_mass, 0.0);
        assert_eq!(lets.urdf_momentum, SVector::<f64, 3>::zeros());
        let w = lets.rotor_R.column(2) * qd;
        let turn = lagrange_runtime::nalgebra::Rotation3::from_euler_angles(0.3, 0.0, 0.2);
        let principal = lets.rotor_R * turn.matrix();
        let inertia = principal
            * SMatrix::from_diagonal(&SVector::from([0.1, 0.2, 0.3]))
            * principal.transpose();
        let h = inertia * w;
        assert!(
            (lets.urdf_angular_momentum - h).amax() <= 1e-15,
            "{}{h}",
            lets.urdf_angular_momentum
        );
        let energy = model.kinetic_energy(&s, &u);
        assert!((energy - 0.5 * w.dot(&h)).abs() <= 1e-15);
        let j = model.jacobians(&s, &u);
        assert!((j.urdf_angular_momentum.matrix * s.qd - h).amax() <= 1e-15);
    }
}

/// A robot's momenta as `lets` evaluates them, `urdf_momentum` then
/// `urdf_angular_momentum`, with their rows from the robot's tree (∂/∂q̇ and the drift) and
/// the rows `jacobians` gives them.
macro_rules! momenta {
    ($model:expr) => {
        |s: &State<_>| {
            let u = SVector::zeros();
            let (lets, j) = ($model.lets(s, &u), $model.jacobians(s, &u));
            let tree = $model.__momenta_from_tree(s, &u);
            let (h, l) = (lets.urdf_momentum, lets.urdf_angular_momentum);
            let (jh, jl) = (j.urdf_momentum, j.urdf_angular_momentum);
            let rows = |i: usize, c: usize| {
                if i < 3 {
                    jh.matrix[(i, c)]
                } else {
                    jl.matrix[(i - 3, c)]
                }
            };
            let drifts = |i: usize| if i < 3 { jh.drift[i] } else { jl.drift[i - 3] };
            Momenta {
                value: SVector::from_fn(|i, _| if i < 3 { h[i] } else { l[i - 3] }),
                matrix: SMatrix::from_fn(|i, c| tree.matrix[i][c]),
                drift: SVector::from(tree.drift),
                jacobians: (SMatrix::from_fn(rows), SVector::from_fn(|i, _| drifts(i))),
            }
        }
    };
}

/// [`momenta!`]'s.
struct Momenta<const N: usize> {
    value: SVector<f64, 6>,
    matrix: SMatrix<f64, 6, N>,
    drift: SVector<f64, 6>,
    jacobians: (SMatrix<f64, 6, N>, SVector<f64, 6>),
}

/// The rows of the momenta from the robot's tree (`lagrange_runtime::centroidal`, which
/// `jacobians` runs when they are too large to unroll, the G1's) are the derivatives of
/// the momenta `lets` evaluates (the `let`s the URDF writer declares): each column of
/// ∂/∂q̇ the change of the `let`s, linear in q̇, along that velocity (to rounding), the drift
/// their central difference along the motion, q moving with q̇ (step 1e-6, to 1e-7), and
/// both those of `jacobians` to rounding, at random states of every robot of the suite:
/// revolute, prismatic and mimic joints, fixed joints with and without a `<mimic>` tag,
/// inertias written factored and plain, a robot without moving mass, one 1 414 m from the
/// origin, and floating bases off the unit quaternion with rates across it.
#[test]
fn the_rows_of_the_momenta_are_the_derivatives_of_the_momenta() {
    fn check<const N: usize>(
        momenta: impl Fn(&State<N>) -> Momenta<N>,
        rng: &mut common::Rng,
        floating: bool,
        what: &str,
    ) {
        for k in 0..4 {
            let mut q = SVector::<f64, N>::from_fn(|_, _| rng.uniform(-1.5, 1.5));
            let qd = SVector::<f64, N>::from_fn(
                |_, _| {
                    if k == 0 {
                        0.0
                    } else {
                        rng.uniform(-1.0, 1.0)
                    }
                },
            );
            if floating {
                let n = SVector::<f64, 4>::from_fn(|_, _| rng.uniform(-1.0, 1.0)).normalize();
                let scale = 1.0 + rng.uniform(-0.1, 0.1);
                q.fixed_rows_mut::<4>(3).copy_from(&(n * scale));
            }
            let s = State::new(0.0, q, qd);
            let Momenta {
                value,
                matrix,
                drift,
                jacobians,
            } = momenta(&s);
            let size = value.amax().max(matrix.amax()).max(drift.amax()).max(1.0);
            for c in 0..N {
                let mut moved = s;
                moved.qd[c] += 1.0;
                let change = momenta(&moved).value - value;
                let column = matrix.column(c);
                assert!(
                    (change - column).amax() <= 1e-12 * size,
                    "{what}, state {k}, column {c}: {change} against {column}"
                );
            }
            let h = 1e-6;
            let at = |t: f64| momenta(&State::new(0.0, s.q + s.qd * t, s.qd)).value;
            let difference = (at(h) - at(-h)) / (2.0 * h);
            assert!(
                (difference - drift).amax() <= 1e-7 * size,
                "{what}, state {k}: the drift {drift} against {difference}"
            );
            assert!(
                (jacobians.0 - matrix).amax() <= 1e-12 * size
                    && (jacobians.1 - drift).amax() <= 1e-12 * size,
                "{what}, state {k}: jacobians' {}{} against the tree's {matrix}{drift}",
                jacobians.0,
                jacobians.1
            );
        }
    }
    let mut rng = common::Rng(4848);
    let ur5 = Ur5::default();
    check(momenta!(ur5), &mut rng, false, "UR5");
    let panda = Panda::default();
    check(momenta!(panda), &mut rng, false, "Panda");
    let solo = Solo12::default();
    check(momenta!(solo), &mut rng, true, "Solo-12");
    let g1 = lagrange_test_models::g1::G1::default();
    check(momenta!(g1), &mut rng, true, "G1");
    check(
        momenta!(FloatingBox::default()),
        &mut rng,
        true,
        "floating box",
    );
    check(
        momenta!(LockedGripper::default()),
        &mut rng,
        false,
        "locked gripper",
    );
    check(
        momenta!(LockedGripperPlain::default()),
        &mut rng,
        false,
        "locked gripper (plain)",
    );
    check(
        momenta!(MimicSlider::default()),
        &mut rng,
        false,
        "mimic slider",
    );
    check(
        momenta!(LightWrist::default()),
        &mut rng,
        false,
        "light wrist",
    );
    check(
        momenta!(LightWrist1000::default()),
        &mut rng,
        false,
        "light wrist at 1 414 m",
    );
    check(
        momenta!(Massless::default()),
        &mut rng,
        false,
        "massless rotor",
    );
}

/// The numbers of a value's `Debug` text, in order (each `None` where a word is not one):
/// two values of one type compared number by number.
fn numbers_of(text: &str) -> Vec<Option<f64>> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_')))
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().ok())
        .collect()
}

/// The rows `jacobians` takes from a robot's tree (`lagrange_runtime::frames`: each link's
/// origin `L_p` and centre of mass `L_c`, and `urdf_com`, `urdf_potential`, `urdf_mass`,
/// sums of theirs; the momenta from `lagrange_runtime::centroidal`), which the G1's
/// `jacobians` runs, are those the others unroll at compile time, every number of every
/// `let`'s Jacobian and drift to rounding, at random states of every robot of the suite
/// whose `jacobians` unrolls them: revolute, prismatic and mimic joints, fixed joints,
/// links without mass, a robot 1 414 m from the origin, and floating bases off the unit
/// quaternion with rates across it.
#[test]
fn the_rows_from_the_tree_are_the_unrolled_rows() {
    fn check<J: std::fmt::Debug, const N: usize>(
        routes: impl Fn(&State<N>) -> (J, J),
        rng: &mut common::Rng,
        floating: bool,
        what: &str,
    ) {
        for k in 0..4 {
            let mut q = SVector::<f64, N>::from_fn(|_, _| rng.uniform(-1.5, 1.5));
            let qd = SVector::<f64, N>::from_fn(|_, _| rng.uniform(-1.0, 1.0));
            if floating {
                let n = SVector::<f64, 4>::from_fn(|_, _| rng.uniform(-1.0, 1.0)).normalize();
                let scale = if k == 0 {
                    1.0
                } else {
                    1.0 + rng.uniform(-0.1, 0.1)
                };
                q.fixed_rows_mut::<4>(3).copy_from(&(n * scale));
            }
            let (unrolled, tree) = routes(&State::new(0.3, q, qd));
            let (a, b) = (
                numbers_of(&format!("{unrolled:?}")),
                numbers_of(&format!("{tree:?}")),
            );
            assert_eq!(a.len(), b.len());
            let size = a.iter().flatten().fold(1.0f64, |m, x| m.max(x.abs()));
            for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                match (x, y) {
                    (Some(x), Some(y)) => assert!(
                        (x - y).abs() <= 1e-13 * size,
                        "{what}, state {k}, number {i}: {x} unrolled against {y} from the tree"
                    ),
                    _ => assert_eq!(x.is_some(), y.is_some(), "{what}, number {i}"),
                }
            }
        }
    }
    macro_rules! routes {
        ($model:expr) => {
            |s: &State<_>| {
                let u = SVector::zeros();
                ($model.jacobians(s, &u), $model.__jacobians_from_tree(s, &u))
            }
        };
    }
    let mut rng = common::Rng(4747);
    check(routes!(Ur5::default()), &mut rng, false, "UR5");
    check(routes!(Panda::default()), &mut rng, false, "Panda");
    check(routes!(Solo12::default()), &mut rng, true, "Solo-12");
    check(routes!(FloatingBox::default()), &mut rng, true, "box");
    check(
        routes!(LockedGripper::default()),
        &mut rng,
        false,
        "gripper",
    );
    check(routes!(MimicSlider::default()), &mut rng, false, "slider");
    check(routes!(LightWrist::default()), &mut rng, false, "wrist");
    check(routes!(LightWrist1000::default()), &mut rng, false, "far");
    check(routes!(Massless::default()), &mut rng, false, "massless");
}

/// The G1's rows from its tree (`jacobians` does not unroll them) are the derivatives of
/// the `let`s: for its root's, a foot's, a hand's and fixed links' origin and centre of
/// mass, `urdf_com` and `urdf_potential`, each column of ∂/∂q the central difference
/// along that coordinate and the drift the second difference along the motion (steps
/// 1e-5 and 1e-4, to 1e-6), at random states off the unit quaternion.
#[test]
fn the_g1_s_rows_from_its_tree_are_the_derivatives_of_its_lets() {
    let g1 = lagrange_test_models::g1::G1::default();
    let u = SVector::zeros();
    let mut rng = common::Rng(4848);
    for k in 0..3 {
        let mut q = SVector::<f64, 36>::from_fn(|_, _| rng.uniform(-1.0, 1.0));
        let qd = SVector::<f64, 36>::from_fn(|_, _| rng.uniform(-1.0, 1.0));
        let n = SVector::<f64, 4>::from_fn(|_, _| rng.uniform(-1.0, 1.0)).normalize();
        q.fixed_rows_mut::<4>(3)
            .copy_from(&(n * (1.0 + rng.uniform(-0.1, 0.1))));
        let s = State::new(0.0, q, qd);
        let j = g1.jacobians(&s, &u);
        macro_rules! each {
            ($($field:ident),*) => {$({
                let value = |s: &State<36>| -> Vec<f64> {
                    g1.lets(s, &u).$field.iter().copied().collect()
                };
                let (matrix, drift) = (&j.$field.matrix, &j.$field.drift);
                let size = matrix.amax().max(drift.amax()).max(1.0);
                let close = |a: f64, b: f64, what: &str| {
                    assert!(
                        (a - b).abs() <= 1e-6 * size,
                        "{}, state {k}, {what}: {a} against {b}",
                        stringify!($field)
                    )
                };
                for c in 0..36 {
                    let h = 1e-5;
                    let at = |d: f64| {
                        let mut moved = s;
                        moved.q[c] += d;
                        value(&moved)
                    };
                    let (plus, minus) = (at(h), at(-h));
                    for r in 0..plus.len() {
                        close((plus[r] - minus[r]) / (2.0 * h), matrix[(r, c)], &format!("({r}, {c})"));
                    }
                }
                let h = 1e-4;
                let along = |t: f64| value(&State::new(0.0, s.q + s.qd * t, s.qd));
                let (plus, mid, minus) = (along(h), along(0.0), along(-h));
                for r in 0..plus.len() {
                    let second = (plus[r] - 2.0 * mid[r] + minus[r]) / (h * h);
                    close(second, drift[r], &format!("drift {r}"));
                }
            })*};
        }
        each!(
            pelvis_p,
            pelvis_c,
            left_ankle_roll_link_p,
            left_ankle_roll_link_c,
            right_wrist_yaw_link_c,
            left_rubber_hand_p,
            head_link_c,
            urdf_com
        );
        let potential = |s: &State<36>| g1.lets(s, &u).urdf_potential;
        let (matrix, drift) = (&j.urdf_potential.matrix, j.urdf_potential.drift[0]);
        let size = matrix.amax().max(drift.abs()).max(1.0);
        for c in 0..36 {
            let h = 1e-5;
            let mut plus = s;
            plus.q[c] += h;
            let mut minus = s;
            minus.q[c] -= h;
            let d = (potential(&plus) - potential(&minus)) / (2.0 * h);
            assert!(
                (d - matrix[(0, c)]).abs() <= 1e-6 * size,
                "urdf_potential ({c})"
            );
        }
        let h = 1e-4;
        let along = |t: f64| potential(&State::new(0.0, s.q + s.qd * t, s.qd));
        let second = (along(h) - 2.0 * along(0.0) + along(-h)) / (h * h);
        assert!(
            (second - drift).abs() <= 1e-6 * size,
            "urdf_potential's drift"
        );
    }
}

lagrangian! {
    /// The UR5 with a rotor inertia on its first joint: no longer its tree alone, so its
    /// derivatives are the dual numbers'.
    pub struct Ur5Rotor {
        urdf: "tests/robots/ur5.urdf";
        kinetic = urdf_kinetic + 0.1 / 2 * dot(shoulder_pan_joint)^2;
        potential = urdf_potential;
    }
}

lagrangian! {
    /// The UR5 with forces that move with its state: a damper at the tool (its force reads
    /// the velocities, its point the coordinates), a spring on the elbow, and a push along
    /// the tool's own x axis as an input. Still its tree's dynamics, so its derivatives are
    /// the tree's, with the forces' in dual numbers.
    pub struct Ur5Pushed {
        urdf: "tests/robots/ur5.urdf";
        inputs: push;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        force -0.7 * dot(tool0_p) on tool0_p;
        force -3.0 * elbow_joint on elbow_joint;
        force push * tool0_R * [1.0, 0.0, 0.0] on tool0_p;
    }
}

/// The states the checks of a robot's tree run at, each with accelerations q̈: all zero
/// (the identity quaternion for a floating base), at rest, coasting (q̈ = 0), and four
/// random ones with angles in [−3, 3]; a floating base's quaternion, after the first, a
/// random unit one scaled up to 10 % off the sphere, with rates across it.
fn tree_states<const N: usize>(
    seed: u64,
    floating: bool,
) -> Vec<(&'static str, State<N>, SVector<f64, N>)> {
    let mut rng = common::Rng(seed);
    let mut random = |lo: f64, hi: f64| SVector::<f64, N>::from_fn(|_, _| rng.uniform(lo, hi));
    let mut states = vec![
        ("zero", SVector::zeros(), SVector::zeros(), SVector::zeros()),
        (
            "at rest",
            random(-3.0, 3.0),
            SVector::zeros(),
            random(-2.0, 2.0),
        ),
        (
            "coasting",
            random(-3.0, 3.0),
            random(-2.0, 2.0),
            SVector::zeros(),
        ),
    ];
    for _ in 0..4 {
        states.push((
            "random",
            random(-3.0, 3.0),
            random(-2.0, 2.0),
            random(-3.0, 3.0),
        ));
    }
    let mut states_at = Vec::new();
    for (k, (label, mut q, qd, qdd)) in states.into_iter().enumerate() {
        if floating {
            let n = if k == 0 {
                SVector::<f64, 4>::x()
            } else {
                SVector::<f64, 4>::from_fn(|_, _| rng.uniform(-1.0, 1.0)).normalize()
                    * (1.0 + rng.uniform(-0.1, 0.1))
            };
            q.fixed_rows_mut::<4>(3).copy_from(&n);
        }
        states_at.push((label, State::new(0.3, q, qd), qdd));
    }
    states_at
}

/// Whether `model` takes the derivatives of its inverse dynamics from its tree
/// (`Model::eval_inverse_dynamics_derivatives` gives them).
fn takes_its_tree<T: lagrange_runtime::model::Model<N, M>, const N: usize, const M: usize>(
    model: &T,
) -> bool {
    let x =
        lagrange_runtime::model::Point::new(&State::at_rest(SVector::zeros()), &SVector::zeros());
    let mut m = [SMatrix::<f64, N, N>::zeros(); 3];
    let [a, b, c] = &mut m;
    model.eval_inverse_dynamics_derivatives(&x, &[0.0; N], a, b, c, None)
}

/// The derivatives of the inverse dynamics a robot that is its URDF's tree alone takes
/// from its tree (`Model::eval_inverse_dynamics_derivatives`, Carpentier and Mansard's
/// algorithm) are those of the same function in dual numbers, one direction at a time
/// (`inverse_dynamics_derivatives_by_dual_numbers`), every entry to 1e-12 of the largest
/// of its matrix, and so are ∂τ/∂u (the forces' code unrolled against dual numbers of the
/// whole inverse dynamics) and τ itself (the tree's less the forces' against the model's
/// own): on the UR5 (torques on its joints), the Panda (a mimic finger, the
/// file's damping), the mimic slider (a prismatic joint), the locked gripper (a fixed
/// joint inside), the light wrist at the origin and 1 414 m from it, and the floating
/// Solo-12 and G1 (their quaternions up to 10 % off the unit sphere, with rates across
/// it: the rigid tree turned by the normalized quaternion, mapped to (p, n)); at
/// all-zero states (the identity quaternion for a floating base), at rest, moving without
/// acceleration, and at random states with angles in [−π, π]; and a UR5 whose forces
/// move with its state (a damper, a spring, a push in the tool's axes). A model that adds
/// to its tree (a rotor inertia) does not take it.
#[test]
fn the_tree_gives_the_derivatives_of_the_inverse_dynamics() {
    use lagrange_runtime::linearize::{
        inverse_dynamics_derivatives, inverse_dynamics_derivatives_by_dual_numbers,
    };
    use lagrange_runtime::model::Model;

    fn check<T: Dynamics<N, M> + Model<N, M>, const N: usize, const M: usize>(
        name: &str,
        model: &T,
        seed: u64,
        floating: bool,
    ) {
        assert!(
            takes_its_tree(model),
            "{name} takes its derivatives from its tree"
        );
        let u = SVector::<f64, M>::from_fn(|k, _| 0.5 - 0.25 * k as f64);
        for (label, s, qdd) in tree_states(seed, floating) {
            let tree = inverse_dynamics_derivatives(model, &s, &qdd, &u).expect("finite");
            let duals = inverse_dynamics_derivatives_by_dual_numbers(model, &s, &qdd, &u);
            for (what, a, b) in [
                ("∂τ/∂q", &tree.d_q, &duals.d_q),
                ("∂τ/∂q̇", &tree.d_qd, &duals.d_qd),
                ("M", &tree.mass, &duals.mass),
            ] {
                check_close(name, label, what, a, b);
            }
            check_close(name, label, "∂τ/∂u", &tree.d_u, &duals.d_u);
            check_close(name, label, "τ", &tree.forces, &duals.forces);
        }
    }

    /// The tree's matrix against the dual numbers', to 1e-12 of the latter's largest entry.
    fn check_close<const R: usize, const C: usize>(
        name: &str,
        label: &str,
        what: &str,
        a: &SMatrix<f64, R, C>,
        b: &SMatrix<f64, R, C>,
    ) {
        let scale = b.amax().max(1e-3);
        let off = (a - b).amax();
        assert!(
            off <= 1e-12 * scale,
            "{name}, {label}: {what} off by {off:e} of {scale:e}\ntree {a}duals {b}"
        );
    }

    check("UR5", &Ur5::default(), 1, false);
    check("Panda", &Panda::default(), 2, false);
    check("mimic slider", &MimicSlider::default(), 3, false);
    check("locked gripper", &LockedGripper::default(), 4, false);
    check("light wrist", &LightWrist::default(), 5, false);
    check(
        "light wrist at 1 414 m",
        &LightWrist1000::default(),
        6,
        false,
    );
    check("Solo-12", &Solo12::default(), 7, true);
    check("G1", &lagrange_test_models::g1::G1::default(), 8, true);
    check(
        "UR5 with a damper, a spring and a push",
        &Ur5Pushed::default(),
        9,
        false,
    );
    assert!(!takes_its_tree(&Ur5Rotor::default()));
}

/// The accelerations a robot takes from its tree by the articulated-body algorithm
/// (`Model::eval_tree_accelerations`: its URDF's model alone, no constraint but its
/// floating base's) are the KKT solve's of its equations (`constrained::solve`, the sweep's
/// mass matrix and forces, the floating base's quaternion constraint) to 1e-11 of the
/// largest, with and without Baumgarte gains; and for a fixed base the inverse dynamics
/// of the sweep vanishes at them: on the UR5, the locked gripper (a fixed joint inside),
/// the light wrist at the origin and 1 414 m from it, a UR5 with a damper, a spring and a
/// push, the rotor without mass, the floating box, the Solo-12 and the G1 (quaternions up
/// to 10 % off the unit sphere with rates across it, as a drifting simulation has them);
/// at the states of `tree_states` (all zero, at rest, coasting, random). The mimic
/// joints' constraint and a rotor inertia outside the tree keep the KKT solve.
#[test]
fn the_articulated_body_algorithm_gives_the_accelerations_of_the_equations() {
    use lagrange_runtime::constrained::Stabilization;
    use lagrange_runtime::model::Model;

    fn check<T: ConstraintSolver<N, M> + Model<N, M>, const N: usize, const M: usize>(
        name: &str,
        model: &T,
        seed: u64,
        floating: bool,
    ) {
        assert!(
            T::TREE_ACCELERATIONS,
            "{name} takes its tree's accelerations"
        );
        let u = SVector::<f64, M>::from_fn(|k, _| 0.5 - 0.25 * k as f64);
        let gains = Stabilization {
            alpha: 3.0,
            beta: 2.0,
        };
        for (label, s, _) in tree_states(seed, floating) {
            let tree = model.accelerations(&s, &u).expect("finite");
            let stabilized = model
                .stabilized_accelerations(&s, &u, gains)
                .expect("finite");
            #[allow(deprecated)]
            let (kkt, kkt_stabilized) =
                <T::Constraints as lagrange_runtime::model::ConstraintCount>::with(Solves {
                    model,
                    s,
                    u,
                    gains,
                });
            for (what, a, b) in [
                ("q̈", &tree, &kkt),
                ("stabilized q̈", &stabilized, &kkt_stabilized),
            ] {
                let scale = b.amax().max(1.0);
                let off = (a - b).amax();
                assert!(
                    off <= 1e-11 * scale,
                    "{name}, {label}: {what} off by {off:e} of {scale:e}\ntree {a}KKT {b}"
                );
            }
            if !floating {
                let residual = model.inverse_dynamics(&s, &tree, &u);
                let scale = model.mass_matrix(&s, &u).amax() * tree.amax().max(1.0);
                assert!(
                    residual.amax() <= 1e-11 * scale,
                    "{name}, {label}: the inverse dynamics at q̈ is {residual}"
                );
            }
        }
    }

    /// The KKT solve with the model's constraint count, plain and stabilized.
    struct Solves<'a, T, const N: usize, const M: usize> {
        model: &'a T,
        s: State<N>,
        u: SVector<f64, M>,
        gains: Stabilization,
    }

    impl<T: Model<N, M>, const N: usize, const M: usize> lagrange_runtime::model::WithCount
        for Solves<'_, T, N, M>
    {
        type Output = (SVector<f64, N>, SVector<f64, N>);

        #[allow(deprecated)]
        fn run<const K: usize>(self) -> Self::Output {
            let solve = |gains| {
                lagrange_runtime::constrained::solve::<T, N, M, K>(
                    self.model, &self.s, &self.u, gains,
                )
                .expect("finite")
                .accelerations
            };
            (solve(None), solve(Some(self.gains)))
        }
    }

    check("UR5", &Ur5::default(), 1, false);
    check("locked gripper", &LockedGripper::default(), 4, false);
    check("light wrist", &LightWrist::default(), 5, false);
    check(
        "light wrist at 1 414 m",
        &LightWrist1000::default(),
        6,
        false,
    );
    check(
        "UR5 with a damper, a spring and a push",
        &Ur5Pushed::default(),
        9,
        false,
    );
    check("rotor without mass", &Massless::default(), 10, false);
    check("floating box", &FloatingBox::default(), 11, true);
    check("Solo-12", &Solo12::default(), 7, true);
    check("G1", &lagrange_test_models::g1::G1::default(), 8, true);
    const { assert!(!<Panda as Model<9, 0>>::TREE_ACCELERATIONS) };
    const { assert!(!<MimicSlider as Model<2, 1>>::TREE_ACCELERATIONS) };
    const { assert!(!<Ur5Rotor as Model<6, 0>>::TREE_ACCELERATIONS) };
}

lagrangian! {
    /// The documentation's two-link arm on a floating base: the root carries no mass and
    /// the shoulder turns about an axis through it, so the base's turn about that axis and
    /// the shoulder's are one motion.
    pub struct FloatingArm {
        urdf: "lagrange-runtime/docs/two_link_arm.urdf" floating;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

/// A floating base whose motion a joint repeats (the massless root of an arm whose
/// shoulder turns about an axis through it) has no unique accelerations: the base's
/// articulated inertia is singular to rounding, its pivots are held to the mass matrix's
/// test, and `accelerations` gives the KKT solve's error at every state and shoulder
/// angle, instead of the one solution rounding would pick (found by a probe: 48 of 200
/// angles returned numbers).
#[test]
fn a_floating_base_that_a_joint_repeats_has_no_accelerations() {
    use lagrange_runtime::model::Model;
    let model = FloatingArm::default();
    const { assert!(<FloatingArm as Model<9, 0>>::TREE_ACCELERATIONS) };
    for k in 0..200 {
        let shoulder = -3.0 + 6.0 * k as f64 / 200.0;
        let q = [0.1, 0.2, 0.3, 1.0, 0.0, 0.0, 0.0, shoulder, -0.7];
        let qd = if k % 2 == 0 {
            [0.0; 9]
        } else {
            [0.1, 0.2, 0.3, 0.0, 0.5, -0.4, 0.3, 1.0, -2.0]
        };
        let s = State::new(0.0, SVector::from(q), SVector::from(qd));
        assert!(
            model.accelerations(&s, &SVector::zeros()).is_err(),
            "shoulder at {shoulder}"
        );
    }
}

/// The same at a tilted base and off the unit sphere, by the articulated-body algorithm
/// and by `linearize` (the KKT solve): random unit quaternions times |n| from 1e-3 to 1e3,
/// at rest and moving, while the floating box and the Solo-12 keep their accelerations
/// and linearizations at the same states. A probe found 0.2 to 1.6 % of tilted states
/// answered by the base's fixed-order Cholesky (its singular pivot up to 1e-8 of its
/// diagonal entry when the null vector's last component is small), and half of those at
/// |n| = 1e3 by the KKT solve (ρ JᵀJ of the base's mass, 1e7 times the quaternion's own
/// entries, cancelling their digits: the singular pivot at ±1e-9).
#[test]
fn a_floating_base_that_a_joint_repeats_has_no_accelerations_at_any_turn_or_scale() {
    use lagrange_runtime::linearize::linearize;
    fn state<const N: usize>(rng: &mut common::Rng, norm: f64, moving: bool) -> State<N> {
        let mut q = SVector::<f64, N>::from_fn(|_, _| rng.uniform(-3.0, 3.0));
        let n = SVector::<f64, 4>::from_fn(|_, _| rng.uniform(-1.0, 1.0)).normalize();
        q.fixed_rows_mut::<4>(3).copy_from(&(n * norm));
        let mut qd = SVector::<f64, N>::from_fn(|_, _| rng.uniform(-1.0, 1.0));
        if !moving {
            qd.fill(0.0);
        }
        State::new(0.0, q, qd)
    }
    let (arm, boxed, solo) = (
        FloatingArm::default(),
        FloatingBox::default(),
        Solo12::default(),
    );
    let u = SVector::zeros();
    let mut rng = common::Rng(0x5eed_4b1d);
    for norm in [1e-3, 0.1, 1.0, 10.0, 1e3] {
        for k in 0..400 {
            let moving = k % 2 == 1;
            let s = state::<9>(&mut rng, norm, moving);
            assert!(arm.accelerations(&s, &u).is_err(), "|n| = {norm}, {s:?}");
            if k % 8 == 0 {
                assert!(linearize(&arm, &s, &u).is_err(), "|n| = {norm}, {s:?}");
                let s = state::<7>(&mut rng, norm, moving);
                assert!(boxed.accelerations(&s, &u).is_ok(), "box, |n| = {norm}");
                assert!(linearize(&boxed, &s, &u).is_ok(), "box, |n| = {norm}");
                let s = state::<19>(&mut rng, norm, moving);
                let torques = SVector::<f64, 18>::zeros();
                assert!(
                    solo.accelerations(&s, &torques).is_ok(),
                    "Solo-12, |n| = {norm}"
                );
                assert!(
                    linearize(&solo, &s, &torques).is_ok(),
                    "Solo-12, |n| = {norm}"
                );
            }
        }
    }
}

/// The inverse dynamics a robot that is its URDF's tree alone takes from its tree (the
/// recursive Newton–Euler algorithm, `Model::eval_tree_inverse_dynamics`) is the model's
/// own (the sweep or the generic passes, `eval_inverse_dynamics_in`) to 1e-12 of the
/// largest entry: on the UR5, the Panda (a mimic finger: constraints do not enter), the
/// mimic slider (a prismatic joint, a torque input), the locked gripper, the light wrist at
/// the origin and 1 414 m from it, the UR5 with a damper, a spring and a push, the rotor
/// without mass, the floating box, the Solo-12 and the G1 (quaternions up to 10 % off the
/// unit sphere with rates across it); at all-zero states, at rest, coasting and at random
/// states. A rotor inertia outside the tree keeps the model's own.
#[test]
fn the_tree_gives_the_inverse_dynamics() {
    use lagrange_runtime::model::{Model, Point};

    fn check<T: Dynamics<N, M> + Model<N, M>, const N: usize, const M: usize>(
        name: &str,
        model: &T,
        seed: u64,
        floating: bool,
    ) {
        let u = SVector::<f64, M>::from_fn(|k, _| 0.5 - 0.25 * k as f64);
        for (label, s, qdd) in tree_states(seed, floating) {
            let x = Point::new(&s, &u);
            let mut tree = [0.0; N];
            assert!(
                model.eval_tree_inverse_dynamics(&x, &qdd.into(), &mut tree),
                "{name} takes its tree's inverse dynamics"
            );
            let tree = SVector::from(tree);
            let own = SVector::from(model.eval_inverse_dynamics_in(&x, &qdd.into()));
            assert_eq!(model.inverse_dynamics(&s, &qdd, &u), tree, "{name}");
            let scale = own.amax().max(1e-3);
            let off = (tree - own).amax();
            assert!(
                off <= 1e-12 * scale,
                "{name}, {label}: τ off by {off:e} of {scale:e}\ntree {tree}own {own}"
            );
        }
    }

    check("UR5", &Ur5::default(), 1, false);
    check("Panda", &Panda::default(), 2, false);
    check("mimic slider", &MimicSlider::default(), 3, false);
    check("locked gripper", &LockedGripper::default(), 4, false);
    check("light wrist", &LightWrist::default(), 5, false);
    check(
        "light wrist at 1 414 m",
        &LightWrist1000::default(),
        6,
        false,
    );
    check(
        "UR5 with a damper, a spring and a push",
        &Ur5Pushed::default(),
        9,
        false,
    );
    check("rotor without mass", &Massless::default(), 10, false);
    check("floating box", &FloatingBox::default(), 11, true);
    check("Solo-12", &Solo12::default(), 7, true);
    check("G1", &lagrange_test_models::g1::G1::default(), 8, true);
    let x = Point::new(&State::at_rest(SVector::zeros()), &SVector::zeros());
    assert!(!Ur5Rotor::default().eval_tree_inverse_dynamics(&x, &[0.0; 6], &mut [0.0; 6]));
}

lagrangian! {
    /// Two joints about one axis, a link without mass between them.
    pub struct CoincidentAxes {
        urdf: "tests/robots/coincident_axes.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

/// A robot whose joint repeats another's motion (the same axis, nothing with mass between
/// them) has a singular mass matrix: the articulated-body algorithm meets a pivot that is
/// zero to rounding and holds it to the test the factorization of M holds its pivots to,
/// so `accelerations` says the mass matrix is singular, as the KKT solve does, instead of
/// dividing by the rounding; at rest and moving, at several angles.
#[test]
fn coincident_joint_axes_make_the_mass_matrix_singular() {
    use lagrange_runtime::model::Model;
    let model = CoincidentAxes::default();
    const { assert!(<CoincidentAxes as Model<2, 0>>::TREE_ACCELERATIONS) };
    for (q, qd) in [
        ([0.0, 0.0], [0.0, 0.0]),
        ([0.4, -1.1], [0.3, 2.0]),
        ([2.5, 0.2], [-1.0, 0.5]),
    ] {
        let s = State::new(0.0, SVector::from(q), SVector::from(qd));
        match model.accelerations(&s, &SVector::zeros()) {
            Err(DynamicsError::SingularMassMatrix | DynamicsError::MissingVelocity { .. }) => {}
            other => panic!("at {q:?}: {other:?}"),
        }
    }
}

lagrangian! {
    /// The Panda with its hand's origin as a candidate point contact: a fixed-base robot
    /// whose contact-constrained derivatives take the tree's.
    pub struct PandaHolding {
        urdf: "tests/robots/panda.urdf";
        contact hand = panda_hand_p;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        dissipation = urdf_dissipation;
    }
}

/// The constrained solves that robots differentiate implicitly with their tree's
/// derivatives of the inverse dynamics (the mimic joints' constraint, a held contact)
/// against central differences of the solves themselves: `linearize` of the Panda (its
/// mimic finger) and of the mimic slider (a prismatic joint tied to a revolute one, a
/// torque input), `linearize_contacts` of the Panda holding its hand; at rest away from
/// zero and at a random moving state.
#[test]
fn constrained_robots_linearize_with_their_tree() {
    use common::derivatives::agree_with_central_differences;
    use lagrange_runtime::linearize::linearize;

    let panda = Panda::default();
    let holding = PandaHolding::default();
    let slider = MimicSlider::default();
    assert!(takes_its_tree(&holding));
    let mut rng = common::Rng(47);
    for moving in [false, true] {
        let mut q = SVector::<f64, 9>::from_fn(|_, _| rng.uniform(-1.5, 1.5));
        // The fingers open 1–3 cm, the second as the first.
        q[7] = rng.uniform(0.01, 0.03);
        q[8] = q[7];
        let mut qd = SVector::<f64, 9>::from_fn(|_, _| rng.uniform(-1.0, 1.0));
        qd[8] = qd[7];
        if !moving {
            qd = SVector::zeros();
        }
        let s = State::new(0.0, q, qd);
        let none = SVector::<f64, 0>::zeros();
        let label = if moving { "moving" } else { "at rest" };
        let lin = linearize(&panda, &s, &none).expect("regular");
        agree_with_central_differences(
            &lin,
            |s, u| panda.accelerations(s, u).unwrap(),
            1e-6,
            &format!("Panda, {label}"),
        );
        let lin = holding
            .linearize_contacts(&s, &none, &PandaHoldingContacts::ALL)
            .expect("regular");
        agree_with_central_differences(
            &lin,
            |s, u| {
                holding
                    .contact_dynamics(s, u, &PandaHoldingContacts::ALL)
                    .unwrap()
                    .accelerations
            },
            1e-6,
            &format!("Panda holding its hand, {label}"),
        );
        let theta = rng.uniform(-2.0, 2.0);
        let rate = if moving { rng.uniform(-1.0, 1.0) } else { 0.0 };
        let s = State::new(
            0.0,
            SVector::from([theta, 0.1 * theta + 0.02]),
            SVector::from([rate, 0.1 * rate]),
        );
        let u = SVector::from([0.3]);
        let lin = linearize(&slider, &s, &u).expect("regular");
        agree_with_central_differences(
            &lin,
            |s, u| slider.accelerations(s, u).unwrap(),
            1e-6,
            &format!("mimic slider, {label}"),
        );
    }
}

/// The mass matrix from a robot's tree (`tree_dynamics::mass_matrix`, the
/// composite-rigid-body algorithm, the floating base through Dᵀ M_rigid D), which
/// `mass_matrix` returns for a robot whose kinetic energy is its tree's, is ∂²L/∂q̇² of
/// the model's equations (its sweep), every entry to 1e-13 of the largest: the UR5,
/// the Panda, the light wrist 1 414 m from the origin, and the Solo-12 and the G1 with
/// their quaternions up to 10 % off the unit sphere, at all-zero and random states.
#[test]
fn the_tree_gives_the_mass_matrix() {
    use lagrange_runtime::model::{Model, Point};
    use lagrange_runtime::tree_dynamics::mass_matrix;

    macro_rules! check {
        ($name:expr, $model:ty, $n:literal, $floating:expr, $seed:expr) => {{
            let model = <$model>::default();
            let mut rng = common::Rng($seed);
            for k in 0..5 {
                let mut s = State::<$n>::new(0.0, SVector::zeros(), SVector::zeros());
                if k > 0 {
                    s.q = SVector::from_fn(|_, _| rng.uniform(-3.0, 3.0));
                    s.qd = SVector::from_fn(|_, _| rng.uniform(-2.0, 2.0));
                }
                if $floating {
                    let n = SVector::<f64, 4>::from_fn(|_, _| rng.uniform(-1.0, 1.0)).normalize();
                    let scale = if k == 0 {
                        1.0
                    } else {
                        1.0 + rng.uniform(-0.1, 0.1)
                    };
                    s.q.fixed_rows_mut::<4>(3).copy_from(&(n * scale));
                }
                let u = SVector::zeros();
                // The sweep's, ∂²L/∂q̇² with the rest of the equations.
                let want = model.eval_equations_in(&Point::new(&s, &u)).mass;
                let got = mass_matrix(&<$model>::__ROBOT_TREE, &Point::new(&s, &u));
                assert_eq!(model.mass_matrix(&s, &u), got, "{} takes its tree's", $name);
                let off = (got - want).amax();
                assert!(
                    off <= 1e-13 * want.amax(),
                    "{}, state {k}: off by {off:e}\ntree {got}model {want}",
                    $name
                );
            }
        }};
    }
    check!("UR5", Ur5, 6, false, 1);
    check!("Panda", Panda, 9, false, 2);
    check!("light wrist at 1 414 m", LightWrist1000, 4, false, 3);
    check!("Solo-12", Solo12, 19, true, 4);
    check!("G1", lagrange_test_models::g1::G1, 36, true, 5);
}
