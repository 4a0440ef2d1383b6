//! Real robots read from their URDF files (`urdf: "path";`): the UR5 (6 joints) and the
//! Franka Panda (7 joints and two fingers, the second mimicking the first), at a state of
//! Pinocchio's reference data (`tests/robots/`). The figures issue 27 compares with
//! Pinocchio's `aba`, `rnea` and `crba` on the same machine: `accelerations` (for the
//! Panda the constrained solve of its mimic joint), `inverse_dynamics`, `mass_matrix`,
//! and the end effector's Jacobians.
//!
//! Run with `cargo bench --bench robots`; `benches/pinocchio/compare.sh` runs it against
//! Pinocchio. With `LAGRANGE_PINOCCHIO_STATES=<file>` set, the bench also writes to that
//! file what the C++ side needs: each robot's URDF, coordinates and state, and lagrange's
//! values there in Pinocchio's terms, to be checked against `crba`, `rnea` and `aba`
//! (`compare.sh` runs it so with a filter that matches no benchmark).

use criterion::{criterion_group, criterion_main, Criterion};
use lagrange_runtime::prelude::*;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

include!("../tests/common/robots.rs");

/// Appends, for `benches/pinocchio/bench.cpp`, a robot's URDF, end-effector frame,
/// coordinates and state (`a` for `rnea`; for `aba` the generalized forces Q of the
/// bench's inputs and dissipation), and lagrange's values in Pinocchio's terms: the mass
/// matrix (`crba`), M a + C q̇ + g = inverse dynamics + Q (`rnea`), M⁻¹ (Q − C q̇ − g)
/// without constraints (`aba`), and the frame's Jacobian (linear rows, then angular, in
/// world axes; Pinocchio's LOCAL_WORLD_ALIGNED). Numbers in Rust's shortest round-trip
/// form; one record a line, `key robot values...`.
#[allow(clippy::too_many_arguments)]
fn describe_for_pinocchio<T: Dynamics<N, M>, const N: usize, const M: usize>(
    out: &mut String,
    robot: &str,
    urdf: &str,
    frame: &str,
    model: &T,
    s: &State<N>,
    a: &SVector<f64, N>,
    u: &SVector<f64, M>,
    jacobian: &SMatrix<f64, 6, N>,
) {
    let q = model.generalized_forces(s, u);
    let mass = model.mass_matrix(s, u);
    let rnea = model.inverse_dynamics(s, a, u) + q;
    let nle = model.inverse_dynamics(s, &SVector::zeros(), u) + q;
    let aba = mass
        .cholesky()
        .expect("a positive definite mass matrix")
        .solve(&(q - nle));
    let mut line = |key: &str, values: &mut dyn Iterator<Item = String>| {
        let _ = write!(out, "{key} {robot}");
        for v in values {
            let _ = write!(out, " {v}");
        }
        out.push('\n');
    };
    let num = |x: &f64| format!("{x:?}");
    line("robot", &mut [urdf, frame].iter().map(|x| x.to_string()));
    line("joints", &mut T::COORDINATES.iter().map(|x| x.to_string()));
    line("q", &mut s.q.iter().map(num));
    line("v", &mut s.qd.iter().map(num));
    line("a", &mut a.iter().map(num));
    line("tau", &mut q.iter().map(num));
    // Row-major, as the C++ side prints its own.
    line("crba", &mut mass.transpose().iter().map(num));
    line("rnea", &mut rnea.iter().map(num));
    line("aba", &mut aba.iter().map(num));
    line("jacobian", &mut jacobian.transpose().iter().map(num));
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
/// `a`), `mass_matrix` and `jacobians` (the model's generated `jacobians`, which no trait
/// names) at the state `s` with inputs `u`.
fn calls<T: Dynamics<N, M>, J, const N: usize, const M: usize>(
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
    g.finish();
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
        describe_for_pinocchio(&mut described, "ur5", urdf, frame, &ur5, &s, &a, &tau, &j);
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
            &s,
            &a,
            &none,
            &j,
        );
    }
    calls(c, "panda", &panda, &s, &a, &none, |m, s, u| {
        m.jacobians(s, u)
    });

    if let Some(path) = &states {
        std::fs::write(path, &described).expect("LAGRANGE_PINOCCHIO_STATES: a writable file");
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
