//! Expressions: names, arithmetic of scalars, vectors and matrices element by element
//! (sums, products, quotients, powers), lists, indexing and components.

use super::{Lowerer, Shape, Value, MAX_POWI};
use crate::ast::{BinOp, Expr, Extent};
use crate::check::{key, Symbol};
use crate::func::Builtin;
use crate::ir::{Id, Jet1, Jet2, Op};
use crate::typing::component_index;
use syn::Ident;

impl<'a> Lowerer<'_, 'a, '_> {
    /// The value of `e`, or `None` when it breaks a rule of what it may depend on
    /// (reported). Typing has checked its shapes.
    pub(super) fn expr(&mut self, e: &Expr) -> Option<Value> {
        let at = e.extent();
        match e {
            Expr::Number(n) => Some(Value::scalar(self.node(Op::lit(n.value), at))),
            Expr::Name(ident) => self.name(ident, at),
            Expr::Paren { inner, .. } => self.expr(inner),
            Expr::Neg { operand, .. } => {
                let v = self.expr(operand)?;
                Some(self.map(&v, |s, x| s.node(Op::Neg(x), at)))
            }
            Expr::Binary { op, lhs, rhs, .. } => {
                let (l, r) = (self.expr(lhs), self.expr(rhs));
                let (l, r) = (l?, r?);
                Some(match op {
                    BinOp::Add | BinOp::Sub => self.add(*op, &l, &r, at),
                    BinOp::Mul => self.mul(&l, &r, at),
                    BinOp::Div => self.div(&l, &r, at),
                    BinOp::Pow => self.pow(&l, rhs, &r, at),
                })
            }
            Expr::Call { func, args, .. } => self.call(func, args, at),
            Expr::List { items, .. } => self.list(items),
            Expr::Index { base, indices, .. } => Some(Self::index(&self.expr(base)?, indices)),
            Expr::Component { base, name } => {
                let v = self.expr(base)?;
                let i = component_index(name).expect("typing checks the components");
                Some(Value::scalar(v.elems[i]))
            }
            // Units matter to typing only.
            Expr::Quantity { value, .. } => self.expr(value),
        }
    }

    pub(super) fn name(&mut self, ident: &Ident, at: Extent) -> Option<Value> {
        let op = match Builtin::from_name(&key(ident)) {
            Some(Builtin::Time) => Op::Time,
            Some(Builtin::Pi) => Op::lit(std::f64::consts::PI),
            None => match self.c.symbol(ident)? {
                Symbol::Parameter(i) => Op::Param(i),
                Symbol::Coordinate(i) => Op::Coord(i),
                Symbol::Input(i) => Op::Input(i),
                Symbol::Let(i) => return self.lets[i].clone(),
                Symbol::Constraint(_) | Symbol::Contact(_) => return None,
            },
        };
        Some(Value::scalar(self.node(op, at)))
    }

    pub(super) fn add(&mut self, op: BinOp, l: &Value, r: &Value, at: Extent) -> Value {
        let elems = l
            .elems
            .iter()
            .zip(&r.elems)
            .map(|(&x, &y)| {
                let op = if op == BinOp::Add {
                    Op::Add(x, y)
                } else {
                    Op::Sub(x, y)
                };
                self.node(op, at)
            })
            .collect();
        Value {
            shape: l.shape,
            elems,
        }
    }

    fn mul(&mut self, l: &Value, r: &Value, at: Extent) -> Value {
        use Shape::*;
        match (l.shape, r.shape) {
            (Scalar, _) => self.map(r, |s, x| s.node(Op::Mul(l.elems[0], x), at)),
            (_, Scalar) => self.map(l, |s, x| s.node(Op::Mul(x, r.elems[0]), at)),
            (Matrix(rows, n), Vector(_)) => Value {
                shape: Vector(rows),
                elems: (0..rows)
                    .map(|i| {
                        let terms = (0..n)
                            .map(|k| self.node(Op::Mul(l.elems[i * n + k], r.elems[k]), at))
                            .collect();
                        self.sum(terms, at)
                    })
                    .collect(),
            },
            (Matrix(..), Matrix(..)) => self.matrix_product(l, r, at),
            (Vector(_), _) => unreachable!("typing refuses these products"),
        }
    }

    /// The product of two matrices whose inner sizes agree.
    pub(super) fn matrix_product(&mut self, l: &Value, r: &Value, at: Extent) -> Value {
        let (Shape::Matrix(rows, n), Shape::Matrix(_, cols)) = (l.shape, r.shape) else {
            unreachable!("the callers check the shapes")
        };
        let mut elems = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            for j in 0..cols {
                let terms = (0..n)
                    .map(|k| self.node(Op::Mul(l.elems[i * n + k], r.elems[k * cols + j]), at))
                    .collect();
                elems.push(self.sum(terms, at));
            }
        }
        Value {
            shape: Shape::Matrix(rows, cols),
            elems,
        }
    }

    fn div(&mut self, l: &Value, r: &Value, at: Extent) -> Value {
        self.map(l, |s, x| s.node(Op::Div(x, r.elems[0]), at))
    }

    fn pow(&mut self, l: &Value, b: &Expr, r: &Value, at: Extent) -> Value {
        match l.shape {
            Shape::Scalar => Value::scalar(self.power(l.elems[0], r.elems[0], b, at)),
            // `v^2`, the squared length: typing allows no other power of a vector.
            _ => {
                let squares = l
                    .elems
                    .iter()
                    .map(|&x| self.node(Op::Unary(Jet1::Powi(2), x), at))
                    .collect();
                Value::scalar(self.sum(squares, at))
            }
        }
    }

    /// `base^exponent` of scalars: an integer literal exponent is an integer power.
    pub(super) fn power(&mut self, base: Id, exponent: Id, written: &Expr, at: Extent) -> Id {
        match written.integer().filter(|n| n.unsigned_abs() <= MAX_POWI) {
            Some(n) => self.node(Op::Unary(Jet1::Powi(n), base), at),
            None => self.node(Op::Binary(Jet2::Powd, base, exponent), at),
        }
    }

    fn list(&mut self, items: &[Expr]) -> Option<Value> {
        let values: Vec<Option<Value>> = items.iter().map(|i| self.expr(i)).collect();
        let values: Vec<Value> = values.into_iter().collect::<Option<_>>()?;
        let shape = match values[0].shape {
            Shape::Vector(n) => Shape::Matrix(values.len(), n),
            _ => Shape::Vector(values.len()),
        };
        Some(Value {
            shape,
            elems: values.into_iter().flat_map(|v| v.elems).collect(),
        })
    }

    /// `v[i]` or `A[i, j]`, in range (typing checked).
    fn index(v: &Value, indices: &[crate::ast::Index]) -> Value {
        let element = match (v.shape, indices) {
            (Shape::Matrix(_, c), [i, j]) => v.elems[i.value * c + j.value],
            (_, [i]) => v.elems[i.value],
            _ => unreachable!("typing checks the indices"),
        };
        Value::scalar(element)
    }
}
