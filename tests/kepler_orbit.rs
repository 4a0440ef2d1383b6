//! The Kepler problem in plane polar coordinates, against Kepler's laws.
//!
//! ```text
//! L = m/2 (ṙ² + r² φ̇²) + G M m / r
//! p_φ = ∂L/∂φ̇ = m r² φ̇                 conserved (φ is cyclic)
//! h = m/2 (ṙ² + r² φ̇²) − G M m / r     conserved (L has no explicit t)
//! ```
//!
//! An orbit of semi-major axis a and eccentricity e, started at periapsis
//! (φ = 0, r = a(1 − e), ṙ = 0), has, with μ = G M,
//!
//! ```text
//! v_p = √(μ (1 + e) / (a (1 − e))),    φ̇₀ = v_p / r_p
//! h   = −G M m / (2a)                  (vis-viva)
//! p_φ = m √(μ a (1 − e²))
//! T   = 2π √(a³ / μ)                   (Kepler's third law)
//! ```
//!
//! The apsides of the exact orbit do not precess, so φ(T) = 2π exactly: the period is
//! measured as the time at which φ reaches 2π, found by bisection on the Hermite
//! interpolant `Trajectory::at` (or at sample times exactly, with `run_at`).

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::*;
use std::f64::consts::PI;

lagrangian! {
    /// A planet of mass m around a fixed sun of mass M.
    pub struct Kepler {
        parameters: G = 1.0, M = 1.0, m = 1.0;
        coordinates: r, phi;
        kinetic = m/2 * (dot(r)^2 + r^2 * dot(phi)^2);
        potential = -G * M * m / r;
    }
}

/// An orbit's elements and what Kepler's laws say about it.
struct Orbit {
    model: Kepler,
    a: f64,
    e: f64,
}

impl Orbit {
    fn mu(&self) -> f64 {
        self.model.G * self.model.M
    }

    fn start(&self) -> State<2> {
        let rp = self.a * (1.0 - self.e);
        let vp = (self.mu() * (1.0 + self.e) / (self.a * (1.0 - self.e))).sqrt();
        let q = KeplerCoordinates { r: rp, phi: 0.0 };
        let qd = KeplerCoordinates {
            r: 0.0,
            phi: vp / rp,
        };
        State::new(0.0, q.into(), qd.into())
    }

    fn period(&self) -> f64 {
        2.0 * PI * (self.a.powi(3) / self.mu()).sqrt()
    }

    fn energy(&self) -> f64 {
        -self.mu() * self.model.m / (2.0 * self.a)
    }

    fn angular_momentum(&self) -> f64 {
        self.model.m * (self.mu() * self.a * (1.0 - self.e * self.e)).sqrt()
    }
}

fn orbits() -> [Orbit; 3] {
    [
        Orbit {
            model: Kepler::default(),
            a: 1.0,
            e: 0.5,
        },
        // Another sun, another planet, a wider and more eccentric orbit: T = 2π √(8/3.2).
        Orbit {
            model: Kepler::new(0.8, 4.0, 0.3),
            a: 2.0,
            e: 0.7,
        },
        // A nearly circular one.
        Orbit {
            model: Kepler::new(1.0, 1.0, 2.0),
            a: 0.5,
            e: 0.05,
        },
    ]
}

/// The time at which φ reaches `target`, by bisection on the interpolated trajectory.
fn crossing_time(trajectory: &Trajectory<2>, target: f64) -> f64 {
    let states = trajectory.states();
    let i = states
        .iter()
        .position(|s| s.q[1] >= target)
        .expect("the orbit completes a revolution");
    let (mut lo, mut hi) = (states[i - 1].t, states[i].t);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if trajectory.at(mid).unwrap().q[1] < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

fn momenta(model: &Kepler, s: &State<2>) -> KeplerCoordinates {
    model.momenta(s, &SVector::zeros()).into()
}

/// Dormand–Prince at tight tolerances: the period to 1e-8 relative, h and p_φ to 1e-8.
#[test]
fn dormand_prince_period_follows_keplers_third_law() {
    for orbit in orbits() {
        let t = orbit.period();
        let trajectory = Simulation::new(&orbit.model, orbit.start())
            .run(&DormandPrince::new(1e-11, 1e-13), 1.2 * t)
            .unwrap();
        let measured = crossing_time(&trajectory, 2.0 * PI);
        let rel = (measured / t - 1.0).abs();
        println!(
            "DP a = {}, e = {}: T = {t:.9}, measured {measured:.9}, rel. error {rel:.2e}, {} steps, energy drift {:.2e}",
            orbit.a,
            orbit.e,
            trajectory.len() - 1,
            trajectory.energy_drift()
        );
        assert!(rel < 1e-8, "period {measured} against Kepler's {t}");

        // At the return, the planet is back at periapsis: r = a(1 − e), ṙ = 0.
        let back = trajectory.at(measured).unwrap();
        let rp = orbit.a * (1.0 - orbit.e);
        assert!((back.q[0] / rp - 1.0).abs() < 1e-7, "r = {}", back.q[0]);

        let h = orbit.energy();
        assert!((trajectory.energies()[0] / h - 1.0).abs() < 1e-14);
        assert!(trajectory.energy_drift() < 1e-8 * h.abs());
        let l = orbit.angular_momentum();
        for s in trajectory.states() {
            let p_phi = momenta(&orbit.model, s).phi;
            assert!((p_phi / l - 1.0).abs() < 1e-8, "p_φ = {p_phi}, want {l}");
        }
    }
}

/// RK4 with 1000 steps per orbit: the period to 1e-6 relative; energy and p_φ drift (RK4
/// is neither symplectic nor momentum-preserving) but stay small at this step (its errors
/// are O(h⁴): ~1e-7 relative on the a = 2, e = 0.7 orbit, where the periapsis passage is
/// fastest).
#[test]
fn rk4_period_energy_and_angular_momentum() {
    for orbit in orbits() {
        let t = orbit.period();
        let h = t / 1000.0;
        let trajectory = Simulation::new(&orbit.model, orbit.start())
            .run(&Rk4::new(h), 1.2 * t)
            .unwrap();
        let measured = crossing_time(&trajectory, 2.0 * PI);
        let rel = (measured / t - 1.0).abs();
        let l = orbit.angular_momentum();
        let p_drift = trajectory
            .states()
            .iter()
            .map(|s| (momenta(&orbit.model, s).phi / l - 1.0).abs())
            .fold(0.0, f64::max);
        let h_drift = trajectory.energy_drift() / orbit.energy().abs();
        println!(
            "RK4 a = {}, e = {}: period rel. error {rel:.2e}, energy drift {h_drift:.2e}, p_φ drift {p_drift:.2e}",
            orbit.a, orbit.e
        );
        assert!(rel < 1e-6, "period {measured} against Kepler's {t}");
        assert!(h_drift < 1e-6, "relative energy drift {h_drift:e}");
        assert!(p_drift < 1e-6, "relative p_φ drift {p_drift:e}");
    }
}

/// The variational integrator with 1000 steps per orbit, over three orbits: p_φ to
/// round-off (discrete Noether theorem for the cyclic φ), energy error bounded at
/// O((h/T)²), the period within its O(h²) phase error.
///
/// Round-off here: the discrete momentum is p₁ = D₂L_d(q₀, q₁) = −D₁L_d(q₀, q₁) exactly
/// (L_d does not depend on φ), so p₁ − p₀ is the residual of the discrete Euler–Lagrange
/// equation at the computed q₁. Newton cannot place φ₁ finer than ulp(φ₁) (≈ 4e-15 at
/// φ ≈ 20), and the residual moves by m r² ulp(φ₁)/h per ulp: a relative momentum error of
/// ~ulp(φ)/Δφ ≈ 4e-15/0.006 ≈ 1e-12 per step, random in sign. Over n = 3200 steps that
/// random walk reaches ~√n·1e-12·(few) — so 1e-10 is the round-off bound here, where RK4's
/// truncation error is orders of magnitude larger at the same step.
#[test]
fn variational_period_energy_and_angular_momentum() {
    for orbit in orbits() {
        let t = orbit.period();
        let h = t / 1000.0;
        let trajectory = Simulation::new(&orbit.model, orbit.start())
            .run(&Variational::new(h), 3.2 * t)
            .unwrap();
        let l = orbit.angular_momentum();
        let p_drift = trajectory
            .states()
            .iter()
            .map(|s| (momenta(&orbit.model, s).phi / l - 1.0).abs())
            .fold(0.0, f64::max);
        let h_drift = trajectory.energy_drift() / orbit.energy().abs();
        // Three revolutions: φ reaches 2π k at times ≈ k T.
        let mut worst = 0.0f64;
        for k in 1..=3 {
            let measured = crossing_time(&trajectory, 2.0 * PI * k as f64);
            worst = worst.max((measured / (k as f64 * t) - 1.0).abs());
        }
        println!(
            "variational a = {}, e = {}: period rel. error {worst:.2e}, energy drift {h_drift:.2e}, p_φ drift {p_drift:.2e}",
            orbit.a, orbit.e
        );
        assert!(worst < 1e-3, "period relative error {worst:e}");
        assert!(h_drift < 1e-3, "relative energy drift {h_drift:e}");
        assert!(p_drift < 1e-10, "relative p_φ drift {p_drift:e}");
    }
}

/// `run_at` samples exactly at t = T: the orbit is closed there, back at (r_p, 2π) with
/// ṙ = 0 and φ̇ = φ̇₀.
#[test]
fn run_at_one_period_closes_the_orbit() {
    let orbit = &orbits()[1];
    let t = orbit.period();
    let times = [0.25 * t, 0.5 * t, t];
    let trajectory = Simulation::new(&orbit.model, orbit.start())
        .run_at(&DormandPrince::new(1e-12, 1e-14), &times)
        .unwrap();
    assert_eq!(trajectory.times().collect::<Vec<_>>(), times);
    let s0 = orbit.start();
    let [_, half, end] = trajectory.states() else {
        panic!("three samples")
    };
    // At T/2 the planet is at apoapsis: φ = π, r = a(1 + e), ṙ = 0.
    assert!((half.q[1] - PI).abs() < 1e-8, "φ(T/2) = {}", half.q[1]);
    assert!((half.q[0] / (orbit.a * (1.0 + orbit.e)) - 1.0).abs() < 1e-8);
    assert!(
        (end.q[0] / s0.q[0] - 1.0).abs() < 1e-8,
        "r(T) = {}",
        end.q[0]
    );
    assert!((end.q[1] - 2.0 * PI).abs() < 1e-8, "φ(T) = {}", end.q[1]);
    assert!(
        end.qd[0].abs() < 1e-7 * s0.qd[1] * s0.q[0],
        "ṙ(T) = {}",
        end.qd[0]
    );
    assert!((end.qd[1] / s0.qd[1] - 1.0).abs() < 1e-8);
}

/// Exact derivatives against central differences (`common::derivatives`). The model is
/// defined for r > 0 only (its mass matrix is singular and its potential infinite at
/// r = 0): the states have r in [0.5, 1.5], structured around (r, φ) = (1, 0), and the
/// orbits' perihelia.
#[test]
fn derivatives_match_finite_differences() {
    for (k, orbit) in orbits().iter().enumerate() {
        let name = format!("Kepler (orbit {k})");
        Derivatives::new(&name, &orbit.model)
            .sampler(|rng| {
                let (mut s, u) = common::derivatives::order_one::<2, 0>(rng);
                s.q[0] = 1.0 + 0.5 * s.q[0];
                (s, u)
            })
            .structured_at(SVector::from([1.0, 0.0]))
            .random(3)
            .state("perihelion", orbit.start(), SVector::zeros())
            .check();
    }
}
