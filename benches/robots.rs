//! Real robots read from their URDF files (`urdf: "path";`): the UR5 (6 joints) and the
//! Franka Panda (7 joints and two fingers, the second mimicking the first), at a state of
//! Pinocchio's reference data (`tests/robots/`). The figures issue 27 compares with
//! Pinocchio's `aba`, `rnea` and `crba` on the same machine: `accelerations` (for the
//! Panda the constrained solve of its mimic joint), `inverse_dynamics`, `mass_matrix`,
//! and the end effector's Jacobians.
//!
//! Run with `cargo bench --bench robots`.

use criterion::{criterion_group, criterion_main, Criterion};
use lagrange_runtime::prelude::*;
use std::hint::black_box;
use std::time::Duration;

include!("../tests/common/robots.rs");

fn bench(c: &mut Criterion) {
    let ur5 = Ur5::default();
    let s = State::new(
        0.0,
        SVector::from([0.3, -1.1, 0.8, -0.4, 1.2, -0.7]),
        SVector::from([0.5, -0.2, 0.9, 0.1, -0.6, 0.3]),
    );
    let tau = SVector::from([1.0, -2.0, 0.5, 0.3, -0.1, 0.2]);
    let a = SVector::from([0.2, -0.4, 0.1, 0.7, -0.3, 0.5]);
    let mut g = c.benchmark_group("ur5");
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("accelerations", |b| {
        b.iter(|| black_box(&ur5).accelerations(black_box(&s), black_box(&tau)))
    });
    g.bench_function("inverse_dynamics", |b| {
        b.iter(|| black_box(&ur5).inverse_dynamics(black_box(&s), black_box(&a), &tau))
    });
    g.bench_function("mass_matrix", |b| {
        b.iter(|| black_box(&ur5).mass_matrix(black_box(&s), &tau))
    });
    g.bench_function("jacobians", |b| {
        b.iter(|| black_box(&ur5).jacobians(black_box(&s), &tau))
    });
    g.finish();

    let panda = Panda::default();
    // On the mimic constraint: the second finger opposite the first.
    let q = SVector::from([0.1, -0.5, 0.3, -2.0, 0.2, 1.6, 0.7, 0.02, 0.02]);
    let qd = SVector::from([0.3, -0.1, 0.2, 0.4, -0.3, 0.1, 0.5, 0.01, 0.01]);
    let s = State::new(0.0, q, qd);
    let none = SVector::<f64, 0>::zeros();
    let a = SVector::from_element(0.1);
    let mut g = c.benchmark_group("panda");
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("accelerations", |b| {
        b.iter(|| black_box(&panda).accelerations(black_box(&s), &none))
    });
    g.bench_function("inverse_dynamics", |b| {
        b.iter(|| black_box(&panda).inverse_dynamics(black_box(&s), black_box(&a), &none))
    });
    g.bench_function("mass_matrix", |b| {
        b.iter(|| black_box(&panda).mass_matrix(black_box(&s), &none))
    });
    g.bench_function("jacobians", |b| {
        b.iter(|| black_box(&panda).jacobians(black_box(&s), &none))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
