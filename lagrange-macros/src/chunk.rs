//! Long straight-line code split into functions of bounded size, for the cost of building
//! it: rustc's type and borrow checks and LLVM grow faster than linearly with the size of
//! one function (measured on a synthetic generic function of scalar statements: 20 000
//! statements took 5.3 GB to build, 40 000 took 19.9 GB, the same 40 000 in 8 functions
//! 0.85 GB), so that the sweep of a large model, one function, did not build at all on a
//! machine of 24 GB. Split into functions of [`PART`] statements at most, the cost grows
//! with the number of functions, linearly.
//!
//! The values that cross from one function to another live in a tape, `[S; K]` on the heap,
//! which the functions read and write at slots known at compile time: a value is written
//! once by the function that computes it and read by each later function that uses it.
//! Which ones cross is found from the code itself: a statement `x = …;` or `[x, y, z] = …;`
//! defines its left side, and reads every identifier of its right side that is a local.
//!
//! [`Parts`] renders either way: inline (the statements as they are, for models below
//! [`PART`] statements), or as functions and the calls of them.

use crate::emit::declare;
use crate::names::{internal, private};
use proc_macro2::{Delimiter, Literal, TokenStream, TokenTree};
use quote::quote;
use std::collections::{HashMap, HashSet};
use syn::Ident;

/// The largest function of a split sweep, in identifiers of its statements ([`weight`]).
/// Measured on `benches/compile_cost.sh`'s 60 `let`s (dev profile): 69 s with parts of
/// 2 000, 64 s with 4 000, 76 s with 8 000, the same memory (2.9 GB).
pub const PART: usize = 4_000;

/// Sweeps whose primal and reverse passes have more statements than this are split. The
/// G1 humanoid's have 5 800 (17 000 in all): it builds in 0.8 GB unsplit, and split its
/// `inverse_dynamics` took 79% more instructions per call, its `mass_matrix` 37% more (the
/// tape's allocation and traffic). A model of 20 `let`s of 120 terms (23 000, 58 000 in
/// all) took 2.1 GB and 23 s unsplit, 1.15 GB and 20 s split.
pub const SPLIT_ABOVE: usize = 10_000;

/// How code is rendered: inline, or split into functions that share a tape.
pub struct Parts {
    split: bool,
    /// The slot of each value on the tape.
    slots: HashMap<String, usize>,
    /// Locals that every function may read from the tape (the leaves, the values of the
    /// primal and reverse passes), whether a slot was given to them yet or not.
    outer: HashSet<String>,
    /// Outer locals some function read, so that their definitions write them.
    wanted: HashSet<String>,
    /// The functions.
    items: Vec<TokenStream>,
    /// The number of coordinates (the mass matrix's size).
    n: usize,
}

/// A statement's identifiers, in order, through every group.
fn idents(tokens: &TokenStream, out: &mut Vec<Ident>) {
    for t in tokens.clone() {
        match t {
            TokenTree::Ident(i) => out.push(i),
            TokenTree::Group(g) => idents(&g.stream(), out),
            _ => {}
        }
    }
}

/// The locals a statement assigns: `x = …;` and `[x, y, z] = …;` (stores into the mass
/// matrix and conditional stores assign none). The only forms of assignment that
/// [`Emit`](crate::emit::Emit) writes: a compound assignment (`x += …`) would not be seen
/// here.
fn defines(tokens: &TokenStream) -> Vec<Ident> {
    let mut it = tokens.clone().into_iter();
    let (first, second) = (it.next(), it.next());
    let assigns = matches!(&second, Some(TokenTree::Punct(p)) if p.as_char() == '=');
    match first {
        Some(TokenTree::Ident(i)) if assigns => vec![i],
        Some(TokenTree::Group(g)) if assigns && g.delimiter() == Delimiter::Bracket => {
            let mut out = Vec::new();
            idents(&g.stream(), &mut out);
            out
        }
        _ => Vec::new(),
    }
}

/// A statement's weight in a function: its identifiers (a sum of many terms weighs more
/// than a product of two), at least one.
fn weight<T>(uses: &[T]) -> usize {
    uses.len().max(1)
}

fn slot_literal(slot: usize) -> Literal {
    Literal::usize_unsuffixed(slot)
}

impl Parts {
    /// Inline when `split` is false. `outer`: the locals every part may read (the leaves
    /// and the primal and reverse passes' values).
    pub fn new(split: bool, outer: impl IntoIterator<Item = String>, n: usize) -> Self {
        Parts {
            split,
            slots: HashMap::new(),
            outer: outer.into_iter().collect(),
            wanted: HashSet::new(),
            items: Vec::new(),
            n,
        }
    }

    fn slot(&mut self, name: &str) -> usize {
        let next = self.slots.len();
        *self.slots.entry(name.to_owned()).or_insert(next)
    }

    /// Straight-line code: the statements of one [`Emit`](crate::emit::Emit) with its
    /// declaration, then `tail` (stores, which read its locals). Inline, as they are;
    /// split, the calls of the functions, after writing the `ambient` locals (defined by
    /// the caller's code, read by the statements) to the tape. `keep`: the locals that
    /// code after this reads (written to the tape when split, see [`Parts::load`]).
    pub fn straight(
        &mut self,
        declaration: TokenStream,
        statements: &[TokenStream],
        tail: Vec<TokenStream>,
        ambient: &[Ident],
        keep: &HashSet<String>,
    ) -> TokenStream {
        if !self.split {
            return quote!(#declaration #(#statements)* #(#tail)*);
        }
        let units: Vec<&TokenStream> = statements.iter().chain(&tail).collect();
        if units.is_empty() {
            return TokenStream::new();
        }
        // Each statement's identifiers and the locals it assigns, with their names (read
        // once: in a compiler session every name is a call to it).
        let named = |v: Vec<Ident>| -> Vec<(String, Ident)> {
            v.into_iter().map(|i| (i.to_string(), i)).collect()
        };
        let uses: Vec<Vec<(String, Ident)>> = units
            .iter()
            .map(|u| {
                let mut v = Vec::new();
                idents(u, &mut v);
                named(v)
            })
            .collect();
        let assigns: Vec<Vec<(String, Ident)>> = units.iter().map(|u| named(defines(u))).collect();
        // Consecutive runs of at most PART.
        let mut bounds = vec![0];
        let mut load = 0;
        for (k, u) in uses.iter().enumerate() {
            let w = weight(u);
            if load > 0 && load + w > PART {
                bounds.push(k);
                load = 0;
            }
            load += w;
        }
        bounds.push(units.len());
        let parts: Vec<std::ops::Range<usize>> = bounds.windows(2).map(|w| w[0]..w[1]).collect();
        // The part of each definition of this code, and the last part that reads it.
        let mut home: HashMap<&str, usize> = HashMap::new();
        let mut last_use: HashMap<&str, usize> = HashMap::new();
        for (p, range) in parts.iter().enumerate() {
            for k in range.clone() {
                for (name, _) in &uses[k] {
                    last_use.insert(name, p);
                }
                for (name, _) in &assigns[k] {
                    // Every local is assigned once, by one statement of the code given
                    // (what `Emit` writes): a second assignment would share its slot.
                    let first = home.insert(name, p);
                    assert!(
                        first.is_none(),
                        "`{name}` assigned twice in straight-line code"
                    );
                }
            }
        }
        let ambient_names: HashSet<String> = ambient.iter().map(Ident::to_string).collect();
        let p = private();
        let [tape, mass, j, k] = ["__tape", "__mass", "__j", "__k"].map(internal);
        let mut calls = TokenStream::new();
        // The ambient locals that some part reads, to the tape.
        for a in ambient {
            let name = a.to_string();
            if last_use.contains_key(name.as_str()) {
                let s = slot_literal(self.slot(&name));
                calls.extend(quote!(#tape[#s] = #a;));
            }
        }
        let n = self.n;
        for (index, range) in parts.iter().enumerate() {
            let mut defs: Vec<&(String, Ident)> = Vec::new();
            let mut inputs: Vec<&(String, Ident)> = Vec::new();
            let mut seen: HashSet<&str> = HashSet::new();
            let (mut uses_mass, mut uses_j, mut uses_k) = (false, false, false);
            for u in range.clone() {
                for read in &uses[u] {
                    let name = read.0.as_str();
                    // A local's home is where it is assigned: its own statement, or an
                    // earlier one of this part when it is not an input.
                    match home.get(name) {
                        Some(&h) if h == index => continue,
                        _ => {}
                    }
                    match name {
                        "__mass" => uses_mass = true,
                        "__j" => uses_j = true,
                        "__k" => uses_k = true,
                        _ => {}
                    }
                    // Outer locals this code does not assign come from the tape, written
                    // by the code that assigns them (asked for through `wanted`).
                    let outer = self.outer.contains(name) && !home.contains_key(name);
                    let read_from_tape = home.get(name).is_some_and(|&h| h < index)
                        || ambient_names.contains(name)
                        || outer;
                    if read_from_tape && seen.insert(name) {
                        if outer {
                            self.wanted.insert(name.to_owned());
                        }
                        inputs.push(read);
                    }
                }
                defs.extend(&assigns[u]);
            }
            let outputs: Vec<&(String, Ident)> = defs
                .iter()
                .filter(|(name, _)| {
                    keep.contains(name) || last_use.get(name.as_str()).is_some_and(|&l| l > index)
                })
                .copied()
                .collect();
            let in_slots: Vec<Literal> = inputs
                .iter()
                .map(|(name, _)| slot_literal(self.slot(name)))
                .collect();
            let out_slots: Vec<Literal> = outputs
                .iter()
                .map(|(name, _)| slot_literal(self.slot(name)))
                .collect();
            let [inputs, defs, outputs] =
                [inputs, defs, outputs].map(|v| v.into_iter().map(|(_, i)| i).collect::<Vec<_>>());
            let name = internal(&format!("__part{}", self.items.len()));
            let mut params = quote!(#tape: &mut [__S; __TAPE]);
            let mut args = quote!(&mut *#tape);
            if uses_mass {
                params.extend(quote!(, #mass: &mut #p::SMatrix<__S, #n, #n>));
                args.extend(quote!(, #mass));
            }
            if uses_j {
                params.extend(quote!(, #j: usize));
                args.extend(quote!(, #j));
            }
            if uses_k {
                params.extend(quote!(, #k: usize));
                args.extend(quote!(, #k));
            }
            let locals: Vec<Ident> = inputs.iter().chain(&defs).map(|&i| i.clone()).collect();
            let declaration = declare(&locals, &vec![quote!(__S); locals.len()]);
            let body = units[range.clone()].iter();
            self.items.push(quote! {
                #[inline(never)]
                #[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]
                fn #name<__S: #p::Scalar>(#params) {
                    #declaration
                    #(#inputs = #tape[#in_slots];)*
                    #(#body)*
                    #(#tape[#out_slots] = #outputs;)*
                }
            });
            calls.extend(quote!(#name(#args);));
        }
        calls
    }

    /// Reads `names` that live on the tape back into locals of the same names, for the
    /// code after the parts (inline, nothing).
    pub fn load<'a>(&mut self, names: impl IntoIterator<Item = &'a Ident>) -> TokenStream {
        if !self.split {
            return TokenStream::new();
        }
        let tape = internal("__tape");
        let mut seen = HashSet::new();
        let mut code = TokenStream::new();
        for i in names {
            let name = i.to_string();
            if !seen.insert(name.clone()) {
                continue;
            }
            if self.outer.contains(&name) {
                self.wanted.insert(name.clone());
                self.slot(&name);
            }
            if let Some(&s) = self.slots.get(&name) {
                let s = slot_literal(s);
                code.extend(quote!(let #i: __S = #tape[#s];));
            }
        }
        code
    }

    /// The outer locals that parts rendered so far read, or that were loaded.
    pub fn wanted(&self) -> &HashSet<String> {
        &self.wanted
    }

    /// The tape's allocation and the functions, to put at the top of the sweep's body,
    /// after `writes`: the locals of the caller's code given, written to the tape.
    pub fn prologue(&mut self, writes: &[Ident]) -> TokenStream {
        if !self.split {
            return TokenStream::new();
        }
        let tape = internal("__tape");
        let mut stores = TokenStream::new();
        for w in writes {
            let name = w.to_string();
            if self.wanted.contains(&name) {
                let s = slot_literal(self.slot(&name));
                stores.extend(quote!(#tape[#s] = #w;));
            }
        }
        let size = Literal::usize_unsuffixed(self.slots.len().max(1));
        let p = private();
        let items = &self.items;
        quote! {
            const __TAPE: usize = #size;
            #(#items)*
            let mut #tape: ::std::boxed::Box<[__S; __TAPE]> =
                match <::std::boxed::Box<[__S; __TAPE]> as ::core::convert::TryFrom<::std::boxed::Box<[__S]>>>::try_from(
                    ::std::vec![<__S as #p::From<f64>>::from(0.0); __TAPE].into_boxed_slice(),
                ) {
                    ::core::result::Result::Ok(t) => t,
                    ::core::result::Result::Err(_) => ::core::unreachable!(),
                };
            #stores
        }
    }
}
