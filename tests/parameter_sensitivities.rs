//! ∂q̈/∂p, exact through dual numbers seeded on the parameters: against the closed form of
//! the pendulum, and against central finite differences of models rebuilt with perturbed
//! parameters (a second opinion) for parameters in lets, dissipation, forces, exponents
//! and constraints.

use crate::common;

use common::derivatives::{Derivatives, Part};
use lagrange_runtime::linearize::sensitivities;
use lagrange_runtime::model::Parametric;
use lagrange_runtime::prelude::*;

lagrangian! {
    struct Pendulum {
        parameters: m = 0.7, l = 1.3, g = 9.81, c = 0.2;
        coordinates: theta;
        kinetic = m/2 * l^2 * dot(theta)^2;
        potential = -m * g * l * cos(theta);
        dissipation = c/2 * dot(theta)^2;
    }
}

#[test]
fn pendulum_against_its_closed_form() {
    // θ̈ = −(g/l) sin θ − c θ̇ / (m l²)
    let (m, l, g, c) = (0.7, 1.3, 9.81, 0.2);
    let (th, w) = (0.9f64, -1.4);
    let s = State::new(0.0, SVector::from([th]), SVector::from([w]));
    let d = sensitivities(&Pendulum::default(), &s, &SVector::zeros()).unwrap();
    let expected = [
        c * w / (m * m * l * l),                                // ∂/∂m
        g / (l * l) * th.sin() + 2.0 * c * w / (m * l * l * l), // ∂/∂l
        -th.sin() / l,                                          // ∂/∂g
        -w / (m * l * l),                                       // ∂/∂c
    ];
    for (j, e) in expected.iter().enumerate() {
        let name = <Pendulum as Parametric<1, 0, 4>>::PARAMETERS[j];
        assert!(
            (d[(0, j)] - e).abs() < 1e-13 * e.abs().max(1.0),
            "∂θ̈/∂{name}: {} vs {e}",
            d[(0, j)]
        );
    }
}

lagrangian! {
    /// Everything a parameter can touch: a let of parameters only, a power with a
    /// parameter exponent, dissipation, a force and an input.
    struct Rich {
        parameters: m1 = 1.2, m2 = 0.8, l1 = 1.0, l2 = 0.7, g = 9.81, k = 3.0, n = 3.0, b = 0.1, a = 0.4;
        coordinates: x, th;
        inputs: f;
        let mass = m1 + m2;
        let px = x + l2 * sin(th);
        let py = -l2 * cos(th);
        kinetic = m1/2 * dot(x)^2 + m2/2 * (dot(px)^2 + dot(py)^2);
        potential = k/2 * x^2 + k/20 * x^n + m2 * g * py + mass * 0.0 * l1;
        dissipation = b/2 * dot(x)^2;
        force f * a on px;
    }
}

const RICH: [f64; 9] = [1.2, 0.8, 1.0, 0.7, 9.81, 3.0, 3.0, 0.1, 0.4];

fn rich(p: [f64; 9]) -> Rich {
    Rich::new(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8])
}

#[test]
fn every_kind_of_parameter_against_finite_differences() {
    // x < 0 with the integral exponent n: the power is defined (as x³) there too.
    for (x, th) in [(0.3, 0.5), (-0.4, -1.1)] {
        let s = State::new(0.0, SVector::from([x, th]), SVector::from([0.6, -0.8]));
        let u = SVector::from([1.5]);
        let d = sensitivities(&rich(RICH), &s, &u).unwrap();
        for j in 0..9 {
            // n only enters through x^n, whose derivative in n is x^n ln x: undefined for
            // x < 0 (and a perturbed n makes x^n itself undefined there).
            if j == 6 && x < 0.0 {
                continue;
            }
            let h = 1e-6 * RICH[j].abs().max(1.0);
            let (mut up, mut down) = (RICH, RICH);
            up[j] += h;
            down[j] -= h;
            let fd = (rich(up).accelerations(&s, &u).unwrap()
                - rich(down).accelerations(&s, &u).unwrap())
                / (2.0 * h);
            for i in 0..2 {
                let scale = fd[i].abs().max(1.0);
                assert!(
                    (d[(i, j)] - fd[i]).abs() < 1e-6 * scale,
                    "x = {x}: ∂q̈{i}/∂p{j} = {} vs {}",
                    d[(i, j)],
                    fd[i]
                );
            }
        }
    }
}

// A pendulum in Cartesian coordinates: the parameter l enters the constraint.
use lagrange_test_models::CartesianPendulum as Cartesian;

#[test]
fn constrained_model_against_finite_differences() {
    let (l, th, w) = (1.3f64, 0.8f64, 1.1);
    let s = State::new(
        0.0,
        SVector::from([l * th.sin(), -l * th.cos()]),
        SVector::from([l * w * th.cos(), l * w * th.sin()]),
    );
    let u = SVector::zeros();
    let d = sensitivities(&Cartesian::default(), &s, &u).unwrap();
    let base = [0.7, 1.3, 9.81];
    for j in 0..3 {
        let h = 1e-6;
        let (mut up, mut down) = (base, base);
        up[j] += h;
        down[j] -= h;
        let at = |p: [f64; 3]| {
            Cartesian::new(p[0], p[1], p[2])
                .accelerations(&s, &u)
                .unwrap()
        };
        let fd = (at(up) - at(down)) / (2.0 * h);
        for i in 0..2 {
            assert!(
                (d[(i, j)] - fd[i]).abs() < 1e-6 * fd[i].abs().max(1.0),
                "∂q̈{i}/∂p{j}: {} vs {}",
                d[(i, j)],
                fd[i]
            );
        }
    }
    // The mass cancels out of a pendulum's motion.
    assert!(d.column(0).amax() < 1e-12);
}

/// Every part of `common::derivatives` (these tests check the sensitivities; it also checks
/// the linearization, the sweep and the variational Jacobian) at structured and random
/// states. Rich's `x^n` has no derivative in n for x ≤ 0: its states have x > 0, and a
/// second run at x ≤ 0 (structured at q = 0) leaves out the sensitivities. The Cartesian pendulum's structured states hang (at q = 0 the rod's
/// gradient vanishes).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("Pendulum", &Pendulum::default())
        .standard()
        .check();
    let model = rich(RICH);
    Derivatives::new("Rich", &model)
        .sampler(|rng| {
            let (mut s, u) = common::derivatives::order_one::<2, 1>(rng);
            s.q[0] = 0.1 + s.q[0].abs();
            (s, u)
        })
        .structured_at(SVector::from([0.5, 0.0]))
        .random(3)
        .check();
    Derivatives::new("Rich (x ≤ 0)", &model)
        .sampler(|rng| {
            let (mut s, u) = common::derivatives::order_one::<2, 1>(rng);
            s.q[0] = -s.q[0].abs();
            (s, u)
        })
        .standard()
        .without(
            Part::Sensitivities,
            "x^n is the integer power x³ for x ≤ 0, without a derivative in n: for a \
             perturbed n it is undefined at x < 0, and its derivative in x at x = 0 is 0 · ∞",
        )
        .check();
    let cartesian = Cartesian::default();
    Derivatives::new("Cartesian", &cartesian)
        .structured_at(SVector::from([0.0, -cartesian.l]))
        .random(3)
        .check();
}

lagrangian! {
    /// Eight masses on rods in Cartesian coordinates, a hanging chain: N = 16, K = 8,
    /// P = 10.
    struct RodChain {
        parameters: m1 = 1.0, m2 = 0.9, m3 = 0.8, m4 = 0.7, m5 = 0.6, m6 = 0.5, m7 = 0.4,
                    m8 = 0.3, l = 0.5, g = 9.81;
        coordinates: x1, y1, x2, y2, x3, y3, x4, y4, x5, y5, x6, y6, x7, y7, x8, y8;
        kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * (dot(x2)^2 + dot(y2)^2)
                + m3/2 * (dot(x3)^2 + dot(y3)^2) + m4/2 * (dot(x4)^2 + dot(y4)^2)
                + m5/2 * (dot(x5)^2 + dot(y5)^2) + m6/2 * (dot(x6)^2 + dot(y6)^2)
                + m7/2 * (dot(x7)^2 + dot(y7)^2) + m8/2 * (dot(x8)^2 + dot(y8)^2);
        potential = g * (m1*y1 + m2*y2 + m3*y3 + m4*y4 + m5*y5 + m6*y6 + m7*y7 + m8*y8);
        constraint rod1 = x1^2 + y1^2 - l^2;
        constraint rod2 = (x2 - x1)^2 + (y2 - y1)^2 - l^2;
        constraint rod3 = (x3 - x2)^2 + (y3 - y2)^2 - l^2;
        constraint rod4 = (x4 - x3)^2 + (y4 - y3)^2 - l^2;
        constraint rod5 = (x5 - x4)^2 + (y5 - y4)^2 - l^2;
        constraint rod6 = (x6 - x5)^2 + (y6 - y5)^2 - l^2;
        constraint rod7 = (x7 - x6)^2 + (y7 - y6)^2 - l^2;
        constraint rod8 = (x8 - x7)^2 + (y8 - y7)^2 - l^2;
    }
}

/// Issue 29: the constrained sensitivities evaluated the whole constrained solve in dual
/// vectors as long as the parameters, nested in the mass matrix's second-order duals, and
/// overflowed (SIGABRT) the 2 MiB stack of a spawned thread for this chain. Now in a
/// thread of that size, against finite differences.
#[test]
fn eight_rods_in_a_default_thread_against_finite_differences() {
    let run = || {
        let l = 0.5;
        let (mut q, mut qd) = (SVector::<f64, 16>::zeros(), SVector::<f64, 16>::zeros());
        let (mut x, mut y, mut vx, mut vy) = (0.0f64, 0.0f64, 0.0, 0.0);
        for i in 0..8 {
            let (th, w) = (0.3 + 0.1 * i as f64, 0.5 - 0.15 * i as f64);
            x += l * th.sin();
            y -= l * th.cos();
            vx += l * w * th.cos();
            vy += l * w * th.sin();
            q[2 * i] = x;
            q[2 * i + 1] = y;
            qd[2 * i] = vx;
            qd[2 * i + 1] = vy;
        }
        let s = State::new(0.0, q, qd);
        let u = SVector::zeros();
        let chain = RodChain::default();
        let d = sensitivities(&chain, &s, &u).unwrap();
        let base = chain.parameter_values();
        for j in 0..10 {
            let h = 1e-6 * base[j];
            let at = |dp: f64| {
                let mut p = base;
                p[j] += dp;
                let model =
                    RodChain::new(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]);
                model.accelerations(&s, &u).unwrap()
            };
            let fd = (at(h) - at(-h)) / (2.0 * h);
            let scale = fd.amax().max(1.0);
            for i in 0..16 {
                assert!(
                    (d[(i, j)] - fd[i]).abs() < 1e-5 * scale,
                    "∂q̈{i}/∂p{j}: {} vs {}",
                    d[(i, j)],
                    fd[i]
                );
            }
        }
    };
    let default_size = std::thread::Builder::new().stack_size(2 << 20);
    default_size.spawn(run).unwrap().join().unwrap();
}
