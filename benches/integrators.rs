//! Steps per second of each integrator on the double pendulum of
//! `examples/double_pendulum.rs` (without its units: `lagrange_test_models::DoublePendulum`),
//! and what the integrators add on top of the model.
//!
//! Group `integrators` times one `Integrator::step` call each of `Rk4` (h = 1e-3),
//! `DormandPrince` (rtol 1e-8, atol 1e-10; an accepted step with an adapted step size,
//! the memory prepared by `start`) and `Variational` (h = 1e-3, after 20 steps, so that
//! it predicts from the last step as in a run), and one call of
//! `Dynamics::accelerations` alone, so that the integrators' own overhead can be
//! computed: RK4 overhead = time(step) − 4·time(accelerations). Group `simulation` times
//! a whole `Simulation::run` of 1000 RK4 steps, recording state and energy at each, to
//! show the driver's cost, the same 1000 steps in a bare loop of `Integrator::step` to
//! compare it with, and `Dynamics::energy` alone, the driver's main addition.
//! Throughputs are in steps (evaluations for `accelerations` and `energy`).
//!
//! Before measuring, the bench checks that each integrator steps as expected (function
//! evaluations per step, heap allocations per step); after measuring, it prints a table
//! of ns per step, steps/s and the RK4 overhead read back from criterion's estimates.
//!
//! Run with `cargo bench --bench integrators`.

mod common;

use common::estimate;
use criterion::{criterion_group, Criterion, Throughput};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Integrator, Rk4, Simulation, Variational};
use std::alloc::{GlobalAlloc, Layout, System};
// criterion 0.8 deprecates `criterion::black_box` in favour of the standard one.
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use lagrange_test_models::DoublePendulum;

/// The system allocator, counting allocations, to check that a step allocates nothing.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged; the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (every allocation is).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as for `alloc` and `dealloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const H: f64 = 1e-3;
const GROUP: &str = "integrators";
const RUN_GROUP: &str = "simulation";
const RUN_STEPS: usize = 1000;

type Inputs<'a> = dyn FnMut(f64, &State<2>) -> SVector<f64, 0> + 'a;

/// Takes `steps` steps of `integrator` from `s` and the memory `start` prepares there;
/// returns the final state and memory, the evaluations of the dynamics (calls of the
/// control law) and the heap allocations made by the last step.
fn advance<I: Integrator<DoublePendulum, 2, 0>>(
    model: &DoublePendulum,
    integrator: &I,
    s: State<2>,
    steps: usize,
) -> (State<2>, I::Memory, usize, usize) {
    let mut evaluations = 0;
    let mut inputs = |_: f64, _: &State<2>| {
        evaluations += 1;
        SVector::zeros()
    };
    let mut memory = integrator
        .start(model, &s, &mut inputs)
        .expect("valid settings");
    let mut s = s;
    let mut allocations = 0;
    for _ in 0..steps {
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        s = integrator
            .step(model, &mut memory, &s, &mut inputs, f64::INFINITY)
            .expect("the step succeeds");
        allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    }
    (s, memory, evaluations, allocations)
}

/// Evaluations of the dynamics and heap allocations of one step from `(s, memory)`.
fn probe<I: Integrator<DoublePendulum, 2, 0>>(
    model: &DoublePendulum,
    integrator: &I,
    s: &State<2>,
    memory: &I::Memory,
) -> (usize, usize, State<2>)
where
    I::Memory: Copy,
{
    let mut evaluations = 0;
    let mut inputs = |_: f64, _: &State<2>| {
        evaluations += 1;
        SVector::zeros()
    };
    let mut memory = *memory;
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let next = integrator
        .step(model, &mut memory, s, &mut inputs, f64::INFINITY)
        .expect("the step succeeds");
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    (evaluations, allocations, next)
}

fn bench(c: &mut Criterion) {
    let model = DoublePendulum::default();
    let u = SVector::<f64, 0>::zeros();
    let zero = |_: f64, _: &State<2>| SVector::<f64, 0>::zeros();
    // The example's start, then one second of motion, so that the velocities are not zero.
    let rest = State::new(0.0, SVector::from([2.0, 1.0]), SVector::zeros());
    let rk4 = Rk4::new(H);
    let (s, (), _, _) = advance(&model, &rk4, rest, 1000);

    let dopri = DormandPrince::new(1e-8, 1e-10);
    let variational = Variational::new(H);
    // Memories prepared by `start` at `s`, then a few steps, so that the timed step is an
    // ordinary one of a run: Dormand–Prince's step size has adapted, and the variational
    // integrator predicts its positions from the last step's acceleration.
    let (s_dp, mem_dp, _, _) = advance(&model, &dopri, s, 20);
    let (s_var, mem_var, _, _) = advance(&model, &variational, s, 20);

    let (rk4_evals, rk4_allocs, _) = probe(&model, &rk4, &s, &());
    let (dp_evals, dp_allocs, dp_next) = probe(&model, &dopri, &s_dp, &mem_dp);
    let (var_evals, var_allocs, _) = probe(&model, &variational, &s_var, &mem_var);
    let (_, _, dp_first_evals, _) = advance(&model, &dopri, s, 1);
    assert_eq!(rk4_evals, 4, "RK4 evaluates the dynamics 4 times per step");
    assert_eq!(
        dp_evals, 6,
        "an accepted FSAL Dormand–Prince step evaluates 6 times"
    );
    println!(
        "per step: RK4 {rk4_evals} evaluations, {rk4_allocs} allocations; \
         Dormand-Prince {dp_evals} evaluations (h = {:.3e}), {dp_allocs} allocations \
         (start + first step: {dp_first_evals} evaluations); \
         variational {var_evals} input calls, {var_allocs} allocations",
        dp_next.t - s_dp.t
    );

    let mut group = c.benchmark_group(GROUP);
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(1));
    group.bench_function("accelerations", |b| {
        b.iter(|| black_box(&model).accelerations(black_box(&s), black_box(&u)))
    });
    group.bench_function("rk4_step", |b| {
        let mut inputs = zero;
        b.iter(|| {
            let inputs: &mut Inputs<'_> = &mut inputs;
            let mut memory = ();
            rk4.step(
                black_box(&model),
                &mut memory,
                black_box(&s),
                inputs,
                f64::INFINITY,
            )
        })
    });
    group.bench_function("dopri_step", |b| {
        let mut inputs = zero;
        b.iter(|| {
            let inputs: &mut Inputs<'_> = &mut inputs;
            let mut memory = black_box(mem_dp);
            dopri.step(
                black_box(&model),
                &mut memory,
                black_box(&s_dp),
                inputs,
                f64::INFINITY,
            )
        })
    });
    group.bench_function("variational_step", |b| {
        let mut inputs = zero;
        b.iter(|| {
            let inputs: &mut Inputs<'_> = &mut inputs;
            let mut memory = black_box(mem_var);
            variational.step(
                black_box(&model),
                &mut memory,
                black_box(&s_var),
                inputs,
                f64::INFINITY,
            )
        })
    });
    group.finish();

    // The driver: 1000 steps of h = 1e-3 over one second, a sample recorded after each.
    let t_end = s.t + RUN_STEPS as f64 * H;
    let run = || Simulation::new(black_box(&model), black_box(s)).run(&rk4, t_end);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let samples = run().expect("the run succeeds").len();
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    assert_eq!(samples, RUN_STEPS + 1, "the run takes {RUN_STEPS} steps");
    println!("Simulation::run of {RUN_STEPS} RK4 steps: {allocations} allocations");
    let mut group = c.benchmark_group(RUN_GROUP);
    // A run takes about a millisecond: 50 samples fit in the 3 s.
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50)
        .throughput(Throughput::Elements(1));
    // What the driver computes for each sample besides the step.
    group.bench_function("energy", |b| {
        b.iter(|| black_box(&model).energy(black_box(&s), black_box(&u)))
    });
    group.throughput(Throughput::Elements(RUN_STEPS as u64));
    group.bench_function("rk4_run_1000_steps", |b| b.iter(run));
    // The same 1000 steps in a bare loop of `Integrator::step`, nothing recorded: the
    // run minus this is the driver's cost, on the very same states.
    group.bench_function("rk4_loop_1000_steps", |b| {
        let mut inputs = zero;
        b.iter(|| {
            let inputs: &mut Inputs<'_> = &mut inputs;
            let model = black_box(&model);
            let mut s = black_box(s);
            while s.t < t_end {
                s = rk4
                    .step(model, &mut (), &s, inputs, t_end)
                    .expect("the step succeeds");
            }
            s
        })
    });
    group.finish();
}

/// The table of ns per step, steps/s and overheads, from criterion's estimates.
fn summary(since: SystemTime) {
    let rows = [
        ("accelerations", GROUP, "accelerations", 1),
        ("RK4 step", GROUP, "rk4_step", 1),
        ("Dormand-Prince step", GROUP, "dopri_step", 1),
        ("variational step", GROUP, "variational_step", 1),
        ("energy", RUN_GROUP, "energy", 1),
        (
            "RK4 loop, no recording",
            RUN_GROUP,
            "rk4_loop_1000_steps",
            RUN_STEPS,
        ),
        (
            "Simulation::run RK4",
            RUN_GROUP,
            "rk4_run_1000_steps",
            RUN_STEPS,
        ),
    ];
    let times: Vec<Option<f64>> = rows
        .iter()
        .map(|&(_, group, id, steps)| estimate(group, id, since).map(|t| t / steps as f64))
        .collect();
    if times.iter().all(Option::is_none) {
        return; // filtered out, or run as a test
    }
    println!("\n{:<22} {:>12} {:>14}", "", "ns/step", "steps/s");
    for ((name, ..), time) in rows.iter().zip(&times) {
        match time {
            Some(t) => println!("{name:<22} {t:>12.1} {:>14.3e}", 1e9 / t),
            None => println!("{name:<22} {:>12} {:>14}", "-", "-"),
        }
    }
    if let (Some(acc), Some(step)) = (times[0], times[1]) {
        let overhead = step - 4.0 * acc;
        println!(
            "RK4 overhead: {overhead:.1} ns = {:.1}% of the step (limit 20%)",
            100.0 * overhead / step
        );
    }
    if let (Some(acc), Some(step)) = (times[0], times[2]) {
        let overhead = step - 6.0 * acc;
        println!(
            "Dormand-Prince overhead: {overhead:.1} ns = {:.1}% of the step (6 evaluations)",
            100.0 * overhead / step
        );
    }
    if let (Some(step), Some(run)) = (times[5], times[6]) {
        println!(
            "driver overhead: {:.1} ns per step = {:.1}% of a driven step{}",
            run - step,
            100.0 * (run - step) / run,
            match times[4] {
                Some(energy) => format!(", of which energy {energy:.1} ns"),
                None => String::new(),
            }
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
