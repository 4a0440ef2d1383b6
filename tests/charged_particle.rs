//! A charged particle in the plane in a uniform magnetic field B ẑ, symmetric gauge
//! A = B/2 (−y, x):
//!
//! ```text
//! L = m/2 (ẋ² + ẏ²) + q_e (A·v) = m/2 (ẋ² + ẏ²) + q_e B/2 (x ẏ − y ẋ)
//! ```
//!
//! L is linear (not only quadratic) in the velocities. Closed forms:
//! ```text
//! m r̈ = q_e v × B:   ẍ = ω ẏ,  ÿ = −ω ẋ,   ω = q_e B / m (cyclotron frequency)
//! p = m v + q_e A:   p_x = m ẋ − q_e B y/2,  p_y = m ẏ + q_e B x/2
//! M = m I,  h = q̇·p − L = m v²/2  (the magnetic term is linear in v and drops out)
//! ```
//! The motion is a circle of radius r = |v|/ω about r_c = r + a/ω², travelled at
//! angular rate ω: along it a = −ω² (r − r_c).

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;

lagrangian! {
    /// Charged particle in a uniform magnetic field along z.
    pub struct Cyclotron {
        parameters: m = 0.7, qe = 1.3, B = 2.1;
        coordinates: x, y;
        let ax = -B/2 * y;
        let ay = B/2 * x;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2) + qe * (ax*dot(x) + ay*dot(y));
    }
}

/// Irregular states (x, y, ẋ, ẏ), all moving.
const STATES: [[f64; 4]; 5] = [
    [0.3, -1.2, 0.9, 0.4],
    [-2.7, 0.55, -0.13, 1.7],
    [1.9, 3.1, 2.4, -0.8],
    [0.0, 0.0, -0.61, -0.29],
    [-0.44, 0.71, 0.05, -3.3],
];

fn state(t: f64, [x, y, xd, yd]: [f64; 4]) -> State<2> {
    State::new(
        t,
        CyclotronCoordinates { x, y }.into(),
        CyclotronCoordinates { x: xd, y: yd }.into(),
    )
}

fn assert_close(got: f64, want: f64, scale: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-12 * scale.max(want.abs()),
        "{what}: got {got}, want {want}"
    );
}

fn models() -> [Cyclotron; 2] {
    [Cyclotron::default(), Cyclotron::new(2.3, -0.6, 4.4)]
}

#[test]
fn lorentz_force() {
    let u = SVector::zeros();
    for mdl in models() {
        let w = mdl.qe * mdl.B / mdl.m;
        for st in STATES {
            let [_, _, xd, yd] = st;
            let a: CyclotronCoordinates = mdl.accelerations(&state(0.4, st), &u).unwrap().into();
            let scale = w.abs() * (xd.abs() + yd.abs());
            // (q_e/m) v × B with v × ẑ = (ẏ, −ẋ).
            assert_close(a.x, w * yd, scale, "ẍ");
            assert_close(a.y, -w * xd, scale, "ÿ");
            // The force does no work: a ⟂ v, and |a| = |ω| |v|.
            assert!((a.x * xd + a.y * yd).abs() <= 1e-12 * scale * scale);
            let (speed, acc) = (xd.hypot(yd), a.x.hypot(a.y));
            assert_close(acc, w.abs() * speed, scale, "|a| = |ω||v|");
        }
    }
}

#[test]
fn cyclotron_orbit() {
    // Exact orbit through a state: r(t) = r_c + ρ(t), ρ rotating at −ω (clockwise for
    // ω > 0). At several points of it, the computed acceleration is −ω² ρ and the
    // radius r = |v|/|ω| is the distance to the centre.
    let u = SVector::zeros();
    for mdl in models() {
        let w = mdl.qe * mdl.B / mdl.m;
        let [x0, y0, vx0, vy0] = STATES[2];
        // a0 = ω (vy, −vx); centre = r0 + a0/ω².
        let (cx, cy) = (x0 + vy0 / w, y0 - vx0 / w);
        let (rx0, ry0) = (x0 - cx, y0 - cy);
        let radius = vx0.hypot(vy0) / w.abs();
        assert_close(rx0.hypot(ry0), radius, 1.0, "orbit radius");
        for t in [0.0, 0.31, 1.7, 5.93] {
            let (c, s) = ((w * t).cos(), (w * t).sin());
            // Rotation by −ωt.
            let (rx, ry) = (c * rx0 + s * ry0, -s * rx0 + c * ry0);
            // ρ̇ = −ω ẑ × ρ = ω (ρ_y, −ρ_x).
            let (vx, vy) = (w * ry, -w * rx);
            let st = [cx + rx, cy + ry, vx, vy];
            let a = mdl.accelerations(&state(t, st), &u).unwrap();
            let scale = w * w * radius;
            assert_close(a[0], -w * w * rx, scale, "ẍ on the orbit");
            assert_close(a[1], -w * w * ry, scale, "ÿ on the orbit");
        }
    }
}

#[test]
fn canonical_momenta_include_the_vector_potential() {
    let u = SVector::zeros();
    for mdl in models() {
        let qb2 = mdl.qe * mdl.B / 2.0;
        for st in STATES {
            let [x, y, xd, yd] = st;
            let p = mdl.momenta(&state(0.0, st), &u);
            let scale = mdl.m * (xd.abs() + yd.abs()) + qb2.abs() * (x.abs() + y.abs());
            assert_close(p[0], mdl.m * xd - qb2 * y, scale, "p_x = m ẋ + q_e A_x");
            assert_close(p[1], mdl.m * yd + qb2 * x, scale, "p_y = m ẏ + q_e A_y");
            // Not the kinetic momentum m v (unless A = 0 at this point).
            if x != 0.0 || y != 0.0 {
                assert!((p[0] - mdl.m * xd).abs() + (p[1] - mdl.m * yd).abs() > 1e-6);
            }
            let mm = mdl.mass_matrix(&state(0.0, st), &u);
            assert_eq!(mm, SMatrix::<f64, 2, 2>::identity() * mdl.m);
            assert_eq!(
                mdl.generalized_forces(&state(0.0, st), &u),
                SVector::<f64, 2>::zeros()
            );
        }
    }
}

#[test]
fn energy_is_kinetic_and_conserved() {
    let u = SVector::zeros();
    for mdl in models() {
        for st in STATES {
            let [x, y, xd, yd] = st;
            let s = state(1.5, st);
            let h = mdl.m / 2.0 * (xd * xd + yd * yd);
            assert_close(mdl.energy(&s, &u), h, h, "h = m v²/2");
            // dh/dt along the computed motion, by central differences in (t, q, q̇).
            let a = mdl.accelerations(&s, &u).unwrap();
            let e = 1e-5;
            let at = |k: f64| {
                let st = [x + k * xd, y + k * yd, xd + k * a[0], yd + k * a[1]];
                mdl.energy(&state(1.5 + k, st), &u)
            };
            let dh = (at(e) - at(-e)) / (2.0 * e);
            // Scale: the power of the magnetic force on each component separately.
            let scale = mdl.m * (xd * a[0]).abs() + mdl.m * (yd * a[1]).abs();
            assert!(dh.abs() <= 1e-6 * scale, "dh/dt = {dh}, want 0");
        }
    }
}

/// Exact derivatives against central differences (`common::derivatives`), at structured
/// and random states and the file's irregular ones.
#[test]
fn derivatives_match_finite_differences() {
    let model = Cyclotron::default();
    let mut check = Derivatives::new("Cyclotron", &model).standard();
    for (k, s) in STATES.iter().enumerate() {
        check = check.state(&format!("STATES[{k}]"), state(0.0, *s), SVector::zeros());
    }
    check.check();
}
