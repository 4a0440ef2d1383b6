//! Calls of the language's functions (`sin`, `norm`, `cross`, `rot_z`, `quat`, …), whose
//! arguments typing has checked, and `dot`, the derivative along the motion.

use super::{Lowerer, Shape, Value};
use crate::ast::{Expr, Extent};
use crate::check::key;
use crate::func::{Func, Unary};
use crate::ir::{Deps, Jet1, Jet2, Op};
use syn::Ident;

impl<'a> Lowerer<'_, 'a, '_> {
    pub(super) fn call(&mut self, func: &Ident, args: &[Expr], at: Extent) -> Option<Value> {
        let f = Func::from_name(&key(func)).expect("the name check knows every function");
        if f == Func::Dot {
            return self.dot(&args[0], at);
        }
        let values: Vec<Option<Value>> = args.iter().map(|a| self.expr(a)).collect();
        let values: Vec<Value> = values.into_iter().collect::<Option<_>>()?;
        let x = |i: usize| values[i].elems[0];
        Some(match f {
            Func::Unary(u) => Value::scalar(self.node(Op::Unary(Jet1::Named(u), x(0)), at)),
            Func::Atan2 => Value::scalar(self.node(Op::Binary(Jet2::Atan2, x(0), x(1)), at)),
            Func::Hypot => {
                let squares = (0..2).map(|i| self.node(Op::Mul(x(i), x(i)), at)).collect();
                let sum = self.sum(squares, at);
                Value::scalar(self.node(Op::Unary(Jet1::Named(Unary::Sqrt), sum), at))
            }
            Func::Powi | Func::Powf => Value::scalar(self.power(x(0), x(1), &args[1], at)),
            Func::Diag => {
                let n = values.len();
                let zero = self.constant(0.0);
                let elems = (0..n * n)
                    .map(|k| if k % (n + 1) == 0 { x(k / n) } else { zero })
                    .collect();
                Value {
                    shape: Shape::Matrix(n, n),
                    elems,
                }
            }
            Func::RotX | Func::RotY | Func::RotZ => {
                let axis = match f {
                    Func::RotX => 0,
                    Func::RotY => 1,
                    _ => 2,
                };
                self.axis_rotation(axis, x(0), at)
            }
            Func::Rot => {
                let axis = &values[0].elems;
                let squares = axis
                    .iter()
                    .map(|&a| self.node(Op::Unary(Jet1::Powi(2), a), at))
                    .collect();
                let sum = self.sum(squares, at);
                let length = self.node(Op::Unary(Jet1::Named(Unary::Sqrt), sum), at);
                let n = [0, 1, 2].map(|i| self.node(Op::Div(axis[i], length), at));
                self.rotation(n, x(1), at)
            }
            Func::Rpy => {
                // rot_z(yaw) * rot_y(pitch) * rot_x(roll), URDF's convention.
                let [rx, ry, rz] = [0, 1, 2].map(|axis| self.axis_rotation(axis, x(axis), at));
                let zy = self.matrix_product(&rz, &ry, at);
                self.matrix_product(&zy, &rx, at)
            }
            Func::Inertia => {
                // ixx, ixy, ixz, iyy, iyz, izz: the upper triangle row by row.
                let [xx, xy, xz, yy, yz, zz] = [0, 1, 2, 3, 4, 5].map(x);
                Value {
                    shape: Shape::Matrix(3, 3),
                    elems: vec![xx, xy, xz, xy, yy, yz, xz, yz, zz],
                }
            }
            Func::Quat => self.quaternion([x(0), x(1), x(2), x(3)], at),
            Func::Inner => {
                let (a, b) = (values[0].elems.clone(), values[1].elems.clone());
                let terms = a
                    .iter()
                    .zip(&b)
                    .map(|(&p, &q)| self.node(Op::Mul(p, q), at))
                    .collect();
                Value::scalar(self.sum(terms, at))
            }
            Func::Cross => {
                let (a, b) = (&values[0].elems, &values[1].elems);
                let elems = (0..3)
                    .map(|i| {
                        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
                        let p = self.node(Op::Mul(a[j], b[k]), at);
                        let q = self.node(Op::Mul(a[k], b[j]), at);
                        self.node(Op::Sub(p, q), at)
                    })
                    .collect();
                Value {
                    shape: Shape::Vector(3),
                    elems,
                }
            }
            Func::Norm => {
                let squares = values[0]
                    .elems
                    .iter()
                    .map(|&a| self.node(Op::Unary(Jet1::Powi(2), a), at))
                    .collect();
                let sum = self.sum(squares, at);
                Value::scalar(self.node(Op::Unary(Jet1::Named(Unary::Sqrt), sum), at))
            }
            Func::Transpose => {
                let Shape::Matrix(r, c) = values[0].shape else {
                    unreachable!("checked above")
                };
                let a = &values[0].elems;
                Value {
                    shape: Shape::Matrix(c, r),
                    elems: (0..r * c).map(|k| a[(k % r) * c + k / r]).collect(),
                }
            }
            Func::AngularVelocity | Func::BodyAngularVelocity => {
                let body = f == Func::BodyAngularVelocity;
                let rotation = &args[0];
                if !self.moving_rotation(rotation, &values[0], &format!("`{}` takes", f.name())) {
                    return None;
                }
                self.angular_velocity(&values[0].elems, body, at)
            }
            Func::Dot => unreachable!("handled above"),
        })
    }

    /// `dot(e)`, element by element; an element that does not move has derivative 0.
    /// Typing has refused `dot` of time, a parameter or an input by name.
    fn dot(&mut self, arg: &Expr, at: Extent) -> Option<Value> {
        let v = self.expr(arg)?;
        let deps = self.deps_of(&v);
        if deps.has(Deps::QD) {
            self.errors.spanning(
                arg.extent(),
                "`dot` of an expression that depends on velocities would need accelerations",
            );
            return None;
        }
        if deps.has(Deps::U) {
            self.errors.spanning(
                arg.extent(),
                "`dot` of an expression that depends on an input: inputs have no known time derivative",
            );
            return None;
        }
        Some(self.map(&v, |s, x| s.node(Op::Dot(x), at)))
    }
}
