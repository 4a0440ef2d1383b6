//! The node arena as lowering writes it: every node through [`Lowerer::node`], which folds
//! literal arithmetic and the identities of 0 and 1 before adding the rest to the model's
//! [`Ir`](crate::ir::Ir), and the analysis only lowering's rules read (how a node depends
//! on the velocities, [`Degree`]).

use super::{Degree, Lowerer, Value};
use crate::ast::Extent;
use crate::func::Unary;
use crate::ir::{Deps, Id, Jet1, Jet2, Op};

impl<'a> Lowerer<'_, 'a, '_> {
    pub(super) fn node(&mut self, op: Op, at: Extent) -> Id {
        if let Some(id) = self.fold(op, at) {
            return id;
        }
        self.insert(op, at)
    }

    /// The node of `op` as written, without folding: the existing one if the graph has it.
    fn insert(&mut self, op: Op, at: Extent) -> Id {
        if let Some(id) = self.ir.find(op) {
            return id;
        }
        let degree = self.analyse(op, self.ir.len());
        let id = self.ir.add(op);
        self.degree.push(degree);
        self.at.push(at);
        id
    }

    pub(super) fn constant(&mut self, value: f64) -> Id {
        let at = self.at.first().copied().unwrap_or(Extent(
            proc_macro2::Span::call_site(),
            proc_macro2::Span::call_site(),
        ));
        self.node(Op::lit(value), at)
    }

    pub(super) fn literal(&self, id: Id) -> Option<f64> {
        self.ir.op(id).literal()
    }

    /// `s` if node `id` is `sqrt(s)` of an `s` that is never negative (a sum of squares:
    /// `norm`, `hypot`), whose even powers are those of `s`: `norm(v)^2` is `v·v`. The
    /// rewrite is what makes them evaluate where s = 0: sqrt′(0) is infinite, and the chain
    /// rule through it gives ∞ · 0 = NaN for the derivatives of a smooth `norm(v)^2` at
    /// v = 0 (the mass matrix of `m/2 * norm(dot(p))^2` at rest). Not for an `s` that can
    /// be negative: `sqrt(x)^2` is NaN there, and stays so.
    fn root_of_nonnegative(&self, id: Id) -> Option<Id> {
        match self.ir.op(id) {
            Op::Unary(Jet1::Named(Unary::Sqrt), s) if self.nonnegative(s) => Some(s),
            _ => None,
        }
    }

    /// Whether node `id` is never negative by its form: even powers and squares, and sums,
    /// products and quotients of such, looked at through at most [`NONNEGATIVE_NODES`]
    /// nodes (a bound, so that the look never grows with the model; a stack, not recursion:
    /// a sum of n squares is a chain of n − 1 additions).
    fn nonnegative(&self, id: Id) -> bool {
        let mut stack = vec![id];
        let mut looked = 0;
        while let Some(id) = stack.pop() {
            looked += 1;
            if looked > NONNEGATIVE_NODES {
                return false;
            }
            match self.ir.op(id) {
                Op::Lit(_) if self.literal(id).is_some_and(|x| x >= 0.0) => {}
                Op::Unary(Jet1::Powi(n), _) if n % 2 == 0 => {}
                Op::Unary(Jet1::Powi(_), a) => stack.push(a),
                Op::Mul(a, b) if a == b => {}
                Op::Add(a, b) | Op::Mul(a, b) | Op::Div(a, b) => stack.extend([a, b]),
                Op::Unary(Jet1::Named(Unary::Sqrt | Unary::Exp | Unary::Abs | Unary::Cosh), _) => {}
                _ => return false,
            }
        }
        true
    }

    /// Literal arithmetic, and the identities of 0 and 1 that make vector code as short
    /// as code written by hand. A literal result that is not finite is left to run time.
    fn fold(&mut self, op: Op, at: Extent) -> Option<Id> {
        let finite = |v: f64| Some(v).filter(|v| v.is_finite());
        let lit = |id: Id| self.literal(id);
        // (b + y) − b and (y + b) − b are y: the position of a link from its robot's mount,
        // written as the mount's plus the arms (`urdf/`), is the arms.
        if let Op::Sub(a, b) = op {
            if let Op::Add(x, y) = self.ir.op(a) {
                if x == b {
                    return Some(y);
                }
                if y == b {
                    return Some(x);
                }
            }
        }
        let value = match op {
            Op::Neg(a) => match self.ir.op(a) {
                Op::Neg(b) => return Some(b),
                _ => lit(a).map(|x| -x),
            },
            Op::Add(a, b) => match (lit(a), lit(b)) {
                (Some(x), Some(y)) => finite(x + y),
                (Some(0.0), _) => return Some(b),
                (_, Some(0.0)) => return Some(a),
                _ => None,
            },
            Op::Sub(a, b) => match (lit(a), lit(b)) {
                (Some(x), Some(y)) => finite(x - y),
                (_, Some(0.0)) => return Some(a),
                (Some(0.0), _) => return Some(self.node(Op::Neg(b), at)),
                _ => None,
            },
            Op::Mul(a, b) if a == b && self.root_of_nonnegative(a).is_some() => {
                return self.root_of_nonnegative(a);
            }
            Op::Mul(a, b) => match (lit(a), lit(b)) {
                (Some(x), Some(y)) => finite(x * y),
                (Some(0.0), _) | (_, Some(0.0)) => Some(0.0),
                (Some(1.0), _) => return Some(b),
                (_, Some(1.0)) => return Some(a),
                (Some(-1.0), _) => return Some(self.node(Op::Neg(b), at)),
                (_, Some(-1.0)) => return Some(self.node(Op::Neg(a), at)),
                _ => None,
            },
            Op::Div(a, b) => match (lit(a), lit(b)) {
                (Some(x), Some(y)) => finite(x / y),
                (_, Some(1.0)) => return Some(a),
                (Some(0.0), _) => Some(0.0),
                _ => None,
            },
            Op::Unary(Jet1::Named(f), a) => lit(a).and_then(|x| finite(f.eval(x))),
            Op::Unary(Jet1::Powi(n), a)
                if n != 0 && n % 2 == 0 && self.root_of_nonnegative(a).is_some() =>
            {
                let radicand = self.root_of_nonnegative(a)?;
                return Some(self.node(Op::Unary(Jet1::Powi(n / 2), radicand), at));
            }
            Op::Unary(Jet1::Powi(n), a) => match lit(a) {
                Some(x) => finite(x.powi(n)),
                None if n == 1 => return Some(a),
                None => None,
            },
            Op::Binary(Jet2::Powd, a, e) => match (lit(a), lit(e)) {
                (Some(x), Some(y)) => finite(x.powf(y)),
                _ => None,
            },
            Op::Binary(Jet2::Atan2, y, x) => match (lit(y), lit(x)) {
                (Some(y), Some(x)) if x != 0.0 || y != 0.0 => finite(y.atan2(x)),
                _ => None,
            },
            // The time derivative of what does not move is zero.
            Op::Dot(a) if !self.ir.deps(a).moves() => Some(0.0),
            Op::Lit(_) | Op::Param(_) | Op::Coord(_) | Op::Input(_) | Op::Time | Op::Dot(_) => None,
            // Lowering does not write these (the derivative construction does).
            Op::Vel(_) | Op::D1(_) | Op::P1(..) | Op::Unary(Jet1::Recip | Jet1::Powf(_), _) => None,
        };
        value.map(|v| self.insert(Op::lit(v), at))
    }

    /// How a new node `id` made of `op` depends on the velocities.
    fn analyse(&self, op: Op, id: Id) -> Degree {
        let degree = |a: Id| self.degree[a];
        // A function of velocities other than a product by something free of them.
        let nonlinear_unless_zero = |ds: &[Degree]| {
            if let Some(d) = ds.iter().find(|d| matches!(d, Degree::Nonlinear(_))) {
                *d
            } else if ds.iter().all(|d| *d == Degree::Zero) {
                Degree::Zero
            } else {
                Degree::Nonlinear(id)
            }
        };
        match op {
            Op::Lit(_) | Op::Param(_) | Op::Coord(_) | Op::Input(_) | Op::Time => Degree::Zero,
            Op::Dot(_) | Op::Vel(_) => Degree::Affine,
            Op::Neg(a) => degree(a),
            Op::Add(a, b) | Op::Sub(a, b) => match (degree(a), degree(b)) {
                (n @ Degree::Nonlinear(_), _) | (_, n @ Degree::Nonlinear(_)) => n,
                (Degree::Affine, _) | (_, Degree::Affine) => Degree::Affine,
                _ => Degree::Zero,
            },
            Op::Mul(a, b) => match (degree(a), degree(b)) {
                (n @ Degree::Nonlinear(_), _) | (_, n @ Degree::Nonlinear(_)) => n,
                (Degree::Zero, d) | (d, Degree::Zero) => d,
                _ => Degree::Nonlinear(id),
            },
            Op::Div(a, b) => match (degree(a), degree(b)) {
                (n @ Degree::Nonlinear(_), _) | (_, n @ Degree::Nonlinear(_)) => n,
                (d, Degree::Zero) => d,
                _ => Degree::Nonlinear(id),
            },
            Op::Unary(_, _) | Op::Binary(..) | Op::D1(_) | Op::P1(..) => {
                let operands: Vec<Degree> = op.operands().into_iter().map(degree).collect();
                nonlinear_unless_zero(&operands)
            }
        }
    }

    pub(super) fn sum(&mut self, terms: Vec<Id>, at: Extent) -> Id {
        let zero = self.constant(0.0);
        terms
            .into_iter()
            .fold(zero, |acc, t| self.node(Op::Add(acc, t), at))
    }

    pub(super) fn map(&mut self, v: &Value, mut f: impl FnMut(&mut Self, Id) -> Id) -> Value {
        Value {
            shape: v.shape,
            elems: v.elems.iter().map(|&x| f(self, x)).collect(),
        }
    }

    pub(super) fn deps_of(&self, v: &Value) -> Deps {
        v.elems
            .iter()
            .fold(Deps::default(), |d, &x| d.union(self.ir.deps(x)))
    }
}

/// How many nodes under a `sqrt` [`Lowerer::nonnegative`] looks at for the form of a sum
/// of squares: `norm` of a vector of n is 2n − 1 of them, so vectors to 128 elements.
const NONNEGATIVE_NODES: usize = 256;
