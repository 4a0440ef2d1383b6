//! The functions and built-in names of the language: enums that the checker, the
//! lowering and the code generators match on exhaustively, so that a function or a name
//! one stage forgets is a compile error in this crate, never a wrong number at run time.

/// A name with a fixed meaning that is not a function: reserved, never declared.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Builtin {
    /// `t`, time.
    Time,
    /// `pi`, the constant π.
    Pi,
}

impl Builtin {
    pub const ALL: [Builtin; 2] = [Builtin::Time, Builtin::Pi];

    pub fn name(self) -> &'static str {
        match self {
            Builtin::Time => "t",
            Builtin::Pi => "pi",
        }
    }

    /// What the name means, for error messages.
    pub fn meaning(self) -> &'static str {
        match self {
            Builtin::Time => "time",
            Builtin::Pi => "the constant π",
        }
    }

    pub fn from_name(name: &str) -> Option<Builtin> {
        Builtin::ALL.into_iter().find(|b| b.name() == name)
    }
}

/// A function a model can call, free (`sin(x)`) or as a method (`x.sin()`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Func {
    /// A scalar function of one scalar, applied as it is in the lowered form.
    Unary(Unary),
    Atan2,
    Hypot,
    Powi,
    Powf,
    /// The total time derivative.
    Dot,
    Diag,
    RotX,
    RotY,
    RotZ,
    Rot,
    Quat,
    Inner,
    Cross,
    Norm,
    Transpose,
    AngularVelocity,
    BodyAngularVelocity,
}

/// How many arguments a function takes (the receiver of a method call counts).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Arity {
    Exactly(usize),
    AtLeast(usize),
}

impl Arity {
    pub fn accepts(self, n: usize) -> bool {
        match self {
            Arity::Exactly(k) => n == k,
            Arity::AtLeast(k) => n >= k,
        }
    }
}

impl Func {
    /// Every function, in the order the error messages list them.
    pub fn all() -> impl Iterator<Item = Func> {
        Unary::ALL.into_iter().map(Func::Unary).chain([
            Func::Atan2,
            Func::Hypot,
            Func::Powi,
            Func::Powf,
            Func::Dot,
            Func::Diag,
            Func::RotX,
            Func::RotY,
            Func::RotZ,
            Func::Rot,
            Func::Quat,
            Func::Inner,
            Func::Cross,
            Func::Norm,
            Func::Transpose,
            Func::AngularVelocity,
            Func::BodyAngularVelocity,
        ])
    }

    pub fn from_name(name: &str) -> Option<Func> {
        Func::all().find(|f| f.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Func::Unary(f) => f.name(),
            Func::Atan2 => "atan2",
            Func::Hypot => "hypot",
            Func::Powi => "powi",
            Func::Powf => "powf",
            Func::Dot => "dot",
            Func::Diag => "diag",
            Func::RotX => "rot_x",
            Func::RotY => "rot_y",
            Func::RotZ => "rot_z",
            Func::Rot => "rot",
            Func::Quat => "quat",
            Func::Inner => "inner",
            Func::Cross => "cross",
            Func::Norm => "norm",
            Func::Transpose => "transpose",
            Func::AngularVelocity => "angular_velocity",
            Func::BodyAngularVelocity => "body_angular_velocity",
        }
    }

    pub fn arity(self) -> Arity {
        match self {
            Func::Unary(_)
            | Func::Dot
            | Func::RotX
            | Func::RotY
            | Func::RotZ
            | Func::Norm
            | Func::Transpose
            | Func::AngularVelocity
            | Func::BodyAngularVelocity => Arity::Exactly(1),
            Func::Atan2
            | Func::Hypot
            | Func::Powi
            | Func::Powf
            | Func::Rot
            | Func::Inner
            | Func::Cross => Arity::Exactly(2),
            Func::Quat => Arity::Exactly(4),
            Func::Diag => Arity::AtLeast(1),
        }
    }

    /// Whether the function takes and returns scalars only (a parameter's default may use
    /// these).
    pub fn is_scalar(self) -> bool {
        match self {
            Func::Unary(_) | Func::Atan2 | Func::Hypot | Func::Powi | Func::Powf => true,
            Func::Dot
            | Func::Diag
            | Func::RotX
            | Func::RotY
            | Func::RotZ
            | Func::Rot
            | Func::Quat
            | Func::Inner
            | Func::Cross
            | Func::Norm
            | Func::Transpose
            | Func::AngularVelocity
            | Func::BodyAngularVelocity => false,
        }
    }
}

/// The scalar functions of one argument that remain in the lowered form. The runtime's
/// `functions` (any dual number) and `jet` (value, f′, f″ in `f64`) modules have one
/// function of the same name for each.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Unary {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Exp,
    Ln,
    Log10,
    Sqrt,
    Cbrt,
    Abs,
}

impl Unary {
    pub const ALL: [Unary; 15] = [
        Unary::Sin,
        Unary::Cos,
        Unary::Tan,
        Unary::Asin,
        Unary::Acos,
        Unary::Atan,
        Unary::Sinh,
        Unary::Cosh,
        Unary::Tanh,
        Unary::Exp,
        Unary::Ln,
        Unary::Log10,
        Unary::Sqrt,
        Unary::Cbrt,
        Unary::Abs,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Unary::Sin => "sin",
            Unary::Cos => "cos",
            Unary::Tan => "tan",
            Unary::Asin => "asin",
            Unary::Acos => "acos",
            Unary::Atan => "atan",
            Unary::Sinh => "sinh",
            Unary::Cosh => "cosh",
            Unary::Tanh => "tanh",
            Unary::Exp => "exp",
            Unary::Ln => "ln",
            Unary::Log10 => "log10",
            Unary::Sqrt => "sqrt",
            Unary::Cbrt => "cbrt",
            Unary::Abs => "abs",
        }
    }

    /// The value at a constant argument, for constant folding and parameter defaults.
    pub fn eval(self, x: f64) -> f64 {
        match self {
            Unary::Sin => x.sin(),
            Unary::Cos => x.cos(),
            Unary::Tan => x.tan(),
            Unary::Asin => x.asin(),
            Unary::Acos => x.acos(),
            Unary::Atan => x.atan(),
            Unary::Sinh => x.sinh(),
            Unary::Cosh => x.cosh(),
            Unary::Tanh => x.tanh(),
            Unary::Exp => x.exp(),
            Unary::Ln => x.ln(),
            Unary::Log10 => x.log10(),
            Unary::Sqrt => x.sqrt(),
            Unary::Cbrt => x.cbrt(),
            Unary::Abs => x.abs(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let all: Vec<Func> = Func::all().collect();
        for f in &all {
            assert_eq!(Func::from_name(f.name()), Some(*f));
        }
        let mut names: Vec<&str> = all.iter().map(|f| f.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
    }
}
