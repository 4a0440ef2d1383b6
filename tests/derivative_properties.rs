//! Property test of exact derivatives (issue 25's discipline, `common::derivatives`): at
//! random states in which each coordinate, velocity and input is exactly at its reference
//! value (zero for most) with probability 1/3 and random otherwise, every derivative the
//! runtime takes (linearization, sensitivities, the sweep in dual numbers, inverse
//! dynamics, the gradient, the variational Newton Jacobian) agrees with central
//! differences of the function it differentiates.
//!
//! Representative models: an unconstrained chain, a cart-pole with inputs, dissipation
//! and forces, a slider-pendulum held by holonomic constraints, a quaternion pendulum
//! (semidefinite mass matrix: the completed constrained solve) and issue 25's rolling wheel
//! with a frame (nonholonomic; its reproducer in `tests/exact_derivatives.rs`), whose
//! linearization was wrong exactly where coordinates vanish.

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::model::Parametric;
use lagrange_runtime::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

lagrangian! {
    /// Planar double pendulum with point masses.
    pub struct DoublePendulum {
        parameters: m1 = 1.0, m2 = 0.7, l1 = 1.0, l2 = 0.8, g = 9.81;
        coordinates: theta1, theta2;
        let x1 = l1 * sin(theta1);
        let y1 = -l1 * cos(theta1);
        let x2 = x1 + l2 * sin(theta2);
        let y2 = y1 - l2 * cos(theta2);
        kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * (dot(x2)^2 + dot(y2)^2);
        potential = g * (m1*y1 + m2*y2);
    }
}

lagrangian! {
    /// A cart-pole pushed and torqued, with damping and a drag on the bob.
    pub struct CartPole {
        parameters: mc = 1.5, mp = 0.4, l = 0.8, g = 9.81, c = 0.3, b = 0.05;
        coordinates: x, th;
        inputs: f, tau;
        let bob = [x + l * sin(th), -l * cos(th)];
        kinetic = mc/2 * dot(x)^2 + mp/2 * dot(bob)^2;
        potential = mp * g * bob.y;
        dissipation = c/2 * dot(x)^2 + b/2 * dot(th)^2;
        force f on x;
        force tau on th;
        force -b * dot(bob) on bob;
    }
}

// A slider on a rail with a pendulum, Cartesian coordinates, y down.
use lagrange_test_models::SliderPendulum;

// A rigid body hanging from a point of its axis, its orientation a unit quaternion.
use lagrange_test_models::QuaternionPendulum;

use lagrange_test_models::Unicycle;

/// A value exactly at its reference with probability 1/3, else the reference plus one
/// drawn from (−1, 1).
fn around(reference: f64) -> impl Strategy<Value = f64> {
    prop_oneof![
        1 => Just(reference),
        2 => (-1.0..1.0f64).prop_map(move |d| reference + d),
    ]
}

/// A state and inputs around the coordinates `base` (velocities, inputs and time around
/// zero).
fn state<const N: usize, const M: usize>(
    base: [f64; N],
) -> impl Strategy<Value = (State<N>, SVector<f64, M>)> {
    let q: Vec<_> = base.iter().map(|&b| around(b)).collect();
    let qd = prop::collection::vec(around(0.0), N);
    let u = prop::collection::vec(around(0.0), M);
    (q, qd, u, prop_oneof![Just(0.0), 0.0..2.0f64]).prop_map(|(q, qd, u, t)| {
        (
            State::new(
                t,
                SVector::from_column_slice(&q),
                SVector::from_column_slice(&qd),
            ),
            SVector::from_column_slice(&u),
        )
    })
}

/// The derivative checks of `model` at one state, as a property.
fn derivatives_agree<T, const N: usize, const M: usize, const P: usize>(
    name: &str,
    model: &T,
    (s, u): (State<N>, SVector<f64, M>),
) -> Result<(), TestCaseError>
where
    T: Parametric<N, M, P>,
{
    let failures = Derivatives::new(name, model)
        .state("drawn", s, u)
        .failures();
    prop_assert!(failures.is_empty(), "{}", failures.join("\n"));
    Ok(())
}

/// `cases` draws from a fixed seed, so that a run of the suite is reproducible (a CI run
/// that fails fails again on the same commit); set `PROPTEST_RNG_SEED` to another number
/// to explore other draws.
fn config(cases: u32) -> ProptestConfig {
    let default = ProptestConfig::default();
    let rng_seed = match default.rng_seed {
        RngSeed::Random => RngSeed::Fixed(0x1a9_2a4e),
        fixed => fixed,
    };
    ProptestConfig {
        cases,
        rng_seed,
        // Keep failures in the test output only: no regression files in the source tree.
        failure_persistence: None,
        ..default
    }
}

/// A draw that once failed in CI: the quaternion 10⁻⁴ from zero, where the accelerations
/// (about 10²⁴) vary on a scale of 10⁻⁴ and central differences with the usual step of 10⁻⁶
/// are off by 3 · 10⁻⁴ relative through truncation alone (it falls a hundredfold with each
/// tenfold shorter step). The exact derivative was right.
#[test]
fn quaternion_pendulum_near_the_zero_quaternion() {
    let s = State::new(
        0.0,
        SVector::from([0.00011767777869142737, 0.0, 0.0, 0.0]),
        SVector::zeros(),
    );
    let failures = Derivatives::new("QuaternionPendulum", &QuaternionPendulum::default())
        .state("near zero", s, SVector::<f64, 0>::zeros())
        .failures();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn double_pendulum(drawn in state::<2, 0>([0.0; 2])) {
        derivatives_agree("DoublePendulum", &DoublePendulum::default(), drawn)?;
    }

    #[test]
    fn cart_pole_with_inputs_dissipation_and_forces(drawn in state::<2, 2>([0.0; 2])) {
        derivatives_agree("CartPole", &CartPole::default(), drawn)?;
    }

    /// Around the bob hanging below the slider (at q = 0 the rod's gradient vanishes).
    #[test]
    fn slider_pendulum_holonomic(drawn in state::<4, 0>([0.0, 0.0, 0.0, 0.8])) {
        derivatives_agree("SliderPendulum", &SliderPendulum::default(), drawn)?;
    }

    /// Around the identity quaternion (at n = 0 the unit constraint's gradient vanishes);
    /// states off the unit sphere are part of the function linearized.
    #[test]
    fn quaternion_pendulum_semidefinite(drawn in state::<4, 0>([1.0, 0.0, 0.0, 0.0])) {
        derivatives_agree("QuaternionPendulum", &QuaternionPendulum::default(), drawn)?;
    }

    /// Issue 25: wrong by up to 244 at all coordinates zero before its fix.
    #[test]
    fn rolling_wheel_nonholonomic(drawn in state::<6, 0>([0.0; 6])) {
        derivatives_agree("Unicycle", &Unicycle::default(), drawn)?;
    }
}
