//! The heavy symmetric top with a fixed tip (Goldstein, Poole & Safko, "Classical
//! Mechanics", 3rd ed., §4.9 for the Euler angles and §5.7 "The heavy symmetrical top with
//! one point fixed"; Landau & Lifshitz, "Mechanics", §35). Goldstein calls the precession
//! angle φ and the spin ψ; here, as in many other texts, ψ is the precession and φ the spin.
//!
//! Orientation by z-x-z Euler angles, R = R_z(ψ) R_x(θ) R_z(φ): the symmetry axis is
//! R e_z = (sin θ sin ψ, −sin θ cos ψ, cos θ), so θ = 0 is the upright top and the centre of
//! mass, at distance l from the tip along that axis, is at height l cos θ. The model is
//! written with the vector language: ω_b = body_angular_velocity(R),
//! T = ½ ω_bᵀ diag(I1, I1, I3) ω_b, V = m g (R (0, 0, l)).z, with I1 = I2 and I3 the
//! principal moments about the tip.
//!
//! Derivation. Rᵀ Ṙ = [ω_b]× with ω_b = R_z(φ)ᵀ R_x(θ)ᵀ ψ̇ e_z + R_z(φ)ᵀ θ̇ e_x + φ̇ e_z,
//! and R_x(θ)ᵀ e_z = (0, sin θ, cos θ), R_z(φ)ᵀ (x, y, z) = (x cos φ + y sin φ,
//! −x sin φ + y cos φ, z), so
//!
//! ```text
//! ω_b = (ψ̇ sin θ sin φ + θ̇ cos φ,  ψ̇ sin θ cos φ − θ̇ sin φ,  ψ̇ cos θ + φ̇)
//! L   = I1/2 (θ̇² + ψ̇² sin²θ) + I3/2 ω3² − m g l cos θ,      ω3 = φ̇ + ψ̇ cos θ
//! M   = [[I1 sin²θ + I3 cos²θ, 0, I3 cos θ], [0, I1, 0], [I3 cos θ, 0, I3]]   (ψ, θ, φ)
//! p_ψ = I1 ψ̇ sin²θ + I3 ω3 cos θ,   p_φ = I3 ω3      (both conserved: ψ, φ are cyclic)
//! h   = I1/2 (θ̇² + ψ̇² sin²θ) + I3/2 ω3² + m g l cos θ   (conserved)
//! ```
//!
//! Equations of motion. ṗ_φ = 0 gives ω̇3 = 0; then ṗ_ψ = 0 and the θ equation
//! I1 θ̈ = ∂L/∂θ = I1 ψ̇² sin θ cos θ − I3 ω3 ψ̇ sin θ + m g l sin θ give
//!
//! ```text
//! θ̈ = sin θ (I1 ψ̇² cos θ − I3 ω3 ψ̇ + m g l) / I1
//! ψ̈ = θ̇ (I3 ω3 − 2 I1 ψ̇ cos θ) / (I1 sin θ)
//! φ̈ = −ψ̈ cos θ + ψ̇ θ̇ sin θ
//! ```
//!
//! Steady precession (Goldstein §5.7): with θ̇ = 0 the last two vanish, and θ̈ = 0 when
//! I1 cos θ0 ψ̇² − I3 ω3 ψ̇ + m g l = 0, i.e.
//! ψ̇ = [I3 ω3 ± √(I3² ω3² − 4 I1 m g l cos θ0)] / (2 I1 cos θ0): the slow precession
//! ≈ m g l/(I3 ω3) and the fast one ≈ I3 ω3/(I1 cos θ0), real when the top is fast enough
//! (I3² ω3² > 4 I1 m g l cos θ0; always, with opposite signs, below the horizontal). The
//! slow root is computed as 2 m g l / (I3 ω3 + √…) to avoid cancellation.
//!
//! Nutation from a release with θ̇ = ψ̇ = 0 at θ0 (Goldstein's cusp case): p_ψ = p_φ u0 with
//! u = cos θ, so ψ̇ = p_φ (u0 − u)/(I1 sin²θ) ≥ 0 for θ ≥ θ0, and energy conservation
//! I1/2 (θ̇² + ψ̇² sin²θ) = m g l (u0 − u) makes the other turning point (θ̇ = 0) the root
//! in (−1, u0) of p_φ² (u0 − u) = 2 I1 m g l (1 − u²):
//! u1 = 2 (p_φ² u0 − a)/(p_φ² + √((p_φ² − 2 a u0)² + 4 a² (1 − u0²))), a = 2 I1 m g l.
//! θ oscillates between θ0 and θ1 = acos u1.
//!
//! A second model writes the same top in the fixed frame, ω = angular_velocity(R),
//! T = ½ ωᵀ (R Γ Rᵀ) ω, with the method forms `w.inner(…)` and `R.transpose()`; it must
//! agree with the first to round-off.

use crate::common;

use common::derivatives::{order_one, Derivatives};
use lagrange_runtime::prelude::*;

lagrangian! {
    /// Heavy symmetric top on a fixed tip, z-x-z Euler angles (ψ precession, θ nutation,
    /// φ spin), body-frame kinetic energy.
    pub struct SymmetricTop {
        parameters: m = 0.5, l = 0.1, g = 9.81, I1 = 0.02, I3 = 0.01;
        coordinates: psi, theta, phi;

        let R = rot_z(psi) * rot_x(theta) * rot_z(phi);
        let w = body_angular_velocity(R);

        kinetic = inner(w, diag(I1, I1, I3) * w) / 2;
        potential = m * g * (R * [0, 0, l]).z;
    }
}

lagrangian! {
    /// The same top, its kinetic energy written in the fixed frame.
    pub struct SymmetricTopFixedFrame {
        parameters: m = 0.5, l = 0.1, g = 9.81, I1 = 0.02, I3 = 0.01;
        coordinates: psi, theta, phi;

        let R = rot_z(psi) * rot_x(theta) * rot_z(phi);
        let w = angular_velocity(R);
        let centre = R * [0, 0, l];

        kinetic = w.inner(R * diag(I1, I1, I3) * R.transpose() * w) / 2;
        potential = m * g * centre.z;
    }
}

type V3 = SVector<f64, 3>;
type M3 = SMatrix<f64, 3, 3>;

fn no_inputs() -> SVector<f64, 0> {
    SVector::zeros()
}

fn state(q: [f64; 3], qd: [f64; 3]) -> State<3> {
    let [psi, theta, phi] = q;
    let q: V3 = SymmetricTopCoordinates { psi, theta, phi }.into();
    let [psi, theta, phi] = qd;
    let qd: V3 = SymmetricTopCoordinates { psi, theta, phi }.into();
    State::new(0.0, q, qd)
}

/// ω3 = φ̇ + ψ̇ cos θ, the spin about the symmetry axis.
fn omega3(s: &State<3>) -> f64 {
    s.qd[2] + s.qd[0] * s.q[1].cos()
}

fn mgl(top: &SymmetricTop) -> f64 {
    top.m * top.g * top.l
}

/// The closed-form mass matrix of the module doc, coordinates (ψ, θ, φ).
fn mass_matrix(top: &SymmetricTop, s: &State<3>) -> M3 {
    let (sn, cs) = s.q[1].sin_cos();
    M3::new(
        top.I1 * sn * sn + top.I3 * cs * cs,
        0.0,
        top.I3 * cs,
        0.0,
        top.I1,
        0.0,
        top.I3 * cs,
        0.0,
        top.I3,
    )
}

/// The closed-form accelerations (ψ̈, θ̈, φ̈) of the module doc.
fn accelerations(top: &SymmetricTop, s: &State<3>) -> V3 {
    let (sn, cs) = s.q[1].sin_cos();
    let (psid, thetad) = (s.qd[0], s.qd[1]);
    let w3 = omega3(s);
    let thetadd = sn * (top.I1 * psid * psid * cs - top.I3 * w3 * psid + mgl(top)) / top.I1;
    let psidd = thetad * (top.I3 * w3 - 2.0 * top.I1 * psid * cs) / (top.I1 * sn);
    let phidd = -psidd * cs + psid * thetad * sn;
    V3::new(psidd, thetadd, phidd)
}

/// The closed-form momenta (p_ψ, p_θ, p_φ).
fn momenta(top: &SymmetricTop, s: &State<3>) -> V3 {
    let (sn, cs) = s.q[1].sin_cos();
    let w3 = omega3(s);
    V3::new(
        top.I1 * s.qd[0] * sn * sn + top.I3 * w3 * cs,
        top.I1 * s.qd[1],
        top.I3 * w3,
    )
}

/// T and V in closed form.
fn kinetic_and_potential(top: &SymmetricTop, s: &State<3>) -> (f64, f64) {
    let sn = s.q[1].sin();
    let w3 = omega3(s);
    let t = top.I1 / 2.0 * (s.qd[1].powi(2) + (s.qd[0] * sn).powi(2)) + top.I3 / 2.0 * w3 * w3;
    (t, mgl(top) * s.q[1].cos())
}

/// The two steady precession rates at nutation angle θ0 with spin ω3 > 0: the roots of
/// I1 cos θ0 x² − I3 ω3 x + m g l = 0, (slow, fast); below the horizontal the second is
/// negative (retrograde).
fn precession_rates(top: &SymmetricTop, theta0: f64, w3: f64) -> (f64, f64) {
    let a = top.I1 * theta0.cos();
    let b = top.I3 * w3;
    let c = mgl(top);
    let disc = b * b - 4.0 * a * c;
    assert!(disc > 0.0, "not a fast top at θ0 = {theta0}, ω3 = {w3}");
    let big = b + disc.sqrt();
    (2.0 * c / big, big / (2.0 * a))
}

/// A state with θ̇ = 0, nutation angle θ0, spin ω3 and precession rate ψ̇ (ψ and φ are
/// cyclic: any values).
fn precessing(theta0: f64, w3: f64, psid: f64) -> State<3> {
    state([0.3, theta0, -0.7], [psid, 0.0, w3 - psid * theta0.cos()])
}

/// Irregular moving states (ψ, θ, φ, ψ̇, θ̇, φ̇), θ away from 0 and π.
const STATES: [[f64; 6]; 5] = [
    [0.3, 0.4, -1.1, 1.7, 0.9, 40.0],
    [-2.1, 1.3, 0.6, -0.4, -2.3, 12.5],
    [1.4, 2.2, 3.0, 2.6, 0.35, -25.0],
    [0.0, -0.8, 0.2, 0.05, 1.9, 7.0],
    [5.9, 1.57, -4.4, -3.3, -0.6, 0.0],
];

fn from_row(r: [f64; 6]) -> State<3> {
    state([r[0], r[1], r[2]], [r[3], r[4], r[5]])
}

fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: got {got:e}, want {want:e}"
    );
}

#[test]
fn mass_matrix_accelerations_and_momenta_match_the_closed_form() {
    let u = no_inputs();
    for top in [
        SymmetricTop::default(),
        SymmetricTop::new(1.3, 0.25, 9.81, 0.11, 0.035),
    ] {
        let fixed = SymmetricTopFixedFrame::new(top.m, top.l, top.g, top.I1, top.I3);
        for row in STATES {
            let s = from_row(row);
            let want_m = mass_matrix(&top, &s);
            let got_m = top.mass_matrix(&s, &u);
            let scale = want_m.amax();
            assert!(
                (got_m - want_m).amax() <= 1e-13 * scale,
                "M at {row:?}: got {got_m}, want {want_m}"
            );

            let want_a = accelerations(&top, &s);
            let got_a = top.accelerations(&s, &u).unwrap();
            let scale_a = want_a.amax().max(1.0);
            assert!(
                (got_a - want_a).amax() <= 1e-11 * scale_a,
                "q̈ at {row:?}: got {got_a}, want {want_a}"
            );

            let want_p = momenta(&top, &s);
            let got_p = top.momenta(&s, &u);
            assert!(
                (got_p - want_p).amax() <= 1e-13 * want_p.amax().max(1.0),
                "p at {row:?}: got {got_p}, want {want_p}"
            );

            let (t, v) = kinetic_and_potential(&top, &s);
            assert_close(top.lagrangian(&s, &u), t - v, 1e-13, "L");
            assert_close(top.energy(&s, &u), t + v, 1e-13, "h");

            // The fixed-frame form of the same top: the same dynamics.
            assert!((fixed.mass_matrix(&s, &u) - got_m).amax() <= 1e-13 * scale);
            let a2 = fixed.accelerations(&s, &u).unwrap();
            assert!(
                (a2 - got_a).amax() <= 1e-11 * scale_a,
                "fixed-frame q̈ at {row:?}: {a2} against {got_a}"
            );
            assert!((fixed.momenta(&s, &u) - got_p).amax() <= 1e-13 * want_p.amax().max(1.0));
            assert_close(fixed.energy(&s, &u), t + v, 1e-13, "h (fixed frame)");
        }
    }
}

#[test]
fn steady_precession_at_either_root_makes_every_acceleration_vanish() {
    let top = SymmetricTop::default();
    let u = no_inputs();
    // (θ0, ω3): above the horizontal (two prograde roots) and below it (one retrograde).
    for (theta0, w3) in [(0.5, 50.0), (1.2, 30.0), (2.0, 20.0)] {
        let (slow, fast) = precession_rates(&top, theta0, w3);
        // Sanity of the roots themselves: the slow one is close to m g l/(I3 ω3).
        assert!(
            (slow / (mgl(&top) / (top.I3 * w3)) - 1.0).abs() < 0.2,
            "slow {slow}"
        );
        for psid in [slow, fast] {
            let s = precessing(theta0, w3, psid);
            assert_close(omega3(&s), w3, 1e-15, "ω3");
            // The three terms of the θ equation, to scale the round-off.
            let scale = (top.I1 * psid * psid * theta0.cos())
                .abs()
                .max(top.I3 * w3 * psid.abs())
                .max(mgl(&top))
                / top.I1;
            let qdd = top.accelerations(&s, &u).unwrap();
            assert!(
                qdd.amax() <= 1e-12 * scale,
                "θ0 = {theta0}, ω3 = {w3}, ψ̇ = {psid}: q̈ = {qdd} (scale {scale:e})"
            );

            // And it stays so: 500 RK4 steps of 1e-3 keep θ = θ0 and ψ̇, φ̇ constant (RK4
            // follows a motion with q̈ = 0 exactly, up to round-off).
            let run = Simulation::new(&top, s).run(&Rk4::new(1e-3), 0.5).unwrap();
            for x in run.states() {
                assert!(
                    (x.q[1] - theta0).abs() < 1e-9,
                    "θ({}) = {} drifts from {theta0} at ψ̇ = {psid}",
                    x.t,
                    x.q[1]
                );
                assert!((x.q[0] - (s.q[0] + psid * x.t)).abs() < 1e-9 * (1.0 + psid.abs()));
                assert!((x.qd - s.qd).amax() < 1e-9 * (1.0 + s.qd.amax()));
            }
        }
        // Off the roots, θ̈ is not zero and follows the closed form; ψ̈ = φ̈ = 0 still
        // (θ̇ = 0).
        for psid in [1.1 * slow, 0.9 * fast] {
            let s = precessing(theta0, w3, psid);
            let scale = (top.I1 * psid * psid * theta0.cos())
                .abs()
                .max(top.I3 * w3 * psid.abs())
                .max(mgl(&top))
                / top.I1;
            let qdd = top.accelerations(&s, &u).unwrap();
            let want = accelerations(&top, &s);
            assert!(want[0] == 0.0 && want[2] == 0.0);
            assert!(
                (qdd - want).amax() <= 1e-12 * scale,
                "θ0 = {theta0}, ψ̇ = {psid}: q̈ = {qdd}, want {want}"
            );
            assert!(
                qdd[1].abs() > 1e-3 * scale,
                "θ0 = {theta0}, ψ̇ = {psid} is off the roots but θ̈ = {}",
                qdd[1]
            );
        }
    }
}

/// Released with θ̇ = ψ̇ = 0 at θ0 = 0.5 spinning at ω3 = 50 rad/s: nutation between θ0
/// and θ1 ≈ 0.54195 at ≈ I3 ω3/I1 = 25 rad/s, a slow precession ≈ 1 rad/s on average.
/// RK4 with h = 1e-3 over 2 s (2000 steps, 8 nutations). Measured in a reference
/// implementation of the same RK4 on the closed-form equations: |Δh|/h ≤ 2.5e-12,
/// |Δp_ψ|/p_ψ ≤ 2.7e-12, |Δp_φ|/p_φ ≤ 1.4e-12; the largest sampled θ is θ1 − 2.3e-7 (θ1 −
/// θ0) (the grid misses the exact turning point) and the smallest after the start θ0 +
/// 1e-6 (θ1 − θ0).
#[test]
fn nutating_top_conserves_energy_and_both_momenta() {
    let top = SymmetricTop::default();
    let u = no_inputs();
    let (theta0, w3) = (0.5f64, 50.0);
    let s0 = state([0.0, theta0, 0.0], [0.0, 0.0, w3]);

    // The conserved quantities at the start, against their closed forms.
    let p0 = top.momenta(&s0, &u);
    let (sn0, cs0) = theta0.sin_cos();
    let psid0 = s0.qd[0];
    let p_psi = top.I1 * psid0 * sn0 * sn0 + top.I3 * w3 * cs0;
    let p_phi = top.I3 * w3;
    assert_close(p0[0], p_psi, 1e-14, "p_ψ(0)");
    assert_close(p0[2], p_phi, 1e-14, "p_φ(0)");
    let h0 = top.energy(&s0, &u);
    assert_close(h0, top.I3 / 2.0 * w3 * w3 + mgl(&top) * cs0, 1e-14, "h(0)");

    // The other turning point of θ.
    let a = 2.0 * top.I1 * mgl(&top);
    let b = p_phi * p_phi;
    let disc = (b - 2.0 * a * cs0).powi(2) + 4.0 * a * a * (1.0 - cs0 * cs0);
    let theta1 = (2.0 * (b * cs0 - a) / (b + disc.sqrt())).acos();
    assert!((0.04..0.045).contains(&(theta1 - theta0)), "θ1 = {theta1}");

    let run = Simulation::new(&top, s0).run(&Rk4::new(1e-3), 2.0).unwrap();
    assert!(run.len() >= 2001);
    let (mut dh, mut dpsi, mut dphi) = (0.0f64, 0.0f64, 0.0f64);
    let (mut th_max, mut th_min_later) = (f64::MIN, f64::MAX);
    for s in run.states() {
        dh = dh.max((top.energy(s, &u) - h0).abs());
        let p = top.momenta(s, &u);
        dpsi = dpsi.max((p[0] - p_psi).abs());
        dphi = dphi.max((p[2] - p_phi).abs());
        let th = s.q[1];
        assert!(
            (theta0 - 1e-9..=theta1 + 1e-9).contains(&th),
            "θ({}) = {th} outside [{theta0}, {theta1}]",
            s.t
        );
        // Cusp motion: the precession rate never goes negative.
        assert!(s.qd[0] >= -1e-8, "ψ̇({}) = {}", s.t, s.qd[0]);
        th_max = th_max.max(th);
        if s.t > 0.1 {
            th_min_later = th_min_later.min(th);
        }
    }
    println!(
        "nutating top: |Δh|/h = {:.2e}, |Δp_ψ|/p_ψ = {:.2e}, |Δp_φ|/p_φ = {:.2e}, θ in [{th_min_later}, {th_max}] of [{theta0}, {theta1}]",
        dh / h0.abs(),
        dpsi / p_psi,
        dphi / p_phi
    );
    assert!(dh <= 1e-10 * h0.abs(), "energy error {dh:e}");
    assert!(dpsi <= 1e-10 * p_psi, "p_ψ error {dpsi:e}");
    assert!(dphi <= 1e-10 * p_phi, "p_φ error {dphi:e}");
    // θ sweeps the whole band: up to θ1 and back down to θ0.
    let band = theta1 - theta0;
    assert!(
        th_max >= theta1 - 1e-4 * band,
        "θ reaches only {th_max}, θ1 = {theta1}"
    );
    assert!(
        th_min_later <= theta0 + 1e-4 * band,
        "θ comes back only to {th_min_later}, θ0 = {theta0}"
    );
}

/// Exact derivatives against central differences (`common::derivatives`), of both forms.
/// The z-x-z Euler angles are singular at θ = 0 (ψ and φ turn about one axis): the states
/// have θ in [0.4, 1.2], structured around (0, 0.8, 0), and the two steady precessions at
/// θ0 = 0.8 with spin ω3 = 40.
#[test]
fn derivatives_match_finite_differences() {
    let top = SymmetricTop::default();
    let (theta0, w3) = (0.8f64, 40.0);
    let (slow, fast) = precession_rates(&top, theta0, w3);
    let precessing = |rate: f64| state([0.0, theta0, 0.0], [rate, 0.0, w3 - rate * theta0.cos()]);
    let sampler = |rng: &mut common::Rng| {
        let (mut s, u) = order_one::<3, 0>(rng);
        s.q[1] = 0.8 + 0.4 * s.q[1];
        (s, u)
    };
    let base = SVector::from([0.0, theta0, 0.0]);
    Derivatives::new("SymmetricTop", &top)
        .sampler(sampler)
        .structured_at(base)
        .random(3)
        .state("slow precession", precessing(slow), no_inputs())
        .state("fast precession", precessing(fast), no_inputs())
        .check();
    Derivatives::new("SymmetricTopFixedFrame", &SymmetricTopFixedFrame::default())
        .sampler(sampler)
        .structured_at(base)
        .random(3)
        .state("slow precession", precessing(slow), no_inputs())
        .state("fast precession", precessing(fast), no_inputs())
        .check();
}
