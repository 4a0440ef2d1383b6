//! Contacts chosen at run time (`contact NAME = p;`, `contact NAME = frame(R, p);`)
//! against closed forms: a uniform rod whose end is held by a point contact is a pendulum
//! about that end (I_A θ̈ = −m g (l/2) cos θ, I_A = m l²/3, and the force is m a_G + m g);
//! an impact on that end keeps the angular momentum about it; a box standing on a flat foot
//! (a frame contact) pushed sideways is held by a force and a moment of its own. The
//! Solo-12 and the G1 against Pinocchio's `constraintDynamics` and `impulseDynamics`
//! are in `tests/contact_robots.rs`.

use lagrange_runtime::contact::ContactSettings;
use lagrange_runtime::prelude::*;

lagrangian! {
    /// A uniform rod (mass m, length l) in the vertical x–z plane: its centre (x, z) and its
    /// angle θ from the x axis towards z; each end a candidate point contact.
    pub struct Rod {
        parameters: m = 1.5, l = 0.8, g = 9.81;
        coordinates: x, z, theta;
        let a = [x - l/2 * cos(theta), 0, z - l/2 * sin(theta)];
        let b = [x + l/2 * cos(theta), 0, z + l/2 * sin(theta)];
        contact end_a = a;
        contact end_b = b;
        kinetic = m/2 * (dot(x)^2 + dot(z)^2) + m * l^2 / 24 * dot(theta)^2;
        potential = m * g * z;
    }
}

lagrangian! {
    /// A box (mass m, inertia ic about its centre, centre at height h above its foot) in
    /// the x–z plane, pushed sideways at its centre by F; its foot a flat contact, and a
    /// second flat contact at its top (`lid`, for a dependent pair).
    pub struct Box2 {
        parameters: m = 2.0, ic = 0.3, h = 0.25, g = 9.81;
        coordinates: x, z, theta;
        inputs: push;
        let rotation = rot_y(theta);
        let foot = [x, 0, z] + rotation * [0, 0, -h];
        contact sole = frame(rotation, foot);
        contact lid = frame(rotation, [x, 0, z] + rotation * [0, 0, h]);
        kinetic = m/2 * (dot(x)^2 + dot(z)^2) + ic/2 * dot(theta)^2;
        potential = m * g * z;
        force [push, 0, 0] on [x, 0, z];
    }
}

/// The box on its foot alone.
const ON_SOLE: Box2Contacts = Box2Contacts {
    sole: true,
    lid: false,
};

const NO_INPUTS: SVector<f64, 0> =
    SVector::from_array_storage(lagrange_runtime::nalgebra::ArrayStorage([[]]));

/// The rod's state with end A at the origin, at angle θ turning at ω, the centre moving
/// with end A at rest plus `v` (the velocity of the whole rod, added).
fn rod_state(rod: &Rod, theta: f64, omega: f64, v: [f64; 2]) -> State<3> {
    let (c, s) = (theta.cos(), theta.sin());
    let half = rod.l / 2.0;
    State::new(
        0.0,
        SVector::from([half * c, half * s, theta]),
        SVector::from([-half * s * omega + v[0], half * c * omega + v[1], omega]),
    )
}

fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: got {got:e}, want {want:e}"
    );
}

#[test]
fn a_rod_held_at_one_end_swings_as_a_pendulum_about_it() {
    let rod = Rod::default();
    let (m, l, g, half) = (rod.m, rod.l, rod.g, rod.l / 2.0);
    let active = RodContacts {
        end_a: true,
        end_b: false,
    };
    for (theta, omega) in [
        (0.0, 0.0),
        (0.4, 0.0),
        (1.1, -2.3),
        (-0.7, 1.7),
        (std::f64::consts::FRAC_PI_2, 3.0),
    ] {
        let s = rod_state(&rod, theta, omega, [0.0, 0.0]);
        let out = rod.contact_dynamics(&s, &NO_INPUTS, &active).unwrap();
        let theta_dd = -3.0 * g * theta.cos() / (2.0 * l);
        close(out.accelerations[2], theta_dd, 1e-12, "θ̈");
        // The centre's acceleration about the held end, and the force that makes it.
        let (c, s_) = (theta.cos(), theta.sin());
        let ax = half * (-s_ * theta_dd - c * omega * omega);
        let az = half * (c * theta_dd - s_ * omega * omega);
        close(out.accelerations[0], ax, 1e-12, "ẍ");
        close(out.accelerations[1], az, 1e-12, "z̈");
        let f = out.forces.end_a;
        close(f[0], m * ax, 1e-12, "F_x");
        close(f[1], 0.0, 1e-12, "F_y (out of the plane)");
        close(f[2], m * az + m * g, 1e-12, "F_z");
        assert_eq!(
            out.forces.end_b,
            SVector::<f64, 3>::zeros(),
            "an inactive contact has no force"
        );
    }
}

#[test]
fn no_active_contact_is_the_free_motion() {
    let rod = Rod::default();
    let s = rod_state(&rod, 0.3, 1.2, [0.4, -0.2]);
    let out = rod
        .contact_dynamics(&s, &NO_INPUTS, &RodContacts::NONE)
        .unwrap();
    let free = rod.accelerations(&s, &NO_INPUTS).unwrap();
    assert_eq!(out.accelerations, free);
    assert_eq!(out.forces, RodContactForces::default());
}

#[test]
fn both_ends_are_dependent_and_named_unless_regularized() {
    let rod = Rod::default();
    let s = rod_state(&rod, 0.0, 0.0, [0.0, 0.0]);
    let err = rod
        .contact_dynamics(&s, &NO_INPUTS, &RodContacts::ALL)
        .unwrap_err();
    match &err {
        DynamicsError::DependentContacts { contacts } => {
            assert_eq!(contacts, &["end_a", "end_b"], "{err}");
        }
        other => panic!("expected DependentContacts, got {other:?}"),
    }
    assert!(err.to_string().contains("`end_a`, `end_b`"), "{err}");
    // Regularized: the forces of least norm, by symmetry half the weight at each end.
    let settings = ContactSettings {
        regularization: Some(1e-6),
        ..ContactSettings::default()
    };
    let out = rod
        .contact_dynamics_with(&s, &NO_INPUTS, &RodContacts::ALL, &settings)
        .unwrap();
    let weight = rod.m * rod.g;
    for f in [out.forces.end_a, out.forces.end_b] {
        close(f[0], 0.0, 1e-10, "F_x");
        close(f[2], weight / 2.0, 1e-10, "F_z");
    }
    assert!(out.accelerations.amax() < 1e-10, "{}", out.accelerations);
}

#[test]
fn an_impact_on_one_end_keeps_the_angular_momentum_about_it() {
    let rod = Rod::default();
    let (m, l, half) = (rod.m, rod.l, rod.l / 2.0);
    let active = RodContacts {
        end_a: true,
        end_b: false,
    };
    for theta in [0.0, 0.35, -0.9] {
        // Falling straight down at 1.3 m/s, end A touching the ground.
        let v = 1.3;
        let s = rod_state(&rod, theta, 0.0, [0.0, -v]);
        let energy = rod.kinetic_energy(&s, &NO_INPUTS);
        let (after, impulses) = rod.impulse_dynamics(&s, &active, 0.0).unwrap();
        // Inelastic: A comes to rest and the rod turns about it, with the angular momentum
        // about A it had, −m v (l/2) cos θ = (m l²/3) ω⁺.
        let omega = -3.0 * v * theta.cos() / (2.0 * l);
        close(after.qd[2], omega, 1e-12, "ω⁺");
        close(after.qd[0], -half * theta.sin() * omega, 1e-12, "ẋ⁺");
        close(after.qd[1], half * theta.cos() * omega, 1e-12, "ż⁺");
        // The impulse is the change of the linear momentum.
        close(impulses.end_a[0], m * after.qd[0], 1e-12, "Λ_x");
        close(impulses.end_a[2], m * (after.qd[1] + v), 1e-12, "Λ_z");
        assert!(rod.kinetic_energy(&after, &NO_INPUTS) <= energy);
        // Elastic: A's velocity reverses, the kinetic energy is kept.
        let (bounced, _) = rod.impulse_dynamics(&s, &active, 1.0).unwrap();
        let j = rod.jacobians(&bounced, &NO_INPUTS).a.matrix;
        let (before_a, after_a) = (j * s.qd, j * bounced.qd);
        for k in 0..3 {
            close(after_a[k], -before_a[k], 1e-12, "A's velocity reversed");
        }
        close(
            rod.kinetic_energy(&bounced, &NO_INPUTS),
            energy,
            1e-12,
            "T kept",
        );
    }
}

#[test]
fn a_box_on_a_flat_foot_is_held_by_a_force_and_a_moment() {
    let body = Box2::default();
    let push = 3.0;
    let s = State::new(0.0, SVector::from([0.0, body.h, 0.0]), SVector::zeros());
    let u = SVector::from([push]);
    let out = body.contact_dynamics(&s, &u, &ON_SOLE).unwrap();
    assert!(out.accelerations.amax() < 1e-14, "{}", out.accelerations);
    // Moment first (world axes, about the foot), then the force: the ground pushes back
    // against the push and holds the weight, and its moment cancels the push's h·F.
    let want = [0.0, -body.h * push, 0.0, -push, 0.0, body.m * body.g];
    for (k, (&got, &want)) in out.forces.sole.iter().zip(&want).enumerate() {
        close(got, want, 1e-12, &format!("sole[{k}]"));
    }
}

#[test]
fn contact_settings_are_checked() {
    let rod = Rod::default();
    let s = rod_state(&rod, 0.2, 0.0, [0.0, 0.0]);
    let bad = [
        ContactSettings {
            velocity_gain: -1.0,
            ..ContactSettings::default()
        },
        ContactSettings {
            regularization: Some(0.0),
            ..ContactSettings::default()
        },
        ContactSettings {
            tolerance: f64::NAN,
            ..ContactSettings::default()
        },
        ContactSettings {
            max_iterations: 0,
            ..ContactSettings::default()
        },
    ];
    for settings in bad {
        let err = rod
            .contact_dynamics_with(&s, &NO_INPUTS, &RodContacts::ALL, &settings)
            .unwrap_err();
        assert!(matches!(err, DynamicsError::InvalidSetting(_)), "{err:?}");
    }
    for e in [-0.1, 1.5, f64::NAN] {
        let err = rod.impulse_dynamics(&s, &RodContacts::ALL, e).unwrap_err();
        assert!(matches!(err, DynamicsError::InvalidSetting(_)), "{err:?}");
    }
}

#[test]
fn a_rod_hanging_from_its_held_end_linearizes_to_its_pendulum() {
    let rod = Rod::default();
    let active = RodContacts {
        end_a: true,
        end_b: false,
    };
    let hanging = rod_state(&rod, -std::f64::consts::FRAC_PI_2, 0.0, [0.0, 0.0]);
    let lin = rod
        .linearize_contacts(&hanging, &NO_INPUTS, &active)
        .unwrap();
    // Held at A (two rows in the plane, at position and velocity level): one degree of
    // freedom, the pendulum about A, ω² = m g (l/2) / I_A = 3 g / (2 l).
    assert_eq!(lin.tangent.shape(), (6, 2));
    let spectrum = lin.spectrum().unwrap();
    let omega = (3.0 * rod.g / (2.0 * rod.l)).sqrt();
    assert_eq!(spectrum.eigenvalues.len(), 2);
    for lambda in &spectrum.eigenvalues {
        close(lambda.re, 0.0, 1e-12, "Re λ");
        close(lambda.im.abs(), omega, 1e-12, "|Im λ|");
    }
}

#[test]
fn linearize_contacts_matches_central_differences() {
    let rod = Rod::default();
    let body = Box2::default();
    let one = RodContacts {
        end_a: true,
        end_b: false,
    };
    // Structured (at rest, horizontal, upright) and irregular states.
    let states = [
        rod_state(&rod, 0.0, 0.0, [0.0, 0.0]),
        rod_state(&rod, std::f64::consts::FRAC_PI_2, 0.0, [0.0, 0.0]),
        rod_state(&rod, 0.7, -1.3, [0.0, 0.0]),
        rod_state(&rod, -2.1, 2.4, [0.3, -0.5]),
    ];
    for s in &states {
        for active in [one, RodContacts::NONE] {
            let lin = rod.linearize_contacts(s, &NO_INPUTS, &active).unwrap();
            let f = |s: &State<3>, u: &SVector<f64, 0>| {
                rod.contact_dynamics(s, u, &active).unwrap().accelerations
            };
            crate::common::derivatives::agree_with_central_differences(
                &lin,
                f,
                1e-7,
                &format!("rod {active:?} at {s:?}"),
            );
        }
    }
    for s in [
        State::new(0.0, SVector::from([0.0, body.h, 0.0]), SVector::zeros()),
        State::new(
            0.3,
            SVector::from([0.2, 0.4, 0.5]),
            SVector::from([0.1, -0.3, 0.8]),
        ),
    ] {
        let u = SVector::from([2.5]);
        let lin = body.linearize_contacts(&s, &u, &ON_SOLE).unwrap();
        let f = |s: &State<3>, u: &SVector<f64, 1>| {
            body.contact_dynamics(s, u, &ON_SOLE).unwrap().accelerations
        };
        crate::common::derivatives::agree_with_central_differences(
            &lin,
            f,
            1e-7,
            &format!("box at {s:?}"),
        );
        // The sole held: no motion is left, ∂q̈/∂u = 0 and no independent coordinate.
        assert_eq!(lin.tangent.ncols(), 0);
        assert!(lin.d_u.amax() < 1e-14);
    }
}

/// Two flat contacts on one rigid body (its foot and its top) fix the same six velocities:
/// the set is dependent and named, as four coplanar flat feet would be; regularized, the
/// wrench that holds the body is shared between them, each carrying half the weight.
#[test]
fn two_flat_contacts_on_one_body_are_dependent() {
    let body = Box2::default();
    let s = State::new(0.0, SVector::from([0.0, body.h, 0.0]), SVector::zeros());
    let u = SVector::from([0.0]);
    let err = body
        .contact_dynamics(&s, &u, &Box2Contacts::ALL)
        .unwrap_err();
    match &err {
        DynamicsError::DependentContacts { contacts } => assert_eq!(contacts, &["sole", "lid"]),
        other => panic!("expected DependentContacts, got {other:?}"),
    }
    let settings = ContactSettings {
        regularization: Some(1e-6),
        ..ContactSettings::default()
    };
    let out = body
        .contact_dynamics_with(&s, &u, &Box2Contacts::ALL, &settings)
        .unwrap();
    assert!(out.accelerations.amax() < 1e-10);
    let weight = body.m * body.g;
    close(
        out.forces.sole[5] + out.forces.lid[5],
        weight,
        1e-10,
        "the weight held",
    );
    close(
        out.forces.sole[5],
        weight / 2.0,
        1e-8,
        "shared equally (least norm)",
    );
}

/// `holding` runs a simulation with a set of contacts held: the rod held at one end,
/// released horizontal, swings as the pendulum about that end (I_A θ̈ = −m g (l/2) cos θ),
/// its energy kept and the end at rest where it was held.
#[test]
fn a_simulation_holding_one_end_swings_about_it() {
    use lagrange_runtime::simulate::{Rk4, Simulation};
    let rod = Rod::default();
    let active = RodContacts {
        end_a: true,
        end_b: false,
    };
    let start = rod_state(&rod, 0.0, 0.0, [0.0, 0.0]);
    let run = Simulation::new(&rod.holding(&active, 0.0), start)
        .run(&Rk4::new(1e-3), 2.0)
        .unwrap();
    // The pendulum about A, θ̈ = −(3 g / 2 l) cos θ, by the same integrator.
    let w2 = 3.0 * rod.g / (2.0 * rod.l);
    let (mut theta, mut omega) = (0.0_f64, 0.0_f64);
    let f = |th: f64| -w2 * th.cos();
    for _ in 0..2000 {
        let h = 1e-3;
        let (k1, l1) = (omega, f(theta));
        let (k2, l2) = (omega + h / 2.0 * l1, f(theta + h / 2.0 * k1));
        let (k3, l3) = (omega + h / 2.0 * l2, f(theta + h / 2.0 * k2));
        let (k4, l4) = (omega + h * l3, f(theta + h * k3));
        theta += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
        omega += h / 6.0 * (l1 + 2.0 * l2 + 2.0 * l3 + l4);
    }
    let end = run.last();
    close(end.q[2], theta, 1e-9, "θ(2 s)");
    close(end.qd[2], omega, 1e-9, "θ̇(2 s)");
    let held = rod.lets(end, &NO_INPUTS).a;
    assert!(held.norm() < 1e-9, "end A moved to {held}");
    let energy = |s: &State<3>| rod.energy(s, &NO_INPUTS);
    close(energy(end), energy(&start), 1e-9, "energy");
}
