//! The rules of the language: names, scopes, what `dot` and `force` accept. Every error
//! points at the user's tokens; all errors of a model are reported together.

use crate::ast::{Energy, Expr, Extent, Model, Parameter, Statement};
use crate::errors::{closest, Errors};
use proc_macro2::Span;
use std::collections::HashMap;
use syn::Ident;

/// The functions of the language and their number of arguments.
pub const FUNCTIONS: [(&str, usize); 19] = [
    ("sin", 1),
    ("cos", 1),
    ("tan", 1),
    ("asin", 1),
    ("acos", 1),
    ("atan", 1),
    ("atan2", 2),
    ("sinh", 1),
    ("cosh", 1),
    ("tanh", 1),
    ("exp", 1),
    ("ln", 1),
    ("log10", 1),
    ("sqrt", 1),
    ("cbrt", 1),
    ("abs", 1),
    ("powi", 2),
    ("powf", 2),
    ("hypot", 2),
];

/// Names with a fixed meaning that cannot be declared.
const RESERVED: [(&str, &str); 3] = [
    ("t", "time"),
    ("dot", "the time derivative"),
    ("pi", "the constant π"),
];

/// What a declared name stands for, with its index among its kind.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Symbol {
    Parameter(usize),
    Coordinate(usize),
    Input(usize),
    Let(usize),
    Constraint(usize),
}

impl Symbol {
    fn kind(self) -> &'static str {
        match self {
            Symbol::Parameter(_) => "parameter",
            Symbol::Coordinate(_) => "coordinate",
            Symbol::Input(_) => "input",
            Symbol::Let(_) => "let",
            Symbol::Constraint(_) => "constraint",
        }
    }
}

/// What a quantity depends on: a set of [`Deps::Q`], [`Deps::T`], [`Deps::QD`], [`Deps::U`].
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub struct Deps(u8);

impl Deps {
    pub const Q: Deps = Deps(1);
    pub const T: Deps = Deps(2);
    pub const QD: Deps = Deps(4);
    pub const U: Deps = Deps(8);
    /// Contains a name that already has an error: checks that depend on what the
    /// expression depends on are skipped, so one mistake gives one error.
    pub const ERR: Deps = Deps(16);

    pub fn has(self, other: Deps) -> bool {
        self.0 & other.0 != 0
    }
    pub fn is_constant(self) -> bool {
        self.0 == 0
    }
    pub fn is_known(self) -> bool {
        !self.has(Deps::ERR)
    }
    pub fn union(self, other: Deps) -> Deps {
        Deps(self.0 | other.0)
    }
}

/// A `let` with what it depends on.
pub struct Let<'a> {
    pub name: &'a Ident,
    pub value: &'a Expr,
    pub deps: Deps,
}

/// A `constraint` statement: holonomic φ(q, t) = 0, or nonholonomic and affine in the
/// velocities, A(q, t) q̇ + b(q, t) = 0.
pub struct Constraint<'a> {
    pub name: &'a Ident,
    pub value: &'a Expr,
    pub holonomic: bool,
}

/// How an expression depends on the velocities.
enum Degree {
    /// Not at all.
    Zero,
    /// Affinely: A(q, t) q̇ + b(q, t).
    Affine,
    /// Otherwise: the extent of the smallest offending sub-expression and, when it is a
    /// `let` used here, the let's name and the offending part of its definition.
    Nonlinear(Extent, Option<(String, Extent)>),
}

/// A model whose every name is resolved and every rule holds.
pub struct Checked<'a> {
    pub model: &'a Model,
    pub parameters: Vec<&'a Parameter>,
    pub coordinates: Vec<&'a Ident>,
    pub inputs: Vec<&'a Ident>,
    pub lets: Vec<Let<'a>>,
    pub kinetic: &'a Expr,
    pub potential: Option<&'a Expr>,
    pub dissipation: Option<&'a Expr>,
    pub forces: Vec<(&'a Expr, &'a Expr)>,
    pub constraints: Vec<Constraint<'a>>,
    pub symbols: HashMap<String, Symbol>,
}

/// Checks every rule; on failure returns all errors at once.
pub fn check(model: &Model) -> syn::Result<Checked<'_>> {
    let mut cx = Checker::new(model);
    cx.declare();
    cx.check_statements();
    let kinetic = cx.check_required();
    cx.errors.finish()?;
    Ok(Checked {
        model,
        parameters: cx.parameters,
        coordinates: cx.coordinates,
        inputs: cx.inputs,
        lets: cx.lets,
        kinetic: kinetic.expect("checked: kinetic present"),
        potential: cx.energies[1].map(|(_, e)| e),
        dissipation: cx.energies[2].map(|(_, e)| e),
        forces: cx.forces,
        constraints: cx.constraints,
        symbols: cx.symbols,
    })
}

struct Checker<'a> {
    model: &'a Model,
    errors: Errors,
    symbols: HashMap<String, Symbol>,
    /// Where each name was declared, for "declared twice" errors.
    declared_at: HashMap<String, Span>,
    /// Every declaration in order, for suggestions that do not depend on hashing.
    declared_order: Vec<String>,
    /// Declarations already rejected (reserved or function names): their uses are not
    /// reported again.
    rejected: Vec<String>,
    /// The statement index of each let, for "used before its definition".
    let_statement: Vec<usize>,
    parameters: Vec<&'a Parameter>,
    coordinates: Vec<&'a Ident>,
    inputs: Vec<&'a Ident>,
    lets: Vec<Let<'a>>,
    /// kinetic, potential, dissipation: the keyword and the expression.
    energies: [Option<(&'a Ident, &'a Expr)>; 3],
    forces: Vec<(&'a Expr, &'a Expr)>,
    constraints: Vec<Constraint<'a>>,
}

impl<'a> Checker<'a> {
    fn new(model: &'a Model) -> Self {
        Checker {
            model,
            errors: Errors::default(),
            symbols: HashMap::new(),
            declared_at: HashMap::new(),
            declared_order: Vec::new(),
            rejected: Vec::new(),
            let_statement: Vec::new(),
            parameters: Vec::new(),
            coordinates: Vec::new(),
            inputs: Vec::new(),
            lets: Vec::new(),
            energies: [None; 3],
            forces: Vec::new(),
            constraints: Vec::new(),
        }
    }

    /// Collects every declaration, so that names can be resolved in any statement.
    fn declare(&mut self) {
        let mut constraints = 0;
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
                        self.declare_name(n, Symbol::Coordinate(self.coordinates.len()));
                        self.coordinates.push(n);
                    }
                }
                Statement::Inputs(names) => {
                    for n in names {
                        self.declare_name(n, Symbol::Input(self.inputs.len()));
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
                Statement::Energy { .. } | Statement::Force { .. } => {}
            }
        }
    }

    fn declare_name(&mut self, ident: &Ident, symbol: Symbol) {
        let name = ident.to_string();
        if let Some((_, meaning)) = RESERVED.iter().find(|(r, _)| *r == name) {
            self.rejected.push(name.clone());
            return self.errors.at(
                ident.span(),
                format!("`{name}` is reserved (it means {meaning}) and cannot be declared"),
            );
        }
        if FUNCTIONS.iter().any(|(f, _)| *f == name) {
            self.rejected.push(name.clone());
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
            return;
        }
        self.declared_at.insert(name.clone(), ident.span());
        self.declared_order.push(name.clone());
        self.symbols.insert(name, symbol);
    }

    fn check_statements(&mut self) {
        for (index, statement) in self.model.statements.iter().enumerate() {
            match statement {
                Statement::Let { name, value } => {
                    let deps = self.deps(value, index);
                    self.lets.push(Let { name, value, deps });
                }
                Statement::Energy {
                    kind,
                    keyword,
                    value,
                } => self.check_energy(*kind, keyword, value, index),
                Statement::Force { force, point, .. } => self.check_force(force, point, index),
                Statement::Constraint { name, value } => self.check_constraint(name, value, index),
                Statement::Parameters(_) | Statement::Coordinates(_) | Statement::Inputs(_) => {}
            }
        }
    }

    fn check_energy(&mut self, kind: Energy, keyword: &'a Ident, value: &'a Expr, index: usize) {
        self.deps(value, index);
        let slot = &mut self.energies[kind as usize];
        if let Some((first, _)) = slot {
            let first = first.span();
            let word = kind.keyword();
            self.errors
                .at(keyword.span(), format!("`{word}` is given twice"));
            self.errors
                .at(first, format!("`{word}` is first given here"));
        } else {
            *slot = Some((keyword, value));
        }
    }

    fn check_force(&mut self, force: &'a Expr, point: &'a Expr, index: usize) {
        self.deps(force, index);
        let deps = self.deps(point, index);
        if !deps.is_known() {
            // The name already has its error.
        } else if deps.has(Deps::QD) {
            self.errors.spanning(
                point.extent(),
                "a force acts on a position, which cannot depend on velocities: `force F on p` needs p(q, t)",
            );
        } else if deps.has(Deps::U) {
            self.errors.spanning(
                point.extent(),
                "a force acts on a position p(q, t), which cannot depend on inputs (the force itself may)",
            );
        } else if !deps.has(Deps::Q) {
            self.errors.spanning(
                point.extent(),
                "this position does not depend on any coordinate, so the force does no virtual work\n= help: a torque on an angle is `force tau on theta;`",
            );
        }
        self.forces.push((force, point));
    }

    /// A constraint depends on coordinates (or velocities) but not on inputs, and is affine
    /// in the velocities when it depends on them.
    fn check_constraint(&mut self, name: &'a Ident, value: &'a Expr, index: usize) {
        let deps = self.deps(value, index);
        let holonomic = !deps.has(Deps::QD);
        self.constraints.push(Constraint {
            name,
            value,
            holonomic,
        });
        if !deps.is_known() {
            return;
        }
        if deps.has(Deps::U) {
            let at = self.first_input(value).unwrap_or_else(|| value.extent());
            self.errors.spanning(
                at,
                format!("constraint `{name}` depends on an input: constraints may depend on coordinates, velocities and time only"),
            );
        } else if !deps.has(Deps::Q) && !deps.has(Deps::QD) {
            return self.errors.spanning(
                value.extent(),
                format!("constraint `{name}` does not depend on any coordinate or velocity\n= help: a constraint restricts the coordinates, as in `constraint rod = x^2 + y^2 - l^2;`"),
            );
        }
        if let Degree::Nonlinear(extent, through) = self.degree(value) {
            self.errors.spanning(
                extent,
                format!("constraint `{name}` is not affine in the velocities: a nonholonomic constraint must have the form A(q, t)·q̇ + b(q, t)\n= note: products of velocities, division by them, and powers and functions of them are not allowed; a holonomic constraint is written without `dot`"),
            );
            if let Some((name, inner)) = through {
                self.errors.spanning(
                    inner,
                    format!("`{name}` is not affine in the velocities because of this"),
                );
            }
        }
    }

    /// The first input in `e`, or the first `let` through which `e` depends on one.
    fn first_input(&self, e: &Expr) -> Option<Extent> {
        match e {
            Expr::Number(_) => None,
            Expr::Name(ident) => match self.symbols.get(&ident.to_string()) {
                Some(Symbol::Input(_)) => Some(e.extent()),
                Some(Symbol::Let(i)) if self.lets[*i].deps.has(Deps::U) => Some(e.extent()),
                _ => None,
            },
            Expr::Neg { operand: x, .. } | Expr::Paren { inner: x, .. } => self.first_input(x),
            Expr::Binary { lhs, rhs, .. } => {
                self.first_input(lhs).or_else(|| self.first_input(rhs))
            }
            Expr::Call { args, .. } => args.iter().find_map(|a| self.first_input(a)),
        }
    }

    /// How `e` depends on the velocities, judged from its form: conservative, so
    /// `dot(x)^2 - dot(x)^2` counts as not affine.
    fn degree(&self, e: &Expr) -> Degree {
        use crate::ast::BinOp::*;
        let worst = |a: Degree, b: Degree| match (a, b) {
            (Degree::Nonlinear(x, l), _) | (_, Degree::Nonlinear(x, l)) => Degree::Nonlinear(x, l),
            (Degree::Affine, _) | (_, Degree::Affine) => Degree::Affine,
            _ => Degree::Zero,
        };
        match e {
            Expr::Number(_) => Degree::Zero,
            Expr::Name(ident) => match self.symbols.get(&ident.to_string()) {
                Some(Symbol::Let(i)) => match self.degree(self.lets[*i].value) {
                    Degree::Nonlinear(inner, _) => {
                        Degree::Nonlinear(e.extent(), Some((ident.to_string(), inner)))
                    }
                    d => d,
                },
                _ => Degree::Zero,
            },
            Expr::Neg { operand: x, .. } | Expr::Paren { inner: x, .. } => self.degree(x),
            Expr::Binary { op, lhs, rhs, .. } => {
                let (l, r) = (self.degree(lhs), self.degree(rhs));
                match (op, l, r) {
                    (Add | Sub, l, r) => worst(l, r),
                    (_, Degree::Nonlinear(x, l), _) | (_, _, Degree::Nonlinear(x, l)) => {
                        Degree::Nonlinear(x, l)
                    }
                    (Mul, Degree::Zero, d) | (Mul | Div, d, Degree::Zero) => d,
                    (Pow, Degree::Zero, Degree::Zero) => Degree::Zero,
                    _ => Degree::Nonlinear(e.extent(), None),
                }
            }
            Expr::Call { func, args, .. } => {
                if func == "dot" {
                    return Degree::Affine;
                }
                match args
                    .iter()
                    .map(|a| self.degree(a))
                    .fold(Degree::Zero, worst)
                {
                    Degree::Zero => Degree::Zero,
                    Degree::Affine => Degree::Nonlinear(e.extent(), None),
                    nonlinear => nonlinear,
                }
            }
        }
    }

    /// A model needs coordinates and a kinetic energy; returns the latter.
    fn check_required(&mut self) -> Option<&'a Expr> {
        let name = &self.model.name;
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
        self.energies[0].map(|(_, e)| e)
    }

    /// Resolves every name in `expr` (used in statement `at`) and returns what it depends on.
    fn deps(&mut self, expr: &Expr, at: usize) -> Deps {
        match expr {
            Expr::Number(_) => Deps::default(),
            Expr::Name(ident) => self.name_deps(ident, at),
            Expr::Neg { operand, .. } => self.deps(operand, at),
            Expr::Paren { inner, .. } => self.deps(inner, at),
            Expr::Binary { lhs, rhs, .. } => {
                let l = self.deps(lhs, at);
                l.union(self.deps(rhs, at))
            }
            Expr::Call {
                func, args, method, ..
            } => self.call_deps(func, args, *method, at),
        }
    }

    fn name_deps(&mut self, ident: &Ident, at: usize) -> Deps {
        let name = ident.to_string();
        if self.rejected.contains(&name) && !self.symbols.contains_key(&name) {
            return Deps::ERR;
        }
        match name.as_str() {
            "t" => return Deps::T,
            "pi" => return Deps::default(),
            "dot" => {
                self.errors
                    .at(ident.span(), "`dot` is the time derivative: write `dot(x)`");
                return Deps::ERR;
            }
            _ => {}
        }
        if FUNCTIONS.iter().any(|(f, _)| *f == name) {
            self.errors.at(
                ident.span(),
                format!("`{name}` is a function: call it as `{name}(x)` or `x.{name}()`"),
            );
            return Deps::ERR;
        }
        match self.symbols.get(&name).copied() {
            Some(Symbol::Parameter(_)) => Deps::default(),
            Some(Symbol::Coordinate(_)) => Deps::Q,
            Some(Symbol::Input(_)) => Deps::U,
            Some(Symbol::Let(i)) => self.let_deps(ident, i, at),
            Some(Symbol::Constraint(_)) => {
                self.errors.at(
                    ident.span(),
                    format!("`{name}` is a constraint and has no value to use in an expression"),
                );
                Deps::ERR
            }
            None => {
                self.unknown_name(ident, at);
                Deps::ERR
            }
        }
    }

    fn let_deps(&mut self, ident: &Ident, index: usize, at: usize) -> Deps {
        if self.let_statement[index] >= at {
            let own = self.let_statement[index] == at;
            let message = if own {
                format!("`{ident}` is used in its own definition")
            } else {
                format!("`{ident}` is used before its definition: move `let {ident} = …;` above this statement")
            };
            self.errors.at(ident.span(), message);
            return Deps::ERR;
        }
        self.lets[index].deps
    }

    fn unknown_name(&mut self, ident: &Ident, at: usize) {
        let name = ident.to_string();
        // Lets defined at or after this statement are no answer: they cannot be used here.
        let usable = |n: &&String| match self.symbols.get(n.as_str()) {
            Some(Symbol::Let(i)) => self.let_statement[*i] < at,
            _ => true,
        };
        let declared = self
            .declared_order
            .iter()
            .filter(usable)
            .map(String::as_str)
            .chain(["t", "pi"]);
        let hint = closest(&name, declared)
            .map(|c| format!(", did you mean `{c}`?"))
            .unwrap_or_default();
        let note = self.declared_names();
        self.errors.at(
            ident.span(),
            format!("unknown name `{name}`{hint}\n= note: {note}"),
        );
    }

    /// "coordinates: a, b; parameters: m" — the declared names by kind.
    fn declared_names(&self) -> String {
        let list = |names: Vec<&Ident>| {
            names
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
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
            ("coordinates", list(self.coordinates.clone())),
            (
                "parameters",
                list(self.parameters.iter().map(|p| &p.name).collect()),
            ),
            ("inputs", list(self.inputs.clone())),
            ("lets", list(lets)),
        ];
        let parts: Vec<String> = groups
            .iter()
            .filter(|(_, names)| !names.is_empty())
            .map(|(kind, names)| format!("{kind}: {names}"))
            .collect();
        if parts.is_empty() {
            "nothing is declared yet".into()
        } else {
            parts.join("; ")
        }
    }

    fn call_deps(&mut self, func: &Ident, args: &[Expr], method: bool, at: usize) -> Deps {
        let name = func.to_string();
        if name == "dot" {
            return self.dot_deps(func, args, method, at);
        }
        let deps = args
            .iter()
            .fold(Deps::default(), |d, a| d.union(self.deps(a, at)));
        let Some(&(_, arity)) = FUNCTIONS.iter().find(|(f, _)| *f == name) else {
            self.unknown_function(func);
            return deps;
        };
        if args.len() != arity {
            self.wrong_arity(func, arity, args.len(), method);
        } else if name == "powi" && args[1].integer().is_none() {
            self.errors.spanning(
                args[1].extent(),
                "the exponent of `powi` must be an integer literal; use `powf` or `^` for other exponents",
            );
        }
        deps
    }

    fn unknown_function(&mut self, func: &Ident) {
        let name = func.to_string();
        if name == "t" || name == "pi" {
            let meaning = if name == "t" {
                "time"
            } else {
                "the constant π"
            };
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
        let known = FUNCTIONS.iter().map(|(f, _)| *f).chain(["dot"]);
        let hint = closest(&name, known)
            .map(|c| format!(", did you mean `{c}`?"))
            .unwrap_or_default();
        let all: Vec<&str> = FUNCTIONS.iter().map(|(f, _)| *f).collect();
        self.errors.at(
            func.span(),
            format!(
                "unknown function `{name}`{hint}\n= note: functions: dot, {}",
                all.join(", ")
            ),
        );
    }

    fn wrong_arity(&mut self, func: &Ident, arity: usize, found: usize, method: bool) {
        let plural = |n: usize| if n == 1 { "argument" } else { "arguments" };
        let message = if method {
            let (want, got) = (arity - 1, found - 1);
            let want = match want {
                0 => "no arguments".to_string(),
                n => format!("{n} {}", plural(n)),
            };
            format!("`.{func}()` takes {want}, found {got}")
        } else {
            format!("`{func}` takes {arity} {}, found {found}", plural(arity))
        };
        self.errors.at(func.span(), message);
    }

    /// `dot(e)`: e must depend on coordinates or time, and on nothing else that changes.
    fn dot_deps(&mut self, func: &Ident, args: &[Expr], method: bool, at: usize) -> Deps {
        if args.len() != 1 {
            self.wrong_arity(func, 1, args.len(), method);
            return Deps::QD;
        }
        let arg = &args[0];
        let deps = self.deps(arg, at);
        if !deps.is_known() {
            return deps.union(Deps::QD);
        }
        if let Some(problem) = self.dot_problem(arg, deps) {
            self.errors.spanning(arg.extent(), problem);
        }
        deps.union(Deps::QD)
    }

    fn dot_problem(&self, arg: &Expr, deps: Deps) -> Option<String> {
        if let Expr::Name(ident) = arg {
            let name = ident.to_string();
            match (name.as_str(), self.symbols.get(&name)) {
                ("t", _) => return Some("`dot(t)` is 1: write `1`".into()),
                (_, Some(Symbol::Parameter(_))) => {
                    return Some(format!(
                        "`dot` of parameter `{name}`: parameters are constant, so their time derivative is zero"
                    ))
                }
                (_, Some(Symbol::Input(_))) => {
                    return Some(format!(
                        "`dot` of input `{name}`: inputs are given at each instant and have no known time derivative"
                    ))
                }
                _ => {}
            }
        }
        if deps.has(Deps::QD) {
            return Some(
                "`dot` of an expression that depends on velocities would need accelerations".into(),
            );
        }
        if deps.has(Deps::U) {
            return Some("`dot` of an expression that depends on an input: inputs have no known time derivative".into());
        }
        if deps.is_constant() {
            return Some("`dot` of a constant expression: its time derivative is zero".into());
        }
        None
    }
}
