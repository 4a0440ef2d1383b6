//! Calls of the language's functions: what each takes (shapes, and the dimensionless
//! arguments of the transcendental functions and rotations) and what it gives; and
//! `dot`, the derivative along the motion, of what has one.

use super::dims::{Agreement, Expected};
use super::{quoted, Shape, Type, Typer, D};
use crate::ast::Expr;
use crate::check::{key, Symbol};
use crate::func::{Builtin, Func, Unary};
use crate::units::Dim;
use syn::Ident;

impl Typer<'_, '_, '_> {
    pub(super) fn call(&mut self, func: &Ident, args: &[Expr], e: &Expr) -> Option<Type> {
        // An unknown function or a wrong number of arguments is the name check's error.
        let f = Func::from_name(&key(func)).filter(|f| f.arity().accepts(args.len()))?;
        if f == Func::Dot {
            return self.dot(&args[0]);
        }
        let types: Vec<Option<Type>> = args
            .iter()
            .enumerate()
            .map(|(i, a)| self.argument(f, i, a))
            .collect();
        let types: Vec<Type> = types.into_iter().collect::<Option<_>>()?;
        let shape = self.call_shape(f, args, &types, e)?;
        let dim = self.call_dim(f, args, &types);
        Some(Type { shape, dim })
    }

    /// The type of argument `i` of `f`, with the dimension the function requires of it.
    fn argument(&mut self, f: Func, i: usize, a: &Expr) -> Option<Type> {
        let rule = match (f, i) {
            (Func::Unary(Unary::Sqrt | Unary::Cbrt | Unary::Abs), _) => None,
            (Func::Unary(u), _) => Some(format!(
                "the argument of `{}` must be dimensionless",
                u.name()
            )),
            (Func::RotX | Func::RotY | Func::RotZ, _) | (Func::Rot, 1) => {
                Some("the angle of a rotation must be dimensionless".into())
            }
            (Func::Rpy, _) => Some("the angles of a rotation must be dimensionless".into()),
            (Func::Quat, _) => Some("the components of a unit quaternion are dimensionless".into()),
            (Func::Powi | Func::Powf, 1) => return self.exponent(a),
            _ => None,
        };
        match rule {
            Some(rule) => self.expect(a, &Expected::new(Dim::ONE, rule)),
            None => self.expr(a),
        }
    }

    /// The shape of `f`'s value, with the shapes of its arguments checked in one place
    /// per function.
    fn call_shape(&mut self, f: Func, args: &[Expr], types: &[Type], e: &Expr) -> Option<Shape> {
        let shape = |i: usize| types[i].shape;
        let scalar = |i: usize| shape(i) == Shape::Scalar;
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
            Func::Rot => match (shape(0), shape(1)) {
                (Shape::Vector(3), Shape::Scalar) => None,
                (Shape::Vector(3), _) => Some((1, "a scalar (the angle)")),
                _ => Some((0, "a vector of 3 (the axis)")),
            },
            Func::Inner => match (shape(0), shape(1)) {
                (Shape::Vector(n), Shape::Vector(m)) if n == m => None,
                (Shape::Vector(_), Shape::Vector(_)) => {
                    self.mismatch(
                        e.extent(),
                        &args[0],
                        shape(0),
                        &args[1],
                        shape(1),
                        "\n= note: `inner` takes two vectors of one length",
                    );
                    return None;
                }
                (Shape::Vector(_), _) => Some((1, "a vector")),
                _ => Some((0, "a vector")),
            },
            Func::Cross => (0..2)
                .find(|&i| shape(i) != Shape::Vector(3))
                .map(|i| (i, "a vector of 3")),
            Func::Norm => (!matches!(shape(0), Shape::Vector(_))).then_some((0, "a vector")),
            Func::Transpose => (!matches!(shape(0), Shape::Matrix(..))).then_some((0, "a matrix")),
            Func::AngularVelocity | Func::BodyAngularVelocity => {
                (shape(0) != Shape::Matrix(3, 3)).then_some((0, "a 3×3 matrix (a rotation)"))
            }
            Func::Dot => unreachable!("typed by `dot`"),
        };
        if let Some((i, want)) = expected {
            let name = f.name();
            let arg = &args[i];
            let hint = if f.is_scalar() {
                "\n= note: the scalar functions take scalars; `norm`, `inner` and `cross` take vectors"
            } else {
                ""
            };
            self.errors.spanning(
                arg.extent(),
                format!(
                    "`{name}` takes {want}, {} is {}{hint}",
                    quoted(arg, "this argument"),
                    shape(i)
                ),
            );
            return None;
        }
        Some(match f {
            Func::Unary(_)
            | Func::Atan2
            | Func::Hypot
            | Func::Powi
            | Func::Powf
            | Func::Inner
            | Func::Norm => Shape::Scalar,
            Func::Diag => Shape::Matrix(args.len(), args.len()),
            Func::RotX
            | Func::RotY
            | Func::RotZ
            | Func::Rot
            | Func::Rpy
            | Func::Inertia
            | Func::Quat => Shape::Matrix(3, 3),
            Func::Cross | Func::AngularVelocity | Func::BodyAngularVelocity => Shape::Vector(3),
            Func::Transpose => match shape(0) {
                Shape::Matrix(r, c) => Shape::Matrix(c, r),
                _ => unreachable!("checked above"),
            },
            Func::Dot => unreachable!("typed by `dot`"),
        })
    }

    /// The dimension of `f`'s value, with the rules its arguments' dimensions follow.
    fn call_dim(&mut self, f: Func, args: &[Expr], types: &[Type]) -> D {
        self.dims.as_ref()?;
        let dim = |i: usize| types[i].dim;
        match f {
            Func::Unary(Unary::Sqrt) => self.root(&args[0], dim(0), 2, "sqrt", "even"),
            Func::Unary(Unary::Cbrt) => self.root(&args[0], dim(0), 3, "cbrt", "multiples of 3"),
            Func::Unary(Unary::Abs) => dim(0),
            Func::Unary(_)
            | Func::Rpy
            | Func::RotX
            | Func::RotY
            | Func::RotZ
            | Func::Rot
            | Func::Quat => Some(Dim::ONE),
            Func::Atan2 | Func::Hypot => {
                if let (Some(dy), Some(dx)) = (dim(0), dim(1)) {
                    if dy != dx {
                        self.dimension_error(
                            args[1].extent(),
                            format!(
                                "`{}` takes two arguments of one dimension: `{}` is {dy}, `{}` is {dx}",
                                f.name(),
                                super::dims::text(&args[0]),
                                super::dims::text(&args[1]),
                            ),
                        );
                        return (f == Func::Atan2).then_some(Dim::ONE);
                    }
                }
                match f {
                    Func::Atan2 => Some(Dim::ONE),
                    _ => dim(0).or(dim(1)),
                }
            }
            Func::Powi | Func::Powf => self.power_dim(&args[0], &args[1], dim(0)),
            Func::Diag | Func::Inertia => {
                let items: Vec<(&Expr, D)> =
                    args.iter().zip(types).map(|(a, t)| (a, t.dim)).collect();
                self.agree(&items, None, Agreement::Elements)
            }
            Func::Inner | Func::Cross => Some(dim(0)?.mul(dim(1)?)),
            Func::Norm | Func::Transpose => dim(0),
            Func::AngularVelocity | Func::BodyAngularVelocity => {
                self.rotation_dim(
                    &args[0],
                    dim(0),
                    "an angular velocity is that of a rotation, which",
                );
                Some(Dim::HERTZ)
            }
            Func::Dot => unreachable!("typed by `dot`"),
        }
    }

    /// `dot(e)`: of what moves with the motion, not of time, a parameter or an input.
    fn dot(&mut self, arg: &Expr) -> Option<Type> {
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
        let t = self.expr(arg)?;
        Some(Type {
            shape: t.shape,
            dim: t.dim.map(|d| d.div(Dim::SECOND)),
        })
    }
}
