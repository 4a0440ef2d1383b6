//! `Dynamics::accelerations` of a planar N-link chain of point masses written naturally in
//! the `lagrangian!` DSL, against the equations of motion derived by hand and solved in
//! plain `f64` with nalgebra, for N = 2 … 64: how the DSL's cost grows with the number of
//! coordinates (up to about a dozen the unrolled fast path, beyond it the sweep). Also
//! `mass_matrix` of the DSL model alone, to show where its time goes, and `linearize`,
//! with its cost in units of `accelerations`.
//!
//! The chain: absolute angles q1 … qN from the downward vertical, every link of length
//! `l`, a bob of mass `m` at the end of each link, gravity `g`. The bob positions are
//! `let`s built link by link, the kinetic energy is Σ m/2 (ẋ_k² + ẏ_k²) of their exact
//! time derivatives `dot(x_k)`, `dot(y_k)`, the potential Σ m g y_k. The four models are
//! written out below (a `macro_rules!` cannot generate the body of `lagrangian!`).
//!
//! Before timing, the bench checks at an irregular state with nonzero velocities that the
//! DSL and the hand-derived equations give the same mass matrix and accelerations (to
//! 1e-10 relative), which also validates the hand derivation. After the run it prints a
//! table of ns per call read back from criterion's estimates (not under
//! `cargo test --benches`, which runs each benchmark once without measuring).
//!
//! Run with `cargo bench --bench chain`.

mod common;

use common::estimate;
use criterion::{criterion_group, Criterion};
use lagrange_runtime::linearize::linearize;
use lagrange_runtime::model::Model;
use lagrange_runtime::prelude::*;
use lagrange_test_models::chain::{hand_terms, hand_written, irregular_state, Params};
use lagrange_test_models::{chain, Chain16, Chain32, Chain64};
// criterion 0.8 deprecates `criterion::black_box` in favour of the standard one.
use std::hint::black_box;
use std::time::{Duration, SystemTime};

// The models, from the macro of `lagrange_test_models::chain` (the 16-, 32- and 64-link
// chains are the crate's, shared with the tests).
chain!(Chain2;
    (q1 x1 y1) (q2 x2 y2 x1 y1)
);

chain!(Chain4;
    (q1 x1 y1) (q2 x2 y2 x1 y1) (q3 x3 y3 x2 y2) (q4 x4 y4 x3 y3)
);

chain!(Chain8;
    (q1 x1 y1) (q2 x2 y2 x1 y1) (q3 x3 y3 x2 y2) (q4 x4 y4 x3 y3) (q5 x5 y5 x4 y4)
    (q6 x6 y6 x5 y5) (q7 x7 y7 x6 y6) (q8 x8 y8 x7 y7)
);

chain!(Chain12;
    (q1 x1 y1) (q2 x2 y2 x1 y1) (q3 x3 y3 x2 y2) (q4 x4 y4 x3 y3) (q5 x5 y5 x4 y4)
    (q6 x6 y6 x5 y5) (q7 x7 y7 x6 y6) (q8 x8 y8 x7 y7) (q9 x9 y9 x8 y8) (q10 x10 y10 x9 y9)
    (q11 x11 y11 x10 y10) (q12 x12 y12 x11 y11)
);

chain!(Chain24;
    (q1 x1 y1) (q2 x2 y2 x1 y1) (q3 x3 y3 x2 y2) (q4 x4 y4 x3 y3) (q5 x5 y5 x4 y4)
    (q6 x6 y6 x5 y5) (q7 x7 y7 x6 y6) (q8 x8 y8 x7 y7) (q9 x9 y9 x8 y8) (q10 x10 y10 x9 y9)
    (q11 x11 y11 x10 y10) (q12 x12 y12 x11 y11) (q13 x13 y13 x12 y12) (q14 x14 y14 x13 y13)
    (q15 x15 y15 x14 y14) (q16 x16 y16 x15 y15) (q17 x17 y17 x16 y16) (q18 x18 y18 x17 y17)
    (q19 x19 y19 x18 y18) (q20 x20 y20 x19 y19) (q21 x21 y21 x20 y20) (q22 x22 y22 x21 y21)
    (q23 x23 y23 x22 y22) (q24 x24 y24 x23 y23)
);

chain!(Chain48;
    (q1 x1 y1) (q2 x2 y2 x1 y1) (q3 x3 y3 x2 y2) (q4 x4 y4 x3 y3) (q5 x5 y5 x4 y4)
    (q6 x6 y6 x5 y5) (q7 x7 y7 x6 y6) (q8 x8 y8 x7 y7) (q9 x9 y9 x8 y8) (q10 x10 y10 x9 y9)
    (q11 x11 y11 x10 y10) (q12 x12 y12 x11 y11) (q13 x13 y13 x12 y12) (q14 x14 y14 x13 y13)
    (q15 x15 y15 x14 y14) (q16 x16 y16 x15 y15) (q17 x17 y17 x16 y16) (q18 x18 y18 x17 y17)
    (q19 x19 y19 x18 y18) (q20 x20 y20 x19 y19) (q21 x21 y21 x20 y20) (q22 x22 y22 x21 y21)
    (q23 x23 y23 x22 y22) (q24 x24 y24 x23 y23) (q25 x25 y25 x24 y24) (q26 x26 y26 x25 y25)
    (q27 x27 y27 x26 y26) (q28 x28 y28 x27 y27) (q29 x29 y29 x28 y28) (q30 x30 y30 x29 y29)
    (q31 x31 y31 x30 y30) (q32 x32 y32 x31 y31) (q33 x33 y33 x32 y32) (q34 x34 y34 x33 y33)
    (q35 x35 y35 x34 y34) (q36 x36 y36 x35 y35) (q37 x37 y37 x36 y36) (q38 x38 y38 x37 y37)
    (q39 x39 y39 x38 y38) (q40 x40 y40 x39 y39) (q41 x41 y41 x40 y40) (q42 x42 y42 x41 y41)
    (q43 x43 y43 x42 y42) (q44 x44 y44 x43 y43) (q45 x45 y45 x44 y44) (q46 x46 y46 x45 y45)
    (q47 x47 y47 x46 y46) (q48 x48 y48 x47 y47)
);

/// The group of one N: `chain/N=8`.
fn group_name(n: usize) -> String {
    format!("chain/N={n}")
}

/// Checks the DSL model against the hand-derived equations at an irregular state, then
/// times both (and the DSL mass matrix alone) in group `chain/N=<N>`.
fn compare<D: Dynamics<N> + Model<N, 0>, const N: usize>(c: &mut Criterion, model: &D, p: &Params) {
    let s = irregular_state::<N>();
    let u = SVector::<f64, 0>::zeros();

    // The comparison is only honest if both compute the same thing; this also checks the
    // hand derivation against the DSL's automatic differentiation.
    let (hand_mass, _) = hand_terms(p, &s);
    let dsl_mass = model.mass_matrix(&s, &u);
    let mass_error = (dsl_mass - hand_mass).amax() / hand_mass.amax();
    assert!(
        mass_error <= 1e-10,
        "N = {N}: mass matrices differ by {mass_error:e} relative\nDSL {dsl_mass}hand {hand_mass}"
    );
    let dsl = model.accelerations(&s, &u).expect("regular mass matrix");
    let hand = hand_written(p, &s).expect("positive definite mass matrix");
    let error = (dsl - hand).amax() / hand.amax();
    assert!(
        error <= 1e-10,
        "N = {N}: accelerations differ by {error:e} relative\nDSL {dsl}hand {hand}"
    );

    println!(
        "N = {N}: DSL against hand-derived, largest relative difference: \
         mass matrix {mass_error:.1e}, accelerations {error:.1e}"
    );

    let mut group = c.benchmark_group(group_name(N));
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("dsl", |b| {
        b.iter(|| black_box(model).accelerations(black_box(&s), black_box(&u)))
    });
    group.bench_function("hand", |b| {
        b.iter(|| hand_written(black_box(p), black_box(&s)))
    });
    group.bench_function("dsl_mass_matrix", |b| {
        b.iter(|| black_box(model).mass_matrix(black_box(&s), black_box(&u)))
    });
    let qdd = SVector::<f64, N>::from_fn(|i, _| 0.1 * i as f64 - 0.3);
    group.bench_function("dsl_inverse_dynamics", |b| {
        b.iter(|| black_box(model).inverse_dynamics(black_box(&s), black_box(&qdd), &u))
    });
    group.bench_function("dsl_linearize", |b| {
        b.iter(|| linearize(black_box(model), black_box(&s), black_box(&u)))
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    // Not 1, 1, 1: a misplaced factor of m, l or g would show in the check.
    let p = Params {
        m: 0.8,
        l: 0.6,
        g: 9.81,
    };
    compare(c, &Chain2::new(p.m, p.l, p.g), &p);
    compare(c, &Chain4::new(p.m, p.l, p.g), &p);
    compare(c, &Chain8::new(p.m, p.l, p.g), &p);
    compare(c, &Chain12::new(p.m, p.l, p.g), &p);
    compare(c, &Chain16::new(p.m, p.l, p.g), &p);
    compare(c, &Chain24::new(p.m, p.l, p.g), &p);
    compare(c, &Chain32::new(p.m, p.l, p.g), &p);
    compare(c, &Chain48::new(p.m, p.l, p.g), &p);
    compare(c, &Chain64::new(p.m, p.l, p.g), &p);
}

/// The table N | DSL ns | hand ns | ratio, plus the DSL mass matrix alone and its share of
/// the DSL accelerations.
fn summary(since: SystemTime) {
    let rows: Vec<(usize, [Option<f64>; 4])> = [2, 4, 8, 12, 16, 24, 32, 48, 64]
        .into_iter()
        .map(|n| {
            let group = group_name(n);
            let time = |id| estimate(&group, id, since);
            (
                n,
                [
                    time("dsl"),
                    time("hand"),
                    time("dsl_mass_matrix"),
                    time("dsl_linearize"),
                ],
            )
        })
        .collect();
    if rows
        .iter()
        .all(|(_, times)| times.iter().all(Option::is_none))
    {
        return; // filtered out, or run as a test
    }
    let show = |t: Option<f64>| t.map_or("-".to_string(), |t| format!("{t:.1}"));
    println!(
        "\n{:>3} | {:>12} | {:>10} | {:>8} | {:>16} | {:>10} | {:>14} | {:>12}",
        "N", "DSL ns", "hand ns", "ratio", "DSL mass_matrix", "M share", "linearize ns", "/ DSL"
    );
    for (n, [dsl, hand, mass, lin]) in rows {
        let ratio = match (dsl, hand) {
            (Some(d), Some(h)) => format!("{:.1}x", d / h),
            _ => "-".into(),
        };
        let share = match (dsl, mass) {
            (Some(d), Some(m)) => format!("{:.0}%", 100.0 * m / d),
            _ => "-".into(),
        };
        let per = match (dsl, lin) {
            (Some(d), Some(l)) => format!("{:.0}x", l / d),
            _ => "-".into(),
        };
        println!(
            "{n:>3} | {:>12} | {:>10} | {ratio:>8} | {:>16} | {share:>10} | {:>14} | {per:>12}",
            show(dsl),
            show(hand),
            show(mass),
            show(lin)
        );
    }
}

criterion_group!(benches, bench);

fn main() {
    let since = SystemTime::now();
    benches();
    Criterion::default().configure_from_args().final_summary();
    summary(since);
}
