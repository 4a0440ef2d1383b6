//! `equilibrium` against closed-form rest positions, and its failures.
//!
//! An equilibrium is q* with q̈(q*, q̇ = 0, t, u) = 0 (and the holonomic constraints
//! φ(q*, t) = 0 for constrained models). Truths:
//! - pendulum with a constant torque τ: m g l sin θ* = τ, two solutions θ* = asin(τ/(m g l))
//!   (stable) and π − θ* (unstable); none when τ > m g l;
//! - masses on springs under gravity: k x* = m g (and a chain of two);
//! - the double pendulum's four equilibria θᵢ ∈ {0, π};
//! - a time-dependent oscillator at time t: k(t) x* = F(t);
//! - the Cartesian pendulum: the bottom (0, −l), the top (0, l), and, pushed sideways by a
//!   constant fx, the angle tan θ* = fx/(m g);
//! - no equilibrium at all (a cart pushed by a constant force, q̈ = F/m), and neutral
//!   directions (a free translation: the Jacobian is singular) — errors, never panics.

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::linearize::linearize;
use lagrange_runtime::prelude::*;
use lagrange_runtime::stability::Stability;
use lagrange_runtime::steady::equilibrium;
use std::f64::consts::PI;

const NO_INPUT: SVector<f64, 0> =
    SVector::from_array_storage(lagrange_runtime::nalgebra::ArrayStorage([[]]));

fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * want.abs().max(1.0),
        "{what}: got {got:e}, want {want:e} (diff {:e})",
        (got - want).abs()
    );
}

/// Wraps an angle to (−π, π].
fn wrap(a: f64) -> f64 {
    let w = a.rem_euclid(2.0 * PI);
    if w > PI {
        w - 2.0 * PI
    } else {
        w
    }
}

// ---------------------------------------------------------------------------------------

use lagrange_test_models::Pendulum;

/// θ̈ = −(g/l) sin θ + τ/(m l²) = 0 ⇔ sin θ* = τ/(m g l). Near 0 Newton finds the stable
/// θ* = asin(τ/(m g l)) (∂θ̈/∂θ = −(g/l) cos θ* < 0); near π the unstable π − θ*.
#[test]
fn pendulum_with_a_constant_torque() {
    for p in [Pendulum::default(), Pendulum::new(0.2, 2.5, 3.71)] {
        let weight = p.m * p.g * p.l;
        for ratio in [0.0, 0.1, 0.5, -0.73, 0.95] {
            let u = SVector::from([ratio * weight]);
            let stable = ratio.asin();
            let q = equilibrium(&p, &State::at_rest(SVector::from([0.1])), &u)
                .unwrap()
                .state
                .q;
            let found = equilibrium(&p, &State::at_rest(SVector::from([0.1])), &u).unwrap();
            assert_eq!(
                found.stability(),
                Stability::Marginal,
                "the lower one oscillates"
            );
            // ±i √((g/l) cos θ*), the small-oscillation frequency about it.
            let omega = (p.g / p.l * stable.cos()).sqrt();
            for lambda in &found.spectrum.eigenvalues {
                assert_close(lambda.im.abs(), omega, 1e-12, "frequency");
            }
            assert_close(q[0], stable, 1e-12, "stable θ*");
            let unstable = PI - stable;
            let q = equilibrium(&p, &State::at_rest(SVector::from([3.0])), &u)
                .unwrap()
                .state
                .q;
            assert_close(wrap(q[0]), wrap(unstable), 1e-12, "unstable θ*");
            let found = equilibrium(&p, &State::at_rest(SVector::from([3.0])), &u).unwrap();
            assert_eq!(
                found.stability(),
                Stability::Unstable,
                "the upper one falls"
            );
            let growth = (-p.g / p.l * unstable.cos()).sqrt();
            assert_close(
                found.spectrum.largest_real_part(),
                growth,
                1e-12,
                "growth rate",
            );
            // The linearization there confirms the character: −(g/l) cos θ*.
            let lin = linearize(&p, &State::at_rest(q), &u).unwrap();
            assert!(lin.accelerations.amax() < 1e-12, "θ̈ at θ*");
            assert_close(lin.d_q[(0, 0)], -p.g / p.l * unstable.cos(), 1e-12, "∂θ̈/∂θ");
            assert!(lin.d_q[(0, 0)] > 0.0, "upper equilibrium is unstable");
        }
    }
}

/// τ > m g l: θ̈ ≥ τ/(m l²) − g/l > 0 everywhere, no equilibrium. Newton wanders (its
/// Jacobian −(g/l) cos θ is regular almost everywhere) and must give up with
/// `NoEquilibrium` and a residual at least that bound.
#[test]
fn pendulum_torque_too_large() {
    let p = Pendulum::default();
    let tau = 1.5 * p.m * p.g * p.l;
    let bound = tau / (p.m * p.l * p.l) - p.g / p.l;
    for guess in [0.0, 0.3, 1.5, -2.0] {
        match equilibrium(
            &p,
            &State::at_rest(SVector::from([guess])),
            &SVector::from([tau]),
        ) {
            Err(DynamicsError::NoEquilibrium {
                residual,
                iterations,
            }) => {
                assert!(
                    residual >= bound * (1.0 - 1e-12),
                    "residual {residual} below the lower bound {bound}"
                );
                assert!(
                    iterations > 0 && iterations <= 1000,
                    "iterations {iterations}"
                );
                let msg = DynamicsError::NoEquilibrium {
                    residual,
                    iterations,
                }
                .to_string();
                assert!(msg.contains("no equilibrium"), "{msg}");
            }
            other => panic!("guess {guess}: expected NoEquilibrium, got {other:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------

lagrangian! {
    /// A mass hanging on a spring, x measured downward from the spring's rest length.
    pub struct HangingSpring {
        parameters: m = 0.8, k = 31.0, g = 9.81;
        coordinates: x;
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * x^2 - m * g * x;
    }
}

lagrangian! {
    /// Two masses in series on two springs, hanging; positions measured downward from the
    /// unstretched positions.
    pub struct SpringChain {
        parameters: m1 = 0.8, m2 = 1.7, k1 = 31.0, k2 = 12.5, g = 9.81;
        coordinates: x1, x2;
        kinetic = m1/2 * dot(x1)^2 + m2/2 * dot(x2)^2;
        potential = k1/2 * x1^2 + k2/2 * (x2 - x1)^2 - g * (m1*x1 + m2*x2);
    }
}

/// m ẍ = m g − k x: x* = m g/k. The chain: the lower spring carries m2 g and the upper
/// one (m1 + m2) g, so x1* = (m1 + m2) g/k1 and x2* = x1* + m2 g/k2. The problem is linear,
/// so Newton lands on it from anywhere.
#[test]
fn springs_under_gravity() {
    let s = HangingSpring::default();
    for guess in [0.0, -3.0, 100.0] {
        let q = equilibrium(&s, &State::at_rest(SVector::from([guess])), &NO_INPUT)
            .unwrap()
            .state
            .q;
        assert_close(q[0], s.m * s.g / s.k, 1e-13, "x* = m g/k");
    }
    let c = SpringChain::default();
    let x1 = (c.m1 + c.m2) * c.g / c.k1;
    let x2 = x1 + c.m2 * c.g / c.k2;
    let q = equilibrium(&c, &State::at_rest(SVector::from([0.3, -0.4])), &NO_INPUT)
        .unwrap()
        .state
        .q;
    assert_close(q[0], x1, 1e-13, "x1*");
    assert_close(q[1], x2, 1e-13, "x2*");
}

lagrangian! {
    /// m ẍ + c ẋ + k (1 + e cos(w t)) x = F0 cos(w t): the rest position moves with t.
    pub struct Oscillator {
        parameters: m = 1.7, c = 0.35, k = 5.2, e = 0.4, F0 = 0.8, w = 1.3;
        coordinates: x;
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * (1 + e*cos(w*t)) * x^2;
        dissipation = c/2 * dot(x)^2;
        force F0*cos(w*t) on x;
    }
}

/// At time t with q̇ = 0: x*(t) = F0 cos ωt / (k (1 + e cos ωt)) (damping plays no part).
#[test]
fn time_dependent_rest_position() {
    let o = Oscillator::default();
    for t in [0.0, 0.9, 2.4, 7.7] {
        let cw = (o.w * t).cos();
        let want = o.F0 * cw / (o.k * (1.0 + o.e * cw));
        let q = equilibrium(
            &o,
            &State::new(t, SVector::from([1.0]), SVector::zeros()),
            &NO_INPUT,
        )
        .unwrap()
        .state
        .q;
        assert_close(q[0], want, 1e-13, &format!("x*({t})"));
    }
}

// ---------------------------------------------------------------------------------------

use lagrange_test_models::DoublePendulum;

/// At rest θ̈ = M(θ)⁻¹ f with f = (−(m1+m2) g l1 sin θ1, −m2 g l2 sin θ2): zero exactly
/// when sin θ1 = sin θ2 = 0. From a guess near each of the four, Newton lands on it
/// (modulo 2π: plain Newton steps may overshoot by whole turns), and from a close guess
/// on the hanging one itself. (Newton's basin on q̈ is small for anti-phase guesses; see
/// `double_pendulum_hanging_from_a_moderate_guess`.)
#[test]
fn double_pendulum_equilibria() {
    for p in [
        DoublePendulum::default(),
        DoublePendulum::new(0.7, 1.9, 1.3, 0.55, 9.81),
    ] {
        let q = equilibrium(&p, &State::at_rest(SVector::from([0.1, -0.07])), &NO_INPUT)
            .unwrap()
            .state
            .q;
        assert!(q.amax() < 1e-12, "hanging from (0.1, −0.07): {q:?}");
        for (guess, want) in [
            ([0.15, 0.1], [0.0, 0.0]),
            ([3.0, 3.3], [PI, PI]),
            ([0.1, 3.0], [0.0, PI]),
            ([-3.0, 0.05], [-PI, 0.0]),
            ([3.1, -0.1], [PI, 0.0]),
        ] {
            let q = equilibrium(&p, &State::at_rest(SVector::from(guess)), &NO_INPUT)
                .unwrap()
                .state
                .q;
            for i in 0..2 {
                // Plain Newton may land on a copy of the same configuration 2π away.
                assert_close(
                    wrap(q[i] - want[i]),
                    0.0,
                    1e-12,
                    &format!("θ{}* from {guess:?}", i + 1),
                );
            }
            let qdd = p.accelerations(&State::at_rest(q), &NO_INPUT).unwrap();
            assert!(qdd.amax() < 1e-12, "θ̈ at θ*: {qdd:?}");
        }
    }
}

/// The hanging equilibrium from a guess 0.36 rad away, (0.3, −0.2), for m1 = 0.7,
/// m2 = 1.9, l1 = 1.3, l2 = 0.55. Plain Newton on q̈ = M(θ)⁻¹ f(θ) = 0 goes to (π, −π), the
/// inverted (unstable) equilibrium, after 8 iterations through (−1.39, 1.70),
/// (4.04, 8.70), … (reproduced by an independent Newton iteration with finite-difference
/// Jacobians). The Jacobian of q̈ carries the term ∂(M⁻¹)/∂θ · f, which distorts the steps
/// away from rest; Newton on the static forces f(θ) = M q̈ (same zeros, here separable:
/// sin θ1 = sin θ2 = 0) converges to (0, 0) from this guess, as does any guess with
/// |θᵢ| < π/2 for the separable sin.
#[test]
fn double_pendulum_hanging_from_a_moderate_guess() {
    let p = DoublePendulum::new(0.7, 1.9, 1.3, 0.55, 9.81);
    let q = equilibrium(&p, &State::at_rest(SVector::from([0.3, -0.2])), &NO_INPUT)
        .unwrap()
        .state
        .q;
    for i in 0..2 {
        assert_close(wrap(q[i]), 0.0, 1e-12, &format!("θ{}*", i + 1));
    }
}

// ---------------------------------------------------------------------------------------

use lagrange_test_models::ForcedCartesianPendulum as CartesianPendulum;

/// Constrained: q̈ at rest is the tangential part of F/m, F = (fx, −m g), and the rod
/// holds |q| = l. With fx = 0: the bottom (0, −l) and the top (0, l). With fx: the bob
/// rests where F is along the rod, tan θ* = fx/(m g), q* = l (sin θ*, −cos θ*). The guesses
/// are off the constraint (|guess| ≠ l): Gauss–Newton must restore it too.
#[test]
fn cartesian_pendulum_equilibria() {
    for p in [
        CartesianPendulum::default(),
        CartesianPendulum::new(0.4, 2.2, 3.71),
    ] {
        let l = p.l;
        let zero = SVector::from([0.0]);
        let q = equilibrium(&p, &State::at_rest(SVector::from([0.12, -0.8 * l])), &zero)
            .unwrap()
            .state
            .q;
        assert_close(q[0], 0.0, 1e-12, "bottom x");
        assert_close(q[1], -l, 1e-12, "bottom y");
        let q = equilibrium(&p, &State::at_rest(SVector::from([-0.1, 1.15 * l])), &zero)
            .unwrap()
            .state
            .q;
        assert_close(q[0], 0.0, 1e-12, "top x");
        assert_close(q[1], l, 1e-12, "top y");

        for fx in [0.7, -2.3] {
            let th = (fx / (p.m * p.g)).atan();
            let guess = SVector::from([0.0, -1.1 * l]);
            let q = equilibrium(&p, &State::at_rest(guess), &SVector::from([fx]))
                .unwrap()
                .state
                .q;
            assert_close(q[0], l * th.sin(), 1e-12, "pushed x");
            assert_close(q[1], -l * th.cos(), 1e-12, "pushed y");
            let r = p.constraint_residuals(&State::at_rest(q), &SVector::from([fx]));
            assert!(r[0].abs() < 1e-12, "rod residual {}", r[0]);
        }
    }
}

// ---------------------------------------------------------------------------------------

use lagrange_test_models::Cart;

/// ẍ = f/m never vanishes for f ≠ 0: no equilibrium. The Jacobian ∂ẍ/∂x is zero, so
/// Newton cannot even make a step; the error carries the residual |f/m|.
#[test]
fn pushed_cart_has_no_equilibrium() {
    let cart = Cart::default();
    for (guess, f) in [(0.0, 3.0), (5.5, -0.4)] {
        match equilibrium(
            &cart,
            &State::at_rest(SVector::from([guess])),
            &SVector::from([f]),
        ) {
            Err(DynamicsError::NoEquilibrium { residual, .. }) => {
                assert_close(residual, (f / cart.m).abs(), 1e-15, "residual = |f/m|");
            }
            other => panic!("expected NoEquilibrium, got {other:?}"),
        }
    }
}

/// The error's `iterations` is documented as the "iterations made"; Newton stops at the
/// first iteration when the Jacobian is singular, so it should not report the full budget.
#[test]
fn no_equilibrium_reports_the_iterations_made() {
    let cart = Cart::default();
    match equilibrium(
        &cart,
        &State::at_rest(SVector::from([0.0])),
        &SVector::from([3.0]),
    ) {
        Err(DynamicsError::NoEquilibrium { iterations, .. }) => {
            assert!(iterations <= 1, "iterations made: reported {iterations}");
        }
        other => panic!("expected NoEquilibrium, got {other:?}"),
    }
}

lagrangian! {
    /// Cart (mass M, free on its rail) with a pendulum (point mass m, rod l), theta from
    /// the downward vertical. Nothing holds the cart: x is a neutral direction.
    pub struct CartPendulum {
        parameters: M = 1.0, m = 0.3, l = 0.6, g = 9.81;
        coordinates: x, theta;
        kinetic = M/2 * dot(x)^2
            + m/2 * ((dot(x) + l*cos(theta)*dot(theta))^2 + (l*sin(theta)*dot(theta))^2);
        potential = -m * g * l * cos(theta);
    }
}

lagrangian! {
    /// A free particle in the plane: every point is an equilibrium.
    pub struct FreeParticle {
        parameters: m = 1.0;
        coordinates: x, y;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
    }
}

/// q̈ does not depend on the cart position x (translation invariance), so the column
/// ∂q̈/∂x of the Jacobian is zero and Newton's linear system is singular whenever the pole
/// is off its rest angle. Issue 29, item 16 (a Furuta pendulum's free arm): the neutral
/// direction gets no step, so the cart stays where it was guessed and the pole comes to
/// hang (this was `NoEquilibrium`). A free particle at rest is at equilibrium wherever it
/// is: the guess itself.
#[test]
fn a_neutral_direction_keeps_its_guess() {
    let cp = CartPendulum::default();
    let found = equilibrium(&cp, &State::at_rest(SVector::from([0.4, 0.3])), &NO_INPUT)
        .expect("the pole hangs below the cart wherever the cart is");
    let q = found.state.q;
    assert_eq!(q[0], 0.4, "the neutral cart position gets no step");
    assert!(q[1].abs() < 1e-12, "hanging: θ = {}", q[1]);
    // The cart's free translation is a double zero eigenvalue: not asymptotically stable.
    assert_eq!(found.stability(), Stability::Marginal);

    let free = FreeParticle::default();
    let guess = SVector::from([1.5, -2.0]);
    match equilibrium(&free, &State::at_rest(guess), &NO_INPUT) {
        Ok(found) => {
            let q = found.state.q;
            let qdd = free.accelerations(&State::at_rest(q), &NO_INPUT).unwrap();
            assert_eq!(qdd.amax(), 0.0);
            assert_eq!(q, guess, "already at rest: nothing to move");
        }
        Err(DynamicsError::NoEquilibrium { .. }) => {}
        Err(e) => panic!("unexpected error {e}"),
    }
}

// Slider on a rail with a pendulum, Cartesian coordinates, y down; the slider is free
// along the rail.
use lagrange_test_models::SliderPendulum;

/// A constrained neutral direction: moving x1 and x2 together changes neither q̈ nor the
/// constraints, so the Gauss–Newton matrix JᵀJ + Σ∇φ∇φᵀ is singular along (1, 0, 1, 0).
/// The equilibria form a line (x1 = x2 = any, y1 = 0, y2 = l); from a guess off it the
/// result must be an error or a point of that line — never a panic or a non-finite q.
#[test]
fn constrained_neutral_direction() {
    let p = SliderPendulum::default();
    let guess = SVector::from([0.3, 0.05, 0.45, 0.7]);
    match equilibrium(&p, &State::at_rest(guess), &NO_INPUT) {
        Ok(found) => {
            let q = found.state.q;
            assert_close(q[1], 0.0, 1e-12, "y1");
            assert_close(q[2], q[0], 1e-12, "x2 = x1");
            assert_close(q[3], p.l, 1e-12, "y2 = l");
        }
        Err(DynamicsError::NoEquilibrium { residual, .. }) => {
            assert!(
                residual.is_finite() && residual > 0.0,
                "residual {residual}"
            );
        }
        Err(e) => panic!("unexpected error {e}"),
    }
}

/// A non-finite guess is reported as such.
#[test]
fn non_finite_guess() {
    let p = Pendulum::default();
    let r = equilibrium(
        &p,
        &State::at_rest(SVector::from([f64::NAN])),
        &SVector::from([0.0]),
    );
    assert!(
        matches!(r, Err(DynamicsError::NonFiniteState { .. })),
        "got {r:?}"
    );
}

/// Exact derivatives against central differences (`common::derivatives`), at structured
/// and random states and at the equilibria this file finds. The Cartesian models'
/// structured states hang on their rods (at q = 0 the rods' gradients vanish).
#[test]
fn derivatives_match_finite_differences() {
    let rest = |q: SVector<f64, 1>| State::at_rest(q);

    let p = Pendulum::default();
    let tau = SVector::from([0.5 * p.m * p.g * p.l]);
    let low = equilibrium(&p, &State::at_rest(SVector::from([0.1])), &tau)
        .unwrap()
        .state;
    let high = equilibrium(&p, &State::at_rest(SVector::from([3.0])), &tau)
        .unwrap()
        .state;
    Derivatives::new("Pendulum", &p)
        .standard()
        .state("stable equilibrium, pushed", low, tau)
        .state("unstable equilibrium, pushed", high, tau)
        .check();

    let s = HangingSpring::default();
    Derivatives::new("HangingSpring", &s)
        .standard()
        .state(
            "equilibrium",
            rest(SVector::from([s.m * s.g / s.k])),
            NO_INPUT,
        )
        .check();
    let c = SpringChain::default();
    let at = equilibrium(&c, &State::at_rest(SVector::from([0.3, -0.4])), &NO_INPUT)
        .unwrap()
        .state;
    Derivatives::new("SpringChain", &c)
        .standard()
        .state("equilibrium", at, NO_INPUT)
        .check();

    let o = Oscillator::default();
    let at = equilibrium(
        &o,
        &State::new(0.9, SVector::from([1.0]), SVector::zeros()),
        &NO_INPUT,
    )
    .unwrap()
    .state;
    Derivatives::new("Oscillator", &o)
        .standard()
        .state("rest position at t = 0.9", at, NO_INPUT)
        .check();

    let dp = DoublePendulum::default();
    let mut check = Derivatives::new("DoublePendulum", &dp).standard();
    for q in [[PI, PI], [0.0, PI], [PI, 0.0]] {
        let label = format!("equilibrium {q:?}");
        check = check.state(&label, State::at_rest(SVector::from(q)), NO_INPUT);
    }
    check.check();

    let cp = CartesianPendulum::default();
    let l = cp.l;
    let zero = SVector::from([0.0]);
    let fx = SVector::from([0.7]);
    let top = equilibrium(&cp, &State::at_rest(SVector::from([-0.1, 1.15 * l])), &zero)
        .unwrap()
        .state;
    let pushed = equilibrium(&cp, &State::at_rest(SVector::from([0.0, -1.1 * l])), &fx)
        .unwrap()
        .state;
    Derivatives::new("CartesianPendulum", &cp)
        .structured_at(SVector::from([0.0, -l]))
        .random(3)
        .state("top", top, zero)
        .state("pushed sideways", pushed, fx)
        .check();

    Derivatives::new("Cart", &Cart::default())
        .standard()
        .check();
    Derivatives::new("CartPendulum", &CartPendulum::default())
        .standard()
        .state(
            "inverted",
            State::at_rest(SVector::from([0.4, PI])),
            NO_INPUT,
        )
        .check();
    Derivatives::new("FreeParticle", &FreeParticle::default())
        .standard()
        .check();

    let sp = SliderPendulum::default();
    Derivatives::new("SliderPendulum", &sp)
        .structured_at(SVector::from([0.0, 0.0, 0.0, sp.l]))
        .random(3)
        .state(
            "inverted",
            State::at_rest(SVector::from([0.3, 0.0, 0.3, -sp.l])),
            NO_INPUT,
        )
        .check();
}

lagrangian! {
    /// A mass on a spring in x, driven along y at unit speed: it can never rest.
    pub struct DrivenSlider {
        parameters: m = 1.0, k = 2.0;
        coordinates: x, y;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = k/2 * x^2;
        constraint drive = y - t;
    }
}

/// Issue 29, item 4: `equilibrium` returned `Ok`, a "rest" state (called Marginal) that
/// violates the driving constraint's velocity form ẏ − 1 = 0 by 1. Now an error that names
/// the constraint.
#[test]
fn a_driving_constraint_has_no_equilibrium() {
    let error = equilibrium(
        &DrivenSlider::default(),
        &State::new(2.0, SVector::from([0.3, 2.0]), SVector::zeros()),
        &SVector::zeros(),
    )
    .unwrap_err();
    assert_eq!(
        error,
        DynamicsError::ConstraintsForbidSteadyState {
            constraints: vec![("drive", -1.0)]
        }
    );
    let message = error.to_string();
    assert!(
        message.contains("`drive` (velocity form) = -1e0") && message.contains("driving"),
        "{message}"
    );
}

/// Issue 29, item 13: from a guess of 1e300 rad, `equilibrium` returned `Ok` at a state
/// where θ̈ = −8: the acceptance grew with |q| (for the rounding of q) without a bound. It
/// is now capped, so a state whose coordinates are too large to resolve is no equilibrium.
#[test]
fn a_huge_guess_is_not_accepted_as_an_equilibrium() {
    let p = Pendulum::default();
    let u = SVector::from([0.0]);
    for guess in [1e300, 1e100, 1e20] {
        let q = SVector::from([guess]);
        let qdd = p.accelerations(&State::at_rest(q), &u).unwrap()[0];
        match equilibrium(&p, &State::at_rest(q), &u) {
            Err(DynamicsError::NoEquilibrium { .. }) => {}
            Ok(found) => {
                let qdd = p.accelerations(&found.state, &u).unwrap()[0];
                panic!("{guess}: accepted θ = {} with θ̈ = {qdd}", found.state.q[0]);
            }
            Err(other) => panic!("{guess}: {other} (θ̈ = {qdd} at the guess)"),
        }
    }
    // A large but resolved angle (many turns) still has its equilibria.
    let turns = 2.0 * PI * 1000.0;
    let found = equilibrium(&p, &State::at_rest(SVector::from([turns + 0.1])), &u).unwrap();
    assert!(
        (found.state.q[0] - turns).abs() < 1e-9,
        "{}",
        found.state.q[0]
    );
}

// ---------------------------------------------------------------------------------------

use lagrange_test_models::LinkedSlider;

/// Issue 45 item 1: the equilibrium at the origin, where the constraint's residual is
/// rounding of the size of l, is found (it was `OffConstraints`, not an error
/// `equilibrium` documents, because the scale max|∂φ/∂q| max|q| of the start check is 0
/// there). Truth: with x = l θ to first order, T = ½ (ms + mb) l² θ̇² and
/// V = ½ (k l² + mb g l) θ², so the spectrum is ±i ω, ω² = (k l + mb g)/((ms + mb) l).
#[test]
fn equilibrium_at_the_origin_of_a_rounded_constraint() {
    let model = LinkedSlider::default();
    let residual = model.constraint_residuals(&State::at_rest(SVector::zeros()), &NO_INPUT)[0];
    assert!(
        residual != 0.0 && residual.abs() < 1e-16,
        "the constraint rounds at q = 0: {residual:e}"
    );
    let omega =
        ((model.k * model.l + model.mb * model.g) / ((model.ms + model.mb) * model.l)).sqrt();
    for guess in [[0.0, 0.0], [0.05, 0.07], [-0.1, -0.2]] {
        let found = equilibrium(&model, &State::at_rest(SVector::from(guess)), &NO_INPUT)
            .unwrap_or_else(|e| panic!("from {guess:?}: {e}"));
        assert!(found.state.q.amax() < 1e-12, "{guess:?}: {}", found.state.q);
        assert_eq!(found.state.qd, SVector::<f64, 2>::zeros());
        assert_eq!(found.stability(), Stability::Marginal);
        let eigenvalues = &found.spectrum.eigenvalues;
        assert_eq!(eigenvalues.len(), 2, "{eigenvalues:?}");
        for lambda in eigenvalues {
            assert!(
                lambda.re.abs() < 1e-12 && (lambda.im.abs() - omega).abs() < 1e-12 * omega,
                "{guess:?}: {lambda} against ±{omega} i"
            );
        }
        assert!(model.check_start(&found.state, &NO_INPUT).is_ok());
    }
}
