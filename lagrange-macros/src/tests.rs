//! Tests of the parser (the tree it builds) and of the whole macro over `proc_macro2`
//! tokens, then property tests: whatever tokens it is given, [`crate::expand`] must not
//! panic, and must return either a model's code or `compile_error!` tokens.
//!
//! `proc_macro2` uses its fallback implementation here (no compiler session), so the
//! macro runs as a plain function.

use crate::ast::{BinOp, Energy, Expr, Model, Statement};
use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, TokenStream, TokenTree};
use proptest::prelude::*;
use proptest::sample::select;
use quote::{format_ident, quote};

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn parse_ok(tokens: TokenStream) -> Model {
    match crate::parse::parse(tokens) {
        Ok(model) => model,
        Err(e) => panic!("expected a successful parse, got: {:?}", messages(&e)),
    }
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
        Expr::Paren { inner, .. } => eval(inner, vars),
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

// ---------------------------------------------------------------------------------------
// Parser: precedence and associativity
// ---------------------------------------------------------------------------------------

#[test]
fn power_binds_tighter_than_unary_minus_and_products() {
    // `-m*v^2/2` means −(m·v²)/2: the power applies to `v` alone, the minus never ends up
    // under the power. (The minus is attached to `m`, which gives the same value.)
    assert_eq!(tree(quote!(-m * v ^ 2 / 2)), "(/ (* (neg m) (^ v 2)) 2)");
    with_kinetic(quote!(-m * v ^ 2 / 2), |e| {
        assert_eq!(eval(e, &[("m", 3.0), ("v", 2.0)]), -6.0);
    });
    assert_eq!(tree(quote!(-v ^ 2)), "(neg (^ v 2))");
    with_kinetic(quote!(-2 ^ 2), |e| assert_eq!(eval(e, &[]), -4.0));
    assert_eq!(tree(quote!(a * b ^ 2)), "(* a (^ b 2))");
    assert_eq!(tree(quote!(a / b ^ 2)), "(/ a (^ b 2))");
    assert_eq!(tree(quote!(a ^ 2 * b)), "(* (^ a 2) b)");
    assert_eq!(tree(quote!((a * b) ^ 2)), "(^ [(* a b)] 2)");
    assert_eq!(tree(quote!(--x ^ 2)), "(neg (neg (^ x 2)))");
}

#[test]
fn power_is_right_associative() {
    assert_eq!(tree(quote!(a ^ b ^ c)), "(^ a (^ b c))");
    assert_eq!(tree(quote!(a ^ b ^ c ^ d)), "(^ a (^ b (^ c d)))");
    with_kinetic(quote!(2 ^ 3 ^ 2), |e| assert_eq!(eval(e, &[]), 512.0));
    assert_eq!(tree(quote!((a ^ b) ^ c)), "(^ [(^ a b)] c)");
}

#[test]
fn negative_exponents() {
    assert_eq!(tree(quote!(x ^ -2)), "(^ x (neg 2))");
    assert_eq!(tree(quote!(x ^ -y ^ 2)), "(^ x (neg (^ y 2)))");
    assert_eq!(tree(quote!(x ^ --1)), "(^ x (neg (neg 1)))");
    assert_eq!(tree(quote!(x ^ -2 * y)), "(* (^ x (neg 2)) y)");
    with_kinetic(quote!(x ^ -2), |e| assert_eq!(eval(e, &[("x", 2.0)]), 0.25));
}

#[test]
fn sums_and_products_are_left_associative() {
    assert_eq!(tree(quote!(a - b - c)), "(- (- a b) c)");
    assert_eq!(tree(quote!(a / b / c)), "(/ (/ a b) c)");
    assert_eq!(tree(quote!(a + b * c - d / e)), "(- (+ a (* b c)) (/ d e))");
    assert_eq!(tree(quote!(a - -b)), "(- a (neg b))");
    assert_eq!(tree(quote!(a * -b)), "(* a (neg b))");
    assert_eq!(tree(quote! { ((a)) }), "[[a]]");
}

#[test]
fn method_calls_take_the_receiver_as_first_argument() {
    assert_eq!(tree(quote!(x.sin())), "(.sin x)");
    assert_eq!(tree(quote!(x.powi(2))), "(.powi x 2)");
    assert_eq!(tree(quote!(y.atan2(x))), "(.atan2 y x)");
    assert_eq!(tree(quote!((a + b).sin().cos())), "(.cos (.sin [(+ a b)]))");
    // The method binds tighter than `^` and unary minus.
    assert_eq!(tree(quote!(-x.sin())), "(neg (.sin x))");
    assert_eq!(tree(quote!(x ^ y.sin())), "(^ x (.sin y))");
    assert_eq!(tree(quote!(x.sin() ^ 2)), "(^ (.sin x) 2)");
    assert_eq!(tree(quote!(2.0.sqrt())), "(.sqrt 2)");
    assert_eq!(tree(quote!(sin(x).abs())), "(.abs (sin x))");
    with_kinetic(quote!(x.sin()), |e| match e {
        Expr::Call { method, args, .. } => {
            assert!(*method);
            assert_eq!(args.len(), 1);
        }
        _ => panic!("not a call"),
    });
}

#[test]
fn free_calls() {
    assert_eq!(tree(quote!(sin(x))), "(sin x)");
    assert_eq!(tree(quote!(atan2(y, x + 1))), "(atan2 y (+ x 1))");
    assert_eq!(tree(quote!(powi(x, 3,))), "(powi x 3)");
    assert_eq!(tree(quote!(f())), "(f)");
    assert_eq!(
        tree(quote!(m / 2 * dot(x) ^ 2)),
        "(* (/ m 2) (^ (dot x) 2))"
    );
    with_kinetic(quote!(sin(x)), |e| match e {
        Expr::Call { method, .. } => assert!(!*method),
        _ => panic!("not a call"),
    });
}

#[test]
fn numbers() {
    // `1/2` is two numbers and a division, 0.5 once evaluated: no integer division.
    assert_eq!(tree(quote!(1 / 2)), "(/ 1 2)");
    with_kinetic(quote!(1 / 2), |e| {
        match e {
            Expr::Binary {
                op: BinOp::Div,
                lhs,
                rhs,
                ..
            } => {
                assert!(matches!(**lhs, Expr::Number(n) if n.value == 1.0));
                assert!(matches!(**rhs, Expr::Number(n) if n.value == 2.0));
            }
            _ => panic!("not a division"),
        }
        assert_eq!(eval(e, &[]), 0.5);
    });
    let value = |e: TokenStream| with_kinetic(e, |e| e.literal());
    assert_eq!(value(quote!(0.5)), Some(0.5));
    assert_eq!(value(quote!(1e3)), Some(1000.0));
    assert_eq!(value(quote!(2.5E-3)), Some(0.0025));
    assert_eq!(value(quote!(1_000)), Some(1000.0));
    assert_eq!(value(quote!(0x10)), Some(16.0));
    assert_eq!(value(quote!(-(3))), Some(-3.0));
    assert_eq!(
        value(quote!(18446744073709551616)),
        Some(18446744073709551616.0)
    );
    assert_eq!(value(quote!(x)), None);
}

// ---------------------------------------------------------------------------------------
// Parser: statements, the model's header, syntax errors
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

#[test]
fn statements_split_at_semicolons() {
    let model = parse_ok(double_pendulum());
    assert_eq!(model.name, "DoublePendulum");
    assert!(matches!(model.vis, syn::Visibility::Public(_)));
    assert_eq!(model.attrs.len(), 1);
    assert!(model.attrs[0].path().is_ident("doc"));
    let kinds: Vec<String> = model.statements.iter().map(statement_kind).collect();
    assert_eq!(
        kinds,
        [
            "parameters(5)",
            "coordinates(2)",
            "let x1",
            "let y1",
            "let x2",
            "let y2",
            "kinetic",
            "potential"
        ]
    );
    let Statement::Parameters(params) = &model.statements[0] else {
        panic!("not parameters")
    };
    let defaults: Vec<Option<f64>> = params
        .iter()
        .map(|p| p.default.as_ref().and_then(Expr::literal))
        .collect();
    assert_eq!(
        defaults,
        [Some(1.0), Some(1.0), Some(1.0), Some(1.0), Some(9.81)]
    );

    let model = parse_ok(cart_pole());
    let kinds: Vec<String> = model.statements.iter().map(statement_kind).collect();
    assert_eq!(
        kinds,
        [
            "parameters(5)",
            "coordinates(2)",
            "inputs(1)",
            "let px",
            "let py",
            "kinetic",
            "potential",
            "dissipation",
            "force"
        ]
    );
    assert!(matches!(model.vis, syn::Visibility::Restricted(_)));
    assert_eq!(model.attrs.len(), 2);
}

#[test]
fn empty_statements_and_trailing_commas_are_accepted() {
    let model = parse_ok(quote! {
        struct M {
            ;
            parameters: a, b = 2.0, c = -1,;
            coordinates: x,;;
            /// A documented statement.
            kinetic = a * dot(x)^2;
        }
    });
    let kinds: Vec<String> = model.statements.iter().map(statement_kind).collect();
    assert_eq!(kinds, ["parameters(3)", "coordinates(1)", "kinetic"]);
    let Statement::Parameters(params) = &model.statements[0] else {
        panic!("not parameters")
    };
    let defaults: Vec<Option<f64>> = params
        .iter()
        .map(|p| p.default.as_ref().and_then(Expr::literal))
        .collect();
    assert_eq!(defaults, [None, Some(2.0), Some(-1.0)]);
    assert!(parse_ok(quote!(
        struct Empty {}
    ))
    .statements
    .is_empty());
}

#[test]
fn force_and_constraint_statements() {
    let model = parse_ok(quote! {
        struct M {
            force -k * dot(x) on x + l * sin(th);
            constraint c = x^2 + y^2 - 1;
        }
    });
    match &model.statements[..] {
        [Statement::Force { force, point, .. }, Statement::Constraint { name, value }] => {
            assert_eq!(sexpr(force), "(* (neg k) (dot x))");
            assert_eq!(sexpr(point), "(+ x (* l (sin th)))");
            assert_eq!(name, "c");
            assert_eq!(sexpr(value), "(- (+ (^ x 2) (^ y 2)) 1)");
        }
        _ => panic!("expected a force and a constraint"),
    }
}

#[test]
fn a_semicolon_inside_parentheses_does_not_split() {
    let errors = parse_errors(quote!(struct M { kinetic = (a; b); }));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("expected an operator or `)`"),
        "{errors:?}"
    );
}

#[test]
fn missing_final_semicolon() {
    let errors = parse_errors(quote!(struct M { coordinates: x; kinetic = dot(x)^2 }));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("expected `;`"), "{errors:?}");
}

#[test]
fn syntax_errors_of_different_statements_are_all_reported() {
    let errors = parse_errors(quote! {
        struct M {
            coordinates x;
            let = 3;
            kinetic = m * ;
            potential = x**2;
            parameters: a = 1u8;
            kinetc = 1;
            let fn = 2;
            dissipation = x[a];
        }
    });
    let expected = [
        "expected `:`",
        "expected a name",
        "expected an expression",
        "powers are written `x^2`, not `x**2`",
        "numbers take no type suffix",
        "did you mean `kinetic`?",
        "`fn` is a Rust keyword",
        "an index is an integer literal",
    ];
    assert_eq!(errors.len(), expected.len(), "{errors:#?}");
    for (error, want) in errors.iter().zip(expected) {
        assert!(error.contains(want), "`{error}` should contain `{want}`");
    }
}

#[test]
fn header_errors() {
    let cases = [
        (quote!(), "expected `struct Name { … }`"),
        (
            quote!(
                fn f() {}
            ),
            "expected `struct Name { … }`",
        ),
        (
            quote!(
                struct M<T> {}
            ),
            "generic parameters",
        ),
        (
            quote!(
                struct M;
            ),
            "expected `{`",
        ),
        (
            quote!(
                struct M {}
                struct N {}
            ),
            "takes one model",
        ),
        (quote!(struct {}), "expected the model's name"),
        (
            quote!(struct M { #[inline] kinetic = 1; }),
            "only doc comments",
        ),
        (quote!(struct M { kinetic: 1; }), "expected `=`"),
        (quote!(struct M { 3 = x; }), "expected a statement"),
        (quote!(struct M { force f at x; }), "expected `on`"),
        (quote!(struct M { kinetic = []; }), "an empty list"),
        (quote!(struct M { kinetic = x[]; }), "expected an index"),
        (quote!(struct M { kinetic = x.; }), "expected a component"),
        (quote!(struct M { torque t at R; }), "expected `on`"),
        (
            quote!(struct M { kinetic = x y; }),
            "expected an operator or `;`",
        ),
        (
            quote!(struct M { kinetic = "x"; }),
            "expected an expression",
        ),
    ];
    for (tokens, want) in cases {
        let text = tokens.to_string();
        let errors = parse_errors(tokens);
        assert!(
            errors.iter().any(|e| e.contains(want)),
            "`{text}`: {errors:?} should contain `{want}`"
        );
    }
}

// ---------------------------------------------------------------------------------------
// The whole macro
// ---------------------------------------------------------------------------------------

#[test]
fn valid_models_expand_to_a_model_impl() {
    for (tokens, name) in [
        (double_pendulum(), "DoublePendulum"),
        (cart_pole(), "CartPole"),
        (driven(), "Driven"),
        (oscillator(), "Osc"),
    ] {
        let out = crate::expand(tokens);
        assert_eq!(compile_errors(&out), Vec::<String>::new(), "{name}");
        assert!(!out.to_string().contains("compile_error"), "{name}");
        assert!(implements(&out, "Model", name), "{name}: {out}");
        assert!(implements(&out, "Parametric", name), "{name}: {out}");
        check_output(&out).unwrap();
    }
    let out = crate::expand(double_pendulum());
    assert!(implements(&out, "Default", "DoublePendulum"));
    let text = out.to_string();
    assert!(text.contains("struct DoublePendulum"), "{text}");
    assert!(text.contains("struct DoublePendulumCoordinates"), "{text}");
    // Not every parameter of `Driven` has a default.
    assert!(!implements(&crate::expand(driven()), "Default", "Driven"));
}

#[test]
fn invalid_models_expand_to_compile_errors() {
    let cases = [
        (
            quote!(struct M { coordinates: theta; kinetic = dot(thta)^2; }),
            "unknown name `thta`, did you mean `theta`?",
        ),
        (
            quote!(struct M { coordinates: x, x; kinetic = dot(x)^2; }),
            "`x` is declared twice",
        ),
        (
            quote!(struct M { coordinates: t; kinetic = dot(t)^2; }),
            "`t` is reserved",
        ),
        (
            quote!(struct M { coordinates: x; potential = x^2; }),
            "has no kinetic energy",
        ),
        (
            quote!(struct M { parameters: m; kinetic = m; }),
            "declares no coordinates",
        ),
        (
            quote!(struct M { parameters: m; coordinates: x; kinetic = dot(m)^2; }),
            "`dot` of parameter `m`",
        ),
        (
            quote!(struct M { coordinates: x; kinetic = dot(dot(x))^2; }),
            "would need accelerations",
        ),
        (
            quote!(struct M { coordinates: x; kinetic = dot(x)^2; force 1 on dot(x); }),
            "cannot depend on velocities",
        ),
        (
            quote!(struct M { coordinates: x; kinetic = sinn(x) * dot(x)^2; }),
            "unknown function `sinn`, did you mean `sin`?",
        ),
        (
            quote!(struct M { coordinates: x; kinetic = atan2(x) * dot(x)^2; }),
            "`atan2` takes 2 arguments, found 1",
        ),
        (
            quote!(struct M { coordinates: x; kinetic = y * dot(x)^2; let y = 2; }),
            "used before its definition",
        ),
        (
            quote!(struct M { coordinates: x; kinetic = dot(x)^2 }),
            "expected `;`",
        ),
        (quote!(), "expected `struct Name { … }`"),
    ];
    for (tokens, want) in cases {
        let text = tokens.to_string();
        let out = crate::expand(tokens);
        let errors = compile_errors(&out);
        assert!(
            errors.iter().any(|e| e.contains(want)),
            "`{text}`: {errors:?} should contain `{want}`"
        );
        check_output(&out).unwrap();
    }
}

#[test]
fn a_model_that_fails_its_checks_still_defines_its_struct() {
    let out = crate::expand(quote! {
        pub struct M {
            parameters: m, k;
            coordinates: x;
            kinetic = m * dot(y)^2;
        }
    });
    assert_eq!(compile_errors(&out).len(), 1);
    let text = out.to_string();
    assert!(text.contains("pub struct M"), "{text}");
    assert!(text.contains("fn new"), "{text}");
}

#[test]
fn all_check_errors_are_reported_together() {
    let out = crate::expand(quote! {
        struct M {
            coordinates: x, x;
            kinetic = a * dot(b)^2 + foo(x);
        }
    });
    let errors = compile_errors(&out);
    // twice + first declared here + `a` + `b` + `foo`.
    assert_eq!(errors.len(), 5, "{errors:#?}");
}

// ---------------------------------------------------------------------------------------
// Known bugs, kept as regression tests
// ---------------------------------------------------------------------------------------

/// The shape every known-bug test checks: `expand` returns (does not panic) and reports a
/// compile error.
fn expands_to_an_error(tokens: TokenStream) {
    let out = crate::expand(tokens);
    assert!(!compile_errors(&out).is_empty(), "{out}");
}

#[test]
fn overflowing_float_literal_in_an_expression() {
    expands_to_an_error(quote!(struct M { coordinates: x; kinetic = 1e400 * dot(x)^2; }));
}

#[test]
fn overflowing_parameter_default() {
    expands_to_an_error(
        quote!(struct M { parameters: m = 1e400; coordinates: x; kinetic = m * dot(x)^2; }),
    );
}

#[test]
fn overflowing_exponent() {
    expands_to_an_error(quote!(struct M { coordinates: x; kinetic = dot(x)^1e400; }));
}

#[test]
fn overflowing_integer_literal() {
    let huge: Literal = huge_integer().parse().unwrap();
    expands_to_an_error(quote!(struct M { coordinates: x; kinetic = #huge * dot(x)^2; }));
}

/// 10^309, an integer literal with no `f64` value.
fn huge_integer() -> String {
    format!("1{}", "0".repeat(309))
}

// ---------------------------------------------------------------------------------------
// Property tests: token vocabulary
// ---------------------------------------------------------------------------------------

/// A token tree we can generate, shrink and print (proc_macro2 tokens are not `Send`).
#[derive(Clone)]
enum Tok {
    Ident(String),
    Lit(String),
    Punct(char, bool),
    Group(Delimiter, Vec<Tok>),
}

impl std::fmt::Debug for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", to_stream(std::slice::from_ref(self)))
    }
}

/// Identifiers: the language's keywords and functions, reserved names, names clashing
/// with generated code, Rust keywords, raw identifiers and near misses.
#[rustfmt::skip]
const IDENTS: &[&str] = &[
    "struct", "pub", "let", "parameters", "coordinates", "inputs", "kinetic", "potential",
    "dissipation", "force", "on", "constraint", "dot", "sin", "cos", "tan", "asin", "atan2",
    "sqrt", "powi", "powf", "hypot", "abs", "ln", "exp", "t", "pi", "x", "y", "theta1",
    "theta2", "m", "g", "l", "M", "J", "L1", "q", "s", "u", "qd", "state", "self", "Self",
    "crate", "super", "fn", "impl", "type", "in", "mut", "_", "r#x", "r#type", "doc",
    "derive", "Model", "Dynamics", "kinetc", "sinn", "T", "V", "f64", "true",
];

/// Literals whose numeric value is finite, including suffixed, huge and tiny ones.
const FINITE_LITERALS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "0.5",
    "1.0",
    "2.5e-3",
    "1e10",
    "1E-3",
    "1_000",
    "0x1F",
    "0o17",
    "0b101",
    "1u8",
    "2i32",
    "1.0f32",
    "3.0f64",
    "7usize",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "1e308",
    "1.7976931348623157e308",
    "4.9e-324",
    "1e-400",
    "\"str\"",
    "'c'",
    "b'b'",
    "b\"bytes\"",
    "r\"raw\"",
];

/// Literals that overflow `f64`: the parser rejects them with a spanned error (they once
/// reached `Literal::f64_suffixed` and panicked); the tests above pin that down.
fn overflowing_literals() -> Vec<String> {
    vec!["1e400".into(), "1.0e309".into(), huge_integer()]
}

#[rustfmt::skip]
const PUNCTS: &[char] = &[
    '+', '-', '*', '/', '^', '=', ':', ';', ',', '.', '#', '!', '<', '>', '&', '|', '%', '?', '@',
    '~',
];

const DELIMITERS: &[Delimiter] = &[
    Delimiter::Parenthesis,
    Delimiter::Brace,
    Delimiter::Bracket,
    Delimiter::None,
];

fn literals(overflowing: bool) -> Vec<String> {
    let mut all: Vec<String> = FINITE_LITERALS.iter().map(|s| s.to_string()).collect();
    if overflowing {
        all.extend(overflowing_literals());
    }
    all
}

fn to_stream(toks: &[Tok]) -> TokenStream {
    toks.iter()
        .map(|tok| -> TokenTree {
            match tok {
                Tok::Ident(name) => match name.strip_prefix("r#") {
                    Some(raw) => Ident::new_raw(raw, proc_macro2::Span::call_site()).into(),
                    None => Ident::new(name, proc_macro2::Span::call_site()).into(),
                },
                Tok::Lit(text) => text
                    .parse::<Literal>()
                    .unwrap_or_else(|e| panic!("bad literal `{text}`: {e}"))
                    .into(),
                Tok::Punct(c, joint) => {
                    let spacing = if *joint {
                        Spacing::Joint
                    } else {
                        Spacing::Alone
                    };
                    Punct::new(*c, spacing).into()
                }
                Tok::Group(d, inner) => Group::new(*d, to_stream(inner)).into(),
            }
        })
        .collect()
}

fn from_stream(stream: TokenStream) -> Vec<Tok> {
    stream
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Ident(i) => Tok::Ident(i.to_string()),
            TokenTree::Literal(l) => Tok::Lit(l.to_string()),
            TokenTree::Punct(p) => Tok::Punct(p.as_char(), p.spacing() == Spacing::Joint),
            TokenTree::Group(g) => Tok::Group(g.delimiter(), from_stream(g.stream())),
        })
        .collect()
}

fn ident() -> impl Strategy<Value = Tok> {
    select(IDENTS).prop_map(|s| Tok::Ident(s.to_string()))
}

fn literal(overflowing: bool) -> impl Strategy<Value = Tok> {
    select(literals(overflowing)).prop_map(Tok::Lit)
}

fn punct() -> impl Strategy<Value = Tok> {
    (select(PUNCTS), any::<bool>()).prop_map(|(c, joint)| Tok::Punct(c, joint))
}

/// Any token tree of the vocabulary, groups nested up to 4 deep.
fn token_tree(overflowing: bool) -> impl Strategy<Value = Tok> {
    let leaf = prop_oneof![4 => ident(), 2 => literal(overflowing), 4 => punct()];
    leaf.prop_recursive(4, 48, 6, |inner| {
        (select(DELIMITERS), prop::collection::vec(inner, 0..6))
            .prop_map(|(d, toks)| Tok::Group(d, toks))
    })
}

/// A statement-like run of tokens: mostly a statement's start and expression tokens.
fn statement() -> impl Strategy<Value = Vec<Tok>> {
    const STARTS: &[&str] = &[
        "let x =",
        "let y =",
        "kinetic =",
        "potential =",
        "dissipation =",
        "parameters :",
        "coordinates :",
        "inputs :",
        "force",
        "constraint c =",
        "on",
        "",
    ];
    let start = select(STARTS).prop_map(|s| from_stream(s.parse().unwrap()));
    let expression_token = prop_oneof![
        4 => ident(),
        3 => literal(false),
        3 => select(&['+', '-', '*', '/', '^', ',', '.', '=', ':'][..])
            .prop_map(|c| Tok::Punct(c, false)),
        1 => token_tree(false),
    ];
    (
        start,
        prop::collection::vec(expression_token, 0..10),
        prop::bool::weighted(0.9),
    )
        .prop_map(|(mut toks, rest, semicolon)| {
            toks.extend(rest);
            if semicolon {
                toks.push(Tok::Punct(';', false));
            }
            toks
        })
}

/// `<prefix> struct <name> { <statements> }` with random statements.
fn model_shell() -> impl Strategy<Value = Vec<Tok>> {
    const PREFIXES: &[&str] = &[
        "",
        "pub",
        "pub(crate)",
        "/// doc",
        "#[derive(Clone)]",
        "#[doc = 1]",
        "#![x]",
    ];
    (
        select(PREFIXES),
        ident(),
        prop::collection::vec(statement(), 0..8),
    )
        .prop_map(|(prefix, name, statements)| {
            let mut toks = from_stream(prefix.parse().unwrap());
            toks.push(Tok::Ident("struct".into()));
            toks.push(name);
            toks.push(Tok::Group(
                Delimiter::Brace,
                statements.into_iter().flatten().collect(),
            ));
            toks
        })
}

/// Names for grammar-shaped models: few, so that uses often hit declarations; with
/// reserved names, function names and names the generated code uses internally.
const NAMES: &[&str] = &[
    "x", "th", "m", "k", "u1", "c", "L", "t", "pi", "dot", "sin", "q", "s", "v", "self",
];

/// Function names: the language's, with wrong arities and unknown ones.
const FUNCTIONS: &[&str] = &[
    "dot",
    "sin",
    "cos",
    "sqrt",
    "exp",
    "ln",
    "abs",
    "atan2",
    "hypot",
    "powi",
    "powf",
    "f",
    "x",
    "diag",
    "rot_x",
    "rot_z",
    "rot",
    "quat",
    "inner",
    "cross",
    "norm",
    "transpose",
    "angular_velocity",
    "body_angular_velocity",
];

/// Names after a `.`: components (valid and not) and methods.
const COMPONENTS: &[&str] = &["x", "y", "z", "w", "norm", "m"];

fn name() -> impl Strategy<Value = Tok> {
    select(NAMES).prop_map(|s| Tok::Ident(s.into()))
}

fn ident_list(default: bool) -> impl Strategy<Value = Vec<Tok>> {
    let item = (name(), prop::option::of(literal(false))).prop_map(move |(name, value)| {
        let mut toks = vec![name];
        if let (true, Some(value)) = (default, value) {
            toks.push(Tok::Punct('=', false));
            toks.push(value);
        }
        toks
    });
    prop::collection::vec(item, 1..4).prop_map(|items| {
        let mut toks = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                toks.push(Tok::Punct(',', false));
            }
            toks.extend(item);
        }
        toks
    })
}

/// A syntactically plausible expression: names, numbers, operators, calls, methods.
fn expression() -> impl Strategy<Value = Vec<Tok>> {
    let leaf = prop_oneof![
        3 => name().prop_map(|t| vec![t]),
        2 => literal(false).prop_map(|t| vec![t]),
        2 => name().prop_map(|t| vec![Tok::Ident("dot".into()), Tok::Group(Delimiter::Parenthesis, vec![t])]),
    ];
    leaf.prop_recursive(4, 32, 3, |inner| {
        prop_oneof![
            3 => (inner.clone(), select(&['+', '-', '*', '/', '^'][..]), inner.clone())
                .prop_map(|(mut a, op, b)| {
                    a.push(Tok::Punct(op, false));
                    a.extend(b);
                    a
                }),
            1 => inner.clone().prop_map(|mut a| {
                a.insert(0, Tok::Punct('-', false));
                a
            }),
            1 => inner.clone().prop_map(|a| vec![Tok::Group(Delimiter::Parenthesis, a)]),
            2 => prop::collection::vec(inner.clone(), 1..4)
                .prop_map(|items| vec![Tok::Group(Delimiter::Bracket, commas(items))]),
            1 => (inner.clone(), prop::collection::vec(0u8..4, 1..3)).prop_map(|(mut a, indices)| {
                let indices = indices.into_iter().map(|i| vec![Tok::Lit(i.to_string())]).collect();
                a.push(Tok::Group(Delimiter::Bracket, commas(indices)));
                a
            }),
            1 => (inner.clone(), select(COMPONENTS)).prop_map(|(a, c)| {
                vec![Tok::Group(Delimiter::Parenthesis, a), Tok::Punct('.', false), Tok::Ident(c.into())]
            }),
            2 => (select(FUNCTIONS), prop::collection::vec(inner.clone(), 0..3))
                .prop_map(|(f, args)| vec![Tok::Ident(f.into()), Tok::Group(Delimiter::Parenthesis, commas(args))]),
            1 => (inner.clone(), select(FUNCTIONS), prop::collection::vec(inner, 0..2))
                .prop_map(|(receiver, f, args)| {
                    let mut toks = vec![Tok::Group(Delimiter::Parenthesis, receiver)];
                    toks.push(Tok::Punct('.', false));
                    toks.push(Tok::Ident(f.into()));
                    toks.push(Tok::Group(Delimiter::Parenthesis, commas(args)));
                    toks
                }),
        ]
    })
}

fn commas(items: Vec<Vec<Tok>>) -> Vec<Tok> {
    let mut toks = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            toks.push(Tok::Punct(',', false));
        }
        toks.extend(item);
    }
    toks
}

/// One statement of the language with random names and expressions.
fn grammar_statement() -> impl Strategy<Value = Vec<Tok>> {
    let keyword = |k: &'static str| Tok::Ident(k.into());
    let eq = || Tok::Punct('=', false);
    let colon = || Tok::Punct(':', false);
    prop_oneof![
        1 => ident_list(true).prop_map(move |l| [vec![keyword("parameters"), colon()], l].concat()),
        1 => ident_list(false).prop_map(move |l| [vec![keyword("coordinates"), colon()], l].concat()),
        1 => ident_list(false).prop_map(move |l| [vec![keyword("inputs"), colon()], l].concat()),
        3 => (name(), expression())
            .prop_map(move |(n, e)| [vec![keyword("let"), n, eq()], e].concat()),
        3 => (select(&["kinetic", "potential", "dissipation"][..]), expression())
            .prop_map(move |(k, e)| [vec![keyword(k), eq()], e].concat()),
        1 => (expression(), expression())
            .prop_map(move |(f, p)| [vec![keyword("force")], f, vec![keyword("on")], p].concat()),
        1 => (expression(), expression())
            .prop_map(move |(f, p)| [vec![keyword("torque")], f, vec![keyword("on")], p].concat()),
        1 => (name(), expression())
            .prop_map(move |(n, e)| [vec![keyword("constraint"), n, eq()], e].concat()),
    ]
    .prop_map(|mut toks| {
        toks.push(Tok::Punct(';', false));
        toks
    })
}

/// `struct M { … }` made of statements of the language: these get past the parser and
/// exercise the checks and the code generation.
fn grammar_model() -> impl Strategy<Value = Vec<Tok>> {
    (
        prop::bool::ANY,
        prop::collection::vec(grammar_statement(), 0..7),
        prop::bool::weighted(0.7),
    )
        .prop_map(|(public, statements, prelude)| {
            let mut toks = Vec::new();
            if public {
                toks.push(Tok::Ident("pub".into()));
            }
            toks.push(Tok::Ident("struct".into()));
            toks.push(Tok::Ident("M".into()));
            let mut body = Vec::new();
            if prelude {
                body.extend(from_stream(quote!(coordinates: x; kinetic = dot(x)^2/2;)));
            }
            body.extend(statements.into_iter().flatten());
            toks.push(Tok::Group(Delimiter::Brace, body));
            toks
        })
}

/// Any token stream, a model's shell with random statements, or a grammar-shaped model.
fn random_input() -> impl Strategy<Value = Vec<Tok>> {
    prop_oneof![
        prop::collection::vec(token_tree(false), 0..24),
        model_shell(),
        grammar_model(),
    ]
}

// ---------------------------------------------------------------------------------------
// Property tests: mutations of valid models
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    SwapWithNext(usize),
    ReplaceIdent(usize, Tok),
    ReplaceLiteral(usize, Tok),
    ReplacePunct(usize, Tok),
    EmptyGroup(usize),
    Insert(usize, Tok),
}

fn mutation(overflowing: bool) -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Duplicate),
        any::<usize>().prop_map(Mutation::SwapWithNext),
        (any::<usize>(), ident()).prop_map(|(i, t)| Mutation::ReplaceIdent(i, t)),
        (any::<usize>(), literal(overflowing)).prop_map(|(i, t)| Mutation::ReplaceLiteral(i, t)),
        (any::<usize>(), punct()).prop_map(|(i, t)| Mutation::ReplacePunct(i, t)),
        any::<usize>().prop_map(Mutation::EmptyGroup),
        (any::<usize>(), token_tree(overflowing)).prop_map(|(i, t)| Mutation::Insert(i, t)),
    ]
}

/// The paths (indices from the root down) of every token, in pre-order.
fn paths(toks: &[Tok], prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    for (i, tok) in toks.iter().enumerate() {
        prefix.push(i);
        out.push(prefix.clone());
        if let Tok::Group(_, inner) = tok {
            paths(inner, prefix, out);
        }
        prefix.pop();
    }
}

/// The list holding the token at `path`, and its index there.
fn parent<'a>(toks: &'a mut Vec<Tok>, path: &[usize]) -> (&'a mut Vec<Tok>, usize) {
    let (last, up) = path.split_last().expect("non-empty path");
    let mut list = toks;
    for &i in up {
        match &mut list[i] {
            Tok::Group(_, inner) => list = inner,
            _ => unreachable!("paths go through groups"),
        }
    }
    (list, *last)
}

/// Applies `m` at one of the tokens it applies to; does nothing if there is none.
fn apply(toks: &mut Vec<Tok>, m: &Mutation) {
    let mut all = Vec::new();
    paths(toks, &mut Vec::new(), &mut all);
    let pick = |index: &usize, keep: &dyn Fn(&Tok, bool) -> bool, toks: &mut Vec<Tok>| {
        let candidates: Vec<&Vec<usize>> = all
            .iter()
            .filter(|p| {
                let (list, i) = parent(toks, p);
                keep(&list[i], i + 1 < list.len())
            })
            .collect();
        (!candidates.is_empty()).then(|| candidates[index % candidates.len()].clone())
    };
    let any = |_: &Tok, _: bool| true;
    match m {
        Mutation::Delete(i) => {
            if let Some(p) = pick(i, &any, toks) {
                let (list, i) = parent(toks, &p);
                list.remove(i);
            }
        }
        Mutation::Duplicate(i) => {
            if let Some(p) = pick(i, &any, toks) {
                let (list, i) = parent(toks, &p);
                let copy = list[i].clone();
                list.insert(i, copy);
            }
        }
        Mutation::SwapWithNext(i) => {
            if let Some(p) = pick(i, &|_, has_next| has_next, toks) {
                let (list, i) = parent(toks, &p);
                list.swap(i, i + 1);
            }
        }
        Mutation::ReplaceIdent(i, new) => {
            if let Some(p) = pick(i, &|t, _| matches!(t, Tok::Ident(_)), toks) {
                let (list, i) = parent(toks, &p);
                list[i] = new.clone();
            }
        }
        Mutation::ReplaceLiteral(i, new) => {
            if let Some(p) = pick(i, &|t, _| matches!(t, Tok::Lit(_)), toks) {
                let (list, i) = parent(toks, &p);
                list[i] = new.clone();
            }
        }
        Mutation::ReplacePunct(i, new) => {
            if let Some(p) = pick(i, &|t, _| matches!(t, Tok::Punct(..)), toks) {
                let (list, i) = parent(toks, &p);
                list[i] = new.clone();
            }
        }
        Mutation::EmptyGroup(i) => {
            if let Some(p) = pick(i, &|t, _| matches!(t, Tok::Group(..)), toks) {
                let (list, i) = parent(toks, &p);
                if let Tok::Group(_, inner) = &mut list[i] {
                    inner.clear();
                }
            }
        }
        Mutation::Insert(i, new) => match pick(i, &any, toks) {
            Some(p) => {
                let (list, i) = parent(toks, &p);
                list.insert(i, new.clone());
            }
            None => toks.push(new.clone()),
        },
    }
}

fn valid_models() -> [TokenStream; 4] {
    [double_pendulum(), cart_pole(), driven(), oscillator()]
}

fn mutated(model: usize, mutations: &[Mutation]) -> TokenStream {
    let mut toks = from_stream(valid_models()[model].clone());
    for m in mutations {
        apply(&mut toks, m);
    }
    to_stream(&toks)
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        // Keep failures in the test output only: no regression files in the source tree.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

#[test]
fn mutation_helpers_work() {
    let mut toks = from_stream(quote!(a (b c) d));
    apply(&mut toks, &Mutation::EmptyGroup(0));
    assert_eq!(to_stream(&toks).to_string(), "a () d");
    let mut toks = from_stream(quote!(a (b c) d));
    apply(&mut toks, &Mutation::SwapWithNext(0));
    assert_eq!(to_stream(&toks).to_string(), "(b c) a d");
    let mut toks = from_stream(quote!(a (b c) d));
    apply(
        &mut toks,
        &Mutation::ReplaceIdent(1, Tok::Ident("z".into())),
    );
    assert_eq!(to_stream(&toks).to_string(), "a (z c) d");
    // Every valid model survives the round trip through `Tok`.
    for model in valid_models() {
        assert_eq!(
            to_stream(&from_stream(model.clone())).to_string(),
            model.to_string()
        );
    }
}

proptest! {
    #![proptest_config(config(512))]

    /// Random token streams never make the macro panic.
    #[test]
    fn random_tokens_never_panic(toks in random_input()) {
        let out = crate::expand(to_stream(&toks));
        check_output(&out)?;
    }

    /// Randomly mutated valid models never make the macro panic.
    #[test]
    fn mutated_models_never_panic(
        model in 0..4usize,
        mutations in prop::collection::vec(mutation(false), 1..5),
    ) {
        let out = crate::expand(mutated(model, &mutations));
        check_output(&out)?;
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// The same with literals that overflow `f64`.
    #[test]
    fn mutated_models_with_overflowing_literals_never_panic(
        model in 0..4usize,
        mutations in prop::collection::vec(mutation(true), 1..5),
    ) {
        let out = crate::expand(mutated(model, &mutations));
        check_output(&out)?;
    }
}

/// Nesting deeper than the parser's limit is an error, not a stack overflow.
#[test]
fn deeply_nested_expressions_are_an_error_not_a_crash() {
    let depth = 5000;
    let source = format!(
        "struct M {{ coordinates: x; kinetic = {}dot(x){}; }}",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let tokens: TokenStream = source.parse().unwrap();
    let out = crate::expand(tokens).to_string();
    assert!(out.contains("compile_error"), "{out}");
    assert!(out.contains("nested more than"), "{out}");
    let ok = format!(
        "struct M {{ coordinates: x; kinetic = {}dot(x){}^2; }}",
        "(".repeat(20),
        ")".repeat(20)
    );
    let out = crate::expand(ok.parse().unwrap()).to_string();
    assert!(!out.contains("compile_error"), "{out}");
}

/// Long chains of operators or method calls are an error, not a crash of the compiler.
#[test]
fn very_long_statements_are_an_error_not_a_crash() {
    let sum = vec!["x"; 20_000].join(" + ");
    let chain = ".sin()".repeat(5_000);
    for body in [
        format!("potential = {sum};"),
        format!("potential = x{chain};"),
    ] {
        let source = format!("struct M {{ coordinates: x; kinetic = dot(x)^2; {body} }}");
        let out = crate::expand(source.parse().unwrap()).to_string();
        assert!(
            out.contains("statement too long"),
            "{}",
            &out[..200.min(out.len())]
        );
    }
    let fine = vec!["x"; 400].join(" + ");
    let source = format!("struct M {{ coordinates: x; kinetic = dot(x)^2; potential = {fine}; }}");
    let out = crate::expand(source.parse().unwrap()).to_string();
    assert!(!out.contains("compile_error"));
}

// ---------------------------------------------------------------------------------------
// The fast path
// ---------------------------------------------------------------------------------------

/// The generated `eval_equations` of a model, as text, with at most `limit` statements.
fn equations_code(tokens: TokenStream, limit: usize) -> Option<String> {
    let model = parse_ok(tokens);
    let mut errors = crate::errors::Errors::default();
    let checked = crate::check::check(&model, &mut errors);
    let lowered = crate::lower::lower(&checked, &mut errors);
    if let Err(e) = errors.finish() {
        panic!("{:?}", messages(&e));
    }
    crate::fast::equations_fn(&lowered, limit).map(|code| code.to_string())
}

/// The number of statements of the generated code that compute a value (a `let` of an
/// input, or an assignment to one of the locals declared together).
fn statements(code: &str) -> usize {
    code.matches(" = ").count()
}

#[test]
fn every_valid_model_has_a_fast_path() {
    for tokens in [double_pendulum(), cart_pole(), driven(), oscillator()] {
        let code = equations_code(tokens, crate::fast::MAX_STATEMENTS).expect("a fast path");
        assert!(code.contains("fn eval_equations"), "{code}");
    }
}

#[test]
fn structurally_zero_derivatives_are_not_computed() {
    // Two uncoupled oscillators: the off-diagonal mass entries are the literal zero, and
    // nothing is computed for them.
    let code = equations_code(
        quote! {
            struct Two {
                coordinates: a, b;
                kinetic = dot(a)^2/2 + 3*dot(b)^2/2;
                potential = a^2/2 + b^4;
            }
        },
        crate::fast::MAX_STATEMENTS,
    )
    .unwrap();
    let mass = &code[code.find("mass").unwrap()..code.find("momenta").unwrap()];
    assert_eq!(mass.matches("0f64").count(), 2, "{mass}");
    // Each coordinate's square: value, q̇ gradient and (q̇, q̇) entry, and no more.
    assert!(statements(&code) < 40, "{code}");
}

#[test]
fn a_model_too_large_for_the_unrolled_path_is_left_to_the_sweep() {
    let code = equations_code(double_pendulum(), crate::fast::MAX_STATEMENTS).unwrap();
    let n = statements(&code);
    // The double pendulum takes well under a thousand statements; with a lower limit the
    // unrolled path is left out (and `eval_equations` is the sweep).
    assert!((20..1000).contains(&n), "{n} statements");
    assert!(equations_code(double_pendulum(), n / 2).is_none());
    assert!(equations_code(double_pendulum(), n).is_some());
}

// ---------------------------------------------------------------------------------------
// Regressions of the reliability review
// ---------------------------------------------------------------------------------------

/// `let a0 = x; let a1 = a0 + a0; …` under a constraint: every analysis over lets once
/// followed them recursively (2ᴺ visits, days of compile time at N = 40). The lowered graph
/// has one node per let, and the whole macro finishes at once.
#[test]
fn a_doubling_chain_of_lets_is_linear_in_its_length() {
    const N: usize = 60;
    let mut statements = quote!(let a0 = x;);
    for k in 1..=N {
        let (a, b) = (format_ident!("a{k}"), format_ident!("a{}", k - 1));
        statements.extend(quote!(let #a = #b + #b;));
    }
    let last = format_ident!("a{N}");
    let tokens = quote! {
        struct Chain {
            coordinates: x, y;
            #statements
            kinetic = dot(x)^2 + dot(y)^2 + dot(#last)^2;
            constraint c = #last - y;
        }
    };
    let model = parse_ok(tokens.clone());
    let mut errors = crate::errors::Errors::default();
    let checked = crate::check::check(&model, &mut errors);
    let lowered = crate::lower::lower(&checked, &mut errors);
    assert!(errors.finish().is_ok());
    assert!(lowered.nodes.len() < 4 * N, "{} nodes", lowered.nodes.len());
    let out = crate::expand(tokens);
    assert_eq!(compile_errors(&out), Vec::<String>::new());
    assert!(implements(&out, "Model", "Chain"));
    // One constraint: the model is a `Constrained<2, 0, 1>` through the runtime's impl.
    let text = out.to_string();
    assert!(
        text.contains("type Constraints = :: lagrange_runtime :: __private :: Count < 1usize >"),
        "{text}"
    );
}

/// A model's `#[cfg]` goes on every generated item, the other attributes on the struct.
#[test]
fn cfg_attributes_apply_to_every_generated_item() {
    let out = crate::expand(quote! {
        #[cfg(feature = "models")]
        #[derive(Hash)]
        struct Osc { parameters: k = 1.0; coordinates: x; kinetic = dot(x)^2; potential = k*x^2; }
    });
    let cfg = quote!(#[cfg(feature = "models")]).to_string();
    let text = out.to_string();
    let items = text.matches(&cfg).count();
    // The struct, its inherent impl, `Default`, `OscCoordinates` and its conversions, and
    // the trait impls: each under the `cfg`, and nothing else at the top level.
    assert!(items >= 8, "{items} items under cfg: {text}");
    assert!(text.starts_with(&cfg), "{text}");
    assert_eq!(text.matches("Hash").count(), 1, "{text}");
}
