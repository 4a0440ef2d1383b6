//! Units change no number: each model here is generated twice from one text by `twins!`,
//! once with units on its declarations (so its dimensions are checked) and once without,
//! and every output of `Dynamics` (and `Constrained`, and the `let`s) must be bit for bit
//! the same. Then the units the generated code exposes, and how trajectories carry them
//! into CSV headers and serialized runs.

use crate::common;

use common::derivatives::{order_one, Derivatives};
use common::Rng;
use lagrange_runtime::model::Parametric;
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{Rk4, Simulation};
use lagrange_runtime::Units;

/// Two models from one text: `$annotated` with the units as written, `$plain` without.
macro_rules! twins {
    (
        $annotated:ident, $plain:ident;
        parameters: $($p:ident = $v:literal [$($pu:tt)*]),*;
        coordinates: $($q:ident [$($qu:tt)*]),*;
        inputs: $($u:ident [$($uu:tt)*]),*;
        $($body:tt)*
    ) => {
        lagrangian! {
            struct $annotated {
                parameters: $($p = $v [$($pu)*]),*;
                coordinates: $($q [$($qu)*]),*;
                inputs: $($u [$($uu)*]),*;
                $($body)*
            }
        }
        lagrangian! {
            struct $plain {
                parameters: $($p = $v),*;
                coordinates: $($q),*;
                inputs: $($u),*;
                $($body)*
            }
        }
    };
}

twins! {
    CartPole, PlainCartPole;
    parameters: mc = 1.0 [kg], mp = 0.3 [kg], l = 0.5 [m], g = 9.81 [m/s^2],
        c = 0.2 [N*s/m], b = 0.01 [N*m*s], k = 3.0 [N/m];
    coordinates: x [m], theta [rad];
    inputs: f [N], tau [N*m];
    let bob = [x + l * sin(theta), -l * cos(theta), 0];
    let speed = norm(dot(bob));
    kinetic = mc/2 * dot(x)^2 + mp/2 * dot(bob)^2;
    potential = mp * g * bob.y + k/2 * x^2;
    dissipation = c/2 * dot(x)^2 + b/2 * dot(theta)^2;
    force f on x;
    force [0, -c * dot(bob).y, 0] on bob;
    force tau on theta;
}

twins! {
    Top, PlainTop;
    parameters: m = 0.5 [kg], l = 0.1 [m], I1 = 2e-3 [kg*m^2], I3 = 1e-3 [kg*m^2],
        g = 9.81 [m/s^2], w0 = 3.0 [rad/s], h = 0.2 [m];
    coordinates: psi [rad], theta [rad], phi [rad];
    inputs: tau [N*m];
    let R = rot_z(psi) * rot_x(theta) * rot_z(phi);
    let w = body_angular_velocity(R);
    let tip = R * [0, 0, l];
    let wobble = atan2(tip.x, hypot(tip.y, h)) + asin(sqrt(tip.x^2 + tip.y^2) / (2 * l));
    kinetic = inner(w, diag(I1, I1, I3) * w) / 2 + m/2 * dot(tip)^2;
    potential = m * g * tip.z + m * g * l * (cos(w0 * t) * wobble)^2;
    torque R * [0, 0, tau] on R;
}

twins! {
    RodPendulum, PlainRodPendulum;
    parameters: m = 1.2 [kg], l = 0.8 [m], g = 9.81 [m/s^2], c = 0.05 [kg/s];
    coordinates: x [m], y [m], s [m];
    inputs: f [N];
    kinetic = m/2 * (dot(x)^2 + dot(y)^2) + m/2 * dot(s)^2;
    potential = m * g * y;
    dissipation = c/2 * (dot(x)^2 + dot(y)^2);
    force f on s;
    constraint rod = x^2 + y^2 - l^2;
    constraint glide = dot(s) - (x * dot(y) - y * dot(x)) / l;
}

fn state<const N: usize>(rng: &mut Rng) -> State<N> {
    State::new(
        rng.uniform(0.0, 3.0),
        SVector::from_fn(|_, _| rng.uniform(-1.5, 1.5)),
        SVector::from_fn(|_, _| rng.uniform(-2.0, 2.0)),
    )
}

/// Every output of `Dynamics` of `a` and `b`, bit for bit, at random states and inputs.
fn same_dynamics<A, B, const N: usize, const M: usize>(a: &A, b: &B, seed: u64)
where
    A: Dynamics<N, M>,
    B: Dynamics<N, M>,
{
    let mut rng = Rng(seed);
    for _ in 0..40 {
        let s = state::<N>(&mut rng);
        let u = SVector::<f64, M>::from_fn(|_, _| rng.uniform(-1.0, 1.0));
        let qdd = SVector::<f64, N>::from_fn(|_, _| rng.uniform(-1.0, 1.0));
        assert_eq!(a.lagrangian(&s, &u), b.lagrangian(&s, &u));
        assert_eq!(a.kinetic_energy(&s, &u), b.kinetic_energy(&s, &u));
        assert_eq!(a.potential_energy(&s, &u), b.potential_energy(&s, &u));
        assert_eq!(a.dissipation(&s, &u), b.dissipation(&s, &u));
        assert_eq!(a.energy(&s, &u), b.energy(&s, &u));
        assert_eq!(a.momenta(&s, &u), b.momenta(&s, &u));
        assert_eq!(a.mass_matrix(&s, &u), b.mass_matrix(&s, &u));
        assert_eq!(a.generalized_forces(&s, &u), b.generalized_forces(&s, &u));
        assert_eq!(a.accelerations(&s, &u), b.accelerations(&s, &u));
        assert_eq!(
            a.inverse_dynamics(&s, &qdd, &u),
            b.inverse_dynamics(&s, &qdd, &u)
        );
    }
}

#[test]
fn units_change_no_number() {
    same_dynamics(&CartPole::default(), &PlainCartPole::default(), 1);
    same_dynamics(&Top::default(), &PlainTop::default(), 2);
    same_dynamics(&RodPendulum::default(), &PlainRodPendulum::default(), 3);

    let mut rng = Rng(4);
    for _ in 0..40 {
        let s = state::<2>(&mut rng);
        let u = SVector::from([rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)]);
        let (a, b) = (
            CartPole::default().lets(&s, &u),
            PlainCartPole::default().lets(&s, &u),
        );
        assert_eq!((a.bob, a.speed), (b.bob, b.speed));
    }
    let (a, b) = (RodPendulum::default(), PlainRodPendulum::default());
    for _ in 0..40 {
        let s = state::<3>(&mut rng);
        let u = SVector::from([rng.uniform(-1.0, 1.0)]);
        assert_eq!(
            a.constraint_residuals(&s, &u),
            b.constraint_residuals(&s, &u)
        );
        assert_eq!(a.multipliers(&s, &u), b.multipliers(&s, &u));
    }
}

#[test]
fn the_generated_code_exposes_the_declared_units() {
    assert_eq!(
        CartPole::UNITS,
        Some(Units {
            coordinates: ["m", "rad"],
            velocities: ["m/s", "rad/s"],
            inputs: ["N", "N*m"],
        })
    );
    // A wrapper's units are its model's (the trajectory of a stabilized run carries them).
    assert_eq!(
        <lagrange_runtime::constrained::Baumgarte<CartPole> as Dynamics<2, 2>>::UNITS,
        CartPole::UNITS
    );
    assert_eq!(
        CartPole::PARAMETER_UNITS,
        Some(["kg", "kg", "m", "m/s^2", "N*s/m", "N*m*s", "N/m"])
    );
    assert_eq!(Top::PARAMETER_UNITS.unwrap()[2], "kg*m^2");
    assert_eq!(Top::PARAMETER_UNITS.unwrap()[5], "rad/s");
    assert_eq!(RodPendulum::UNITS.unwrap().velocities, ["m/s"; 3]);
    assert_eq!(PlainCartPole::UNITS, None);
    assert_eq!(PlainCartPole::PARAMETER_UNITS, None);
}

lagrangian! {
    /// A parameter's default followed by its unit: the bracket is the unit, never an index.
    struct Defaults {
        parameters: g = 9.81 [m/s^2], z0 = -0.9 [m], lam = pi/10 [rad], r = sqrt(2)/2 [m],
            m = 2 [kg], n [1];
        coordinates: z [m];
        kinetic = m/2 * dot(z)^2;
        potential = m * g * ((z - z0) * cos(lam) * n + r * sin(lam));
    }
}

lagrangian! {
    /// Each element of a vector constraint is a constraint of its own: its elements may
    /// differ in dimension. A coordinate may be called `energy`.
    struct Weld {
        parameters: m = 1.0 [kg], I = 0.1 [kg*m^2], l = 0.5 [m];
        coordinates: energy [m], th [rad];
        kinetic = m/2 * dot(energy)^2 + I/2 * dot(th)^2;
        constraint weld = [energy - l, th];
    }
}

#[test]
fn vector_constraints_may_mix_dimensions_and_units_follow_columns() {
    let s = State::new(0.0, SVector::from([0.7, 0.1]), SVector::zeros());
    let r = Weld::default().constraint_residuals(&s, &SVector::zeros());
    assert_eq!(r, SVector::from([0.7 - 0.5, 0.1]));
    let run = Simulation::new(&Weld::default(), State::at_rest(SVector::from([0.5, 0.0])))
        .run(&Rk4::new(0.01), 0.01)
        .unwrap();
    let mut csv = Vec::new();
    run.write_csv(&mut csv).unwrap();
    assert!(String::from_utf8(csv)
        .unwrap()
        .starts_with("t [s],energy [m],th [rad],dot(energy) [m/s],dot(th) [rad/s],energy [J]\n"));
}

#[test]
fn a_bracket_after_a_default_is_its_unit() {
    let d = Defaults {
        g: 9.81,
        z0: -0.9,
        lam: std::f64::consts::PI / 10.0,
        r: 2f64.sqrt() / 2.0,
        m: 2.0,
        n: 1.0,
    };
    assert_eq!(Defaults::new(9.81, -0.9, d.lam, d.r, 2.0, 1.0), d);
    assert_eq!(
        Defaults::PARAMETER_UNITS,
        Some(["m/s^2", "m", "rad", "m", "kg", "1"])
    );
    // Without a value for `n`, there is no `Default`; with one, the defaults are the values.
    let s = State::new(0.0, SVector::from([0.1]), SVector::from([0.0]));
    let v = d.potential_energy(&s, &SVector::zeros());
    let want = 2.0 * 9.81 * ((0.1 + 0.9) * d.lam.cos() + d.r * d.lam.sin());
    assert!((v - want).abs() < 1e-12, "{v} vs {want}");
}

#[test]
fn trajectories_label_their_columns_with_units() {
    let model = CartPole::default();
    let run = Simulation::new(&model, State::at_rest(SVector::from([0.0, 0.3])))
        .inputs(|_, _| SVector::from([0.5, 0.0]))
        .run(&Rk4::new(0.01), 0.05)
        .unwrap();
    let mut csv = Vec::new();
    run.write_csv(&mut csv).unwrap();
    let csv = String::from_utf8(csv).unwrap();
    assert_eq!(
        csv.lines().next().unwrap(),
        "t [s],x [m],theta [rad],dot(x) [m/s],dot(theta) [rad/s],f [N],tau [N*m],energy [J]"
    );
    assert_eq!(run.column_unit("dot(theta)"), Some("rad/s"));
    assert_eq!(run.column_unit("tau"), Some("N*m"));
    assert_eq!(run.column_unit("t"), Some("s"));
    assert_eq!(run.column_unit("speed"), None);
    assert_eq!(run.column_label("dot(x)"), "dot(x) [m/s]");
    assert_eq!(run.column_label("speed"), "speed");
    // Columns are still found by their names alone.
    assert_eq!(run.column("theta").unwrap()[0], 0.3);

    let plain = Simulation::new(&PlainCartPole::default(), State::at_rest(SVector::zeros()))
        .run(&Rk4::new(0.01), 0.02)
        .unwrap();
    let mut csv = Vec::new();
    plain.write_csv(&mut csv).unwrap();
    assert!(String::from_utf8(csv)
        .unwrap()
        .starts_with("t,x,theta,dot(x),dot(theta),f,tau,energy\n"));
    assert_eq!(plain.column_unit("x"), None);
}

#[test]
fn serialized_trajectories_keep_their_units() {
    let run = Simulation::new(
        &Top::default(),
        State::at_rest(SVector::from([0.0, 0.2, 0.0])),
    )
    .run(&Rk4::new(0.01), 0.03)
    .unwrap();
    let json = serde_json::to_string(&run).unwrap();
    let back: lagrange_runtime::simulate::Trajectory<3, 1> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, run);
    assert_eq!(back.column_unit("dot(phi)"), Some("rad/s"));

    // A run serialized before units existed has none.
    let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
    value.as_object_mut().unwrap().remove("units");
    let old: lagrange_runtime::simulate::Trajectory<3, 1> = serde_json::from_value(value).unwrap();
    assert_eq!(old.column_unit("phi"), None);

    // Units that do not fit the model's sizes are refused.
    let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
    value["units"]["inputs"] = serde_json::json!([]);
    let error = serde_json::from_value::<lagrange_runtime::simulate::Trajectory<3, 1>>(value)
        .unwrap_err()
        .to_string();
    assert!(error.contains("one unit per coordinate"), "{error}");

    // A unit that would break the CSV header is refused.
    let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
    value["units"]["inputs"] = serde_json::json!(["N,m"]);
    let error = serde_json::from_value::<lagrange_runtime::simulate::Trajectory<3, 1>>(value)
        .unwrap_err()
        .to_string();
    assert!(error.contains("separator"), "{error}");
}

/// Exact derivatives against central differences (`common::derivatives`), of every model
/// with units and its twin without. Top's z-x-z Euler angles are singular at θ = 0, where
/// its `sqrt(tip.x^2 + tip.y^2)` has no derivative either: its states have θ in
/// [0.4, 1.2], structured around (0, 0.8, 0). The rod pendulum's structured states hang (at
/// q = 0 the rod's gradient vanishes, and `glide` divides by l, not by |q|).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("CartPole", &CartPole::default())
        .standard()
        .check();
    Derivatives::new("PlainCartPole", &PlainCartPole::default())
        .standard()
        .check();
    let tilted = |rng: &mut Rng| {
        let (mut s, u) = order_one::<3, 1>(rng);
        s.q[1] = 0.8 + 0.4 * s.q[1];
        (s, u)
    };
    let base = SVector::from([0.0, 0.8, 0.0]);
    Derivatives::new("Top", &Top::default())
        .sampler(tilted)
        .structured_at(base)
        .random(3)
        .check();
    Derivatives::new("PlainTop", &PlainTop::default())
        .sampler(tilted)
        .structured_at(base)
        .random(3)
        .check();
    let hanging = SVector::from([0.0, -RodPendulum::default().l, 0.0]);
    Derivatives::new("RodPendulum", &RodPendulum::default())
        .structured_at(hanging)
        .random(3)
        .check();
    Derivatives::new("PlainRodPendulum", &PlainRodPendulum::default())
        .structured_at(hanging)
        .random(3)
        .check();
    let defaults = Defaults::new(9.81, -0.9, std::f64::consts::PI / 10.0, 0.7, 2.0, 1.0);
    Derivatives::new("Defaults", &defaults).standard().check();
    Derivatives::new("Weld", &Weld::default())
        .standard()
        .state(
            "welded",
            State::at_rest(SVector::from([0.5, 0.0])),
            SVector::zeros(),
        )
        .check();
}

lagrangian! {
    /// Fixed geometry as literals with units: a pendulum hung 0.3 m right of the origin,
    /// its bob of 0.012 kg·m² about its centre; dimension-checked like the rest.
    struct LiteralUnits {
        parameters: m = 2.0 [kg], g = 9.81 [m/s^2];
        coordinates: q [rad];
        let p = [0.3, 0] [m] + 0.5 [m] * [sin(q), -cos(q)];
        kinetic = m/2 * dot(p)^2 + 0.012 [kg*m^2] / 2 * dot(q)^2;
        potential = m * g * p.y;
    }
}

lagrangian! {
    /// The same without units.
    struct LiteralPlain {
        parameters: m = 2.0, g = 9.81;
        coordinates: q;
        let p = [0.3, 0] + 0.5 * [sin(q), -cos(q)];
        kinetic = m/2 * dot(p)^2 + 0.012 / 2 * dot(q)^2;
        potential = m * g * p.y;
    }
}

#[test]
fn literals_with_units_are_the_same_numbers() {
    let (a, b) = (LiteralUnits::default(), LiteralPlain::default());
    let units = <LiteralUnits as lagrange_runtime::model::Model<1, 0>>::UNITS.expect("units");
    assert_eq!(units.coordinates, ["rad"]);
    for (q, qd) in [(0.0, 0.0), (0.4, -1.2), (-2.0, 0.7)] {
        let s = State::new(0.0, SVector::from([q]), SVector::from([qd]));
        let none = SVector::zeros();
        assert_eq!(a.accelerations(&s, &none), b.accelerations(&s, &none));
        assert_eq!(a.energy(&s, &none), b.energy(&s, &none));
        // θ̈ = −m g l sin θ / (m l² + I).
        let want = -2.0 * 9.81 * 0.5 * q.sin() / (2.0 * 0.25 + 0.012);
        assert!((a.accelerations(&s, &none).unwrap()[0] - want).abs() < 1e-14);
    }
}
