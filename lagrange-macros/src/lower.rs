//! Lowering: the checked model becomes an owned, resolved form that every code generator
//! reads, and nothing after this stage looks at a name or a string again.
//!
//! Every expression gets its shape (a scalar, a vector of n, an r×c matrix), inferred
//! from its operands; a shape mistake is an error on the smallest offending tokens.
//! Vectors and matrices exist only here: each is lowered to its scalar elements, nodes of
//! one graph shared by the whole model (a `let` is its nodes, reused wherever it is used).
//! The graph is hash-consed, so an expression written twice is computed once, and literal
//! zeros and ones are folded away (`rot_z(a) * rot_y(b)` costs the products a hand
//! derivation would write, not 27). What each node depends on (q, q̇, t, u) and how it
//! depends on the velocities is computed once, when the node is made, so every rule that
//! needs it (`dot`, `force`, `torque`, `constraint`) is linear in the size of the model.

use crate::ast::{BinOp, Energy, Expr, Extent, Header, Statement};
use crate::check::{key, Checked, Symbol};
use crate::errors::Errors;
use crate::func::{Builtin, Func, Unary};
pub(crate) use crate::ir::{Deps, Id, Ir, Jet1, Jet2, Op};
use std::fmt;
use syn::Ident;

/// Integer powers beyond this go through `powf`: num-dual's `powi` forms n(n − 1) in `i32`.
pub const MAX_POWI: u32 = 1024;

/// How a node depends on the velocities.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Degree {
    Zero,
    /// A(q, t) q̇ + b(q, t).
    Affine,
    /// Otherwise; the node where it first stops being affine.
    Nonlinear(Id),
}

/// The shape of a value, inferred.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shape {
    Scalar,
    Vector(usize),
    Matrix(usize, usize),
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Scalar => write!(f, "a scalar"),
            Shape::Vector(n) => write!(f, "a vector of {n}"),
            Shape::Matrix(r, c) => write!(f, "a {r}×{c} matrix"),
        }
    }
}

/// A value: its shape and its elements (row by row for a matrix).
#[derive(Clone)]
pub struct Value {
    pub shape: Shape,
    pub elems: Vec<Id>,
}

impl Value {
    fn scalar(id: Id) -> Value {
        Value {
            shape: Shape::Scalar,
            elems: vec![id],
        }
    }
}

/// A parameter with its default, evaluated.
pub struct Parameter {
    pub name: Ident,
    pub default: Option<f64>,
}

/// A generalized force by virtual power: Q_j += force · ∂velocity/∂q̇_j. `force F on p`
/// gives one per element with velocity ṗ_k; `torque tau on R` one per element with the
/// angular velocity ω_k of R.
pub struct Force {
    pub force: Id,
    pub velocity: Id,
}

/// One scalar constraint (an element of a vector constraint is one).
pub struct Constraint {
    /// `name`, or `name[k]` for element k of a vector constraint.
    pub name: String,
    pub value: Id,
    pub holonomic: bool,
}

/// A `let`, by name: its value, or `None` when it has an error.
pub struct Let {
    pub name: Ident,
    /// The expression as written.
    pub text: String,
    pub value: Option<Value>,
}

/// The model, resolved and lowered to scalar operations: everything code generation
/// reads (it never goes back to the syntax tree).
pub struct Lowered {
    pub header: Header,
    pub parameters: Vec<Parameter>,
    pub coordinates: Vec<Ident>,
    pub inputs: Vec<Ident>,
    /// The model's scalar operations, in the lowered form ([`crate::ir`]).
    pub ir: Ir,
    /// How each node of `ir` depends on the velocities.
    pub degree: Vec<Degree>,
    pub kinetic: Id,
    pub potential: Option<Id>,
    pub dissipation: Option<Id>,
    pub forces: Vec<Force>,
    pub constraints: Vec<Constraint>,
    /// Every `let`, in declaration order.
    pub lets: Vec<Let>,
    /// The constraint statements that have an error, so none of their elements above:
    /// the stub a model with errors still emits counts each as one constraint.
    pub failed_constraints: usize,
    /// What an `urdf:` file brought besides statements.
    pub robot: Option<crate::ast::Robot>,
}

impl Lowered {
    /// Whether L = T − V is a polynomial of degree at most two in the velocities, so that
    /// the momenta are affine in q̇ and the mass matrix does not depend on q̇: true of
    /// every kinetic energy ½ q̇ᵀ M(q) q̇ + q̇ᵀ b(q, t) + c(q, t), false of a relativistic
    /// one (a square root of the speed).
    pub fn quadratic_in_velocities(&self) -> bool {
        // The degree of each node in q̇; `None` when it is not a polynomial in q̇.
        let mut degree: Vec<Option<u32>> = Vec::with_capacity(self.ir.len());
        for id in 0..self.ir.len() {
            let d = |a: Id| degree[a];
            let free = |ids: &[Id]| ids.iter().all(|&a| d(a) == Some(0)).then_some(0);
            let value = match self.ir.op(id) {
                Op::Lit(_) | Op::Param(_) | Op::Coord(_) | Op::Input(_) | Op::Time => Some(0),
                // Not in the lowered form.
                Op::Vel(_) => Some(1),
                Op::D1(a) | Op::P1(a, _) => free(&[a]),
                // The checker rejects a `dot` of anything that depends on q̇.
                Op::Dot(_) => Some(1),
                Op::Neg(a) => d(a),
                Op::Add(a, b) | Op::Sub(a, b) => d(a).zip(d(b)).map(|(x, y)| x.max(y)),
                Op::Mul(a, b) => d(a).zip(d(b)).map(|(x, y)| x + y),
                Op::Div(a, b) => d(b).filter(|&y| y == 0).and(d(a)),
                Op::Unary(Jet1::Powi(k), a) => match u32::try_from(k) {
                    Ok(k) => d(a).map(|x| x.saturating_mul(k)),
                    Err(_) => free(&[a]),
                },
                Op::Unary(f, a) => free(&[a]).and(match f {
                    Jet1::Powf(e) => free(&[e]),
                    _ => Some(0),
                }),
                Op::Binary(_, a, b) => free(&[a, b]),
            };
            degree.push(value);
        }
        let at_most_two = |id: Id| degree[id].is_some_and(|x| x <= 2);
        at_most_two(self.kinetic) && self.potential.is_none_or(at_most_two)
    }
}

/// Lowers the model; errors go to `errors`. The result is complete only if there are none.
pub fn lower(c: &Checked, errors: &mut Errors) -> Lowered {
    let mut lw = Lowerer {
        c,
        errors,
        ir: Ir::default(),
        degree: Vec::new(),
        at: Vec::new(),
        lets: vec![None; c.let_statement.len()],
        statement: 0,
    };
    let parameters = c
        .parameters
        .iter()
        .map(|p| Parameter {
            name: p.name.clone(),
            default: p.default.as_ref().and_then(|d| lw.default(d)),
        })
        .collect();
    let mut out = Lowered {
        header: c.model.header.clone(),
        parameters,
        coordinates: c.coordinates.iter().map(|d| d.name.clone()).collect(),
        inputs: c.inputs.iter().map(|d| d.name.clone()).collect(),
        ir: Ir::default(),
        degree: Vec::new(),
        kinetic: 0,
        potential: None,
        dissipation: None,
        forces: Vec::new(),
        constraints: Vec::new(),
        lets: Vec::new(),
        failed_constraints: 0,
        robot: c.model.robot.clone(),
    };
    let mut kinetic = None;
    for (index, statement) in c.model.statements.iter().enumerate() {
        lw.statement = index;
        match statement {
            Statement::Let { name, value: e } => {
                let value = lw.expr(e);
                if let Some(Symbol::Let(i)) = c.symbol(name) {
                    lw.lets[i] = value.clone();
                }
                out.lets.push(Let {
                    name: name.clone(),
                    text: e.to_string(),
                    value,
                });
            }
            Statement::Energy { kind, value, .. } => {
                let Some(id) = lw.energy(*kind, value) else {
                    continue;
                };
                match kind {
                    Energy::Kinetic => kinetic = kinetic.or(Some(id)),
                    Energy::Potential => out.potential = out.potential.or(Some(id)),
                    Energy::Dissipation => out.dissipation = out.dissipation.or(Some(id)),
                }
            }
            Statement::Force { force, point } => lw.force(force, point, &mut out.forces),
            Statement::Torque {
                keyword,
                torque,
                rotation,
            } => lw.torque(keyword, torque, rotation, &mut out.forces),
            Statement::Constraint { name, value } => {
                let before = out.constraints.len();
                lw.constraint(name, value, &mut out.constraints);
                if out.constraints.len() == before {
                    out.failed_constraints += 1;
                }
            }
            Statement::Parameters(_)
            | Statement::Coordinates(_)
            | Statement::Inputs(_)
            | Statement::Urdf { .. } => {}
        }
    }
    out.kinetic = kinetic.unwrap_or_else(|| lw.constant(0.0));
    out.ir = lw.ir;
    out.degree = lw.degree;
    out
}

struct Lowerer<'c, 'a, 'e> {
    c: &'c Checked<'a>,
    errors: &'e mut Errors,
    ir: Ir,
    /// How each node depends on the velocities (the analysis `ir` does not make: only
    /// lowering's rules read it).
    degree: Vec<Degree>,
    /// The source of the expression that first made each node.
    at: Vec<Extent>,
    /// The value of each let once lowered; `None` before, or when it has an error.
    lets: Vec<Option<Value>>,
    /// The statement being lowered.
    statement: usize,
}

/// Shorter source is quoted in messages; longer is named by its role.
fn quoted(e: &Expr, role: &str) -> String {
    let text = e.to_string();
    if text.chars().count() <= 40 {
        format!("`{text}`")
    } else {
        role.to_string()
    }
}

impl<'a> Lowerer<'_, 'a, '_> {
    // ---------------------------------------------------------------- the graph

    fn node(&mut self, op: Op, at: Extent) -> Id {
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

    fn constant(&mut self, value: f64) -> Id {
        let at = self.at.first().copied().unwrap_or(Extent(
            proc_macro2::Span::call_site(),
            proc_macro2::Span::call_site(),
        ));
        self.node(Op::lit(value), at)
    }

    fn literal(&self, id: Id) -> Option<f64> {
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

    fn sum(&mut self, terms: Vec<Id>, at: Extent) -> Id {
        let zero = self.constant(0.0);
        terms
            .into_iter()
            .fold(zero, |acc, t| self.node(Op::Add(acc, t), at))
    }

    fn map(&mut self, v: &Value, mut f: impl FnMut(&mut Self, Id) -> Id) -> Value {
        Value {
            shape: v.shape,
            elems: v.elems.iter().map(|&x| f(self, x)).collect(),
        }
    }

    fn deps_of(&self, v: &Value) -> Deps {
        v.elems
            .iter()
            .fold(Deps::default(), |d, &x| d.union(self.ir.deps(x)))
    }

    // ---------------------------------------------------------------- expressions

    /// The value of `e`, or `None` when it has an error (already reported).
    fn expr(&mut self, e: &Expr) -> Option<Value> {
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

    fn name(&mut self, ident: &Ident, at: Extent) -> Option<Value> {
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

    fn mismatch(&mut self, at: Extent, a: &Expr, sa: Shape, b: &Expr, sb: Shape, hint: &str) {
        let (a, b) = (quoted(a, "the left side"), quoted(b, "the right side"));
        self.errors.spanning(
            at,
            format!("mismatched shapes: {a} is {sa}, {b} is {sb}{hint}"),
        );
    }

    fn add(
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
    fn matrix_product(&mut self, l: &Value, r: &Value, at: Extent) -> Value {
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
    fn power(&mut self, base: Id, exponent: Id, written: &Expr, at: Extent) -> Id {
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

    // ---------------------------------------------------------------- functions

    fn call(&mut self, func: &Ident, args: &[Expr], at: Extent) -> Option<Value> {
        let f = Func::from_name(&key(func))?;
        if !f.arity().accepts(args.len()) {
            return None;
        }
        if f == Func::Dot {
            return self.dot(&args[0], at);
        }
        let values: Vec<Option<Value>> = args.iter().map(|a| self.expr(a)).collect();
        let values: Vec<Value> = values.into_iter().collect::<Option<_>>()?;
        // Shapes of the arguments, checked in one place per function.
        let scalar = |i: usize| values[i].shape == Shape::Scalar;
        let expected: Option<(usize, &str)> = match f {
            Func::Unary(_)
            | Func::Atan2
            | Func::Hypot
            | Func::Powi
            | Func::Powf
            | Func::Diag
            | Func::RotX
            | Func::RotY
            | Func::RotZ
            | Func::Rpy
            | Func::Inertia
            | Func::Quat => (0..args.len())
                .find(|&i| !scalar(i))
                .map(|i| (i, "a scalar")),
            Func::Rot => match (values[0].shape, values[1].shape) {
                (Shape::Vector(3), Shape::Scalar) => None,
                (Shape::Vector(3), _) => Some((1, "a scalar (the angle)")),
                _ => Some((0, "a vector of 3 (the axis)")),
            },
            Func::Inner => match (values[0].shape, values[1].shape) {
                (Shape::Vector(n), Shape::Vector(m)) if n == m => None,
                (Shape::Vector(_), Shape::Vector(_)) => {
                    self.mismatch(
                        at,
                        &args[0],
                        values[0].shape,
                        &args[1],
                        values[1].shape,
                        "\n= note: `inner` takes two vectors of one length",
                    );
                    return None;
                }
                (Shape::Vector(_), _) => Some((1, "a vector")),
                _ => Some((0, "a vector")),
            },
            Func::Cross => (0..2)
                .find(|&i| values[i].shape != Shape::Vector(3))
                .map(|i| (i, "a vector of 3")),
            Func::Norm => (!matches!(values[0].shape, Shape::Vector(_))).then_some((0, "a vector")),
            Func::Transpose => {
                (!matches!(values[0].shape, Shape::Matrix(..))).then_some((0, "a matrix"))
            }
            Func::AngularVelocity | Func::BodyAngularVelocity => {
                (values[0].shape != Shape::Matrix(3, 3)).then_some((0, "a 3×3 matrix (a rotation)"))
            }
            Func::Dot => unreachable!("handled above"),
        };
        if let Some((i, want)) = expected {
            let name = f.name();
            let arg = &args[i];
            let got = values[i].shape;
            let hint = if f.is_scalar() {
                "\n= note: the scalar functions take scalars; `norm`, `inner` and `cross` take vectors"
            } else {
                ""
            };
            self.errors.spanning(
                arg.extent(),
                format!(
                    "`{name}` takes {want}, {} is {got}{hint}",
                    quoted(arg, "this argument")
                ),
            );
            return None;
        }
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
    fn dot(&mut self, arg: &Expr, at: Extent) -> Option<Value> {
        if let Expr::Name(ident) = arg {
            let name = key(ident);
            let problem = match (name.as_str(), self.c.symbol(ident)) {
                _ if Builtin::from_name(&name) == Some(Builtin::Time) => {
                    Some("`dot(t)` is 1: write `1`".to_string())
                }
                (name, Some(Symbol::Parameter(_))) => Some(format!(
                    "`dot` of parameter `{name}`: parameters are constant, so their time derivative is zero"
                )),
                (name, Some(Symbol::Input(_))) => Some(format!(
                    "`dot` of input `{name}`: inputs are given at each instant and have no known time derivative"
                )),
                _ => None,
            };
            if let Some(problem) = problem {
                // `parameters: x; coordinates: x;` or `coordinates: t;` is reported where
                // it is declared; which `x` a `dot(x)` meant is a guess.
                if !self.c.contested(ident) {
                    self.errors.spanning(arg.extent(), problem);
                }
                return None;
            }
        }
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

    /// The rotation by `angle` about coordinate axis `axis`, right-handed, entry by entry
    /// (so that the axis entries are literal ones and zeros).
    fn axis_rotation(&mut self, axis: usize, angle: Id, at: Extent) -> Value {
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
    fn rotation(&mut self, n: [Id; 3], angle: Id, at: Extent) -> Value {
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
    fn quaternion(&mut self, [w, x, y, z]: [Id; 4], at: Extent) -> Value {
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
    fn angular_velocity(&mut self, r: &[Id], body: bool, at: Extent) -> Value {
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
    fn moving_rotation(&mut self, e: &Expr, v: &Value, what: &str) -> bool {
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

    // ---------------------------------------------------------------- statements

    fn energy(&mut self, kind: Energy, e: &Expr) -> Option<Id> {
        let v = self.expr(e)?;
        if v.shape != Shape::Scalar {
            let word = kind.keyword();
            self.errors.spanning(
                e.extent(),
                format!(
                    "`{word}` is a scalar, {} is {}",
                    quoted(e, "this expression"),
                    v.shape
                ),
            );
            return None;
        }
        Some(v.elems[0])
    }

    fn force(&mut self, force: &Expr, point: &Expr, out: &mut Vec<Force>) {
        let (f, p) = (self.expr(force), self.expr(point));
        let (Some(f), Some(p)) = (f, p) else { return };
        let at = Extent(force.first_span(), point.last_span());
        if f.shape != p.shape {
            let hint = "\n= note: `force F on p` takes a force and a position of one shape, scalars or vectors";
            return self.mismatch(at, force, f.shape, point, p.shape, hint);
        }
        if let Shape::Matrix(..) = p.shape {
            return self.errors.spanning(
                at,
                format!(
                    "`force F on p` takes scalars or vectors, {} is {}",
                    quoted(point, "the position"),
                    p.shape
                ),
            );
        }
        let deps = self.deps_of(&p);
        let problem = if deps.has(Deps::QD) {
            "a force acts on a position, which cannot depend on velocities: `force F on p` needs p(q, t)"
        } else if deps.has(Deps::U) {
            "a force acts on a position p(q, t), which cannot depend on inputs (the force itself may)"
        } else if !deps.has(Deps::Q) {
            "this position does not depend on any coordinate, so the force does no virtual work\n= help: a torque on an angle is `force tau on theta;`"
        } else {
            ""
        };
        if !problem.is_empty() {
            return self.errors.spanning(point.extent(), problem);
        }
        let at = point.extent();
        for (&f, &p) in f.elems.iter().zip(&p.elems) {
            let velocity = self.node(Op::Dot(p), at);
            push_force(&self.ir, out, f, velocity);
        }
    }

    fn torque(&mut self, keyword: &Ident, torque: &Expr, rotation: &Expr, out: &mut Vec<Force>) {
        let (tau, r) = (self.expr(torque), self.expr(rotation));
        let (Some(tau), Some(r)) = (tau, r) else {
            return;
        };
        if tau.shape != Shape::Vector(3) {
            return self.errors.spanning(
                torque.extent(),
                format!("a torque is a vector of 3, {} is {}\n= help: a torque about a coordinate angle is `force tau on theta;`", quoted(torque, "this torque"), tau.shape),
            );
        }
        if r.shape != Shape::Matrix(3, 3) {
            return self.errors.spanning(
                rotation.extent(),
                format!(
                    "a torque acts on the rotation of a body, a 3×3 matrix; {} is {}",
                    quoted(rotation, "this expression"),
                    r.shape
                ),
            );
        }
        if !self.moving_rotation(rotation, &r, "a torque acts on") {
            return;
        }
        if !self.deps_of(&r).has(Deps::Q) {
            return self.errors.spanning(
                rotation.extent(),
                format!("this rotation does not depend on any coordinate, so the `{keyword}` does no virtual work"),
            );
        }
        let omega = self.angular_velocity(&r.elems, false, rotation.extent());
        for (&t, &w) in tau.elems.iter().zip(&omega.elems) {
            push_force(&self.ir, out, t, w);
        }
    }

    fn constraint(&mut self, name: &Ident, e: &Expr, out: &mut Vec<Constraint>) {
        let Some(v) = self.expr(e) else { return };
        let plain = key(name);
        let names: Vec<String> = match v.shape {
            Shape::Scalar => vec![plain],
            Shape::Vector(n) => (0..n).map(|k| format!("{plain}[{k}]")).collect(),
            Shape::Matrix(..) => {
                return self.errors.spanning(
                    e.extent(),
                    format!("constraint `{name}` is {}: a constraint is a scalar or a vector (one constraint per element)", v.shape),
                );
            }
        };
        let mut nonlinear = None;
        for (&id, element) in v.elems.iter().zip(names) {
            let (deps, degree) = (self.ir.deps(id), self.degree[id]);
            if deps.has(Deps::U) {
                let at = match self.site(e, &|deps, _| deps.has(Deps::U)) {
                    Site::Here(at) | Site::Let(_, at, _) => at,
                };
                self.errors.spanning(
                    at,
                    format!("constraint `{element}` depends on an input: constraints may depend on coordinates, velocities and time only"),
                );
                return;
            }
            if !deps.has(Deps::Q) && !deps.has(Deps::QD) {
                self.errors.spanning(
                    e.extent(),
                    format!("constraint `{element}` does not depend on any coordinate or velocity\n= help: a constraint restricts the coordinates, as in `constraint rod = x^2 + y^2 - l^2;`"),
                );
                return;
            }
            if matches!(degree, Degree::Nonlinear(_)) {
                nonlinear = nonlinear.or(Some(element.clone()));
            }
            out.push(Constraint {
                name: element,
                value: id,
                holonomic: !deps.has(Deps::QD),
            });
        }
        if let Some(element) = nonlinear {
            self.not_affine(&element, e);
        }
    }

    /// Reports a constraint that is not affine in the velocities at the smallest
    /// sub-expression that makes it so (and inside the `let` it comes through).
    fn not_affine(&mut self, name: &str, e: &Expr) {
        let message = format!("constraint `{name}` is not affine in the velocities: a nonholonomic constraint must have the form A(q, t)·q̇ + b(q, t)\n= note: products of velocities, division by them, and powers and functions of them are not allowed; a holonomic constraint is written without `dot`");
        let nonlinear = |_, degree| matches!(degree, Degree::Nonlinear(_));
        match self.site(e, &nonlinear) {
            Site::Here(at) => self.errors.spanning(at, message),
            Site::Let(let_name, used, inner) => {
                self.errors.spanning(used, message);
                self.errors.spanning(
                    inner,
                    format!("`{let_name}` is not affine in the velocities because of this"),
                );
            }
        }
    }

    /// Whether some element of `e` satisfies `property`. Lowering again adds no node and
    /// no error: the graph is hash-consed and `e` was lowered without error.
    fn holds(&mut self, e: &Expr, property: &Property) -> bool {
        self.expr(e).is_some_and(|v| {
            v.elems
                .iter()
                .any(|&x| property(self.ir.deps(x), self.degree[x]))
        })
    }

    /// The smallest sub-expression of `e` (which has `property`) that has it while none of
    /// its parts does, or the use of a `let` that has it, with the place inside the let.
    /// A loop, not recursion: the descent follows `let`s into their definitions, and a chain
    /// of them is as long as the model.
    fn site<'x>(&mut self, e: &'x Expr, property: &Property) -> Site
    where
        'a: 'x,
    {
        let mut e = e;
        // The first `let` the descent entered: its name and use.
        let mut entered: Option<(String, Extent)> = None;
        let finish = |entered: Option<(String, Extent)>, at: Extent| match entered {
            Some((name, used)) => Site::Let(name, used, at),
            None => Site::Here(at),
        };
        loop {
            let children: Vec<&'x Expr> = match e {
                Expr::Number(_) => vec![],
                Expr::Name(ident) => {
                    let value = match self.c.symbol(ident) {
                        Some(Symbol::Let(i)) => {
                            match &self.c.model.statements[self.c.let_statement[i]] {
                                Statement::Let { value, .. } => Some(value),
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    match (value, entered.is_some()) {
                        // A second `let` on the way: the place inside the first is its use.
                        (Some(_), true) | (None, _) => return finish(entered, e.extent()),
                        (Some(value), false) => {
                            entered = Some((ident.to_string(), e.extent()));
                            e = value;
                            continue;
                        }
                    }
                }
                Expr::Neg { operand: x, .. }
                | Expr::Paren { inner: x, .. }
                | Expr::Index { base: x, .. }
                | Expr::Component { base: x, .. }
                | Expr::Quantity { value: x, .. } => vec![x],
                Expr::Binary { lhs, rhs, .. } => vec![lhs, rhs],
                Expr::Call { args, .. } => args.iter().collect(),
                Expr::List { items, .. } => items.iter().collect(),
            };
            match children
                .into_iter()
                .find(|child| self.holds(child, property))
            {
                Some(child) => e = child,
                None => return finish(entered, e.extent()),
            }
        }
    }

    // ---------------------------------------------------------------- defaults

    /// A parameter's default, evaluated; the checker has made sure it is constant.
    fn default(&mut self, e: &Expr) -> Option<f64> {
        let value = constant(e)?;
        if value.is_finite() {
            Some(value)
        } else {
            self.errors.spanning(
                e.extent(),
                format!("this default evaluates to {value}, not a finite number"),
            );
            // Never used: with an error, only the fallback is emitted, and it needs a value.
            Some(0.0)
        }
    }
}

/// How many nodes under a `sqrt` [`Lowerer::nonnegative`] looks at for the form of a sum
/// of squares: `norm` of a vector of n is 2n − 1 of them, so vectors to 128 elements.
const NONNEGATIVE_NODES: usize = 256;

/// Where a constraint stops being affine.
enum Site {
    Here(Extent),
    /// Through a `let`: its name, its use, and the place in its definition.
    Let(String, Extent, Extent),
}

/// A property of a node, by what it depends on and how it depends on the velocities.
type Property = dyn Fn(Deps, Degree) -> bool;

/// A force whose force or velocity is structurally zero does no work and is left out.
fn push_force(ir: &Ir, out: &mut Vec<Force>, force: Id, velocity: Id) {
    let zero = |id: Id| ir.op(id).literal() == Some(0.0);
    if !zero(force) && !zero(velocity) {
        out.push(Force { force, velocity });
    }
}

/// The value of a constant expression of literals, `pi` and the scalar functions.
fn constant(e: &Expr) -> Option<f64> {
    Some(match e {
        Expr::Number(n) => n.value,
        Expr::Name(i) if Builtin::from_name(&key(i)) == Some(Builtin::Pi) => std::f64::consts::PI,
        Expr::Neg { operand, .. } => -constant(operand)?,
        Expr::Paren { inner, .. } => constant(inner)?,
        Expr::Binary { op, lhs, rhs, .. } => {
            let (a, b) = (constant(lhs)?, constant(rhs)?);
            match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
                BinOp::Pow => match rhs.integer() {
                    Some(n) => a.powi(n),
                    None => a.powf(b),
                },
            }
        }
        Expr::Call { func, args, .. } => {
            let x: Vec<f64> = args.iter().map(constant).collect::<Option<_>>()?;
            match (Func::from_name(&key(func))?, x.as_slice()) {
                (Func::Unary(f), [a]) => f.eval(*a),
                (Func::Atan2, [y, x]) => y.atan2(*x),
                (Func::Hypot, [a, b]) => a.hypot(*b),
                (Func::Powi | Func::Powf, [a, b]) => a.powf(*b),
                _ => return None,
            }
        }
        _ => return None,
    })
}
