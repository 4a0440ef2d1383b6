//! The dimension rules' machinery: the declared units, requirements that reach into sums
//! (the term at fault is the one reported), and the agreement of the terms of a sum or the
//! elements of a vector. Units change no number: the generated code only exposes them.
//!
//! No rule needs a shape: every element of a vector or matrix has the vector's one
//! dimension, so each operation has the same rule for every shape (a matrix times a vector
//! multiplies dimensions like a product of scalars).

use super::{Declared, ModelUnits, Type, Typer, D};
use crate::ast::{BinOp, Expr, UnitExpr};
use crate::check::{key, Checked};
use crate::errors::Errors;
use crate::units::{self, Dim, Unit};
use quote::ToTokens;
use syn::Ident;

/// The dimensions of the declarations and their units, when the model declares units;
/// `None` when it declares none (it is not dimension-checked). The units are `None` when
/// some are missing or wrong (reported): then the dimensions are `None` too.
pub(super) fn declared(c: &Checked, errors: &mut Errors) -> Option<(Declared, Option<ModelUnits>)> {
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
    let declared = Declared {
        parameters: dims(&parameters),
        coordinates: dims(&coordinates),
        inputs: dims(&inputs),
    };
    let all = |list: Vec<Option<Unit>>| list.into_iter().collect::<Option<Vec<Unit>>>();
    let units = (|| {
        Some(ModelUnits {
            parameters: all(parameters)?,
            coordinates: all(coordinates)?,
            inputs: all(inputs)?,
        })
    })();
    Some((declared, units))
}

/// What a place requires of the expression written there, with the words that say so.
pub(super) struct Expected {
    dim: Dim,
    /// The requirement, as in "kinetic energy must be J (kg·m²·s⁻²)".
    rule: String,
}

impl Expected {
    pub(super) fn new(dim: Dim, rule: impl Into<String>) -> Expected {
        Expected {
            dim,
            rule: rule.into(),
        }
    }
}

#[derive(Clone, Copy)]
pub(super) enum Agreement {
    Sum,
    Elements,
}

impl Typer<'_, '_, '_> {
    /// Reports a broken dimension rule (in a dimension-checked model).
    pub(super) fn dimension_error(&mut self, at: impl ToTokens, message: impl std::fmt::Display) {
        if self.dims.is_some() {
            self.dimension_errors.spanning(at, message);
        }
    }

    /// The type of `e`, which must have the expected dimension: the smallest expression
    /// at fault is reported, a term of a sum or `e` as a whole.
    pub(super) fn expect(&mut self, e: &Expr, expected: &Expected) -> Option<Type> {
        let t = self.expecting(e, expected)?;
        if let Some(d) = t.dim {
            if d != expected.dim {
                self.dimension_error(
                    e.extent(),
                    format!("{}, `{}` is {d}", expected.rule, text(e)),
                );
            }
        }
        Some(t)
    }

    /// The type of `e` where `expected` is required. The requirement reaches into a sum,
    /// whose terms are checked against it, and through a product or quotient of a known
    /// factor and a sum (`m/2 * (dot(x)^2 + dot(y)^2)`), so that the term at fault is the
    /// one reported. Whether the whole meets it is left to the caller.
    fn expecting(&mut self, e: &Expr, expected: &Expected) -> Option<Type> {
        if self.dims.is_none() {
            return self.expr(e);
        }
        if is_sum(e) {
            return self.sum(e, Some(expected));
        }
        let Expr::Binary {
            op: op @ (BinOp::Mul | BinOp::Div),
            lhs,
            rhs,
        } = strip(e)
        else {
            return self.expr(e);
        };
        let (sum, known, sum_first) = match (is_sum(lhs), is_sum(rhs)) {
            (true, false) => (&**lhs, &**rhs, true),
            (false, true) => (&**rhs, &**lhs, false),
            _ => return self.expr(e),
        };
        let k = self.expr(known);
        let s = match k.and_then(|k| k.dim) {
            None => {
                let s = self.expr(sum);
                s.map(|s| Type { dim: None, ..s })
            }
            Some(k) => {
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
                self.expecting(sum, &inner)
            }
        };
        let (l, r) = if sum_first { (s, k) } else { (k, s) };
        self.product(*op, lhs, l?, rhs, r?)
    }

    /// The one dimension of the terms of a sum or the elements of a vector.
    ///
    /// With a requirement that a term meets, or that the terms disagree on, each term that
    /// misses it is reported. Without one, the dimension most terms share is the reference
    /// and each term that differs is reported; when no dimension has a strict majority
    /// (`x + theta`), the whole sum is. Terms that agree on a wrong dimension are left to
    /// the caller, to report once on the whole. After any report the result is unknown.
    pub(super) fn agree(
        &mut self,
        items: &[(&Expr, D)],
        expected: Option<&Expected>,
        kind: Agreement,
    ) -> D {
        let all: Vec<Dim> = items.iter().filter_map(|(_, d)| *d).collect();
        let &first = all.first()?;
        // Items with an error elsewhere leave only bare literals to say the dimension: no
        // second error from a guess.
        // (A literal 0 has no dimension of its own: it takes the one its place needs.)
        let zero = |e: &Expr| matches!(strip(e), Expr::Number(n) if n.value == 0.0);
        if items.iter().any(|(e, d)| d.is_none() && !zero(e))
            && items.iter().all(|(e, d)| d.is_none() || is_bare_literal(e))
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
        for (e, d) in items {
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
            self.dimension_error(e.extent(), message);
        }
        None
    }

    /// Reports a sum or list whose terms are split evenly between dimensions, on the whole.
    fn mixed(&mut self, items: &[(&Expr, D)], kind: Agreement, a: Dim, b: Dim) {
        let (Some((first, _)), Some((last, _))) = (items.first(), items.last()) else {
            return;
        };
        let extent = crate::ast::Extent(first.first_span(), last.last_span());
        let message = match kind {
            Agreement::Sum => format!("mismatched dimensions in a sum: its terms are {a} and {b}"),
            Agreement::Elements => format!(
                "mismatched dimensions: the elements of a vector or matrix share one dimension, these are {a} and {b}\n= note: {SEPARATE}"
            ),
        };
        self.dimension_error(extent, message);
    }

    /// `sqrt` or `cbrt` of `e` of dimension `d`: the root of its dimension, which must exist.
    pub(super) fn root(&mut self, e: &Expr, d: D, n: i32, name: &str, parity: &str) -> D {
        let d = d?;
        let root = d.root(n);
        if root.is_none() {
            self.dimension_error(
                e.extent(),
                format!(
                    "`{name}` needs a dimension whose exponents are {parity}, `{}` is {d}",
                    text(e),
                ),
            );
        }
        root
    }

    /// The type of the rotation `r`, which is dimensionless; `what` starts the message.
    pub(super) fn rotation(&mut self, r: &Expr, what: &str) -> Option<Type> {
        let t = self.expr(r);
        self.rotation_dim(r, t.and_then(|t| t.dim), what);
        t
    }

    /// Checks that the rotation `r` of dimension `d` is dimensionless.
    pub(super) fn rotation_dim(&mut self, r: &Expr, d: D, what: &str) {
        if let Some(d) = d.filter(|d| !d.is_one()) {
            self.dimension_error(
                r.extent(),
                format!("{what} is dimensionless: `{}` is {d}", text(r)),
            );
        }
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

/// `e` without parentheses and signs around it.
fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Neg { operand: inner, .. } | Expr::Paren { inner, .. } => strip(inner),
        _ => e,
    }
}

/// Whether `e` is a sum or difference, through signs and parentheses: its terms are then
/// typed together (`a - (b + c)` has the terms `a`, `b` and `c`).
pub(super) fn is_sum(e: &Expr) -> bool {
    matches!(
        strip(e),
        Expr::Binary {
            op: BinOp::Add | BinOp::Sub,
            ..
        }
    )
}

/// An expression as quoted in a message, shortened if it is long.
pub(super) fn text(e: &Expr) -> String {
    const LONG: usize = 60;
    let s = e.to_string();
    match s.char_indices().nth(LONG) {
        Some((end, _)) => format!("{}…", &s[..end]),
        None => s,
    }
}
