//! Straight-line code as both equation generators (`fast`, `sweep`) write it: values that
//! are literals or locals, sums of products, and the statements that assign the locals,
//! each with the locals it assigns and reads ([`Stmt`]), recorded when it is written, so
//! that what moves statements around (`chunk.rs`) never reads them back from their tokens.

use crate::names::{float, internal, private};
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::Ident;

/// A value in the generated code: a literal, or a local of the scalar type.
#[derive(Clone)]
pub enum Val {
    Lit(f64),
    Id(Ident),
}

impl Val {
    pub fn is_literal(&self, value: f64) -> bool {
        matches!(self, Val::Lit(x) if *x == value)
    }

    /// As an expression of the generic scalar `__S` (a literal converted from `f64`).
    pub fn scalar(&self) -> TokenStream {
        match self {
            Val::Id(i) => i.to_token_stream(),
            Val::Lit(v) => {
                let v = float(*v, Span::call_site());
                let p = private();
                quote!(<__S as #p::From<f64>>::from(#v))
            }
        }
    }
}

/// As an `f64` expression: a local, or an `f64` literal (which the generic scalar also
/// takes on the right of `*` and `/`).
impl ToTokens for Val {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            Val::Id(i) => i.to_tokens(tokens),
            Val::Lit(v) => float(*v, Span::call_site()).to_tokens(tokens),
        }
    }
}

impl Val {
    /// The local, if the value is one.
    pub fn local(&self) -> Option<&Ident> {
        match self {
            Val::Id(i) => Some(i),
            Val::Lit(_) => None,
        }
    }
}

/// The locals among `values`.
pub fn locals<'a>(values: impl IntoIterator<Item = &'a Val>) -> Vec<Ident> {
    values.into_iter().filter_map(Val::local).cloned().collect()
}

/// A statement of straight-line code, with the names it assigns and reads.
#[derive(Clone)]
pub struct Stmt {
    code: TokenStream,
    /// The locals it assigns (`x = …;`, `[x, y, z] = …;`); none for a store.
    pub defines: Vec<Ident>,
    /// The names it reads: the locals of its right side, and for a store the output it
    /// writes through and the loop variables it indexes by (`__mass`, `__j`, `__k`).
    pub reads: Vec<Ident>,
}

impl Stmt {
    /// In the crate's own tests, what a statement records is checked against its tokens:
    /// every generated name in it (`__…`, but for the scalar type `__S` and the runtime's
    /// `__private` path) is one it assigns or reads, so that a generator that forgets one
    /// fails every test that expands a model, not only a split one.
    #[cfg(test)]
    fn checked(self) -> Self {
        fn scan(t: TokenStream, out: &mut Vec<Ident>) {
            for t in t {
                match t {
                    proc_macro2::TokenTree::Ident(i) => out.push(i),
                    proc_macro2::TokenTree::Group(g) => scan(g.stream(), out),
                    _ => {}
                }
            }
        }
        let mut ids = Vec::new();
        scan(self.code.clone(), &mut ids);
        for i in ids {
            let name = i.to_string();
            let generated = name.starts_with("__") && name != "__S" && name != "__private";
            assert!(
                !generated || self.defines.contains(&i) || self.reads.contains(&i),
                "`{name}` is in `{}` but not among the names it assigns or reads",
                self.code
            );
        }
        self
    }

    /// `x = code;` or `[x, y, …] = code;`, which reads `reads`.
    pub fn assign(defines: Vec<Ident>, code: TokenStream, reads: Vec<Ident>) -> Self {
        let code = match defines.as_slice() {
            [x] => quote!(#x = #code;),
            names => quote!([#(#names),*] = #code;),
        };
        let stmt = Stmt {
            code,
            defines,
            reads,
        };
        #[cfg(test)]
        let stmt = stmt.checked();
        stmt
    }

    /// A statement that assigns no local (a store into an output), which reads `reads`.
    pub fn effect(code: TokenStream, reads: Vec<Ident>) -> Self {
        let stmt = Stmt {
            code,
            defines: Vec::new(),
            reads,
        };
        #[cfg(test)]
        let stmt = stmt.checked();
        stmt
    }
}

impl Stmt {
    /// Its weight in a function split for the cost of building it (`chunk.rs`): the names
    /// it assigns and reads (a sum of many terms weighs more than a product of two), at
    /// least one.
    pub fn weight(&self) -> usize {
        (self.defines.len() + self.reads.len()).max(1)
    }
}

impl ToTokens for Stmt {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.code.to_tokens(tokens);
    }
}

/// A term of a sum: a product of factors, optionally divided by one value.
pub struct Term {
    factors: Vec<Val>,
    divisor: Option<Val>,
}

impl Term {
    pub fn new(factors: Vec<Val>) -> Self {
        Term {
            factors,
            divisor: None,
        }
    }

    pub fn over(mut self, d: Val) -> Self {
        self.divisor = Some(d);
        self
    }
}

/// The scalar type of the generated code.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    F64,
    /// The generic `__S: Scalar` of the sweep.
    Generic,
}

/// The widest tuple of [`declare`].
const FAN_OUT: usize = 32;

/// One `let` declaring `names` (of `types`), uninitialized, as a tree of tuples of at most
/// [`FAN_OUT`] fields: `let ((a, b, …), (…), …): ((S, S, …), (…), …);`.
///
/// One `let`, because a `let` per local would nest one lexical scope in the next, thousands
/// deep in a large model, and LLVM's debug-info pass recurses through them until it
/// overflows its stack (a crash of rustc with debug info on). A tree, because rustc checks
/// a pattern's exhaustiveness field by field, each step copying the fields that remain: a
/// flat tuple of k fields costs it k² (a model of 20 `let`s of 120 terms: 55% of the
/// memory its build took, 3.4 GB at the largest), a tree k · FAN_OUT · depth.
pub fn declare(names: &[Ident], types: &[TokenStream]) -> TokenStream {
    let names: Vec<TokenStream> = names.iter().map(ToTokens::to_token_stream).collect();
    let (pattern, ty) = tuple_tree(&names, types);
    quote!(let #pattern: #ty;)
}

/// Two lists of the same length as trees of tuples of the same shape, at most
/// [`FAN_OUT`] fields each (a pattern and its type, or a pattern and its value), for one
/// `let` of many bindings ([`declare`]).
pub fn tuple_tree(left: &[TokenStream], right: &[TokenStream]) -> (TokenStream, TokenStream) {
    if left.len() <= FAN_OUT {
        return (quote!((#(#left,)*)), quote!((#(#right,)*)));
    }
    let size = left
        .len()
        .div_ceil(FAN_OUT)
        .next_power_of_two()
        .max(FAN_OUT);
    let (left, right): (Vec<_>, Vec<_>) = left
        .chunks(size)
        .zip(right.chunks(size))
        .map(|(l, r)| tuple_tree(l, r))
        .unzip();
    (quote!((#(#left,)*)), quote!((#(#right,)*)))
}

/// [`declare`] for locals of one type `ty`: a tree of arrays of at most [`FAN_OUT`]
/// elements, the type written once per level (`let [[a, b, …], [c, _, …]]: [[S; 32]; 2];`)
/// where a tuple writes it once per local (half the declaration's tokens). Each level's
/// last array is filled with `_`.
pub fn declare_uniform(names: &[Ident], ty: &TokenStream) -> TokenStream {
    if names.len() <= FAN_OUT {
        let count = names.len();
        return quote!(let [#(#names),*]: [#ty; #count];);
    }
    let mut patterns: Vec<TokenStream> = names.iter().map(|n| quote!(#n)).collect();
    let mut ty = ty.clone();
    while patterns.len() > FAN_OUT {
        patterns.resize(patterns.len().next_multiple_of(FAN_OUT), quote!(_));
        patterns = patterns
            .chunks(FAN_OUT)
            .map(|c| quote!([#(#c),*]))
            .collect();
        ty = quote!([#ty; #FAN_OUT]);
    }
    let count = patterns.len();
    quote!(let [#(#patterns),*]: [#ty; #count];)
}

/// Statements and the locals they assign, all declared by one `let` at the top
/// ([`declare`]).
pub struct Emit {
    prefix: &'static str,
    scalar: Scalar,
    pub statements: Vec<Stmt>,
    declared: Vec<Ident>,
    /// The arithmetic of the sums written so far: one operation per factor of a term (its
    /// multiplications, and the addition that takes it in) and per divisor.
    pub work: usize,
}

impl Emit {
    /// Locals named `prefix0`, `prefix1`, … of the scalar type.
    pub fn new(prefix: &'static str, scalar: Scalar) -> Self {
        Emit {
            prefix,
            scalar,
            statements: Vec::new(),
            declared: Vec::new(),
            work: 0,
        }
    }

    /// A new local.
    pub fn fresh(&mut self) -> Ident {
        let name = internal(&format!("{}{}", self.prefix, self.declared.len()));
        self.declared.push(name.clone());
        name
    }

    /// A new local assigned `code`, which reads the values `reads`.
    pub fn bind<'a>(&mut self, code: TokenStream, reads: impl IntoIterator<Item = &'a Val>) -> Val {
        let name = self.fresh();
        self.statements
            .push(Stmt::assign(vec![name.clone()], code, locals(reads)));
        Val::Id(name)
    }

    /// `K` new locals assigned at once by `code` (a function's jet), which reads `reads`.
    pub fn bind_all<'a, const K: usize>(
        &mut self,
        code: TokenStream,
        reads: impl IntoIterator<Item = &'a Val>,
    ) -> [Val; K] {
        let names: [Ident; K] = std::array::from_fn(|_| self.fresh());
        self.statements
            .push(Stmt::assign(names.to_vec(), code, locals(reads)));
        names.map(Val::Id)
    }

    /// Every local, in the order of their creation.
    pub fn names(&self) -> &[Ident] {
        &self.declared
    }

    /// A value as an expression of the scalar type.
    pub fn code(&self, v: &Val) -> TokenStream {
        match self.scalar {
            Scalar::F64 => v.to_token_stream(),
            Scalar::Generic => v.scalar(),
        }
    }

    /// The one declaration of every local, uninitialized ([`declare`]).
    pub fn declaration(&self) -> TokenStream {
        let ty = match self.scalar {
            Scalar::F64 => quote!(f64),
            Scalar::Generic => quote!(__S),
        };
        declare_uniform(&self.declared, &ty)
    }

    /// The sum of the terms, `None` when there are none. Factors of one are left out,
    /// terms with a factor of zero too; a single plain factor is reused, not copied.
    pub fn sum(&mut self, mut terms: Vec<Term>) -> Option<Val> {
        for t in &mut terms {
            t.factors.retain(|v| !v.is_literal(1.0));
            // `c · x` as `x · c`: the generic scalar takes an `f64` on the right of `*`,
            // where on the left the literal is converted first (a call, and for a dual
            // number a full product). The same value: both factors' product rounded once.
            if let [Val::Lit(_), Val::Id(_), ..] = t.factors.as_slice() {
                t.factors.swap(0, 1);
            }
        }
        terms.retain(|t| !t.factors.iter().any(|v| v.is_literal(0.0)));
        if let [t] = terms.as_slice() {
            if t.divisor.is_none() {
                match t.factors.as_slice() {
                    [] => return Some(Val::Lit(1.0)),
                    [v] => return Some(v.clone()),
                    _ => {}
                }
            }
        }
        if terms.is_empty() {
            return None;
        }
        self.work += terms
            .iter()
            .map(|t| t.factors.len().max(1) + usize::from(t.divisor.is_some()))
            .sum::<usize>();
        // A sum of literals is a literal: the same additions of the same products, in the
        // same order, done here.
        let literal = |v: &Val| match v {
            Val::Lit(x) => Some(*x),
            Val::Id(_) => None,
        };
        let constant: Option<f64> = terms
            .iter()
            .map(|t| match t.divisor {
                Some(_) => None,
                None => t.factors.iter().map(literal).product(),
            })
            .try_fold(None, |sum: Option<f64>, x| {
                x.map(|x| Some(sum.map_or(x, |s| s + x)))
            })
            .flatten();
        // (Only a finite one: an infinite or NaN sum stays arithmetic, for the runtime's
        // checks to report.)
        if let Some(c) = constant.filter(|c| c.is_finite()) {
            return Some(Val::Lit(c));
        }
        let reads = locals(
            terms
                .iter()
                .flat_map(|t| t.factors.iter().chain(t.divisor.as_ref())),
        );
        let mut code = TokenStream::new();
        for (k, t) in terms.iter().enumerate() {
            // A factor of −1 is the term's sign: `a - b`, not `a + b * (-1.0)` (the same
            // value, negation being exact).
            let mut negative = false;
            let mut factors: Vec<&Val> = Vec::with_capacity(t.factors.len());
            for v in &t.factors {
                if v.is_literal(-1.0) && (t.factors.len() > 1 || t.divisor.is_some()) {
                    negative = !negative;
                } else {
                    factors.push(v);
                }
            }
            let product = match factors.split_first() {
                None => self.code(&Val::Lit(1.0)),
                Some((first, rest)) => rest
                    .iter()
                    .fold(self.code(first), |acc, v| quote!(#acc * #v)),
            };
            // A literal divisor stays an `f64`, which the generic scalar takes on the
            // right of `/`.
            let product = match &t.divisor {
                Some(d) => quote!(#product / #d),
                None => product,
            };
            code.extend(match (k, negative) {
                (0, false) => product,
                (0, true) => quote!(-#product),
                (_, false) => quote!(+ #product),
                (_, true) => quote!(- #product),
            });
        }
        let name = self.fresh();
        self.statements
            .push(Stmt::assign(vec![name.clone()], code, reads));
        Some(Val::Id(name))
    }
}
