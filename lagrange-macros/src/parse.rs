//! Grammar only: tokens → [`ast::Model`]. Names are not resolved here.
//!
//! The body is split at its top-level `;` and each statement is parsed on its own, so a
//! syntax error in one statement does not hide the errors of the others.

use crate::ast::{
    BinOp, Declared, Expr, Header, Index, Keyword, Model, Number, Parameter, Statement, UnitExpr,
};
use crate::errors::{closest, Errors};
use proc_macro2::{Delimiter, Punct, Spacing, Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{braced, bracketed, parenthesized, token, Attribute, Ident, Lit, Token, Visibility};

/// Rust's primitive types: a model of one of these names would shadow it in the generated
/// code (`f64` above all).
const PRIMITIVE_TYPES: [&str; 17] = [
    "bool", "char", "str", "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16",
    "u32", "u64", "u128", "usize",
];

/// Parses the input of `lagrangian!`. All syntax errors found are returned together.
pub fn parse(tokens: TokenStream) -> syn::Result<Model> {
    parse_model.parse2(tokens)
}

fn parse_model(input: ParseStream) -> syn::Result<Model> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis: Visibility = input.parse()?;
    if !input.peek(Token![struct]) {
        return Err(input.error("expected `struct Name { … }`: a model starts like a struct"));
    }
    let struct_token = input.parse::<Token![struct]>()?;
    if !input.peek(Ident) {
        return Err(syn::Error::new(
            struct_token.span,
            "expected the model's name after `struct`",
        ));
    }
    let name = usable_in_every_edition(&input.parse()?);
    if PRIMITIVE_TYPES.contains(&name.to_string().as_str()) {
        return Err(syn::Error::new(
            name.span(),
            format!("a model cannot be named `{name}`: that is a primitive type of Rust, which the generated code uses"),
        ));
    }
    if input.peek(Token![<]) {
        return Err(input.error("a model cannot have generic parameters"));
    }
    if !input.peek(token::Brace) {
        return Err(syn::Error::new(
            name.span(),
            format!("expected `{{` and the statements of the model after `{name}`"),
        ));
    }
    let body;
    braced!(body in input);
    let body: TokenStream = body.parse()?;
    if !input.is_empty() {
        return Err(input.error("unexpected tokens after the model: `lagrangian!` takes one model"));
    }
    let statements = parse_body(body)?;
    Ok(Model {
        header: Header { attrs, vis, name },
        statements,
        robot: None,
    })
}

fn parse_body(body: TokenStream) -> syn::Result<Vec<Statement>> {
    let mut errors = Errors::default();
    let mut statements = Vec::new();
    for (tokens, terminated) in split_statements(body) {
        if !terminated {
            let last = tokens.clone().into_iter().last().map(|t| t.span());
            errors.at(
                last.unwrap_or_else(Span::call_site),
                "expected `;` after this statement",
            );
        }
        match parse_statement.parse2(tokens) {
            Ok(Some(statement)) => statements.push(statement),
            Ok(None) => {}
            Err(e) => errors.push(e),
        }
    }
    errors.finish().map(|()| statements)
}

/// Splits at top-level `;`. Each piece keeps its `;` — a statement missing one gets a
/// `;` spanned at its last token — so that "expected …" errors at the end of a statement
/// point at the user's text rather than at the whole macro. The flag says whether the
/// `;` was written.
fn split_statements(body: TokenStream) -> Vec<(TokenStream, bool)> {
    let mut pieces = Vec::new();
    let mut current: Vec<TokenTree> = Vec::new();
    for tree in body {
        let end = matches!(&tree, TokenTree::Punct(p) if p.as_char() == ';');
        current.push(tree);
        if end {
            pieces.push((current.drain(..).collect(), true));
        }
    }
    if let Some(last) = current.last() {
        let mut semi = Punct::new(';', Spacing::Alone);
        semi.set_span(last.span());
        current.push(TokenTree::Punct(semi));
        pieces.push((current.into_iter().collect(), false));
    }
    pieces
}

/// One statement with its `;`. `None` for an empty statement.
fn parse_statement(input: ParseStream) -> syn::Result<Option<Statement>> {
    OPERATORS.with(|n| n.set(0));
    for attr in input.call(Attribute::parse_outer)? {
        if !attr.path().is_ident("doc") {
            return Err(syn::Error::new_spanned(
                attr,
                "only doc comments are allowed on statements",
            ));
        }
    }
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
        return Ok(None);
    }
    let statement = if input.peek(Token![let]) {
        input.parse::<Token![let]>()?;
        let name = parse_name(input)?;
        no_unit_here(input, "the dimension of a `let` is inferred")?;
        input.parse::<Token![=]>()?;
        Statement::Let {
            name,
            value: parse_expr(input)?,
        }
    } else {
        parse_keyword_statement(input)?
    };
    if !input.peek(Token![;]) {
        return Err(input.error("expected an operator or `;`"));
    }
    input.parse::<Token![;]>()?;
    Ok(Some(statement))
}

fn parse_keyword_statement(input: ParseStream) -> syn::Result<Statement> {
    let keyword = match input.call(Ident::parse_any) {
        Ok(k) => k,
        Err(_) => return Err(input.error(expected_statement(None))),
    };
    let word = keyword.to_string();
    match Keyword::from_name(&word) {
        Some(Keyword::Parameters) => {
            let items = parse_list(input, |input| {
                let name = parse_name(input)?;
                if !input.peek(Token![=]) {
                    let unit = parse_unit(input)?;
                    if unit.is_some() && input.peek(Token![=]) {
                        return Err(input.error(format!(
                            "a parameter's unit goes after its default: `{name} = … [unit]`"
                        )));
                    }
                    return Ok(Parameter {
                        name,
                        default: None,
                        unit,
                    });
                }
                input.parse::<Token![=]>()?;
                let (default, unit) = parse_default(input)?;
                Ok(Parameter {
                    name,
                    default: Some(default),
                    unit,
                })
            })?;
            Ok(Statement::Parameters(items))
        }
        Some(Keyword::Coordinates) => {
            Ok(Statement::Coordinates(parse_list(input, parse_declared)?))
        }
        Some(Keyword::Inputs) => Ok(Statement::Inputs(parse_list(input, parse_declared)?)),
        Some(Keyword::Force) => {
            let force = parse_expr(input)?;
            let on = input.call(Ident::parse_any).ok().filter(|i| i == "on");
            if on.is_none() {
                return Err(input
                    .error("expected `on` and the position the force acts on: `force F on p;`"));
            }
            let point = parse_expr(input)?;
            Ok(Statement::Force { force, point })
        }
        Some(Keyword::Torque) => {
            let torque = parse_expr(input)?;
            let on = input.call(Ident::parse_any).ok().filter(|i| i == "on");
            if on.is_none() {
                return Err(input.error(
                    "expected `on` and the rotation of the body the torque acts on: `torque tau on R;`",
                ));
            }
            let rotation = parse_expr(input)?;
            Ok(Statement::Torque {
                keyword,
                torque,
                rotation,
            })
        }
        Some(Keyword::Urdf) => {
            input.parse::<Token![:]>()?;
            if !input.peek(syn::LitStr) {
                return Err(input.error(
                    "expected the path of a URDF file, relative to the crate's Cargo.toml: `urdf: \"robot.urdf\";`",
                ));
            }
            let path: syn::LitStr = input.parse()?;
            let (mut floating, mut actuated) = (false, false);
            while let Ok(word) = input.call(Ident::parse_any) {
                let given = if word == "floating" {
                    &mut floating
                } else if word == "actuated" {
                    &mut actuated
                } else {
                    return Err(syn::Error::new(
                        word.span(),
                        "after the path, only `floating` (a free-floating base) and `actuated` (an input and its force for every driven joint) may follow",
                    ));
                };
                if *given {
                    return Err(syn::Error::new(
                        word.span(),
                        format!("`{word}` is given twice"),
                    ));
                }
                *given = true;
            }
            Ok(Statement::Urdf {
                keyword,
                path,
                floating,
                actuated,
            })
        }
        Some(Keyword::Constraint) => {
            let name = parse_name(input)?;
            no_unit_here(input, "the dimension of a constraint is inferred")?;
            input.parse::<Token![=]>()?;
            Ok(Statement::Constraint {
                name,
                value: parse_expr(input)?,
            })
        }
        Some(Keyword::Contact) => {
            let name = parse_name(input)?;
            no_unit_here(input, "a contact is a point or a frame of the model")?;
            input.parse::<Token![=]>()?;
            let frame = input
                .fork()
                .call(Ident::parse_any)
                .is_ok_and(|i| i == "frame")
                && {
                    let ahead = input.fork();
                    let _ = ahead.call(Ident::parse_any);
                    ahead.peek(syn::token::Paren)
                };
            if !frame {
                return Ok(Statement::Contact {
                    name,
                    rotation: None,
                    point: parse_expr(input)?,
                });
            }
            input.call(Ident::parse_any)?;
            let content;
            syn::parenthesized!(content in input);
            let rotation = parse_expr(&content)?;
            let form = "a frame contact is `contact name = frame(R, p);`, with the rotation R of a body and a point p of it";
            if !content.peek(Token![,]) {
                return Err(content.error(form));
            }
            content.parse::<Token![,]>()?;
            let point = parse_expr(&content)?;
            let _ = content.parse::<Option<Token![,]>>()?;
            if !content.is_empty() {
                return Err(content.error(form));
            }
            Ok(Statement::Contact {
                name,
                rotation: Some(rotation),
                point,
            })
        }
        // `let` is parsed before the keyword statements.
        keyword_or_not => match keyword_or_not.and_then(Keyword::energy) {
            Some(kind) => {
                if input.peek(Token![:]) {
                    return Err(input.error(format!("expected `=`: write `{word} = …;`")));
                }
                no_unit_here(input, "energies are in J and the dissipation function in W")?;
                input.parse::<Token![=]>()?;
                Ok(Statement::Energy {
                    kind,
                    keyword,
                    value: parse_expr(input)?,
                })
            }
            None => Err(syn::Error::new(
                keyword.span(),
                expected_statement(Some(&word)),
            )),
        },
    }
}

fn expected_statement(found: Option<&str>) -> String {
    let hint = found
        .and_then(|w| closest(w, Keyword::all().map(Keyword::name)))
        .map(|c| format!(", did you mean `{c}`?"))
        .unwrap_or_default();
    let forms: Vec<String> = Keyword::all().map(|k| format!("`{}`", k.form())).collect();
    format!(
        "expected a statement{hint}\n= note: statements are {}",
        forms.join(", ")
    )
}

/// `: item, item, …` with an optional trailing comma and at least one item.
fn parse_list<T>(
    input: ParseStream,
    item: fn(ParseStream) -> syn::Result<T>,
) -> syn::Result<Vec<T>> {
    input.parse::<Token![:]>()?;
    let mut items = vec![item(input)?];
    while input.peek(Token![,]) {
        input.parse::<Token![,]>()?;
        if input.peek(Token![;]) {
            break;
        }
        items.push(item(input)?);
    }
    if !input.peek(Token![;]) {
        return Err(input.error("expected `,` or `;`"));
    }
    Ok(items)
}

/// An error for a unit written where none belongs (after a `let`'s name, say).
fn no_unit_here(input: ParseStream, why: &str) -> syn::Result<()> {
    if input.peek(token::Bracket) {
        return Err(input.error(format!(
            "units go on parameters, coordinates and inputs only: {why}"
        )));
    }
    Ok(())
}

/// A coordinate or input: a name and an optional unit, `x [m]`.
fn parse_declared(input: ParseStream) -> syn::Result<Declared> {
    let name = parse_name(input)?;
    let unit = parse_unit(input)?;
    Ok(Declared { name, unit })
}

/// A parameter's default and its unit: `9.81 [m/s^2]`. A default is a scalar, so a
/// bracket that ends it is the unit, never an index: the default's tokens end before it.
fn parse_default(input: ParseStream) -> syn::Result<(Expr, Option<UnitExpr>)> {
    let mut trees: Vec<TokenTree> = Vec::new();
    while !input.is_empty() && !input.peek(Token![,]) && !input.peek(Token![;]) {
        trees.push(input.parse()?);
    }
    let unit = match trees.last() {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket && trees.len() > 1 => {
            let g = g.clone();
            trees.pop();
            Some((|input: ParseStream| parse_unit(input)).parse2(TokenTree::Group(g).into())?)
        }
        _ => None,
    };
    if trees.is_empty() {
        return Err(input.error("expected the parameter's default value after `=`"));
    }
    // A default never holds a bracket of names (a default is a scalar): that is a unit out
    // of place, or a second one.
    let misplaced = trees.iter().find(|t| {
        matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket
            && matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(_))))
    });
    if let Some(bracket) = misplaced {
        return Err(syn::Error::new(
            bracket.span(),
            "a parameter has one unit, written last: `a = 1.5 [m]`",
        ));
    }
    // The user's terminator (`,` or `;`), so that "expected …" at the end of the default
    // points at, and names, the user's text.
    let end: Option<TokenTree> = input.cursor().token_tree().map(|(t, _)| t);
    trees.extend(end);
    let default = (|input: ParseStream| {
        let e = parse_expr(input)?;
        if !(input.is_empty() || input.peek(Token![,]) || input.peek(Token![;])) {
            return Err(input.error("expected an operator, a unit in brackets, `,` or `;`"));
        }
        // The terminator stays in the statement's stream; this copy is dropped.
        let _: Option<TokenTree> = input.parse().ok();
        Ok(e)
    })
    .parse2(trees.into_iter().collect())?;
    Ok((default, unit.flatten()))
}

/// An optional unit in brackets after a declared name or default: `[kg*m^2]`.
fn parse_unit(input: ParseStream) -> syn::Result<Option<UnitExpr>> {
    if !input.peek(token::Bracket) {
        return Ok(None);
    }
    let content;
    let brackets = bracketed!(content in input);
    if content.is_empty() {
        return Err(syn::Error::new(
            brackets.span.join(),
            "expected a unit between the brackets, as in `[m]`, `[N*m]` or `[1]`",
        ));
    }
    let unit = parse_unit_product(&content)?;
    if !content.is_empty() {
        return Err(content.error("expected `*`, `/`, `^` or `]` in a unit"));
    }
    Ok(Some(unit))
}

/// unit := factor (('*' | '/') factor)*
/// Everything after a `/` is the denominator only when grouped: `W/m*K` is ambiguous, and
/// an error that asks for `W/(m*K)` or `W*K/m`.
fn parse_unit_product(input: ParseStream) -> syn::Result<UnitExpr> {
    let _nesting = Nesting::enter(input)?;
    let mut unit = parse_unit_factor(input)?;
    let mut divided = false;
    loop {
        let multiply = input.peek(Token![*]);
        if !multiply && !input.peek(Token![/]) {
            return Ok(unit);
        }
        if divided {
            return Err(input.error(
                "ambiguous unit: after `/`, group the denominator in parentheses, as in `W/(m*K)`",
            ));
        }
        count_operator(input)?;
        input.parse::<TokenTree>()?;
        let factor = Box::new(parse_unit_factor(input)?);
        unit = if multiply {
            UnitExpr::Mul(Box::new(unit), factor)
        } else {
            divided = true;
            UnitExpr::Div(Box::new(unit), factor)
        };
    }
}

/// The largest power a unit may raise a symbol to: far beyond any physical unit, and
/// small enough that no product of a model's dimensions overflows.
const MAX_UNIT_EXPONENT: i32 = 64;

/// factor := (symbol | `1` | '(' unit ')') ('^' '-'? integer)?
fn parse_unit_factor(input: ParseStream) -> syn::Result<UnitExpr> {
    let base = if input.peek(token::Paren) {
        let content;
        parenthesized!(content in input);
        let unit = parse_unit_product(&content)?;
        if !content.is_empty() {
            return Err(content.error("expected `*`, `/`, `^` or `)` in a unit"));
        }
        unit
    } else if input.peek(syn::LitInt) {
        let one: syn::LitInt = input.parse()?;
        if one.to_string() != "1" {
            return Err(syn::Error::new(
                one.span(),
                "a unit holds no numbers other than `1` (dimensionless): write `[m]`, `[N*m]`, `[1]`",
            ));
        }
        UnitExpr::One
    } else if input.peek(Ident::peek_any) {
        UnitExpr::Symbol(input.call(Ident::parse_any)?)
    } else {
        return Err(input.error("expected a unit, as in `[m]`, `[N*m]`, `[m/s^2]` or `[1]`"));
    };
    if !input.peek(Token![^]) {
        return Ok(base);
    }
    let caret = input.parse::<Token![^]>()?.span;
    let negative = input.peek(Token![-]);
    if negative {
        input.parse::<Token![-]>()?;
    }
    const INTEGER: &str = "a unit's exponent is an integer, as in `m^2` or `s^-2`";
    let exponent = match input.parse::<TokenTree>() {
        Ok(TokenTree::Literal(lit)) => {
            let Ok(Lit::Int(int)) = syn::parse2::<Lit>(TokenTree::Literal(lit.clone()).into())
            else {
                return Err(syn::Error::new(lit.span(), INTEGER));
            };
            if !int.suffix().is_empty() {
                return Err(syn::Error::new(int.span(), INTEGER));
            }
            match int.base10_parse::<i32>() {
                Ok(n) if n <= MAX_UNIT_EXPONENT => n,
                _ => {
                    return Err(syn::Error::new(
                        int.span(),
                        format!("a unit's exponent is at most {MAX_UNIT_EXPONENT}"),
                    ))
                }
            }
        }
        Ok(other) => return Err(syn::Error::new(other.span(), INTEGER)),
        Err(_) => return Err(syn::Error::new(caret, INTEGER)),
    };
    Ok(UnitExpr::Pow(
        Box::new(base),
        if negative { -exponent } else { exponent },
    ))
}

/// A name: any identifier that is not a Rust keyword.
fn parse_name(input: ParseStream) -> syn::Result<Ident> {
    if input.peek(Ident) {
        return input.parse().map(|name| usable_in_every_edition(&name));
    }
    match input.call(Ident::parse_any) {
        Ok(keyword) => Err(syn::Error::new(
            keyword.span(),
            format!("`{keyword}` is a Rust keyword and cannot be used as a name"),
        )),
        Err(_) => Err(input.error("expected a name")),
    }
}

/// Names that are identifiers in the 2021 edition of Rust but reserved keywords in a later
/// one (syn accepts them). They are kept raw (`r#gen`), so that the fields generated from
/// them compile in every edition; `r#gen` and `gen` are one name everywhere in Rust.
const RESERVED_IN_LATER_EDITIONS: [&str; 1] = ["gen"];

/// `name`, raw if it is reserved in a later edition of Rust.
pub(crate) fn usable_in_every_edition(name: &Ident) -> Ident {
    let plain = name.unraw().to_string();
    if RESERVED_IN_LATER_EDITIONS.contains(&plain.as_str()) {
        Ident::new_raw(&plain, name.span())
    } else {
        name.clone()
    }
}

fn parse_number(input: ParseStream) -> syn::Result<Number> {
    let lit: Lit = input.parse()?;
    let (value, suffix) = match &lit {
        Lit::Float(f) => (f.base10_parse::<f64>(), f.suffix()),
        Lit::Int(i) => (i.base10_parse::<f64>(), i.suffix()),
        _ => return Err(syn::Error::new(lit.span(), "expected a number")),
    };
    if !suffix.is_empty() {
        return Err(syn::Error::new(
            lit.span(),
            "numbers take no type suffix here: every number is an `f64`",
        ));
    }
    let value = value?;
    if !value.is_finite() {
        return Err(syn::Error::new(
            lit.span(),
            "this number is too large for an `f64`",
        ));
    }
    Ok(Number {
        value,
        span: lit.span(),
    })
}

/// How deeply expressions may nest (parentheses, arguments, exponents, unary minus).
/// The parser, the checks and code generation recurse over the tree; the limit keeps the
/// recursion far from the stack's end on any compiler thread. No model comes close.
const MAX_DEPTH: usize = 64;

/// How many operators and method calls one statement may hold. A chain `a + b + c + …`
/// nests as deeply as it is long in the syntax tree (and in the generated code, which rustc
/// parses recursively); machine-generated models split longer ones with `let`.
const MAX_OPERATORS: usize = 500;

thread_local! {
    static DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    static OPERATORS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts one operator of the current statement.
fn count_operator(input: ParseStream) -> syn::Result<()> {
    let count = OPERATORS.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    if count > MAX_OPERATORS {
        return Err(input.error(format!(
            "statement too long: more than {MAX_OPERATORS} operators; split it with `let`"
        )));
    }
    Ok(())
}

/// Counts one level of nesting for as long as it lives.
struct Nesting;

impl Nesting {
    fn enter(input: ParseStream) -> syn::Result<Nesting> {
        let depth = DEPTH.with(|d| {
            d.set(d.get() + 1);
            d.get()
        });
        let guard = Nesting;
        if depth > MAX_DEPTH {
            return Err(input.error(format!(
                "expression nested more than {MAX_DEPTH} levels deep: split it with `let`"
            )));
        }
        Ok(guard)
    }
}

impl Drop for Nesting {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get() - 1));
    }
}

/// expr := term (('+' | '-') term)*
pub(crate) fn parse_expr(input: ParseStream) -> syn::Result<Expr> {
    let _nesting = Nesting::enter(input)?;
    let mut lhs = parse_term(input)?;
    loop {
        let op = if input.peek(Token![+]) {
            BinOp::Add
        } else if input.peek(Token![-]) {
            BinOp::Sub
        } else {
            return Ok(lhs);
        };
        lhs = binary(input, op, lhs, parse_term)?;
    }
}

/// term := unary (('*' | '/') unary)*
fn parse_term(input: ParseStream) -> syn::Result<Expr> {
    let mut lhs = parse_unary(input)?;
    loop {
        let op = if input.peek(Token![*]) {
            BinOp::Mul
        } else if input.peek(Token![/]) {
            BinOp::Div
        } else {
            return Ok(lhs);
        };
        lhs = binary(input, op, lhs, parse_unary)?;
    }
}

fn binary(
    input: ParseStream,
    op: BinOp,
    lhs: Expr,
    rhs: fn(ParseStream) -> syn::Result<Expr>,
) -> syn::Result<Expr> {
    count_operator(input)?;
    input.parse::<TokenTree>()?;
    Ok(Expr::Binary {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs(input)?),
    })
}

/// unary := '-' unary | power. `^` binds tighter, so `-x^2` is `-(x^2)`.
fn parse_unary(input: ParseStream) -> syn::Result<Expr> {
    let _nesting = Nesting::enter(input)?;
    if input.peek(Token![-]) {
        let minus = input.parse::<Token![-]>()?.span;
        let operand = Box::new(parse_unary(input)?);
        return Ok(Expr::Neg { minus, operand });
    }
    parse_power(input)
}

/// power := postfix ('^' unary)?, right-associative: `a^b^c` is `a^(b^c)`, `x^-1` works.
fn parse_power(input: ParseStream) -> syn::Result<Expr> {
    let base = parse_postfix(input)?;
    if input.peek(Token![^]) {
        return binary(input, BinOp::Pow, base, parse_unary);
    }
    if input.peek(Token![*]) && input.peek2(Token![*]) {
        return Err(input.error("powers are written `x^2`, not `x**2`"));
    }
    Ok(base)
}

/// postfix := primary ('.' name ('(' args ')')? | '[' index (',' index)* ']')*
fn parse_postfix(input: ParseStream) -> syn::Result<Expr> {
    let mut expr = parse_primary(input)?;
    // A bracket after a literal is its unit, never an index.
    if input.peek(token::Bracket) && is_literal(&expr) {
        let close = input
            .cursor()
            .group(Delimiter::Bracket)
            .map(|(_, span, _)| span.close());
        if let Some(unit) = parse_unit(input)? {
            expr = Expr::Quantity {
                value: Box::new(expr),
                unit,
                close: close.unwrap_or_else(Span::call_site),
            };
        }
    }
    loop {
        if input.peek(token::Bracket) {
            count_operator(input)?;
            let (indices, close) = parse_indices(input)?;
            expr = Expr::Index {
                base: Box::new(expr),
                indices,
                close,
            };
            continue;
        }
        if !input.peek(Token![.]) {
            return Ok(expr);
        }
        count_operator(input)?;
        let dot = input.parse::<Token![.]>()?;
        if !input.peek(Ident::peek_any) {
            return Err(syn::Error::new(
                dot.span,
                "expected a component (`v.x`) or a method call (`x.sin()`) after `.`",
            ));
        }
        let name = input.call(Ident::parse_any)?;
        if !input.peek(token::Paren) {
            expr = Expr::Component {
                base: Box::new(expr),
                name,
            };
            continue;
        }
        let (mut args, close) = parse_args(input)?;
        args.insert(0, expr);
        expr = Expr::Call {
            func: name,
            args,
            method: true,
            close,
        };
    }
}

/// A number, a negated one, or a bracket list of such literals: what a unit may follow.
fn is_literal(e: &Expr) -> bool {
    match e {
        Expr::Number(_) => true,
        Expr::Neg { operand, .. } => matches!(**operand, Expr::Number(_)),
        Expr::List { items, .. } => items.iter().all(is_literal),
        _ => false,
    }
}

/// A unit written as text (`kg*m^2`), every token at `span`: the units of the numbers of
/// a URDF file.
pub(crate) fn unit_at(text: &str, span: Span) -> UnitExpr {
    fn respan(tokens: TokenStream, span: Span) -> TokenStream {
        tokens
            .into_iter()
            .map(|mut t| {
                if let TokenTree::Group(g) = &t {
                    let mut g2 = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                    g2.set_span(span);
                    t = TokenTree::Group(g2);
                } else {
                    t.set_span(span);
                }
                t
            })
            .collect()
    }
    let tokens: TokenStream = text.parse().expect("a unit's tokens");
    (|input: ParseStream| parse_unit_product(input))
        .parse2(respan(tokens, span))
        .expect("a valid unit")
}

/// `[i]` or `[i, j]`: integer literals.
fn parse_indices(input: ParseStream) -> syn::Result<(Vec<Index>, Span)> {
    let content;
    let brackets = bracketed!(content in input);
    let mut indices = Vec::new();
    while !content.is_empty() {
        let lit = content
            .parse::<syn::LitInt>()
            .ok()
            .filter(|l| l.suffix().is_empty());
        let Some(lit) = lit else {
            let unit = if content.peek(Ident::peek_any) {
                "; a unit in brackets goes after a declared parameter, coordinate or input, or after a literal (`0.5 [m]`)"
            } else {
                ""
            };
            return Err(syn::Error::new(
                content.span(),
                format!("an index is an integer literal from 0, as in `v[0]` or `A[1, 2]`{unit}"),
            ));
        };
        let Ok(value) = lit.base10_parse::<usize>() else {
            return Err(syn::Error::new(
                lit.span(),
                format!("index {lit} is out of range: no vector or matrix is that large"),
            ));
        };
        indices.push(Index {
            value,
            span: lit.span(),
        });
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    if indices.is_empty() {
        return Err(syn::Error::new(
            brackets.span.open(),
            "expected an index, as in `v[0]` or `A[1, 2]`",
        ));
    }
    Ok((indices, brackets.span.close()))
}

fn parse_primary(input: ParseStream) -> syn::Result<Expr> {
    if input.peek(syn::LitFloat) || input.peek(syn::LitInt) {
        return Ok(Expr::Number(parse_number(input)?));
    }
    if input.peek(token::Paren) {
        let content;
        let parens = parenthesized!(content in input);
        let inner = parse_expr(&content)?;
        if !content.is_empty() {
            return Err(content.error("expected an operator or `)`"));
        }
        return Ok(Expr::Paren {
            inner: Box::new(inner),
            open: parens.span.open(),
            close: parens.span.close(),
        });
    }
    if input.peek(token::Bracket) {
        let content;
        let brackets = bracketed!(content in input);
        let mut items = Vec::new();
        while !content.is_empty() {
            items.push(parse_expr(&content)?);
            if content.is_empty() {
                break;
            }
            if !content.peek(Token![,]) {
                return Err(content.error("expected an operator, `,` or `]`"));
            }
            content.parse::<Token![,]>()?;
        }
        if items.is_empty() {
            return Err(syn::Error::new(
                brackets.span.open(),
                "an empty list: a vector has at least one element",
            ));
        }
        return Ok(Expr::List {
            items,
            open: brackets.span.open(),
            close: brackets.span.close(),
        });
    }
    if input.peek(Ident) {
        let name: Ident = input.parse()?;
        if input.peek(token::Paren) {
            let (args, close) = parse_args(input)?;
            return Ok(Expr::Call {
                func: name,
                args,
                method: false,
                close,
            });
        }
        return Ok(Expr::Name(name));
    }
    Err(match input.cursor().token_tree() {
        Some((tree, _)) => syn::Error::new(
            tree.span(),
            format!("expected an expression, found `{}`", describe(&tree)),
        ),
        None => input.error("expected an expression"),
    })
}

fn describe(tree: &TokenTree) -> String {
    match tree {
        TokenTree::Group(g) => match g.delimiter() {
            Delimiter::Bracket => "[".into(),
            Delimiter::Brace => "{".into(),
            _ => "(".into(),
        },
        other => other.to_string(),
    }
}

/// `(a, b, …)`; returns the arguments and the span of the closing parenthesis.
fn parse_args(input: ParseStream) -> syn::Result<(Vec<Expr>, Span)> {
    let content;
    let parens = parenthesized!(content in input);
    let mut args = Vec::new();
    while !content.is_empty() {
        args.push(parse_expr(&content)?);
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    Ok((args, parens.span.close()))
}
