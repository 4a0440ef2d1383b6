//! Tests of the parser (the tree it builds) and of the whole macro over `proc_macro2`
//! tokens, then property tests: whatever tokens it is given, [`crate::expand`] must not
//! panic, and must return either a model's code or `compile_error!` tokens.
//!
//! `proc_macro2` uses its fallback implementation here (no compiler session), so the
//! macro runs as a plain function. One file per stage, as the sources are: `parse`
//! (the tree the parser builds, syntax errors), `expand` (the whole macro: checks,
//! errors, generated items), `fast` (the unrolled fast path), `properties` (random and
//! mutated token streams).

use crate::ast::{BinOp, Energy, Expr, Model, Statement};
use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, TokenStream, TokenTree};
use proptest::prelude::*;
use proptest::sample::select;
use quote::{format_ident, quote};

mod expand;
mod fast;
mod parse;
mod properties;
mod sweep;
mod tree;
mod urdf;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// Runs `f` in a thread with the stack rustc gives its compiler thread, macros included
/// (8 MiB unless `RUST_MIN_STACK` says otherwise), not a test thread's 2 MiB: syn's token
/// buffer and the printing of tokens recurse once per group, before the macro's own depth
/// limit can act, and 5 000 nested groups exceed 2 MiB when the crate is optimized.
pub(crate) fn with_compiler_stack(f: impl FnOnce() + Send + 'static) {
    let thread = std::thread::Builder::new().stack_size(8 << 20).spawn(f);
    if let Err(panic) = thread.expect("spawn").join() {
        std::panic::resume_unwind(panic);
    }
}

fn parse_ok(tokens: TokenStream) -> Model {
    match crate::parse::parse(tokens) {
        Ok(model) => model,
        Err(e) => panic!("expected a successful parse, got: {:?}", messages(&e)),
    }
}

/// A valid model checked and lowered, as every generator reads it.
fn lower_ok(tokens: TokenStream) -> crate::lower::Lowered {
    checked_lowered(&parse_ok(tokens))
}

/// A cart carrying two double pendulums of unit links and masses (every body at depth 3
/// at most), with `extra` statements: the branched model of the sweep's and the tree's
/// tests.
fn cart_with_two_pendulums(extra: TokenStream) -> TokenStream {
    quote! {
        struct Tree {
            coordinates: s, a1, a2, b1, b2;
            let p = [s + sin(a1), -cos(a1)];
            let pa = p + [sin(a1 + a2), -cos(a1 + a2)];
            let r = [s - sin(b1), -cos(b1)];
            let rb = r + [sin(b1 + b2), -cos(b1 + b2)];
            kinetic = 3 * dot(s)^2 / 2 + (inner(dot(p), dot(p)) + inner(dot(pa), dot(pa))
                + inner(dot(r), dot(r)) + inner(dot(rb), dot(rb))) / 2;
            potential = 9.81 * (p[1] + pa[1] + r[1] + rb[1]);
            #extra
        }
    }
}

/// A planar chain of `n` point masses on links of unit length, absolute angles.
fn chain(n: usize) -> TokenStream {
    let q: Vec<_> = (1..=n).map(|k| format_ident!("q{k}")).collect();
    let (x, y): (Vec<_>, Vec<_>) = (1..=n)
        .map(|k| (format_ident!("x{k}"), format_ident!("y{k}")))
        .unzip();
    let mut lets = vec![quote!(let x1 = sin(q1); let y1 = -cos(q1);)];
    for k in 1..n {
        let (qk, xk, yk, xp, yp) = (&q[k], &x[k], &y[k], &x[k - 1], &y[k - 1]);
        lets.push(quote!(let #xk = #xp + sin(#qk); let #yk = #yp - cos(#qk);));
    }
    quote! {
        struct Chain {
            coordinates: #(#q),*;
            #(#lets)*
            kinetic = 0 #(+ (dot(#x)^2 + dot(#y)^2) / 2)*;
            potential = 9.81 * (0 #(+ #y)*);
        }
    }
}

/// A parsed model checked and lowered, or a panic with the messages.
fn checked_lowered(model: &Model) -> crate::lower::Lowered {
    let mut errors = crate::errors::Errors::default();
    let checked = crate::check::check(model, &mut errors);
    let lowered = crate::lower::lower(&checked, &mut errors);
    if let Err(e) = errors.finish() {
        panic!("{:?}", messages(&e));
    }
    lowered
}

/// The messages of every error of a failed parse.
fn parse_errors(tokens: TokenStream) -> Vec<String> {
    match crate::parse::parse(tokens) {
        Ok(_) => panic!("expected a syntax error"),
        Err(e) => messages(&e),
    }
}

fn messages(e: &syn::Error) -> Vec<String> {
    e.into_iter().map(|e| e.to_string()).collect()
}

fn op_str(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Pow => "^",
    }
}

/// An S-expression of the tree: `(op lhs rhs)`, `(neg x)`, `(f args)` for a call,
/// `(.f receiver args)` for a method call, `[x]` for parentheses.
fn sexpr(e: &Expr) -> String {
    match e {
        Expr::Number(n) => format!("{}", n.value),
        Expr::Name(i) => i.to_string(),
        Expr::Neg { operand, .. } => format!("(neg {})", sexpr(operand)),
        Expr::Binary { op, lhs, rhs, .. } => {
            format!("({} {} {})", op_str(*op), sexpr(lhs), sexpr(rhs))
        }
        Expr::Call {
            func, args, method, ..
        } => {
            let mut s = format!("({}{}", if *method { "." } else { "" }, func);
            for a in args {
                s.push(' ');
                s.push_str(&sexpr(a));
            }
            s.push(')');
            s
        }
        Expr::Paren { inner, .. } => format!("[{}]", sexpr(inner)),
        Expr::List { items, .. } => {
            let items: Vec<String> = items.iter().map(sexpr).collect();
            format!("(list {})", items.join(" "))
        }
        Expr::Index { base, indices, .. } => {
            let indices: Vec<String> = indices.iter().map(|i| i.value.to_string()).collect();
            format!("(index {} {})", sexpr(base), indices.join(" "))
        }
        Expr::Component { base, name } => format!("(.{name} {})", sexpr(base)),
        Expr::Quantity { value, unit, .. } => format!("({} [{unit}])", sexpr(value)),
    }
}

/// Evaluates an expression of numbers, names bound in `vars`, `+ - * / ^` and `sin`.
fn eval(e: &Expr, vars: &[(&str, f64)]) -> f64 {
    match e {
        Expr::Number(n) => n.value,
        Expr::Name(i) => {
            let name = i.to_string();
            vars.iter()
                .find(|(v, _)| *v == name)
                .unwrap_or_else(|| panic!("unbound `{name}`"))
                .1
        }
        Expr::Neg { operand, .. } => -eval(operand, vars),
        Expr::Paren { inner, .. } | Expr::Quantity { value: inner, .. } => eval(inner, vars),
        Expr::Binary { op, lhs, rhs, .. } => {
            let (a, b) = (eval(lhs, vars), eval(rhs, vars));
            match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
                BinOp::Pow => a.powf(b),
            }
        }
        Expr::Call { func, args, .. } if func == "sin" && args.len() == 1 => {
            eval(&args[0], vars).sin()
        }
        Expr::Call { func, .. } => panic!("eval: unsupported function `{func}`"),
        _ => panic!("eval: unsupported expression `{e}`"),
    }
}

/// Parses `struct M { kinetic = <e>; }` and hands the kinetic expression to `f`.
fn with_kinetic<R>(e: TokenStream, f: impl FnOnce(&Expr) -> R) -> R {
    let model = parse_ok(quote!(struct M { kinetic = #e; }));
    match &model.statements[..] {
        [Statement::Energy {
            kind: Energy::Kinetic,
            value,
            ..
        }] => f(value),
        _ => panic!("expected exactly one `kinetic` statement"),
    }
}

/// The tree of `e` as an S-expression.
fn tree(e: TokenStream) -> String {
    with_kinetic(e, sexpr)
}

/// A short name for the kind of a statement.
fn statement_kind(s: &Statement) -> String {
    match s {
        Statement::Parameters(p) => format!("parameters({})", p.len()),
        Statement::Coordinates(c) => format!("coordinates({})", c.len()),
        Statement::Inputs(i) => format!("inputs({})", i.len()),
        Statement::Let { name, .. } => format!("let {name}"),
        Statement::Energy { kind, .. } => kind.keyword().to_string(),
        Statement::Force { .. } => "force".into(),
        Statement::Torque { .. } => "torque".into(),
        Statement::Constraint { name, .. } => format!("constraint {name}"),
        Statement::Contact { name, rotation, .. } => match rotation {
            Some(_) => format!("contact {name} frame"),
            None => format!("contact {name}"),
        },
        Statement::Urdf { path, .. } => format!("urdf {}", path.value()),
    }
}

/// Every `compile_error!{ "message" }` of the output, anywhere in it.
fn compile_errors(out: &TokenStream) -> Vec<String> {
    fn walk(stream: &TokenStream, found: &mut Vec<String>) {
        let trees: Vec<TokenTree> = stream.clone().into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Ident(id) if id == "compile_error" => {
                    let message = match trees.get(i + 2) {
                        Some(TokenTree::Group(g)) => {
                            syn::parse2::<syn::LitStr>(g.stream()).map(|s| s.value())
                        }
                        _ => Err(syn::Error::new(id.span(), "no message")),
                    };
                    found.push(message.unwrap_or_else(|_| {
                        panic!("`compile_error` without a string message in {stream}")
                    }));
                }
                TokenTree::Group(g) => walk(&g.stream(), found),
                _ => {}
            }
        }
    }
    let mut found = Vec::new();
    walk(out, &mut found);
    found
}

/// The top-level trait impls of the output as (idents before `for`, the type after it).
fn impls(out: &TokenStream) -> Vec<(Vec<String>, String)> {
    let trees: Vec<TokenTree> = out.clone().into_iter().collect();
    let mut found = Vec::new();
    for (i, tree) in trees.iter().enumerate() {
        if !matches!(tree, TokenTree::Ident(id) if id == "impl") {
            continue;
        }
        let mut before = Vec::new();
        let mut after = None;
        for next in &trees[i + 1..] {
            match next {
                TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => break,
                TokenTree::Ident(id) if id == "for" => after = Some(String::new()),
                TokenTree::Ident(id) => match &mut after {
                    Some(ty) if ty.is_empty() => *ty = id.to_string(),
                    Some(_) => {}
                    None => before.push(id.to_string()),
                },
                _ => {}
            }
        }
        // Inherent impls (`impl Name { … }`) have no `for`: only trait impls are kept.
        if let Some(ty) = after {
            found.push((before, ty));
        }
    }
    found
}

/// Whether the output implements the trait named `name` (last path segment) for `ty`.
fn implements(out: &TokenStream, name: &str, ty: &str) -> bool {
    impls(out)
        .iter()
        .any(|(before, after)| after == ty && before.iter().any(|i| i == name))
}

/// The property every output must have: either `compile_error!`s with messages, or a
/// model's code (one `Model` impl, which the runtime's blanket impls make a `Dynamics`).
/// Either way the output is not empty and its text lexes back into tokens. (Next to
/// errors, the macro may still emit the model's types and a stub `Model` impl so that user
/// code sees no follow-on errors.)
fn check_output(out: &TokenStream) -> Result<(), TestCaseError> {
    prop_assert!(!out.is_empty(), "empty output");
    let text = out.to_string();
    prop_assert!(
        text.parse::<TokenStream>().is_ok(),
        "the output does not lex back: {}",
        text
    );
    let errors = compile_errors(out);
    if errors.is_empty() {
        let impls = impls(out);
        let count = |name: &str| {
            impls
                .iter()
                .filter(|(before, _)| before.iter().any(|i| i == name))
                .count()
        };
        prop_assert_eq!(count("Model"), 1, "no error and no Model impl: {}", text);
    } else {
        prop_assert!(
            errors.iter().all(|m| !m.trim().is_empty()),
            "an empty error message"
        );
    }
    Ok(())
}

/// 10^309, an integer literal with no `f64` value.
fn huge_integer() -> String {
    format!("1{}", "0".repeat(309))
}

// ---------------------------------------------------------------------------------------
// Sample models
// ---------------------------------------------------------------------------------------

fn double_pendulum() -> TokenStream {
    quote! {
        /// Planar double pendulum with point masses.
        pub struct DoublePendulum {
            parameters: m1 = 1.0, m2 = 1.0, l1 = 1.0, l2 = 1.0, g = 9.81;
            coordinates: theta1, theta2;

            let x1 = l1 * sin(theta1);
            let y1 = -l1 * cos(theta1);
            let x2 = x1 + l2 * sin(theta2);
            let y2 = y1 - l2 * cos(theta2);

            kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * (dot(x2)^2 + dot(y2)^2);
            potential = g * (m1*y1 + m2*y2);
        }
    }
}

fn cart_pole() -> TokenStream {
    quote! {
        /// A cart with a pendulum, pushed by a force, with friction.
        #[allow(dead_code)]
        pub(crate) struct CartPole {
            parameters: M = 1.0 [kg], m = 0.1 [kg], l = 0.5 [m], g = 9.81 [m/s^2], b = 0.05 [N*s/m];
            coordinates: x [m], theta [rad];
            inputs: f [N];

            let px = x + l * theta.sin();
            let py = -l * theta.cos();

            kinetic = M/2 * dot(x)^2 + m/2 * (dot(px)^2 + dot(py)^2);
            potential = m * g * py;
            dissipation = b/2 * dot(x)^2;
            force f on x;
        }
    }
}

fn driven() -> TokenStream {
    quote! {
        struct Driven {
            parameters: m, k = 4.0, a = 0.1, w;
            coordinates: r, phi;

            let h = a * sin(w * t);
            let z = r.powi(2) + hypot(r, h) - atan2(h, r) + exp(-r^2) + sqrt(1 + r^2)^-1/2 + pi;

            kinetic = m/2 * (dot(r)^2 + r^2 * dot(phi)^2 + dot(h)^2);
            potential = k/2 * (r - 1)^2 + z.abs().ln().cosh() * 1e-3;
            force -0.5 * dot(phi) on phi;
        }
    }
}

fn oscillator() -> TokenStream {
    quote! {
        struct Osc {
            coordinates: x;
            kinetic = dot(x)^2/2;
            potential = x^2/2;
        }
    }
}
