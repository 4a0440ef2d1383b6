//! Arithmetic: sums (terms of one shape and one dimension), products and quotients (the
//! shape rules of scalars, vectors and matrices; dimensions multiply), powers.

use super::dims::{self, Agreement, Expected};
use super::{quoted, Shape, Type, Typer, D};
use crate::ast::{BinOp, Expr};
use crate::units::Dim;

impl Typer<'_, '_, '_> {
    /// A sum or difference `e`, flattened into its terms: each pair of operands must have
    /// one shape, and all the terms one dimension (`expected`'s, when it is required).
    pub(super) fn sum(&mut self, e: &Expr, expected: Option<&Expected>) -> Option<Type> {
        let mut terms = Vec::new();
        let shape = self.sum_shape(e, &mut terms);
        let dim = match self.dims {
            Some(_) => self.agree(&terms, expected, Agreement::Sum),
            None => None,
        };
        Some(Type { shape: shape?, dim })
    }

    /// The shape of the sum `e`, collecting its terms (through signs and parentheses, as
    /// [`dims::is_sum`] reads them) with their dimensions.
    fn sum_shape<'x>(&mut self, e: &'x Expr, terms: &mut Vec<(&'x Expr, D)>) -> Option<Shape> {
        match e {
            Expr::Binary {
                op: op @ (BinOp::Add | BinOp::Sub),
                lhs,
                rhs,
            } => {
                let (l, r) = (self.sum_shape(lhs, terms), self.sum_shape(rhs, terms));
                let (l, r) = (l?, r?);
                if l != r {
                    let note = if *op == BinOp::Add {
                        "\n= note: `+` adds values of one shape"
                    } else {
                        "\n= note: `-` subtracts values of one shape"
                    };
                    self.mismatch(e.extent(), lhs, l, rhs, r, note);
                    return None;
                }
                Some(l)
            }
            Expr::Neg { operand: x, .. } | Expr::Paren { inner: x, .. } if dims::is_sum(x) => {
                self.sum_shape(x, terms)
            }
            _ => {
                let t = self.expr(e);
                terms.push((e, t.and_then(|t| t.dim)));
                Some(t?.shape)
            }
        }
    }

    /// `a * b` or `a / b` of types `l` and `r`.
    pub(super) fn product(
        &mut self,
        op: BinOp,
        a: &Expr,
        l: Type,
        b: &Expr,
        r: Type,
    ) -> Option<Type> {
        let shape = match op {
            BinOp::Div => self.quotient_shape(a, b, l.shape, r.shape)?,
            _ => self.product_shape(a, l.shape, b, r.shape)?,
        };
        let dim = match (l.dim, r.dim) {
            (Some(x), Some(y)) if op == BinOp::Div => Some(x.div(y)),
            (Some(x), Some(y)) => Some(x.mul(y)),
            _ => None,
        };
        Some(Type { shape, dim })
    }

    fn product_shape(&mut self, a: &Expr, l: Shape, b: &Expr, r: Shape) -> Option<Shape> {
        use Shape::*;
        let at = crate::ast::Extent(a.first_span(), b.last_span());
        let hint = match (l, r) {
            (Scalar, s) | (s, Scalar) => return Some(s),
            (Matrix(rows, n), Vector(m)) if n == m => return Some(Vector(rows)),
            (Matrix(rows, n), Matrix(m, cols)) if n == m => return Some(Matrix(rows, cols)),
            (Vector(_), Vector(_)) => {
                let hint = format!("\n= help: a product of two vectors is `inner({a}, {b})` (a scalar) or `cross({a}, {b})` (a vector)");
                if l == r {
                    // Not "`a` is a vector of 3, `b` is a vector of 3": equal shapes are
                    // no mismatch of sizes, `*` takes no two vectors.
                    let (qa, qb) = (quoted(a, "the left side"), quoted(b, "the right side"));
                    self.errors.spanning(
                        at,
                        format!("mismatched shapes: `*` of two vectors ({qa} and {qb}, each {l}) is not defined{hint}"),
                    );
                    return None;
                }
                hint
            }
            (Vector(_), Matrix(..)) => "\n= note: vectors are columns: a matrix multiplies a vector from the left, as in `transpose(A) * v`".into(),
            (Matrix(..), Vector(_)) => "\n= note: a matrix times a vector needs as many columns as the vector has elements".into(),
            (Matrix(..), Matrix(..)) => "\n= note: in a product of matrices the columns of the left must equal the rows of the right".into(),
        };
        self.mismatch(at, a, l, b, r, &hint);
        None
    }

    fn quotient_shape(&mut self, a: &Expr, b: &Expr, l: Shape, r: Shape) -> Option<Shape> {
        if r != Shape::Scalar {
            let divisor = quoted(b, "the divisor");
            let at = crate::ast::Extent(a.first_span(), b.last_span());
            self.errors
                .spanning(at, format!("`/` divides by a scalar, {divisor} is {r}"));
            return None;
        }
        Some(l)
    }

    /// `base^exponent` (and `powi`, `powf`): an integer literal power multiplies the
    /// exponents of the base's dimension; any other power needs a dimensionless base and
    /// exponent. The only power of a vector is its square, its squared length.
    pub(super) fn power(&mut self, base: &Expr, exponent: &Expr, e: &Expr) -> Option<Type> {
        let b = self.expr(base);
        let x = self.exponent(exponent);
        let (b, x) = (b?, x?);
        let at = e.extent();
        if x.shape != Shape::Scalar {
            let what = quoted(exponent, "the exponent");
            self.errors.spanning(
                at,
                format!("an exponent is a scalar, {what} is {}", x.shape),
            );
            return None;
        }
        match b.shape {
            Shape::Scalar => {}
            Shape::Vector(_) if exponent.integer() == Some(2) => {}
            shape => {
                let what = quoted(base, "the base");
                self.errors.spanning(
                    at,
                    format!("{what} is {shape}: the only power of a vector is `v^2`, its squared length, and matrices have none"),
                );
                return None;
            }
        }
        Some(Type::scalar(self.power_dim(base, exponent, b.dim)))
    }

    /// The dimension of `base^exponent` whose base has dimension `b`.
    pub(super) fn power_dim(&mut self, base: &Expr, exponent: &Expr, b: D) -> D {
        if let Some(n) = exponent.integer() {
            return b.map(|d| d.pow(n));
        }
        if let Some(d) = b.filter(|d| !d.is_one()) {
            self.dimension_error(
                base.extent(),
                format!(
                    "a power with a non-integer or variable exponent needs a dimensionless base, `{}` is {d}\n= note: only an integer literal exponent (`x^2`, `x^-1`) applies to a dimensioned base; write `sqrt(x)` for x^(1/2)",
                    dims::text(base),
                ),
            );
            return None;
        }
        Some(Dim::ONE)
    }

    /// The type of a power's exponent: a non-integer one must be dimensionless.
    pub(super) fn exponent(&mut self, exponent: &Expr) -> Option<Type> {
        match exponent.integer() {
            Some(_) => self.expr(exponent),
            None => self.expect(
                exponent,
                &Expected::new(Dim::ONE, "an exponent must be dimensionless"),
            ),
        }
    }
}
