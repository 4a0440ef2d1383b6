//! The constructs of the vector language, each checked against an independent value:
//! rotations and quaternions against nalgebra's, angular velocities against their closed
//! forms, the vector operations against hand arithmetic, forces and torques against the
//! virtual work they must do. Each model exposes the quantity under test as its potential
//! energy (or its kinetic energy, where it depends on velocities), read back through the
//! Lagrangian L = T − V.
use crate::common;

use common::derivatives::{Derivatives, Part};
use lagrange_runtime::nalgebra::{Rotation3, Unit, UnitQuaternion, Vector3};
use lagrange_runtime::prelude::*;

const NONE: SVector<f64, 0> =
    SVector::from_array_storage(lagrange_runtime::nalgebra::ArrayStorage([[]]));

fn state<const N: usize>(q: [f64; N], qd: [f64; N]) -> State<N> {
    State::new(0.0, SVector::from(q), SVector::from(qd))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn axis_rotations_are_right_handed() {
    lagrangian! {
        struct Spin {
            coordinates: a;
            kinetic = dot(a)^2 / 2;
            // rot_z(a) * [1, 0, 0] is [cos a, sin a, 0]: V = its y component.
            potential = (rot_z(a) * [1, 0, 0]).y + 10 * (rot_x(a) * [0, 1, 0]).z
                      + 100 * (rot_y(a) * [0, 0, 1]).x;
        }
    }
    for a in [-2.0, -0.3, 0.0, 0.7, 3.0f64] {
        let l = Spin.lagrangian(&state([a], [0.0]), &NONE);
        // rot_x(a) [0,1,0] = [0, cos a, sin a]; rot_y(a) [0,0,1] = [sin a, 0, cos a].
        assert!(
            close(-l, a.sin() + 10.0 * a.sin() + 100.0 * a.sin()),
            "a = {a}"
        );
    }
    // Its derivatives, as every model's (`common::derivatives`).
    Derivatives::new("Spin", &Spin).standard().check();
}

lagrangian! {
    /// Every element of `rot(n, a)` and of `quat(w, x, y, z)`, each read as a momentum: the
    /// kinetic energy holds Σ R_ij ė_k, linear in those velocities, so ∂L/∂ė_k = R_ij.
    struct Elements {
        parameters: nx = 0.3, ny = -0.5, nz = 0.8;
        coordinates: a, w, x, y, z, e0, e1, e2, e3, e4, e5, e6, e7, e8,
                     f0, f1, f2, f3, f4, f5, f6, f7, f8;
        let R = rot([nx, ny, nz], a);
        let Q = quat(w, x, y, z);
        kinetic = dot(a)^2 + dot(w)^2 + dot(x)^2 + dot(y)^2 + dot(z)^2
                + inner([dot(e0), dot(e1), dot(e2)], R * [1, 0, 0])
                + inner([dot(e3), dot(e4), dot(e5)], R * [0, 1, 0])
                + inner([dot(e6), dot(e7), dot(e8)], R * [0, 0, 1])
                + inner([dot(f0), dot(f1), dot(f2)], Q * [1, 0, 0])
                + inner([dot(f3), dot(f4), dot(f5)], Q * [0, 1, 0])
                + inner([dot(f6), dot(f7), dot(f8)], Q * [0, 0, 1]);
    }
}

#[test]
fn rotation_about_an_axis_and_quaternion_match_nalgebra() {
    let model = Elements::default();
    let (angle, quat) = (1.1, [0.8, -0.2, 0.4, 0.3]);
    let norm = quat.iter().map(|v| v * v).sum::<f64>().sqrt();
    let quat = quat.map(|v| v / norm);
    let mut q = [0.0; 23];
    q[0] = angle;
    q[1..5].copy_from_slice(&quat);
    let p = model.momenta(&state(q, [0.0; 23]), &NONE);
    let axis = Unit::new_normalize(Vector3::new(model.nx, model.ny, model.nz));
    let r = Rotation3::from_axis_angle(&axis, angle);
    let u = UnitQuaternion::from_quaternion(lagrange_runtime::nalgebra::Quaternion::new(
        quat[0], quat[1], quat[2], quat[3],
    ))
    .to_rotation_matrix();
    for col in 0..3 {
        for row in 0..3 {
            let (re, ue) = (p[5 + 3 * col + row], p[14 + 3 * col + row]);
            assert!(
                close(re, r[(row, col)]),
                "rot[{row}, {col}]: {re} vs {}",
                r[(row, col)]
            );
            assert!(
                close(ue, u[(row, col)]),
                "quat[{row}, {col}]: {ue} vs {}",
                u[(row, col)]
            );
        }
    }
}

#[test]
fn constant_parameter_defaults_are_evaluated() {
    lagrangian! {
        struct Defaults {
            parameters: lam = pi/10, zB = -0.9, r = sqrt(2)/2, k = 2^-2, h = atan2(1, 1);
            coordinates: x;
            kinetic = dot(x)^2 / 2;
        }
    }
    let d = Defaults::default();
    assert_eq!(d.lam, std::f64::consts::PI / 10.0);
    assert_eq!(d.zB, -0.9);
    assert_eq!(d.r, 2f64.sqrt() / 2.0);
    assert_eq!(d.k, 0.25);
    assert_eq!(d.h, std::f64::consts::FRAC_PI_4);
    // Its derivatives, as every model's (`common::derivatives`).
    Derivatives::new("Defaults", &d).standard().check();
}

#[test]
fn dot_of_a_constant_is_zero_and_dot_is_element_wise() {
    lagrangian! {
        struct Bob {
            parameters: m = 2.0, h = 0.5;
            coordinates: x, y;
            // dot of a constant expression is 0; dot([x, y, h]) is [ẋ, ẏ, 0].
            kinetic = m/2 * dot([x, y, h])^2 + dot(2 * m * pi) * x;
        }
    }
    let s = state([0.3, -0.2], [1.5, -0.5]);
    let l = Bob::default().lagrangian(&s, &NONE);
    assert!(close(l, 1.0 * (1.5f64.powi(2) + 0.25)));
    // Its derivatives, as every model's (`common::derivatives`).
    Derivatives::new("Bob", &Bob::default()).standard().check();
}

#[test]
fn vector_operations_match_hand_arithmetic() {
    lagrangian! {
        /// V = a weighted sum of every vector operation applied to fixed vectors built
        /// from the coordinate x (so that each term has a known value).
        struct Ops {
            coordinates: x;
            let a = [x, 2, 3];
            let b = [4, x, -1];
            let A = [[1, x], [3, 4]];
            kinetic = dot(x)^2 / 2;
            potential = inner(a, b) + 10 * cross(a, b).z + 100 * norm(b) + 1000 * a^2
                      + 1e4 * transpose(A)[0, 1] + 1e5 * (A * [1, 1])[0]
                      + 1e6 * diag(x, 5, 7)[2, 2] + 1e7 * (a.cross(b)).x + 1e8 * a.inner(b)
                      + 1e9 * (-b.y) + 1e10 * (A * A)[1, 0];
        }
    }
    let x = 0.5f64;
    let (a, b) = (Vector3::new(x, 2.0, 3.0), Vector3::new(4.0, x, -1.0));
    let m = lagrange_runtime::nalgebra::Matrix2::new(1.0, x, 3.0, 4.0);
    let expected = a.dot(&b)
        + 10.0 * a.cross(&b).z
        + 100.0 * b.norm()
        + 1000.0 * a.norm_squared()
        + 1e4 * m.transpose()[(0, 1)]
        + 1e5 * (m * lagrange_runtime::nalgebra::Vector2::new(1.0, 1.0))[0]
        + 1e6 * 7.0
        + 1e7 * a.cross(&b).x
        + 1e8 * a.dot(&b)
        + 1e9 * -x
        + 1e10 * (m * m)[(1, 0)];
    let l = Ops.lagrangian(&state([x], [0.0]), &NONE);
    assert!(
        (-l - expected).abs() < 1e-12 * expected.abs(),
        "{} vs {expected}",
        -l
    );
    // Its derivatives, as every model's (`common::derivatives`).
    Derivatives::new("Ops", &Ops).standard().check();
}

lagrangian! {
    /// A body turned by yaw a about z, then by b about its x axis.
    struct YawRoll {
        coordinates: a, b;
        let R = rot_z(a) * rot_x(b);
        let w = angular_velocity(R);
        let wb = body_angular_velocity(R);
        // Linear in the velocities: the momenta are the coefficients, L the value.
        kinetic = w.x + 10 * w.y + 100 * w.z + 1e3 * wb.x + 1e4 * wb.y + 1e5 * wb.z;
    }
}

#[test]
fn angular_velocities_match_the_closed_form() {
    // ω = ȧ e_z + ḃ Rz(a) e_x (fixed frame); ω_b = Rᵀ ω = ȧ Rx(b)ᵀ e_z + ḃ e_x.
    for (a, b, ad, bd) in [(0.4, -0.9, 1.3, 0.7), (2.0, 0.3, -0.5, 2.2)] {
        let l = YawRoll.lagrangian(&state([a, b], [ad, bd]), &NONE);
        let w = Vector3::new(bd * f64::cos(a), bd * f64::sin(a), ad);
        let r = Rotation3::from_axis_angle(&Vector3::z_axis(), a)
            * Rotation3::from_axis_angle(&Vector3::x_axis(), b);
        let wb = r.inverse() * w;
        let expected = w.x + 10.0 * w.y + 100.0 * w.z + 1e3 * wb.x + 1e4 * wb.y + 1e5 * wb.z;
        assert!(close(l, expected), "{l} vs {expected}");
    }
}

#[test]
fn forces_and_torques_do_their_virtual_work() {
    lagrangian! {
        /// A rod turning about z (angle a) whose tip at length l can slide (x): a force F
        /// at the tip and a torque τ about z on the rod's rotation.
        struct Rod {
            parameters: l = 0.8;
            coordinates: a, x;
            inputs: fx, fy, tz;
            let R = rot_z(a);
            let tip = R * [l + x, 0, 0];
            kinetic = dot(a)^2 / 2 + dot(x)^2 / 2;
            force [fx, fy, 0] on tip;
            torque [0, 0, tz] on R;
        }
    }
    let (a, x) = (0.6f64, 0.1);
    let u = SVector::from([2.0, -1.0, 0.5]);
    let q = Rod::default().generalized_forces(&state([a, x], [0.3, -0.2]), &u);
    // δtip = (l + x)(−sin a, cos a, 0) δa + (cos a, sin a, 0) δx; the torque adds τ δa.
    let r = 0.8 + x;
    let (fx, fy, tz) = (u[0], u[1], u[2]);
    let qa = r * (-a.sin() * fx + a.cos() * fy) + tz;
    let qx = a.cos() * fx + a.sin() * fy;
    assert!(close(q[0], qa) && close(q[1], qx), "{q} vs [{qa}, {qx}]");
    // Its derivatives, as every model's (`common::derivatives`).
    Derivatives::new("Rod", &Rod::default()).standard().check();
}

#[test]
fn vector_constraints_are_one_constraint_per_element() {
    lagrangian! {
        /// A disk rolling without slipping along its heading: the contact velocity is zero.
        struct Rolling {
            parameters: r = 0.5;
            coordinates: x, y, heading, spin;
            kinetic = (dot(x)^2 + dot(y)^2 + dot(heading)^2 + dot(spin)^2) / 2;
            constraint roll = [dot(x), dot(y)] - r * dot(spin) * [cos(heading), sin(heading)];
        }
    }
    assert_eq!(
        <Rolling as Constrained<4, 0, 2>>::CONSTRAINTS,
        ["roll[0]", "roll[1]"]
    );
    let s = state(
        [0.0, 0.0, 0.3, 0.0],
        [0.5 * 0.3f64.cos(), 0.5 * 0.3f64.sin(), 0.0, 1.0],
    );
    let residuals = Rolling::default().constraint_residuals(&s, &NONE);
    assert!(residuals.norm() < 1e-15, "{residuals}");
    // Its derivatives, as every model's (`common::derivatives`).
    Derivatives::new("Rolling", &Rolling::default())
        .standard()
        .state("rolling", s, NONE)
        .check();
}

/// Exact derivatives against central differences (`common::derivatives`) of this file's
/// module-level models; those local to a test are checked in it. Both models here are
/// linear in some velocities, so their mass matrices are singular and they have no
/// accelerations: their linearization and sensitivities are left out, their equations,
/// gradient and variational Jacobian checked.
#[test]
fn derivatives_match_finite_differences() {
    let singular = "singular mass matrix by design: no accelerations";
    Derivatives::new("Elements", &Elements::default())
        .standard()
        .without(Part::Linearize, singular)
        .without(Part::Sensitivities, singular)
        .check();
    Derivatives::new("YawRoll", &YawRoll)
        .standard()
        .without(Part::Linearize, singular)
        .check();
}

lagrangian! {
    /// A rigid body oriented by URDF's roll, pitch, yaw, with a full inertia tensor.
    struct RpyBody {
        parameters: ixx = 0.9, ixy = -0.1, ixz = 0.05, iyy = 1.3, iyz = 0.2, izz = 1.7;
        coordinates: roll, pitch, yaw;
        let R = rpy(roll, pitch, yaw);
        let I = inertia(ixx, ixy, ixz, iyy, iyz, izz);
        let w = body_angular_velocity(R);
        kinetic = inner(w, I * w) / 2;
    }
}

#[test]
fn rpy_is_urdfs_convention_and_inertia_is_symmetric() {
    let model = RpyBody::default();
    let (ixx, ixy, ixz, iyy, iyz, izz) = (0.9, -0.1, 0.05, 1.3, 0.2, 1.7);
    let tensor = lagrange_runtime::nalgebra::Matrix3::new(
        ixx, ixy, ixz, //
        ixy, iyy, iyz, //
        ixz, iyz, izz,
    );
    for (angles, rates) in [
        ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        ([0.0, 0.0, 0.0], [0.4, -0.7, 1.1]),
        ([0.3, -0.6, 1.2], [0.5, 0.25, -0.8]),
        ([-2.0, 1.1, -2.9], [-1.0, 0.3, 0.6]),
    ] {
        let s = state(angles, rates);
        let lets = model.lets(&s, &NONE);
        // nalgebra's Euler angles apply roll, then pitch, then yaw about fixed axes:
        // Rz(yaw) Ry(pitch) Rx(roll), URDF's rpy.
        let [r, p, y] = angles;
        let want = Rotation3::from_euler_angles(r, p, y);
        assert!(
            (lets.R - want.matrix()).amax() < 1e-15,
            "rpy{angles:?}: {} vs {}",
            lets.R,
            want.matrix()
        );
        assert_eq!(lets.I, tensor);
        // The body rates of Z-Y-X Euler angles, in closed form.
        let [rd, pd, yd] = rates;
        let omega = Vector3::new(
            rd - yd * p.sin(),
            pd * r.cos() + yd * p.cos() * r.sin(),
            -pd * r.sin() + yd * p.cos() * r.cos(),
        );
        assert!((lets.w - omega).amax() < 1e-14, "ω_b at {angles:?}");
        let t = model.kinetic_energy(&s, &NONE);
        let want = 0.5 * omega.dot(&(tensor * omega));
        assert!(close(t, want), "T = {t}, ½ ωᵀ I ω = {want}");
    }
    // Euler angles are singular at pitch = ±π/2; everywhere else every derivative is exact.
    Derivatives::new("RpyBody", &model).standard().check();
}
