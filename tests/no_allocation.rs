//! Evaluating a model allocates nothing: every dual number lives on the stack.
//! A counting global allocator proves it for every `Dynamics` method, and for
//! `accelerations`, `mass_matrix` and a step of each unconstrained integrator of the
//! 64-link chain (past the unrolled fast path: the sweep).

#[macro_use]
mod common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

include!("common/counting_allocator.rs");

lagrangian! {
    /// A driven, damped 2-link arm: every kind of term the runtime evaluates.
    struct Arm {
        parameters: m1 = 1.0, m2 = 0.7, l1 = 1.0, l2 = 0.8, g = 9.81, b = 0.05;
        coordinates: q1, q2;
        inputs: tau;
        let x1 = l1 * sin(q1);
        let y1 = -l1 * cos(q1);
        let x2 = x1 + l2 * sin(q1 + q2);
        let y2 = y1 - l2 * cos(q1 + q2);
        kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * (dot(x2)^2 + dot(y2)^2);
        potential = g * (m1*y1 + m2*y2);
        dissipation = b/2 * (dot(q1)^2 + dot(q2)^2);
        force tau * cos(t) on q2;
        force 0.3 on x2;
    }
}

#[test]
fn evaluating_a_model_does_not_allocate() {
    let model = Arm::default();
    let s = State::new(0.4, SVector::from([0.3, -0.7]), SVector::from([1.1, 0.4]));
    let u = SVector::from([0.5]);
    let mut sink = 0.0;
    let n = allocations_during(|| {
        let qdd = model.accelerations(&s, &u).unwrap();
        sink += qdd.sum();
        sink += model.mass_matrix(&s, &u).sum();
        sink += model.momenta(&s, &u).sum();
        sink += model.energy(&s, &u);
        sink += model.lagrangian(&s, &u);
        sink += model.generalized_forces(&s, &u).sum();
        sink += model.inverse_dynamics(&s, &qdd, &u).sum();
    });
    assert_eq!(n, 0, "allocations while evaluating the model");
    assert!(sink.is_finite());
}

#[test]
fn errors_do_not_allocate_either() {
    let model = Arm::default();
    let s = State::new(0.0, SVector::from([f64::NAN, 0.0]), SVector::zeros());
    let mut result = None;
    let n = allocations_during(|| result = Some(model.accelerations(&s, &SVector::zeros())));
    assert_eq!(n, 0);
    assert!(matches!(
        result,
        Some(Err(DynamicsError::NonFiniteState { .. }))
    ));
}

// A slider with a pendulum in Cartesian coordinates: the constrained solver's paths.
use lagrange_test_models::SliderPendulum;

#[test]
fn the_constrained_solver_does_not_allocate() {
    use lagrange_runtime::constrained::Stabilization;
    let model = SliderPendulum::default();
    let s = State::new(
        0.0,
        SVector::from([0.1, 0.0, 0.5, 0.6]),
        SVector::from([0.3, 0.0, 0.3 + 0.6 * 0.7, -0.4 * 0.7]),
    );
    let u = SVector::zeros();
    let mut sink = 0.0;
    let n = allocations_during(|| {
        sink += model.accelerations(&s, &u).unwrap().sum();
        sink += model.multipliers(&s, &u).unwrap().sum();
        sink += model.constraint_residuals(&s, &u).sum();
        sink += model.reaction_forces(&s, &u).unwrap().sum();
        sink += model.violation(&s, &u).position;
        let stabilization = Stabilization {
            alpha: 5.0,
            beta: 5.0,
        };
        sink += model
            .stabilized_accelerations(&s, &u, stabilization)
            .unwrap()
            .sum();
        sink += model.project(&s, &u, &[0], 1e-12).unwrap().q.sum();
    });
    assert_eq!(n, 0, "allocations in the constrained solver");
    assert!(sink.is_finite());
}

/// The contacts' solve (`contact_dynamics`, `impulse_dynamics`) on the Solo-12 standing on
/// its four feet, and on three with a regularization.
#[test]
fn contact_dynamics_does_not_allocate() {
    use lagrange_runtime::contact::ContactSettings;
    use lagrange_test_models::robots::{Solo12, Solo12Contacts};
    let solo = Solo12::default();
    let mut q = SVector::<f64, 19>::zeros();
    q[3] = 1.0;
    for leg in 0..4 {
        q[8 + 3 * leg] = 0.8;
        q[9 + 3 * leg] = -1.6;
    }
    let mut qd = SVector::<f64, 19>::zeros();
    qd[7] = 0.3;
    qd[2] = -0.2;
    let s = State::new(0.0, q, qd);
    let u = SVector::from_fn(|i, _| if i < 6 { 0.0 } else { 0.1 * i as f64 });
    let three = Solo12Contacts {
        hr: false,
        ..Solo12Contacts::ALL
    };
    let settings = ContactSettings {
        regularization: Some(1e-8),
        velocity_gain: 10.0,
        ..ContactSettings::default()
    };
    let mut sink = 0.0;
    let n = allocations_during(|| {
        let out = solo.contact_dynamics(&s, &u, &Solo12Contacts::ALL).unwrap();
        sink += out.accelerations.sum() + out.forces.fl.sum();
        let out = solo
            .contact_dynamics_with(&s, &u, &three, &settings)
            .unwrap();
        sink += out.accelerations.sum() + out.forces.hl.sum();
        let (after, impulses) = solo
            .impulse_dynamics(&s, &Solo12Contacts::ALL, 0.0)
            .unwrap();
        sink += after.qd.sum() + impulses.hr.sum();
    });
    assert_eq!(n, 0, "allocations in the contacts' solve");
    assert!(sink.is_finite());
}

#[test]
fn integrator_steps_do_not_allocate() {
    use lagrange_runtime::simulate::{
        DormandPrince, Integrator, Projected, Rattle, Rk4, Variational,
    };
    let arm = Arm::default();
    let s = State::new(0.0, SVector::from([0.3, -0.7]), SVector::from([1.1, 0.4]));
    let mut inputs = |_: f64, _: &State<2>| SVector::from([0.5]);
    let dp = DormandPrince::default();
    let vi = Variational::new(1e-3);
    let mut dp_memory = dp.start(&arm, &s, &mut inputs).unwrap();
    let mut vi_memory = vi.start(&arm, &s, &mut inputs).unwrap();
    let slider = SliderPendulum::default();
    let c = State::new(0.0, SVector::from([0.1, 0.0, 0.5, 0.6]), SVector::zeros());
    let mut none = |_: f64, _: &State<4>| SVector::zeros();
    let rattle = Rattle::new(1e-3);
    let projected = Projected::new(Rk4::new(1e-3));
    let mut rattle_memory = rattle.start(&slider, &c, &mut none).unwrap();
    let mut sink = 0.0;
    let n = allocations_during(|| {
        sink += Rk4::new(1e-3)
            .step(&arm, &mut (), &s, &mut inputs, 1.0)
            .unwrap()
            .t;
        sink += dp
            .step(&arm, &mut dp_memory, &s, &mut inputs, 1.0)
            .unwrap()
            .t;
        sink += vi
            .step(&arm, &mut vi_memory, &s, &mut inputs, 1.0)
            .unwrap()
            .t;
        sink += rattle
            .step(&slider, &mut rattle_memory, &c, &mut none, 1.0)
            .unwrap()
            .t;
        sink += projected
            .step(&slider, &mut (), &c, &mut none, 1.0)
            .unwrap()
            .t;
    });
    assert_eq!(n, 0, "allocations in an integrator step");
    assert!(sink.is_finite());
}

use lagrange_test_models::Chain64;

#[test]
fn a_64_link_chain_evaluates_and_steps_without_allocating() {
    use lagrange_runtime::simulate::{DormandPrince, Integrator, Rk4, Variational};
    let chain = Chain64::new(0.8, 0.6, 9.81);
    let q = SVector::<f64, 64>::from_fn(|i, _| 0.3 * (0.7 * i as f64).sin());
    let qd = SVector::<f64, 64>::from_fn(|i, _| 0.2 * (1.3 * i as f64).cos());
    let s = State::new(0.0, q, qd);
    let u = SVector::zeros();
    let mut inputs = |_: f64, _: &State<64>| SVector::zeros();
    let dp = DormandPrince::default();
    let vi = Variational::new(1e-3);
    let mut dp_memory = dp.start(&chain, &s, &mut inputs).unwrap();
    let mut vi_memory = vi.start(&chain, &s, &mut inputs).unwrap();
    let mut sink = 0.0;
    let n = allocations_during(|| {
        sink += chain.accelerations(&s, &u).unwrap().sum();
        sink += chain.mass_matrix(&s, &u).sum();
        sink += Rk4::new(1e-3)
            .step(&chain, &mut (), &s, &mut inputs, 1.0)
            .unwrap()
            .t;
        sink += dp
            .step(&chain, &mut dp_memory, &s, &mut inputs, 1.0)
            .unwrap()
            .t;
        sink += vi
            .step(&chain, &mut vi_memory, &s, &mut inputs, 1.0)
            .unwrap()
            .t;
    });
    assert_eq!(n, 0, "allocations with 64 coordinates");
    assert!(sink.is_finite());
}

/// Exact derivatives against central differences (`common::derivatives`). The slider's
/// structured states hang the bob below it (at q = 0 the rod's gradient vanishes). The
/// 64-link chain is the one `tests/fast_path.rs` checks.
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("Arm", &Arm::default()).standard().check();
    let slider = SliderPendulum::default();
    Derivatives::new("SliderPendulum", &slider)
        .structured_at(SVector::from([0.0, 0.0, 0.0, slider.l]))
        .random(3)
        .check();
}

/// The observer-based controller's update (measurement update, feedback, limits,
/// integrals, prediction, record) allocates nothing: its buffers are made when it is built.
#[test]
fn an_observer_controller_updates_without_allocating() {
    use lagrange_runtime::control::{DrivenInputs, ObserverController};
    use lagrange_runtime::nalgebra::DMatrix;
    use lagrange_runtime::simulate::SampledController;
    let model = Arm::default();
    let rest = State::at_rest(SVector::zeros());
    let lin = lagrange_runtime::linearize::linearize(&model, &rest, &SVector::zeros()).unwrap();
    let all = DrivenInputs::all();
    let c = DMatrix::from_row_slice(2, 4, &[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    let plant = ObserverController::plant(&lin, &all, 0.01, &c).unwrap();
    let (k, _) = plant
        .select_outputs(&[1])
        .unwrap()
        .dlqi(&DMatrix::identity(5, 5), &DMatrix::identity(1, 1))
        .unwrap();
    let (m, _) = plant
        .dlqe(
            &(DMatrix::identity(4, 4) * 1e-3),
            &(DMatrix::identity(2, 2) * 1e-4),
        )
        .unwrap();
    let mut controller = ObserverController::new(&lin, &all, 0.01, &c, &[1], &k, &m)
        .unwrap()
        .with_limits(SVector::from([-0.1]), SVector::from([0.1]))
        .unwrap()
        .with_reference_schedule(|t, r| r[0] = 0.2 * t)
        .recording(&["q1_hat", "q2_hat", "dq1_hat", "dq2_hat", "xi"])
        .unwrap();
    let s = State::new(0.1, SVector::from([0.05, -0.1]), SVector::from([0.2, 0.0]));
    let mut sink = 0.0;
    let n = allocations_during(|| {
        for k in 0..10 {
            sink += controller.update(0.01 * f64::from(k), &s)[0];
            sink += controller.state().iter().sum::<f64>();
        }
    });
    assert_eq!(n, 0, "allocations while the controller updates");
    assert!(sink.is_finite() && controller.saturated_samples() > 0);
}

/// `jacobians` allocates nothing, by every route: unrolled (the Arm, the UR5, the
/// Solo-12), by the dual-number passes (the 64-link chain) and from a robot's tree (the
/// G1's links, sums of them and momenta; the Solo-12's, by the tests' hidden method).
#[test]
fn jacobians_do_not_allocate() {
    use lagrange_test_models::robots::{Solo12, Ur5};
    use lagrange_test_models::G1;
    let arm = Arm::default();
    let s = State::new(0.4, SVector::from([0.3, -0.7]), SVector::from([1.1, 0.4]));
    let (ur5, solo, g1, chain) = (
        Ur5::default(),
        Solo12::default(),
        G1::default(),
        Chain64::default(),
    );
    let mut q = SVector::<f64, 36>::from_fn(|i, _| 0.1 * i as f64);
    q.fixed_rows_mut::<4>(3)
        .copy_from(&SVector::from([1.0, 0.0, 0.0, 0.0]));
    let g1_state = State::new(0.0, q, SVector::from_fn(|i, _| 0.05 * i as f64));
    let mut q = SVector::<f64, 19>::from_fn(|i, _| 0.1 * i as f64);
    q.fixed_rows_mut::<4>(3)
        .copy_from(&SVector::from([1.0, 0.0, 0.0, 0.0]));
    let solo_state = State::new(0.0, q, SVector::from_fn(|i, _| 0.05 * i as f64));
    let ur5_state = State::new(0.0, SVector::from([0.1; 6]), SVector::from([0.2; 6]));
    let chain_state = State::new(0.0, SVector::from([0.1; 64]), SVector::from([0.2; 64]));
    let mut sink = 0.0;
    let n = allocations_during(|| {
        sink += arm.jacobians(&s, &SVector::from([0.5])).x2.drift[0];
        sink += ur5.jacobians(&ur5_state, &SVector::zeros()).tool0_p.drift[0];
        let j = solo.jacobians(&solo_state, &SVector::zeros());
        sink += j.FL_FOOT_p.matrix[(0, 0)] + j.urdf_com.drift[2];
        let j = solo.__jacobians_from_tree(&solo_state, &SVector::zeros());
        sink += j.FL_FOOT_p.matrix[(0, 0)] + j.urdf_com.drift[2];
        let j = g1.jacobians(&g1_state, &SVector::zeros());
        sink += j.left_ankle_roll_link_p.drift[0] + j.urdf_angular_momentum.drift[0];
        sink += j.urdf_potential.matrix[(0, 7)];
        let j = chain.jacobians(&chain_state, &SVector::zeros());
        sink += j.x64.matrix[(0, 63)] + j.y1.drift[0];
    });
    assert_eq!(n, 0, "allocations in jacobians");
    assert!(sink.is_finite());
}
