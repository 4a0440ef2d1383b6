//! The spatial arm of `../shared/DSL.md` written with vectors and rotation matrices,
//! against the same arm written with scalars only, the way a user had to before vectors
//! existed: rotation matrices entry by entry, their product by hand, the body angular
//! velocity from R₂ᵀ Ṙ₂ component by component. Vectors are lowered to scalar operations
//! at compile time, so the two should cost the same (target: ratio ≤ 1.05). The vector
//! model is `tests/models/src/spatial_arm.rs`, the one `tests/spatial_arm.rs` checks.
//!
//! Run with `cargo bench --bench spatial_arm`; it prints the ratios at the end.

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use lagrange_runtime::prelude::*;
use std::hint::black_box;
use std::time::{Duration, SystemTime};

use lagrange_test_models::SpatialArm;

lagrangian! {
    /// The same arm with scalars only.
    pub struct ScalarArm {
        parameters: m2 = 0.8, l1 = 0.5, a2 = 0.2, I1z = 0.01,
                    I2x = 0.01, I2y = 0.015, I2z = 0.015, g = 9.81, c = 0.05;
        coordinates: yaw, pitch;
        inputs: tau1, tau2;

        let c1 = cos(yaw);
        let s1 = sin(yaw);
        let cp = cos(pitch);
        let sp = sin(pitch);
        // R2 = Rz(yaw) Ry(−pitch), entry by entry (r21 = 0).
        let r00 = c1 * cp;
        let r01 = -s1;
        let r02 = -c1 * sp;
        let r10 = s1 * cp;
        let r11 = c1;
        let r12 = -s1 * sp;
        let r20 = sp;
        let r22 = cp;
        let x2 = a2 * r00;
        let y2 = a2 * r10;
        let z2 = l1 + a2 * r20;
        // ω₁ (body) from R1ᵀ Ṙ1: (W10 − W01)/2.
        let w1z = ((-s1 * dot(c1) + c1 * dot(s1)) - (c1 * dot(-s1) + s1 * dot(c1))) / 2;
        // ω₂ (body) from W = R2ᵀ Ṙ2, W_ij = Σ_k R_ki Ṙ_kj.
        let w21 = r02 * dot(r01) + r12 * dot(r11);
        let w12 = r01 * dot(r02) + r11 * dot(r12);
        let w02 = r00 * dot(r02) + r10 * dot(r12) + r20 * dot(r22);
        let w20 = r02 * dot(r00) + r12 * dot(r10) + r22 * dot(r20);
        let w10 = r01 * dot(r00) + r11 * dot(r10);
        let w01 = r00 * dot(r01) + r10 * dot(r11);
        let wx = (w21 - w12) / 2;
        let wy = (w02 - w20) / 2;
        let wz = (w10 - w01) / 2;

        kinetic = I1z/2 * w1z^2
                + m2/2 * (dot(x2)^2 + dot(y2)^2 + dot(z2)^2)
                + (I2x * wx^2 + I2y * wy^2 + I2z * wz^2) / 2;
        potential = m2 * g * z2;
        dissipation = c/2 * (dot(yaw)^2 + dot(pitch)^2);
        force tau1 on yaw;
        force tau2 on pitch;
    }
}

fn bench(c: &mut Criterion) {
    let (vector, scalar) = (SpatialArm::default(), ScalarArm::default());
    let s = State::new(0.0, SVector::from([0.4, 0.7]), SVector::from([1.2, -0.8]));
    let u = SVector::from([0.3, -0.1]);
    // The comparison is only honest if both compute the same thing.
    let (a, b) = (
        vector.accelerations(&s, &u).expect("regular"),
        scalar.accelerations(&s, &u).expect("regular"),
    );
    assert!((a - b).norm() <= 1e-12 * a.norm(), "{a} vs {b}");

    let start = SystemTime::now();
    let mut group = c.benchmark_group("spatial_arm");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("accelerations/vectors", |b| {
        b.iter(|| black_box(&vector).accelerations(black_box(&s), black_box(&u)))
    });
    group.bench_function("accelerations/scalars", |b| {
        b.iter(|| black_box(&scalar).accelerations(black_box(&s), black_box(&u)))
    });
    group.bench_function("mass_matrix/vectors", |b| {
        b.iter(|| black_box(&vector).mass_matrix(black_box(&s), black_box(&u)))
    });
    group.bench_function("mass_matrix/scalars", |b| {
        b.iter(|| black_box(&scalar).mass_matrix(black_box(&s), black_box(&u)))
    });
    group.finish();
    for what in ["accelerations", "mass_matrix"] {
        let time = |kind: &str| common::estimate("spatial_arm", &format!("{what}_{kind}"), start);
        if let (Some(v), Some(s)) = (time("vectors"), time("scalars")) {
            println!(
                "{what}: vectors {v:.1} ns, scalars {s:.1} ns, ratio {:.3}",
                v / s
            );
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
