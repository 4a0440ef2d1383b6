//! A model large enough that `lagrangian!` splits its sweep into functions sharing a tape
//! (`tests/common/large_model.rs`, 16 `let`s of 120 terms over 6 coordinates, written with
//! the table of its terms by `tests/common/large_model.py`). Its equations in closed form:
//! with eᵢ(x) = Σ c · f(x_a) · x_b, gᵢ = ∇eᵢ and Hᵢ = ∇²eᵢ,
//!
//! ```text
//! L = ½ Σᵢ (gᵢ · ẋ)² + |ẋ|² − k Σᵢ eᵢ,   D = 0.1 |ẋ|²,   Q = u along x0
//! M = 2 I + Σᵢ gᵢ gᵢᵀ,   bias = −k Σᵢ gᵢ − Σᵢ (ẋᵀ Hᵢ ẋ) gᵢ − 0.2 ẋ + Q
//! ```
//!
//! (d/dt ∂L/∂ẋ = M ẍ + Σᵢ ((ẋᵀHᵢẋ) gᵢ + (gᵢ·ẋ) Hᵢ ẋ), and ∂L/∂x = Σᵢ (gᵢ·ẋ) Hᵢ ẋ − k Σᵢ gᵢ.)
//! The split sweep's mass matrix, bias, momenta, L, inverse dynamics, gradient and
//! accelerations equal them at the structured states and at random ones; its
//! linearization (the sweep in dual numbers) equals central differences, in the 2 MiB
//! stack of a test thread; each evaluation allocates one block, its tape, and nothing
//! else. That this model's sweep is split, and its mass matrix's columns computed in a
//! loop of split functions, is the macro's unit test
//! (`lagrange-macros/src/tests/sweep.rs`). No generic reference passes here: instantiated
//! over this model's unsplit energies, they took minutes to build.

mod common;

use common::{assert_close, assert_slice_close, Rng};
use lagrange_runtime::model::{Model, Point};
use lagrange_runtime::prelude::*;
use std::hint::black_box;

include!("common/large_model.rs");
include!("common/counting_allocator.rs");

const TOLERANCE: f64 = 1e-11;
const K: f64 = 1.5;

type V = SVector<f64, 6>;
type Mat = SMatrix<f64, 6, 6>;

/// eᵢ's gradient and Hessian at `x`.
fn derivatives(terms: &[(f64, bool, usize, usize)], x: &V) -> (V, Mat) {
    let (mut g, mut h) = (V::zeros(), Mat::zeros());
    for &(c, sin, a, b) in terms {
        // f = c · s(x_a) · x_b, s = sin or cos.
        let (s, ds, dds) = if sin {
            (x[a].sin(), x[a].cos(), -x[a].sin())
        } else {
            (x[a].cos(), -x[a].sin(), -x[a].cos())
        };
        g[a] += c * ds * x[b];
        g[b] += c * s;
        h[(a, a)] += c * dds * x[b];
        h[(a, b)] += c * ds;
        h[(b, a)] += c * ds;
    }
    (g, h)
}

/// The closed form: (M, bias, L).
fn closed_form(s: &State<6>, u: f64) -> (Mat, V, f64) {
    let (x, v) = (s.q, s.qd);
    let mut mass = Mat::identity() * 2.0;
    let mut bias = -0.2 * v;
    bias[0] += u;
    let mut lagrangian = v.dot(&v);
    for terms in &LARGE_TERMS {
        let (g, h) = derivatives(terms, &x);
        let e: f64 = terms
            .iter()
            .map(|&(c, sin, a, b)| c * if sin { x[a].sin() } else { x[a].cos() } * x[b])
            .sum();
        mass += g * g.transpose();
        bias -= K * g + (v.dot(&(h * v))) * g;
        lagrangian += 0.5 * g.dot(&v).powi(2) - K * e;
    }
    (mass, bias, lagrangian)
}

/// At rest at x = 0, moving at x = 0, at rest at a random x, random states.
fn states() -> Vec<(State<6>, SVector<f64, 1>)> {
    let mut rng = Rng(0x5eed_2727);
    let mut random = |r: f64| V::from_fn(|_, _| rng.uniform(-r, r));
    let mut out = vec![
        (State::at_rest(V::zeros()), SVector::zeros()),
        (
            State::new(0.0, V::zeros(), random(1.0)),
            SVector::from([0.7]),
        ),
        (State::at_rest(random(1.0)), SVector::from([-0.3])),
    ];
    for _ in 0..4 {
        out.push((
            State::new(0.4, random(1.0), random(1.0)),
            SVector::from([1.1]),
        ));
    }
    out
}

fn check(what: &str, got: &[f64], want: &[f64]) {
    let scale = want.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    assert_slice_close(got, want, scale, TOLERANCE, what);
}

#[test]
fn the_split_sweep_equals_the_closed_form() {
    let model = Large::default();
    for (k, (s, u)) in states().into_iter().enumerate() {
        let (mass, bias, lagrangian) = closed_form(&s, u[0]);
        let point = Point::new(&s, &u);
        let swept = model.eval_equations_in(&point);
        check(
            &format!("state {k}: M"),
            swept.mass.as_slice(),
            mass.as_slice(),
        );
        check(
            &format!("state {k}: bias"),
            swept.bias.as_slice(),
            bias.as_slice(),
        );
        let momenta = mass * s.qd;
        check(
            &format!("state {k}: momenta"),
            swept.momenta.as_slice(),
            momenta.as_slice(),
        );
        check(&format!("state {k}: L"), &[swept.lagrangian], &[lagrangian]);
        let qdd = [0.3, -1.2, 0.8, 0.0, 2.0, -0.5];
        let residual = model.eval_inverse_dynamics_in(&point, &qdd);
        let expected = mass * V::from(qdd) - bias;
        check(
            &format!("state {k}: inverse dynamics"),
            residual.as_slice(),
            expected.as_slice(),
        );
        let gradient = model.eval_gradient_in(&point);
        check(
            &format!("state {k}: gradient momenta"),
            gradient.momenta.as_slice(),
            momenta.as_slice(),
        );
        let a = model.accelerations(&s, &u).expect("a regular mass matrix");
        let solved = mass.lu().solve(&bias).expect("regular");
        check(
            &format!("state {k}: accelerations"),
            a.as_slice(),
            solved.as_slice(),
        );
    }
}

/// Linearization runs the split sweep in dual numbers: ∂ẍ/∂x and ∂ẍ/∂ẋ against central
/// differences of the accelerations, at the three structured states and two random ones,
/// in the stack `#[test]` threads get.
#[test]
fn the_split_sweep_linearizes_in_a_2_mib_stack() {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let model = Large::default();
            let accelerations = |s: &State<6>, u: &SVector<f64, 1>| {
                model.accelerations(s, u).expect("a regular mass matrix")
            };
            for (s, u) in states().into_iter().take(5) {
                let lin = lagrange_runtime::linearize::linearize(&model, &s, &u)
                    .expect("a regular mass matrix");
                let h = 1e-6;
                for j in 0..6 {
                    for (moved, exact) in [(0, &lin.d_q), (1, &lin.d_qd)] {
                        let (mut plus, mut minus) = (s, s);
                        if moved == 0 {
                            plus.q[j] += h;
                            minus.q[j] -= h;
                        } else {
                            plus.qd[j] += h;
                            minus.qd[j] -= h;
                        }
                        let column =
                            (accelerations(&plus, &u) - accelerations(&minus, &u)) / (2.0 * h);
                        for i in 0..6 {
                            let what = format!("∂ẍ{i}/∂{}{j}", ["x", "ẋ"][moved]);
                            assert_close(exact[(i, j)], column[i], 1.0, 1e-6, &what);
                        }
                    }
                }
            }
        })
        .expect("a thread")
        .join()
        .expect("no panic");
}

/// What the README promises of a split model (`tests/no_allocation.rs` proves that a model
/// that is not split allocates nothing): one allocation per evaluation, its tape, whatever
/// the number of parts, and none for what it returns.
#[test]
fn a_split_evaluation_allocates_its_tape_and_nothing_else() {
    let model = Large::default();
    let (s, u) = states().swap_remove(3);
    let qdd = model.accelerations(&s, &u).expect("a regular mass matrix");
    let x = Point::new(&s, &u);
    type Call<'a> = Box<dyn Fn() + 'a>;
    let calls: [(&str, Call); 5] = [
        (
            "accelerations",
            Box::new(|| _ = black_box(model.accelerations(&s, &u))),
        ),
        (
            "mass_matrix",
            Box::new(|| _ = black_box(model.mass_matrix(&s, &u))),
        ),
        (
            "inverse_dynamics",
            Box::new(|| _ = black_box(model.inverse_dynamics(&s, &qdd, &u))),
        ),
        (
            "eval_equations",
            Box::new(|| _ = black_box(model.eval_equations(&x))),
        ),
        (
            "eval_gradient_in",
            Box::new(|| _ = black_box(model.eval_gradient_in(&x))),
        ),
    ];
    for (name, call) in &calls {
        // The first call of each may initialize what the standard library keeps per thread.
        call();
        assert_eq!(allocations_during(call), 1, "{name}");
    }
}
