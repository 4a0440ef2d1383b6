//! The syntax tree of a `lagrangian!` model. Every node keeps the spans of the tokens it
//! came from, so any rule can point at the user's text.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::{Attribute, Ident, Visibility};

/// `#[attrs] vis struct Name { statements }`.
pub struct Model {
    pub header: Header,
    pub statements: Vec<Statement>,
    /// What an `urdf:` statement brought besides statements, once spliced (`urdf/`).
    pub robot: Option<Robot>,
}

/// A joint of a URDF file that has a coordinate.
#[derive(Clone, Debug, PartialEq)]
pub struct RobotJoint {
    /// Its coordinate's name in the language (the file's name, mangled).
    pub name: String,
    /// Its name in the file.
    pub file_name: String,
    /// Its `<limit lower upper velocity effort>`, if any.
    pub limit: Option<[f64; 4]>,
    /// Its `<dynamics friction>`, 0 where the file gives none.
    pub friction: f64,
    /// Its `<dynamics damping>` (`urdf_dissipation`), 0 where the file gives none.
    pub damping: f64,
}

/// What a URDF file gives a model besides its statements.
#[derive(Clone)]
pub struct Robot {
    /// The file, absolute, so that the generated code can make rustc track it.
    pub file: String,
    /// Each joint that has a coordinate, in the order of the coordinates.
    pub joints: Vec<RobotJoint>,
    /// Each fixed joint's name in the language, with its child link's: names that are not
    /// coordinates, which an unknown-name error explains.
    pub fixed_joints: Vec<(String, String)>,
    /// The tree as the writer wrote the momenta, for `jacobians` (`expand::lets`).
    pub tree: RobotTree,
}

/// A robot's tree as the URDF writer wrote `urdf_momentum` and `urdf_angular_momentum`
/// (`urdf::writer`), whose rows `jacobians` computes from it at run time
/// (`lagrange_runtime::centroidal`, whose types mirror these).
#[derive(Clone)]
pub struct RobotTree {
    pub floating: bool,
    /// The links whose frames were written, the root first, each after its parent.
    pub links: Vec<TreeLink>,
    /// The links that move and carry mass or inertia, in the order of `links`.
    pub bodies: Vec<TreeBody>,
}

/// A link and the joint from its parent ([`RobotTree::links`]).
#[derive(Clone)]
pub struct TreeLink {
    /// Its identifier, the stem of its `let`s (`<name>_p`, `<name>_c`).
    pub name: String,
    /// Its centre of mass in its frame (zero without an `<inertial>`): `<name>_c` is
    /// `<name>_p + <name>_R * com`.
    pub com: [f64; 3],
    /// Its parent's index in [`RobotTree::links`] (the root: its own).
    pub parent: usize,
    pub joint: TreeJoint,
    pub xyz: [f64; 3],
    /// The joint's `rpy` rotation, `None` for the identity.
    pub rpy: Option<[[f64; 3]; 3]>,
}

/// How a link moves relative to its parent, the coordinate by index.
#[derive(Clone)]
pub enum TreeJoint {
    Root,
    Fixed,
    Revolute {
        coordinate: usize,
        axis: [f64; 3],
        along: [f64; 3],
    },
    Prismatic {
        coordinate: usize,
        along: [f64; 3],
    },
}

/// A body of the momenta ([`RobotTree::bodies`]).
#[derive(Clone)]
pub struct TreeBody {
    pub link: usize,
    pub mass: f64,
    pub com: [f64; 3],
    /// `None`: no rotational term.
    pub inertia: Option<TreeInertia>,
}

/// A body's rotational terms as the writer wrote them ([`TreeBody::inertia`]): the nonzero
/// pivots and columns of I = L D Lᵀ, or (`Err`) the tensor without that factorization.
pub type TreeInertia = Result<Vec<(f64, [f64; 3])>, [[f64; 3]; 3]>;

/// `#[attrs] vis struct Name`: what every generated item is named by and carries along
/// (the lowered form keeps a copy, so code generation never reads the syntax tree).
#[derive(Clone)]
pub struct Header {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
}

/// One `;`-terminated statement of the body.
pub enum Statement {
    /// `parameters: a, b = 2.0;`
    Parameters(Vec<Parameter>),
    /// `coordinates: q1, q2;` or `coordinates: x [m], theta [rad];`
    Coordinates(Vec<Declared>),
    /// `inputs: u1;` or `inputs: tau [N*m];`
    Inputs(Vec<Declared>),
    /// `let name = expr;`
    Let { name: Ident, value: Expr },
    /// `kinetic = expr;`, `potential = expr;`, `dissipation = expr;`
    Energy {
        kind: Energy,
        keyword: Ident,
        value: Expr,
    },
    /// `force F on p;`
    Force { force: Expr, point: Expr },
    /// `torque tau on R;`
    Torque {
        keyword: Ident,
        torque: Expr,
        rotation: Expr,
    },
    /// `constraint name = expr;`
    Constraint { name: Ident, value: Expr },
    /// `contact name = p;` or `contact name = frame(R, p);`: a candidate contact, switched
    /// on and off at run time.
    Contact {
        name: Ident,
        /// The rotation of a frame contact; `None` for a point contact.
        rotation: Option<Expr>,
        point: Expr,
    },
    /// `urdf: "path";`, with `floating` and `actuated` after the path in either order,
    /// replaced by the statements the file declares before names are checked (`urdf/`).
    Urdf {
        keyword: Ident,
        path: syn::LitStr,
        floating: bool,
        actuated: bool,
    },
}

names! {
    /// The keyword that starts each kind of statement: the one list the parser, its error
    /// messages and the checker read.
    pub enum Keyword {
        Parameters = "parameters",
        Coordinates = "coordinates",
        Inputs = "inputs",
        Let = "let",
        Kinetic = "kinetic",
        Potential = "potential",
        Dissipation = "dissipation",
        Force = "force",
        Torque = "torque",
        Constraint = "constraint",
        Contact = "contact",
        Urdf = "urdf",
    }
}

impl Keyword {
    /// How the statement is written, for error messages.
    pub fn form(self) -> &'static str {
        match self {
            Keyword::Parameters => "parameters:",
            Keyword::Coordinates => "coordinates:",
            Keyword::Inputs => "inputs:",
            Keyword::Let => "let name =",
            Keyword::Kinetic => "kinetic =",
            Keyword::Potential => "potential =",
            Keyword::Dissipation => "dissipation =",
            Keyword::Force => "force F on p",
            Keyword::Torque => "torque tau on R",
            Keyword::Constraint => "constraint name =",
            Keyword::Contact => "contact name = p",
            Keyword::Urdf => "urdf: \"path\"",
        }
    }

    /// The energy the statement gives, for `kinetic`, `potential` and `dissipation`.
    pub fn energy(self) -> Option<Energy> {
        match self {
            Keyword::Kinetic => Some(Energy::Kinetic),
            Keyword::Potential => Some(Energy::Potential),
            Keyword::Dissipation => Some(Energy::Dissipation),
            Keyword::Parameters
            | Keyword::Coordinates
            | Keyword::Inputs
            | Keyword::Let
            | Keyword::Force
            | Keyword::Torque
            | Keyword::Constraint
            | Keyword::Contact
            | Keyword::Urdf => None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Energy {
    Kinetic,
    Potential,
    Dissipation,
}

impl Energy {
    pub fn keyword(self) -> &'static str {
        let keyword = match self {
            Energy::Kinetic => Keyword::Kinetic,
            Energy::Potential => Keyword::Potential,
            Energy::Dissipation => Keyword::Dissipation,
        };
        keyword.name()
    }
}

/// A parameter with its optional default value, a constant expression, and its optional
/// unit: `g = 9.81 [m/s^2]`.
pub struct Parameter {
    pub name: Ident,
    pub default: Option<Expr>,
    pub unit: Option<UnitExpr>,
}

/// A coordinate or an input, with its optional unit: `x [m]`.
pub struct Declared {
    pub name: Ident,
    pub unit: Option<UnitExpr>,
}

/// A unit as written between the brackets of a declaration: `N*m`, `m/s^2`, `kg*m^2`, `1`.
#[derive(Clone)]
pub enum UnitExpr {
    /// A unit symbol: `kg`, `N`, or one the checker rejects (`mm`).
    Symbol(Ident),
    /// `1`: dimensionless.
    One,
    Mul(Box<UnitExpr>, Box<UnitExpr>),
    Div(Box<UnitExpr>, Box<UnitExpr>),
    /// `s^-2`: an integer power.
    Pow(Box<UnitExpr>, i32),
}

/// A numeric literal, possibly negated.
#[derive(Clone, Copy)]
pub struct Number {
    pub value: f64,
    pub span: Span,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

/// An expression of the language.
#[derive(Clone)]
pub enum Expr {
    /// `2`, `0.5`
    Number(Number),
    /// A parameter, coordinate, input, let, `t` or `pi`.
    Name(Ident),
    /// `-x`
    Neg { minus: Span, operand: Box<Expr> },
    /// `a + b`, `a ^ b`, …
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `f(a, b)`, or `a.f(b)` (then `method` is true and `a` is the first argument).
    Call {
        func: Ident,
        args: Vec<Expr>,
        method: bool,
        close: Span,
    },
    /// `(e)`, kept for its span.
    Paren {
        inner: Box<Expr>,
        open: Span,
        close: Span,
    },
    /// `[a, b, c]` (a vector) or `[[a, b], [c, d]]` (a matrix, row by row).
    List {
        items: Vec<Expr>,
        open: Span,
        close: Span,
    },
    /// `v[i]` or `A[i, j]`: integer literal indices from 0.
    Index {
        base: Box<Expr>,
        indices: Vec<Index>,
        close: Span,
    },
    /// `v.x`, `v.y`, `v.z`: a component by name.
    Component { base: Box<Expr>, name: Ident },
    /// `0.333 [m]`, `[0.1, 0, 0.333] [m]`: a literal (a number, or a bracket list of them)
    /// with its unit.
    Quantity {
        value: Box<Expr>,
        unit: UnitExpr,
        close: Span,
    },
}

/// One index of `v[i]`, with its span.
#[derive(Clone, Copy)]
pub struct Index {
    pub value: usize,
    pub span: Span,
}

impl Expr {
    /// The span of the first token of the expression.
    pub fn first_span(&self) -> Span {
        match self {
            Expr::Number(n) => n.span,
            Expr::Name(i) => i.span(),
            Expr::Neg { minus, .. } => *minus,
            Expr::Binary { lhs, .. } => lhs.first_span(),
            Expr::Call {
                func, args, method, ..
            } => match (method, args.first()) {
                (true, Some(receiver)) => receiver.first_span(),
                _ => func.span(),
            },
            Expr::Paren { open, .. } | Expr::List { open, .. } => *open,
            Expr::Index { base, .. } | Expr::Component { base, .. } => base.first_span(),
            Expr::Quantity { value, .. } => value.first_span(),
        }
    }

    /// The span of the last token of the expression.
    pub fn last_span(&self) -> Span {
        match self {
            Expr::Number(n) => n.span,
            Expr::Name(i) => i.span(),
            Expr::Neg { operand, .. } => operand.last_span(),
            Expr::Binary { rhs, .. } => rhs.last_span(),
            Expr::Call { close, .. }
            | Expr::Paren { close, .. }
            | Expr::List { close, .. }
            | Expr::Index { close, .. }
            | Expr::Quantity { close, .. } => *close,
            Expr::Component { name, .. } => name.span(),
        }
    }

    /// Tokens that span the whole expression, for `syn::Error::new_spanned`.
    pub fn extent(&self) -> Extent {
        Extent(self.first_span(), self.last_span())
    }

    /// The value of an integer literal (`n` or `-n`, written with or without a decimal
    /// point) that fits an `i32`: an exponent computed as an integer power.
    pub fn integer(&self) -> Option<i32> {
        self.literal()
            .filter(|v| v.fract() == 0.0 && v.abs() <= f64::from(i32::MAX))
            .map(|v| v as i32)
    }

    /// The literal value of `n` or `-n`, if the expression is one.
    pub fn literal(&self) -> Option<f64> {
        match self {
            Expr::Number(n) => Some(n.value),
            Expr::Neg { operand, .. } => operand.literal().map(|v| -v),
            Expr::Paren { inner, .. } => inner.literal(),
            _ => None,
        }
    }
}

/// How much of a `let`'s source the generated docs quote.
pub const QUOTED: usize = 200;

impl Expr {
    /// The expression as source text ([`Display`](std::fmt::Display)), cut after `limit`
    /// characters and then ending in `…`: what the docs quote, without writing out the
    /// whole of a long one (the momentum of a long chain is megabytes of text).
    pub fn text_up_to(&self, limit: usize) -> String {
        struct Bounded {
            text: String,
            chars: usize,
            limit: usize,
        }
        impl std::fmt::Write for Bounded {
            fn write_str(&mut self, s: &str) -> std::fmt::Result {
                for c in s.chars() {
                    if self.chars == self.limit {
                        self.text.push('…');
                        return Err(std::fmt::Error);
                    }
                    self.text.push(c);
                    self.chars += 1;
                }
                Ok(())
            }
        }
        let mut out = Bounded {
            text: String::new(),
            chars: 0,
            limit,
        };
        // An error is the cut.
        let _ = std::fmt::Write::write_fmt(&mut out, format_args!("{self}"));
        out.text
    }
}

impl std::fmt::Display for Expr {
    /// The expression as source text, for error messages: `m/2 * dot(p)^2`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |f: &mut std::fmt::Formatter<'_>, items: &[Expr]| -> std::fmt::Result {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    write!(f, ", ")?;
                }
                write!(f, "{item}")?;
            }
            Ok(())
        };
        match self {
            Expr::Number(n) => write!(f, "{}", n.value),
            Expr::Name(i) => write!(f, "{i}"),
            Expr::Neg { operand, .. } => write!(f, "-{operand}"),
            Expr::Binary { op, lhs, rhs, .. } => match op {
                BinOp::Add => write!(f, "{lhs} + {rhs}"),
                BinOp::Sub => write!(f, "{lhs} - {rhs}"),
                BinOp::Mul => write!(f, "{lhs} * {rhs}"),
                BinOp::Div => write!(f, "{lhs}/{rhs}"),
                BinOp::Pow => write!(f, "{lhs}^{rhs}"),
            },
            Expr::Call {
                func, args, method, ..
            } => match (method, args.split_first()) {
                (true, Some((receiver, rest))) => {
                    write!(f, "{receiver}.{func}(")?;
                    list(f, rest)?;
                    write!(f, ")")
                }
                _ => {
                    write!(f, "{func}(")?;
                    list(f, args)?;
                    write!(f, ")")
                }
            },
            Expr::Paren { inner, .. } => write!(f, "({inner})"),
            Expr::List { items, .. } => {
                write!(f, "[")?;
                list(f, items)?;
                write!(f, "]")
            }
            Expr::Index { base, indices, .. } => {
                let indices: Vec<String> = indices.iter().map(|i| i.value.to_string()).collect();
                write!(f, "{base}[{}]", indices.join(", "))
            }
            Expr::Component { base, name } => write!(f, "{base}.{name}"),
            Expr::Quantity { value, unit, .. } => write!(f, "{value} [{unit}]"),
        }
    }
}

impl std::fmt::Display for UnitExpr {
    /// The unit as written: `kg*m^2`, `N*s/(m)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UnitExpr::Symbol(s) => write!(f, "{s}"),
            UnitExpr::One => write!(f, "1"),
            UnitExpr::Mul(a, b) => write!(f, "{a}*{b}"),
            UnitExpr::Div(a, b) => match **b {
                UnitExpr::Mul(..) | UnitExpr::Div(..) => write!(f, "{a}/({b})"),
                _ => write!(f, "{a}/{b}"),
            },
            UnitExpr::Pow(a, n) => match **a {
                UnitExpr::Symbol(_) | UnitExpr::One => write!(f, "{a}^{n}"),
                _ => write!(f, "({a})^{n}"),
            },
        }
    }
}

/// A range of source, from the first to the last token of a node. `syn::Error::new_spanned`
/// reads the first and last span of the tokens it is given, so two punctuation tokens
/// carrying those spans make an error cover the whole range on stable Rust.
#[derive(Clone, Copy)]
pub struct Extent(pub Span, pub Span);

impl ToTokens for Extent {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let mut a = proc_macro2::Punct::new('#', proc_macro2::Spacing::Alone);
        a.set_span(self.0);
        let mut b = proc_macro2::Punct::new('#', proc_macro2::Spacing::Alone);
        b.set_span(self.1);
        tokens.extend([
            proc_macro2::TokenTree::Punct(a),
            proc_macro2::TokenTree::Punct(b),
        ]);
    }
}
