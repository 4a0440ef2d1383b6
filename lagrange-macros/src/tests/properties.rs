//! Property tests: whatever tokens the macro is given, it does not panic and returns a model or `compile_error!` tokens.

use super::*;

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

/// `cases` draws from a fixed seed, so that a run of the suite is reproducible; set
/// `PROPTEST_RNG_SEED` to another number to explore other draws.
fn config(cases: u32) -> ProptestConfig {
    let default = ProptestConfig::default();
    let rng_seed = match default.rng_seed {
        proptest::test_runner::RngSeed::Random => proptest::test_runner::RngSeed::Fixed(0x1a9_2a4e),
        fixed => fixed,
    };
    ProptestConfig {
        cases,
        rng_seed,
        // Keep failures in the test output only: no regression files in the source tree.
        failure_persistence: None,
        ..default
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
    with_compiler_stack(|| {
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
    });
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

/// A model of `lets` scalar `let`s of `terms` terms each, every one adding the one before,
/// the last in both energies: its graph is a chain as deep as the model is long.
fn chain_of_lets(lets: usize, terms: usize) -> TokenStream {
    let mut source = String::from("struct Long { coordinates: x, y; let a0 = x;");
    for i in 1..=lets {
        source += &format!("let a{i} = a{}", i - 1);
        for k in 1..=terms {
            let v = if k % 2 == 0 { "x" } else { "y" };
            source += &format!(" + {k}*sin({}*{v} + {k})", k % 7 + 1);
        }
        source += ";";
    }
    source +=
        &format!("kinetic = dot(x)^2/2 + dot(y)^2/2 + dot(a{lets})^2/2; potential = a{lets}; }}");
    source.parse().unwrap()
}

/// Runs `f` in a thread with `bytes` of stack.
fn with_stack(bytes: usize, f: impl FnOnce() + Send + 'static) {
    let thread = std::thread::Builder::new().stack_size(bytes).spawn(f);
    if let Err(panic) = thread.expect("spawn").join() {
        std::panic::resume_unwind(panic);
    }
}

/// No recursion of the macro grows with the number of `let`s: a chain of 45 `let`s of 120
/// terms (5 400 nodes deep) expands in a quarter of the stack rustc gives a macro. It
/// overflowed rustc's 8 MiB when the macro was built at opt-level 0, as a user's
/// `cargo build` builds it, through the sweep's expansion of linear combinations and the
/// derivative along the motion, which recursed through the chain; this crate's tests build
/// it at opt-level 1, whose frames are smaller, hence the smaller stack here.
#[test]
fn long_chains_of_lets_expand_in_a_small_stack() {
    with_stack(2 << 20, || {
        let out = crate::expand(chain_of_lets(45, 120));
        assert_eq!(compile_errors(&out), Vec::<String>::new());
    });
}

/// An error found through a chain of `let`s is located without following the whole chain
/// (the search for its site once recursed through every `let` of it).
#[test]
fn errors_through_long_chains_of_lets_are_located_in_a_small_stack() {
    with_stack(2 << 20, || {
        let mut source = String::from("struct Long { coordinates: x, y; let b0 = dot(x)^2;");
        for i in 1..=3000 {
            source += &format!("let b{i} = b{} + 1*x + 2*y + 3*x*y + 4*x + 5*y;", i - 1);
        }
        source += "kinetic = dot(x)^2/2 + dot(y)^2/2; constraint c = b3000; }";
        let out = crate::expand(source.parse().unwrap());
        let errors = compile_errors(&out);
        assert!(
            errors[0].contains("constraint `c` is not affine"),
            "{errors:?}"
        );
        assert!(errors[1].contains("`b3000` is not affine"), "{errors:?}");
    });
}
