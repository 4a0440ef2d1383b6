//! A coin rolling on a table: a thin uniform disk (radius r, mass m, moments of inertia
//! I1 = m r²/4 about a diameter and I3 = m r²/2 about its axis) rolling without slipping
//! on the horizontal plane z = 0 — the classic nonholonomic rigid body (Routh, "Advanced
//! Rigid Dynamics", ch. V; Neimark & Fufaev, "Dynamics of Nonholonomic Systems", ch. II;
//! O'Reilly, "The dynamics of rolling disks and sliding disks", Nonlinear Dynamics 10,
//! 1996), written with the vector language: rotations, `angular_velocity`,
//! `body_angular_velocity`, `cross`, and one vector constraint.
//!
//! Coordinates: the contact point (x, y), the heading ψ (`yaw`), the lean θ from the
//! vertical (`lean`) and the rolling angle φ (`spin`). Orientation R = Rz(ψ) Rx(θ) Ry(φ)
//! (right-handed elementary rotations): the disk's symmetry axis is its body y axis. The
//! frame without the spin, Rz(ψ) Rx(θ), has the columns
//!
//! ```text
//! e1 = (cψ, sψ, 0)              horizontal, in the disk's plane: the heading
//! e2 = (−sψ cθ, cψ cθ, sθ)      the symmetry axis
//! e3 = (sψ sθ, −cψ sθ, cθ)      in the disk's plane, the steepest direction up it
//! ```
//!
//! The contact point C = (x, y, 0) is the disk's lowest point, so the centre is
//! G = C + r e3, at height r cos θ.
//!
//! Kinematics, in components on (e1, e2, e3), a frame that turns with
//! Ω = ψ̇ ẑ + θ̇ e1 = (θ̇, ψ̇ sθ, ψ̇ cθ):
//!
//! ```text
//! ω = Ω + φ̇ e2 = (θ̇, s, ψ̇ cθ),          s = φ̇ + ψ̇ sin θ   (spin about the axis)
//! v_C = Ġ + ω × (C − G) = (ẋ, ẏ, 0) + r (Ω − ω) × e3 = (ẋ, ẏ, 0) − r φ̇ e1
//! ```
//!
//! (the material point at the contact; its vertical component vanishes identically), so
//! the rolling constraint, the horizontal components of v_C = 0, is
//!
//! ```text
//! roll:  ẋ − r φ̇ cos ψ = 0,   ẏ − r φ̇ sin ψ = 0,
//! ```
//!
//! and on it
//!
//! ```text
//! v_G = ω × r e3 = r s e1 − r θ̇ e2,
//! T = ½ m r² (s² + θ̇²) + ½ I1 (θ̇² + ψ̇² cos²θ) + ½ I3 s²,   V = m g r cos θ.
//! ```
//!
//! Equations of motion (Newton–Euler, which the first-kind Lagrange equations must
//! reproduce): m a_G = F − m g ẑ with the contact force F at C, and about the centre
//! Ḣ_G = (C − G) × F = −r e3 × F with H_G = (I1 θ̇, I3 s, I1 ψ̇ cθ). Differentiating in the
//! turning frame (d/dt = component derivatives + Ω ×) and eliminating F:
//!
//! ```text
//! (I1 + m r²) θ̈ = −I1 ψ̇² sθ cθ + (I3 + m r²) s ψ̇ cθ + m g r sθ      (e1)
//! (I3 + m r²) ṡ = −m r² ψ̇ θ̇ cθ                                      (e2)
//! I1 cθ ψ̈       = 2 I1 ψ̇ θ̇ sθ − I3 s θ̇                              (e3)
//! φ̈ = ṡ − ψ̈ sθ − ψ̇ θ̇ cθ,   ẍ = r (φ̈ cψ − φ̇ ψ̇ sψ),   ÿ = r (φ̈ sψ + φ̇ ψ̇ cψ).
//! ```
//!
//! The horizontal contact force F_h = m a_G,h does virtual work at the material contact
//! point, so it enters the generalized forces as Jᵀ F_h with J = ∂(roll)/∂q̇; the DSL writes
//! the constraint force as −Jᵀ λ, hence λ = −m a_G,h, and the constraint's generalized force
//! is (m a_x, m a_y, 0, 0, −m r (a_x cψ + a_y sψ)). (A Python prototype of these formulas
//! agreed with a direct KKT solve of the Lagrangian, built symbolically with the same
//! R, G and constraint, to 1e-15.)
//!
//! Upright rolling, θ = 0, ψ̇ = 0, φ̇ = Ω, is a solution: a straight line at speed v = r Ω.
//! Linearized around it (s = Ω to first order), (e3) gives ψ̇ = −(I3 Ω/I1) θ + C and (e1)
//!
//! ```text
//! (I1 + m r²) θ̈ + [(I3 + m r²) I3 Ω²/I1 − m g r] θ = (I3 + m r²) Ω C,
//! ω² = [(I3 + m r²) I3 Ω²/I1 − m g r] / (I1 + m r²),
//! ```
//!
//! stable when Ω² > Ω_c² = m g r I1 / (I3 (I3 + m r²)). For the thin disk
//! ω² = (4/5)(3 Ω² − g/r) and v_c² = r² Ω_c² = g r/3; for a hoop (I1 = m r²/2, I3 = m r²)
//! v_c² = g r/4 (Routh's values). Started upright with a small lean rate ε and ψ̇ = 0
//! (C = 0): θ(t) ≈ (ε/ω) sin ωt above the critical speed, θ(t) ≈ (ε/λ) sinh λt with
//! λ² = −ω² below it.
use crate::common;

use common::derivatives::Derivatives;
use common::{assert_close, assert_slice_close, Rng};
use lagrange_runtime::linearize::linearize;
use lagrange_runtime::nalgebra::DMatrix;
use lagrange_runtime::prelude::*;

/// An eigenvalue as (real part, imaginary part).
type Complex = (f64, f64);

lagrangian! {
    /// A coin (uniform thin disk by default) rolling without slipping on the plane z = 0.
    pub struct RollingCoin {
        parameters: m = 0.8, r = 0.5, I1 = 0.05, I3 = 0.1, g = 9.81;
        coordinates: x, y, yaw, lean, spin;

        let tilt = rot_z(yaw) * rot_x(lean);     // the disk's frame without its spin
        let R = tilt * rot_y(spin);              // the disk: symmetry axis along body y
        let contact = [x, y, 0];                 // the contact point on the plane
        let p = contact + tilt * [0, 0, r];      // the centre, r up the disk from the contact
        let wb = body_angular_velocity(R);
        let w = angular_velocity(R);
        let vc = dot(p) + cross(w, contact - p); // the disk's material point at the contact

        kinetic = m/2 * dot(p)^2 + inner(wb, diag(I1, I3, I1) * wb) / 2;
        potential = m * g * p.z;
        constraint roll = [vc.x, vc.y];
    }
}

const U: SVector<f64, 0> =
    SVector::from_array_storage(lagrange_runtime::nalgebra::ArrayStorage([[]]));

type V5 = SVector<f64, 5>;

/// The thin disk (the defaults: I1 = m r²/4 = 0.05, I3 = m r²/2 = 0.1) and a hoop
/// (I1 = m r²/2, I3 = m r²) of other size, mass and gravity.
fn coins() -> [RollingCoin; 2] {
    let (m, r) = (1.1, 0.35);
    [
        RollingCoin::default(),
        RollingCoin::new(m, r, m * r * r / 2.0, m * r * r, 3.71),
    ]
}

/// Ω_c² = m g r I1 / (I3 (I3 + m r²)).
fn critical_spin(c: &RollingCoin) -> f64 {
    (c.m * c.g * c.r * c.I1 / (c.I3 * (c.I3 + c.m * c.r * c.r))).sqrt()
}

/// ω² of the lean about upright rolling at spin rate Ω (negative: unstable).
fn wobble_squared(c: &RollingCoin, spin_rate: f64) -> f64 {
    let mr2 = c.m * c.r * c.r;
    ((c.I3 + mr2) * c.I3 * spin_rate * spin_rate / c.I1 - c.m * c.g * c.r) / (c.I1 + mr2)
}

/// The state with the given configuration and rates ψ̇, θ̇, φ̇, and (ẋ, ẏ) = r φ̇ (cos ψ,
/// sin ψ) as the rolling constraint requires.
fn rolling(c: &RollingCoin, q: [f64; 5], yaw_d: f64, lean_d: f64, spin_d: f64) -> State<5> {
    let v = c.r * spin_d;
    State::new(
        0.0,
        V5::from(q),
        V5::from([v * q[2].cos(), v * q[2].sin(), yaw_d, lean_d, spin_d]),
    )
}

/// The Newton–Euler accelerations q̈ of the module docs and the horizontal acceleration
/// (a_x, a_y) of the centre at a state on the rolling constraint.
fn newton_euler(c: &RollingCoin, s: &State<5>) -> (V5, [f64; 2]) {
    let (psi, th) = (s.q[2], s.q[3]);
    let (psd, thd, phd) = (s.qd[2], s.qd[3], s.qd[4]);
    let (sp, cp) = psi.sin_cos();
    let (st, ct) = th.sin_cos();
    let mr2 = c.m * c.r * c.r;
    let spin = phd + psd * st;
    let thdd =
        (-c.I1 * psd * psd * st * ct + (c.I3 + mr2) * spin * psd * ct + c.m * c.g * c.r * st)
            / (c.I1 + mr2);
    let psdd = (2.0 * c.I1 * psd * thd * st - c.I3 * spin * thd) / (c.I1 * ct);
    let spin_d = -mr2 * psd * thd * ct / (c.I3 + mr2);
    let phdd = spin_d - psdd * st - psd * thd * ct;
    let xdd = c.r * (phdd * cp - phd * psd * sp);
    let ydd = c.r * (phdd * sp + phd * psd * cp);
    // G = (x + r sψ sθ, y − r cψ sθ, r cθ), differentiated twice.
    let d2_sp_st = (-sp * psd * psd + cp * psdd) * st
        + 2.0 * cp * psd * ct * thd
        + sp * (-st * thd * thd + ct * thdd);
    let d2_cp_st = (-cp * psd * psd - sp * psdd) * st - 2.0 * sp * psd * ct * thd
        + cp * (-st * thd * thd + ct * thdd);
    let a = [xdd + c.r * d2_sp_st, ydd - c.r * d2_cp_st];
    (V5::from([xdd, ydd, psdd, thdd, phdd]), a)
}

/// Eigenvalues of a real square matrix as (re, im).
fn eigenvalues(a: &DMatrix<f64>) -> Vec<(f64, f64)> {
    a.clone()
        .complex_eigenvalues()
        .iter()
        .map(|z| (z.re, z.im))
        .collect()
}

/// The vector constraint is two scalar constraints named `roll[0]`, `roll[1]`; written as
/// the velocity of the material contact point, it is (ẋ − r φ̇ cos ψ, ẏ − r φ̇ sin ψ) at any
/// state, consistent or not (it restricts velocities only: no position violation). On the
/// constraint, the energy is T + V of the module docs. At any state, the mass matrix is
/// m J_Gᵀ J_G + J_ωᵀ diag(I1, I3, I1) J_ω with Ġ = (ẋ, ẏ, 0) + r (ψ̇ sθ e1 − θ̇ e2) and
/// ω = (θ̇, φ̇ + ψ̇ sθ, ψ̇ cθ) on (e1, e2, e3).
#[test]
fn rolling_constraint_energy_and_mass_matrix() {
    assert_eq!(RollingCoin::COORDINATES, ["x", "y", "yaw", "lean", "spin"]);
    assert_eq!(RollingCoin::CONSTRAINTS, ["roll[0]", "roll[1]"]);
    let mut rng = Rng(0x0C01_0001);
    for c in coins() {
        for n in 0..20 {
            let what = format!("sample {n}");
            let q = V5::from_fn(|_, _| rng.uniform(-1.2, 1.2));
            let qd = V5::from_fn(|_, _| rng.uniform(-3.0, 3.0));
            let s = State::new(0.0, q, qd);
            let (psi, th) = (q[2], q[3]);
            let (sp, cp) = psi.sin_cos();
            let (st, ct) = th.sin_cos();
            let want = [qd[0] - c.r * qd[4] * cp, qd[1] - c.r * qd[4] * sp];
            let got = c.constraint_residuals(&s, &U);
            let scale = qd.amax();
            assert_slice_close(
                got.as_slice(),
                &want,
                scale,
                1e-13,
                &format!("{what}: residuals"),
            );
            let v = c.violation(&s, &U);
            assert_eq!(v.position, 0.0, "{what}: position violation");
            assert_close(
                v.velocity,
                got.amax(),
                scale,
                1e-13,
                &format!("{what}: velocity violation"),
            );

            // Mass matrix: columns of J_G and J_ω for q̇ = (ẋ, ẏ, ψ̇, θ̇, φ̇).
            let e1 = [cp, sp, 0.0];
            let e2 = [-sp * ct, cp * ct, st];
            let jg: [[f64; 3]; 5] = [
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                e1.map(|e| c.r * st * e),
                e2.map(|e| -c.r * e),
                [0.0; 3],
            ];
            let jw: [[f64; 3]; 5] = [
                [0.0; 3],
                [0.0; 3],
                [0.0, st, ct],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
            ];
            let inertia = [c.I1, c.I3, c.I1];
            let want = SMatrix::<f64, 5, 5>::from_fn(|i, j| {
                (0..3)
                    .map(|k| c.m * jg[i][k] * jg[j][k] + inertia[k] * jw[i][k] * jw[j][k])
                    .sum::<f64>()
            });
            let got = c.mass_matrix(&s, &U);
            assert_slice_close(
                got.as_slice(),
                want.as_slice(),
                want.amax(),
                1e-12,
                &format!("{what}: M"),
            );

            // Energy on the constraint.
            let s = rolling(&c, [q[0], q[1], q[2], q[3], q[4]], qd[2], qd[3], qd[4]);
            let spin = qd[4] + qd[2] * st;
            let mr2 = c.m * c.r * c.r;
            let t = 0.5 * mr2 * (spin * spin + qd[3] * qd[3])
                + 0.5 * c.I1 * (qd[3] * qd[3] + qd[2] * qd[2] * ct * ct)
                + 0.5 * c.I3 * spin * spin;
            let pot = c.m * c.g * c.r * ct;
            assert_close(
                c.energy(&s, &U),
                t + pot,
                t + pot,
                1e-12,
                &format!("{what}: E"),
            );
            assert_close(
                c.lagrangian(&s, &U),
                t - pot,
                t + pot,
                1e-12,
                &format!("{what}: L"),
            );
            assert!(
                c.violation(&s, &U).velocity <= 1e-13 * scale,
                "{what}: not rolling"
            );
        }
    }
}

/// At random states on the constraint: the accelerations are the Newton–Euler ones, the
/// multipliers are λ = −m a_G,h, and the constraint's generalized force, −Jᵀλ, is
/// (m a_x, m a_y, 0, 0, −m r (a_x cψ + a_y sψ)) — both as `reaction_forces` and as the
/// force `inverse_dynamics` asks for to produce the true accelerations without λ.
#[test]
fn accelerations_and_contact_force_match_newton_euler() {
    let mut rng = Rng(0x0C01_0002);
    for (k, c) in coins().into_iter().enumerate() {
        for n in 0..30 {
            let what = format!("coin {k}, sample {n}");
            let q = [
                rng.uniform(-3.0, 3.0),
                rng.uniform(-3.0, 3.0),
                rng.uniform(-3.0, 3.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(-3.0, 3.0),
            ];
            let s = rolling(
                &c,
                q,
                rng.uniform(-2.0, 2.0),
                rng.uniform(-2.0, 2.0),
                rng.uniform(-8.0, 8.0),
            );
            let (want, a) = newton_euler(&c, &s);
            let got = c.accelerations(&s, &U).unwrap();
            let scale = want.amax().max(c.g / c.r);
            assert_slice_close(
                got.as_slice(),
                want.as_slice(),
                scale,
                1e-11,
                &format!("{what}: q̈"),
            );

            let lambda = c.multipliers(&s, &U).unwrap();
            let force = [-c.m * a[0], -c.m * a[1]];
            let f_scale = c.m * (a[0].abs() + a[1].abs() + c.g);
            assert_slice_close(
                lambda.as_slice(),
                &force,
                f_scale,
                1e-11,
                &format!("{what}: λ"),
            );

            let (sp, cp) = q[2].sin_cos();
            let reaction = [
                c.m * a[0],
                c.m * a[1],
                0.0,
                0.0,
                -c.m * c.r * (a[0] * cp + a[1] * sp),
            ];
            let got = c.reaction_forces(&s, &U).unwrap();
            assert_slice_close(
                got.as_slice(),
                &reaction,
                f_scale,
                1e-11,
                &format!("{what}: −Jᵀλ"),
            );
            let got = c.inverse_dynamics(&s, &want, &U);
            assert_slice_close(
                got.as_slice(),
                &reaction,
                f_scale,
                1e-11,
                &format!("{what}: inverse dynamics"),
            );
        }
    }
}

/// Linearization about upright rolling, for the disk and the hoop, below and above the
/// critical speed. The constrained accelerations are defined off the constraint too, where
/// the velocity form v = J q̇ is a first integral (J q̈ = γ makes v̇ = 0), so the 10×10 A has
/// the upright-rolling block's eigenvalues ±iω (or ±λ), zeros for the cyclic coordinates
/// and the steady-turning constant C, and zeros for the two conserved constraint
/// velocities — nothing spurious. The zeros form Jordan blocks (up to size 3), so
/// numerically they scatter by up to ≈ 1e-4 (ε^(1/3) times the size of A: a prototype that
/// perturbed A by 1e-14 saw 6e-5); the wobble pair is simple, accurate to ~1e-13.
/// Entries by hand (perturbing θ, θ̇ or ψ̇ alone stays on the constraint):
/// ∂θ̈/∂θ = m g r/(I1 + m r²), ∂θ̈/∂ψ̇ = (I3 + m r²) Ω/(I1 + m r²), ∂ψ̈/∂θ̇ = −I3 Ω/I1,
/// ∂θ̈/∂θ̇ = ∂ψ̈/∂θ = ∂ψ̈/∂ψ̇ = 0.
#[test]
fn upright_rolling_linearization() {
    // The closed form reduces to the textbook critical speeds: g r/3 and g r/4.
    let [disk, hoop] = coins();
    let vc2 = |c: &RollingCoin| (c.r * critical_spin(c)).powi(2);
    assert_close(vc2(&disk), disk.g * disk.r / 3.0, 1.0, 1e-14, "disk v_c²");
    assert_close(vc2(&hoop), hoop.g * hoop.r / 4.0, 1.0, 1e-14, "hoop v_c²");
    // and the disk's wobble to ω² = (4/5)(3 Ω² − g/r).
    let w2 = wobble_squared(&disk, 3.0);
    assert_close(w2, 0.8 * (27.0 - disk.g / disk.r), 1.0, 1e-14, "disk ω²");

    for (k, c) in coins().into_iter().enumerate() {
        let mr2 = c.m * c.r * c.r;
        for ratio in [0.8, 1.25, 2.0] {
            let what = format!("coin {k}, Ω/Ω_c = {ratio}");
            let spin_rate = ratio * critical_spin(&c);
            let s = rolling(&c, [0.4, -0.7, 0.3, 0.0, 1.9], 0.0, 0.0, spin_rate);
            let lin = linearize(&c, &s, &U).unwrap();
            assert_slice_close(
                lin.accelerations.as_slice(),
                &[0.0; 5],
                c.g / c.r,
                1e-12,
                &format!("{what}: q̈"),
            );
            let (yaw, lean) = (2, 3);
            let entries = [
                (
                    lin.d_q[(lean, lean)],
                    c.m * c.g * c.r / (c.I1 + mr2),
                    "∂θ̈/∂θ",
                ),
                (
                    lin.d_qd[(lean, yaw)],
                    (c.I3 + mr2) * spin_rate / (c.I1 + mr2),
                    "∂θ̈/∂ψ̇",
                ),
                (lin.d_qd[(yaw, lean)], -c.I3 * spin_rate / c.I1, "∂ψ̈/∂θ̇"),
                (lin.d_qd[(lean, lean)], 0.0, "∂θ̈/∂θ̇"),
                (lin.d_q[(yaw, lean)], 0.0, "∂ψ̈/∂θ"),
                (lin.d_qd[(yaw, yaw)], 0.0, "∂ψ̈/∂ψ̇"),
            ];
            for (got, want, name) in entries {
                assert_close(got, want, c.g / c.r, 1e-12, &format!("{what}: {name}"));
            }

            let w2 = wobble_squared(&c, spin_rate);
            let size = w2.abs().sqrt();
            let ev = eigenvalues(&lin.a());
            assert_eq!(ev.len(), 10);
            let (mut wobble, zeros): (Vec<Complex>, Vec<Complex>) =
                ev.into_iter().partition(|z| z.0.hypot(z.1) > 0.1 * size);
            assert_eq!(
                wobble.len(),
                2,
                "{what}: eigenvalues away from 0: {wobble:?}"
            );
            for z in &zeros {
                assert!(
                    z.0.hypot(z.1) < 1e-2,
                    "{what}: eigenvalue {z:?} should be 0"
                );
            }
            if w2 > 0.0 {
                // Stable: ±iω.
                wobble.sort_by(|a, b| a.1.total_cmp(&b.1));
                for ((re, im), want) in wobble.iter().zip([-size, size]) {
                    assert_close(*re, 0.0, size, 1e-9, &format!("{what}: Re λ"));
                    assert_close(*im, want, size, 1e-9, &format!("{what}: ω"));
                }
            } else {
                // Unstable: ±λ, λ² = −ω².
                wobble.sort_by(|a, b| a.0.total_cmp(&b.0));
                for ((re, im), want) in wobble.iter().zip([-size, size]) {
                    assert_close(*re, want, size, 1e-9, &format!("{what}: λ"));
                    assert_close(*im, 0.0, size, 1e-9, &format!("{what}: Im λ"));
                }
            }
        }
    }
}

/// The same, through `steady_motion` and the nonholonomic reduction: upright rolling is
/// found from the spin rate alone (the contact point's velocity follows from the rolling
/// constraint), and the linearization in independent coordinates (10 states less the two
/// velocity-level constraints: 8) has the wobble pair of the closed form and zeros only —
/// without the spurious eigenvalues of the redundant coordinates (up to 1e-2 above). Its
/// classification changes at Ω_c.
#[test]
fn upright_rolling_stability_from_the_reduced_linearization() {
    use lagrange_runtime::nalgebra::Complex;
    use lagrange_runtime::stability::Stability;
    use lagrange_runtime::steady::{steady_motion, Turning};
    type Complex64 = Complex<f64>;
    for (k, c) in coins().into_iter().enumerate() {
        let upright = |spin_rate: f64| {
            let guess = rolling(&c, [0.4, -0.7, 0.3, 0.04, 1.9], 0.0, 0.0, 0.0);
            steady_motion(&c, &guess, &[("spin", Turning::Rate(spin_rate))], &U).unwrap()
        };
        for ratio in [0.8, 1.25, 2.0] {
            let what = format!("coin {k}, Ω/Ω_c = {ratio}");
            let spin_rate = ratio * critical_spin(&c);
            let motion = upright(spin_rate);
            // Upright, rolling straight along the heading at r Ω. The heading and the
            // contact point are not fixed by the equations (every heading rolls the same
            // way): the Gauss–Newton steps that take the lean from 0.04 to 0 move them by
            // rounding only, a few 1e-12 here (which changes with the order of the mass
            // matrix's sums), so the state is checked to 1e-11.
            let want = rolling(&c, [0.4, -0.7, 0.3, 0.0, 1.9], 0.0, 0.0, spin_rate);
            assert_slice_close(
                motion.state.q.as_slice(),
                want.q.as_slice(),
                1.0,
                1e-11,
                &what,
            );
            assert_slice_close(
                motion.state.qd.as_slice(),
                want.qd.as_slice(),
                1.0,
                1e-11,
                &what,
            );
            let got = &motion.spectrum.eigenvalues;
            assert_eq!(got.len(), 8, "{what}: {got:?}");
            let w2 = wobble_squared(&c, spin_rate);
            let size = w2.abs().sqrt();
            let (wobble, zeros): (Vec<&Complex64>, Vec<&Complex64>) =
                got.iter().partition(|z| z.norm() > 0.1 * size);
            assert_eq!(wobble.len(), 2, "{what}: {got:?}");
            for z in &zeros {
                // A triple Jordan block at 0 (heading, contact point), split by ∛ε.
                assert!(z.norm() < 1e-4 * size, "{what}: {z} should be 0");
            }
            for z in &wobble {
                if w2 > 0.0 {
                    assert_close(z.re, 0.0, size, 1e-10, &format!("{what}: Re λ"));
                    assert_close(z.im.abs(), size, size, 1e-10, &format!("{what}: ω"));
                } else {
                    assert_close(z.re.abs(), size, size, 1e-10, &format!("{what}: λ"));
                    assert_close(z.im, 0.0, size, 1e-10, &format!("{what}: Im λ"));
                }
            }
            let expected = if w2 > 0.0 {
                Stability::Marginal
            } else {
                Stability::Unstable
            };
            assert_eq!(motion.stability(), expected, "{what}: {got:?}");
        }
        // The threshold from the eigenvalues, by bisection on the spin rate.
        let critical = critical_spin(&c);
        let (mut low, mut high) = (0.5 * critical, 2.0 * critical);
        for _ in 0..40 {
            let mid = (low + high) / 2.0;
            if upright(mid).stability() == Stability::Unstable {
                low = mid;
            } else {
                high = mid;
            }
        }
        assert_close(high, critical, critical, 1e-5, &format!("coin {k}: Ω_c"));
    }
}

/// The disk started upright at spin rate Ω = k Ω_c with a small lean rate ε (ψ̇ = 0, so
/// C = 0), simulated with Dormand–Prince (rtol = atol = 1e-12) and sampled every 0.01 s.
fn wobble_run(c: &RollingCoin, ratio: f64, eps: f64, t_end: f64) -> Vec<State<5>> {
    let spin_rate = ratio * critical_spin(c);
    let s0 = rolling(c, [0.2, -0.1, 0.3, 0.0, 0.7], 0.0, eps, spin_rate);
    let steps = (t_end / 0.01).round() as usize;
    let times: Vec<f64> = (1..=steps).map(|i| 0.01 * i as f64).collect();
    let run = Simulation::new(c, s0)
        .run_at(&DormandPrince::new(1e-12, 1e-12), &times)
        .unwrap();
    let mut states = vec![s0];
    states.extend_from_slice(run.states());
    states
}

/// Energy (constraint forces do no work: the constraint is scleronomic, b = 0) and the
/// rolling constraint (a first integral of the constrained equations) along a run.
fn assert_conserved(c: &RollingCoin, states: &[State<5>], what: &str) {
    let e0 = c.energy(&states[0], &U);
    let (mut de, mut drift) = (0.0f64, 0.0f64);
    for s in states {
        de = de.max((c.energy(s, &U) - e0).abs());
        drift = drift.max(c.constraint_residuals(s, &U).amax());
    }
    assert!(
        de <= 1e-9 * e0.abs(),
        "{what}: energy changed by {de:e} of {e0:e}"
    );
    assert!(
        drift <= 1e-10,
        "{what}: rolling constraint violated by {drift:e}"
    );
}

/// The wobble frequency from a simulation: the zero crossings of the lean of a slightly
/// disturbed upright rolling disk (Ω = 1.5 Ω_c, ε = 0.01 rad/s, amplitude ε/ω ≈ 2.3e-3 rad)
/// over three periods (4.5 s) are π/ω apart. Crossings by linear interpolation between
/// samples 0.01 s apart (ω·0.01 ≈ 0.044: interpolation error far below 1e-4); the
/// frequency shift of the nonlinear motion is O(amplitude²). A Python prototype of the
/// Newton–Euler equations (RK4, h = 1e-3) measured 6 crossings and ω within 6e-6 of the
/// closed form.
#[test]
fn wobble_frequency_from_zero_crossings() {
    let c = RollingCoin::default();
    let ratio = 1.5;
    let eps = 0.01;
    let w = wobble_squared(&c, ratio * critical_spin(&c)).sqrt();
    // ω² = (4/5)(3 · 2.25 g/(3 r) − g/r) = g/r for the disk at 1.5 Ω_c.
    assert_close(w * w, c.g / c.r, 1.0, 1e-13, "ω²");
    let states = wobble_run(&c, ratio, eps, 4.5);
    assert_conserved(&c, &states, "Ω = 1.5 Ω_c");
    let mut crossings = Vec::new();
    for pair in states.windows(2) {
        let (a, b) = (pair[0].q[3], pair[1].q[3]);
        if a * b < 0.0 {
            crossings.push(pair[0].t + (pair[1].t - pair[0].t) * a / (a - b));
        }
    }
    assert_eq!(crossings.len(), 6, "zero crossings at {crossings:?}");
    let n = crossings.len() as f64;
    let w_est = std::f64::consts::PI * (n - 1.0) / (crossings.last().unwrap() - crossings[0]);
    assert!(
        (w_est / w - 1.0).abs() < 1e-3,
        "wobble frequency {w_est} from the simulation, {w} from the closed form"
    );
    let amplitude = max_lean(&states);
    assert_close(amplitude, eps / w, eps / w, 1e-2, "lean amplitude ε/ω");
}

/// The largest |lean| along a run.
fn max_lean(states: &[State<5>]) -> f64 {
    states.iter().map(|s| s.q[3].abs()).fold(0.0, f64::max)
}

/// The critical speed v_c = √(g r/3) separates rolling from falling. Slightly below it
/// (Ω = 0.9 Ω_c) the lean grows like (ε/λ) sinh λt (checked at t = 1 s, where the lean is
/// still small: the Python prototype measured 1.5e-4 relative deviation) and reaches well
/// over 0.3 rad within 3 s (prototype: 0.41 rad, 74 times the bounded amplitude; the coin
/// then turns on a leaning path instead of falling flat); slightly above (Ω = 1.1 Ω_c) it
/// stays at the linear amplitude ε/ω (prototype: within 1.1e-4).
#[test]
fn critical_speed_separates_falling_from_rolling() {
    let c = RollingCoin::default();
    let eps = 0.01;

    let below = wobble_run(&c, 0.9, eps, 3.0);
    assert_conserved(&c, &below, "Ω = 0.9 Ω_c");
    let lambda = (-wobble_squared(&c, 0.9 * critical_spin(&c))).sqrt();
    let at_one = below.iter().find(|s| (s.t - 1.0).abs() < 1e-9).unwrap();
    let linear = eps / lambda * lambda.sinh();
    assert_close(
        at_one.q[3],
        linear,
        linear,
        2e-3,
        "lean at t = 1 s below v_c",
    );
    let fell = max_lean(&below);

    let above = wobble_run(&c, 1.1, eps, 3.0);
    assert_conserved(&c, &above, "Ω = 1.1 Ω_c");
    let w = wobble_squared(&c, 1.1 * critical_spin(&c)).sqrt();
    let rolled = max_lean(&above);
    assert_close(rolled, eps / w, eps / w, 1e-2, "lean amplitude above v_c");

    assert!(fell > 0.3, "below v_c the lean only reached {fell}");
    assert!(fell > 50.0 * rolled, "below v_c {fell}, above {rolled}");
}

/// A generic motion: leaning by 0.4 rad, turning and tipping, 5 s of Dormand–Prince
/// (rtol = atol = 1e-12) without projection. The energy is constant, the rolling
/// constraint holds, and the contact force does no work (its power −λ·J q̇ vanishes on the
/// constraint). The Python prototype kept the lean in [0.40, 0.76] rad (disk) and
/// [0.40, 0.67] rad (hoop).
#[test]
fn energy_and_rolling_constraint_hold_on_a_turning_coin() {
    for c in coins() {
        let s0 = rolling(&c, [0.0, 0.0, 0.3, 0.4, 0.0], 1.5, 0.3, 6.0);
        let run = Simulation::new(&c, s0)
            .run(&DormandPrince::new(1e-12, 1e-12), 5.0)
            .unwrap();
        assert_eq!(run.last().t, 5.0);
        assert_conserved(&c, run.states(), "turning coin");
        let e0 = c.energy(&s0, &U);
        let mut power = 0.0f64;
        for s in run.states() {
            power = power.max(c.reaction_forces(s, &U).unwrap().dot(&s.qd).abs());
            assert!(s.q[3].abs() < 1.3, "the coin fell flat: lean {}", s.q[3]);
        }
        assert!(power <= 1e-9 * e0.abs(), "contact force power {power:e}");
    }
}

/// Exact derivatives against central differences (`common::derivatives`) for both coins,
/// at structured and random states and rolling upright (all coordinates zero, and not)
/// below, at and above the critical spin, and tilted, turning: the states where issue 25's
/// constrained linearization was wrong.
#[test]
fn derivatives_match_finite_differences() {
    for (k, c) in coins().into_iter().enumerate() {
        let mut check = Derivatives::new(&format!("RollingCoin (coin {k})"), &c).standard();
        for ratio in [0.8, 1.0, 2.0] {
            let spin_rate = ratio * critical_spin(&c);
            let label = format!("upright at the origin, rolling at {ratio} Ω_c");
            check = check.state(&label, rolling(&c, [0.0; 5], 0.0, 0.0, spin_rate), U);
        }
        check
            .state(
                "upright, rolling, heading 0.3",
                rolling(&c, [0.4, -0.7, 0.3, 0.0, 1.9], 0.0, 0.0, 4.0),
                U,
            )
            .state(
                "tilted, turning",
                rolling(&c, [0.0, 0.0, 0.0, 0.2, 0.0], 1.1, -0.4, 3.0),
                U,
            )
            .check();
    }
}
