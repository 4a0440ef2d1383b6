//! The two-link spatial arm of DSL.md ("Vectors, matrices and rotations"), written once with
//! the vector language exactly as printed there and once in the scalar language, checked
//! against each other and against two independent truths.
//!
//! The arm: link 1 turns about the vertical axis (yaw ψ, moment of inertia I1z about it);
//! link 2 hangs on a pitch joint at height l1 on link 1 and pitches up from the horizontal
//! (θ), its centre of mass at distance a2 from the joint, principal moments I2x, I2y, I2z
//! about its own axes (x along the link). Orientations R1 = Rz(ψ), R2 = Rz(ψ) Ry(−θ), with
//! the right-handed elementary rotations
//!
//! ```text
//! Rz(a) = [[ca, −sa, 0], [sa, ca, 0], [0, 0, 1]],   Ry(a) = [[ca, 0, sa], [0, 1, 0], [−sa, 0, ca]]
//! ```
//!
//! (so `rot_z(a) * [1, 0, 0]` is (cos a, sin a, 0), as DSL.md says, and Ry(−θ) [1, 0, 0] =
//! (cos θ, 0, sin θ): a positive θ raises link 2). Then
//!
//! ```text
//! R2 = [[cψ cθ, −sψ, −cψ sθ], [sψ cθ, cψ, −sψ sθ], [sθ, 0, cθ]]
//! p2 = (0, 0, l1) + R2 (a2, 0, 0) = (a2 cψ cθ, a2 sψ cθ, l1 + a2 sθ)
//! ṗ2 = a2 (−sψ cθ ψ̇ − cψ sθ θ̇, cψ cθ ψ̇ − sψ sθ θ̇, cθ θ̇),  |ṗ2|² = a2² (cθ² ψ̇² + θ̇²)
//! ```
//!
//! Body angular velocities, ω_b = vee(Rᵀ Ṙ): ω1 = (0, 0, ψ̇) and, composing the two joints
//! (ω_b of Ra Rb is Rbᵀ ω_b(Ra) + ω_b(Rb)), ω2 = Ry(θ) (0, 0, ψ̇) + (0, −θ̇, 0) =
//! (ψ̇ sθ, −θ̇, ψ̇ cθ). Hence
//!
//! ```text
//! T = ½ M11(θ) ψ̇² + ½ M22 θ̇²,   V = m2 g (l1 + a2 sin θ),   D = ½ c (ψ̇² + θ̇²)
//! M11 = I1z + (m2 a2² + I2z) cos²θ + I2x sin²θ,   M22 = m2 a2² + I2y,   M12 = 0
//! M11' = dM11/dθ = 2 sin θ cos θ (I2x − I2z − m2 a2²)
//! ```
//!
//! and the Euler–Lagrange equations with Q = (τ1 − c ψ̇, τ2 − c θ̇):
//!
//! ```text
//! M11 ψ̈ + M11' θ̇ ψ̇                      = τ1 − c ψ̇
//! M22 θ̈ − ½ M11' ψ̇² + m2 g a2 cos θ      = τ2 − c θ̇
//! ```
//!
//! Truths used below:
//! - the scalar model (rotations entry by entry, their product by hand, ω from Rᵀ Ṙ
//!   component by component): every `Dynamics` output agrees to 1e-12;
//! - the closed form above: every output to 1e-12;
//! - the mass matrix Σ m Jvᵀ Jv + Jωᵀ I Jω built with nalgebra's `Rotation3`: geometric
//!   Jacobians (joint axis × lever arm; body-frame Jω by composing the joint rotations) to
//!   1e-12, and Jacobians by central differences of p2(q) and R(q) to 1e-7.
use crate::common;

use common::derivatives::Derivatives;
use common::{assert_close, assert_slice_close, Rng};
use lagrange_runtime::nalgebra::{Matrix3, Rotation3, Vector3};
use lagrange_runtime::prelude::*;

use lagrange_test_models::spatial_arm::*;

lagrangian! {
    /// The same arm in the scalar language: the rotation matrices entry by entry, their
    /// product by hand, the body angular velocities from Rᵀ Ṙ component by component.
    /// Entries that are identically 0 or 1 are not declared (`dot` of a constant is not
    /// needed); the terms they cancel are left out of the sums, as noted.
    pub struct ScalarArm {
        parameters: m2 = 0.8, l1 = 0.5, a2 = 0.2, I1z = 0.01,
                    I2x = 0.01, I2y = 0.015, I2z = 0.015, g = 9.81, c = 0.05;
        coordinates: yaw, pitch;
        inputs: tau1, tau2;

        // R1 = rot_z(yaw) = [[a00, a01, 0], [a10, a11, 0], [0, 0, 1]]
        let a00 = cos(yaw);
        let a01 = -sin(yaw);
        let a10 = sin(yaw);
        let a11 = cos(yaw);
        // B = rot_y(-pitch) = [[b00, 0, b02], [0, 1, 0], [b20, 0, b22]],
        // rot_y(a) = [[cos a, 0, sin a], [0, 1, 0], [-sin a, 0, cos a]]
        let b00 = cos(-pitch);
        let b02 = sin(-pitch);
        let b20 = -sin(-pitch);
        let b22 = cos(-pitch);
        // R2 = R1 B, r_ij = a_i0 b_0j + a_i1 b_1j + a_i2 b_2j (zero products left out)
        let r00 = a00 * b00;
        let r01 = a01;
        let r02 = a00 * b02;
        let r10 = a10 * b00;
        let r11 = a11;
        let r12 = a10 * b02;
        let r20 = b20;
        let r22 = b22;
        // r21 = 0
        // p2 = [0, 0, l1] + R2 [a2, 0, 0]
        let x2 = a2 * r00;
        let y2 = a2 * r10;
        let z2 = l1 + a2 * r20;
        // [w]x = Rᵀ Ṙ, (Rᵀ Ṙ)_ij = Σ_k R_ki Ṙ_kj; w = ((RᵀṘ)_21, (RᵀṘ)_02, (RᵀṘ)_10)
        let w1z = a01 * dot(a00) + a11 * dot(a10);
        let w2x = r02 * dot(r01) + r12 * dot(r11);
        let w2y = r00 * dot(r02) + r10 * dot(r12) + r20 * dot(r22);
        let w2z = r01 * dot(r00) + r11 * dot(r10);

        kinetic = I1z/2 * w1z^2
                + m2/2 * (dot(x2)^2 + dot(y2)^2 + dot(z2)^2)
                + (I2x * w2x^2 + I2y * w2y^2 + I2z * w2z^2) / 2;
        potential = m2 * g * z2;
        dissipation = c/2 * (dot(yaw)^2 + dot(pitch)^2);
        force tau1 on yaw;
        force tau2 on pitch;
    }
}

type V2 = SVector<f64, 2>;
type M2 = SMatrix<f64, 2, 2>;
type J32 = SMatrix<f64, 3, 2>;

/// Parameter sets (m2, l1, a2, I1z, I2x, I2y, I2z, g, c): DSL.md's defaults, and one with
/// every value changed (the centre of link 2 can go below the floor: l1 < a2).
const PARAMETER_SETS: [[f64; 9]; 2] = [
    [0.8, 0.5, 0.2, 0.01, 0.01, 0.015, 0.015, 9.81, 0.05],
    [1.7, 0.35, 0.45, 0.03, 0.02, 0.007, 0.025, 3.71, 0.2],
];

fn vector_arm([m2, l1, a2, i1z, i2x, i2y, i2z, g, c]: [f64; 9]) -> SpatialArm {
    SpatialArm::new(m2, l1, a2, i1z, i2x, i2y, i2z, g, c)
}

fn scalar_arm([m2, l1, a2, i1z, i2x, i2y, i2z, g, c]: [f64; 9]) -> ScalarArm {
    ScalarArm::new(m2, l1, a2, i1z, i2x, i2y, i2z, g, c)
}

/// A random state (t, q, q̇), inputs τ and a trial acceleration q̈.
struct Sample {
    s: State<2>,
    u: V2,
    qdd: V2,
}

fn samples(seed: u64, n: usize) -> Vec<Sample> {
    let pi = std::f64::consts::PI;
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let q: V2 = SpatialArmCoordinates {
                yaw: rng.uniform(-pi, pi),
                pitch: rng.uniform(-pi, pi),
            }
            .into();
            let qd: V2 = SpatialArmCoordinates {
                yaw: rng.uniform(-4.0, 4.0),
                pitch: rng.uniform(-4.0, 4.0),
            }
            .into();
            let u: V2 = SpatialArmInputs {
                tau1: rng.uniform(-1.5, 1.5),
                tau2: rng.uniform(-1.5, 1.5),
            }
            .into();
            let qdd = V2::new(rng.uniform(-20.0, 20.0), rng.uniform(-20.0, 20.0));
            Sample {
                s: State::new(rng.uniform(0.0, 10.0), q, qd),
                u,
                qdd,
            }
        })
        .collect()
}

/// Every output of `Dynamics` at one sample.
struct Outputs {
    lagrangian: f64,
    energy: f64,
    momenta: V2,
    mass: M2,
    forces: V2,
    accelerations: V2,
    inverse: V2,
}

fn outputs<D: Dynamics<2, 2>>(model: &D, x: &Sample) -> Outputs {
    Outputs {
        lagrangian: model.lagrangian(&x.s, &x.u),
        energy: model.energy(&x.s, &x.u),
        momenta: model.momenta(&x.s, &x.u),
        mass: model.mass_matrix(&x.s, &x.u),
        forces: model.generalized_forces(&x.s, &x.u),
        accelerations: model.accelerations(&x.s, &x.u).unwrap(),
        inverse: model.inverse_dynamics(&x.s, &x.qdd, &x.u),
    }
}

/// The closed form of the module docs at a sample.
fn closed_form(a: &SpatialArm, x: &Sample) -> Outputs {
    let (th, psd, thd) = (x.s.q[1], x.s.qd[0], x.s.qd[1]);
    let (s, c) = th.sin_cos();
    let ma2 = a.m2 * a.a2 * a.a2;
    let m11 = a.I1z + (ma2 + a.I2z) * c * c + a.I2x * s * s;
    let m22 = ma2 + a.I2y;
    let dm11 = 2.0 * s * c * (a.I2x - a.I2z - ma2);
    let mass = M2::new(m11, 0.0, 0.0, m22);
    let t = 0.5 * (m11 * psd * psd + m22 * thd * thd);
    let v = a.m2 * a.g * (a.l1 + a.a2 * s);
    // M q̈ + h + c q̇ = τ.
    let h = V2::new(
        dm11 * thd * psd,
        -0.5 * dm11 * psd * psd + a.m2 * a.g * a.a2 * c,
    );
    let forces = x.u - x.s.qd * a.c;
    Outputs {
        lagrangian: t - v,
        energy: t + v,
        momenta: mass * x.s.qd,
        mass,
        forces,
        accelerations: V2::new((forces[0] - h[0]) / m11, (forces[1] - h[1]) / m22),
        inverse: mass * x.qdd + h - forces,
    }
}

/// The size of the terms that make up the forces of the equations of motion at a sample:
/// τ, c q̇, the velocity terms and gravity (results may cancel below it).
fn force_scale(a: &SpatialArm, x: &Sample) -> f64 {
    let ma2 = a.m2 * a.a2 * a.a2;
    let inertia = a.I1z + ma2 + a.I2x + a.I2z + a.I2y;
    x.u.amax() + a.c * x.s.qd.amax() + 2.0 * inertia * x.s.qd.amax().powi(2) + a.m2 * a.g * a.a2
}

/// Compares every output to 1e-12 relative to the natural scale of each quantity.
fn assert_outputs_agree(got: &Outputs, want: &Outputs, a: &SpatialArm, x: &Sample, what: &str) {
    const TOL: f64 = 1e-12;
    // |E| + |L| ≥ max(2T, 2|V|); m2 g (l1 + a2) is the size of the terms of V, which may
    // cancel.
    let energy_scale = want.energy.abs() + want.lagrangian.abs() + a.m2 * a.g * (a.l1 + a.a2);
    assert_close(
        got.lagrangian,
        want.lagrangian,
        energy_scale,
        TOL,
        &format!("{what}: L"),
    );
    assert_close(
        got.energy,
        want.energy,
        energy_scale,
        TOL,
        &format!("{what}: E"),
    );
    let m_scale = want.mass.amax();
    assert_slice_close(
        got.mass.as_slice(),
        want.mass.as_slice(),
        m_scale,
        TOL,
        &format!("{what}: M"),
    );
    assert_slice_close(
        got.momenta.as_slice(),
        want.momenta.as_slice(),
        m_scale * x.s.qd.amax(),
        TOL,
        &format!("{what}: p"),
    );
    assert_slice_close(
        got.forces.as_slice(),
        want.forces.as_slice(),
        x.u.amax() + a.c * x.s.qd.amax(),
        TOL,
        &format!("{what}: Q"),
    );
    let f_scale = force_scale(a, x);
    let m_min = want.mass[(0, 0)].min(want.mass[(1, 1)]);
    assert_slice_close(
        got.accelerations.as_slice(),
        want.accelerations.as_slice(),
        want.accelerations.amax().max(f_scale / m_min),
        TOL,
        &format!("{what}: q̈"),
    );
    assert_slice_close(
        got.inverse.as_slice(),
        want.inverse.as_slice(),
        f_scale + m_scale * x.qdd.amax(),
        TOL,
        &format!("{what}: inverse dynamics"),
    );
}

#[test]
fn names_and_defaults() {
    assert_eq!(SpatialArm::COORDINATES, ["yaw", "pitch"]);
    assert_eq!(SpatialArm::INPUTS, ["tau1", "tau2"]);
    assert_eq!(ScalarArm::COORDINATES, ["yaw", "pitch"]);
    assert_eq!(SpatialArm::default(), vector_arm(PARAMETER_SETS[0]));
    assert_eq!(ScalarArm::default(), scalar_arm(PARAMETER_SETS[0]));
}

#[test]
fn vector_model_equals_the_scalar_model() {
    for (k, set) in PARAMETER_SETS.into_iter().enumerate() {
        let (vector, scalar) = (vector_arm(set), scalar_arm(set));
        for (i, x) in samples(0x5EED_0001 + k as u64, 25).iter().enumerate() {
            let got = outputs(&vector, x);
            let want = outputs(&scalar, x);
            assert_outputs_agree(&got, &want, &vector, x, &format!("set {k}, sample {i}"));
        }
    }
}

#[test]
fn vector_model_matches_the_closed_form() {
    for (k, set) in PARAMETER_SETS.into_iter().enumerate() {
        let arm = vector_arm(set);
        for (i, x) in samples(0xC105_ED00 + k as u64, 25).iter().enumerate() {
            let got = outputs(&arm, x);
            let want = closed_form(&arm, x);
            assert_outputs_agree(&got, &want, &arm, x, &format!("set {k}, sample {i}"));
            // The scalar model too, against the same closed form.
            let got = outputs(&scalar_arm(set), x);
            assert_outputs_agree(
                &got,
                &want,
                &arm,
                x,
                &format!("scalar: set {k}, sample {i}"),
            );
        }
    }
}

fn rz(a: f64) -> Rotation3<f64> {
    Rotation3::from_axis_angle(&Vector3::z_axis(), a)
}

fn ry(a: f64) -> Rotation3<f64> {
    Rotation3::from_axis_angle(&Vector3::y_axis(), a)
}

/// R1 = Rz(ψ), R2 = Rz(ψ) Ry(−θ) and p2 = (0, 0, l1) + R2 (a2, 0, 0), with nalgebra.
fn kinematics(
    a: &SpatialArm,
    yaw: f64,
    pitch: f64,
) -> (Rotation3<f64>, Rotation3<f64>, Vector3<f64>) {
    let r1 = rz(yaw);
    let r2 = r1 * ry(-pitch);
    let p2 = Vector3::new(0.0, 0.0, a.l1) + r2 * Vector3::new(a.a2, 0.0, 0.0);
    (r1, r2, p2)
}

/// vee of a (nearly) skew matrix: (W21, W02, W10).
fn vee(w: &Matrix3<f64>) -> Vector3<f64> {
    Vector3::new(w[(2, 1)], w[(0, 2)], w[(1, 0)])
}

/// Σ m Jvᵀ Jv + Jωᵀ I Jω from the Jacobians (body-frame Jω) of the two links.
fn mass_from_jacobians(a: &SpatialArm, jv2: &J32, jw1: &J32, jw2: &J32) -> M2 {
    let i1 = Matrix3::from_diagonal(&Vector3::new(0.0, 0.0, a.I1z));
    let i2 = Matrix3::from_diagonal(&Vector3::new(a.I2x, a.I2y, a.I2z));
    jv2.transpose() * jv2 * a.m2 + jw1.transpose() * i1 * jw1 + jw2.transpose() * i2 * jw2
}

/// The mass matrix as a sum over the links, M = Σ m Jvᵀ Jv + Jωᵀ I Jω, with nalgebra's
/// `Rotation3`. Link 1 only turns about the vertical (its centre is on the axis), so it
/// contributes I1z through Jω1 = (0, 0, 1; 0, 0, 0)ᵀ. Geometric Jacobians: a revolute joint
/// with unit axis n through the point o moves p with n × (p − o) and turns the link with
/// n; the yaw axis is ẑ through the origin, the pitch axis R1 (−ŷ) through (0, 0, l1)
/// (`rot_y(-pitch)` turns by θ about −y). Body components: R_kᵀ times the fixed ones.
/// Second opinion: central differences (h = 1e-6) of p2(q) and of R(q), Jω = vee(Rᵀ ∂R/∂q),
/// with error O(h²) + O(ε/h) ≈ 1e-10 in the Jacobians.
#[test]
fn mass_matrix_from_link_jacobians() {
    let z = Vector3::<f64>::z();
    for (k, set) in PARAMETER_SETS.into_iter().enumerate() {
        let arm = vector_arm(set);
        for (i, x) in samples(0x0A1B_2C3D + k as u64, 15).iter().enumerate() {
            let what = format!("set {k}, sample {i}");
            let (yaw, pitch) = (x.s.q[0], x.s.q[1]);
            let (r1, r2, p2) = kinematics(&arm, yaw, pitch);
            let shoulder = Vector3::new(0.0, 0.0, arm.l1);
            let pitch_axis = r1 * (-Vector3::<f64>::y());
            let jv2 = J32::from_columns(&[
                z.cross(&(p2 - shoulder)),
                pitch_axis.cross(&(p2 - shoulder)),
            ]);
            let jw1 = J32::from_columns(&[r1.inverse() * z, Vector3::zeros()]);
            let jw2 = J32::from_columns(&[r2.inverse() * z, r2.inverse() * pitch_axis]);
            // Link 2's body angular velocity as derived in the module docs:
            // ω2 = (ψ̇ sin θ, −θ̇, ψ̇ cos θ).
            let (s, c) = pitch.sin_cos();
            let by_hand = J32::new(s, 0.0, 0.0, -1.0, c, 0.0);
            assert_slice_close(
                jw2.as_slice(),
                by_hand.as_slice(),
                1.0,
                1e-14,
                &format!("{what}: Jω2"),
            );

            let want = mass_from_jacobians(&arm, &jv2, &jw1, &jw2);
            let got = arm.mass_matrix(&x.s, &x.u);
            assert_slice_close(
                got.as_slice(),
                want.as_slice(),
                want.amax(),
                1e-12,
                &format!("{what}: M"),
            );
            // The Lagrangian from the same kinematics: ½ q̇ᵀ M q̇ − m2 g p2.z.
            let l = 0.5 * x.s.qd.dot(&(want * x.s.qd)) - arm.m2 * arm.g * p2.z;
            let scale =
                0.5 * want.amax() * x.s.qd.norm_squared() + arm.m2 * arm.g * (arm.l1 + arm.a2);
            assert_close(
                arm.lagrangian(&x.s, &x.u),
                l,
                scale,
                1e-12,
                &format!("{what}: L"),
            );

            // Central differences.
            let h = 1e-6;
            let mut jv_fd = J32::zeros();
            let mut jw1_fd = J32::zeros();
            let mut jw2_fd = J32::zeros();
            for j in 0..2 {
                let (mut plus, mut minus) = ([yaw, pitch], [yaw, pitch]);
                plus[j] += h;
                minus[j] -= h;
                let (r1p, r2p, pp) = kinematics(&arm, plus[0], plus[1]);
                let (r1m, r2m, pm) = kinematics(&arm, minus[0], minus[1]);
                jv_fd.set_column(j, &((pp - pm) / (2.0 * h)));
                let d1 = (r1p.matrix() - r1m.matrix()) / (2.0 * h);
                let d2 = (r2p.matrix() - r2m.matrix()) / (2.0 * h);
                jw1_fd.set_column(j, &vee(&(r1.matrix().transpose() * d1)));
                jw2_fd.set_column(j, &vee(&(r2.matrix().transpose() * d2)));
            }
            assert_slice_close(
                jv_fd.as_slice(),
                jv2.as_slice(),
                arm.a2,
                1e-8,
                &format!("{what}: Jv by differences"),
            );
            assert_slice_close(
                jw1_fd.as_slice(),
                jw1.as_slice(),
                1.0,
                1e-8,
                &format!("{what}: Jω1 by differences"),
            );
            assert_slice_close(
                jw2_fd.as_slice(),
                jw2.as_slice(),
                1.0,
                1e-8,
                &format!("{what}: Jω2 by differences"),
            );
            let fd = mass_from_jacobians(&arm, &jv_fd, &jw1_fd, &jw2_fd);
            assert_slice_close(
                got.as_slice(),
                fd.as_slice(),
                fd.amax(),
                1e-7,
                &format!("{what}: M by differences"),
            );
        }
    }
}

/// Sign conventions: nalgebra's rotations are the right-handed ones DSL.md describes
/// (`rot_z(a) * [1, 0, 0]` = (cos a, sin a, 0); about y, (1, 0, 0) goes to (cos a, 0, −sin a)),
/// and in the model a positive pitch raises link 2: at rest the energy is
/// V = m2 g p2.z = m2 g (l1 + a2 sin θ), and holding the arm still takes the joint torques
/// (0, m2 g a2 cos θ).
#[test]
fn rotations_are_right_handed_and_pitch_raises_link_2() {
    for a in [0.3, -1.1, 2.7] {
        let (s, c) = f64::sin_cos(a);
        let e = rz(a) * Vector3::x();
        assert_slice_close(e.as_slice(), &[c, s, 0.0], 1.0, 1e-15, "Rz(a) x̂");
        let e = ry(a) * Vector3::x();
        assert_slice_close(e.as_slice(), &[c, 0.0, -s], 1.0, 1e-15, "Ry(a) x̂");
    }
    let zero = V2::zeros();
    for set in PARAMETER_SETS {
        let arm = vector_arm(set);
        for (yaw, pitch) in [(0.0, 0.4), (1.3, -0.9), (-2.5, 1.2), (3.0, 2.8)] {
            let rest = State::at_rest(V2::new(yaw, pitch));
            let (_, _, p2) = kinematics(&arm, yaw, pitch);
            let v = arm.m2 * arm.g * (arm.l1 + arm.a2 * pitch.sin());
            let v_scale = arm.m2 * arm.g * (arm.l1 + arm.a2);
            assert_close(p2.z, arm.l1 + arm.a2 * pitch.sin(), 1.0, 1e-15, "p2.z");
            assert_close(arm.energy(&rest, &zero), v, v_scale, 1e-13, "V at rest");
            assert_close(
                arm.lagrangian(&rest, &zero),
                -v,
                v_scale,
                1e-13,
                "L at rest",
            );
            let hold = arm.inverse_dynamics(&rest, &zero, &zero);
            let want = [0.0, arm.m2 * arm.g * arm.a2 * pitch.cos()];
            assert_slice_close(
                hold.as_slice(),
                &want,
                arm.m2 * arm.g * arm.a2,
                1e-13,
                "holding torques",
            );
        }
    }
}

/// Exact derivatives against central differences (`common::derivatives`), of both forms
/// of the arm with both parameter sets.
#[test]
fn derivatives_match_finite_differences() {
    for (k, p) in PARAMETER_SETS.into_iter().enumerate() {
        Derivatives::new(&format!("SpatialArm (set {k})"), &vector_arm(p))
            .standard()
            .check();
        Derivatives::new(&format!("ScalarArm (set {k})"), &scalar_arm(p))
            .standard()
            .check();
    }
}
