//! Expressions: names, arithmetic with the shape rules of scalars, vectors and matrices
//! (sums, products, quotients, powers), lists, indexing and components.

use super::{quoted, Lowerer, Shape, Value, MAX_POWI};
use crate::ast::{BinOp, Expr, Extent};
use crate::check::{key, Symbol};
use crate::func::{Builtin, Func};
use crate::ir::{Id, Jet1, Jet2, Op};
use syn::Ident;

impl<'a> Lowerer<'_, 'a, '_> {
    /// The value of `e`, or `None` when it has an error (already reported).
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
                match op {
                    BinOp::Add | BinOp::Sub => self.add(*op, lhs, &l, rhs, &r, at),
                    BinOp::Mul => self.mul(lhs, &l, rhs, &r, at),
                    BinOp::Div => self.div(&l, rhs, &r, at),
                    BinOp::Pow => self.pow(lhs, &l, rhs, &r, at),
                }
            }
            Expr::Call { func, args, .. } => self.call(func, args, at),
            Expr::List { items, .. } => self.list(items),
            Expr::Index { base, indices, .. } => {
                let v = self.expr(base)?;
                self.index(base, &v, indices, at)
            }
            Expr::Component { base, name } => {
                let v = self.expr(base)?;
                self.component(base, &v, name)
            }
            // Units matter to the dimension check only.
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
                Symbol::Constraint(_) => return None,
            },
        };
        Some(Value::scalar(self.node(op, at)))
    }

    pub(super) fn mismatch(
        &mut self,
        at: Extent,
        a: &Expr,
        sa: Shape,
        b: &Expr,
        sb: Shape,
        hint: &str,
    ) {
        let (a, b) = (quoted(a, "the left side"), quoted(b, "the right side"));
        self.errors.spanning(
            at,
            format!("mismatched shapes: {a} is {sa}, {b} is {sb}{hint}"),
        );
    }

    pub(super) fn add(
        &mut self,
        op: BinOp,
        a: &Expr,
        l: &Value,
        b: &Expr,
        r: &Value,
        at: Extent,
    ) -> Option<Value> {
        if l.shape != r.shape {
            let note = if op == BinOp::Add {
                "\n= note: `+` adds values of one shape"
            } else {
                "\n= note: `-` subtracts values of one shape"
            };
            self.mismatch(at, a, l.shape, b, r.shape, note);
            return None;
        }
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
        Some(Value {
            shape: l.shape,
            elems,
        })
    }

    fn mul(&mut self, a: &Expr, l: &Value, b: &Expr, r: &Value, at: Extent) -> Option<Value> {
        use Shape::*;
        match (l.shape, r.shape) {
            (Scalar, _) => Some(self.map(r, |s, x| s.node(Op::Mul(l.elems[0], x), at))),
            (_, Scalar) => Some(self.map(l, |s, x| s.node(Op::Mul(x, r.elems[0]), at))),
            (Matrix(rows, n), Vector(m)) if n == m => Some(Value {
                shape: Vector(rows),
                elems: (0..rows)
                    .map(|i| {
                        let terms = (0..n)
                            .map(|k| self.node(Op::Mul(l.elems[i * n + k], r.elems[k]), at))
                            .collect();
                        self.sum(terms, at)
                    })
                    .collect(),
            }),
            (Matrix(_, n), Matrix(m, _)) if n == m => Some(self.matrix_product(l, r, at)),
            (Vector(_), Vector(_)) => {
                let hint = format!("\n= help: a product of two vectors is `inner({a}, {b})` (a scalar) or `cross({a}, {b})` (a vector)");
                if l.shape == r.shape {
                    // Not "`a` is a vector of 3, `b` is a vector of 3": equal shapes are
                    // no mismatch of sizes, `*` takes no two vectors.
                    let (qa, qb) = (quoted(a, "the left side"), quoted(b, "the right side"));
                    self.errors.spanning(
                        at,
                        format!("mismatched shapes: `*` of two vectors ({qa} and {qb}, each {}) is not defined{hint}", l.shape),
                    );
                } else {
                    self.mismatch(at, a, l.shape, b, r.shape, &hint);
                }
                None
            }
            (Vector(_), Matrix(..)) => {
                self.mismatch(at, a, l.shape, b, r.shape, "\n= note: vectors are columns: a matrix multiplies a vector from the left, as in `transpose(A) * v`");
                None
            }
            (Matrix(..), Vector(_)) => {
                self.mismatch(at, a, l.shape, b, r.shape, "\n= note: a matrix times a vector needs as many columns as the vector has elements");
                None
            }
            (Matrix(..), Matrix(..)) => {
                self.mismatch(at, a, l.shape, b, r.shape, "\n= note: in a product of matrices the columns of the left must equal the rows of the right");
                None
            }
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

    fn div(&mut self, l: &Value, b: &Expr, r: &Value, at: Extent) -> Option<Value> {
        if r.shape != Shape::Scalar {
            let divisor = quoted(b, "the divisor");
            self.errors.spanning(
                at,
                format!("`/` divides by a scalar, {divisor} is {}", r.shape),
            );
            return None;
        }
        Some(self.map(l, |s, x| s.node(Op::Div(x, r.elems[0]), at)))
    }

    fn pow(&mut self, a: &Expr, l: &Value, b: &Expr, r: &Value, at: Extent) -> Option<Value> {
        if r.shape != Shape::Scalar {
            let exponent = quoted(b, "the exponent");
            self.errors.spanning(
                at,
                format!("an exponent is a scalar, {exponent} is {}", r.shape),
            );
            return None;
        }
        match l.shape {
            Shape::Scalar => Some(Value::scalar(self.power(l.elems[0], r.elems[0], b, at))),
            Shape::Vector(_) if b.integer() == Some(2) => {
                let squares = l
                    .elems
                    .iter()
                    .map(|&x| self.node(Op::Unary(Jet1::Powi(2), x), at))
                    .collect();
                Some(Value::scalar(self.sum(squares, at)))
            }
            shape => {
                let what = quoted(a, "the base");
                self.errors.spanning(
                    at,
                    format!("{what} is {shape}: the only power of a vector is `v^2`, its squared length, and matrices have none"),
                );
                None
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
        let first = values[0].shape;
        let mut ok = true;
        for (item, v) in items.iter().zip(&values) {
            let fits = match (first, v.shape) {
                (Shape::Scalar, Shape::Scalar) => true,
                (Shape::Vector(n), Shape::Vector(m)) => n == m,
                _ => false,
            };
            if let Shape::Matrix(..) = v.shape {
                self.errors.spanning(
                    item.extent(),
                    format!("{} is {}: the elements of a bracket list are scalars (a vector) or vectors of one length (the rows of a matrix)", quoted(item, "this element"), v.shape),
                );
                ok = false;
            } else if !fits && !matches!(first, Shape::Matrix(..)) {
                self.mismatch(
                    item.extent(),
                    &items[0],
                    first,
                    item,
                    v.shape,
                    "\n= note: the elements of a bracket list are scalars (a vector) or vectors of one length (the rows of a matrix)",
                );
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        let shape = match first {
            Shape::Vector(n) => Shape::Matrix(values.len(), n),
            _ => Shape::Vector(values.len()),
        };
        Some(Value {
            shape,
            elems: values.into_iter().flat_map(|v| v.elems).collect(),
        })
    }

    fn index(
        &mut self,
        base: &Expr,
        v: &Value,
        indices: &[crate::ast::Index],
        at: Extent,
    ) -> Option<Value> {
        let what = quoted(base, "this value");
        let element = match (v.shape, indices) {
            (Shape::Vector(n), [i]) if i.value < n => v.elems[i.value],
            (Shape::Vector(n), [i]) => {
                self.errors.at(
                    i.span,
                    format!(
                        "index {} is out of range: {what} is a vector of {n} (indices 0 to {})",
                        i.value,
                        n - 1
                    ),
                );
                return None;
            }
            (Shape::Matrix(r, c), [i, j]) => {
                for (k, len) in [(i, r), (j, c)] {
                    if k.value >= len {
                        self.errors.at(k.span, format!("index {} is out of range: {what} is a {r}×{c} matrix (rows 0 to {}, columns 0 to {})", k.value, r - 1, c - 1));
                        return None;
                    }
                }
                v.elems[i.value * c + j.value]
            }
            (Shape::Vector(n), _) => {
                self.errors.spanning(
                    at,
                    format!("{what} is a vector of {n}: an element is `v[i]`, with one index"),
                );
                return None;
            }
            (Shape::Matrix(r, c), _) => {
                self.errors.spanning(
                    at,
                    format!(
                        "{what} is a {r}×{c} matrix: an element is `A[i, j]`, with two indices"
                    ),
                );
                return None;
            }
            (Shape::Scalar, _) => {
                self.errors.spanning(
                    at,
                    format!("{what} is a scalar and has no elements to index"),
                );
                return None;
            }
        };
        Some(Value::scalar(element))
    }

    fn component(&mut self, base: &Expr, v: &Value, name: &Ident) -> Option<Value> {
        let what = quoted(base, "this value");
        let valid = |n: usize| {
            if n == 2 {
                "`.x` and `.y`"
            } else {
                "`.x`, `.y` and `.z`"
            }
        };
        let index = ["x", "y", "z"].iter().position(|c| name == c);
        // A function name after `.` without parentheses was probably meant as a call.
        let call = Func::from_name(&key(name))
            .map(|_| format!("\n= help: a method call is written with parentheses: `.{name}()`"))
            .unwrap_or_default();
        match (v.shape, index) {
            (Shape::Vector(n @ (2 | 3)), Some(i)) if i < n => Some(Value::scalar(v.elems[i])),
            (Shape::Vector(n @ (2 | 3)), _) => {
                self.errors.at(
                    name.span(),
                    format!("unknown component `.{name}`: {what} is a vector of {n}, with components {}{call}", valid(n)),
                );
                None
            }
            (shape, _) => {
                self.errors.at(
                    name.span(),
                    format!("{what} is {shape}: components `.x`, `.y`, `.z` name the elements of vectors of 2 or 3; index others as `v[i]`{call}"),
                );
                None
            }
        }
    }
}
