//! A quadrotor as one rigid body: the vector language's rotations, `body_angular_velocity`,
//! a `force` along a body axis and a `torque` in body axes, against the Newton–Euler
//! equations written out by hand.
//!
//! Coordinates: the centre of mass p = (x, y, z) and the z-y-x Euler angles (yaw ψ, pitch θ,
//! roll φ), R = Rz(ψ) Ry(θ) Rx(φ) (right-handed elementary rotations, nalgebra's
//! `Rotation3::from_axis_angle`). Inputs: the total thrust f along the body z axis and the
//! body moments (mx, my, mz). Principal moments of inertia diag(Ix, Iy, Iz) in body axes.
//!
//! Kinematics (e.g. Mahony, Kumar & Corke, IEEE RAM 2012; any flight-dynamics text):
//! ω_b = Rxᵀ Ryᵀ (0, 0, ψ̇) + Rxᵀ (0, θ̇, 0) + (φ̇, 0, 0), i.e. ω_b = E(θ, φ) (ψ̇, θ̇, φ̇) with
//!
//! ```text
//! E = [[−sθ,      0,   1],
//!      [ sφ cθ,   cφ,  0],
//!      [ cφ cθ,  −sφ,  0]]
//! Ė = [[−cθ θ̇,                  0,      0],
//!      [ cφ cθ φ̇ − sφ sθ θ̇,    −sφ φ̇,  0],
//!      [−sφ cθ φ̇ − cφ sθ θ̇,    −cφ φ̇,  0]]
//! ω̇_b = E (ψ̈, θ̈, φ̈) + Ė (ψ̇, θ̇, φ̇)
//! ```
//!
//! Equations of motion (Newton–Euler):
//!
//! ```text
//! m p̈ = R (0, 0, f) − m g ẑ,          I ω̇_b + ω_b × I ω_b = (mx, my, mz).
//! ```
//!
//! The Lagrangian form agrees: T = ½ m |ṗ|² + ½ ω_bᵀ I ω_b, V = m g z, so M =
//! blockdiag(m 𝟙, Eᵀ I E); `torque R * τ_b on R` gives Q_angles = Eᵀ τ_b (the virtual work
//! τ·δθ with τ = R τ_b and ω = R ω_b), and the angle equations are Eᵀ times Euler's
//! equations, E being invertible away from θ = ±π/2.
//!
//! Linearized about hover (at rest, θ = φ = 0, any ψ0, f = m g + δf): R ẑ ≈
//! (cψ0 θ + sψ0 φ, sψ0 θ − cψ0 φ, 1), so
//!
//! ```text
//! ẍ = g (cψ0 θ + sψ0 φ),   ÿ = g (sψ0 θ − cψ0 φ),   z̈ = δf/m,
//! ψ̈ = mz/Iz,   θ̈ = my/Iy,   φ̈ = mx/Ix       (ω_b = (φ̇, θ̇, ψ̇) at hover),
//! ```
//!
//! with no velocity terms (they are quadratic); at ψ0 = 0: ẍ = g θ, ÿ = −g φ.
use crate::common;

use common::derivatives::Derivatives;
use common::{assert_close, assert_slice_close, Rng};
use lagrange_runtime::linearize::linearize;
use lagrange_runtime::nalgebra::{Matrix3, Rotation3, Vector3};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Simulation};

lagrangian! {
    /// Quadrotor: a rigid body with z-y-x Euler angles, thrust along its body z axis and
    /// moments about its body axes.
    pub struct Quadrotor {
        parameters: m = 1.2, Ix = 0.011, Iy = 0.013, Iz = 0.021, g = 9.81;
        coordinates: x, y, z, yaw, pitch, roll;
        inputs: thrust, mx, my, mz;

        let R = rot_z(yaw) * rot_y(pitch) * rot_x(roll);
        let p = [x, y, z];
        let wb = body_angular_velocity(R);

        kinetic = m/2 * dot(p)^2 + inner(wb, diag(Ix, Iy, Iz) * wb) / 2;
        potential = m * g * p.z;
        force R * [0, 0, thrust] on p;
        torque R * [mx, my, mz] on R;
    }
}

type V4 = SVector<f64, 4>;
type V6 = SVector<f64, 6>;
type M6 = SMatrix<f64, 6, 6>;

fn quadrotors() -> [Quadrotor; 2] {
    [
        Quadrotor::default(),
        Quadrotor::new(0.45, 0.0023, 0.0031, 0.0049, 3.71),
    ]
}

/// Random states away from gimbal lock (|θ| ≤ 1.2), random inputs around hover and a
/// random trial acceleration.
fn samples(quad: &Quadrotor, seed: u64, n: usize) -> Vec<(State<6>, V4, V6)> {
    let pi = std::f64::consts::PI;
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let q: V6 = QuadrotorCoordinates {
                x: rng.uniform(-5.0, 5.0),
                y: rng.uniform(-5.0, 5.0),
                z: rng.uniform(0.0, 10.0),
                yaw: rng.uniform(-pi, pi),
                pitch: rng.uniform(-1.2, 1.2),
                roll: rng.uniform(-pi, pi),
            }
            .into();
            let qd = V6::from_fn(|i, _| {
                if i < 3 {
                    rng.uniform(-3.0, 3.0)
                } else {
                    rng.uniform(-4.0, 4.0)
                }
            });
            let hover = quad.m * quad.g;
            let u: V4 = QuadrotorInputs {
                thrust: rng.uniform(0.0, 2.0 * hover),
                mx: rng.uniform(-0.05, 0.05),
                my: rng.uniform(-0.05, 0.05),
                mz: rng.uniform(-0.02, 0.02),
            }
            .into();
            let qdd = V6::from_fn(|_, _| rng.uniform(-10.0, 10.0));
            (State::new(rng.uniform(0.0, 5.0), q, qd), u, qdd)
        })
        .collect()
}

fn rotation(yaw: f64, pitch: f64, roll: f64) -> Rotation3<f64> {
    Rotation3::from_axis_angle(&Vector3::z_axis(), yaw)
        * Rotation3::from_axis_angle(&Vector3::y_axis(), pitch)
        * Rotation3::from_axis_angle(&Vector3::x_axis(), roll)
}

/// E with ω_b = E (ψ̇, θ̇, φ̇).
#[rustfmt::skip]
fn euler_matrix(pitch: f64, roll: f64) -> Matrix3<f64> {
    let (st, ct) = pitch.sin_cos();
    let (sf, cf) = roll.sin_cos();
    Matrix3::new(
        -st,      0.0,  1.0,
        sf * ct,  cf,   0.0,
        cf * ct,  -sf,  0.0,
    )
}

/// Ė, the time derivative of E along (θ̇, φ̇).
#[rustfmt::skip]
fn euler_matrix_rate(pitch: f64, roll: f64, pitch_d: f64, roll_d: f64) -> Matrix3<f64> {
    let (st, ct) = pitch.sin_cos();
    let (sf, cf) = roll.sin_cos();
    Matrix3::new(
        -ct * pitch_d,                           0.0,           0.0,
        cf * ct * roll_d - sf * st * pitch_d,    -sf * roll_d,  0.0,
        -sf * ct * roll_d - cf * st * pitch_d,   -cf * roll_d,  0.0,
    )
}

fn inertia(quad: &Quadrotor) -> Matrix3<f64> {
    Matrix3::from_diagonal(&Vector3::new(quad.Ix, quad.Iy, quad.Iz))
}

/// The pieces of the Newton–Euler equations at a state and angle accelerations:
/// (R, ω_b, ω̇_b, E).
struct Rigid {
    r: Rotation3<f64>,
    w: Vector3<f64>,
    wd: Vector3<f64>,
    e: Matrix3<f64>,
}

fn rigid(s: &State<6>, qdd: &V6) -> Rigid {
    let (yaw, pitch, roll) = (s.q[3], s.q[4], s.q[5]);
    let rates = Vector3::new(s.qd[3], s.qd[4], s.qd[5]);
    let accs = Vector3::new(qdd[3], qdd[4], qdd[5]);
    let e = euler_matrix(pitch, roll);
    let ed = euler_matrix_rate(pitch, roll, s.qd[4], s.qd[5]);
    Rigid {
        r: rotation(yaw, pitch, roll),
        w: e * rates,
        wd: e * accs + ed * rates,
        e,
    }
}

#[test]
fn names() {
    assert_eq!(
        Quadrotor::COORDINATES,
        ["x", "y", "z", "yaw", "pitch", "roll"]
    );
    assert_eq!(Quadrotor::INPUTS, ["thrust", "mx", "my", "mz"]);
}

/// Hover: at rest and level, with thrust m g and no moments, nothing accelerates, whatever
/// the heading, and also while turning steadily about the vertical (a torque-free spin
/// about the principal axis z: ω_b = (0, 0, ψ̇), ω_b × I ω_b = 0). With any other thrust
/// f, z̈ = f/m − g and nothing else moves.
#[test]
fn hover_and_vertical_thrust() {
    for quad in quadrotors() {
        let hover = quad.m * quad.g;
        for yaw in [0.0, 0.9, -2.4, 3.1] {
            for yaw_rate in [0.0, 5.0, -1.7] {
                let s = State::new(
                    0.0,
                    V6::from([0.3, -1.2, 4.0, yaw, 0.0, 0.0]),
                    V6::from([0.0, 0.0, 0.0, yaw_rate, 0.0, 0.0]),
                );
                for (f, want_z) in [
                    (hover, 0.0),
                    (1.7 * hover, 0.7 * quad.g),
                    (0.25 * hover, -0.75 * quad.g),
                    (0.0, -quad.g),
                ] {
                    let u: V4 = QuadrotorInputs {
                        thrust: f,
                        mx: 0.0,
                        my: 0.0,
                        mz: 0.0,
                    }
                    .into();
                    let qdd = quad.accelerations(&s, &u).unwrap();
                    let want = [0.0, 0.0, want_z, 0.0, 0.0, 0.0];
                    assert_slice_close(
                        qdd.as_slice(),
                        &want,
                        quad.g,
                        1e-12,
                        &format!("ψ = {yaw}, ψ̇ = {yaw_rate}, f = {f}"),
                    );
                }
            }
        }
    }
}

/// At random states and inputs the model's accelerations satisfy the Newton–Euler
/// equations: m p̈ = R (0, 0, f) − m g ẑ, and, with ω_b and ω̇_b from the Euler-angle
/// kinematics written out by hand, I ω̇_b + ω_b × I ω_b = (mx, my, mz).
#[test]
fn accelerations_satisfy_newton_euler() {
    for (k, quad) in quadrotors().into_iter().enumerate() {
        let i = inertia(&quad);
        for (n, (s, u, _)) in samples(&quad, 0x0000_9001 + k as u64, 40)
            .iter()
            .enumerate()
        {
            let what = format!("set {k}, sample {n}");
            let qdd = quad.accelerations(s, u).unwrap();
            let b = rigid(s, &qdd);
            let thrust = b.r * Vector3::new(0.0, 0.0, u[0]);
            let linear = Vector3::new(qdd[0], qdd[1], qdd[2]) * quad.m
                - (thrust - Vector3::new(0.0, 0.0, quad.m * quad.g));
            let scale = u[0].abs() + quad.m * quad.g;
            assert!(
                linear.amax() <= 1e-12 * scale,
                "{what}: m p̈ − F = {linear:?}"
            );
            let tau_b = Vector3::new(u[1], u[2], u[3]);
            let gyro = b.w.cross(&(i * b.w));
            let euler = i * b.wd + gyro - tau_b;
            let scale = (i * b.wd).amax().max(gyro.amax()).max(tau_b.amax());
            assert!(
                euler.amax() <= 1e-9 * scale,
                "{what}: I ω̇ + ω × I ω − τ = {euler:?} (scale {scale:e})"
            );
        }
    }
}

/// Compares got[..3] with want[..3] on the scale `lin` and got[3..] with want[3..] on `rot`.
fn split(got: &[f64], want: &[f64], lin: f64, rot: f64, what: &str) {
    assert_slice_close(
        &got[..3],
        &want[..3],
        lin,
        1e-12,
        &format!("{what}, translation"),
    );
    assert_slice_close(
        &got[3..],
        &want[3..],
        rot,
        1e-12,
        &format!("{what}, rotation"),
    );
}

/// The other outputs against the closed forms: M = blockdiag(m 𝟙, Eᵀ I E), p = M q̇,
/// E = ½ m |ṗ|² + ½ ω_bᵀ I ω_b + m g z (and L = T − V), Q = (R (0, 0, f), Eᵀ τ_b), and for
/// any trial q̈ the generalized force that must be added to produce it,
/// (m p̈ + m g ẑ − R (0, 0, f), Eᵀ (I ω̇_b + ω_b × I ω_b − τ_b)). The translational and the
/// rotational parts are compared each on its own scale (they differ by ~100).
#[test]
fn mass_matrix_energy_forces_and_inverse_dynamics() {
    for (k, quad) in quadrotors().into_iter().enumerate() {
        let i = inertia(&quad);
        for (n, (s, u, qdd)) in samples(&quad, 0x0000_7002 + k as u64, 40)
            .iter()
            .enumerate()
        {
            let what = format!("set {k}, sample {n}");
            let b = rigid(s, qdd);
            let rates = Vector3::new(s.qd[3], s.qd[4], s.qd[5]);
            let v = Vector3::new(s.qd[0], s.qd[1], s.qd[2]);

            let m_rot = b.e.transpose() * i * b.e;
            let got = quad.mass_matrix(s, u);
            let mut want = M6::zeros();
            want.fixed_view_mut::<3, 3>(0, 0)
                .copy_from(&(Matrix3::identity() * quad.m));
            want.fixed_view_mut::<3, 3>(3, 3).copy_from(&m_rot);
            let rot_scale = m_rot.amax();
            for r in 0..6 {
                for c in 0..6 {
                    let scale = if r < 3 && c < 3 { quad.m } else { rot_scale };
                    let (g, w) = (got[(r, c)], want[(r, c)]);
                    assert_close(g, w, scale, 1e-12, &format!("{what}: M[{r}, {c}]"));
                }
            }

            let p = quad.momenta(s, u);
            let want = want * s.qd;
            let lin = quad.m * v.amax();
            split(
                p.as_slice(),
                want.as_slice(),
                lin,
                rot_scale * rates.amax(),
                &format!("{what}: momenta"),
            );

            let t = 0.5 * quad.m * v.norm_squared() + 0.5 * b.w.dot(&(i * b.w));
            let pot = quad.m * quad.g * s.q[2];
            let scale = t + pot.abs();
            assert_close(
                quad.energy(s, u),
                t + pot,
                scale,
                1e-12,
                &format!("{what}: energy"),
            );
            assert_close(
                quad.lagrangian(s, u),
                t - pot,
                scale,
                1e-12,
                &format!("{what}: L"),
            );

            let thrust = b.r * Vector3::new(0.0, 0.0, u[0]);
            let tau_b = Vector3::new(u[1], u[2], u[3]);
            let q_rot = b.e.transpose() * tau_b;
            let want = [thrust.x, thrust.y, thrust.z, q_rot.x, q_rot.y, q_rot.z];
            let q = quad.generalized_forces(s, u);
            split(
                q.as_slice(),
                &want,
                u[0].abs(),
                2.0 * tau_b.amax(),
                &format!("{what}: Q"),
            );

            let pdd = Vector3::new(qdd[0], qdd[1], qdd[2]);
            let linear = pdd * quad.m + Vector3::new(0.0, 0.0, quad.m * quad.g) - thrust;
            let gyro = b.w.cross(&(i * b.w));
            let angular = b.e.transpose() * (i * b.wd + gyro - tau_b);
            let want = [
                linear.x, linear.y, linear.z, angular.x, angular.y, angular.z,
            ];
            let got = quad.inverse_dynamics(s, qdd, u);
            split(
                got.as_slice(),
                &want,
                quad.m * (pdd.amax() + quad.g) + u[0].abs(),
                2.0 * ((i * b.wd).amax() + gyro.amax() + tau_b.amax()),
                &format!("{what}: inverse dynamics"),
            );
        }
    }
}

/// Linearization about hover at several headings ψ0: the closed form of the module docs,
/// ∂q̈/∂q̇ = 0, and B with 1/m on the thrust and 1/I on the moments.
#[test]
fn linearization_about_hover() {
    for quad in quadrotors() {
        let g = quad.g;
        for yaw in [0.0, 0.7, -1.9, 3.0] {
            let s = State::new(0.0, V6::from([1.0, -2.0, 3.0, yaw, 0.0, 0.0]), V6::zeros());
            let u: V4 = QuadrotorInputs {
                thrust: quad.m * g,
                mx: 0.0,
                my: 0.0,
                mz: 0.0,
            }
            .into();
            let lin = linearize(&quad, &s, &u).unwrap();
            let (sy, cy) = yaw.sin_cos();
            let mut d_q = M6::zeros();
            d_q[(0, 4)] = g * cy;
            d_q[(0, 5)] = g * sy;
            d_q[(1, 4)] = g * sy;
            d_q[(1, 5)] = -g * cy;
            let mut d_u = SMatrix::<f64, 6, 4>::zeros();
            d_u[(2, 0)] = 1.0 / quad.m;
            d_u[(3, 3)] = 1.0 / quad.Iz;
            d_u[(4, 2)] = 1.0 / quad.Iy;
            d_u[(5, 1)] = 1.0 / quad.Ix;
            let what = format!("ψ0 = {yaw}");
            assert_slice_close(lin.accelerations.as_slice(), &[0.0; 6], g, 1e-12, &what);
            assert_slice_close(
                lin.d_q.as_slice(),
                d_q.as_slice(),
                g,
                1e-12,
                &format!("{what}: ∂q̈/∂q"),
            );
            assert_slice_close(
                lin.d_qd.as_slice(),
                &[0.0; 36],
                g,
                1e-12,
                &format!("{what}: ∂q̈/∂q̇"),
            );
            let u_scale = d_u.amax();
            assert_slice_close(
                lin.d_u.as_slice(),
                d_u.as_slice(),
                u_scale,
                1e-12,
                &format!("{what}: ∂q̈/∂u"),
            );
        }
    }
}

/// Thrust and moments off: the centre falls freely, p(t) = p0 + ṗ0 t − ½ g t² ẑ, and the
/// body tumbles torque-free, so its angular momentum in the fixed frame, L = R I ω_b, and
/// the energy are constant. Started spinning mostly about the major axis z (stable), the
/// Euler angles stay far from gimbal lock (|θ|, |φ| ≤ 0.16 over 3 s in a Python prototype
/// of Euler's equations). 2 s of Dormand–Prince with rtol = atol = 1e-11.
#[test]
fn free_fall_and_torque_free_tumbling() {
    let quad = Quadrotor::default();
    let i = inertia(&quad);
    let u = V4::zeros();
    let s0 = State::new(
        0.0,
        V6::from([0.0, 0.0, 10.0, 0.3, 0.1, -0.05]),
        V6::from([0.5, -0.2, 3.0, 6.0, 0.4, -0.3]),
    );
    let momentum = |s: &State<6>| {
        let b = rigid(s, &V6::zeros());
        b.r * (i * b.w)
    };
    let l0 = momentum(&s0);
    let e0 = quad.energy(&s0, &u);
    let run = Simulation::new(&quad, s0)
        .run(&DormandPrince::new(1e-11, 1e-11), 2.0)
        .unwrap();
    assert_eq!(run.last().t, 2.0);
    let (mut dl, mut de, mut dp, mut tilt) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for s in run.states() {
        let t = s.t;
        let want = [
            s0.q[0] + s0.qd[0] * t,
            s0.q[1] + s0.qd[1] * t,
            s0.q[2] + s0.qd[2] * t - 0.5 * quad.g * t * t,
        ];
        for (j, w) in want.iter().enumerate() {
            dp = dp.max((s.q[j] - w).abs());
        }
        dl = dl.max((momentum(s) - l0).amax());
        de = de.max((quad.energy(s, &u) - e0).abs());
        tilt = tilt.max(s.q[4].abs()).max(s.q[5].abs());
    }
    assert!(tilt < 0.5, "the body tilted by {tilt}");
    assert!(dp < 1e-9, "free fall off by {dp:e}");
    assert!(
        dl < 1e-8 * l0.norm(),
        "angular momentum changed by {dl:e} of {:e}",
        l0.norm()
    );
    assert!(de < 1e-8 * e0.abs(), "energy changed by {de:e} of {e0:e}");
}

/// Exact derivatives against central differences (`common::derivatives`), at structured
/// and random states (pitch well inside ±90°) and hovering level while turning about the
/// vertical.
#[test]
fn derivatives_match_finite_differences() {
    for (k, quad) in quadrotors().into_iter().enumerate() {
        let hover: V4 = QuadrotorInputs {
            thrust: quad.m * quad.g,
            mx: 0.0,
            my: 0.0,
            mz: 0.0,
        }
        .into();
        let turning = State::new(
            0.0,
            V6::from([0.3, -1.2, 4.0, 0.9, 0.0, 0.0]),
            V6::from([0.0, 0.0, 0.0, 5.0, 0.0, 0.0]),
        );
        Derivatives::new(&format!("Quadrotor (set {k})"), &quad)
            .standard()
            .state("hovering", State::at_rest(V6::zeros()), hover)
            .state("hovering, turning", turning, hover)
            .check();
    }
}
