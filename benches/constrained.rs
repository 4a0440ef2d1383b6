//! `Dynamics::accelerations` of constrained models: a slider pendulum in Cartesian
//! coordinates (two constraints, a positive definite mass matrix: the plain path, the
//! mass matrix factored alone) and a free rigid body with a unit quaternion (one
//! constraint, a semidefinite mass matrix: completed by the constraint, M + ρ JᵀJ).
//!
//! Run with `cargo bench --bench constrained`.

use criterion::{criterion_group, criterion_main, Criterion};
use lagrange_runtime::prelude::*;
use std::hint::black_box;
use std::time::Duration;

// A slider on a horizontal rail with a pendulum, Cartesian coordinates (y down).
use lagrange_test_models::SliderPendulum;

use lagrange_test_models::QuaternionBody;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("constrained");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let slider = SliderPendulum::default();
    let (a, l) = (0.6f64, slider.l);
    let s = State::new(
        0.0,
        SVector::from([0.1, 0.0, 0.1 + l * a.sin(), l * a.cos()]),
        SVector::from([0.3, 0.0, 0.3 + l * a.cos() * 0.7, -l * a.sin() * 0.7]),
    );
    let none = SVector::<f64, 0>::zeros();
    group.bench_function("slider_pendulum/accelerations", |b| {
        b.iter(|| {
            black_box(&slider)
                .accelerations(black_box(&s), &none)
                .unwrap()
        })
    });
    let body = QuaternionBody::default();
    let (h, w) = (0.5f64.cos(), 0.5f64.sin());
    let n = SVector::from([h, w * 0.6, 0.0, w * 0.8]);
    // ṅ = ½ n ⊗ (0, ω) for ω = (0.8, −1.3, 2.1).
    let (o1, o2, o3) = (0.8, -1.3, 2.1);
    let nd = SVector::from([
        -(n[1] * o1 + n[2] * o2 + n[3] * o3) / 2.0,
        (n[0] * o1 + n[2] * o3 - n[3] * o2) / 2.0,
        (n[0] * o2 + n[3] * o1 - n[1] * o3) / 2.0,
        (n[0] * o3 + n[1] * o2 - n[2] * o1) / 2.0,
    ]);
    let s = State::new(0.0, n, nd);
    group.bench_function("quaternion_body/accelerations", |b| {
        b.iter(|| {
            black_box(&body)
                .accelerations(black_box(&s), &none)
                .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
