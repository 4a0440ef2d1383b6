//! The rows of a URDF robot's momenta, `urdf_momentum` and `urdf_angular_momentum`, for
//! the generated `jacobians` of a robot too large to unroll them (`lagrangian!` unrolls
//! them within its budget, and in forward mode they are cheaper there: the file's zeros
//! and ones fold): the centroidal momentum matrix A_G and its drift, from the robot's
//! tree, which `lagrangian!` emits as a constant ([`Robot`]; the rows of the links' points
//! come from the same constant, `crate::frames`). Not part of the public API.
//!
//! The momenta are the `let`s the URDF writer (`lagrange-macros/src/urdf/writer.rs`)
//! declares, h = Σ m ċ and L = Σ m λ × ċ − ρ × h + Σ R I Rᵀ ω, with the tree's velocities:
//! ω of a link its parent's plus a q̇ (a = R_parent · axis) below a revolute joint, ċ = v +
//! ω × r with v the velocity of the link's point at its reference point o and r its centre
//! of mass from o (sums of the arms R_parent · xyz, never differences of positions from the
//! world's origin). Their Jacobians with respect to q̇, one column per coordinate, are sums
//! over the links below each joint, from the composite mass, first moment and inertia of
//! that subtree about o (as Pinocchio's `ccrba`), and their drifts d/dt at q̈ = 0 follow
//! the same recursion differentiated along the motion (ω̇, v̇, the arms' rates). The same
//! functions of (q, q̇) as the `let`s, also off the unit quaternion (whose rotation is the
//! homogeneous one, |n|² times a rotation), so the same numbers as differentiating them,
//! to rounding, in O(links) arithmetic and without a pass per coordinate: the dual-number
//! passes, each evaluating the momenta, took the G1's `jacobians` from 112 µs (its
//! frames) to 396 µs.

use crate::jacobian::Rows;
use crate::model::Point;

pub(crate) type V3 = [f64; 3];
pub(crate) type M3 = [[f64; 3]; 3];

/// A robot's tree as its URDF writer wrote its momenta.
#[doc(hidden)]
pub struct Robot<const L: usize, const B: usize> {
    /// A free base: coordinates 0..3 the root's position, 3..7 its quaternion (w, x, y, z).
    pub floating: bool,
    /// The links whose frames were written, the root first, each after its parent.
    pub links: [Link; L],
    /// The links that move and carry mass or inertia, in the order of `links`.
    pub bodies: [Body; B],
}

/// A link and the joint from its parent.
#[doc(hidden)]
pub struct Link {
    /// The parent's index in [`Robot::links`] (the root: its own).
    pub parent: usize,
    pub joint: Joint,
    /// The joint's origin in the parent's frame.
    pub xyz: V3,
    /// The joint's rotation (its `rpy`), `None` for the identity.
    pub rpy: Option<M3>,
}

/// How a link moves relative to its parent.
#[doc(hidden)]
pub enum Joint {
    /// The root.
    Root,
    Fixed,
    /// About `axis` (a unit vector; `rot_x`, `rot_y`, `rot_z` when it is ± one of the
    /// frame's axes, else `rot(axis, q)`), in the frame of the joint's origin; `along` is
    /// the axis in the parent's frame (`rpy · axis`), the coordinate by index.
    Revolute {
        coordinate: usize,
        axis: V3,
        along: V3,
    },
    /// Along `along` (the axis in the parent's frame).
    Prismatic {
        coordinate: usize,
        along: V3,
    },
}

/// A link's mass and inertia.
#[doc(hidden)]
pub struct Body {
    /// Its index in [`Robot::links`].
    pub link: usize,
    pub mass: f64,
    /// Its centre of mass in its frame.
    pub com: V3,
    pub inertia: Inertia,
}

/// A body's inertia about its centre of mass, in its frame, as the writer wrote its
/// angular momentum.
#[doc(hidden)]
pub enum Inertia {
    /// None (or a link that does not turn).
    Zero,
    /// I = Σ d_k l_k l_kᵀ: R I Rᵀ ω = Σ d_k ((R l_k) · ω) R l_k.
    Factored(&'static [(f64, V3)]),
    /// R (I (Rᵀ ω)).
    Plain(M3),
}

#[inline]
pub(crate) fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline]
pub(crate) fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline]
pub(crate) fn scale(s: f64, a: V3) -> V3 {
    [s * a[0], s * a[1], s * a[2]]
}

#[inline]
pub(crate) fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline]
pub(crate) fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline]
pub(crate) fn apply(m: &M3, v: V3) -> V3 {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}

/// mᵀ v.
fn apply_transposed(m: &M3, v: V3) -> V3 {
    [
        m[0][0] * v[0] + m[1][0] * v[1] + m[2][0] * v[2],
        m[0][1] * v[0] + m[1][1] * v[1] + m[2][1] * v[2],
        m[0][2] * v[0] + m[1][2] * v[1] + m[2][2] * v[2],
    ]
}

#[inline]
pub(crate) fn product(a: &M3, b: &M3) -> M3 {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j])
    })
}

fn sum(a: &M3, b: &M3) -> M3 {
    std::array::from_fn(|i| add(a[i], b[i]))
}

/// Adds the symmetric matrix of entries `entry(i, j)` (i ≤ j) to `m`.
fn add_symmetric(m: &mut M3, entry: impl Fn(usize, usize) -> f64) {
    for (i, j) in [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)] {
        let e = entry(i, j);
        m[i][j] += e;
        if j != i {
            m[j][i] += e;
        }
    }
}

const ZERO: M3 = [[0.0; 3]; 3];
pub(crate) const IDENTITY: M3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// ω with Ṙ Rᵀ = [ω]×, from the antisymmetric part, as `angular_velocity` lowers it: ½
/// ((Ṙ Rᵀ)_ij − (Ṙ Rᵀ)_ji) for (i, j) = (2, 1), (0, 2), (1, 0).
fn spin_of(rd: &M3, r: &M3) -> V3 {
    let w = |i: usize, j: usize| dot(rd[i], r[j]);
    [
        0.5 * (w(2, 1) - w(1, 2)),
        0.5 * (w(0, 2) - w(2, 0)),
        0.5 * (w(1, 0) - w(0, 1)),
    ]
}

/// A floating base's rotation and its derivatives at a point: the rotation of the
/// normalized quaternion R(n) = B(n, n) / s with s = |n|² ([`quaternion`], as the URDF
/// writer turns the base), Ṙ, R̈ at n̈ = 0 and ∂R/∂n_k, n the coordinates 3..7. With
/// ṡ = 2 n · ṅ and s̈ = 2 |ṅ|² (n̈ = 0): Ṙ = (2 B(n, ṅ) − ṡ R) / s, R̈ = (2 B(ṅ, ṅ) − 2 ṡ Ṙ −
/// s̈ R) / s, ∂R/∂n_k = (2 B(n, e_k) − 2 n_k R) / s.
pub(crate) struct Base {
    pub(crate) r: M3,
    pub(crate) rd: M3,
    pub(crate) rdd: M3,
    pub(crate) dr: [M3; 4],
}

impl Base {
    pub(crate) fn at<const N: usize, const M: usize>(x: &Point<f64, N, M>) -> Self {
        let n = [x.q[3], x.q[4], x.q[5], x.q[6]];
        let nd = [x.qd[3], x.qd[4], x.qd[5], x.qd[6]];
        let s = n.iter().map(|v| v * v).sum::<f64>();
        let sd = 2.0 * n.iter().zip(&nd).map(|(a, b)| a * b).sum::<f64>();
        let sdd = 2.0 * nd.iter().map(|v| v * v).sum::<f64>();
        // (Σ c_i m_i) / s, entry by entry.
        let combine = |terms: &[(f64, &M3)]| -> M3 {
            std::array::from_fn(|i| {
                std::array::from_fn(|j| terms.iter().map(|(c, m)| c * m[i][j]).sum::<f64>() / s)
            })
        };
        let r = normalized_rotation(n);
        let rd = combine(&[(2.0, &quaternion(n, nd)), (-sd, &r)]);
        let rdd = combine(&[(2.0, &quaternion(nd, nd)), (-2.0 * sd, &rd), (-sdd, &r)]);
        Base {
            r,
            rd,
            rdd,
            dr: std::array::from_fn(|k| {
                combine(&[(2.0, &quaternion(n, unit(k))), (-2.0 * n[k], &r)])
            }),
        }
    }
}

/// The unit vector e_k of K entries.
pub(crate) fn unit<const K: usize>(k: usize) -> [f64; K] {
    std::array::from_fn(|i| if i == k { 1.0 } else { 0.0 })
}

/// The rotation of the normalized quaternion n / |n|, B(n, n) / |n|² (as the URDF writer
/// turns a floating base).
pub(crate) fn normalized_rotation(n: [f64; 4]) -> M3 {
    let s = n.iter().map(|v| v * v).sum::<f64>();
    quaternion(n, n).map(|row| scale(1.0 / s, row))
}

/// B(a, b), the symmetric bilinear form of the homogeneous quaternion rotation (`quat`):
/// R(n) = B(n, n), diagonal w² + x² − y² − z², R01 = 2(xy − wz), ….
pub(crate) fn quaternion(a: [f64; 4], b: [f64; 4]) -> M3 {
    let [w, x, y, z] = a;
    let [w2, x2, y2, z2] = b;
    // The symmetric product of two components: (p q' + p' q) / 2.
    let p = |u: f64, v: f64, u2: f64, v2: f64| 0.5 * (u * v2 + u2 * v);
    let (ww, xx, yy, zz) = (w * w2, x * x2, y * y2, z * z2);
    let (xy, xz, yz) = (p(x, y, x2, y2), p(x, z, x2, z2), p(y, z, y2, z2));
    let (wx, wy, wz) = (p(w, x, w2, x2), p(w, y, w2, y2), p(w, z, w2, z2));
    [
        [ww + xx - (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy)],
        [2.0 * (xy + wz), ww + yy - (xx + zz), 2.0 * (yz - wx)],
        [2.0 * (xz - wy), 2.0 * (yz + wx), ww + zz - (xx + yy)],
    ]
}

/// `m` times the rotation about the unit `axis` by `angle`: `rot_x` (…) for ± a frame
/// axis, two columns mixed; Rodrigues' formula otherwise.
#[inline]
pub(crate) fn rotated(m: &M3, axis: V3, angle: f64) -> M3 {
    let (s, c) = angle.sin_cos();
    let frame_axis =
        (0..3).find(|&a| axis[a].abs() == 1.0 && (0..3).all(|i| i == a || axis[i] == 0.0));
    match frame_axis {
        // With (a, i, j) cyclic: R_ii = R_jj = cos, R_ji = sin, R_ij = −sin.
        Some(a) => {
            let s = s * axis[a];
            let (i, j) = ((a + 1) % 3, (a + 2) % 3);
            let mut out = *m;
            for row in &mut out {
                let (x, y) = (row[i], row[j]);
                row[i] = x * c + y * s;
                row[j] = y * c - x * s;
            }
            out
        }
        None => {
            let n = scale(1.0 / dot(axis, axis).sqrt(), axis);
            let k: M3 = [[0.0, -n[2], n[1]], [n[2], 0.0, -n[0]], [-n[1], n[0], 0.0]];
            let r: M3 = std::array::from_fn(|i| {
                std::array::from_fn(|j| {
                    let entry = (1.0 - c) * (n[i] * n[j]);
                    if i == j {
                        c + entry
                    } else {
                        entry + s * k[i][j]
                    }
                })
            });
            product(m, &r)
        }
    }
}

/// How each link moves: its rotation and the rates along the motion (q̈ = 0) of what the
/// momenta are made of.
#[derive(Clone, Copy)]
struct Frame {
    moves: bool,
    /// The link whose origin is the reference point o (`Kinematics::reference`).
    reference: usize,
    r: M3,
    /// The origin from o, and its rate.
    f: V3,
    fd: V3,
    /// The angular velocity, and its rate.
    w: V3,
    wd: V3,
    /// The velocity of the link's point at o, and its rate.
    v: V3,
    vd: V3,
    /// The origin, for a link that does not move (its o's position, for the levers).
    p: V3,
}

/// A subtree's mass, first moment Σ m r and inertia Σ (R I Rᵀ + m (|r|² − r rᵀ)) about o.
#[derive(Clone, Copy)]
struct Composite {
    mass: f64,
    moment: V3,
    inertia: M3,
}

/// The rows of `urdf_momentum` (0..3) and `urdf_angular_momentum` (3..6): ∂/∂q̇ and the
/// drifts.
///
/// Every rotation of the tree is a rotation (`Base`'s for a floating base), so its rate
/// is [Ω]× R, Ω its angular velocity (the base's plus a q̇ per joint, a = R_parent · axis):
/// the rates of the arms and axes are Ω × x, never a product of matrices.
#[doc(hidden)]
#[must_use]
#[allow(clippy::too_many_lines)]
pub fn momenta<const N: usize, const M: usize, const L: usize, const B: usize>(
    robot: &Robot<L, B>,
    x: &Point<f64, N, M>,
) -> Rows<N, 6> {
    let still = Frame {
        moves: false,
        reference: 0,
        r: IDENTITY,
        f: [0.0; 3],
        fd: [0.0; 3],
        w: [0.0; 3],
        wd: [0.0; 3],
        v: [0.0; 3],
        vd: [0.0; 3],
        p: [0.0; 3],
    };
    let mut frames = [still; L];
    // Each quaternion rate's ∂ω/∂ṅ_k of a floating root.
    let mut base_spin = [[0.0; 3]; 4];
    for l in 0..L {
        let link = &robot.links[l];
        if let Joint::Root = link.joint {
            if robot.floating {
                let Base { r, rd, rdd, dr } = Base::at(x);
                for (spin, dr) in base_spin.iter_mut().zip(&dr) {
                    *spin = spin_of(dr, &r);
                }
                let w = spin_of(&rd, &r);
                frames[l] = Frame {
                    moves: true,
                    reference: l,
                    r,
                    w,
                    wd: spin_of(&rdd, &r),
                    v: [x.qd[0], x.qd[1], x.qd[2]],
                    p: [x.q[0], x.q[1], x.q[2]],
                    ..still
                };
            } else {
                frames[l].reference = l;
            }
            continue;
        }
        let parent = &frames[link.parent];
        let mut frame = Frame {
            reference: if parent.moves {
                parent.reference
            } else {
                link.parent
            },
            ..*parent
        };
        let r = match &link.rpy {
            Some(rpy) => product(&parent.r, rpy),
            None => parent.r,
        };
        // The rate of x = R_parent y: Ω_parent × x.
        let rate_of = |x: V3| cross(parent.w, x);
        let mut offset = link.xyz;
        let (mut qd, mut along) = (0.0, [0.0; 3]);
        match link.joint {
            Joint::Root | Joint::Fixed => frame.r = r,
            Joint::Revolute {
                coordinate,
                axis,
                along: a,
            } => {
                frame.r = rotated(&r, axis, x.q[coordinate]);
                (qd, along) = (x.qd[coordinate], a);
            }
            Joint::Prismatic {
                coordinate,
                along: a,
            } => {
                frame.r = r;
                (qd, along) = (x.qd[coordinate], a);
                offset = add(offset, scale(x.q[coordinate], a));
            }
        }
        let arm = apply(&parent.r, offset);
        let mut arm_rate = rate_of(arm);
        // a and ȧ.
        let a = apply(&parent.r, along);
        let ad = rate_of(a);
        if let Joint::Prismatic { .. } = link.joint {
            arm_rate = add(arm_rate, scale(qd, a));
        }
        frame.moves = parent.moves || !matches!(link.joint, Joint::Fixed);
        if parent.moves {
            frame.f = add(parent.f, arm);
            frame.fd = add(parent.fd, arm_rate);
        } else {
            frame.f = arm;
            frame.fd = arm_rate;
            frame.p = add(parent.p, arm);
        }
        match link.joint {
            Joint::Revolute { .. } => {
                frame.w = add(parent.w, scale(qd, a));
                frame.wd = add(parent.wd, scale(qd, ad));
                frame.v = add(parent.v, scale(qd, cross(frame.f, a)));
                let vd = add(cross(frame.fd, a), cross(frame.f, ad));
                frame.vd = add(parent.vd, scale(qd, vd));
            }
            Joint::Prismatic { .. } => {
                frame.v = add(parent.v, scale(qd, a));
                frame.vd = add(parent.vd, scale(qd, ad));
            }
            Joint::Root | Joint::Fixed => {}
        }
        frames[l] = frame;
    }
    // The levers: from the first massive body's o, each body's o shifted by the constant
    // between them.
    let o = robot
        .bodies
        .iter()
        .find(|b| b.mass > 0.0)
        .map(|b| frames[b.link].reference);
    let shift = |l: usize| -> V3 {
        match o {
            Some(o) if frames[l].reference != o => sub(frames[frames[l].reference].p, frames[o].p),
            _ => [0.0; 3],
        }
    };
    let total: f64 = robot
        .bodies
        .iter()
        .filter(|b| b.mass > 0.0)
        .map(|b| b.mass)
        .sum();
    let (mut h, mut hd) = ([0.0; 3], [0.0; 3]);
    let (mut rho, mut rhod) = ([0.0; 3], [0.0; 3]);
    let mut angular_d = [0.0; 3];
    let mut composite = [Composite {
        mass: 0.0,
        moment: [0.0; 3],
        inertia: ZERO,
    }; L];
    for body in &robot.bodies {
        let fr = &frames[body.link];
        // The rate of x = R y: Ω × x.
        let rate_of = |x: V3| cross(fr.w, x);
        let rc = apply(&fr.r, body.com);
        let r = add(fr.f, rc);
        let rd = add(fr.fd, rate_of(rc));
        let c = &mut composite[body.link];
        if body.mass > 0.0 {
            let m = body.mass;
            let cd = add(fr.v, cross(fr.w, r));
            let cdd = add(add(fr.vd, cross(fr.wd, r)), cross(fr.w, rd));
            h = add(h, scale(m, cd));
            hd = add(hd, scale(m, cdd));
            let lever = add(shift(body.link), r);
            angular_d = add(angular_d, scale(m, add(cross(rd, cd), cross(lever, cdd))));
            rho = add(rho, scale(m / total, lever));
            rhod = add(rhod, scale(m / total, rd));
            c.mass += m;
            c.moment = add(c.moment, scale(m, r));
            let rr = dot(r, r);
            add_symmetric(&mut c.inertia, |i, j| {
                let diagonal = if i == j { rr } else { 0.0 };
                m * (diagonal - r[i] * r[j])
            });
        }
        // R I Rᵀ: the rate of its product with ω, and the matrix itself.
        let (w, wd) = (fr.w, fr.wd);
        match body.inertia {
            Inertia::Zero => {}
            Inertia::Factored(factors) => {
                for &(d, l) in factors {
                    let a = apply(&fr.r, l);
                    let ad = rate_of(a);
                    let along = dot(a, w);
                    let along_d = dot(ad, w) + dot(a, wd);
                    angular_d = add(angular_d, add(scale(d * along_d, a), scale(d * along, ad)));
                    let da = scale(d, a);
                    add_symmetric(&mut c.inertia, |i, j| da[i] * a[j]);
                }
            }
            Inertia::Plain(tensor) => {
                // d/dt R (I (Rᵀ ω)), with Ṙᵀ ω = −Rᵀ (ω × ω) = 0.
                let body_w = apply_transposed(&fr.r, w);
                let spin = apply(&tensor, body_w);
                let body_wd = apply_transposed(&fr.r, wd);
                let spin_d = apply(&tensor, body_wd);
                angular_d = add(
                    angular_d,
                    add(rate_of(apply(&fr.r, spin)), apply(&fr.r, spin_d)),
                );
                let ri = product(&fr.r, &tensor);
                add_symmetric(&mut c.inertia, |i, j| dot(ri[i], fr.r[j]));
            }
        }
    }
    if total > 0.0 {
        angular_d = sub(angular_d, add(cross(rhod, h), cross(rho, hd)));
    }
    // The subtrees', leaves first, within the links that move.
    for l in (0..L).rev() {
        let parent = robot.links[l].parent;
        if parent != l && frames[parent].moves {
            let c = composite[l];
            let p = &mut composite[parent];
            p.mass += c.mass;
            p.moment = add(p.moment, c.moment);
            p.inertia = sum(&p.inertia, &c.inertia);
        }
    }
    let mut matrix = [[0.0; N]; 6];
    let mut column = |j: usize, linear: V3, angular: V3| {
        let angular = if total > 0.0 {
            sub(angular, cross(rho, linear))
        } else {
            angular
        };
        for k in 0..3 {
            matrix[k][j] = linear[k];
            matrix[3 + k][j] = angular[k];
        }
    };
    for (l, link) in robot.links.iter().enumerate() {
        let c = &composite[l];
        let fr = &frames[l];
        let shift = shift(l);
        // Σ m λ.
        let first = add(scale(c.mass, shift), c.moment);
        match link.joint {
            Joint::Root if robot.floating => {
                for k in 0..3 {
                    let mut e = [0.0; 3];
                    e[k] = 1.0;
                    column(k, scale(c.mass, e), cross(first, e));
                }
                for (k, spin) in base_spin.iter().enumerate() {
                    let linear = cross(*spin, c.moment);
                    column(3 + k, linear, apply(&c.inertia, *spin));
                }
            }
            Joint::Revolute {
                coordinate, along, ..
            } => {
                let a = apply(&frames[link.parent].r, along);
                let linear = cross(a, sub(c.moment, scale(c.mass, fr.f)));
                let angular = add(
                    add(cross(shift, linear), apply(&c.inertia, a)),
                    scale(-1.0, cross(c.moment, cross(a, fr.f))),
                );
                column(coordinate, linear, angular);
            }
            Joint::Prismatic { coordinate, along } => {
                let a = apply(&frames[link.parent].r, along);
                column(coordinate, scale(c.mass, a), cross(first, a));
            }
            Joint::Root | Joint::Fixed => {}
        }
    }
    Rows {
        matrix,
        drift: [
            hd[0],
            hd[1],
            hd[2],
            angular_d[0],
            angular_d[1],
            angular_d[2],
        ],
    }
}
