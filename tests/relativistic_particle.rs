//! A relativistic particle in 1D, in a spring potential plus a constant force:
//!
//! ```text
//! L = −m c² sqrt(1 − ẋ²/c²) − V(x),   V = k x²/2 − f0 x,   F = −V'(x) = f0 − k x
//! ```
//!
//! L is not quadratic in ẋ, so the mass matrix depends on the velocity. With
//! γ = 1/sqrt(1 − ẋ²/c²):
//! ```text
//! p = ∂L/∂ẋ = γ m ẋ
//! M = ∂²L/∂ẋ² = m γ³              (dγ/dẋ = γ³ ẋ/c²)
//! d/dt (γ m ẋ) = F  ⇒  ẍ = F / (m γ³)
//! h = ẋ p − L = γ m ẋ² + m c²/γ + V = γ m c² + V     (conserved: no t, no Q)
//! ```

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

lagrangian! {
    /// Relativistic particle on a line, spring plus constant force.
    pub struct Relativistic {
        parameters: m = 1.4, c = 3.0, k = 2.5, f0 = 0.7;
        coordinates: x;
        kinetic = -m * c^2 * sqrt(1 - dot(x)^2 / c^2);
        potential = k/2 * x^2 - f0 * x;
    }
}

/// Irregular states (x, ẋ) with |ẋ| from slow to 0.97 c (c = 3).
const STATES: [(f64, f64); 6] = [
    (0.3, 0.011),
    (-1.2, 0.9),
    (2.05, -1.7),
    (-0.4, 2.43),
    (0.77, -2.81),
    (5.5, 2.91),
];

fn state(x: f64, xd: f64) -> State<1> {
    State::new(
        0.6,
        RelativisticCoordinates { x }.into(),
        RelativisticCoordinates { x: xd }.into(),
    )
}

fn gamma(r: &Relativistic, v: f64) -> f64 {
    1.0 / (1.0 - v * v / (r.c * r.c)).sqrt()
}

fn assert_rel(got: f64, want: f64, rel: f64, what: &str) {
    assert!(
        (got - want).abs() <= rel * want.abs(),
        "{what}: got {got}, want {want}"
    );
}

fn models() -> [Relativistic; 2] {
    [
        Relativistic::default(),
        Relativistic::new(0.3, 1.0, 7.0, -2.2),
    ]
}

#[test]
fn mass_matrix_is_m_gamma_cubed() {
    let u = SVector::zeros();
    for r in models() {
        // Velocities as fractions of c, from rest to ultra-relativistic (γ ≈ 7.1).
        for beta in [0.0, 0.1, -0.35, 0.6, -0.8, 0.99] {
            let v = beta * r.c;
            let got = r.mass_matrix(&state(0.2, v), &u)[(0, 0)];
            let want = r.m * gamma(&r, v).powi(3);
            assert_rel(got, want, 1e-12, "M = m γ³");
        }
        // The mass matrix really depends on q̇: it grows with |ẋ|.
        let slow = r.mass_matrix(&state(0.0, 0.1 * r.c), &u)[(0, 0)];
        let fast = r.mass_matrix(&state(0.0, 0.9 * r.c), &u)[(0, 0)];
        assert!(
            fast > 10.0 * slow,
            "m γ³ at 0.9c = {fast}, at 0.1c = {slow}"
        );
    }
}

#[test]
fn acceleration_is_force_over_m_gamma_cubed() {
    let u = SVector::zeros();
    for r in models() {
        for (x, xd) in STATES {
            let xd = xd * r.c / 3.0;
            let force = r.f0 - r.k * x;
            let want = force / (r.m * gamma(&r, xd).powi(3));
            let got = r.accelerations(&state(x, xd), &u).unwrap()[0];
            assert_rel(got, want, 1e-12, "ẍ = F/(m γ³)");
            // The Newtonian answer F/m differs at speed.
            if xd.abs() > 0.5 * r.c {
                assert!((got - force / r.m).abs() > 0.1 * want.abs());
            }
        }
    }
}

#[test]
fn momentum_and_energy() {
    let u = SVector::zeros();
    for r in models() {
        for (x, xd) in STATES {
            let xd = xd * r.c / 3.0;
            let s = state(x, xd);
            let g = gamma(&r, xd);
            assert_rel(r.momenta(&s, &u)[0], g * r.m * xd, 1e-12, "p = γ m v");
            let v = r.k / 2.0 * x * x - r.f0 * x;
            let h = g * r.m * r.c * r.c + v;
            let scale = g * r.m * r.c * r.c;
            assert!(
                (r.energy(&s, &u) - h).abs() <= 1e-12 * scale,
                "h = γ m c² + V"
            );
            let l = -r.m * r.c * r.c / g - v;
            assert!((r.lagrangian(&s, &u) - l).abs() <= 1e-12 * scale, "L");
        }
    }
}

#[test]
fn energy_is_conserved_along_the_flow() {
    // dh/dt = γ³ m ẋ ẍ + V'(x) ẋ = ẋ (F + V') = 0, checked by the hand formula with the
    // computed ẍ and by central differences of the runtime's energy along (1, ẋ, ẍ).
    let u = SVector::zeros();
    for r in models() {
        for (x, xd) in STATES {
            let xd = xd * r.c / 3.0;
            let s = state(x, xd);
            let a = r.accelerations(&s, &u).unwrap()[0];
            let g3 = gamma(&r, xd).powi(3);
            let (kin, pot) = (g3 * r.m * xd * a, (r.k * x - r.f0) * xd);
            assert!((kin + pot).abs() <= 1e-12 * kin.abs().max(1.0));
            let e = 1e-6;
            let h = |k: f64| {
                r.energy(
                    &State::new(0.6 + k, s.q.add_scalar(k * xd), s.qd.add_scalar(k * a)),
                    &u,
                )
            };
            let dh = (h(e) - h(-e)) / (2.0 * e);
            assert!(
                dh.abs() <= 1e-6 * (kin.abs() + pot.abs()).max(1e-3),
                "dh/dt = {dh}"
            );
        }
    }
}

#[test]
fn inverse_dynamics_of_the_computed_acceleration_vanishes() {
    let u = SVector::zeros();
    let r = Relativistic::default();
    for (x, xd) in STATES {
        let s = state(x, xd);
        let a = r.accelerations(&s, &u).unwrap();
        let scale = (r.f0 - r.k * x).abs();
        assert!(r.inverse_dynamics(&s, &a, &u)[0].abs() <= 1e-12 * scale);
        // Force needed for ẍ = 1: m γ³ − F.
        let need = r.inverse_dynamics(&s, &SVector::from([1.0]), &u)[0];
        let want = r.m * gamma(&r, xd).powi(3) - (r.f0 - r.k * x);
        assert!((need - want).abs() <= 1e-12 * want.abs().max(scale));
    }
}

#[test]
fn variational_integrator_solves_the_velocity_from_a_momentum_not_affine_in_it() {
    // p = γ m ẋ is not affine in ẋ: the macro must say so, and the variational
    // integrator then iterates Newton on p(ẋ) = p₁ (one update would leave an O(h) error
    // in ẋ). Against Dormand–Prince at a tight tolerance: the same motion to the midpoint
    // rule's O(h²), and h = γ m c² + V conserved to a band of the same order.
    use lagrange_runtime::model::Model;
    use lagrange_runtime::simulate::{DormandPrince, Simulation, Variational};
    const { assert!(!<Relativistic as Model<1, 0>>::QUADRATIC_IN_VELOCITIES) };
    let r = Relativistic::default();
    let s0 = state(0.4, 2.6);
    let variational = Simulation::new(&r, s0)
        .run(&Variational::new(1e-3), 3.0)
        .unwrap();
    let reference = Simulation::new(&r, s0)
        .run(&DormandPrince::new(1e-12, 1e-12), 3.0)
        .unwrap();
    let (a, b) = (variational.last(), reference.last());
    assert!((a.t - b.t).abs() < 1e-12);
    assert!(
        (a.q[0] - b.q[0]).abs() < 1e-5,
        "x: {} vs {}",
        a.q[0],
        b.q[0]
    );
    assert!(
        (a.qd[0] - b.qd[0]).abs() < 1e-5,
        "ẋ: {} vs {}",
        a.qd[0],
        b.qd[0]
    );
    let e = variational.energies();
    let band = e.iter().map(|h| (h - e[0]).abs()).fold(0.0, f64::max);
    assert!(band < 1e-5 * e[0].abs(), "energy band {band:e}");
    // Each reported velocity carries the discrete momentum exactly: with
    // L_d = h L(x̄, v), x̄ = (x₀ + x₁)/2, v = (x₁ − x₀)/h, the step's momentum is
    // p₁ = D₂L_d = (h/2) (f0 − k x̄) + γ(v) m v, and γ(ẋ₁) m ẋ₁ = p₁ gives
    // ẋ₁ = p₁ / sqrt(m² + p₁²/c²).
    let states = variational.states();
    for pair in states.windows(2).step_by(97) {
        let (s0, s1) = (&pair[0], &pair[1]);
        let h = s1.t - s0.t;
        let (mean, v) = (0.5 * (s0.q[0] + s1.q[0]), (s1.q[0] - s0.q[0]) / h);
        let p1 = 0.5 * h * (r.f0 - r.k * mean) + gamma(&r, v) * r.m * v;
        let want = p1 / (r.m * r.m + p1 * p1 / (r.c * r.c)).sqrt();
        assert_rel(s1.qd[0], want, 1e-11, "velocity from the discrete momentum");
    }
}

/// Exact derivatives against central differences (`common::derivatives`), at structured
/// and random states (|ẋ| < 1 < c) and the file's states up to 0.97 c.
#[test]
fn derivatives_match_finite_differences() {
    let model = Relativistic::default();
    let mut check = Derivatives::new("Relativistic", &model).standard();
    for (x, xd) in STATES {
        check = check.state(
            &format!("x = {x}, ẋ = {xd}"),
            state(x, xd),
            SVector::zeros(),
        );
    }
    check.check();
}
