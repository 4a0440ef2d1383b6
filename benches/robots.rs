//! Real robots read from their URDF files (`urdf: "path";`): the UR5 (6 joints), the
//! Franka Panda (7 joints and two fingers, the second mimicking the first), and on a
//! floating base (position and unit quaternion) the Solo-12 quadruped (19 coordinates)
//! and the Unitree G1 humanoid (36), at a state of Pinocchio's reference data
//! (`tests/robots/`) for the arms and states of their own for the others. The figures issues 27
//! and 47 compare with Pinocchio's `aba`, `rnea`, `crba` and their derivatives on the same
//! machine: `accelerations` (for the Panda the constrained solve of its mimic joint, for
//! the Solo-12 that of its unit quaternion), `inverse_dynamics`, `mass_matrix`, the end
//! effector's (a foot's) Jacobians, `linearize` (`computeABADerivatives`) and
//! `inverse_dynamics_derivatives` (`computeRNEADerivatives`); for the Solo-12 on its four
//! point feet and the G1 on its two flat soles, `contact_dynamics` (`constraintDynamics`),
//! `impulse_dynamics` (`impulseDynamics`) and `linearize_contacts`
//! (`computeConstraintDynamicsDerivatives`).
//!
//! Run with `cargo bench --bench robots`; `benches/pinocchio/compare.sh` runs it against
//! Pinocchio. With `LAGRANGE_PINOCCHIO_STATES=<file>` set, the bench also writes to that
//! file what the C++ side needs: each robot's URDF, base, coordinates and state, and
//! lagrange's values there in Pinocchio's terms, to be checked against `crba`, `rnea` and
//! `aba` (`compare.sh` runs it so with a filter that matches no benchmark).

use criterion::{criterion_group, criterion_main, Criterion};
use lagrange_runtime::contact::Contacts;
use lagrange_runtime::model::Point;
use lagrange_runtime::nalgebra::{DMatrix, DVector};
use lagrange_runtime::prelude::*;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use lagrange_test_models::g1::*;
use lagrange_test_models::robots::*;
use lagrange_test_models::FreeFlyer;

/// How lagrange's coordinates map to Pinocchio's: one to one for a fixed base (N = V), or
/// through the free flyer's map (`lagrange_test_models::FreeFlyer`, N = V + 1).
enum Base<const N: usize, const V: usize> {
    Fixed,
    Floating(FreeFlyer<N, V>),
}

impl<const N: usize, const V: usize> Base<N, V> {
    /// Pinocchio's configuration for lagrange's.
    fn q(&self, q: &SVector<f64, N>) -> SVector<f64, N> {
        match self {
            Base::Fixed => *q,
            Base::Floating(f) => f.pinocchio_q(),
        }
    }

    /// J = ∂v/∂q̇ (the identity for a fixed base).
    fn j(&self) -> SMatrix<f64, V, N> {
        match self {
            Base::Fixed => SMatrix::identity(),
            Base::Floating(f) => f.j(),
        }
    }

    /// L, with q̇ = L v (the identity for a fixed base).
    fn l(&self) -> SMatrix<f64, N, V> {
        match self {
            Base::Fixed => SMatrix::identity(),
            Base::Floating(f) => f.l(),
        }
    }

    /// Pinocchio's v̇ for lagrange's q̈ at the state s.
    fn a(&self, s: &State<N>, qdd: &SVector<f64, N>) -> SVector<f64, V> {
        match self {
            Base::Fixed => self.j() * qdd,
            Base::Floating(f) => f.a(s, qdd),
        }
    }
}

/// Appends, for `benches/pinocchio/bench.cpp`, a robot's URDF, end-effector frame, base
/// (`fixed` or `free_flyer`), coordinates and state in Pinocchio's terms (q; v = J q̇; for
/// `rnea` the v̇ of the bench's q̈ `qdd`; for `aba` the generalized forces τ = Lᵀ Q of the
/// bench's inputs and dissipation, L = J⁻¹ on the constraint's tangent space), and
/// lagrange's values there in Pinocchio's terms: Lᵀ M L (`crba`), Lᵀ (M q̈ + C q̇ + g) =
/// Lᵀ (inverse dynamics + Q) (`rnea`), the accelerations as v̇ (`aba`: for a fixed base
/// M⁻¹ (Q − C q̇ − g) without constraints; for a floating one the constrained solve with
/// the base's unit quaternion, whose only constraint Pinocchio's Lie group keeps itself),
/// and the frame's Jacobian times L (linear rows, then angular, in world axes; Pinocchio's
/// LOCAL_WORLD_ALIGNED). With a fixed base J = L = I. Numbers in Rust's shortest
/// round-trip form; one record a line, `key robot values...`.
#[allow(clippy::too_many_arguments)]
fn describe_for_pinocchio<T: Dynamics<N, M>, const N: usize, const M: usize, const V: usize>(
    out: &mut String,
    robot: &str,
    urdf: &str,
    frame: &str,
    model: &T,
    base: &Base<N, V>,
    s: &State<N>,
    qdd: &SVector<f64, N>,
    u: &SVector<f64, M>,
    jacobian: &SMatrix<f64, 6, N>,
) {
    let (j, l) = (base.j(), base.l());
    let q = model.generalized_forces(s, u);
    let mass = model.mass_matrix(s, u);
    let rnea = l.transpose() * (model.inverse_dynamics(s, qdd, u) + q);
    let aba = match base {
        Base::Fixed => {
            let nle = model.inverse_dynamics(s, &SVector::zeros(), u) + q;
            let qdd = mass
                .cholesky()
                .expect("a positive definite mass matrix")
                .solve(&(q - nle));
            j * qdd
        }
        Base::Floating(f) => f.a(s, &model.accelerations(s, u).expect("regular")),
    };
    let mut line = |key: &str, values: &mut dyn Iterator<Item = String>| {
        let _ = write!(out, "{key} {robot}");
        for v in values {
            let _ = write!(out, " {v}");
        }
        out.push('\n');
    };
    let num = |x: &f64| format!("{x:?}");
    let kind = match base {
        Base::Fixed => "fixed",
        Base::Floating(_) => "free_flyer",
    };
    line(
        "robot",
        &mut [urdf, frame, kind].iter().map(|x| x.to_string()),
    );
    line("joints", &mut T::COORDINATES.iter().map(|x| x.to_string()));
    line("q", &mut base.q(&s.q).iter().map(num));
    line("v", &mut (j * s.qd).iter().map(num));
    line("a", &mut base.a(s, qdd).iter().map(num));
    line("tau", &mut (l.transpose() * q).iter().map(num));
    // Row-major, as the C++ side prints its own.
    let crba = l.transpose() * mass * l;
    line("crba", &mut crba.transpose().iter().map(num));
    line("rnea", &mut rnea.iter().map(num));
    line("aba", &mut aba.iter().map(num));
    line("jacobian", &mut (jacobian * l).transpose().iter().map(num));
}

/// The linear and angular Jacobians of a frame stacked, as Pinocchio's frame Jacobian.
fn stacked<const N: usize>(
    linear: &SMatrix<f64, 3, N>,
    angular: &SMatrix<f64, 3, N>,
) -> SMatrix<f64, 6, N> {
    let mut j = SMatrix::<f64, 6, N>::zeros();
    j.fixed_rows_mut::<3>(0).copy_from(linear);
    j.fixed_rows_mut::<3>(3).copy_from(angular);
    j
}

/// The Criterion group `robot`: `accelerations`, `inverse_dynamics` (for the accelerations
/// `a`), `mass_matrix`, `jacobians` (the model's generated `jacobians`, which no trait
/// names), `linearize` and `inverse_dynamics_derivatives` (at `a`) at the state `s` with
/// inputs `u`.
fn calls<T: lagrange_runtime::model::Model<N, M>, J, const N: usize, const M: usize>(
    c: &mut Criterion,
    robot: &str,
    model: &T,
    s: &State<N>,
    a: &SVector<f64, N>,
    u: &SVector<f64, M>,
    jacobians: impl Fn(&T, &State<N>, &SVector<f64, M>) -> J,
) {
    let mut g = c.benchmark_group(robot);
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("accelerations", |b| {
        b.iter(|| black_box(model).accelerations(black_box(s), black_box(u)))
    });
    g.bench_function("inverse_dynamics", |b| {
        b.iter(|| black_box(model).inverse_dynamics(black_box(s), black_box(a), u))
    });
    g.bench_function("mass_matrix", |b| {
        b.iter(|| black_box(model).mass_matrix(black_box(s), u))
    });
    g.bench_function("jacobians", |b| {
        b.iter(|| jacobians(black_box(model), black_box(s), u))
    });
    g.bench_function("linearize", |b| {
        b.iter(|| linearize(black_box(model), black_box(s), black_box(u)))
    });
    g.bench_function("inverse_dynamics_derivatives", |b| {
        b.iter(|| {
            lagrange_runtime::linearize::inverse_dynamics_derivatives(
                black_box(model),
                black_box(s),
                black_box(a),
                u,
            )
        })
    });
    g.finish();
}

/// A contact call of a robot at a state with inputs and a contact set, reduced to a number.
type ContactCall<'a, T, A, const N: usize, const M: usize> =
    &'a dyn Fn(&T, &State<N>, &SVector<f64, M>, &A) -> f64;

/// The Criterion group `robot`, its contact calls with every contact active:
/// `contact_dynamics`, `impulse_dynamics` (restitution 0) and `linearize_contacts`.
fn contact_calls<T, A, const N: usize, const M: usize, const C: usize>(
    c: &mut Criterion,
    robot: &str,
    model: &T,
    s: &State<N>,
    u: &SVector<f64, M>,
    all: &A,
    calls: [ContactCall<'_, T, A, N, M>; 3],
) {
    let mut g = c.benchmark_group(robot);
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (name, call) in ["contact_dynamics", "impulse_dynamics", "linearize_contacts"]
        .into_iter()
        .zip(calls)
    {
        g.bench_function(name, |b| {
            b.iter(|| call(black_box(model), black_box(s), black_box(u), all))
        });
    }
    g.finish();
}

/// The contacts of a robot for the C++ side: their kind and frames, a velocity v at which
/// every contact is at rest (the state's own projected onto J v = 0: Pinocchio's 6D
/// contacts hold the frame's spatial acceleration, lagrange's its point's, and the two
/// agree only there), and lagrange's `contact_dynamics` accelerations there with all of
/// them active, in Pinocchio's terms.
#[allow(clippy::too_many_arguments)]
fn describe_contacts<T, const N: usize, const M: usize, const C: usize, const V: usize>(
    out: &mut String,
    robot: &str,
    kind: &str,
    frames: &[&str],
    model: &T,
    q: &SVector<f64, N>,
    v: &SVector<f64, V>,
    u: &SVector<f64, M>,
) where
    T: Contacts<N, M, C>,
{
    let flyer = FreeFlyer::<N, V>::at_lagrange(q);
    let s = flyer.state(v);
    let rows = model.eval_contact_rows(&Point::new(&s, u)).matrix;
    let j = DMatrix::from_fn(C, V, |r, c| {
        (0..N).map(|i| rows[r][i] * flyer.l()[(i, c)]).sum()
    });
    let v = DVector::from_column_slice(v.as_slice());
    let at_rest = &v - j.clone().pseudo_inverse(1e-12).expect("an SVD") * (&j * &v);
    let at_rest = SVector::<f64, V>::from_column_slice(at_rest.as_slice());
    let s = flyer.state(&at_rest);
    let (qdd, _) = model
        .eval_contact_dynamics(&s, u, &[true; C], &Default::default())
        .expect("the contacts held");
    let mut line = |key: &str, values: &mut dyn Iterator<Item = String>| {
        let _ = write!(out, "{key} {robot}");
        for x in values {
            let _ = write!(out, " {x}");
        }
        out.push('\n');
    };
    line(
        "contacts",
        &mut [kind].iter().chain(frames).map(|x| x.to_string()),
    );
    line("contact_v", &mut at_rest.iter().map(|x| format!("{x:?}")));
    line(
        "contact_a",
        &mut flyer.a(&s, &qdd).iter().map(|x| format!("{x:?}")),
    );
}

fn bench(c: &mut Criterion) {
    let states = std::env::var_os("LAGRANGE_PINOCCHIO_STATES");
    let mut described = String::new();

    let ur5 = Ur5::default();
    let s = State::new(
        0.0,
        SVector::from([0.3, -1.1, 0.8, -0.4, 1.2, -0.7]),
        SVector::from([0.5, -0.2, 0.9, 0.1, -0.6, 0.3]),
    );
    let tau = SVector::from([1.0, -2.0, 0.5, 0.3, -0.1, 0.2]);
    let a = SVector::from([0.2, -0.4, 0.1, 0.7, -0.3, 0.5]);
    if states.is_some() {
        let j = ur5.jacobians(&s, &tau);
        let j = stacked(&j.tool0_p.matrix, &j.tool0_w.matrix);
        let (urdf, frame) = ("tests/robots/ur5.urdf", "tool0");
        describe_for_pinocchio(
            &mut described,
            "ur5",
            urdf,
            frame,
            &ur5,
            &Base::<6, 6>::Fixed,
            &s,
            &a,
            &tau,
            &j,
        );
    }
    calls(c, "ur5", &ur5, &s, &a, &tau, |m, s, u| m.jacobians(s, u));

    let panda = Panda::default();
    // On the mimic constraint: the second finger opposite the first.
    let q = SVector::from([0.1, -0.5, 0.3, -2.0, 0.2, 1.6, 0.7, 0.02, 0.02]);
    let qd = SVector::from([0.3, -0.1, 0.2, 0.4, -0.3, 0.1, 0.5, 0.01, 0.01]);
    let s = State::new(0.0, q, qd);
    let none = SVector::<f64, 0>::zeros();
    let a = SVector::from_element(0.1);
    if states.is_some() {
        let j = panda.jacobians(&s, &none);
        let j = stacked(&j.panda_hand_p.matrix, &j.panda_hand_w.matrix);
        let (urdf, frame) = ("tests/robots/panda.urdf", "panda_hand");
        describe_for_pinocchio(
            &mut described,
            "panda",
            urdf,
            frame,
            &panda,
            &Base::<9, 9>::Fixed,
            &s,
            &a,
            &none,
            &j,
        );
    }
    calls(c, "panda", &panda, &s, &a, &none, |m, s, u| {
        m.jacobians(s, u)
    });

    // The Solo-12 on its floating base: a state on the unit quaternion's constraint, from
    // Pinocchio's (q, v) through the free flyer's map; the joint torques, no base wrench.
    let solo = Solo12::default();
    let mut q = SVector::<f64, 19>::from([
        0.1, -0.2, 0.35, // base position
        0.1, -0.2, 0.15, 0.96, // quaternion (x y z w), normalised below
        0.1, 0.8, -1.6, -0.1, 0.8, -1.6, 0.1, -0.8, 1.6, -0.1, -0.8, 1.6, // legs
    ]);
    let n = q.fixed_rows::<4>(3).normalize();
    q.fixed_rows_mut::<4>(3).copy_from(&n);
    let flyer = FreeFlyer::<19, 18>::at(&q);
    let v = SVector::<f64, 18>::from_fn(|i, _| 0.3 * ((i as f64) * 0.7).sin());
    let s = flyer.state(&v);
    let a = flyer.qdd(&v, &SVector::from_fn(|i, _| 0.2 * ((i as f64) * 1.3).cos()));
    let u = SVector::<f64, 18>::from_fn(|i, _| {
        if i < 6 {
            0.0
        } else {
            0.5 * ((i as f64) * 0.9).sin()
        }
    });
    if states.is_some() {
        let j = solo.jacobians(&s, &u);
        let j = stacked(&j.FL_FOOT_p.matrix, &j.FL_FOOT_w.matrix);
        let (urdf, frame) = ("tests/robots/solo12.urdf", "FL_FOOT");
        describe_for_pinocchio(
            &mut described,
            "solo12",
            urdf,
            frame,
            &solo,
            &Base::Floating(flyer),
            &s,
            &a,
            &u,
            &j,
        );
    }
    calls(c, "solo12", &solo, &s, &a, &u, |m, s, u| m.jacobians(s, u));
    // Standing on its four feet.
    let all = Solo12Contacts::ALL;
    if states.is_some() {
        let frames = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"];
        describe_contacts(&mut described, "solo12", "3d", &frames, &solo, &s.q, &v, &u);
    }
    contact_calls::<_, _, 19, 18, 12>(
        c,
        "solo12",
        &solo,
        &s,
        &u,
        &all,
        [
            &|m, s, u, a| {
                m.contact_dynamics(s, u, a)
                    .map_or(0.0, |d| d.accelerations[0])
            },
            &|m, s, _, a| m.impulse_dynamics(s, a, 0.0).map_or(0.0, |(s, _)| s.qd[0]),
            &|m, s, u, a| m.linearize_contacts(s, u, a).map_or(0.0, |l| l.d_q[(0, 0)]),
        ],
    );

    // The G1 humanoid on its floating base, the same way: joints in [−0.5, 0.5].
    let g1 = G1::default();
    let mut q = SVector::<f64, 36>::from_fn(|i, _| 0.5 * ((i as f64) * 0.37).sin());
    q.fixed_rows_mut::<3>(0)
        .copy_from(&SVector::from([0.05, -0.1, 0.75]));
    let n = SVector::<f64, 4>::from([0.05, -0.1, 0.2, 0.97]).normalize(); // x y z w
    q.fixed_rows_mut::<4>(3).copy_from(&n);
    let flyer = FreeFlyer::<36, 35>::at(&q);
    let v = SVector::<f64, 35>::from_fn(|i, _| 0.3 * ((i as f64) * 0.7).sin());
    let s = flyer.state(&v);
    let a = flyer.qdd(&v, &SVector::from_fn(|i, _| 0.2 * ((i as f64) * 1.3).cos()));
    let u = SVector::<f64, 35>::from_fn(|i, _| {
        if i < 6 {
            0.0
        } else {
            2.0 * ((i as f64) * 0.9).sin()
        }
    });
    if states.is_some() {
        let j = g1.jacobians(&s, &u);
        let j = stacked(
            &j.left_ankle_roll_link_p.matrix,
            &j.left_ankle_roll_link_w.matrix,
        );
        let (urdf, frame) = ("tests/robots/g1.urdf", "left_ankle_roll_link");
        describe_for_pinocchio(
            &mut described,
            "g1",
            urdf,
            frame,
            &g1,
            &Base::Floating(flyer),
            &s,
            &a,
            &u,
            &j,
        );
    }
    calls(c, "g1", &g1, &s, &a, &u, |m, s, u| m.jacobians(s, u));
    // Standing on its two soles (the values are checked with the soles at rest, where
    // Pinocchio's 6D contacts agree with lagrange's frame contacts; the timing does not
    // need them to be).
    let all = G1Contacts::ALL;
    if states.is_some() {
        let frames = ["left_ankle_roll_link", "right_ankle_roll_link"];
        describe_contacts(&mut described, "g1", "6d", &frames, &g1, &s.q, &v, &u);
    }
    contact_calls::<_, _, 36, 35, 12>(
        c,
        "g1",
        &g1,
        &s,
        &u,
        &all,
        [
            &|m, s, u, a| {
                m.contact_dynamics(s, u, a)
                    .map_or(0.0, |d| d.accelerations[0])
            },
            &|m, s, _, a| m.impulse_dynamics(s, a, 0.0).map_or(0.0, |(s, _)| s.qd[0]),
            &|m, s, u, a| m.linearize_contacts(s, u, a).map_or(0.0, |l| l.d_q[(0, 0)]),
        ],
    );

    if let Some(path) = &states {
        std::fs::write(path, &described).expect("LAGRANGE_PINOCCHIO_STATES: a writable file");
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
