//! The generated fast path equals plain num-dual evaluation on random states to 1e-12.
//!
//! `lagrangian!` generates `Model::eval_equations`: the mass matrix ∂²L/∂q̇², the momenta
//! ∂L/∂q̇, the bias ∂L/∂q − ∂²L/∂q̇∂q q̇ − ∂²L/∂q̇∂t + Q and the value of L, in plain `f64`
//! arithmetic specialised to the model. The reference is
//! `passes::equations_in`, the generic forward-mode passes of num-dual numbers through
//! the model's terms. For every model below, at structured states (all zero, at rest,
//! moving at q = 0, upright, symmetric) and at least 200 random ones (q, q̇ and u of
//! order 1, t in [0, 10]) the fast path must exist and every entry of every quantity must
//! agree with the reference to 1e-12 relative to the largest magnitude of that quantity:
//! |fast − reference| ≤ 1e-12 · max(1, max |reference|).
//!
//! Together the models use every feature of the language the fast path must handle:
//! positions as `let`s and `dot` of them (double pendulum, 4-link chain), every function
//! in free and method syntax, integer, negative, real, parametric and variable powers,
//! divisions, `pi`, unary minus, kinetic energies that are not quadratic in q̇
//! (relativistic particle, functions of velocities) or have terms linear in q̇ (rotating
//! frame), explicit time in T, V and positions (driven pivot), inputs in T, V, D and
//! forces, dissipation, `force … on` a coordinate and on position expressions, a model
//! without potential, `let`s of parameters and literals, user names that look like
//! internal ones, and constrained models (holonomic and nonholonomic: the fast path gives
//! their unconstrained terms). On some models `Dynamics::accelerations` must also equal
//! the solution of the reference equations.
//!
//! Every model is also compared through its sweep (`Model::eval_equations_in`, the
//! forward-over-reverse code large models use, `eval_inverse_dynamics_in`, and
//! `eval_gradient_in` in `f64` and, along a random direction, in dual numbers: the
//! variational integrators' residual and Newton Jacobian). The planar
//! chains of 32 and 64 links, past the unrolled path, are compared at fewer states (the
//! reference needs a dense Hessian per number: run in a thread with a large stack), and
//! their linearization, equilibrium and sensitivities are checked against closed forms
//! in a thread of 2 MiB, the stack `#[test]` threads get.

use crate::common;

use common::derivatives::{order_one, Derivatives};
use lagrange_runtime::__private::passes;
use lagrange_runtime::linearize::{linearize, sensitivities};
use lagrange_runtime::model::{Gradient, Model, Point};
use lagrange_runtime::num_dual::Dual64;
use lagrange_runtime::prelude::*;
use lagrange_runtime::stability::Stability;
use lagrange_runtime::steady::equilibrium;
use lagrange_test_models::chain::{hand_terms, hand_written, irregular_state, Params};

chain!(Chain8;
    (q1 x1 y1) (q2 x2 y2 x1 y1) (q3 x3 y3 x2 y2) (q4 x4 y4 x3 y3) (q5 x5 y5 x4 y4)
    (q6 x6 y6 x5 y5) (q7 x7 y7 x6 y6) (q8 x8 y8 x7 y7)
);
use lagrange_test_models::{chain, Chain16, Chain32, Chain64};

// ---------------------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------------------

use lagrange_test_models::DoublePendulum;

lagrangian! {
    /// Planar 4-link chain of point masses, positions as lets.
    pub struct Chain4 {
        parameters: m1 = 1.0, m2 = 0.8, m3 = 0.6, m4 = 0.5,
                    l1 = 1.0, l2 = 0.9, l3 = 0.8, l4 = 0.7, g = 9.81;
        coordinates: th1, th2, th3, th4;

        let x1 = l1 * sin(th1);
        let y1 = -l1 * cos(th1);
        let x2 = x1 + l2 * sin(th2);
        let y2 = y1 - l2 * cos(th2);
        let x3 = x2 + l3 * sin(th3);
        let y3 = y2 - l3 * cos(th3);
        let x4 = x3 + l4 * sin(th4);
        let y4 = y3 - l4 * cos(th4);

        kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * (dot(x2)^2 + dot(y2)^2)
                + m3/2 * (dot(x3)^2 + dot(y3)^2) + m4/2 * (dot(x4)^2 + dot(y4)^2);
        potential = g * (m1*y1 + m2*y2 + m3*y3 + m4*y4);
    }
}

lagrangian! {
    /// sin cos tan asin acos atan atan2 in free syntax, with arguments mixing q, q̇, t, u.
    pub struct TrigFunctions {
        parameters: k = 0.8, c = 1.3;
        coordinates: a, b;
        inputs: w;

        let s1 = sin(a) * cos(b);

        kinetic = (2 + sin(a))/2 * dot(a)^2 + (3 + cos(a*b))/2 * dot(b)^2 + k * dot(s1)^2
                + 0.1 * tan(0.3*a + 0.1*dot(b))
                + 0.1 * asin(0.3 * sin(a + 0.2*dot(a)))
                + 0.1 * acos(0.2 * cos(b - 0.1*a*dot(b)))
                + 0.1 * atan(a*dot(b) + 0.3*t)
                + 0.1 * atan2(1 + 0.5*sin(b*dot(a)), 2 + cos(b*t));
        potential = c*s1 - tan(0.2*b)*w + asin(0.4*sin(b + w)) + acos(0.3*cos(a*t))
                  + atan2(a, 2 + b^2) + atan(w*b) + atan2(sin(t), 1.5 + cos(a));
    }
}

lagrangian! {
    /// sinh cosh tanh exp ln log10 sqrt cbrt abs in free syntax.
    pub struct HyperbolicFunctions {
        parameters: m = 1.2, k = 0.6;
        coordinates: x, y;
        inputs: v;

        kinetic = m/2 * cosh(0.3*x) * dot(x)^2 + m/2 * (1 + tanh(y)^2) * dot(y)^2
                + 0.1 * sinh(0.2*x*dot(y))
                + 0.1 * exp(0.3*y*dot(x) - 0.1*t)
                + 0.1 * ln(2 + dot(x)^2 + x^2)
                + 0.1 * log10(3 + sin(x*dot(y)))
                + 0.1 * sqrt(1 + y^2 + dot(y)^2)
                + 0.1 * cbrt(5 + x*dot(x))
                + 0.1 * abs(x - 0.5*dot(y)) * dot(x)
                + 0.1 * v * tanh(dot(x) - y);
        potential = k * (exp(-x^2) + ln(2 + y^2) + log10(2 + x^2 + v^2) + sqrt(1 + x^2*y^2)
                  + cbrt(x + 4) + abs(y - v) + sinh(0.3*y) + cosh(0.2*x*v) + tanh(x*t/10));
    }
}

lagrangian! {
    /// Every function in method syntax (chained too), `dot(…)` as a receiver, and
    /// `powi`, `powf`, `hypot` in free syntax; `dot` in method syntax (`x.dot()`), which the
    /// macro accepts too.
    pub struct MethodFunctions {
        parameters: m = 1.0, k = 0.5;
        coordinates: x, y;
        inputs: v;

        let r = x.hypot(y + 0.5);
        let ang = (y + 3).atan2(x);

        kinetic = m/2 * (1 + 0.1*x.sin().powi(2)) * dot(x)^2 + m/2 * (2 + y.cos()) * dot(y)^2
                + 0.1 * (0.2*x + 0.1*dot(y)).tan()
                + 0.1 * (0.3*(y*dot(x)).sin()).asin()
                + 0.1 * (0.2*(x - dot(x)).cos()).acos()
                + 0.1 * (x*dot(y)).atan()
                + 0.1 * (0.3*x*dot(x)).sinh() + 0.1 * (0.2*y*dot(y)).cosh()
                + 0.1 * (x + dot(y)).tanh() + 0.1 * (0.2*dot(x)*y).exp()
                + dot(r)^2/2 + dot(ang)^2/4 + 0.1*x.dot()*ang.dot()
                + 0.1 * (2 + dot(x)^2).ln() + 0.1 * (2 + x^2*dot(y)^2).log10()
                + 0.1 * (1 + dot(x)^2 + dot(y)^2).sqrt() + 0.1 * (5 + x*dot(y)).cbrt()
                + 0.1 * (x - 0.3*dot(x)).abs() * dot(y)
                + 0.01 * dot(x).powi(4) + 0.1 * (2 + dot(y)^2).powf(0.5 + 0.1*x)
                + 0.1 * dot(x).hypot(1 + y^2) + 0.1 * dot(y).atan2(2 + x^2);
        potential = k * (r.powi(2) + (0.5*x).exp() + (3 + y).ln() + (2 + x^2).log10()
                  + (1 + y^2).sqrt() + (x + 4).cbrt() + (x - v).abs() + (0.3*y).sinh()
                  + (0.2*x).cosh() + (x*y).tanh() + (0.4*x.sin()).asin() + (0.3*y.cos()).acos()
                  + (x + v).atan() + (0.5*x).tan().sin())
                  + powi(x, 3)/6 + powi(3 + y, -2) + powf(2 + x^2, 0.5 + 0.1*v)
                  + hypot(x, v + 2) + v*ang;
    }
}

lagrangian! {
    /// Integer, negative, real, parametric and variable powers; divisions by a constant, a
    /// parameter and an expression; `pi`; unary minus; lets of literals.
    pub struct Powers {
        parameters: m = 1.0, k = 2.5, c = 0.7;
        coordinates: q1, q2;
        inputs: u1;

        let half = 1/2;
        let base = 2 + q1^2;

        kinetic = half*m*(dot(q1)^2 + (1 + q1^2/3)*dot(q2)^2)
                + c*dot(q1)^3/10 + dot(q1)^4/24 + (1 + dot(q2)^2)^1.5/(5*m)
                + (1.5 + sin(q2))^-1 * dot(q1)*dot(q2)/4
                + (2 + dot(q1)^2)^(0.5 + 0.05*q2)/10
                + dot(q2)*q1^2/(2 + cos(q2))/5;
        potential = base^(1 + 0.1*q2) + (2 + cos(q1))^k + (3 + q2)^1.5 + (3 + q1)^-2
                  + 2^(0.3*q1) + 1.1^q2^2 + q1^3/6 - q2^2/2*c - -q1/3 + q2/c
                  + q1/(2 + cos(q2)) + pi*q1 - (q1 - q2)^2/m + (2 + q1^2)^(1 + 0.1*u1)
                  + u1^2*q2 + c*q2^1 + q1^0 + (1 + q2^2)^0.5 + (1 + q1^2)^-0.5
                  - m*q1^2/2/(1 + u1^2) + pi/4*cos(pi*q2/3);
    }
}

lagrangian! {
    /// Relativistic particle in a harmonic well: T is not quadratic in the velocities.
    pub struct Relativistic {
        parameters: m = 1.0, c = 4.0, k = 0.5;
        coordinates: x, y;

        kinetic = -m*c^2*sqrt(1 - (dot(x)^2 + dot(y)^2)/c^2);
        potential = k/2*(x^2 + y^2);
    }
}

lagrangian! {
    /// A particle in a rotating frame (or a magnetic field): T has a term linear in q̇.
    pub struct RotatingFrame {
        parameters: m = 1.3, w = 0.7, k = 1.1;
        coordinates: x, y;

        kinetic = m/2*(dot(x)^2 + dot(y)^2) + w*(x*dot(y) - y*dot(x)) + m*w^2/2*(x^2 + y^2);
        potential = k/2*(x^2 + 2*y^2);
    }
}

lagrangian! {
    /// A pendulum on a spring-mounted cart whose pivot is driven: explicit time in T, in
    /// V, in the positions and in the point a force acts on.
    pub struct DrivenPendulum {
        parameters: m = 1.0, l = 1.2, g = 9.81, a = 0.3, w = 2.5, b = 0.1, ks = 3.0, mc = 2.0;
        coordinates: s, th;

        let xp = s + a*sin(w*t);
        let yp = b*cos(2*w*t);
        let x = xp + l*sin(th);
        let y = yp - l*cos(th);

        kinetic = mc/2*(1 + 0.1*sin(t))*dot(xp)^2 + m/2*(dot(x)^2 + dot(y)^2)
                + 0.05*t*dot(th)^2/(1 + t) + 0.1*dot(l*sin(th) + t*s);
        potential = m*g*(1 + 0.05*cos(3*t))*y + ks/2*(s - 0.2*sin(t))^2;
        force -0.2*dot(x) + 0.1*sin(t) on x;
        force 0.3*cos(w*t) on yp + s*t/10;
    }
}

lagrangian! {
    /// A cart-pole with inputs in V, in the dissipation and in forces; forces on
    /// coordinates and on position expressions, depending on velocities and inputs.
    pub struct ActuatedCartPole {
        parameters: mc = 1.5, mp = 0.4, l = 0.8, g = 9.81, k = 2.0, c1 = 0.3, c2 = 0.2, c3 = 0.1;
        coordinates: x, th;
        inputs: fx, tau, x0;

        let px = x + l*sin(th);
        let py = -l*cos(th);

        kinetic = mc/2*dot(x)^2 + mp/2*(dot(px)^2 + dot(py)^2);
        potential = mp*g*py + k/2*(x - x0)^2 + 0.1*tau*th*x0;
        dissipation = c1/2*dot(x)^2 + c2/2*(dot(px)^2 + dot(py)^2)
                    + c3*(1 + x0^2)/2*dot(th)^2 + 0.05*dot(x)^2*dot(th)^2;
        force fx on x;
        force tau - 0.1*dot(th) on th;
        force -c2*dot(px)*abs(dot(px)) + 0.3*fx*dot(th) on px;
        force 0.5*tau*sin(t) on x + l*sin(th);
        force x0*dot(py) on py;
        force fx*dot(x) on l*cos(th)*x;
    }
}

lagrangian! {
    /// A free particle in polar coordinates with a rotor: no potential.
    pub struct NoPotential {
        parameters: m = 1.0, I = 0.3;
        coordinates: r, phi;

        kinetic = m/2*(dot(r)^2 + r^2*dot(phi)^2) + I/2*dot(phi)^2;
    }
}

lagrangian! {
    /// A point at x = a·b on a line, and a kinetic term of each coordinate so that M is
    /// regular: ∂L/∂a and ∂²L/∂ȧ∂w both hold m ẋ ∂ẋ/∂a = m (ȧ b + a ḃ) ḃ, which cancels
    /// in the right-hand side −m ∂x/∂a ẍ|q̈=0 = −2 m b ȧ ḃ.
    pub struct ProductPosition {
        parameters: m = 1.0, k = 1.0;
        coordinates: a, b;

        let x = a * b;
        kinetic = m/2 * dot(x)^2 + k/2 * (dot(a)^2 + dot(b)^2);
    }
}

lagrangian! {
    /// Lets that depend only on parameters (and on literals); a parameter without default.
    pub struct ParameterLets {
        parameters: m = 2.0, l = 0.9, g = 9.81, k;
        coordinates: th, z;

        let J = m*l^2/3;
        let w0 = sqrt(g/l);
        let L1 = 2*l;
        let half = 1/2;
        let three = 3;

        kinetic = half*J*dot(th)^2 + m/2*dot(z)^2 + 0.1*m*L1*cos(th)*dot(th)*dot(z);
        potential = J*w0^2*(1 - cos(th)) + k/2*z^2 + three;
    }
}

lagrangian! {
    /// A bead on a hoop spinning at the input rate W: an input in T, one coordinate.
    pub struct Bead {
        parameters: m = 0.5, R = 0.8, g = 9.81;
        coordinates: th;
        inputs: W;

        kinetic = m/2*R^2*(dot(th)^2 + W^2*sin(th)^2);
        potential = -m*g*R*cos(th);
    }
}

lagrangian! {
    /// User names that look like names generated code might use internally.
    pub struct Internals {
        parameters: N = 1.0, M = 2.0, J = 0.5, L1 = 0.8;
        coordinates: q, qd;
        inputs: u;

        let s = L1*sin(q);
        let state = s + qd;
        let mass = M*(1 + 0.1*cos(q));
        let bias = N*u;
        let e = 2;
        let p = state*e;
        let v = dot(state);
        let d = q - qd;
        let i = 1;
        let j = 0.5;
        let n = 3;
        let re = cos(qd);
        let eps = 0.01;
        let out = re*d;
        let f = p/n;
        let apply = q*qd;
        let lagrangian = j*mass;
        let momenta = i*J;

        kinetic = mass/2*dot(q)^2 + momenta/2*dot(qd)^2 + M/4*v^2 + eps*dot(d)*dot(apply)
                + lagrangian*dot(out)^2/10;
        potential = bias*state + e*q^2/2 + N*qd^2 + f + u*apply;
        dissipation = eps*v^2 + bias^2*dot(qd)^2/10;
        force u*dot(q) on s;
    }
}

lagrangian! {
    /// A pendulum in Cartesian coordinates held by a holonomic constraint.
    pub struct CartesianPendulum {
        parameters: m = 1.0, l = 1.0, g = 9.81, c = 0.05;
        coordinates: x, y;

        kinetic = m/2*(dot(x)^2 + dot(y)^2);
        potential = m*g*y;
        dissipation = c/2*(dot(x)^2 + dot(y)^2);
        constraint rod = x^2 + y^2 - l^2;
    }
}

lagrangian! {
    /// A knife edge: a nonholonomic constraint, inputs in forces, no potential.
    pub struct KnifeEdge {
        parameters: m = 1.0, J = 0.2, c = 0.1;
        coordinates: x, y, th;
        inputs: drive, steer;

        kinetic = m/2*(dot(x)^2 + dot(y)^2) + J/2*dot(th)^2;
        dissipation = c/2*(dot(x)^2 + dot(y)^2);
        force drive*cos(th) on x;
        force drive*sin(th) on y;
        force steer on th;
        constraint skate = sin(th)*dot(x) - cos(th)*dot(y);
    }
}

// ---------------------------------------------------------------------------------------
// Sampling and comparison
// ---------------------------------------------------------------------------------------

/// Random states per model.
const SAMPLES: usize = 256;

/// Agreement required, relative to the largest magnitude of each quantity (at least 1).
const TOLERANCE: f64 = 1e-12;

/// SplitMix64: small, deterministic, good enough to spread states.
struct Rng(u64);

impl Rng {
    /// A generator seeded from a name, so each model gets its own fixed sequence.
    fn for_name(name: &str) -> Self {
        // FNV-1a.
        let seed = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        Rng(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
        lo + (hi - lo) * unit
    }

    /// Uniform in (−r, r).
    fn symmetric(&mut self, r: f64) -> f64 {
        self.uniform(-r, r)
    }
}

/// Half-widths of the intervals q, q̇ and u are drawn from; t is in [0, 10].
#[derive(Debug, Clone, Copy)]
struct Ranges {
    q: f64,
    qd: f64,
    u: f64,
}

/// q, q̇ and u of order 1.
const ORDER_ONE: Ranges = Ranges {
    q: 2.0,
    qd: 2.0,
    u: 2.0,
};

/// The structured states where bugs hide behind exact zeros: everything zero; at rest at
/// a random q; moving at q = 0; every angle at π (upright) and moving; every coordinate
/// and every velocity equal (symmetric); at rest at q = 0 with random inputs; t = 0 with
/// the rest random.
fn structured<const N: usize, const M: usize>(
    rng: &mut Rng,
    ranges: Ranges,
) -> Vec<(State<N>, SVector<f64, M>)> {
    let zero = SVector::<f64, N>::zeros;
    let (q, qd) = (ranges.q, ranges.qd);
    let random = |rng: &mut Rng, r: f64| SVector::<f64, N>::from_fn(|_, _| rng.symmetric(r));
    let (a, b) = (rng.symmetric(q), rng.symmetric(qd));
    vec![
        (State::new(0.0, zero(), zero()), SVector::zeros()),
        (State::at_rest(random(rng, q)), SVector::zeros()),
        (State::new(1.0, zero(), random(rng, qd)), SVector::zeros()),
        (
            State::new(0.5, SVector::repeat(std::f64::consts::PI), random(rng, qd)),
            SVector::zeros(),
        ),
        (
            State::new(2.0, SVector::repeat(a), SVector::repeat(b)),
            SVector::zeros(),
        ),
        (
            State::at_rest(zero()),
            SVector::from_fn(|_, _| rng.symmetric(ranges.u)),
        ),
        (
            State::new(0.0, random(rng, q), random(rng, qd)),
            sample::<N, M>(rng, ranges).1,
        ),
    ]
}

fn sample<const N: usize, const M: usize>(
    rng: &mut Rng,
    ranges: Ranges,
) -> (State<N>, SVector<f64, M>) {
    let t = rng.uniform(0.0, 10.0);
    let q = SVector::from_fn(|_, _| rng.symmetric(ranges.q));
    let qd = SVector::from_fn(|_, _| rng.symmetric(ranges.qd));
    let u = SVector::from_fn(|_, _| rng.symmetric(ranges.u));
    (State::new(t, q, qd), u)
}

/// The state and inputs with the model's names, at full precision, for failure messages.
fn describe<T: Model<N, M>, const N: usize, const M: usize>(
    s: &State<N>,
    u: &SVector<f64, M>,
) -> String {
    let named = |names: &[&str], v: &[f64]| -> String {
        names
            .iter()
            .zip(v)
            .map(|(n, x)| format!("{n} = {x:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "t = {:?}; q: {}; q̇: {}; u: {}",
        s.t,
        named(&T::COORDINATES, s.q.as_slice()),
        named(&T::COORDINATES, s.qd.as_slice()),
        if M == 0 {
            "none".to_string()
        } else {
            named(&T::INPUTS, u.as_slice())
        },
    )
}

/// One quantity to compare: its name, the reference and fast entries (column-major for
/// matrices) and how to name entry `k`.
struct Quantity<'a> {
    name: &'a str,
    reference: &'a [f64],
    fast: &'a [f64],
    entry: &'a dyn Fn(usize) -> String,
}

/// Panics, naming the model, the state, the quantity and the entry, unless every entry
/// of `quantity` agrees to [`TOLERANCE`] relative to its largest reference magnitude.
fn compare(model: &str, sample: usize, state: &dyn Fn() -> String, quantity: Quantity<'_>) {
    let Quantity {
        name,
        reference,
        fast,
        entry,
    } = quantity;
    // A non-finite reference is a bug of this test (a function evaluated outside its
    // domain), not of the fast path: say so.
    if let Some(k) = reference.iter().position(|x| !x.is_finite()) {
        panic!(
            "{model}: the reference {name} is not finite at {} = {:?} (sample {sample}: {}); \
             the test model leaves a function's domain",
            entry(k),
            reference[k],
            state()
        );
    }
    let scale = reference.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    let tolerance = TOLERANCE * scale;
    for (k, (&want, &got)) in reference.iter().zip(fast).enumerate() {
        let difference = (got - want).abs();
        // Written so that a NaN from the fast path fails.
        let agrees = difference <= tolerance;
        if !agrees {
            panic!(
                "{model}: {name} {} differs: fast path {got:?}, num-dual reference {want:?} \
                 (|difference| = {difference:e} > {tolerance:e} = {TOLERANCE:e} · max(1, {scale:e})) \
                 at sample {sample}: {}",
                entry(k),
                state()
            );
        }
    }
}

/// Asserts that `model.eval_equations` is the generated fast path and agrees with
/// `passes::equations_in` at the [`structured`] states and at [`SAMPLES`] random ones
/// drawn from `ranges`.
fn assert_fast_path_matches<T: Model<N, M>, const N: usize, const M: usize>(
    name: &str,
    model: &T,
    ranges: Ranges,
) {
    assert_fast_path_matches_at(name, model, ranges, SAMPLES);
}

/// [`assert_fast_path_matches`] at the [`structured`] states and `samples` random ones.
fn assert_fast_path_matches_at<T: Model<N, M>, const N: usize, const M: usize>(
    name: &str,
    model: &T,
    ranges: Ranges,
    samples: usize,
) {
    assert!(
        T::FAST_EQUATIONS,
        "{name}: no generated fast path (eval_equations is the generic default)"
    );
    let mut rng = Rng::for_name(name);
    let coordinates = T::COORDINATES;
    let matrix_entry = |k: usize| {
        let (i, j) = (k % N, k / N);
        format!("entry ({i}, {j}) [{}, {}]", coordinates[i], coordinates[j])
    };
    let vector_entry = |k: usize| format!("entry {k} [{}]", coordinates[k]);
    let scalar_entry = |_: usize| "value".to_string();
    let fixed = structured::<N, M>(&mut rng, ranges);
    for k in 0..fixed.len() + samples {
        let (s, u) = fixed
            .get(k)
            .copied()
            .unwrap_or_else(|| sample::<N, M>(&mut rng, ranges));
        let state = || describe::<T, N, M>(&s, &u);
        let reference = passes::equations_in(model, &Point::new(&s, &u));
        let point = Point::new(&s, &u);
        let fast = model.eval_equations(&point);
        // The mass matrix alone, which a model too large to inline computes without the
        // rest of the equations.
        let mass_alone = model.eval_mass_matrix(&point);
        // The sweep (forward-over-reverse), which large models use for `eval_equations`
        // and every model for derivatives of the equations.
        let swept = model.eval_equations_in(&point);
        let qdd: [f64; N] = std::array::from_fn(|i| rng.uniform(-2.0, 2.0) + i as f64 * 0.1);
        let residual = model.eval_inverse_dynamics_in(&point, &qdd);
        let expected = reference.mass * SVector::from(qdd) - reference.bias;
        // The gradient (the variational integrators' residual), and its derivative along
        // a random direction of (q, q̇) in dual numbers (their Newton Jacobian).
        let gradient = model.eval_gradient_in(&point);
        let gradient_reference = passes::gradient_in(model, &point);
        let direction: [f64; N] = std::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let dual = Point {
            t: Dual64::from(s.t),
            q: std::array::from_fn(|i| Dual64::new(s.q[i], direction[i])),
            qd: std::array::from_fn(|i| Dual64::new(s.qd[i], direction[i] * 3.0)),
            u: u.map(Dual64::from).into(),
        };
        let tangent = |g: Gradient<N, Dual64>| -> Vec<f64> {
            [g.coordinates, g.momenta, g.forces]
                .iter()
                .flat_map(|v| v.iter().map(|x| x.eps))
                .chain([g.lagrangian.eps])
                .collect()
        };
        let gradient_tangent = tangent(model.eval_gradient_in(&dual));
        let gradient_tangent_reference = tangent(passes::gradient_in(model, &dual));
        let model_name = name;
        for (name, reference, got) in [
            (
                "gradient: ∂L/∂q",
                gradient_reference.coordinates.as_slice(),
                gradient.coordinates.as_slice(),
            ),
            (
                "gradient: momenta",
                gradient_reference.momenta.as_slice(),
                gradient.momenta.as_slice(),
            ),
            (
                "gradient: generalized forces",
                gradient_reference.forces.as_slice(),
                gradient.forces.as_slice(),
            ),
            (
                "gradient: derivative along a direction of (q, q̇)",
                &gradient_tangent_reference[..],
                &gradient_tangent[..],
            ),
            (
                "eval_mass_matrix",
                reference.mass.as_slice(),
                mass_alone.as_slice(),
            ),
            (
                "sweep: mass matrix",
                reference.mass.as_slice(),
                swept.mass.as_slice(),
            ),
            (
                "sweep: momenta",
                reference.momenta.as_slice(),
                swept.momenta.as_slice(),
            ),
            (
                "sweep: bias",
                reference.bias.as_slice(),
                swept.bias.as_slice(),
            ),
            (
                "sweep: Lagrangian",
                &[reference.lagrangian][..],
                &[swept.lagrangian][..],
            ),
            (
                "sweep: inverse dynamics",
                expected.as_slice(),
                &residual[..],
            ),
        ] {
            let entry = |k: usize| format!("entry {k}");
            compare(
                model_name,
                k,
                &state,
                Quantity {
                    name,
                    reference,
                    fast: got,
                    entry: &entry,
                },
            );
        }
        compare(
            name,
            k,
            &state,
            Quantity {
                name: "mass matrix",
                reference: reference.mass.as_slice(),
                fast: fast.mass.as_slice(),
                entry: &matrix_entry,
            },
        );
        compare(
            name,
            k,
            &state,
            Quantity {
                name: "momenta",
                reference: reference.momenta.as_slice(),
                fast: fast.momenta.as_slice(),
                entry: &vector_entry,
            },
        );
        compare(
            name,
            k,
            &state,
            Quantity {
                name: "bias",
                reference: reference.bias.as_slice(),
                fast: fast.bias.as_slice(),
                entry: &vector_entry,
            },
        );
        compare(
            name,
            k,
            &state,
            Quantity {
                name: "Lagrangian",
                reference: &[reference.lagrangian],
                fast: &[fast.lagrangian],
                entry: &scalar_entry,
            },
        );
    }
}

/// Asserts that `Dynamics::accelerations` (which goes through the fast path) equals the
/// Cholesky solution of the reference equations at [`SAMPLES`] random states.
fn assert_accelerations_match<T, const N: usize, const M: usize>(name: &str, model: &T)
where
    T: Model<N, M>,
{
    let mut rng = Rng::for_name(&format!("{name} accelerations"));
    let coordinates = <T as Model<N, M>>::COORDINATES;
    for k in 0..SAMPLES {
        let (s, u) = sample::<N, M>(&mut rng, ORDER_ONE);
        let state = || describe::<T, N, M>(&s, &u);
        let reference = passes::equations_in(model, &Point::new(&s, &u));
        let want = reference
            .mass
            .cholesky()
            .unwrap_or_else(|| {
                panic!(
                    "{name}: reference mass matrix not positive definite at sample {k}: {}",
                    state()
                )
            })
            .solve(&reference.bias);
        let got = Dynamics::accelerations(model, &s, &u).unwrap_or_else(|e| {
            panic!(
                "{name}: accelerations failed ({e}) at sample {k}: {}",
                state()
            )
        });
        compare(
            name,
            k,
            &state,
            Quantity {
                name: "accelerations",
                reference: want.as_slice(),
                fast: got.as_slice(),
                entry: &|i| format!("entry {i} [{}]", coordinates[i]),
            },
        );
    }
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

#[test]
fn double_pendulum() {
    const { assert!(<DoublePendulum as Model<2, 0>>::QUADRATIC_IN_VELOCITIES) };
    assert_fast_path_matches("DoublePendulum", &DoublePendulum::default(), ORDER_ONE);
    let uneven = DoublePendulum::new(0.7, 1.3, 0.9, 1.4, 9.81);
    assert_fast_path_matches("DoublePendulum (uneven)", &uneven, ORDER_ONE);
}

#[test]
fn chain_of_four() {
    assert_fast_path_matches("Chain4", &Chain4::default(), ORDER_ONE);
}

#[test]
fn trigonometric_functions() {
    assert_fast_path_matches("TrigFunctions", &TrigFunctions::default(), ORDER_ONE);
}

#[test]
fn hyperbolic_exponential_and_root_functions() {
    let model = HyperbolicFunctions::default();
    assert_fast_path_matches("HyperbolicFunctions", &model, ORDER_ONE);
}

#[test]
fn method_syntax() {
    assert_fast_path_matches("MethodFunctions", &MethodFunctions::default(), ORDER_ONE);
}

#[test]
fn powers_divisions_pi_and_unary_minus() {
    assert_fast_path_matches("Powers", &Powers::default(), ORDER_ONE);
    // A non-integer parametric exponent of another value.
    assert_fast_path_matches("Powers (k = 1.7)", &Powers::new(1.4, 1.7, -0.3), ORDER_ONE);
}

#[test]
fn relativistic_kinetic_energy() {
    // |v| < 2√2 < c = 4: well inside the light cone.
    assert_fast_path_matches("Relativistic", &Relativistic::default(), ORDER_ONE);
}

#[test]
fn kinetic_energy_linear_in_velocities() {
    assert_fast_path_matches("RotatingFrame", &RotatingFrame::default(), ORDER_ONE);
}

#[test]
fn explicit_time_dependence() {
    assert_fast_path_matches("DrivenPendulum", &DrivenPendulum::default(), ORDER_ONE);
}

#[test]
fn inputs_dissipation_and_forces() {
    let model = ActuatedCartPole::default();
    assert_fast_path_matches("ActuatedCartPole", &model, ORDER_ONE);
}

#[test]
fn no_potential() {
    assert_fast_path_matches("NoPotential", &NoPotential::default(), ORDER_ONE);
}

#[test]
fn lets_of_parameters() {
    let model = ParameterLets::new(2.0, 0.9, 9.81, 1.7);
    assert_fast_path_matches("ParameterLets", &model, ORDER_ONE);
}

#[test]
fn input_in_kinetic_energy_single_coordinate() {
    assert_fast_path_matches("Bead", &Bead::default(), ORDER_ONE);
}

#[test]
fn names_like_internal_ones() {
    assert_fast_path_matches("Internals", &Internals::default(), ORDER_ONE);
}

#[test]
fn holonomic_constraint() {
    let model = CartesianPendulum::default();
    assert_fast_path_matches("CartesianPendulum", &model, ORDER_ONE);
}

#[test]
fn nonholonomic_constraint() {
    assert_fast_path_matches("KnifeEdge", &KnifeEdge::default(), ORDER_ONE);
}

/// The fast path's right-hand side is −Σ m ∂x/∂q ẍ|q̈=0 for a kinetic term m/2 ẋ²: the
/// terms m ẋ ∂ẋ/∂q of ∂L/∂q and of d/dt ∂L/∂q̇, which cancel, are never computed, so a
/// small right-hand side next to large ones has full relative accuracy. At a = 10⁶,
/// b = 10⁻⁶, ȧ = 1, ḃ = 10³, the cancelling terms are about 10¹² and the right-hand side
/// of a is −2·10⁻³: subtracting them in floating point would leave an error near 10⁻⁴.
#[test]
fn right_hand_side_without_cancellation() {
    let model = ProductPosition::new(1.5, 0.5);
    for (a, b, ad, bd) in [
        (1e6, 1e-6, 1.0, 1e3),
        (-3e5, 2e-5, -0.7, 4e2),
        (0.0, 0.0, 1.0, 1.0),
    ] {
        let s = State::new(0.0, SVector::from([a, b]), SVector::from([ad, bd]));
        let u = SVector::<f64, 0>::zeros();
        let e = model.eval_equations(&Point::new(&s, &u));
        let m = 1.5;
        let want = [-2.0 * m * b * ad * bd, -2.0 * m * a * ad * bd];
        for (i, want) in want.into_iter().enumerate() {
            let err = (e.bias[i] - want).abs();
            assert!(
                err <= 4.0 * f64::EPSILON * want.abs(),
                "bias[{i}] at (a, b, ȧ, ḃ) = ({a}, {b}, {ad}, {bd}): {} against {want}",
                e.bias[i],
            );
        }
        let mass = [[m * b * b + 0.5, m * a * b], [m * a * b, m * a * a + 0.5]];
        for (i, row) in mass.iter().enumerate() {
            for (j, want) in row.iter().enumerate() {
                assert!((e.mass[(i, j)] - want).abs() <= 4.0 * f64::EPSILON * want.abs());
            }
        }
    }
}

#[test]
fn accelerations_equal_reference_solution() {
    assert_accelerations_match("DoublePendulum", &DoublePendulum::default());
    assert_accelerations_match("Chain4", &Chain4::default());
    assert_accelerations_match("ActuatedCartPole", &ActuatedCartPole::default());
    assert_accelerations_match("Relativistic", &Relativistic::default());
    assert_accelerations_match("RotatingFrame", &RotatingFrame::default());
    assert_accelerations_match("DrivenPendulum", &DrivenPendulum::default());
}

// ---------------------------------------------------------------------------------------
// Large models: the sweep
// ---------------------------------------------------------------------------------------

/// Runs `f` in a thread with `mib` MiB of stack, passing on its panic.
fn with_stack(mib: usize, f: impl FnOnce() + Send + 'static) {
    let thread = std::thread::Builder::new().stack_size(mib << 20).spawn(f);
    if let Err(panic) = thread.expect("spawn").join() {
        std::panic::resume_unwind(panic);
    }
}

/// The chain's mass matrix, accelerations and inverse dynamics against the equations
/// derived by hand (`common::chain`), at an irregular state and at structured ones: at
/// rest hanging, upright, folded symmetrically, and hanging while swinging.
fn assert_chain_matches_hand_derivation<T, const N: usize>(model: &T, p: &Params)
where
    T: Dynamics<N, 0>,
{
    let u = SVector::zeros();
    let swinging = SVector::from_fn(|i, _| if i % 2 == 0 { 1.5 } else { -1.5 });
    let states = [
        ("irregular", irregular_state::<N>()),
        ("at rest hanging", State::at_rest(SVector::zeros())),
        (
            "upright",
            State::at_rest(SVector::from_element(std::f64::consts::PI)),
        ),
        (
            "folded symmetrically",
            State::new(
                0.0,
                SVector::from_fn(|i, _| if i % 2 == 0 { 0.7 } else { -0.7 }),
                SVector::zeros(),
            ),
        ),
        (
            "hanging, swinging",
            State::new(0.0, SVector::zeros(), swinging),
        ),
    ];
    for (label, s) in states {
        let (mass, rhs) = hand_terms(p, &s);
        let close = |what: &str, got: &[f64], want: &[f64]| {
            let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
            common::assert_slice_close(
                got,
                want,
                scale,
                1e-11,
                &format!("N = {N}, {label}: {what}"),
            );
        };
        close(
            "mass_matrix",
            model.mass_matrix(&s, &u).as_slice(),
            mass.as_slice(),
        );
        let want = mass.cholesky().expect("positive definite").solve(&rhs);
        let qdd = model.accelerations(&s, &u).expect("regular");
        close("accelerations", qdd.as_slice(), want.as_slice());
        let a = SVector::from_fn(|i, _| 0.3 * i as f64 - 0.5);
        let residual = model.inverse_dynamics(&s, &a, &u);
        close(
            "inverse_dynamics",
            residual.as_slice(),
            (mass * a - rhs).as_slice(),
        );
    }
}

#[test]
fn chains_match_the_hand_derived_equations() {
    // Not 1, 1, 1: a misplaced factor of m, l or g would show.
    let p = Params {
        m: 0.8,
        l: 0.6,
        g: 9.81,
    };
    // 8 links: the unrolled equations, in one function (not inlined); 16 and 32: the sweep,
    // whose mass matrix alone skips the pass along the motion.
    assert_chain_matches_hand_derivation(&Chain8::new(p.m, p.l, p.g), &p);
    assert_chain_matches_hand_derivation(&Chain16::new(p.m, p.l, p.g), &p);
    assert_chain_matches_hand_derivation(&Chain32::new(p.m, p.l, p.g), &p);
    assert_chain_linearization_matches_hand_derivation(&Chain8::new(p.m, p.l, p.g), &p);
    assert_chain_linearization_matches_hand_derivation(&Chain16::new(p.m, p.l, p.g), &p);
    assert_chain_linearization_matches_hand_derivation(&Chain32::new(p.m, p.l, p.g), &p);
}

/// `linearize` of the chain at the irregular state (every velocity nonzero, so ∂q̈/∂q̇ is
/// not zero) against central differences of the hand-derived accelerations
/// (`common::chain::hand_written`): an independent truth away from rest.
fn assert_chain_linearization_matches_hand_derivation<T, const N: usize>(model: &T, p: &Params)
where
    T: Model<N, 0> + Dynamics<N, 0>,
{
    let s = irregular_state::<N>();
    let lin = linearize(model, &s, &SVector::zeros()).expect("regular");
    let hand = |s: &State<N>| hand_written(p, s).expect("positive definite");
    let h = 1e-5;
    let mut d_q = SMatrix::<f64, N, N>::zeros();
    let mut d_qd = SMatrix::<f64, N, N>::zeros();
    for j in 0..N {
        let (mut plus, mut minus) = (s, s);
        plus.q[j] += h;
        minus.q[j] -= h;
        d_q.set_column(j, &((hand(&plus) - hand(&minus)) / (2.0 * h)));
        let (mut plus, mut minus) = (s, s);
        plus.qd[j] += h;
        minus.qd[j] -= h;
        d_qd.set_column(j, &((hand(&plus) - hand(&minus)) / (2.0 * h)));
    }
    for (what, got, want) in [("∂q̈/∂q", lin.d_q, d_q), ("∂q̈/∂q̇", lin.d_qd, d_qd)] {
        let error = (got - want).amax() / want.amax();
        assert!(
            error < 1e-7,
            "N = {N}: {what} differs by {error:e} relative"
        );
    }
}

#[test]
fn chain_of_16_links_matches_the_generic_passes() {
    // The size at which the unrolled code once crashed rustc's debug-info pass (a scope
    // per value; lagrange-macros guards that cause, see the test profile in Cargo.toml).
    with_stack(64, || {
        assert_fast_path_matches_at("Chain16", &Chain16::new(0.8, 0.6, 9.81), ORDER_ONE, 64);
    });
}

#[test]
fn chains_of_32_and_64_links_match_the_generic_passes() {
    // The reference carries a dense 64 × 64 Hessian in every number: a large stack.
    with_stack(1024, || {
        let chain32 = Chain32::new(0.8, 0.6, 9.81);
        assert_fast_path_matches_at("Chain32", &chain32, ORDER_ONE, 16);
        assert_fast_path_matches_at("Chain64", &Chain64::new(0.8, 0.6, 9.81), ORDER_ONE, 4);
    });
}

/// The chain hanging at rest, linearized: q̈ = −M⁻¹ K q with the closed forms
/// M_ij = m l² (N − max(i, j)) and K = diag(m g l (N − i)) (0-based; see
/// `common::chain::hand_terms`), and ∂q̈/∂q̇ = 0 (q̈ is quadratic in q̇).
fn assert_hanging_chain_linearization<T, const N: usize>(model: &T, m: f64, l: f64, g: f64)
where
    T: Model<N, 0> + Dynamics<N, 0>,
{
    let rest = State::at_rest(SVector::zeros());
    let lin = linearize(model, &rest, &SVector::zeros()).expect("regular");
    let mass = SMatrix::<f64, N, N>::from_fn(|i, j| m * l * l * (N - i.max(j)) as f64);
    let stiffness = SMatrix::<f64, N, N>::from_fn(|i, j| {
        if i == j {
            m * g * l * (N - i) as f64
        } else {
            0.0
        }
    });
    let want = -mass
        .cholesky()
        .expect("positive definite")
        .solve(&stiffness);
    let error = (lin.d_q - want).amax() / want.amax();
    assert!(
        error < 1e-11,
        "N = {N}: ∂q̈/∂q differs by {error:e} relative"
    );
    assert!(
        lin.d_qd.amax() < 1e-12,
        "N = {N}: ∂q̈/∂q̇ = {}",
        lin.d_qd.amax()
    );
}

#[test]
fn large_chains_linearize_solve_and_differentiate_in_a_2_mib_stack() {
    // 2 MiB: what a `#[test]` thread gets; every entry point must fit it up to N = 64.
    with_stack(2, || {
        let (m, l, g) = (0.8, 0.6, 9.81);
        let chain = Chain32::new(m, l, g);
        assert_hanging_chain_linearization(&chain, m, l, g);

        // The only equilibrium near the hanging chain is the hanging chain.
        let guess = SVector::from_fn(|i, _| 0.1 * (0.7 * i as f64).sin());
        let found =
            equilibrium(&chain, &State::at_rest(guess), &SVector::zeros()).expect("converges");
        let q = found.state.q;
        assert!(q.amax() < 1e-10, "equilibrium {q}");
        // The hanging chain oscillates: 64 eigenvalues on the imaginary axis.
        assert_eq!(found.stability(), Stability::Marginal);
        assert_eq!(found.spectrum.eigenvalues.len(), 64);

        // At rest q̈ scales as g / l and does not depend on m: ∂q̈/∂m = 0,
        // ∂q̈/∂l = −q̈ / l, ∂q̈/∂g = q̈ / g (parameters in declaration order m, l, g).
        let s = State::at_rest(SVector::from_fn(|i, _| 0.9 * (1.7 * i as f64 + 0.4).sin()));
        let u = SVector::zeros();
        let qdd = chain.accelerations(&s, &u).expect("regular");
        let d = sensitivities(&chain, &s, &u).expect("regular");
        let scale = qdd.amax();
        for i in 0..32 {
            assert!(d[(i, 0)].abs() < 1e-11 * scale / m, "∂q̈/∂m {}", d[(i, 0)]);
            assert!((d[(i, 1)] + qdd[i] / l).abs() < 1e-11 * scale / l, "∂q̈/∂l");
            assert!((d[(i, 2)] - qdd[i] / g).abs() < 1e-11 * scale / g, "∂q̈/∂g");
        }

        let chain = Chain64::new(m, l, g);
        assert_hanging_chain_linearization(&chain, m, l, g);
        let found = equilibrium(
            &chain,
            &State::at_rest(SVector::from_element(0.05)),
            &SVector::zeros(),
        )
        .expect("converges");
        let q = found.state.q;
        assert!(q.amax() < 1e-10, "equilibrium {q}");
        assert_eq!(found.stability(), Stability::Marginal);
    });
}

/// States whose coordinate r (the first) is in [0.5, 1.5], where a polar model is regular.
fn radius_positive<const M: usize>(rng: &mut common::Rng) -> (State<2>, SVector<f64, M>) {
    let (mut s, u) = order_one::<2, M>(rng);
    s.q[0] = 1.0 + 0.5 * s.q[0];
    (s, u)
}

/// Exact derivatives against central differences (`common::derivatives`: the
/// linearization, sensitivities, the sweep and fast path in dual numbers, inverse dynamics,
/// the gradient and the variational Jacobian) for every model of this file.
///
/// `abs` has no derivative where its argument vanishes (the language takes the positive
/// side's, central differences average both): HyperbolicFunctions and MethodFunctions take
/// `abs(x − 0.5 ẏ)`, `abs(y − v)`, `abs(x − 0.3 ẋ)` and `abs(x − v)`, all zero at q = 0, so
/// their structured states are around (x, y) = (0.3, 0.2) instead. NoPotential is polar:
/// r in [0.5, 1.5]. The Cartesian pendulum hangs (at q = 0 its rod's gradient vanishes).
#[test]
fn derivatives_match_finite_differences() {
    let off_kinks = SVector::from([0.3, 0.2]);
    Derivatives::new("DoublePendulum", &DoublePendulum::default())
        .standard()
        .check();
    Derivatives::new("Chain4", &Chain4::default())
        .standard()
        .check();
    Derivatives::new("TrigFunctions", &TrigFunctions::default())
        .standard()
        .check();
    Derivatives::new("HyperbolicFunctions", &HyperbolicFunctions::default())
        .structured_at(off_kinks)
        .random(3)
        .check();
    Derivatives::new("MethodFunctions", &MethodFunctions::default())
        .structured_at(off_kinks)
        .random(3)
        .check();
    Derivatives::new("Powers", &Powers::default())
        .standard()
        .check();
    Derivatives::new("Powers (k = 1.7)", &Powers::new(1.4, 1.7, -0.3))
        .standard()
        .check();
    Derivatives::new("Relativistic", &Relativistic::default())
        .standard()
        .check();
    Derivatives::new("RotatingFrame", &RotatingFrame::default())
        .standard()
        .check();
    Derivatives::new("DrivenPendulum", &DrivenPendulum::default())
        .standard()
        .check();
    Derivatives::new("ActuatedCartPole", &ActuatedCartPole::default())
        .standard()
        .check();
    Derivatives::new("NoPotential", &NoPotential::default())
        .sampler(radius_positive::<0>)
        .structured_at(SVector::from([1.0, 0.0]))
        .random(3)
        .check();
    Derivatives::new("ParameterLets", &ParameterLets::new(2.0, 0.9, 9.81, 1.7))
        .standard()
        .check();
    Derivatives::new("Bead", &Bead::default())
        .standard()
        .check();
    Derivatives::new("Internals", &Internals::default())
        .standard()
        .check();
    Derivatives::new("CartesianPendulum", &CartesianPendulum::default())
        .structured_at(SVector::from([0.0, -1.0]))
        .random(3)
        .check();
    Derivatives::new("KnifeEdge", &KnifeEdge::default())
        .standard()
        .check();
}

/// The chains past the unrolled fast path through `common::derivatives`, at the hanging
/// chain (all coordinates zero, at rest and moving) and one random state: the sensitivities'
/// reference, the generic passes with the parameters given, carries a dense Hessian in
/// every number, so they run in a thread with a large stack as the chains' comparisons
/// with the generic passes above do.
#[test]
fn chains_derivatives_match_finite_differences() {
    with_stack(1024, || {
        Derivatives::new("Chain16", &Chain16::new(0.8, 0.6, 9.81))
            .structured()
            .random(1)
            .check();
        Derivatives::new("Chain32", &Chain32::new(0.8, 0.6, 9.81))
            .state(
                "hanging",
                State::at_rest(SVector::zeros()),
                SVector::zeros(),
            )
            .random(1)
            .check();
        Derivatives::new("Chain64", &Chain64::new(0.8, 0.6, 9.81))
            .state(
                "hanging",
                State::at_rest(SVector::zeros()),
                SVector::zeros(),
            )
            .random(1)
            .check();
    });
}
