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

lagrangian! {
    /// A slider on a horizontal rail with a pendulum, Cartesian coordinates (y down).
    pub struct SliderPendulum {
        parameters: m1 = 2.0, m2 = 0.5, l = 0.8, g = 9.81;
        coordinates: x1, y1, x2, y2;
        kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * (dot(x2)^2 + dot(y2)^2);
        potential = -g * (m1*y1 + m2*y2);
        constraint rail = y1;
        constraint rod = (x1 - x2)^2 + (y1 - y2)^2 - l^2;
    }
}

lagrangian! {
    /// A free rigid body, orientation by a unit quaternion.
    pub struct QuaternionBody {
        parameters: I1 = 0.1, I2 = 0.2, I3 = 0.25;
        coordinates: w, x, y, z;
        let R = quat(w, x, y, z);
        let omega = body_angular_velocity(R);
        kinetic = inner(omega, diag(I1, I2, I3) * omega) / 2;
        constraint unit = w^2 + x^2 + y^2 + z^2 - 1;
    }
}

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
