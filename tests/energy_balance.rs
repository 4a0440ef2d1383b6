//! The energy balance of the Euler–Lagrange equations, for several kinds of model:
//!
//! ```text
//! h = q̇·∂L/∂q̇ − L,     dh/dt = q̇·Q − ∂L/∂t   along the motion
//! ```
//!
//! For each model, at pseudo-random states: runtime h = h written out by hand; the
//! hand-written dh/dt = (1) central difference of `energy` along the computed flow
//! (1, q̇, q̈) in (t, q, q̇) = (2) q̇·Q − (central difference of `lagrangian` in t).
//! Also inverse_dynamics(s, accelerations(s)) = 0 and the mass matrix is symmetric.

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

lagrangian! {
    /// Conservative, time-independent: dh/dt = 0.
    pub struct Pendulum2 {
        parameters: m1 = 1.3, m2 = 0.8, l1 = 0.9, l2 = 1.4, g = 9.81;
        coordinates: a, b;
        let x1 = l1 * sin(a);
        let y1 = -l1 * cos(a);
        let x2 = x1 + l2 * sin(b);
        let y2 = y1 - l2 * cos(b);
        kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * (dot(x2)^2 + dot(y2)^2);
        potential = g * (m1*y1 + m2*y2);
    }
}

lagrangian! {
    /// Cart-pole with damping, a force on the cart and a horizontal force on the bob:
    /// Q_x = F + w − cx ẋ,  Q_θ = w l cos θ − cθ θ̇.
    pub struct CartPole {
        parameters: mc = 2.0, m = 0.6, l = 0.75, g = 9.81, cx = 0.4, cth = 0.09;
        coordinates: x, th;
        inputs: F, w;
        let xb = x + l * sin(th);
        let yb = -l * cos(th);
        kinetic = mc/2 * dot(x)^2 + m/2 * (dot(xb)^2 + dot(yb)^2);
        potential = m * g * yb;
        dissipation = cx/2 * dot(x)^2 + cth/2 * dot(th)^2;
        force F on x;
        force w on xb;
    }
}

lagrangian! {
    /// Damped pendulum whose pivot moves as y0 = A cos(Ω t): L depends on t.
    pub struct ShakenPendulum {
        parameters: m = 0.5, l = 1.2, g = 9.81, A = 0.15, W = 7.0, c = 0.05;
        coordinates: th;
        let y0 = A * cos(W * t);
        kinetic = m/2 * (dot(l * sin(th))^2 + dot(y0 - l * cos(th))^2);
        potential = m * g * (y0 - l * cos(th));
        dissipation = c/2 * dot(th)^2;
    }
}

lagrangian! {
    /// Damped Mathieu oscillator with a drive: k(t) = k0 (1 + e cos Ω t).
    pub struct Mathieu {
        parameters: m = 0.9, k0 = 4.0, e = 0.3, W = 2.2, c = 0.12, F0 = 0.6;
        coordinates: x;
        kinetic = m/2 * dot(x)^2;
        potential = k0 * (1 + e * cos(W*t)) / 2 * x^2;
        dissipation = c/2 * dot(x)^2;
        force F0 * sin(W*t) on x;
    }
}

/// A small deterministic generator of irregular numbers in [−r, r) (a Weyl sequence).
struct Weyl(f64);
impl Weyl {
    fn next(&mut self, r: f64) -> f64 {
        self.0 = (self.0 + 0.618_033_988_749_895).fract();
        (2.0 * self.0 - 1.0) * r
    }
    fn state<const N: usize>(&mut self) -> State<N> {
        let (t, q) = (self.next(5.0), SVector::from_fn(|_, _| self.next(3.0)));
        State::new(t, q, SVector::from_fn(|_, _| self.next(2.5)))
    }
}

fn near(got: f64, want: f64, tol: f64, what: &str) {
    assert!((got - want).abs() <= tol, "{what}: got {got}, want {want}");
}

/// Checks h, dh/dt = `dhdt`, inverse dynamics and symmetry at one state.
fn check<D: Dynamics<N, M>, const N: usize, const M: usize>(
    model: &D,
    s: &State<N>,
    u: &SVector<f64, M>,
    h: f64,
    dhdt: f64,
) {
    let (l, p) = (model.lagrangian(s, u), model.momenta(s, u));
    near(
        model.energy(s, u),
        h,
        1e-12 * (l.abs() + p.dot(&s.qd).abs()),
        "h",
    );

    let qdd = model.accelerations(s, u).unwrap();
    let mass = model.mass_matrix(s, u);
    let q = model.generalized_forces(s, u);
    // Central differences: of h along (1, q̇, q̈), and of L in t.
    let e = 1e-5;
    let along = |k: f64| State::new(s.t + k, s.q + s.qd * k, s.qd + qdd * k);
    let fd_h = (model.energy(&along(e), u) - model.energy(&along(-e), u)) / (2.0 * e);
    let in_t = |k: f64| State::new(s.t + k, s.q, s.qd);
    let fd_lt = (model.lagrangian(&in_t(e), u) - model.lagrangian(&in_t(-e), u)) / (2.0 * e);
    // The size of the terms that cancel in dh/dt.
    let inertial = mass * qdd;
    let terms = s.qd.component_mul(&inertial).abs() + s.qd.component_mul(&q).abs();
    let scale = terms.sum() + fd_lt.abs() + 1e-3;
    near(fd_h, dhdt, 1e-6 * scale, "dh/dt by central differences");
    near(s.qd.dot(&q) - fd_lt, dhdt, 1e-6 * scale, "q̇·Q − ∂L/∂t");

    let residual = model.inverse_dynamics(s, &qdd, u).amax();
    near(
        residual,
        0.0,
        1e-12 * (inertial.amax() + q.amax() + 1.0),
        "ID(s, q̈)",
    );
    let asym = (mass - mass.transpose()).amax();
    near(asym, 0.0, 1e-12 * mass.amax(), "M − Mᵀ");
}

#[test]
fn conservative_double_pendulum() {
    let mut rng = Weyl(0.17);
    let md = Pendulum2::default();
    for _ in 0..8 {
        let s = rng.state::<2>();
        let (a, b, ad, bd) = (s.q[0], s.q[1], s.qd[0], s.qd[1]);
        // T = (m1+m2) l1² ȧ²/2 + m2 l2² ḃ²/2 + m2 l1 l2 ȧ ḃ cos(a−b)
        let t = (md.m1 + md.m2) * (md.l1 * ad).powi(2) / 2.0
            + md.m2 * (md.l2 * bd).powi(2) / 2.0
            + md.m2 * md.l1 * md.l2 * ad * bd * (a - b).cos();
        let v = -md.g * ((md.m1 + md.m2) * md.l1 * a.cos() + md.m2 * md.l2 * b.cos());
        check(&md, &s, &SVector::zeros(), t + v, 0.0);
    }
}

#[test]
fn damped_forced_cart_pole() {
    let mut rng = Weyl(0.27);
    let md = CartPole::default();
    for _ in 0..8 {
        let s = rng.state::<2>();
        let (th, xd, thd) = (s.q[1], s.qd[0], s.qd[1]);
        let (f, w) = (rng.next(4.0), rng.next(2.0));
        let u: SVector<f64, 2> = CartPoleInputs { F: f, w }.into();
        // T = (mc+m) ẋ²/2 + m l ẋ θ̇ cos θ + m l² θ̇²/2,  V = −m g l cos θ
        let t = (md.mc + md.m) * xd * xd / 2.0
            + md.m * md.l * xd * thd * th.cos()
            + md.m * (md.l * thd).powi(2) / 2.0;
        let h = t - md.m * md.g * md.l * th.cos();
        // dh/dt = ẋ (F + w − cx ẋ) + θ̇ (w l cos θ − cθ θ̇)
        let dhdt = xd * (f + w - md.cx * xd) + thd * (w * md.l * th.cos() - md.cth * thd);
        check(&md, &s, &u, h, dhdt);
    }
}

#[test]
fn pendulum_on_a_shaken_pivot() {
    let mut rng = Weyl(0.37);
    let md = ShakenPendulum::default();
    for _ in 0..8 {
        let s = rng.state::<1>();
        let (t, th, thd) = (s.t, s.q[0], s.qd[0]);
        // ẏ0 = −AΩ sin Ωt, ÿ0 = −AΩ² cos Ωt
        let y0 = md.A * (md.W * t).cos();
        let y0d = -md.A * md.W * (md.W * t).sin();
        let y0dd = -md.A * md.W * md.W * (md.W * t).cos();
        // L = m/2 (l² θ̇² + 2 l sin θ θ̇ ẏ0 + ẏ0²) − m g (y0 − l cos θ)
        // h = θ̇ ∂L/∂θ̇ − L = m/2 (l² θ̇² − ẏ0²) + m g (y0 − l cos θ)
        let h =
            md.m / 2.0 * ((md.l * thd).powi(2) - y0d * y0d) + md.m * md.g * (y0 - md.l * th.cos());
        // ∂L/∂t = m (l sin θ θ̇ + ẏ0) ÿ0 − m g ẏ0
        let dl_dt = md.m * (md.l * th.sin() * thd + y0d) * y0dd - md.m * md.g * y0d;
        check(&md, &s, &SVector::zeros(), h, -md.c * thd * thd - dl_dt);
    }
}

#[test]
fn driven_mathieu_oscillator() {
    let mut rng = Weyl(0.47);
    let md = Mathieu::default();
    for _ in 0..8 {
        let s = rng.state::<1>();
        let (t, x, xd) = (s.t, s.q[0], s.qd[0]);
        let k = md.k0 * (1.0 + md.e * (md.W * t).cos());
        let h = md.m * xd * xd / 2.0 + k * x * x / 2.0;
        // ∂L/∂t = k0 e Ω sin(Ωt) x²/2;  q̇·Q = ẋ (−c ẋ + F0 sin Ωt)
        let dl_dt = md.k0 * md.e * md.W * (md.W * t).sin() * x * x / 2.0;
        let power = xd * (-md.c * xd + md.F0 * (md.W * t).sin());
        check(&md, &s, &SVector::zeros(), h, power - dl_dt);
    }
}

/// Exact derivatives against central differences (`common::derivatives`).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("Pendulum2", &Pendulum2::default())
        .standard()
        .check();
    Derivatives::new("CartPole", &CartPole::default())
        .standard()
        .check();
    Derivatives::new("ShakenPendulum", &ShakenPendulum::default())
        .standard()
        .check();
    Derivatives::new("Mathieu", &Mathieu::default())
        .standard()
        .check();
}
