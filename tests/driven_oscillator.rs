//! Damped, harmonically driven oscillator:
//!
//! ```text
//! T = m/2 ẋ²,  V = k/2 x²,  D = c/2 ẋ²,  applied force F0 cos(ω t) on x
//! m ẍ + c ẋ + k x = F0 cos(ω t)
//! ```
//!
//! Closed forms used below:
//! ```text
//! ẍ      = (F0 cos ωt − c ẋ − k x) / m
//! Q      = −∂D/∂ẋ + F0 cos ωt = −c ẋ + F0 cos ωt
//! p      = m ẋ,  M = m,  h = m ẋ²/2 + k x²/2   (L has no explicit t)
//! dh/dt  = m ẋ ẍ + k x ẋ = ẋ (−c ẋ + F0 cos ωt) = q̇·Q
//! ```

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

lagrangian! {
    /// m ẍ + c ẋ + k x = F0 cos(w t).
    pub struct Driven {
        parameters: m = 1.7, c = 0.35, k = 5.2, F0 = 0.8, w = 1.3;
        coordinates: x;
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * x^2;
        dissipation = c/2 * dot(x)^2;
        force F0*cos(w*t) on x;
    }
}

/// Irregular states (t, x, ẋ), all with nonzero velocity.
const STATES: [(f64, f64, f64); 5] = [
    (0.0, 0.3, -1.1),
    (0.73, -0.42, 0.57),
    (2.19, 1.37, 2.3),
    (-4.6, -0.05, -0.31),
    (11.3, 0.88, 0.012),
];

fn state(t: f64, x: f64, xd: f64) -> State<1> {
    State::new(
        t,
        DrivenCoordinates { x }.into(),
        DrivenCoordinates { x: xd }.into(),
    )
}

fn assert_close(got: f64, want: f64, rel: f64, what: &str) {
    let tol = rel * want.abs().max(1.0);
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, want {want} (diff {:e})",
        (got - want).abs()
    );
}

/// Two parameter sets: the defaults and another irregular one.
fn models() -> [Driven; 2] {
    [Driven::default(), Driven::new(0.45, 1.9, 12.5, -2.7, 4.1)]
}

#[test]
fn acceleration_matches_closed_form() {
    let u = SVector::zeros();
    for mdl in models() {
        for (t, x, xd) in STATES {
            let s = state(t, x, xd);
            let got = mdl.accelerations(&s, &u).unwrap()[0];
            let want = (mdl.F0 * (mdl.w * t).cos() - mdl.c * xd - mdl.k * x) / mdl.m;
            assert_close(got, want, 1e-12, "ẍ");
        }
    }
}

#[test]
fn generalized_force_is_damping_plus_drive() {
    let u = SVector::zeros();
    for mdl in models() {
        for (t, x, xd) in STATES {
            let s = state(t, x, xd);
            let q = mdl.generalized_forces(&s, &u)[0];
            let want = -mdl.c * xd + mdl.F0 * (mdl.w * t).cos();
            assert_close(q, want, 1e-12, "Q");
        }
    }
}

#[test]
fn momentum_mass_and_energy() {
    let u = SVector::zeros();
    for mdl in models() {
        for (t, x, xd) in STATES {
            let s = state(t, x, xd);
            assert_close(mdl.momenta(&s, &u)[0], mdl.m * xd, 1e-12, "p");
            assert_close(mdl.mass_matrix(&s, &u)[(0, 0)], mdl.m, 1e-12, "M");
            let h = mdl.m * xd * xd / 2.0 + mdl.k * x * x / 2.0;
            assert_close(mdl.energy(&s, &u), h, 1e-12, "h");
            let l = mdl.m * xd * xd / 2.0 - mdl.k * x * x / 2.0;
            assert_close(mdl.lagrangian(&s, &u), l, 1e-12, "L");
        }
    }
}

#[test]
fn energy_balance_along_the_flow() {
    let u = SVector::zeros();
    for mdl in models() {
        for (t, x, xd) in STATES {
            let s = state(t, x, xd);
            let xdd = mdl.accelerations(&s, &u).unwrap()[0];
            let power = xd * mdl.generalized_forces(&s, &u)[0];
            // Hand-written dh/dt = m ẋ ẍ + k x ẋ, with the computed ẍ.
            let dh = mdl.m * xd * xdd + mdl.k * x * xd;
            assert_close(dh, power, 1e-12, "m ẋ ẍ + k x ẋ vs q̇·Q");
            // Closed form of the power: ẋ (−c ẋ + F0 cos ωt).
            let want = xd * (-mdl.c * xd + mdl.F0 * (mdl.w * t).cos());
            assert_close(power, want, 1e-12, "q̇·Q");
            // Second opinion: central difference of the runtime's energy along the
            // direction (1, ẋ, ẍ) in (t, x, ẋ), which is d/dt along the motion.
            let e = 1e-5;
            let h = |sgn: f64| {
                mdl.energy(
                    &state(t + sgn * e, x + sgn * e * xd, xd + sgn * e * xdd),
                    &u,
                )
            };
            let fd = (h(1.0) - h(-1.0)) / (2.0 * e);
            let scale = (mdl.m * xd * xdd).abs() + (mdl.k * x * xd).abs() + 1e-3;
            assert!(
                (fd - want).abs() <= 1e-6 * scale,
                "dh/dt by finite differences {fd} vs q̇·Q {want}"
            );
        }
    }
}

#[test]
fn inverse_dynamics_is_the_missing_force() {
    let u = SVector::zeros();
    let mdl = Driven::default();
    for (t, x, xd) in STATES {
        let s = state(t, x, xd);
        let xdd = mdl.accelerations(&s, &u).unwrap();
        assert!(mdl.inverse_dynamics(&s, &xdd, &u)[0].abs() < 1e-12);
        // To get ẍ = a, the extra force is m a + c ẋ + k x − F0 cos ωt.
        let a = 0.37 - x;
        let want = mdl.m * a + mdl.c * xd + mdl.k * x - mdl.F0 * (mdl.w * t).cos();
        let got = mdl.inverse_dynamics(&s, &SVector::from([a]), &u)[0];
        assert_close(got, want, 1e-12, "inverse dynamics");
    }
}

/// Exact derivatives against central differences (`common::derivatives`).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("Driven", &Driven::default())
        .standard()
        .check();
}
