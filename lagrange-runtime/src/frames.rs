//! The rows of a URDF robot's link frames, `<link>_p` and `<link>_c` (a point fixed in a
//! link), for the generated `jacobians` of a robot too large to unroll them: from the
//! robot's tree ([`Robot`], the constant `lagrangian!` emits for its momenta,
//! `crate::centroidal`) in one pass down the tree, with no pass per coordinate. Not part of
//! the public API.
//!
//! The points are the `let`s the URDF writer (`lagrange-macros/src/urdf/writer.rs`)
//! declares: a link's origin `L_p`, the root's position plus the arms R_parent · xyz
//! (plus q a for a prismatic joint) down the tree, and `L_c = L_p + L_R · com`. Below the
//! root, everything is computed in the root's frame with the root held still, where every
//! rotation is proper: a point x(q) (from the reference point o, the origin of the nearest
//! link above that does not move, as the writer measures it), its rate and its
//! acceleration at q̈ = 0, and the column of a revolute joint of axis â through o_j, â ×
//! (x − o_j), or â of a prismatic one. A floating base's position p and the rotation
//! of its normalized quaternion R(n) = B(n, n) / |n|² (`quat(n) / |n|²`, `Base`) then
//! carry it to the world, as the `let`s do: p + R(n) x, whose columns along a joint are
//! R(n) times the root frame's, along p the identity, along n_k ∂R/∂n_k x, and whose drift
//! is R̈ x + 2 Ṙ ẋ + R(n) ẍ. The same functions of q as the `let`s, so the
//! same numbers as differentiating them, to rounding.

use crate::centroidal::{
    add, apply, cross, rotated, scale, sub, Base, Joint, Robot, IDENTITY, M3, V3,
};
use crate::jacobian::Jacobian;
use crate::model::Point;
use nalgebra::SVector;

/// How a link moves in the root's frame, the root held still.
#[derive(Clone, Copy)]
struct Motion {
    moves: bool,
    /// Its rotation.
    r: M3,
    /// Its origin from its reference point o, its rate and its acceleration at q̈ = 0.
    x: V3,
    xd: V3,
    xdd: V3,
    /// Its angular velocity and acceleration at q̈ = 0.
    w: V3,
    wd: V3,
    /// The unit axis of the joint from its parent.
    axis: V3,
    /// In the world's axes (a floating base's R(n) applied): the origin from o, and the
    /// column of the joint's axis (the unit axis of a revolute joint, R(n) times the axis
    /// of a prismatic one).
    x_world: V3,
    axis_world: V3,
}

/// A robot's links as they move at a point: what the rows of any point fixed in a link
/// are made of ([`Frames::point`]).
#[doc(hidden)]
pub struct Frames<'a, const L: usize, const B: usize> {
    robot: &'a Robot<L, B>,
    links: [Motion; L],
    base: Option<Base>,
}

impl<'a, const L: usize, const B: usize> Frames<'a, L, B> {
    /// The pass down the tree at `x`.
    #[must_use]
    pub fn new<const N: usize, const M: usize>(
        robot: &'a Robot<L, B>,
        x: &Point<f64, N, M>,
    ) -> Self {
        let still = Motion {
            moves: false,
            r: IDENTITY,
            x: [0.0; 3],
            xd: [0.0; 3],
            xdd: [0.0; 3],
            w: [0.0; 3],
            wd: [0.0; 3],
            axis: [0.0; 3],
            x_world: [0.0; 3],
            axis_world: [0.0; 3],
        };
        let mut links = [still; L];
        let base = robot.floating.then(|| Base::at(x));
        // R(n) (â × d) = (R(n) â) × (R(n) d): R(n) is a rotation.
        let world = base.as_ref().map_or(IDENTITY, |b| b.r);
        for (l, link) in robot.links.iter().enumerate() {
            if let Joint::Root = link.joint {
                links[l].moves = robot.floating;
                continue;
            }
            let parent = links[link.parent];
            // Below a link that does not move, o is its origin.
            let from = if parent.moves { parent.x } else { [0.0; 3] };
            let r = match &link.rpy {
                Some(rpy) => crate::centroidal::product(&parent.r, rpy),
                None => parent.r,
            };
            let (w, wd) = (parent.w, parent.wd);
            let mut m = Motion {
                moves: parent.moves,
                r,
                w,
                wd,
                ..still
            };
            let mut offset = link.xyz;
            match link.joint {
                Joint::Revolute {
                    coordinate,
                    axis,
                    along,
                } => {
                    let a = apply(&parent.r, along);
                    let qd = x.qd[coordinate];
                    m.moves = true;
                    m.r = rotated(&r, axis, x.q[coordinate]);
                    m.axis = a;
                    m.axis_world = apply(&world, a);
                    m.w = add(w, scale(qd, a));
                    m.wd = add(wd, scale(qd, cross(w, a)));
                }
                Joint::Prismatic { coordinate, along } => {
                    m.moves = true;
                    m.axis = apply(&parent.r, along);
                    m.axis_world = apply(&world, m.axis);
                    offset = add(offset, scale(x.q[coordinate], along));
                }
                Joint::Root | Joint::Fixed => {}
            }
            let arm = apply(&parent.r, offset);
            let turning = cross(w, arm);
            m.x = add(from, arm);
            m.x_world = apply(&world, m.x);
            m.xd = add(parent.xd, turning);
            m.xdd = add(parent.xdd, add(cross(wd, arm), cross(w, turning)));
            if let Joint::Prismatic { coordinate, .. } = link.joint {
                let slide = scale(x.qd[coordinate], m.axis);
                m.xd = add(m.xd, slide);
                m.xdd = add(m.xdd, scale(2.0, cross(w, slide)));
            }
            links[l] = m;
        }
        Frames { robot, links, base }
    }

    /// Writes the rows of the point at `offset` in the frame of link `link` (an index into
    /// [`Robot::links`]) into `target`, in place: `L_p` at the origin, `L_c` at the centre
    /// of mass. Only the columns of the coordinates that move the point are written: the
    /// others are left as they are, zeros in [`Jacobian::ZEROS`].
    #[inline]
    pub fn point<const N: usize>(&self, target: &mut Jacobian<3, N>, link: usize, offset: V3) {
        let m = &self.links[link];
        if !m.moves {
            target.drift = SVector::zeros();
            return;
        }
        let r = apply(&m.r, offset);
        let turning = cross(m.w, r);
        let x = add(m.x, r);
        let xd = add(m.xd, turning);
        let xdd = add(m.xdd, add(cross(m.wd, r), cross(m.w, turning)));
        let x_world = match &self.base {
            Some(base) => apply(&base.r, x),
            None => x,
        };
        let matrix = &mut target.matrix;
        let mut set = |c: usize, v: V3| {
            for (k, v) in v.into_iter().enumerate() {
                matrix[(k, c)] = v;
            }
        };
        let mut l = link;
        loop {
            let at = &self.links[l];
            let link = &self.robot.links[l];
            if link.parent == l || !at.moves {
                break;
            }
            match link.joint {
                Joint::Revolute { coordinate, .. } => {
                    set(coordinate, cross(at.axis_world, sub(x_world, at.x_world)));
                }
                Joint::Prismatic { coordinate, .. } => set(coordinate, at.axis_world),
                Joint::Root | Joint::Fixed => {}
            }
            l = link.parent;
        }
        let drift = match &self.base {
            Some(base) => {
                for k in 0..3 {
                    let mut e = [0.0; 3];
                    e[k] = 1.0;
                    set(k, e);
                }
                for (k, dr) in base.dr.iter().enumerate() {
                    set(3 + k, apply(dr, x));
                }
                add(
                    add(apply(&base.rdd, x), scale(2.0, apply(&base.rd, xd))),
                    apply(&base.r, xdd),
                )
            }
            None => xdd,
        };
        target.drift = SVector::from(drift);
    }
}

/// Adds `weight` times the Jacobian `source` to `target`, every row: a sum of points
/// with one weight per point (`urdf_com`).
#[doc(hidden)]
#[inline]
pub fn accumulate_all<const R: usize, const N: usize>(
    target: &mut Jacobian<R, N>,
    weight: f64,
    source: &Jacobian<R, N>,
) {
    let (to, from) = (target.matrix.as_mut_slice(), source.matrix.as_slice());
    for (t, s) in to.iter_mut().zip(from) {
        *t += weight * s;
    }
    for (t, s) in target.drift.iter_mut().zip(source.drift.iter()) {
        *t += weight * s;
    }
}

/// Adds `weight` times row `from` of `source` to row `to` of `target`: the rows of a `let`
/// that is a sum of points' elements with weights that do not move (`urdf_com`,
/// `urdf_potential`).
#[doc(hidden)]
#[inline]
pub fn accumulate<const R: usize, const S: usize, const N: usize>(
    target: &mut Jacobian<R, N>,
    to: usize,
    weight: f64,
    source: &Jacobian<S, N>,
    from: usize,
) {
    for c in 0..N {
        target.matrix[(to, c)] += weight * source.matrix[(from, c)];
    }
    target.drift[to] += weight * source.drift[from];
}
