//! Names and scopes: every declaration is collected, every name used is resolved, every
//! function call has a known function and a valid number of arguments. Errors point at
//! the user's tokens; all of them are collected, and typing still runs after them so that
//! shape mistakes are reported in the same build. Parameters' defaults are evaluated here.

use crate::ast::{BinOp, Declared, Energy, Expr, Header, Model, Parameter, Statement};
use crate::errors::{closest, nearest, Errors};
use crate::func::{Arity, Builtin, Func};
use proc_macro2::Span;
use std::collections::HashMap;
use syn::ext::IdentExt;
use syn::punctuated::Punctuated;
use syn::{Ident, Token};

/// What a reserved name that is not a function's means: a built-in name's meaning, or
/// `dot`'s (a function, but named for its meaning here).
fn reserved(name: &str) -> Option<&'static str> {
    match Builtin::from_name(name) {
        Some(builtin) => Some(builtin.meaning()),
        None => (name == Func::Dot.name()).then_some("the time derivative"),
    }
}

/// What a declared name stands for, with its index among its kind.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Symbol {
    Parameter(usize),
    Coordinate(usize),
    Input(usize),
    Let(usize),
    Constraint(usize),
    /// A candidate contact (`contact name = …;`), by its index among the contacts.
    Contact(usize),
}

impl Symbol {
    fn kind(self) -> &'static str {
        match self {
            Symbol::Parameter(_) => "parameter",
            Symbol::Coordinate(_) => "coordinate",
            Symbol::Input(_) => "input",
            Symbol::Let(_) => "let",
            Symbol::Constraint(_) => "constraint",
            Symbol::Contact(_) => "contact",
        }
    }
}

/// The name under which an identifier is declared and looked up: `r#a` and `a` are one
/// identifier in Rust, so they are one name here.
pub fn key(ident: &Ident) -> String {
    ident.unraw().to_string()
}

/// A model with its declarations collected and its names resolved.
pub struct Checked<'a> {
    pub model: &'a Model,
    pub parameters: Vec<&'a Parameter>,
    /// Each parameter's default, evaluated (`None` when it has none or it has an error).
    pub defaults: Vec<Option<f64>>,
    pub coordinates: Vec<&'a Declared>,
    pub inputs: Vec<&'a Declared>,
    pub symbols: HashMap<String, Symbol>,
    /// The statement index of each let.
    pub let_statement: Vec<usize>,
    /// Names whose declaration was refused (reserved, a function's, or declared twice):
    /// what their uses would say follows from a guess of what was meant.
    pub contested: Vec<String>,
}

impl Checked<'_> {
    pub fn symbol(&self, ident: &Ident) -> Option<Symbol> {
        self.symbols.get(&key(ident)).copied()
    }

    /// Whether `ident`'s declaration was refused, so that a use of it is reported no more.
    pub fn contested(&self, ident: &Ident) -> bool {
        self.contested.contains(&key(ident))
    }
}

/// Collects the declarations and checks every name; errors go to `errors`.
pub fn check<'a>(model: &'a Model, errors: &mut Errors) -> Checked<'a> {
    let mut cx = Checker {
        model,
        errors,
        symbols: HashMap::new(),
        declared_at: HashMap::new(),
        declared_order: Vec::new(),
        contested: Vec::new(),
        let_statement: Vec::new(),
        parameters: Vec::new(),
        coordinates: Vec::new(),
        inputs: Vec::new(),
        energies: [None; 3],
    };
    cx.declare();
    cx.check_derives();
    cx.check_statements();
    cx.check_required();
    let defaults = cx.defaults();
    Checked {
        model,
        defaults,
        parameters: cx.parameters,
        coordinates: cx.coordinates,
        inputs: cx.inputs,
        symbols: cx.symbols,
        let_statement: cx.let_statement,
        contested: cx.contested,
    }
}

impl Checker<'_, '_> {
    /// `#[derive(Default)]` would conflict with the generated `Default` (the declared
    /// defaults) when every parameter has one. (`Debug`, `Clone`, `Copy` and `PartialEq`
    /// may be derived: the macro then leaves them out of its own derive.)
    fn check_derives(&mut self) {
        if !self.parameters.iter().all(|p| p.default.is_some()) {
            return;
        }
        for path in user_derives(&self.model.header) {
            if path.segments.last().is_some_and(|s| s.ident == "Default") {
                self.errors.spanning(
                    &path,
                    "`Default` is already implemented with the declared defaults, as every parameter has one: remove it from the `derive`",
                );
            }
        }
    }
}

/// The traits the model's `#[derive(...)]` attributes name.
pub fn user_derives(header: &Header) -> Vec<syn::Path> {
    let parser = Punctuated::<syn::Path, Token![,]>::parse_terminated;
    header
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .filter_map(|a| a.parse_args_with(parser).ok())
        .flatten()
        .collect()
}

struct Checker<'a, 'e> {
    model: &'a Model,
    errors: &'e mut Errors,
    symbols: HashMap<String, Symbol>,
    /// Where each name was declared, for "declared twice" errors.
    declared_at: HashMap<String, Span>,
    /// Every declaration in order, for suggestions that do not depend on hashing.
    declared_order: Vec<String>,
    /// Names whose declaration was refused (reserved or function names, and second
    /// declarations), [`Checked::contested`]: their uses are not reported again (a name
    /// declared twice resolves to its first declaration, and is checked as that).
    contested: Vec<String>,
    let_statement: Vec<usize>,
    parameters: Vec<&'a Parameter>,
    coordinates: Vec<&'a Declared>,
    inputs: Vec<&'a Declared>,
    /// The keyword of the kinetic, potential and dissipation statements, once given.
    energies: [Option<&'a Ident>; 3],
}

impl<'a> Checker<'a, '_> {
    /// Collects every declaration, so that names can be resolved in any statement.
    fn declare(&mut self) {
        let (mut constraints, mut contacts) = (0, 0);
        for (index, statement) in self.model.statements.iter().enumerate() {
            match statement {
                Statement::Parameters(items) => {
                    for p in items {
                        self.declare_name(&p.name, Symbol::Parameter(self.parameters.len()));
                        self.parameters.push(p);
                    }
                }
                Statement::Coordinates(names) => {
                    for n in names {
                        self.declare_name(&n.name, Symbol::Coordinate(self.coordinates.len()));
                        self.coordinates.push(n);
                    }
                }
                Statement::Inputs(names) => {
                    for n in names {
                        self.declare_name(&n.name, Symbol::Input(self.inputs.len()));
                        self.inputs.push(n);
                    }
                }
                Statement::Let { name, .. } => {
                    self.declare_name(name, Symbol::Let(self.let_statement.len()));
                    self.let_statement.push(index);
                }
                Statement::Constraint { name, .. } => {
                    self.declare_name(name, Symbol::Constraint(constraints));
                    constraints += 1;
                }
                Statement::Contact { name, .. } => {
                    self.declare_name(name, Symbol::Contact(contacts));
                    contacts += 1;
                }
                Statement::Energy { .. } | Statement::Force { .. } | Statement::Torque { .. } => {}
                // Replaced by the statements of its file before checking (`urdf/`).
                Statement::Urdf { .. } => {}
            }
        }
    }

    fn declare_name(&mut self, ident: &Ident, symbol: Symbol) {
        let name = key(ident);
        if let Some(meaning) = reserved(&name) {
            self.contested.push(name.clone());
            return self.errors.at(
                ident.span(),
                format!("`{name}` is reserved (it means {meaning}) and cannot be declared"),
            );
        }
        if Func::from_name(&name).is_some() {
            self.contested.push(name.clone());
            return self.errors.at(
                ident.span(),
                format!("`{name}` is the name of a function and cannot be declared"),
            );
        }
        if let Some(first) = self.declared_at.get(&name) {
            let previous = self.symbols[&name].kind();
            self.errors.at(
                ident.span(),
                format!("`{name}` is declared twice: it is already a {previous}"),
            );
            self.errors
                .at(*first, format!("`{name}` is first declared here"));
            self.contested.push(name);
            return;
        }
        self.declared_at.insert(name.clone(), ident.span());
        self.declared_order.push(name.clone());
        self.symbols.insert(name, symbol);
    }

    fn check_statements(&mut self) {
        for (index, statement) in self.model.statements.iter().enumerate() {
            match statement {
                Statement::Parameters(items) => {
                    for p in items {
                        if let Some(default) = &p.default {
                            self.check_default(default);
                        }
                    }
                }
                Statement::Let { value, .. } | Statement::Constraint { value, .. } => {
                    self.resolve(value, index);
                }
                Statement::Energy {
                    kind,
                    keyword,
                    value,
                } => {
                    self.resolve(value, index);
                    self.given_once(*kind, keyword);
                }
                Statement::Force { force: a, point: b }
                | Statement::Torque {
                    torque: a,
                    rotation: b,
                    ..
                } => {
                    self.resolve(a, index);
                    self.resolve(b, index);
                }
                Statement::Contact {
                    rotation, point, ..
                } => {
                    if let Some(r) = rotation {
                        self.resolve(r, index);
                    }
                    self.resolve(point, index);
                }
                Statement::Coordinates(_) | Statement::Inputs(_) | Statement::Urdf { .. } => {}
            }
        }
    }

    fn given_once(&mut self, kind: Energy, keyword: &'a Ident) {
        let slot = &mut self.energies[kind as usize];
        if let Some(first) = slot {
            let first = first.span();
            let word = kind.keyword();
            self.errors
                .at(keyword.span(), format!("`{word}` is given twice"));
            self.errors
                .at(first, format!("`{word}` is first given here"));
        } else {
            *slot = Some(keyword);
        }
    }

    /// A model needs coordinates and a kinetic energy.
    fn check_required(&mut self) {
        let name = &self.model.header.name;
        if self.coordinates.is_empty() {
            self.errors.at(
                name.span(),
                format!("model `{name}` declares no coordinates\n= help: add a statement like `coordinates: x, theta;`"),
            );
        }
        if self.energies[0].is_none() {
            self.errors.at(
                name.span(),
                format!("model `{name}` has no kinetic energy\n= help: add a statement like `kinetic = m/2 * dot(x)^2;`"),
            );
        }
    }

    /// Each parameter's default, evaluated once `check_default` has found it constant.
    fn defaults(&mut self) -> Vec<Option<f64>> {
        let parameters = self.parameters.clone();
        parameters
            .iter()
            .map(|p| {
                let e = p.default.as_ref()?;
                let value = constant(e)?;
                if !value.is_finite() {
                    self.errors.spanning(
                        e.extent(),
                        format!("this default evaluates to {value}, not a finite number"),
                    );
                    return None;
                }
                Some(value)
            })
            .collect()
    }

    /// A parameter's default: a constant scalar expression of literals, `pi` and the scalar
    /// functions.
    fn check_default(&mut self, e: &Expr) {
        match e {
            Expr::Number(_) => {}
            Expr::Name(ident) if Builtin::from_name(&key(ident)) == Some(Builtin::Pi) => {}
            Expr::Name(ident) => self.errors.at(
                ident.span(),
                format!("a parameter's default is a constant: literals, `pi` and functions such as `sqrt(2)/2`, not `{ident}`"),
            ),
            Expr::Neg { operand: x, .. } | Expr::Paren { inner: x, .. } => self.check_default(x),
            Expr::Binary { lhs, rhs, .. } => {
                self.check_default(lhs);
                self.check_default(rhs);
            }
            Expr::Call { func, args, method, .. } => {
                match Func::from_name(&key(func)) {
                    Some(f) if f.is_scalar() => self.check_call(func, f, args, *method),
                    _ => self.errors.at(
                        func.span(),
                        format!("a parameter's default is a constant scalar: `{func}` is not one of the scalar functions"),
                    ),
                }
                for a in args {
                    self.check_default(a);
                }
            }
            Expr::List { .. } | Expr::Index { .. } | Expr::Component { .. } => {
                self.errors.spanning(
                    e.extent(),
                    "a parameter's default is a scalar: parameters are scalars",
                );
            }
            Expr::Quantity { .. } => {
                self.errors.spanning(
                    e.extent(),
                    "a parameter has one unit, written last: `a = 1.5 [m]`",
                );
            }
        }
    }

    /// Resolves every name in `expr`, used in statement `at`.
    fn resolve(&mut self, expr: &Expr, at: usize) {
        match expr {
            Expr::Number(_) => {}
            Expr::Name(ident) => self.resolve_name(ident, at),
            Expr::Neg { operand: x, .. }
            | Expr::Paren { inner: x, .. }
            | Expr::Index { base: x, .. }
            | Expr::Component { base: x, .. }
            | Expr::Quantity { value: x, .. } => self.resolve(x, at),
            Expr::Binary { lhs, rhs, .. } => {
                self.resolve(lhs, at);
                self.resolve(rhs, at);
            }
            Expr::List { items, .. } => {
                for item in items {
                    self.resolve(item, at);
                }
            }
            Expr::Call {
                func, args, method, ..
            } => {
                match Func::from_name(&key(func)) {
                    Some(f) => self.check_call(func, f, args, *method),
                    None => self.unknown_function(func),
                }
                for a in args {
                    self.resolve(a, at);
                }
            }
        }
    }

    fn resolve_name(&mut self, ident: &Ident, at: usize) {
        let name = key(ident);
        if self.contested.contains(&name) && !self.symbols.contains_key(&name) {
            return;
        }
        if Builtin::from_name(&name).is_some() {
            return;
        }
        if name == Func::Dot.name() {
            return self
                .errors
                .at(ident.span(), "`dot` is the time derivative: write `dot(x)`");
        }
        if Func::from_name(&name).is_some() {
            return self.errors.at(
                ident.span(),
                format!("`{name}` is a function: call it as `{name}(x)` or `x.{name}()`"),
            );
        }
        match self.symbols.get(&name).copied() {
            Some(Symbol::Parameter(_) | Symbol::Coordinate(_) | Symbol::Input(_)) => {}
            Some(Symbol::Let(i)) => self.check_let_order(ident, i, at),
            Some(Symbol::Constraint(_)) => self.errors.at(
                ident.span(),
                format!("`{name}` is a constraint and has no value to use in an expression"),
            ),
            Some(Symbol::Contact(_)) => self.errors.at(
                ident.span(),
                format!("`{name}` is a contact and has no value to use in an expression\n= help: name its point in a `let` and use that"),
            ),
            None => self.unknown_name(ident, at),
        }
    }

    fn check_let_order(&mut self, ident: &Ident, index: usize, at: usize) {
        let defined = self.let_statement[index];
        if defined == at {
            self.errors.at(
                ident.span(),
                format!("`{ident}` is used in its own definition"),
            );
        } else if defined > at {
            self.errors.at(
                ident.span(),
                format!("`{ident}` is used before its definition: move `let {ident} = …;` above this statement"),
            );
        }
    }

    fn unknown_name(&mut self, ident: &Ident, at: usize) {
        let name = key(ident);
        // Lets defined at or after this statement are no answer: they cannot be used here.
        let usable = |n: &&String| match self.symbols.get(n.as_str()) {
            Some(Symbol::Let(i)) => self.let_statement[*i] < at,
            Some(Symbol::Constraint(_) | Symbol::Contact(_)) => false,
            _ => true,
        };
        let declared = self
            .declared_order
            .iter()
            .filter(usable)
            .map(String::as_str)
            .chain(Builtin::all().map(Builtin::name).collect::<Vec<_>>());
        let hint = closest(&name, declared)
            .map(|c| format!(", did you mean `{c}`?"))
            .unwrap_or_default();
        let fixed = self
            .model
            .robot
            .as_ref()
            .and_then(|r| r.fixed_joints.iter().find(|(j, _)| *j == name));
        if let Some((_, child)) = fixed {
            return self.errors.at(
                ident.span(),
                format!("unknown name `{name}`: it is a fixed joint of the URDF file, which has no coordinate (only revolute, continuous and prismatic joints are coordinates, named by the joint)\n= note: what it joins moves with its parent; its child link's frame is `{child}_R`, `{child}_p`"),
            );
        }
        let note = self.declared_names(&name);
        self.errors.at(
            ident.span(),
            format!("unknown name `{name}`{hint}\n= note: {note}"),
        );
    }

    /// "coordinates: a, b; parameters: m" — the declared names by kind; beyond
    /// [`LISTED_NAMES`], how many of each kind and the few closest to `name` (a robot read
    /// from a URDF declares a `let` per link: Talos's list was 5.3 KB on one line).
    fn declared_names(&self, name: &str) -> String {
        let list = |names: Vec<&Ident>| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let lets: Vec<&Ident> = self
            .model
            .statements
            .iter()
            .filter_map(|s| match s {
                Statement::Let { name, .. } => Some(name),
                _ => None,
            })
            .collect();
        let groups = [
            (
                "coordinates",
                list(self.coordinates.iter().map(|d| &d.name).collect()),
            ),
            (
                "parameters",
                list(self.parameters.iter().map(|p| &p.name).collect()),
            ),
            (
                "inputs",
                list(self.inputs.iter().map(|d| &d.name).collect()),
            ),
            ("lets", list(lets)),
        ];
        let total: usize = groups.iter().map(|(_, names)| names.len()).sum();
        if total > LISTED_NAMES {
            let counts: Vec<String> = groups
                .iter()
                .filter(|(_, names)| !names.is_empty())
                .map(|(kind, names)| match names.len() {
                    1 => format!("1 {}", kind.trim_end_matches('s')),
                    n => format!("{n} {kind}"),
                })
                .collect();
            let all = groups
                .iter()
                .flat_map(|(_, names)| names.iter().map(|n| n.as_str()));
            let near: Vec<String> = nearest(name, all, CLOSEST_NAMES)
                .into_iter()
                .map(|n| format!("`{n}`"))
                .collect();
            return format!(
                "{total} names are declared ({}); the closest to `{name}`: {}",
                counts.join(", "),
                near.join(", ")
            );
        }
        let parts: Vec<String> = groups
            .iter()
            .filter(|(_, names)| !names.is_empty())
            .map(|(kind, names)| format!("{kind}: {}", names.join(", ")))
            .collect();
        if parts.is_empty() {
            "nothing is declared yet".into()
        } else {
            parts.join("; ")
        }
    }

    fn check_call(&mut self, func: &Ident, f: Func, args: &[Expr], method: bool) {
        let arity = f.arity();
        if !arity.accepts(args.len()) {
            return self.wrong_arity(func, arity, args.len(), method);
        }
        if f == Func::Powi && args[1].integer().is_none() {
            let whole = args[1].literal().is_some_and(|v| v.fract() == 0.0);
            let message = if whole {
                format!("the exponent of `powi` is out of range: an `i32`, from {} to {}; use `powf` or `^` for larger exponents", i32::MIN + 1, i32::MAX)
            } else {
                "the exponent of `powi` must be an integer literal; use `powf` or `^` for other exponents".to_string()
            };
            self.errors.spanning(args[1].extent(), message);
        }
    }

    fn unknown_function(&mut self, func: &Ident) {
        let name = key(func);
        if let Some(builtin) = Builtin::from_name(&name) {
            let meaning = builtin.meaning();
            return self.errors.at(
                func.span(),
                format!("`{name}` is {meaning}, not a function: multiplication is written `{name} * (…)`"),
            );
        }
        if let Some(symbol) = self.symbols.get(&name) {
            let kind = symbol.kind();
            return self.errors.at(
                func.span(),
                format!("`{name}` is a {kind}, not a function: multiplication is written `{name} * (…)`"),
            );
        }
        let known: Vec<&str> = Func::all().map(Func::name).collect();
        let hint = closest(&name, known.iter().copied())
            .map(|c| format!(", did you mean `{c}`?"))
            .unwrap_or_default();
        self.errors.at(
            func.span(),
            format!(
                "unknown function `{name}`{hint}\n= note: functions: {}",
                known.join(", ")
            ),
        );
    }

    fn wrong_arity(&mut self, func: &Ident, arity: Arity, found: usize, method: bool) {
        let count = |n: usize| match n {
            0 => "no arguments".to_string(),
            1 => "1 argument".to_string(),
            n => format!("{n} arguments"),
        };
        let (offset, call) = if method {
            (1, format!("`.{func}()`"))
        } else {
            (0, format!("`{func}`"))
        };
        let want = match arity {
            Arity::Exactly(n) => count(n - offset),
            Arity::AtLeast(n) => format!("at least {}", count(n - offset)),
        };
        self.errors.at(
            func.span(),
            format!("{call} takes {want}, found {}", found - offset),
        );
    }
}

/// An unknown name's note lists every declared name up to this many; beyond, it counts them
/// by kind and shows the [`CLOSEST_NAMES`] closest to the unknown one.
const LISTED_NAMES: usize = 24;

/// How many of the closest names a long list is cut to.
const CLOSEST_NAMES: usize = 5;

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
