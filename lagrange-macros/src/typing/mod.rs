//! Typing: the shape of every expression (a scalar, a vector of n, an r×c matrix) and,
//! when the declarations carry units, its physical dimension, inferred in one walk over
//! the checked model, before lowering. Every shape and dimension rule of the language is
//! here, each error on the smallest offending tokens, so that lowering reads a model that
//! is well typed.
//!
//! A type is inferred bottom-up from the operands; a dimension is also required top-down
//! where a statement fixes it (an energy is J), and the requirement reaches into sums so
//! that the term at fault is the one reported ([`dims`]). After an error the type is
//! unknown and nothing more is said about it, so one mistake gives one error. Dimension
//! errors are kept apart ([`Typed::dimension_errors`]) and reported only when everything
//! else is right: a dimension inferred around a wrong name or shape is a guess.

use crate::ast::{BinOp, Energy, Expr, Statement};
use crate::check::{key, Checked, Symbol};
use crate::errors::Errors;
use crate::func::{Builtin, Func};
use crate::units::{self, Dim, Unit};
use std::fmt;
use syn::Ident;

mod arithmetic;
mod calls;
mod dims;
#[cfg(test)]
mod tests;

use dims::Expected;

/// The shape of a value.
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

/// A dimension as inferred: `None` for an expression that takes whatever dimension its
/// place needs — a literal `0` — or whose dimension is unknown (after an error reported
/// elsewhere, or in a model that declares no units).
type D = Option<Dim>;

/// The type of an expression: its shape and, in a dimension-checked model, its dimension
/// (every element of a vector or matrix has the one dimension of the whole).
#[derive(Clone, Copy, Debug)]
pub struct Type {
    pub shape: Shape,
    pub dim: D,
}

impl Type {
    fn scalar(dim: D) -> Type {
        Type {
            shape: Shape::Scalar,
            dim,
        }
    }
}

/// The units of a model's declarations, in declaration order.
pub struct ModelUnits {
    pub parameters: Vec<Unit>,
    pub coordinates: Vec<Unit>,
    pub inputs: Vec<Unit>,
}

/// What typing found.
pub struct Typed {
    /// The type of each `let`, in declaration order; `None` when it has an error.
    pub lets: Vec<Option<Type>>,
    /// The scalar constraints: one per element of each constraint statement (one for a
    /// statement with an error).
    pub constraints: usize,
    /// The declarations' units, when every one of them has a valid unit.
    pub units: Option<ModelUnits>,
    /// The errors of the dimension rules, for the caller to report when nothing else is
    /// wrong.
    pub dimension_errors: Errors,
}

/// Infers the type of every expression of the model; shape errors go to `errors`.
pub fn infer(c: &Checked, errors: &mut Errors) -> Typed {
    let mut dimension_errors = Errors::default();
    let declared = dims::declared(c, &mut dimension_errors);
    let mut typer = Typer {
        c,
        errors,
        dimension_errors,
        dims: declared.as_ref().map(|(dims, _)| dims.clone()),
        lets: vec![None; c.let_statement.len()],
        constraints: 0,
    };
    typer.statements();
    Typed {
        lets: typer.lets,
        constraints: typer.constraints,
        units: declared.and_then(|(_, units)| units),
        dimension_errors: typer.dimension_errors,
    }
}

/// The dimensions of the declarations, in declaration order.
#[derive(Clone)]
struct Declared {
    parameters: Vec<D>,
    coordinates: Vec<D>,
    inputs: Vec<D>,
}

struct Typer<'c, 'a, 'e> {
    c: &'c Checked<'a>,
    /// Shape errors (and the other rules of typing).
    errors: &'e mut Errors,
    dimension_errors: Errors,
    /// `None` when the model is not dimension-checked (it declares no units, or a
    /// declaration's unit is missing or wrong): then no dimension rule is applied.
    dims: Option<Declared>,
    lets: Vec<Option<Type>>,
    constraints: usize,
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

impl Typer<'_, '_, '_> {
    fn statements(&mut self) {
        for statement in &self.c.model.statements {
            match statement {
                Statement::Let { name, value } => {
                    let t = self.expr(value);
                    if let Some(Symbol::Let(i)) = self.c.symbol(name) {
                        self.lets[i] = t;
                    }
                }
                Statement::Energy { kind, value, .. } => self.energy(*kind, value),
                Statement::Force { force, point } => self.force(force, point),
                Statement::Torque {
                    torque, rotation, ..
                } => self.torque(torque, rotation),
                Statement::Contact {
                    rotation, point, ..
                } => self.contact(rotation.as_ref(), point),
                Statement::Constraint { name, value } => {
                    let rows = self.constraint(name, value);
                    self.constraints += rows.unwrap_or(1);
                }
                Statement::Parameters(_)
                | Statement::Coordinates(_)
                | Statement::Inputs(_)
                | Statement::Urdf { .. } => {}
            }
        }
    }

    fn energy(&mut self, kind: Energy, value: &Expr) {
        let (dim, rule) = match kind {
            Energy::Dissipation => (
                Dim::WATT,
                format!(
                    "the dissipation function is a power and must be {}",
                    Dim::WATT.describe()
                ),
            ),
            _ => (
                Dim::JOULE,
                format!(
                    "{} energy must be {}",
                    kind.keyword(),
                    Dim::JOULE.describe()
                ),
            ),
        };
        let Some(t) = self.expect(value, &Expected::new(dim, rule)) else {
            return;
        };
        if t.shape != Shape::Scalar {
            let word = kind.keyword();
            self.errors.spanning(
                value.extent(),
                format!(
                    "`{word}` is a scalar, {} is {}",
                    quoted(value, "this expression"),
                    t.shape
                ),
            );
        }
    }

    /// `force F on p`: F and p of one shape, scalars or vectors, and F·p an energy.
    fn force(&mut self, force: &Expr, point: &Expr) {
        let p = self.expr(point);
        let f = match p.and_then(|p| p.dim) {
            Some(d) => {
                let dim = Dim::JOULE.div(d);
                let rule = format!(
                    "a force on `{}` ({d}) must be {} so that its virtual work is an energy",
                    dims::text(point),
                    dim.describe()
                );
                self.expect(force, &Expected::new(dim, rule))
            }
            None => self.expr(force),
        };
        let (Some(f), Some(p)) = (f, p) else { return };
        let at = crate::ast::Extent(force.first_span(), point.last_span());
        if f.shape != p.shape {
            let hint = "\n= note: `force F on p` takes a force and a position of one shape, scalars or vectors";
            self.mismatch(at, force, f.shape, point, p.shape, hint);
        } else if let Shape::Matrix(..) = p.shape {
            self.errors.spanning(
                at,
                format!(
                    "`force F on p` takes scalars or vectors, {} is {}",
                    quoted(point, "the position"),
                    p.shape
                ),
            );
        }
    }

    /// `contact name = p;` or `contact name = frame(R, p);`: p a vector of 3 in m, R a
    /// dimensionless 3×3 rotation.
    fn contact(&mut self, rotation: Option<&Expr>, point: &Expr) {
        if let Some(rotation) = rotation {
            let r = self.rotation(rotation, "the rotation of a frame contact");
            if let Some(r) = r.filter(|r| r.shape != Shape::Matrix(3, 3)) {
                self.errors.spanning(
                    rotation.extent(),
                    format!(
                        "a frame contact takes the rotation of a body, a 3×3 matrix; {} is {}",
                        quoted(rotation, "this expression"),
                        r.shape
                    ),
                );
            }
        }
        let rule = format!("a contact point is a position, {}", Dim::METRE.describe());
        let Some(p) = self.expect(point, &Expected::new(Dim::METRE, rule)) else {
            return;
        };
        if p.shape != Shape::Vector(3) {
            self.errors.spanning(
                point.extent(),
                format!(
                    "a contact point is a vector of 3, {} is {}\n= note: `contact name = p;` takes a point p, `contact name = frame(R, p);` a body's rotation R and a point p",
                    quoted(point, "this expression"),
                    p.shape
                ),
            );
        }
    }

    /// `torque tau on R`: a vector of 3 in N·m on a dimensionless 3×3 rotation.
    fn torque(&mut self, torque: &Expr, rotation: &Expr) {
        let r = self.rotation(rotation, "a torque acts on the rotation of a body, which");
        let rule = format!("a torque must be N·m ({})", Dim::JOULE);
        let tau = self.expect(torque, &Expected::new(Dim::JOULE, rule));
        let (Some(tau), Some(r)) = (tau, r) else {
            return;
        };
        if tau.shape != Shape::Vector(3) {
            self.errors.spanning(
                torque.extent(),
                format!("a torque is a vector of 3, {} is {}\n= help: a torque about a coordinate angle is `force tau on theta;`", quoted(torque, "this torque"), tau.shape),
            );
        } else if r.shape != Shape::Matrix(3, 3) {
            self.errors.spanning(
                rotation.extent(),
                format!(
                    "a torque acts on the rotation of a body, a 3×3 matrix; {} is {}",
                    quoted(rotation, "this expression"),
                    r.shape
                ),
            );
        }
    }

    /// A constraint: a scalar, or a vector of scalar constraints (whose elements need not
    /// share a dimension). Its number of rows, `None` after an error.
    fn constraint(&mut self, name: &Ident, value: &Expr) -> Option<usize> {
        let t = match value {
            Expr::List { items, .. } => self.list(items, false),
            _ => self.expr(value),
        }?;
        match t.shape {
            Shape::Scalar => Some(1),
            Shape::Vector(n) => Some(n),
            Shape::Matrix(..) => {
                self.errors.spanning(
                    value.extent(),
                    format!("constraint `{name}` is {}: a constraint is a scalar or a vector (one constraint per element)", t.shape),
                );
                None
            }
        }
    }

    /// The type of `e`, reporting every rule it breaks.
    fn expr(&mut self, e: &Expr) -> Option<Type> {
        match e {
            Expr::Number(n) => Some(Type::scalar((n.value != 0.0).then_some(Dim::ONE))),
            Expr::Name(ident) => self.name(ident),
            Expr::Paren { inner, .. } | Expr::Neg { operand: inner, .. } => self.expr(inner),
            Expr::Binary { op, lhs, rhs } => match op {
                BinOp::Add | BinOp::Sub => self.sum(e, None),
                BinOp::Mul | BinOp::Div => {
                    let (l, r) = (self.expr(lhs), self.expr(rhs));
                    self.product(*op, lhs, l?, rhs, r?)
                }
                BinOp::Pow => self.power(lhs, rhs, e),
            },
            Expr::Call { func, args, .. } => self.call(func, args, e),
            Expr::List { items, .. } => self.list(items, true),
            Expr::Index { base, indices, .. } => {
                let t = self.expr(base)?;
                self.index(base, t, indices, e)
            }
            Expr::Component { base, name } => {
                let t = self.expr(base)?;
                self.component(base, t, name)
            }
            Expr::Quantity { value, unit, .. } => {
                let t = self.expr(value)?;
                let dim = match self.dims {
                    Some(_) => units::resolve(unit, &mut self.dimension_errors).map(|u| u.dim),
                    None => None,
                };
                Some(Type {
                    shape: t.shape,
                    dim,
                })
            }
        }
    }

    fn name(&self, ident: &Ident) -> Option<Type> {
        let dims = self.dims.as_ref();
        let declared = |pick: fn(&Declared) -> &Vec<D>, i: usize| {
            dims.and_then(|d| pick(d).get(i).copied().flatten())
        };
        match self.c.symbol(ident) {
            Some(Symbol::Parameter(i)) => Some(Type::scalar(declared(|d| &d.parameters, i))),
            Some(Symbol::Coordinate(i)) => Some(Type::scalar(declared(|d| &d.coordinates, i))),
            Some(Symbol::Input(i)) => Some(Type::scalar(declared(|d| &d.inputs, i))),
            Some(Symbol::Let(i)) => self.lets[i],
            // A constraint is no value (reported by the name check).
            Some(Symbol::Constraint(_) | Symbol::Contact(_)) => None,
            None => Builtin::from_name(&key(ident)).map(|builtin| {
                Type::scalar(match builtin {
                    Builtin::Time => Some(Dim::SECOND),
                    Builtin::Pi => Some(Dim::ONE),
                })
            }),
        }
    }

    pub(super) fn mismatch(
        &mut self,
        at: impl quote::ToTokens,
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

    /// A bracket list: scalars make a vector, vectors of one length the rows of a matrix.
    /// With `agree`, the elements share one dimension (a constraint's need not).
    fn list(&mut self, items: &[Expr], agree: bool) -> Option<Type> {
        let types: Vec<Option<Type>> = items.iter().map(|i| self.expr(i)).collect();
        let types: Vec<Type> = types.into_iter().collect::<Option<_>>()?;
        let first = types[0].shape;
        let mut ok = true;
        for (item, t) in items.iter().zip(&types) {
            let fits = match (first, t.shape) {
                (Shape::Scalar, Shape::Scalar) => true,
                (Shape::Vector(n), Shape::Vector(m)) => n == m,
                _ => false,
            };
            if let Shape::Matrix(..) = t.shape {
                self.errors.spanning(
                    item.extent(),
                    format!("{} is {}: the elements of a bracket list are scalars (a vector) or vectors of one length (the rows of a matrix)", quoted(item, "this element"), t.shape),
                );
                ok = false;
            } else if !fits && !matches!(first, Shape::Matrix(..)) {
                self.mismatch(
                    item.extent(),
                    &items[0],
                    first,
                    item,
                    t.shape,
                    "\n= note: the elements of a bracket list are scalars (a vector) or vectors of one length (the rows of a matrix)",
                );
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        let shape = match first {
            Shape::Vector(n) => Shape::Matrix(types.len(), n),
            _ => Shape::Vector(types.len()),
        };
        let dim = if agree {
            let items: Vec<(&Expr, D)> =
                items.iter().zip(&types).map(|(e, t)| (e, t.dim)).collect();
            self.agree(&items, None, dims::Agreement::Elements)
        } else {
            None
        };
        Some(Type { shape, dim })
    }

    fn index(
        &mut self,
        base: &Expr,
        t: Type,
        indices: &[crate::ast::Index],
        e: &Expr,
    ) -> Option<Type> {
        let what = quoted(base, "this value");
        let at = e.extent();
        match (t.shape, indices) {
            (Shape::Vector(n), [i]) if i.value < n => {}
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
        }
        Some(Type::scalar(t.dim))
    }

    fn component(&mut self, base: &Expr, t: Type, name: &Ident) -> Option<Type> {
        let what = quoted(base, "this value");
        let valid = |n: usize| {
            if n == 2 {
                "`.x` and `.y`"
            } else {
                "`.x`, `.y` and `.z`"
            }
        };
        let index = component_index(name);
        // A function name after `.` without parentheses was probably meant as a call.
        let call = Func::from_name(&key(name))
            .map(|_| format!("\n= help: a method call is written with parentheses: `.{name}()`"))
            .unwrap_or_default();
        match (t.shape, index) {
            (Shape::Vector(n @ (2 | 3)), Some(i)) if i < n => Some(Type::scalar(t.dim)),
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

/// The element a component name `.x`, `.y` or `.z` stands for.
pub fn component_index(name: &Ident) -> Option<usize> {
    ["x", "y", "z"].iter().position(|c| name == c)
}
