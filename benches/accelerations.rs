//! `Dynamics::accelerations` of the double pendulum written in the `lagrangian!` DSL
//! (`lagrange_test_models::DoublePendulum`: the model of `examples/double_pendulum.rs` without
//! its units, which change no number) against the textbook closed-form
//! equations written by hand in plain `f64`, in one criterion group so that the ratio
//! is visible. Also `mass_matrix` of the DSL model, and the same accelerations from the
//! generic dual-number passes (`passes::equations_in`, then Cholesky) that the
//! generated fast path replaces.
//!
//! Run with `cargo bench --bench accelerations`.

use criterion::{criterion_group, criterion_main, Criterion};
use lagrange_runtime::__private::passes;
use lagrange_runtime::model::Point;
use lagrange_runtime::prelude::*;
// criterion 0.8 deprecates `criterion::black_box` in favour of the standard one.
use std::hint::black_box;
use std::time::Duration;

use lagrange_test_models::DoublePendulum;

/// The textbook explicit equations of motion of a point-mass double pendulum, angles
/// measured from the downward vertical (the same convention as the DSL model).
#[inline(never)]
fn hand_written(p: &DoublePendulum, s: &State<2>) -> [f64; 2] {
    let DoublePendulum { m1, m2, l1, l2, g } = *p;
    let (th1, th2) = (s.q[0], s.q[1]);
    let (w1, w2) = (s.qd[0], s.qd[1]);
    let delta = th1 - th2;
    let (sin_d, cos_d) = delta.sin_cos();
    let den = 2.0 * m1 + m2 - m2 * (2.0 * delta).cos();
    let a1 = (-g * (2.0 * m1 + m2) * th1.sin()
        - m2 * g * (th1 - 2.0 * th2).sin()
        - 2.0 * sin_d * m2 * (w2 * w2 * l2 + w1 * w1 * l1 * cos_d))
        / (l1 * den);
    let a2 = (2.0
        * sin_d
        * (w1 * w1 * l1 * (m1 + m2) + g * (m1 + m2) * th1.cos() + w2 * w2 * l2 * m2 * cos_d))
        / (l2 * den);
    [a1, a2]
}

fn bench(c: &mut Criterion) {
    // Unequal parameters, so that a swapped mass or length would show in the check below.
    let model = DoublePendulum::new(1.3, 0.7, 1.1, 0.9, 9.81);
    let s = State::new(0.0, SVector::from([0.5, -0.3]), SVector::from([0.2, 0.1]));
    let u = SVector::<f64, 0>::zeros();

    // The comparison is only honest if both compute the same thing.
    let dsl = model.accelerations(&s, &u).expect("regular mass matrix");
    let hand = hand_written(&model, &s);
    for i in 0..2 {
        assert!(
            (dsl[i] - hand[i]).abs() <= 1e-12,
            "θ̈{}: DSL {} vs hand-written {}",
            i + 1,
            dsl[i],
            hand[i]
        );
    }

    let mut group = c.benchmark_group("double_pendulum");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("accelerations/dsl", |b| {
        b.iter(|| black_box(&model).accelerations(black_box(&s), black_box(&u)))
    });
    group.bench_function("accelerations/hand_written", |b| {
        b.iter(|| hand_written(black_box(&model), black_box(&s)))
    });
    group.bench_function("accelerations/generic_passes", |b| {
        b.iter(|| {
            let e =
                passes::equations_in(black_box(&model), &Point::new(black_box(&s), black_box(&u)));
            e.mass.cholesky().map(|c| c.solve(&e.bias))
        })
    });
    let qdd = SVector::from([0.3, -0.7]);
    group.bench_function("inverse_dynamics/dsl", |b| {
        b.iter(|| black_box(&model).inverse_dynamics(black_box(&s), black_box(&qdd), &u))
    });
    group.bench_function("mass_matrix/dsl", |b| {
        b.iter(|| black_box(&model).mass_matrix(black_box(&s), black_box(&u)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
