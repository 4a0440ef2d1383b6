//! Long straight-line code split into functions of bounded size, for the cost of building
//! it: rustc's type and borrow checks and LLVM grow faster than linearly with the size of
//! one function (measured on a synthetic generic function of scalar statements: 20 000
//! statements took 5.3 GB to build, 40 000 took 19.9 GB, the same 40 000 in 8 functions
//! 0.85 GB), so that the sweep of a large model, one function, did not build at all on a
//! machine of 24 GB. Split into functions of [`PART`] statements at most, the cost grows
//! with the number of functions, linearly.
//!
//! The values that cross from one function to another live in a tape on the heap, rows of
//! [`LANES`] values, `[[S; LANES]; K]`, at places known at compile time. Which values cross
//! is found from what each statement records when it is written ([`Stmt`]: the locals it
//! assigns and the names it reads), never from its tokens. Every value has one
//! producer (the function that computes it, or the caller's code before the functions run)
//! and is read by its consumers (later functions, or the caller after them). Each
//! producer's values fill rows of their own, ordered by who reads them, so that a producer
//! writes a row in one statement (`__tape[r] = [a, b, …];`) and a consumer reads the values
//! it needs from a row by one pattern, all rows in one `let` at its top
//! (`let (&[a, _, b, ..], &[.., c], …) = (&__tape[r], &__tape[s], …);`): a bounds check
//! per row, where a statement and a bounds check per value made half the code of a split
//! sweep (the 60 `let`s of `benches/compile_cost.sh`: 122 000 reads and 43 000 writes of
//! 366 000 statements, against 13 500 rows read and 1 500 written; its dev build went
//! from 63 s and 2.5 GB to 44 s and 1.9 GB with the changes to the generated code made
//! with it).
//!
//! Where a value goes is known only once every producer and consumer is known (the
//! primal pass, which produces most of them, is rendered last, when the columns of the mass
//! matrix and the motion's sweep have said what they read), so [`Parts`] records the
//! functions and renders them in [`Parts::prologue`]; the caller's reads and writes go
//! through small functions rendered there too.
//!
//! [`Parts`] renders either way: inline (the statements as they are, for models below
//! [`SPLIT_ABOVE`] statements), or as functions and the calls of them.

use crate::emit::{declare_uniform, tuple_tree, Stmt};
use crate::names::{internal, private};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, HashMap, HashSet};
use syn::Ident;

/// The largest function of a split sweep, in the weight of its statements
/// ([`Stmt::weight`]: the names each assigns and reads; within 0.4% of the identifiers of
/// their tokens, which it counted when the times below were measured).
/// Measured on `benches/compile_cost.sh`'s 60 `let`s (dev profile): 69 s with parts of
/// 2 000, 64 s with 4 000, 76 s with 8 000, the same memory (2.9 GB), when values crossed
/// one by one; by rows, 48 s and 1.97 GB, 47 s and 1.94 GB, 48 s and 1.87 GB. In the
/// release profile LLVM's SLP vectorizer took most of the time, and grows faster than a
/// function's size: TIAGo dual's sweep (101 coordinates), LLVM 30 s with parts of 4 000,
/// 23 s with 2 000 (single builds on a loaded machine).
pub const PART: usize = 2_000;

/// Sweeps whose primal and reverse passes have more statements than this are split. The
/// G1 humanoid's have 6 000 (17 000 in all): it builds in 0.8 GB unsplit, and split its
/// `inverse_dynamics` took 25% more instructions per call, its `mass_matrix` 17% more, the
/// Solo-12's (2 400) 80% more (the tape's allocation and traffic, most of it the tape's
/// zeroing, which callgrind counts byte by byte). Beyond, one function's build grows faster
/// than its size: Talos (51 coordinates, 8 900) took 15 s of CPU and 1.5 GB to build in
/// release unsplit, 13 s and 0.5 GB split (10 000 before: it was not). A model of 20 `let`s of 120 terms (23 000,
/// 58 000 in all) took 2.1 GB and 23 s unsplit, 1.15 GB and 20 s split.
pub const SPLIT_ABOVE: usize = 7_000;

/// The values in a row of the tape. The 60 `let`s of `benches/compile_cost.sh` built in
/// the same memory with rows of 16, 32 and 64 (2.13–2.14 GB before the reads became one
/// `let`), and in 48, 47 and 51 s.
const LANES: usize = 32;

/// A value that may cross: the code that defines it ([`OUTER`] for the locals every part
/// may read, else the [`Parts::straight`] call that defines it) and its name.
type Key = (usize, String);

/// The scope of the outer locals (the leaves, the primal and reverse passes' values).
const OUTER: usize = 0;

/// A function rendered once the tape's layout is known: a part of straight-line code, or
/// one of the caller's reads or writes.
struct Pending {
    name: Ident,
    /// Values read from the tape, with their locals.
    reads: Vec<(Key, Ident)>,
    /// Values defined here that may be written to the tape (those that someone reads).
    defines: Vec<(Key, Ident)>,
    kind: Kind,
}

enum Kind {
    /// A part: its statements, after the `let` of its reads and one declaration of the
    /// locals it defines.
    Part {
        statements: Vec<Stmt>,
        mass: bool,
        j: bool,
        k: bool,
    },
    /// The caller's values given as an array, written to the tape.
    Write,
    /// Values read from the tape, returned as an array.
    Read,
}

/// How code is rendered: inline, or split into functions that share a tape.
pub struct Parts {
    split: bool,
    /// Locals that every function may read from the tape (the leaves, the values of the
    /// primal and reverse passes).
    outer: HashSet<String>,
    /// The number of coordinates (the mass matrix's size).
    n: usize,
    pending: Vec<Pending>,
    /// The values some function defines (each once), and who reads each (indices of
    /// `pending`).
    defined: HashSet<Key>,
    consumers: HashMap<Key, Vec<usize>>,
    /// The key of each local defined by the last `straight` call.
    latest: HashMap<String, Key>,
    /// The next scope of a `straight` call.
    scope: usize,
}

/// One `let` binding the values read from rows of the tape, `(pattern, row)` each:
/// `let ((&[a, _, b, ..], &[.., c], …), …) = ((&__tape[3], &__tape[7], …), …);`, a tree
/// of tuples ([`tuple_tree`], as [`declare`](crate::emit::declare) makes, for the same cost
/// of checking a flat pattern). One `let` for all, so that they nest no scopes; by
/// reference, so that no row is copied whole.
fn read_rows(rows: Vec<(TokenStream, TokenStream)>) -> TokenStream {
    if rows.is_empty() {
        return TokenStream::new();
    }
    let (patterns, rows): (Vec<_>, Vec<_>) = rows.into_iter().unzip();
    let (pattern, rows) = tuple_tree(&patterns, &rows);
    quote!(let #pattern = #rows;)
}

fn row_literal(row: usize) -> Literal {
    Literal::usize_unsuffixed(row)
}

impl Parts {
    /// Inline when `split` is false. `outer`: the locals every part may read (the leaves
    /// and the primal and reverse passes' values).
    pub fn new(split: bool, outer: impl IntoIterator<Item = String>, n: usize) -> Self {
        Parts {
            split,
            outer: outer.into_iter().collect(),
            n,
            pending: Vec::new(),
            defined: HashSet::new(),
            consumers: HashMap::new(),
            latest: HashMap::new(),
            scope: OUTER + 1,
        }
    }

    /// The key of a local read or defined by the code of `scope`.
    fn key(&self, scope: usize, name: &str) -> Key {
        if self.outer.contains(name) {
            (OUTER, name.to_owned())
        } else {
            (scope, name.to_owned())
        }
    }

    /// Records a function named `prefix` and its index; returns its name.
    fn push(
        &mut self,
        prefix: &str,
        reads: Vec<(Key, Ident)>,
        defines: Vec<(Key, Ident)>,
        kind: Kind,
    ) -> Ident {
        let index = self.pending.len();
        for (key, _) in &reads {
            self.consumers.entry(key.clone()).or_default().push(index);
        }
        for (key, _) in &defines {
            // Every value is defined once: by one statement of the code given (what
            // `Emit` writes), or once by the caller.
            let first = self.defined.insert(key.clone());
            assert!(first, "`{}` defined twice", key.1);
        }
        let name = internal(&format!("{prefix}{index}"));
        self.pending.push(Pending {
            name: name.clone(),
            reads,
            defines,
            kind,
        });
        name
    }

    /// Straight-line code: the statements of one [`Emit`](crate::emit::Emit) with its
    /// declaration, then `tail` (stores, which read its locals). Inline, as they are;
    /// split, the calls of the functions, after writing the `ambient` locals (defined by
    /// the caller's code, read by the statements) to the tape.
    pub fn straight(
        &mut self,
        declaration: TokenStream,
        statements: &[Stmt],
        tail: Vec<Stmt>,
        ambient: &[Ident],
    ) -> TokenStream {
        if !self.split {
            return quote!(#declaration #(#statements)* #(#tail)*);
        }
        let units: Vec<&Stmt> = statements.iter().chain(&tail).collect();
        if units.is_empty() {
            return TokenStream::new();
        }
        let scope = self.scope;
        self.scope += 1;
        // Each statement's reads and the locals it assigns, with their names (read once: in a
        // compiler session every name is a call to it).
        let named = |v: Vec<Ident>| -> Vec<(String, Ident)> {
            v.into_iter().map(|i| (i.to_string(), i)).collect()
        };
        let uses: Vec<Vec<(String, Ident)>> =
            units.iter().map(|u| named(u.reads.clone())).collect();
        let assigns: Vec<Vec<(String, Ident)>> =
            units.iter().map(|u| named(u.defines.clone())).collect();
        // Consecutive runs of at most PART.
        let mut bounds = vec![0];
        let mut load = 0;
        for (k, u) in units.iter().enumerate() {
            let w = u.weight();
            if load > 0 && load + w > PART {
                bounds.push(k);
                load = 0;
            }
            load += w;
        }
        bounds.push(units.len());
        let parts: Vec<std::ops::Range<usize>> = bounds.windows(2).map(|w| w[0]..w[1]).collect();
        // The part of each definition of this code.
        let mut home: HashMap<&str, usize> = HashMap::new();
        for (p, range) in parts.iter().enumerate() {
            for k in range.clone() {
                for (name, _) in &assigns[k] {
                    home.insert(name, p);
                }
            }
        }
        let ambient_names: HashSet<String> = ambient.iter().map(Ident::to_string).collect();
        let mut read_ambient: HashSet<String> = HashSet::new();
        let mut specs = Vec::new();
        for (index, range) in parts.iter().enumerate() {
            let mut defs: Vec<(Key, Ident)> = Vec::new();
            let mut reads: Vec<(Key, Ident)> = Vec::new();
            let mut seen: HashSet<&str> = HashSet::new();
            let (mut mass, mut j, mut k) = (false, false, false);
            for u in range.clone() {
                for (name, ident) in &uses[u] {
                    // A local's home is where it is assigned: its own statement, or an
                    // earlier one of this part when it is not read from the tape.
                    if home.get(name.as_str()) == Some(&index) {
                        continue;
                    }
                    match name.as_str() {
                        "__mass" => mass = true,
                        "__j" => j = true,
                        "__k" => k = true,
                        _ => {}
                    }
                    // Outer locals this code does not assign come from the tape, written
                    // by the code that assigns them.
                    let outer = self.outer.contains(name) && !home.contains_key(name.as_str());
                    let earlier = home.get(name.as_str()).is_some_and(|&h| h < index);
                    let from_caller = ambient_names.contains(name);
                    if (earlier || from_caller || outer) && seen.insert(name) {
                        if from_caller {
                            read_ambient.insert(name.clone());
                        }
                        reads.push((self.key(scope, name), ident.clone()));
                    }
                }
                for (name, ident) in &assigns[u] {
                    defs.push((self.key(scope, name), ident.clone()));
                }
            }
            specs.push((range.clone(), reads, defs, mass, j, k));
        }
        let tape = internal("__tape");
        let mut calls = TokenStream::new();
        // The ambient locals that some part reads, to the tape.
        let written = ambient
            .iter()
            .map(|a| (a.to_string(), a))
            .filter(|(name, _)| read_ambient.contains(name))
            .map(|(name, a)| (self.key(scope, &name), a.clone()))
            .collect();
        calls.extend(self.put(written));
        for (range, reads, defines, mass, j, k) in specs {
            let statements = units[range].iter().map(|&u| u.clone()).collect();
            let kind = Kind::Part {
                statements,
                mass,
                j,
                k,
            };
            let name = self.push("__part", reads, defines, kind);
            let mut args = quote!(&mut *#tape);
            for (used, arg) in [(mass, "__mass"), (j, "__j"), (k, "__k")] {
                if used {
                    let arg = internal(arg);
                    args.extend(quote!(, #arg));
                }
            }
            calls.extend(quote!(#name(#args);));
        }
        self.latest = assigns
            .iter()
            .flatten()
            .map(|(name, _)| (name.clone(), self.key(scope, name)))
            .collect();
        calls
    }

    /// The caller's locals `values` written to the tape, by a function rendered in
    /// [`Parts::prologue`]: its call (nothing when there are none).
    fn put(&mut self, values: Vec<(Key, Ident)>) -> TokenStream {
        if values.is_empty() {
            return TokenStream::new();
        }
        let locals: Vec<Ident> = values.iter().map(|(_, i)| i.clone()).collect();
        let tape = internal("__tape");
        let put = self.push("__put", Vec::new(), values, Kind::Write);
        quote!(#put(&mut *#tape, [#(#locals),*]);)
    }

    /// Reads `names` that live on the tape (outer locals, and the locals of the last
    /// [`Parts::straight`] code) back into locals of the same names, for the code after
    /// the parts (inline, nothing).
    pub fn load<'a>(&mut self, names: impl IntoIterator<Item = &'a Ident>) -> TokenStream {
        if !self.split {
            return TokenStream::new();
        }
        let mut seen = HashSet::new();
        let mut reads = Vec::new();
        for i in names {
            let name = i.to_string();
            if !seen.insert(name.clone()) {
                continue;
            }
            let key = if self.outer.contains(&name) {
                (OUTER, name)
            } else if let Some(key) = self.latest.get(&name) {
                key.clone()
            } else {
                // A local of the caller's own, in scope already.
                continue;
            };
            reads.push((key, i.clone()));
        }
        if reads.is_empty() {
            return TokenStream::new();
        }
        let locals: Vec<Ident> = reads.iter().map(|(_, i)| i.clone()).collect();
        let count = locals.len();
        let tape = internal("__tape");
        let get = self.push("__get", reads, Vec::new(), Kind::Read);
        quote!(let [#(#locals),*]: [__S; #count] = #get(&*#tape);)
    }

    /// Where each value goes: its row and its lane in the row. Each producer's values that
    /// someone reads fill rows of their own, grouped by who reads them (so that a reader
    /// finds its values in few rows); returns the number of rows.
    fn layout(&self) -> (HashMap<&Key, (usize, usize)>, usize) {
        let mut place = HashMap::new();
        let mut rows = 0;
        for p in &self.pending {
            let mut out: Vec<(&Vec<usize>, usize, &Key)> = p
                .defines
                .iter()
                .enumerate()
                .filter_map(|(order, (key, _))| Some((self.consumers.get(key)?, order, key)))
                .collect();
            out.sort();
            for (k, (_, _, key)) in out.iter().enumerate() {
                place.insert(*key, (rows + k / LANES, k % LANES));
            }
            rows += out.len().div_ceil(LANES);
        }
        (place, rows)
    }

    /// The tape's allocation and the functions, to put at the top of the sweep's body,
    /// after `writes`: the locals of the caller's code given, written to the tape.
    pub fn prologue(&mut self, writes: &[Ident]) -> TokenStream {
        if !self.split {
            return TokenStream::new();
        }
        let tape = internal("__tape");
        // The leaves that some function reads.
        let written = writes
            .iter()
            .map(|w| ((OUTER, w.to_string()), w.clone()))
            .filter(|(key, _)| self.consumers.contains_key(key))
            .collect();
        let stores = self.put(written);
        let (place, rows) = self.layout();
        let items: Vec<TokenStream> = self
            .pending
            .iter()
            .map(|pending| self.render(pending, &place))
            .collect();
        let size = Literal::usize_unsuffixed(rows.max(1));
        let p = private();
        quote! {
            const __TAPE: usize = #size;
            #(#items)*
            let mut #tape: ::std::boxed::Box<[[__S; #LANES]; __TAPE]> =
                match <::std::boxed::Box<[[__S; #LANES]; __TAPE]> as ::core::convert::TryFrom<::std::boxed::Box<[[__S; #LANES]]>>>::try_from(
                    ::std::vec![[<__S as #p::From<f64>>::from(0.0); #LANES]; __TAPE].into_boxed_slice(),
                ) {
                    ::core::result::Result::Ok(t) => t,
                    ::core::result::Result::Err(_) => ::core::unreachable!(),
                };
            #stores
        }
    }

    /// One function, with its reads and writes of the tape by rows.
    fn render(&self, pending: &Pending, place: &HashMap<&Key, (usize, usize)>) -> TokenStream {
        let tape = internal("__tape");
        // Reads: one pattern per row, `_` for the lanes not read, all in one `let`
        // ([`read_rows`]).
        let mut by_row: BTreeMap<usize, Vec<(usize, &Ident)>> = BTreeMap::new();
        for (key, local) in &pending.reads {
            let (row, lane) = *place
                .get(key)
                .expect("a value read from the tape is written by its producer");
            by_row.entry(row).or_default().push((lane, local));
        }
        let rows = by_row.into_iter().map(|(row, mut lanes)| {
            lanes.sort_by_key(|&(lane, _)| lane);
            // `..` stands for the widest run of lanes not read (before the first, between
            // two, or after the last), the others are written out, `_` where not read.
            let mut skip = (0, lanes[0].0);
            let mut from = 0;
            for &(lane, _) in &lanes {
                if lane - from > skip.1 - skip.0 {
                    skip = (from, lane);
                }
                from = lane + 1;
            }
            if LANES - from > skip.1 - skip.0 {
                skip = (from, LANES);
            }
            let mut pattern = vec![quote!(_); LANES];
            for &(lane, local) in &lanes {
                pattern[lane] = quote!(#local);
            }
            if skip.1 > skip.0 {
                pattern.splice(skip.0..skip.1, [quote!(..)]);
            }
            let row = row_literal(row);
            (quote!(&[#(#pattern),*]), quote!(&#tape[#row]))
        });
        let reads = read_rows(rows.collect());
        // Writes: one array per row, its unused lanes filled with its first value.
        let mut by_row: BTreeMap<usize, Vec<(usize, &Ident)>> = BTreeMap::new();
        for (key, local) in &pending.defines {
            if let Some(&(row, lane)) = place.get(key) {
                by_row.entry(row).or_default().push((lane, local));
            }
        }
        let writes = by_row.into_iter().map(|(row, mut lanes)| {
            lanes.sort_by_key(|&(lane, _)| lane);
            let first = lanes[0].1;
            let mut values = vec![quote!(#first); LANES];
            for (lane, local) in lanes {
                values[lane] = quote!(#local);
            }
            let row = row_literal(row);
            quote!(#tape[#row] = [#(#values),*];)
        });
        let p = private();
        let name = &pending.name;
        let attributes = quote! {
            #[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]
        };
        let tape_type = quote!([[__S; #LANES]; __TAPE]);
        match &pending.kind {
            Kind::Part {
                statements,
                mass,
                j,
                k,
            } => {
                let n = self.n;
                let mut params = quote!(#tape: &mut #tape_type);
                if *mass {
                    let mass = internal("__mass");
                    params.extend(quote!(, #mass: &mut #p::SMatrix<__S, #n, #n>));
                }
                for (used, name) in [(*j, "__j"), (*k, "__k")] {
                    if used {
                        let name = internal(name);
                        params.extend(quote!(, #name: usize));
                    }
                }
                let locals: Vec<Ident> = pending.defines.iter().map(|(_, i)| i.clone()).collect();
                let declaration = declare_uniform(&locals, &quote!(__S));
                quote! {
                    #[inline(never)]
                    #attributes
                    fn #name<__S: #p::Scalar>(#params) {
                        #reads
                        #declaration
                        #(#statements)*
                        #(#writes)*
                    }
                }
            }
            Kind::Write => {
                let values: Vec<&Ident> = pending.defines.iter().map(|(_, i)| i).collect();
                let count = values.len();
                quote! {
                    #attributes
                    fn #name<__S: #p::Scalar>(#tape: &mut #tape_type, [#(#values),*]: [__S; #count]) {
                        #(#writes)*
                    }
                }
            }
            Kind::Read => {
                let values: Vec<&Ident> = pending.reads.iter().map(|(_, i)| i).collect();
                let count = values.len();
                quote! {
                    #attributes
                    fn #name<__S: #p::Scalar>(#tape: &#tape_type) -> [__S; #count] {
                        #reads
                        [#(#values),*]
                    }
                }
            }
        }
    }
}
