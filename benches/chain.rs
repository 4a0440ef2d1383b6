//! `Dynamics::accelerations` of a planar N-link chain of point masses written naturally in
//! the `lagrangian!` DSL, against the equations of motion derived by hand and solved in
//! plain `f64` with nalgebra, for N = 2, 4, 8, 16: how the DSL's cost grows with the
//! number of coordinates. Also `mass_matrix` of the DSL model alone, to show where its
//! time goes.
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
use lagrange_runtime::prelude::*;
// criterion 0.8 deprecates `criterion::black_box` in favour of the standard one.
use std::hint::black_box;
use std::time::{Duration, SystemTime};

lagrangian! {
    /// Planar chain of 2 links with a point mass at the end of each link.
    pub struct Chain2 {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: q1, q2;

        let x1 = l * sin(q1);
        let y1 = -l * cos(q1);
        let x2 = x1 + l * sin(q2);
        let y2 = y1 - l * cos(q2);

        kinetic = m/2 * (dot(x1)^2 + dot(y1)^2)
            + m/2 * (dot(x2)^2 + dot(y2)^2);
        potential = m*g*y1 + m*g*y2;
    }
}

lagrangian! {
    /// Planar chain of 4 links with a point mass at the end of each link.
    pub struct Chain4 {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: q1, q2, q3, q4;

        let x1 = l * sin(q1);
        let y1 = -l * cos(q1);
        let x2 = x1 + l * sin(q2);
        let y2 = y1 - l * cos(q2);
        let x3 = x2 + l * sin(q3);
        let y3 = y2 - l * cos(q3);
        let x4 = x3 + l * sin(q4);
        let y4 = y3 - l * cos(q4);

        kinetic = m/2 * (dot(x1)^2 + dot(y1)^2)
            + m/2 * (dot(x2)^2 + dot(y2)^2)
            + m/2 * (dot(x3)^2 + dot(y3)^2)
            + m/2 * (dot(x4)^2 + dot(y4)^2);
        potential = m*g*y1 + m*g*y2 + m*g*y3 + m*g*y4;
    }
}

lagrangian! {
    /// Planar chain of 8 links with a point mass at the end of each link.
    pub struct Chain8 {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: q1, q2, q3, q4, q5, q6, q7, q8;

        let x1 = l * sin(q1);
        let y1 = -l * cos(q1);
        let x2 = x1 + l * sin(q2);
        let y2 = y1 - l * cos(q2);
        let x3 = x2 + l * sin(q3);
        let y3 = y2 - l * cos(q3);
        let x4 = x3 + l * sin(q4);
        let y4 = y3 - l * cos(q4);
        let x5 = x4 + l * sin(q5);
        let y5 = y4 - l * cos(q5);
        let x6 = x5 + l * sin(q6);
        let y6 = y5 - l * cos(q6);
        let x7 = x6 + l * sin(q7);
        let y7 = y6 - l * cos(q7);
        let x8 = x7 + l * sin(q8);
        let y8 = y7 - l * cos(q8);

        kinetic = m/2 * (dot(x1)^2 + dot(y1)^2)
            + m/2 * (dot(x2)^2 + dot(y2)^2)
            + m/2 * (dot(x3)^2 + dot(y3)^2)
            + m/2 * (dot(x4)^2 + dot(y4)^2)
            + m/2 * (dot(x5)^2 + dot(y5)^2)
            + m/2 * (dot(x6)^2 + dot(y6)^2)
            + m/2 * (dot(x7)^2 + dot(y7)^2)
            + m/2 * (dot(x8)^2 + dot(y8)^2);
        potential = m*g*y1 + m*g*y2 + m*g*y3 + m*g*y4 + m*g*y5 + m*g*y6 + m*g*y7 + m*g*y8;
    }
}

lagrangian! {
    /// Planar chain of 16 links with a point mass at the end of each link.
    pub struct Chain16 {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12, q13, q14, q15, q16;

        let x1 = l * sin(q1);
        let y1 = -l * cos(q1);
        let x2 = x1 + l * sin(q2);
        let y2 = y1 - l * cos(q2);
        let x3 = x2 + l * sin(q3);
        let y3 = y2 - l * cos(q3);
        let x4 = x3 + l * sin(q4);
        let y4 = y3 - l * cos(q4);
        let x5 = x4 + l * sin(q5);
        let y5 = y4 - l * cos(q5);
        let x6 = x5 + l * sin(q6);
        let y6 = y5 - l * cos(q6);
        let x7 = x6 + l * sin(q7);
        let y7 = y6 - l * cos(q7);
        let x8 = x7 + l * sin(q8);
        let y8 = y7 - l * cos(q8);
        let x9 = x8 + l * sin(q9);
        let y9 = y8 - l * cos(q9);
        let x10 = x9 + l * sin(q10);
        let y10 = y9 - l * cos(q10);
        let x11 = x10 + l * sin(q11);
        let y11 = y10 - l * cos(q11);
        let x12 = x11 + l * sin(q12);
        let y12 = y11 - l * cos(q12);
        let x13 = x12 + l * sin(q13);
        let y13 = y12 - l * cos(q13);
        let x14 = x13 + l * sin(q14);
        let y14 = y13 - l * cos(q14);
        let x15 = x14 + l * sin(q15);
        let y15 = y14 - l * cos(q15);
        let x16 = x15 + l * sin(q16);
        let y16 = y15 - l * cos(q16);

        kinetic = m/2 * (dot(x1)^2 + dot(y1)^2)
            + m/2 * (dot(x2)^2 + dot(y2)^2)
            + m/2 * (dot(x3)^2 + dot(y3)^2)
            + m/2 * (dot(x4)^2 + dot(y4)^2)
            + m/2 * (dot(x5)^2 + dot(y5)^2)
            + m/2 * (dot(x6)^2 + dot(y6)^2)
            + m/2 * (dot(x7)^2 + dot(y7)^2)
            + m/2 * (dot(x8)^2 + dot(y8)^2)
            + m/2 * (dot(x9)^2 + dot(y9)^2)
            + m/2 * (dot(x10)^2 + dot(y10)^2)
            + m/2 * (dot(x11)^2 + dot(y11)^2)
            + m/2 * (dot(x12)^2 + dot(y12)^2)
            + m/2 * (dot(x13)^2 + dot(y13)^2)
            + m/2 * (dot(x14)^2 + dot(y14)^2)
            + m/2 * (dot(x15)^2 + dot(y15)^2)
            + m/2 * (dot(x16)^2 + dot(y16)^2);
        potential = m*g*y1 + m*g*y2 + m*g*y3 + m*g*y4 + m*g*y5 + m*g*y6 + m*g*y7 + m*g*y8
            + m*g*y9 + m*g*y10 + m*g*y11 + m*g*y12 + m*g*y13 + m*g*y14 + m*g*y15 + m*g*y16;
    }
}

/// The chain's parameters, shared by the DSL models and the hand-derived equations.
#[derive(Debug, Clone, Copy)]
struct Params {
    m: f64,
    l: f64,
    g: f64,
}

/// The hand-derived equations of motion of the N-link chain.
///
/// With absolute angles, bob k (1-based) sits at
/// x_k = l Σ_{i≤k} sin q_i, y_k = −l Σ_{i≤k} cos q_i, so
/// ẋ_k = l Σ_{i≤k} cos q_i q̇_i, ẏ_k = l Σ_{i≤k} sin q_i q̇_i and
/// ẋ_k² + ẏ_k² = l² Σ_{i,j≤k} cos(q_i − q_j) q̇_i q̇_j.
/// Summing over the bobs, the pair (i, j) appears once for every k ≥ max(i, j), that is
/// c_ij = N − max(i, j) + 1 times:
///
/// ```text
/// T = ½ Σ_ij M_ij q̇_i q̇_j,   M_ij = m l² c_ij cos(q_i − q_j)
/// V = m g Σ_k y_k = −m g l Σ_i (N − i + 1) cos q_i        (q_i is in bobs i … N)
/// ```
///
/// Euler–Lagrange for q_i, with ∂M_ij/∂q_i = −m l² c_ij sin(q_i − q_j) (j ≠ i; zero for
/// j = i) and the symmetric contribution from M_ji:
///
/// ```text
/// d/dt ∂T/∂q̇_i = Σ_j M_ij q̈_j − Σ_j m l² c_ij sin(q_i − q_j) (q̇_i − q̇_j) q̇_j
/// ∂T/∂q_i      = −Σ_j m l² c_ij sin(q_i − q_j) q̇_i q̇_j
/// ∂V/∂q_i      = m g l (N − i + 1) sin q_i
/// ```
///
/// The q̇_i q̇_j terms cancel, leaving
///
/// ```text
/// Σ_j M_ij q̈_j = −Σ_j m l² c_ij sin(q_i − q_j) q̇_j² − m g l (N − i + 1) sin q_i
/// ```
///
/// solved by nalgebra's Cholesky on stack matrices (M is symmetric positive definite).
/// cos(q_i − q_j) and sin(q_i − q_j) come from the N sines and cosines of the angles.
/// Indices below are 0-based: c_ij = N − max(i, j), N − i + 1 becomes N − i.
/// `None` when the mass matrix is not positive definite (it always is, for l, m > 0).
#[inline(never)]
fn hand_written<const N: usize>(p: &Params, s: &State<N>) -> Option<SVector<f64, N>> {
    let (mass, rhs) = hand_terms(p, s);
    Some(mass.cholesky()?.solve(&rhs))
}

/// The hand-derived mass matrix and right-hand side (see [`hand_written`]).
#[inline(always)]
fn hand_terms<const N: usize>(p: &Params, s: &State<N>) -> (SMatrix<f64, N, N>, SVector<f64, N>) {
    let Params { m, l, g } = *p;
    let (ml2, mgl) = (m * l * l, m * g * l);
    let sc: [(f64, f64); N] = std::array::from_fn(|i| s.q[i].sin_cos());
    let mut mass = SMatrix::<f64, N, N>::zeros();
    let mut rhs = SVector::<f64, N>::zeros();
    for i in 0..N {
        let (si, ci) = sc[i];
        let mut r = -mgl * (N - i) as f64 * si;
        for j in 0..N {
            let (sj, cj) = sc[j];
            let w = ml2 * (N - i.max(j)) as f64;
            // cos(q_i − q_j), sin(q_i − q_j)
            let (cos_ij, sin_ij) = (ci * cj + si * sj, si * cj - ci * sj);
            mass[(i, j)] = w * cos_ij;
            r -= w * sin_ij * s.qd[j] * s.qd[j];
        }
        rhs[i] = r;
    }
    (mass, rhs)
}

/// An irregular state: no symmetry, no zero velocity, angles up to about ±1.3 rad.
fn irregular_state<const N: usize>() -> State<N> {
    let q = SVector::from_fn(|i, _| 0.9 * (1.7 * i as f64 + 0.4).sin() + 0.05 * i as f64);
    let qd = SVector::from_fn(|i, _| 1.3 * (2.3 * i as f64 + 1.1).cos() + 0.3);
    State::new(0.37, q, qd)
}

/// The group of one N: `chain/N=8`.
fn group_name(n: usize) -> String {
    format!("chain/N={n}")
}

/// Checks the DSL model against the hand-derived equations at an irregular state, then
/// times both (and the DSL mass matrix alone) in group `chain/N=<N>`.
fn compare<D: Dynamics<N>, const N: usize>(c: &mut Criterion, model: &D, p: &Params) {
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
    compare(c, &Chain16::new(p.m, p.l, p.g), &p);
}

/// The table N | DSL ns | hand ns | ratio, plus the DSL mass matrix alone and its share of
/// the DSL accelerations.
fn summary(since: SystemTime) {
    let rows: Vec<(usize, [Option<f64>; 3])> = [2, 4, 8, 16]
        .into_iter()
        .map(|n| {
            let group = group_name(n);
            let time = |id| estimate(&group, id, since);
            (n, [time("dsl"), time("hand"), time("dsl_mass_matrix")])
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
        "\n{:>3} | {:>12} | {:>10} | {:>8} | {:>16} | {:>10}",
        "N", "DSL ns", "hand ns", "ratio", "DSL mass_matrix", "M share"
    );
    for (n, [dsl, hand, mass]) in rows {
        let ratio = match (dsl, hand) {
            (Some(d), Some(h)) => format!("{:.1}x", d / h),
            _ => "-".into(),
        };
        let share = match (dsl, mass) {
            (Some(d), Some(m)) => format!("{:.0}%", 100.0 * m / d),
            _ => "-".into(),
        };
        println!(
            "{n:>3} | {:>12} | {:>10} | {ratio:>8} | {:>16} | {share:>10}",
            show(dsl),
            show(hand),
            show(mass)
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
