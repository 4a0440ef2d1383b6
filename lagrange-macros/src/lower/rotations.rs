//! Rotations and their algebra: elementary rotations, rotations about an axis, unit
//! quaternions as rotation matrices, and the angular velocity of a rotation matrix.

use super::{Lowerer, Shape, Value};
use crate::ast::{Expr, Extent};
use crate::func::Unary;
use crate::ir::{Deps, Id, Jet1, Op};

impl<'a> Lowerer<'_, 'a, '_> {
    /// The rotation by `angle` about coordinate axis `axis`, right-handed, entry by entry
    /// (so that the axis entries are literal ones and zeros).
    pub(super) fn axis_rotation(&mut self, axis: usize, angle: Id, at: Extent) -> Value {
        let c = self.node(Op::Unary(Jet1::Named(Unary::Cos), angle), at);
        let s = self.node(Op::Unary(Jet1::Named(Unary::Sin), angle), at);
        let minus_s = self.node(Op::Neg(s), at);
        let (zero, one) = (self.constant(0.0), self.constant(1.0));
        let mut elems = vec![zero; 9];
        // With (a, i, j) cyclic: R_aa = 1, R_ii = R_jj = cos, R_ji = sin, R_ij = −sin.
        let (i, j) = ((axis + 1) % 3, (axis + 2) % 3);
        elems[4 * axis] = one;
        elems[4 * i] = c;
        elems[4 * j] = c;
        elems[3 * j + i] = s;
        elems[3 * i + j] = minus_s;
        Value {
            shape: Shape::Matrix(3, 3),
            elems,
        }
    }

    /// Rodrigues' formula for a unit axis n: R = cos a I + sin a [n]× + (1 − cos a) n nᵀ.
    pub(super) fn rotation(&mut self, n: [Id; 3], angle: Id, at: Extent) -> Value {
        let c = self.node(Op::Unary(Jet1::Named(Unary::Cos), angle), at);
        let s = self.node(Op::Unary(Jet1::Named(Unary::Sin), angle), at);
        let one = self.constant(1.0);
        let versine = self.node(Op::Sub(one, c), at);
        let mut elems = Vec::with_capacity(9);
        for i in 0..3 {
            for j in 0..3 {
                let outer = self.node(Op::Mul(n[i], n[j]), at);
                let mut entry = self.node(Op::Mul(versine, outer), at);
                if i == j {
                    entry = self.node(Op::Add(c, entry), at);
                } else {
                    // [n]×[i][j] = −ε_ijk n_k: +n_k for (i, j, k) cyclic, −n_k otherwise.
                    let k = 3 - i - j;
                    let cross = self.node(Op::Mul(s, n[k]), at);
                    let op = if (i + 1) % 3 == j {
                        Op::Sub(entry, cross)
                    } else {
                        Op::Add(entry, cross)
                    };
                    entry = self.node(op, at);
                }
                elems.push(entry);
            }
        }
        Value {
            shape: Shape::Matrix(3, 3),
            elems,
        }
    }

    /// The rotation matrix of the unit quaternion w + x i + y j + z k, in the homogeneous
    /// form (diagonal w² + x² − y² − z², …): off the unit sphere it is the rotation times
    /// |n|², so that R(a ⊗ n) = R(a) R(n) for every n. The rotational symmetry of a model
    /// then holds off the constraint too, and the momentum it conserves is conserved by
    /// integrators that evaluate between steps (RATTLE's midpoint); the kinetic energy
    /// ignores the quaternion's length (its mass matrix has the null vector n).
    pub(super) fn quaternion(&mut self, [w, x, y, z]: [Id; 4], at: Extent) -> Value {
        let two = self.constant(2.0);
        let twice = |s: &mut Self, a: Id, b: Id| {
            let p = s.node(Op::Mul(a, b), at);
            s.node(Op::Mul(two, p), at)
        };
        let square = |s: &mut Self, a: Id| s.node(Op::Mul(a, a), at);
        let (ww, xx, yy, zz) = (
            square(self, w),
            square(self, x),
            square(self, y),
            square(self, z),
        );
        let (xy, xz, yz) = (twice(self, x, y), twice(self, x, z), twice(self, y, z));
        let (wx, wy, wz) = (twice(self, w, x), twice(self, w, y), twice(self, w, z));
        // (w² + a²) − (b² + c²)
        let diagonal = |s: &mut Self, a: Id, b: Id, c: Id| {
            let plus = s.node(Op::Add(ww, a), at);
            let minus = s.node(Op::Add(b, c), at);
            s.node(Op::Sub(plus, minus), at)
        };
        let d = [
            diagonal(self, xx, yy, zz),
            diagonal(self, yy, xx, zz),
            diagonal(self, zz, xx, yy),
        ];
        let mut elems = vec![d[0], 0, 0, 0, d[1], 0, 0, 0, d[2]];
        // R01 = 2(xy − wz), R10 = 2(xy + wz), R02 = 2(xz + wy), R20 = 2(xz − wy),
        // R12 = 2(yz − wx), R21 = 2(yz + wx).
        let off_diagonal = [
            (1, xy, wz, false),
            (3, xy, wz, true),
            (2, xz, wy, true),
            (6, xz, wy, false),
            (5, yz, wx, false),
            (7, yz, wx, true),
        ];
        for (k, a, b, plus_first) in off_diagonal {
            let op = if plus_first {
                Op::Add(a, b)
            } else {
                Op::Sub(a, b)
            };
            elems[k] = self.node(op, at);
        }
        Value {
            shape: Shape::Matrix(3, 3),
            elems,
        }
    }

    /// ω with Ṙ Rᵀ = [ω]× (or ω_b with Rᵀ Ṙ = [ω_b]×), from the antisymmetric part.
    pub(super) fn angular_velocity(&mut self, r: &[Id], body: bool, at: Extent) -> Value {
        let rd: Vec<Id> = r.iter().map(|&x| self.node(Op::Dot(x), at)).collect();
        let w = |s: &mut Self, i: usize, j: usize| {
            let terms = (0..3)
                .map(|k| {
                    let op = if body {
                        Op::Mul(r[3 * k + i], rd[3 * k + j])
                    } else {
                        Op::Mul(rd[3 * i + k], r[3 * j + k])
                    };
                    s.node(op, at)
                })
                .collect();
            s.sum(terms, at)
        };
        let half = self.constant(0.5);
        let elems = [(2, 1), (0, 2), (1, 0)]
            .into_iter()
            .map(|(i, j)| {
                let a = w(self, i, j);
                let b = w(self, j, i);
                let d = self.node(Op::Sub(a, b), at);
                self.node(Op::Mul(half, d), at)
            })
            .collect();
        Value {
            shape: Shape::Vector(3),
            elems,
        }
    }

    /// A rotation whose angular velocity is taken must depend on no velocity or input;
    /// `what` says who takes it.
    pub(super) fn moving_rotation(&mut self, e: &Expr, v: &Value, what: &str) -> bool {
        let deps = self.deps_of(v);
        let problem = if deps.has(Deps::QD) {
            "velocities: its time derivative would need accelerations"
        } else if deps.has(Deps::U) {
            "an input, and inputs have no known time derivative"
        } else {
            return true;
        };
        self.errors.spanning(
            e.extent(),
            format!("{what} a rotation R(q, t), which cannot depend on {problem}"),
        );
        false
    }
}
