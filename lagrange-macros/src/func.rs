//! The functions and built-in names of the language: enums that the checker, the
//! lowering and the code generators match on exhaustively, so that a function or a name
//! one stage forgets is a compile error in this crate, never a wrong number at run time.

names! {
    /// A name with a fixed meaning that is not a function: reserved, never declared.
    pub enum Builtin {
        /// `t`, time.
        Time = "t",
        /// `pi`, the constant π.
        Pi = "pi",
    }
}

impl Builtin {
    /// What the name means, for error messages.
    pub fn meaning(self) -> &'static str {
        match self {
            Builtin::Time => "time",
            Builtin::Pi => "the constant π",
        }
    }
}

names! {
    /// A function a model can call, free (`sin(x)`) or as a method (`x.sin()`).
    pub enum Func {
        /// A scalar function of one scalar, applied as it is in the lowered form.
        Unary(Unary),
        Atan2 = "atan2",
        Hypot = "hypot",
        Powi = "powi",
        Powf = "powf",
        /// The total time derivative.
        Dot = "dot",
        Diag = "diag",
        RotX = "rot_x",
        RotY = "rot_y",
        RotZ = "rot_z",
        Rot = "rot",
        /// URDF's roll, pitch, yaw: `rot_z(y) * rot_y(p) * rot_x(r)`.
        Rpy = "rpy",
        /// The symmetric 3×3 inertia matrix from ixx, ixy, ixz, iyy, iyz, izz.
        Inertia = "inertia",
        Quat = "quat",
        Inner = "inner",
        Cross = "cross",
        Norm = "norm",
        Transpose = "transpose",
        AngularVelocity = "angular_velocity",
        BodyAngularVelocity = "body_angular_velocity",
    }
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
            Func::Rpy => Arity::Exactly(3),
            Func::Quat => Arity::Exactly(4),
            Func::Inertia => Arity::Exactly(6),
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
            | Func::Rpy
            | Func::Inertia
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

names! {
    /// The scalar functions of one argument that remain in the lowered form. The runtime's
    /// `functions` (any dual number) and `jet` (value, f′, f″ in `f64`) modules have one
    /// function of the same name for each.
    pub enum Unary {
        Sin = "sin",
        Cos = "cos",
        Tan = "tan",
        Asin = "asin",
        Acos = "acos",
        Atan = "atan",
        Sinh = "sinh",
        Cosh = "cosh",
        Tanh = "tanh",
        Exp = "exp",
        Ln = "ln",
        Log10 = "log10",
        Sqrt = "sqrt",
        Cbrt = "cbrt",
        Abs = "abs",
    }
}

impl Unary {
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

    /// Every function is called by a model that the integration tests compile against the
    /// runtime and check numerically (`tests/fast_path.rs` compares the fast paths with
    /// the generic passes for every scalar function; `tests/vector_language.rs` the vector
    /// ones): a function missing in the runtime's `functions` or `jet`, or in a
    /// generator, then fails there.
    #[test]
    fn every_function_is_exercised_by_the_integration_tests() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/");
        let text: String = ["fast_path.rs", "vector_language.rs"]
            .iter()
            .map(|f| std::fs::read_to_string(format!("{root}{f}")).expect("the test file"))
            .collect();
        let called = |name: &str| {
            text.match_indices(&format!("{name}(")).any(|(i, _)| {
                let before = text[..i].chars().next_back();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        };
        let missing: Vec<&str> = Func::all().map(Func::name).filter(|n| !called(n)).collect();
        assert!(
            missing.is_empty(),
            "no model in tests/fast_path.rs or tests/vector_language.rs calls {missing:?}"
        );
    }
}
