//! Physical dimensions, checked: when every parameter, coordinate and input declares a unit,
//! the dimension of every expression is inferred and the rules of the language are checked
//! (sums of one dimension, energies in J, dissipation in W, dimensionless arguments of the
//! transcendental functions, …). Each error sits on the smallest offending expression: in a
//! sum or a vector, the term that disagrees with the others or with what the statement
//! requires. After an error, the expression's dimension is unknown and nothing more is said
//! about it, so one mistake gives one error.
//!
//! The check reads the syntax tree once names and shapes are right, and needs no shapes:
//! every element of a vector or matrix has the vector's one dimension, so each operation
//! has the same rule for every shape (a matrix times a vector multiplies dimensions like a
//! product of scalars). Units change no number: the generated code only exposes them.

use crate::ast::{BinOp, Energy, Expr, Statement, UnitExpr};
use crate::check::{key, Checked, Symbol};
use crate::errors::Errors;
use crate::func::{Builtin, Func, Unary};
use crate::units::{self, Dim, Unit};
use syn::Ident;

/// The units of a model's declarations, in declaration order.
pub struct ModelUnits {
    pub parameters: Vec<Unit>,
    pub coordinates: Vec<Unit>,
    pub inputs: Vec<Unit>,
}

/// A dimension as inferred: `None` for an expression that takes whatever dimension its
/// place needs — a literal `0` — or whose dimension is unknown after an error reported
/// elsewhere (then nothing more is said about it).
type D = Option<Dim>;

/// Checks the dimensions of a model whose declarations carry units. `None` when the model
/// declares no units (it is not checked) or when a unit is wrong (reported).
pub fn check(c: &Checked, errors: &mut Errors) -> Option<ModelUnits> {
    let parameters: Vec<(&Ident, Option<&UnitExpr>)> = c
        .parameters
        .iter()
        .map(|p| (&p.name, p.unit.as_ref()))
        .collect();
    let coordinates: Vec<_> = c
        .coordinates
        .iter()
        .map(|d| (&d.name, d.unit.as_ref()))
        .collect();
    let inputs: Vec<_> = c
        .inputs
        .iter()
        .map(|d| (&d.name, d.unit.as_ref()))
        .collect();
    let all = || parameters.iter().chain(&coordinates).chain(&inputs);
    if all().all(|(_, unit)| unit.is_none()) {
        return None;
    }
    let missing: Vec<&Ident> = all()
        .filter(|(_, unit)| unit.is_none())
        .map(|(name, _)| *name)
        .collect();
    if let Some(first) = missing.first() {
        let names: Vec<String> = missing.iter().map(|n| format!("`{}`", key(n))).collect();
        errors.at(
            first.span(),
            format!(
                "units are declared on some parameters, coordinates and inputs but not on {}: give each of them a unit (`[1]` for a dimensionless one), or remove all units",
                names.join(", ")
            ),
        );
        return None;
    }
    let mut resolve = |list: &[(&Ident, Option<&UnitExpr>)]| -> Vec<Option<Unit>> {
        list.iter()
            .map(|(_, unit)| unit.and_then(|u| units::resolve(u, errors)))
            .collect()
    };
    let (parameters, coordinates, inputs) = (
        resolve(&parameters),
        resolve(&coordinates),
        resolve(&inputs),
    );
    let dims = |list: &[Option<Unit>]| list.iter().map(|u| u.as_ref().map(|u| u.dim)).collect();
    let mut inference = Inference {
        c,
        errors,
        parameters: dims(&parameters),
        coordinates: dims(&coordinates),
        inputs: dims(&inputs),
        lets: vec![None; c.let_statement.len()],
    };
    inference.statements();
    let all = |list: Vec<Option<Unit>>| list.into_iter().collect::<Option<Vec<Unit>>>();
    Some(ModelUnits {
        parameters: all(parameters)?,
        coordinates: all(coordinates)?,
        inputs: all(inputs)?,
    })
}

/// What a place requires of the expression written there, with the words that say so.
struct Expected {
    dim: Dim,
    /// The requirement, as in "kinetic energy must be J (kg·m²·s⁻²)".
    rule: String,
}

impl Expected {
    fn new(dim: Dim, rule: impl Into<String>) -> Expected {
        Expected {
            dim,
            rule: rule.into(),
        }
    }
}

struct Inference<'c, 'a, 'e> {
    c: &'c Checked<'a>,
    errors: &'e mut Errors,
    parameters: Vec<D>,
    coordinates: Vec<D>,
    inputs: Vec<D>,
    lets: Vec<D>,
}

impl Inference<'_, '_, '_> {
    fn statements(&mut self) {
        for statement in &self.c.model.statements {
            match statement {
                Statement::Let { name, value } => {
                    let d = self.infer(value);
                    if let Some(Symbol::Let(i)) = self.c.symbol(name) {
                        self.lets[i] = d;
                    }
                }
                // Each element of a vector constraint is a scalar constraint of its own, so
                // the elements need not share a dimension.
                Statement::Constraint {
                    value: Expr::List { items, .. },
                    ..
                } => {
                    for item in items {
                        self.infer(item);
                    }
                }
                Statement::Constraint { value, .. } => {
                    self.infer(value);
                }
                Statement::Energy { kind, value, .. } => {
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
                    self.expect(value, &Expected::new(dim, rule));
                }
                Statement::Force { force, point } => match self.infer(point) {
                    Some(p) => {
                        let dim = Dim::JOULE.div(p);
                        let rule = format!(
                            "a force on `{}` ({p}) must be {} so that its virtual work is an energy",
                            text(point),
                            dim.describe()
                        );
                        self.expect(force, &Expected::new(dim, rule));
                    }
                    None => {
                        self.infer(force);
                    }
                },
                Statement::Torque {
                    torque, rotation, ..
                } => {
                    self.rotation(rotation, "a torque acts on the rotation of a body, which");
                    let rule = format!("a torque must be N·m ({})", Dim::JOULE);
                    self.expect(torque, &Expected::new(Dim::JOULE, rule));
                }
                Statement::Parameters(_)
                | Statement::Coordinates(_)
                | Statement::Inputs(_)
                | Statement::Urdf { .. } => {}
            }
        }
    }

    /// Checks that `e` has the expected dimension, reporting the smallest expression at
    /// fault: a term of a sum, or `e` as a whole.
    fn expect(&mut self, e: &Expr, expected: &Expected) {
        if let Some(d) = self.infer_expecting(e, expected) {
            if d != expected.dim {
                self.errors.spanning(
                    e.extent(),
                    format!("{}, `{}` is {d}", expected.rule, text(e)),
                );
            }
        }
    }

    /// The dimension of `e` where `expected` is required. The requirement reaches into a
    /// sum, whose terms are checked against it, and through a product or quotient of a
    /// known factor and a sum (`m/2 * (dot(x)^2 + dot(y)^2)`), so that the term at fault is
    /// the one reported. Whether the whole meets it is left to the caller.
    fn infer_expecting(&mut self, e: &Expr, expected: &Expected) -> D {
        if let Some(terms) = terms(e) {
            return self.agree(&terms, Some(expected), Agreement::Sum);
        }
        let Expr::Binary {
            op: op @ (BinOp::Mul | BinOp::Div),
            lhs,
            rhs,
        } = strip(e)
        else {
            return self.infer(e);
        };
        let (sum, known, sum_first) = match (terms(lhs).is_some(), terms(rhs).is_some()) {
            (true, false) => (&**lhs, &**rhs, true),
            (false, true) => (&**rhs, &**lhs, false),
            _ => return self.infer(e),
        };
        let Some(k) = self.infer(known) else {
            self.infer(sum);
            return None;
        };
        // The dimension the sum must have for the whole to be as expected.
        let needed = match (op, sum_first) {
            (BinOp::Mul, _) => expected.dim.div(k),
            (_, true) => expected.dim.mul(k),
            (_, false) => k.div(expected.dim),
        };
        let inner = Expected::new(
            needed,
            format!(
                "{} (so each term of `{}` must be {needed})",
                expected.rule,
                text(sum)
            ),
        );
        let s = self.infer_expecting(sum, &inner)?;
        Some(match (op, sum_first) {
            (BinOp::Mul, _) => k.mul(s),
            (_, true) => s.div(k),
            (_, false) => k.div(s),
        })
    }

    /// The dimension of `e`, reporting every rule it breaks.
    fn infer(&mut self, e: &Expr) -> D {
        match e {
            Expr::Number(n) => (n.value != 0.0).then_some(Dim::ONE),
            Expr::Quantity { unit, .. } => units::resolve(unit, self.errors).map(|u| u.dim),
            Expr::Name(ident) => self.name(ident),
            Expr::Neg { operand: inner, .. } | Expr::Paren { inner, .. } => self.infer(inner),
            Expr::Binary { op, lhs, rhs } => match op {
                BinOp::Add | BinOp::Sub => {
                    let terms = terms(e).unwrap_or_default();
                    self.agree(&terms, None, Agreement::Sum)
                }
                BinOp::Mul => {
                    let (a, b) = (self.infer(lhs), self.infer(rhs));
                    Some(a?.mul(b?))
                }
                BinOp::Div => {
                    let (a, b) = (self.infer(lhs), self.infer(rhs));
                    Some(a?.div(b?))
                }
                BinOp::Pow => self.power(lhs, rhs),
            },
            Expr::Call { func, args, .. } => match Func::from_name(&func.to_string()) {
                Some(f) if f.arity().accepts(args.len()) => self.call(f, args),
                _ => {
                    for a in args {
                        self.infer(a);
                    }
                    None
                }
            },
            Expr::List { items, .. } => {
                let items: Vec<&Expr> = items.iter().collect();
                self.agree(&items, None, Agreement::Elements)
            }
            Expr::Index { base, .. } | Expr::Component { base, .. } => self.infer(base),
        }
    }

    fn name(&self, ident: &Ident) -> D {
        match self.c.symbol(ident) {
            Some(Symbol::Parameter(i)) => self.parameters.get(i).copied().flatten(),
            Some(Symbol::Coordinate(i)) => self.coordinates.get(i).copied().flatten(),
            Some(Symbol::Input(i)) => self.inputs.get(i).copied().flatten(),
            Some(Symbol::Let(i)) => self.lets.get(i).copied().flatten(),
            Some(Symbol::Constraint(_)) => None,
            None => Builtin::from_name(&key(ident)).map(|builtin| match builtin {
                Builtin::Time => Dim::SECOND,
                Builtin::Pi => Dim::ONE,
            }),
        }
    }

    /// `base^exponent` (and `powi`, `powf`): an integer literal power multiplies the
    /// exponents of the base's dimension; any other power needs a dimensionless base.
    fn power(&mut self, base: &Expr, exponent: &Expr) -> D {
        let b = self.infer(base);
        if let Some(n) = exponent.integer() {
            return Some(b?.pow(n));
        }
        self.dimensionless(exponent, "an exponent must be dimensionless");
        if let Some(d) = b.filter(|d| !d.is_one()) {
            self.errors.spanning(
                base.extent(),
                format!(
                    "a power with a non-integer or variable exponent needs a dimensionless base, `{}` is {d}\n= note: only an integer literal exponent (`x^2`, `x^-1`) applies to a dimensioned base; write `sqrt(x)` for x^(1/2)",
                    text(base),
                ),
            );
            return None;
        }
        Some(Dim::ONE)
    }

    fn call(&mut self, f: Func, args: &[Expr]) -> D {
        match f {
            Func::Unary(Unary::Sqrt) => self.root(&args[0], 2, "sqrt", "even"),
            Func::Unary(Unary::Cbrt) => self.root(&args[0], 3, "cbrt", "multiples of 3"),
            Func::Unary(Unary::Abs) => self.infer(&args[0]),
            Func::Unary(u) => {
                let rule = format!("the argument of `{}` must be dimensionless", u.name());
                self.dimensionless(&args[0], &rule);
                Some(Dim::ONE)
            }
            Func::Atan2 | Func::Hypot => {
                let (y, x) = (self.infer(&args[0]), self.infer(&args[1]));
                if let (Some(dy), Some(dx)) = (y, x) {
                    if dy != dx {
                        self.errors.spanning(
                            args[1].extent(),
                            format!(
                                "`{}` takes two arguments of one dimension: `{}` is {dy}, `{}` is {dx}",
                                f.name(),
                                text(&args[0]),
                                text(&args[1]),
                            ),
                        );
                        return (f == Func::Atan2).then_some(Dim::ONE);
                    }
                }
                match f {
                    Func::Atan2 => Some(Dim::ONE),
                    _ => y.or(x),
                }
            }
            Func::Powi | Func::Powf => self.power(&args[0], &args[1]),
            Func::Dot => Some(self.infer(&args[0])?.div(Dim::SECOND)),
            Func::Diag | Func::Inertia => {
                let items: Vec<&Expr> = args.iter().collect();
                self.agree(&items, None, Agreement::Elements)
            }
            Func::Rpy => {
                for a in args {
                    self.dimensionless(a, "the angles of a rotation must be dimensionless");
                }
                Some(Dim::ONE)
            }
            Func::RotX | Func::RotY | Func::RotZ => {
                self.dimensionless(&args[0], "the angle of a rotation must be dimensionless");
                Some(Dim::ONE)
            }
            Func::Rot => {
                self.infer(&args[0]);
                self.dimensionless(&args[1], "the angle of a rotation must be dimensionless");
                Some(Dim::ONE)
            }
            Func::Quat => {
                for a in args {
                    self.dimensionless(a, "the components of a unit quaternion are dimensionless");
                }
                Some(Dim::ONE)
            }
            Func::Inner | Func::Cross => {
                let (a, b) = (self.infer(&args[0]), self.infer(&args[1]));
                Some(a?.mul(b?))
            }
            Func::Norm | Func::Transpose => self.infer(&args[0]),
            Func::AngularVelocity | Func::BodyAngularVelocity => {
                self.rotation(&args[0], "an angular velocity is that of a rotation, which");
                Some(Dim::HERTZ)
            }
        }
    }

    /// `sqrt` or `cbrt` of `e`: the root of its dimension, which must exist.
    fn root(&mut self, e: &Expr, n: i32, name: &str, parity: &str) -> D {
        let d = self.infer(e)?;
        let root = d.root(n);
        if root.is_none() {
            self.errors.spanning(
                e.extent(),
                format!(
                    "`{name}` needs a dimension whose exponents are {parity}, `{}` is {d}",
                    text(e),
                ),
            );
        }
        root
    }

    /// Checks that `e` is dimensionless, with `rule` as the message's start.
    fn dimensionless(&mut self, e: &Expr, rule: &str) {
        self.expect(e, &Expected::new(Dim::ONE, rule));
    }

    /// Checks that the rotation `r` is dimensionless; `what` starts the message.
    fn rotation(&mut self, r: &Expr, what: &str) {
        if let Some(d) = self.infer(r).filter(|d| !d.is_one()) {
            self.errors.spanning(
                r.extent(),
                format!("{what} is dimensionless: `{}` is {d}", text(r)),
            );
        }
    }

    /// The one dimension of the terms of a sum or the elements of a vector.
    ///
    /// With a requirement that a term meets, or that the terms disagree on, each term that
    /// misses it is reported. Without one, the dimension most terms share is the reference
    /// and each term that differs is reported; when no dimension has a strict majority
    /// (`x + theta`), the whole sum is. Terms that agree on a wrong dimension are left to
    /// the caller, to report once on the whole. After any report the result is unknown.
    fn agree(&mut self, items: &[&Expr], expected: Option<&Expected>, kind: Agreement) -> D {
        let dims: Vec<D> = items.iter().map(|e| self.infer(e)).collect();
        let all: Vec<Dim> = dims.iter().flatten().copied().collect();
        let &first = all.first()?;
        // Items with an error elsewhere leave only bare literals to say the dimension: no
        // second error from a guess.
        // (A literal 0 has no dimension of its own: it takes the one its place needs.)
        let zero = |e: &Expr| matches!(strip(e), Expr::Number(n) if n.value == 0.0);
        let failed = |(e, d): (&&Expr, &D)| d.is_none() && !zero(e);
        if items.iter().zip(&dims).any(failed)
            && items
                .iter()
                .zip(&dims)
                .all(|(e, d)| d.is_none() || is_bare_literal(e))
        {
            return None;
        }
        if all.iter().all(|d| *d == first) {
            return Some(first);
        }
        // A bare literal is dimensionless by accident more often than not: the other items
        // say which dimension is meant, and the literal's error shows its spelling.
        let known: Vec<Dim> = items
            .iter()
            .zip(&dims)
            .filter(|(e, _)| !is_bare_literal(e))
            .filter_map(|(_, d)| *d)
            .collect();
        let known = if known.is_empty() { all } else { known };
        let reference = match expected {
            Some(x) => x.dim,
            None => {
                let count = |d: Dim| known.iter().filter(|k| **k == d).count();
                let most = known.iter().map(|d| count(*d)).max().unwrap_or(0);
                let mut common = known.iter().copied().filter(|d| count(*d) == most);
                let best = common.next().unwrap_or(first);
                if let Some(other) = common.find(|d| *d != best) {
                    self.mixed(items, kind, best, other);
                    return None;
                }
                best
            }
        };
        for (e, d) in items.iter().zip(&dims) {
            let Some(d) = d.filter(|d| *d != reference) else {
                continue;
            };
            let message = match (expected, kind) {
                (Some(x), _) => format!("{}, `{}` is {d}{}", x.rule, text(e), bare(e, d, reference)),
                (None, Agreement::Sum) => format!(
                    "mismatched dimensions in a sum: `{}` is {d}, the other terms are {reference}{}",
                    text(e),
                    bare(e, d, reference),
                ),
                (None, Agreement::Elements) => match bare(e, d, reference) {
                    hint if !hint.is_empty() => format!(
                        "mismatched dimensions: the elements of a vector or matrix share one dimension, `{}` is {d}, the others are {reference}{hint}",
                        text(e),
                    ),
                    _ => format!(
                        "mismatched dimensions: the elements of a vector or matrix share one dimension, `{}` is {d}, the others are {reference}\n= note: {SEPARATE}",
                        text(e),
                    ),
                },
            };
            self.errors.spanning(e.extent(), message);
        }
        None
    }

    /// Reports a sum or list whose terms are split evenly between dimensions, on the whole.
    fn mixed(&mut self, items: &[&Expr], kind: Agreement, a: Dim, b: Dim) {
        let (Some(first), Some(last)) = (items.first(), items.last()) else {
            return;
        };
        let extent = crate::ast::Extent(first.first_span(), last.last_span());
        let message = match kind {
            Agreement::Sum => format!("mismatched dimensions in a sum: its terms are {a} and {b}"),
            Agreement::Elements => format!(
                "mismatched dimensions: the elements of a vector or matrix share one dimension, these are {a} and {b}\n= note: {SEPARATE}"
            ),
        };
        self.errors.spanning(extent, message);
    }
}

/// A number or a bracket list of numbers, without a unit.
fn is_bare_literal(e: &Expr) -> bool {
    match strip(e) {
        Expr::Number(n) => n.value != 0.0,
        Expr::List { items, .. } => items.iter().all(|i| matches!(strip(i), Expr::Number(_))),
        _ => false,
    }
}

/// The hint for a bare literal (dimensionless) where a dimension is needed: its spelling
/// with the unit; empty for anything else.
fn bare(e: &Expr, found: Dim, needed: Dim) -> String {
    if !is_bare_literal(e) || !found.is_one() || needed.is_one() {
        return String::new();
    }
    format!(
        "\n= help: literals are dimensionless; a literal with a unit is written `{} [{}]`",
        text(strip(e)),
        needed.spelling()
    )
}

/// The hint for a vector or matrix of mixed dimensions.
const SEPARATE: &str = "write quantities of different dimensions as separate scalars (`let`s)";

#[derive(Clone, Copy)]
enum Agreement {
    Sum,
    Elements,
}

/// `e` without parentheses and signs around it.
fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Neg { operand: inner, .. } | Expr::Paren { inner, .. } => strip(inner),
        _ => e,
    }
}

/// The terms of a sum or difference, through signs and parentheses: `a - (b + c)` has the
/// terms `a`, `b` and `c`. `None` if `e` is not a sum.
fn terms(e: &Expr) -> Option<Vec<&Expr>> {
    fn collect<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
        match strip(e) {
            Expr::Binary {
                op: BinOp::Add | BinOp::Sub,
                lhs,
                rhs,
            } => {
                collect(lhs, out);
                collect(rhs, out);
            }
            _ => out.push(e),
        }
    }
    let is_sum = matches!(
        strip(e),
        Expr::Binary {
            op: BinOp::Add | BinOp::Sub,
            ..
        }
    );
    is_sum.then(|| {
        let mut out = Vec::new();
        collect(e, &mut out);
        out
    })
}

/// An expression as quoted in a message, shortened if it is long.
fn text(e: &Expr) -> String {
    const LONG: usize = 60;
    let s = e.to_string();
    match s.char_indices().nth(LONG) {
        Some((end, _)) => format!("{}…", &s[..end]),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    //! Property tests of the check, called directly on generated models (no compiler run):
    //! a random well-dimensioned model is accepted; the same model with one factor given a
    //! wrong unit is rejected with exactly one error, on an expression that contains that
    //! factor.

    use crate::units::Dim;
    use proptest::prelude::*;

    /// Builds a random model from a tape of choices. Every leaf is a parameter used once,
    /// declared with exactly the dimension its place needs, so the model is well
    /// dimensioned by construction. Sums have two or three terms (and sometimes a `0`),
    /// vectors three elements.
    struct Gen {
        tape: Vec<u32>,
        at: usize,
        parameters: Vec<Dim>,
        coordinates: Vec<Dim>,
    }

    const SMALL: [Dim; 6] = [
        Dim([1, 0, 0, 0, 0, 0, 0]),
        Dim([0, 1, 0, 0, 0, 0, 0]),
        Dim([0, 0, 1, 0, 0, 0, 0]),
        Dim([1, 1, -2, 0, 0, 0, 0]),
        Dim([0, 1, -1, 0, 0, 0, 0]),
        Dim::ONE,
    ];

    impl Gen {
        fn pick(&mut self, n: usize) -> usize {
            let x = self.tape.get(self.at).copied().unwrap_or(0);
            self.at += 1;
            x as usize % n
        }

        fn leaf(&mut self, target: Dim) -> String {
            self.parameters.push(target);
            format!("p{}", self.parameters.len() - 1)
        }

        fn expr(&mut self, target: Dim, depth: u32) -> String {
            if depth == 0 {
                return self.leaf(target);
            }
            let d = SMALL[self.pick(SMALL.len())];
            match self.pick(10) {
                0 => self.leaf(target),
                1 => format!(
                    "({}) * ({})",
                    self.expr(d, depth - 1),
                    self.expr(target.div(d), depth - 1)
                ),
                2 => format!(
                    "({}) / ({})",
                    self.expr(target.mul(d), depth - 1),
                    self.expr(d, depth - 1)
                ),
                3 => {
                    let zero = if self.pick(2) == 0 { " + 0" } else { "" };
                    let third = if self.pick(2) == 0 {
                        format!(" - {}", self.expr(target, depth - 1))
                    } else {
                        String::new()
                    };
                    format!(
                        "({} + {}{third}{zero})",
                        self.expr(target, depth - 1),
                        self.expr(target, depth - 1),
                    )
                }
                4 => match target.root(2) {
                    Some(root) => format!("({})^2", self.expr(root, depth - 1)),
                    None => self.leaf(target),
                },
                5 => {
                    let f = ["sin", "cos", "exp", "atan", "tanh"][self.pick(5)];
                    format!(
                        "{f}({}) * ({})",
                        self.expr(Dim::ONE, depth - 1),
                        self.expr(target, depth - 1)
                    )
                }
                6 => format!("sqrt({})", self.expr(target.mul(target), depth - 1)),
                7 => {
                    self.coordinates.push(target.mul(Dim::SECOND));
                    format!("dot(c{})", self.coordinates.len() - 1)
                }
                8 => {
                    let [a, b, c, x, y, z] = [d, d, d, target.div(d), target.div(d), target.div(d)]
                        .map(|dim| self.expr(dim, depth - 1));
                    format!("inner([{a}, {b}, {c}], [{x}, {y}, {z}])")
                }
                _ => format!("({})^-1", self.expr(Dim::ONE.div(target), depth - 1)),
            }
        }
    }

    /// A unit for `dim` in base units: `kg^1*m^2*s^-2`, `1`.
    fn unit(dim: Dim) -> String {
        let base = ["kg", "m", "s", "A", "K", "mol", "cd"];
        let factors: Vec<String> = base
            .iter()
            .zip(dim.0)
            .filter(|(_, e)| *e != 0)
            .map(|(b, e)| format!("{b}^{e}"))
            .collect();
        if factors.is_empty() {
            "1".into()
        } else {
            factors.join("*")
        }
    }

    /// The model's source on one line, with parameter `wrong` (if any) declared `off`
    /// times the dimension its place needs.
    fn source(g: &Gen, kinetic: &str, wrong: Option<(usize, Dim)>) -> String {
        let parameters: Vec<String> = g
            .parameters
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let d = match wrong {
                    Some((w, off)) if w == i => d.mul(off),
                    _ => *d,
                };
                format!("p{i} = 1 [{}]", unit(d))
            })
            .collect();
        let mut coordinates: Vec<String> = g
            .coordinates
            .iter()
            .enumerate()
            .map(|(i, d)| format!("c{i} [{}]", unit(*d)))
            .collect();
        coordinates.push("x [m]".into());
        let parameters = if parameters.is_empty() {
            String::new()
        } else {
            format!("parameters: {};", parameters.join(", "))
        };
        format!(
            "struct M {{ {parameters} coordinates: {}; kinetic = {kinetic}; }}",
            coordinates.join(", ")
        )
    }

    /// The messages and column ranges of the errors of the dimension check of `source`.
    fn dimension_errors(source: &str) -> Vec<(String, usize, usize)> {
        let model = crate::parse::parse(source.parse().unwrap()).unwrap();
        let mut errors = crate::errors::Errors::default();
        let checked = crate::check::check(&model, &mut errors);
        assert!(errors.finish().is_ok(), "names of {source}");
        let mut errors = crate::errors::Errors::default();
        super::check(&checked, &mut errors);
        match errors.finish() {
            Ok(()) => Vec::new(),
            Err(e) => e
                .into_iter()
                .map(|e| {
                    let (start, end) = (e.span().start(), e.span().end());
                    assert_eq!((start.line, end.line), (1, 1), "{e} in {source}");
                    (e.to_string(), start.column, end.column)
                })
                .collect(),
        }
    }

    /// The column of the one use of parameter `i` in `source`.
    fn use_of(source: &str, i: usize) -> usize {
        let name = format!("p{i}");
        let kinetic = source.find("kinetic").unwrap();
        source[kinetic..]
            .match_indices(&name)
            .map(|(at, _)| kinetic + at)
            .find(|&at| !source[at + name.len()..].starts_with(|c: char| c.is_ascii_digit()))
            .unwrap()
    }

    #[test]
    fn very_long_or_deep_units_are_an_error_not_a_crash() {
        crate::tests::with_compiler_stack(|| {
            let long = vec!["m"; 20_000].join("*");
            let deep = format!("{}m{}", "(".repeat(5000), ")".repeat(5000));
            for unit in [long, deep] {
                let source = format!("struct M {{ coordinates: x [{unit}]; kinetic = dot(x)^2; }}");
                let out = crate::expand(source.parse().unwrap()).to_string();
                assert!(
                    out.contains("split it") || out.contains("nested more than"),
                    "{out}"
                );
            }
        });
    }

    #[test]
    fn absurd_exponents_are_no_panic() {
        // A unit's exponents are small, so that no product of dimensions overflows.
        let source = "struct M { parameters: a = 1 [m^2147483647]; coordinates: x [m]; \
            kinetic = a * dot(x)^2; }";
        let out = crate::expand(source.parse().unwrap()).to_string();
        assert!(out.contains("exponent is at most 64"), "{out}");
        // A unit's exponents stay within 64 at every step of its arithmetic.
        let source = "struct M { parameters: a = 1 [m^64 * m^64]; coordinates: x [m]; \
            kinetic = a * dot(x)^2; }";
        let out = crate::expand(source.parse().unwrap()).to_string();
        assert!(out.contains("exponent out of range"), "{out}");
        // Absurd powers in expressions saturate instead of overflowing.
        let source = "struct M { parameters: a = 1 [m^64 / s^-64]; coordinates: x [m]; \
            kinetic = a^2147483647 * a^2147483647 * x^-2147483647 / x^2147483647; }";
        let out = crate::expand(source.parse().unwrap()).to_string();
        assert!(out.contains("kinetic energy must be J"), "{out}");
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 256,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn one_wrong_factor_is_found_where_it_is(
            tape in prop::collection::vec(any::<u32>(), 80),
            depth in 1..4u32,
            wrong in any::<prop::sample::Index>(),
            off in 0..3usize,
        ) {
            let mut g = Gen { tape, at: 0, parameters: Vec::new(), coordinates: Vec::new() };
            let kinetic = g.expr(Dim::JOULE, depth);
            let good = source(&g, &kinetic, None);
            prop_assert_eq!(dimension_errors(&good), Vec::new(), "{}", good);
            if g.parameters.is_empty() {
                return Ok(());
            }

            let off = [Dim([0, 1, 0, 0, 0, 0, 0]), Dim([0, 0, -1, 0, 0, 0, 0]), Dim([1, 0, 0, 0, 0, 0, 0])][off];
            let w = wrong.index(g.parameters.len());
            let bad = source(&g, &kinetic, Some((w, off)));
            let errors = dimension_errors(&bad);
            prop_assert_eq!(errors.len(), 1, "{:?} for {}", errors, bad);
            let at = use_of(&bad, w);
            for (message, start, end) in &errors {
                prop_assert!(
                    (*start..*end).contains(&at),
                    "`p{}` at column {} is not in the error at {}..{}: {} in {}",
                    w, at, start, end, message, bad
                );
            }
        }
    }
}
