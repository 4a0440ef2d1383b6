//! Code generation of the fast path, `Model::eval_equations`: the mass matrix, the momenta
//! and the right-hand side of the equations of motion in plain `f64`.
//!
//! This is forward-mode AD done at compile time. The model's expressions become a graph
//! of operations (lets shared, as written); every node carries its value and the
//! derivative components that the equations of motion need, each an `f64` local:
//!
//! - first order along `q_i`, `q̇_i` and `w`, where `w` is the direction of the motion
//!   with the velocities held fixed, (q̇, 0, 1) in (q, q̇, t);
//! - second order in the pairs (q̇_i, q̇_j) (the mass matrix) and, inside `dot`, (w, w);
//! - the right-hand side's ∂/∂q_i − ∂²/∂q̇_i∂w (∂L/∂q − ∂²L/∂q̇∂q q̇ − ∂²L/∂q̇∂t) as one
//!   component, `Mono::Bias`, whose rules leave out what cancels between its two parts:
//!   for T = Σ ½ m ẋ² it is −Σ m ∂x/∂q ẍ|q̈=0, computed from each position's Jacobian and
//!   drift, never from ∂ẋ/∂q.
//!
//! The rules are those of a second-order dual number (the product rule, the chain rule
//! with `f′` and `f″` from `lagrange_runtime::jet`), applied
//! component by component. Two analyses keep the code small: a backward pass finds which
//! components each node's consumers need, and a component only exists where the node
//! depends on the variables of its directions (x₃ of a chain has no derivative along q₅),
//! so nothing is computed that is structurally zero. `dot(e)` needs no pass of its own:
//! its value is e's component along `w`, its derivative along q̇_i is ∂e/∂q_i, and so on.
//!
//! Everything else stays with `expand` and `sweep`; this module only adds one method to
//! `impl Model`, and leaves it out for a model whose code would exceed [`MAX_STATEMENTS`]
//! (`eval_equations` is then the sweep in `f64`). The same components also give the rows
//! of `jacobians` ([`jacobian_rows_fn`]) and the generalized forces' derivatives: along
//! the inputs ([`forces_along_inputs_fn`], a direction of its own, `Dir::U`) and, for a
//! robot whose tree gives the rest, along the state ([`forces_along_state_code`], which
//! asks a `dot` for its (q_j, q̇_i) and q_j components, second derivatives of its
//! operand).

use crate::emit::{Emit, Scalar, Term, Val};
use crate::graph::{Form, Graph};
use crate::ir::{Deps, Id, Jet1, Op};
use crate::lower::Lowered;
use crate::names::{
    coordinate, input, internal, jet1_call, jet2_call, parameter, private, velocity,
};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use std::collections::{BTreeMap, BTreeSet};
use syn::Ident;

/// Beyond this many generated statements the model's `eval_equations` is the sweep
/// ([`crate::sweep`]) instead: forward-over-reverse, whose work grows as N · (model size)
/// rather than with every pair of coordinates. Measured on the planar chain (release,
/// 2-core machine): at 8 links (about 900 statements) the unrolled code takes 137 ns
/// against the sweep's 200 ns, at 16 links (about 6 700) 826 ns against 568 ns, and the
/// unrolled code's compile time grows as N³. The crossing lies between, near this many.
pub const MAX_STATEMENTS: usize = 2_500;

/// Up to this many statements, `eval_equations` is `#[inline(always)]`.
const INLINE_STATEMENTS: usize = 400;

/// A direction of differentiation.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Dir {
    Q(usize),
    Qd(usize),
    /// Along the motion: q moves with q̇, t with 1, q̇ stays.
    W,
    /// Along an input (only the forces' derivatives ask for it: [`forces_along_inputs_fn`]).
    U(usize),
}

/// A derivative component: first order along one direction, or second order along two
/// (stored with `a <= b`), or the difference [`Mono::Bias`] of two.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Mono {
    D1(Dir),
    D2(Dir, Dir),
    /// ∂/∂q_i − ∂²/∂q̇_i∂w, the i-th entry of the equations' right-hand side for L, carried
    /// as one component so that what cancels in it is never computed. For `dot(e)` it is
    /// zero, exactly: both parts are ∂²e/∂q_i∂w (∂ė/∂q_i = d/dt ∂e/∂q_i). For a product
    /// a b it is a B(b) + B(a) b − ∂a/∂q̇_i ∂b/∂w − ∂a/∂w ∂b/∂q̇_i, for f(a) it is
    /// f′ B(a) − f″ ∂a/∂q̇_i ∂a/∂w, linear otherwise. For T = Σ ½ m (dot(x))², say, this
    /// is −Σ m ∂x/∂q_i ẍ|q̈=0, where the two parts each hold Σ m ẋ ∂ẋ/∂q_i as well.
    Bias(usize),
}

fn d2(a: Dir, b: Dir) -> Mono {
    if a <= b {
        Mono::D2(a, b)
    } else {
        Mono::D2(b, a)
    }
}

#[cfg(test)]
thread_local! {
    /// The components [`needs`] has handed down on this thread: how much of the analysis
    /// ran, for the tests of when it runs at all.
    pub static ANALYSED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The components each node must provide so that the roots get theirs, or `None` when
/// some node would need a derivative this scheme does not carry (third order).
fn needs(g: &Graph, roots: &[(Id, BTreeSet<Mono>)]) -> Option<(Vec<bool>, Vec<BTreeSet<Mono>>)> {
    let n = g.len();
    // Where a root asks for a derivative along an input, what reads an input varies too.
    let along_inputs = roots
        .iter()
        .any(|(_, set)| set.iter().any(|m| matches!(m, Mono::D1(Dir::U(_)))));
    let varies = |id: Id| g.varies(id) || (along_inputs && g.deps(id).has(Deps::U));
    let reads_inputs = |id: Id| along_inputs && g.deps(id).has(Deps::U);
    let mut live = vec![false; n];
    let mut need: Vec<BTreeSet<Mono>> = vec![BTreeSet::new(); n];
    for (id, set) in roots {
        live[*id] = true;
        need[*id].extend(set.iter().copied());
    }
    for id in (0..n).rev() {
        if !live[id] || !varies(id) {
            // A node that does not vary has no components; its operands give its value.
            need[id].clear();
        }
        if !live[id] {
            continue;
        }
        let set = std::mem::take(&mut need[id]);
        #[cfg(test)]
        ANALYSED.with(|a| a.set(a.get() + set.len()));
        // What an operand of a product or a function needs: the node's components and
        // the first-order ones of every second-order component.
        let mut chain = set.clone();
        for m in &set {
            match *m {
                Mono::D2(a, b) => {
                    chain.insert(Mono::D1(a));
                    chain.insert(Mono::D1(b));
                }
                Mono::Bias(i) => {
                    chain.insert(Mono::D1(Dir::Qd(i)));
                    chain.insert(Mono::D1(Dir::W));
                }
                Mono::D1(_) => {}
            }
        }
        let mut require = |operand: Id, s: &BTreeSet<Mono>| {
            live[operand] = true;
            need[operand].extend(s.iter().copied());
        };
        match g.op(id) {
            Op::Lit(_) | Op::Param(_) | Op::Input(_) | Op::Coord(_) | Op::Vel(_) | Op::Time => {}
            // Derivative nodes exist only in the swept form.
            Op::D1(_) | Op::P1(..) => return None,
            Op::Neg(a) => require(a, &set),
            Op::Add(a, b) | Op::Sub(a, b) => {
                require(a, &set);
                require(b, &set);
            }
            // A divisor is constant along the state (the unrolled form makes any other a
            // reciprocal), but not along an input it reads.
            Op::Div(_, b) if reads_inputs(b) => return None,
            Op::Div(a, b) => {
                require(a, &set);
                require(b, &BTreeSet::new());
            }
            // A constant factor scales every component: the other needs only the node's.
            Op::Mul(a, b) if !varies(a) || !varies(b) => {
                require(a, &set);
                require(b, &set);
            }
            Op::Mul(a, b) | Op::Binary(_, a, b) => {
                require(a, &chain);
                require(b, &chain);
            }
            Op::Unary(f, a) => {
                require(a, &chain);
                if let Jet1::Powf(e) = f {
                    // The same for an exponent.
                    if reads_inputs(e) {
                        return None;
                    }
                    require(e, &BTreeSet::new());
                }
            }
            Op::Dot(e) => {
                let mut s = BTreeSet::from([Mono::D1(Dir::W)]);
                for m in &set {
                    match *m {
                        Mono::D1(Dir::Qd(i)) => s.insert(Mono::D1(Dir::Q(i))),
                        Mono::D1(Dir::W) => s.insert(d2(Dir::W, Dir::W)),
                        // The forces' derivatives along q ([`forces_along_state_code`]):
                        // ∂ė/∂q_j = ∂²e/∂q_j∂w, and ∂²ė/∂q_j∂q̇_i = ∂²e/∂q_j∂q_i.
                        Mono::D1(Dir::Q(j)) => s.insert(d2(Dir::Q(j), Dir::W)),
                        Mono::D2(Dir::Q(j), Dir::Qd(i)) => s.insert(d2(Dir::Q(j), Dir::Q(i))),
                        // Zero: ė is linear in q̇, and its Bias vanishes (`Mono::Bias`).
                        Mono::D2(Dir::Qd(_), Dir::Qd(_)) | Mono::Bias(_) => false,
                        // Zero, unless e reads an input (its rate is not known).
                        Mono::D1(Dir::U(_)) if !g.deps(e).has(Deps::U) => false,
                        // No root asks for the others of a `dot`: the right-hand side is
                        // a Bias, not ∂/∂q and (q̇, w) apart, and only a `dot` of
                        // velocities, which the checker forbids, would ask for the other
                        // pairs (third derivatives of `e`).
                        Mono::D1(_) | Mono::D2(..) => return None,
                    };
                }
                require(e, &s);
            }
        }
        need[id] = set;
    }
    Some((live, need))
}

type Comps = BTreeMap<Mono, Val>;

/// The two first-order directions whose products make the second-order part of `m` (in
/// the product and the chain rule), and the factor −1 when they are subtracted (a
/// [`Mono::Bias`]); `None` for a first-order component.
fn second_order(m: Mono, minus: &Val) -> Option<(Dir, Dir, Option<&Val>)> {
    match m {
        Mono::D1(_) => None,
        Mono::D2(a, b) => Some((a, b, None)),
        Mono::Bias(i) => Some((Dir::Qd(i), Dir::W, Some(minus))),
    }
}

/// Terms of a sum, each a product of the factors given.
fn products(terms: Vec<Vec<&Val>>) -> Vec<Term> {
    terms
        .into_iter()
        .map(|t| Term::new(t.into_iter().cloned().collect()))
        .collect()
}

/// The method `eval_equations` for `impl Model`, or `None` when the model is beyond the
/// fast path (a derivative it does not carry, or more than `max_statements` statements of
/// code: [`MAX_STATEMENTS`] outside tests).
///
/// No `eval_mass_matrix` of its own: unrolled alone, the mass matrix (the second
/// derivatives along pairs of velocities, 824 of the 1 319 statements of the 8-link
/// chain) measured as fast as the whole equations, 204 ns at 8 links and 570 ns at 12,
/// where the sines and cosines both need dominate; it would only add code to compile.
pub fn equations_fn(l: &Lowered, g: &Graph, max_statements: usize) -> Option<TokenStream> {
    debug_assert_eq!(g.form, Form::Unrolled);
    let n = l.coordinates.len();
    let (lagrangian, dissipation, forces) = (g.lagrangian, g.dissipation, &g.forces);

    let qd = |i| Dir::Qd(i);
    let mut l_needs = BTreeSet::new();
    for i in 0..n {
        l_needs.insert(Mono::Bias(i));
        l_needs.insert(Mono::D1(qd(i)));
        for j in i..n {
            l_needs.insert(d2(qd(i), qd(j)));
        }
    }
    let mut roots = vec![(lagrangian, l_needs)];
    if let Some(d) = dissipation {
        roots.push((d, (0..n).map(|i| Mono::D1(qd(i))).collect()));
    }
    for (f, v) in forces {
        roots.push((*f, BTreeSet::new()));
        roots.push((*v, (0..n).map(|i| Mono::D1(qd(i))).collect()));
    }
    let [t, x] = ["t", "x"].map(internal);
    let (e, values, comps) = unroll(g, &roots, &t, max_statements)?;

    let get = |id: Id, m: Mono| comps[id].get(&m).cloned();
    let zero = Val::Lit(0.0);
    let mass_entry = |i: usize, j: usize| get(lagrangian, d2(qd(i), qd(j))).unwrap_or(zero.clone());
    let columns = (0..n).map(|j| {
        let column = (0..n).map(|i| mass_entry(i, j));
        quote!([#(#column),*])
    });
    let momenta = (0..n).map(|i| get(lagrangian, Mono::D1(qd(i))).unwrap_or(zero.clone()));
    let mut bias = Vec::new();
    for i in 0..n {
        // (subtracted, term)
        let mut terms: Vec<(bool, TokenStream)> = Vec::new();
        if let Some(v) = get(lagrangian, Mono::Bias(i)) {
            terms.push((false, quote!(#v)));
        }
        for (f, v) in forces {
            if let Some(dv) = get(*v, Mono::D1(qd(i))) {
                let f = values[*f].clone().expect("live");
                terms.push((false, quote!(#f * #dv)));
            }
        }
        if let Some(d) = dissipation.and_then(|d| get(d, Mono::D1(qd(i)))) {
            terms.push((true, quote!(#d)));
        }
        // The first term as it is, not added to a literal zero, which LLVM may not remove
        // (0.0 + x is not x for x = −0.0).
        let mut code = TokenStream::new();
        for (k, (subtracted, term)) in terms.iter().enumerate() {
            code.extend(match (k, subtracted) {
                (0, false) => quote!(#term),
                (0, true) => quote!(-(#term)),
                (_, false) => quote!(+ #term),
                (_, true) => quote!(- #term),
            });
        }
        bias.push(if terms.is_empty() {
            quote!(0.0f64)
        } else {
            code
        });
    }
    let value = values[lagrangian].clone().expect("live");

    let p = private();
    let m = l.inputs.len();
    let body = body(l, &x, &t, &e);
    // A small model's equations are inlined into their callers: the result then stays
    // in registers, and what a caller does not use (the momenta, say) is never computed.
    // Larger ones stay one function, compiled once (an `#[inline]` function is compiled
    // again in every codegen unit that calls it). The model and the generic functions that
    // call this are instantiated in the same crate, so no hint is needed for that.
    let inline = (e.statements.len() <= INLINE_STATEMENTS).then(|| quote!(#[inline(always)]));
    Some(quote! {
        const FAST_EQUATIONS: bool = true;

        #[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]
        #inline
        fn eval_equations(&self, #x: &#p::Point<f64, #n, #m>) -> #p::Equations<#n> {
            #body
            #p::Equations {
                mass: <#p::SMatrix<f64, #n, #n> as #p::From<[[f64; #n]; #n]>>::from([#(#columns),*]),
                momenta: <#p::SVector<f64, #n> as #p::From<[f64; #n]>>::from([#(#momenta),*]),
                bias: <#p::SVector<f64, #n> as #p::From<[f64; #n]>>::from([#(#bias),*]),
                lagrangian: #value,
            }
        }
    })
}

/// The code of every node the roots need (`roots`: each root with the components it
/// needs), and each node's value and components; `None` past `max_statements` statements
/// or for a derivative this scheme does not carry. `t` is the local holding the time.
fn unroll(
    g: &Graph,
    roots: &[(Id, BTreeSet<Mono>)],
    t: &Ident,
    max_statements: usize,
) -> Option<(Emit, Vec<Option<Val>>, Vec<Comps>)> {
    if value_statements(g, roots) > max_statements {
        return None;
    }
    let (live, need) = needs(g, roots)?;
    let mut e = Emit::new("__j", Scalar::F64);
    let mut values: Vec<Option<Val>> = vec![None; g.len()];
    let mut comps: Vec<Comps> = vec![Comps::new(); g.len()];
    for id in 0..g.len() {
        if !live[id] {
            continue;
        }
        let (value, cs) = node(&mut e, g, id, &need[id], &values, &comps, t);
        values[id] = Some(value);
        comps[id] = cs;
        if e.statements.len() > max_statements {
            return None;
        }
    }
    Some((e, values, comps))
}

/// How many statements [`unroll`] writes for the nodes' values alone: one per operation
/// the roots reach (a leaf is a local or a literal of its own, and `dot(e)` is a
/// component of `e`), whatever their components. Counted in one pass over the graph
/// before [`needs`], whose work grows as the nodes times the pairs of coordinates (issue
/// 45: a URDF chain of 100 links, 4.5 GB and most of its build time, for code the budget
/// then refused): past the budget by this count alone, [`unroll`] would decline after
/// writing them, so it declines at once, and no model's code changes.
fn value_statements(g: &Graph, roots: &[(Id, BTreeSet<Mono>)]) -> usize {
    let roots: Vec<Id> = roots.iter().map(|(id, _)| *id).collect();
    let live = g.live(&roots);
    (0..g.len())
        .filter(|&id| live[id])
        .filter(|&id| match g.op(id) {
            Op::Lit(_) | Op::Param(_) | Op::Input(_) | Op::Coord(_) | Op::Vel(_) | Op::Time => {
                false
            }
            Op::Dot(_) => false,
            // (Derivative nodes are not in this form; `needs` declines them.)
            Op::Neg(_)
            | Op::Add(..)
            | Op::Sub(..)
            | Op::Mul(..)
            | Op::Div(..)
            | Op::Unary(..)
            | Op::Binary(..)
            | Op::D1(_)
            | Op::P1(..) => true,
        })
        .count()
}

/// The body of every generated function or block of this module, before what it returns
/// or stores: the locals it reads ([`unpack`]), the declaration of its own, and the
/// statements `e` wrote.
fn body(l: &Lowered, x: &Ident, t: &Ident, e: &Emit) -> TokenStream {
    let unpack = unpack(l, x, t);
    let declaration = e.declaration();
    let statements = &e.statements;
    quote! {
        #unpack
        #declaration
        #(#statements)*
    }
}

/// The locals the generated code reads, from the model (`self`) and the point `x`: the
/// time `t`, the parameters, inputs, coordinates and velocities.
fn unpack(l: &Lowered, x: &Ident, t: &Ident) -> TokenStream {
    let n = l.coordinates.len();
    let fields: Vec<&Ident> = l.parameters.iter().map(|x| &x.name).collect();
    let params = (0..fields.len()).map(parameter);
    let inputs = (0..l.inputs.len()).map(input);
    let coords = (0..n).map(coordinate);
    let velocities = (0..n).map(velocity);
    let (ui, qi, vi) = (0..l.inputs.len(), 0..n, 0..n);
    quote! {
        let #t: f64 = #x.t;
        #( let #params: f64 = self.#fields; )*
        #( let #inputs: f64 = #x.u[#ui]; )*
        #( let #coords: f64 = #x.q[#qi]; )*
        #( let #velocities: f64 = #x.qd[#vi]; )*
    }
}

/// The method `__jacobian_rows` for `Name::jacobians`: the rows of the Jacobians of the
/// `let` elements `elems` of the lowered graph and their drifts
/// (`lagrange_runtime::jacobian::Rows`), in plain `f64`, by the components of this module:
/// ∂e/∂q_i and the second derivative along the motion for a position-level element,
/// ∂e/∂q̇_i and the first for a velocity-level one (`velocity[k]`). Each node carries only
/// the components of the coordinates it depends on, so a hand's frame costs its own joints
/// rather than one pass over the model per coordinate. `None` beyond `max_statements`
/// statements (the runtime's dual-number passes then give the rows).
pub fn jacobian_rows_fn(
    l: &Lowered,
    g: &Graph,
    elems: &[usize],
    velocity: &[bool],
    max_statements: usize,
    name: &Ident,
) -> Option<TokenStream> {
    debug_assert_eq!(g.form, Form::Unrolled);
    let n = l.coordinates.len();
    let roots: Vec<(Id, BTreeSet<Mono>)> = elems
        .iter()
        .zip(velocity)
        .map(|(&e, &at_velocity)| {
            let set = if at_velocity {
                (0..n)
                    .map(|i| Mono::D1(Dir::Qd(i)))
                    .chain([Mono::D1(Dir::W)])
                    .collect()
            } else {
                (0..n)
                    .map(|i| Mono::D1(Dir::Q(i)))
                    .chain([d2(Dir::W, Dir::W)])
                    .collect()
            };
            (g.of(e), set)
        })
        .collect();
    let [t, x] = ["t", "x"].map(internal);
    let (e, _, comps) = unroll(g, &roots, &t, max_statements)?;
    let zero = Val::Lit(0.0);
    let get = |id: Id, m: Mono| comps[id].get(&m).cloned().unwrap_or(zero.clone());
    let rows = roots.iter().zip(velocity).map(|((id, _), &at_velocity)| {
        let entries = (0..n).map(|i| {
            get(
                *id,
                Mono::D1(if at_velocity { Dir::Qd(i) } else { Dir::Q(i) }),
            )
        });
        quote!([#(#entries),*])
    });
    let drifts = roots.iter().zip(velocity).map(|((id, _), &at_velocity)| {
        get(
            *id,
            if at_velocity {
                Mono::D1(Dir::W)
            } else {
                d2(Dir::W, Dir::W)
            },
        )
    });
    let (p, m, k) = (private(), l.inputs.len(), elems.len());
    let body = body(l, &x, &t, &e);
    Some(quote! {
        #[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]
        fn #name(&self, #x: &#p::Point<f64, #n, #m>) -> #p::jacobian::Rows<#n, #k> {
            #body
            #p::jacobian::Rows { matrix: [#(#rows),*], drift: [#(#drifts),*] }
        }
    })
}

/// The code that subtracts the derivatives of the generalized forces along q and q̇ from
/// the matrices `d_q` and `d_qd` (locals of the caller, as is the point `x`): of
/// Q_i = Σ F ∂v/∂q̇_i over the forces `forces` (by index), whose values and velocities
/// read no coordinates but `read`, so that ∂Q/∂q_j and ∂Q/∂q̇_j vanish for every other j.
/// With F's components along q_j and q̇_j and v's along q̇_i, (q_j, q̇_i) and (q̇_j, q̇_i):
///
/// ```text
/// ∂Q_i/∂q_j = Σ ∂F/∂q_j ∂v/∂q̇_i + F ∂²v/∂q_j∂q̇_i       (and the same along q̇_j)
/// ```
///
/// A robot's tree gives the rest of its inverse dynamics' derivatives
/// (`lagrange_runtime::tree_dynamics`); this replaces the dual-number passes over its
/// forces (`tree_dynamics::forces_along_state`) where it stays within `max_statements`
/// statements. `None` beyond, or for a derivative this scheme does not carry.
pub fn forces_along_state_code(
    l: &Lowered,
    g: &Graph,
    forces: &[usize],
    read: &[usize],
    [x, d_q, d_qd]: [&Ident; 3],
    max_statements: usize,
) -> Option<TokenStream> {
    debug_assert_eq!(g.form, Form::Unrolled);
    let n = l.coordinates.len();
    let along = |j: usize| [Dir::Q(j), Dir::Qd(j)];
    let mut roots = Vec::new();
    for &k in forces {
        let (f, v) = g.forces[k];
        roots.push((
            f,
            read.iter().flat_map(|&j| along(j)).map(Mono::D1).collect(),
        ));
        let mut set = BTreeSet::new();
        for i in 0..n {
            set.insert(Mono::D1(Dir::Qd(i)));
            for &j in read {
                for d in along(j) {
                    set.insert(d2(d, Dir::Qd(i)));
                }
            }
        }
        roots.push((v, set));
    }
    let t = internal("t");
    let (mut e, values, comps) = unroll(g, &roots, &t, max_statements)?;
    let get = |id: Id, m: Mono| comps[id].get(&m);
    let mut stores = Vec::new();
    for i in 0..n {
        for &j in read {
            for (d, matrix) in along(j).into_iter().zip([d_q, d_qd]) {
                let mut terms: Vec<Vec<&Val>> = Vec::new();
                for &k in forces {
                    let (f, v) = g.forces[k];
                    if let (Some(df), Some(dv)) =
                        (get(f, Mono::D1(d)), get(v, Mono::D1(Dir::Qd(i))))
                    {
                        terms.push(vec![df, dv]);
                    }
                    if let Some(dv) = get(v, d2(d, Dir::Qd(i))) {
                        terms.push(vec![values[f].as_ref().expect("live"), dv]);
                    }
                }
                if let Some(entry) = e.sum(products(terms)) {
                    stores.push(quote!(#matrix[(#i, #j)] -= #entry;));
                }
            }
        }
    }
    let body = body(l, x, &t, &e);
    Some(quote! {
        #[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]
        {
            #body
            #(#stores)*
        }
    })
}

/// An expression of the generalized forces of the applied forces alone, Q_i = Σ F ∂v/∂q̇_i
/// (no dissipation), `[f64; N]`, at the point `x` (a local of the caller, whose `self`
/// is the model): a robot's inverse dynamics is its tree's less Q. `None` beyond
/// `max_statements` statements.
pub fn generalized_forces_code(
    l: &Lowered,
    g: &Graph,
    x: &Ident,
    max_statements: usize,
) -> Option<TokenStream> {
    debug_assert_eq!(g.form, Form::Unrolled);
    let n = l.coordinates.len();
    let mut roots = Vec::new();
    for &(f, v) in &g.forces {
        roots.push((f, BTreeSet::new()));
        roots.push((v, (0..n).map(|i| Mono::D1(Dir::Qd(i))).collect()));
    }
    let t = internal("t");
    let (mut e, values, comps) = unroll(g, &roots, &t, max_statements)?;
    let entries: Vec<Val> = (0..n)
        .map(|i| {
            let terms = g
                .forces
                .iter()
                .filter_map(|&(f, v)| {
                    let dv = comps[v].get(&Mono::D1(Dir::Qd(i)))?;
                    Some(vec![values[f].as_ref().expect("live"), dv])
                })
                .collect();
            e.sum(products(terms)).unwrap_or(Val::Lit(0.0))
        })
        .collect();
    let body = body(l, x, &t, &e);
    Some(quote! {
        #[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]
        {
            #body
            [#(#entries),*]
        }
    })
}

/// The method `Model::eval_forces_along_inputs`: ∂Q/∂u of the generalized forces
/// Q_i = Σ F ∂v/∂q̇_i, Σ ∂F/∂u_k ∂v/∂q̇_i, in plain `f64` (the runtime's default takes a
/// pass of the forces in dual numbers per input). `None` for a model without forces
/// that read an input, beyond `max_statements` statements, or where an input divides or
/// is an exponent (the unrolled form's divisors and exponents are constants of the
/// state).
pub fn forces_along_inputs_fn(
    l: &Lowered,
    g: &Graph,
    max_statements: usize,
) -> Option<TokenStream> {
    debug_assert_eq!(g.form, Form::Unrolled);
    let (n, m) = (l.coordinates.len(), l.inputs.len());
    let driven: Vec<(Id, Id)> = g
        .forces
        .iter()
        .copied()
        .filter(|&(f, _)| g.deps(f).has(Deps::U))
        .collect();
    if driven.is_empty() {
        return None;
    }
    let mut roots = Vec::new();
    for &(f, v) in &driven {
        roots.push((f, (0..m).map(|k| Mono::D1(Dir::U(k))).collect()));
        roots.push((v, (0..n).map(|i| Mono::D1(Dir::Qd(i))).collect()));
    }
    let [t, x, d_u] = ["t", "x", "d_u"].map(internal);
    let (mut e, _, comps) = unroll(g, &roots, &t, max_statements)?;
    let get = |id: Id, m: Mono| comps[id].get(&m);
    let mut columns = Vec::new();
    for k in 0..m {
        let mut column = Vec::new();
        for i in 0..n {
            let terms = driven
                .iter()
                .filter_map(|&(f, v)| {
                    Some(vec![
                        get(f, Mono::D1(Dir::U(k)))?,
                        get(v, Mono::D1(Dir::Qd(i)))?,
                    ])
                })
                .collect();
            column.push(e.sum(products(terms)).unwrap_or(Val::Lit(0.0)));
        }
        columns.push(quote!([#(#column),*]));
    }
    let p = private();
    let body = body(l, &x, &t, &e);
    Some(quote! {
        #[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]
        fn eval_forces_along_inputs(
            &self,
            #x: &#p::Point<f64, #n, #m>,
            #d_u: &mut #p::SMatrix<f64, #n, #m>,
        ) -> bool {
            #body
            *#d_u = <#p::SMatrix<f64, #n, #m> as #p::From<[[f64; #n]; #m]>>::from([#(#columns),*]);
            true
        }
    })
}

/// The value and components of one node.
#[allow(clippy::too_many_lines)]
fn node(
    e: &mut Emit,
    g: &Graph,
    id: Id,
    need: &BTreeSet<Mono>,
    values: &[Option<Val>],
    comps: &[Comps],
    t: &Ident,
) -> (Val, Comps) {
    let val = |a: Id| values[a].clone().expect("operands come first");
    let minus = Val::Lit(-1.0);
    let mut out = Comps::new();
    let value = match g.op(id) {
        Op::Lit(bits) => Val::Lit(f64::from_bits(bits)),
        Op::Param(i) => Val::Id(parameter(i)),
        Op::Input(i) => {
            out.insert(Mono::D1(Dir::U(i)), Val::Lit(1.0));
            Val::Id(input(i))
        }
        Op::Time => {
            out.insert(Mono::D1(Dir::W), Val::Lit(1.0));
            Val::Id(t.clone())
        }
        Op::Vel(i) => {
            out.insert(Mono::D1(Dir::Qd(i)), Val::Lit(1.0));
            Val::Id(velocity(i))
        }
        Op::D1(_) | Op::P1(..) => unreachable!("`needs` declines a graph with derivative nodes"),
        Op::Coord(i) => {
            out.insert(Mono::D1(Dir::Q(i)), Val::Lit(1.0));
            out.insert(Mono::Bias(i), Val::Lit(1.0));
            out.insert(Mono::D1(Dir::W), Val::Id(velocity(i)));
            Val::Id(coordinate(i))
        }
        Op::Neg(a) => {
            for m in need {
                if let Some(x) = comps[a].get(m) {
                    let v = e.bind(quote!(-#x), [x]);
                    out.insert(*m, v);
                }
            }
            let a = val(a);
            e.bind(quote!(-#a), [&a])
        }
        Op::Add(a, b) | Op::Sub(a, b) => {
            let sub = matches!(g.op(id), Op::Sub(..));
            for m in need {
                let v = match (comps[a].get(m), comps[b].get(m)) {
                    (Some(x), Some(y)) if sub => e.bind(quote!(#x - #y), [x, y]),
                    (Some(x), Some(y)) => e.bind(quote!(#x + #y), [x, y]),
                    (Some(x), None) => x.clone(),
                    (None, Some(y)) if sub => e.bind(quote!(-#y), [y]),
                    (None, Some(y)) => y.clone(),
                    (None, None) => continue,
                };
                out.insert(*m, v);
            }
            let (a, b) = (val(a), val(b));
            if sub {
                e.bind(quote!(#a - #b), [&a, &b])
            } else {
                e.bind(quote!(#a + #b), [&a, &b])
            }
        }
        Op::Mul(a, b) => {
            let (va, vb) = (val(a), val(b));
            for m in need {
                let (ca, cb) = (&comps[a], &comps[b]);
                let mut terms: Vec<Vec<&Val>> = Vec::new();
                if let Some(x) = cb.get(m) {
                    terms.push(vec![&va, x]);
                }
                if let Some(x) = ca.get(m) {
                    terms.push(vec![x, &vb]);
                }
                if let Some((d, f, sign)) = second_order(*m, &minus) {
                    let (d, f) = (Mono::D1(d), Mono::D1(f));
                    if let (Some(x), Some(y)) = (ca.get(&d), cb.get(&f)) {
                        terms.push(sign.into_iter().chain([x, y]).collect());
                    }
                    if let (Some(x), Some(y)) = (ca.get(&f), cb.get(&d)) {
                        terms.push(sign.into_iter().chain([x, y]).collect());
                    }
                }
                if let Some(v) = e.sum(products(terms)) {
                    out.insert(*m, v);
                }
            }
            e.bind(quote!(#va * #vb), [&va, &vb])
        }
        Op::Div(a, b) => {
            let vb = val(b);
            for m in need {
                if let Some(x) = comps[a].get(m) {
                    let v = e.bind(quote!(#x / #vb), [x, &vb]);
                    out.insert(*m, v);
                }
            }
            let va = val(a);
            e.bind(quote!(#va / #vb), [&va, &vb])
        }
        Op::Unary(f, a) => {
            let va = val(a);
            let exponent = match f {
                Jet1::Powf(x) => Some(val(x)),
                _ => None,
            };
            let call = jet1_call(f.map(|x| val(x).to_token_stream()), &va);
            let [v, f1, f2] = e.bind_all(call, std::iter::once(&va).chain(&exponent));
            let ca = &comps[a];
            for m in need {
                let mut terms: Vec<Vec<&Val>> = Vec::new();
                if let Some(x) = ca.get(m) {
                    terms.push(vec![&f1, x]);
                }
                if let Some((d, h, sign)) = second_order(*m, &minus) {
                    if let (Some(x), Some(y)) = (ca.get(&Mono::D1(d)), ca.get(&Mono::D1(h))) {
                        terms.push(sign.into_iter().chain([&f2, x, y]).collect());
                    }
                }
                if let Some(v) = e.sum(products(terms)) {
                    out.insert(*m, v);
                }
            }
            v
        }
        Op::Binary(f, a, b) => {
            let (va, vb) = (val(a), val(b));
            let call = jet2_call(f, &va, &vb);
            let [v, fa, fb, faa, fab, fbb] = e.bind_all(call, [&va, &vb]);
            let (ca, cb) = (&comps[a], &comps[b]);
            for m in need {
                let mut terms: Vec<Vec<&Val>> = Vec::new();
                if let Some(x) = ca.get(m) {
                    terms.push(vec![&fa, x]);
                }
                if let Some(x) = cb.get(m) {
                    terms.push(vec![&fb, x]);
                }
                if let Some((d, h, sign)) = second_order(*m, &minus) {
                    let (d, h) = (Mono::D1(d), Mono::D1(h));
                    let pairs = [
                        (&faa, ca.get(&d), ca.get(&h)),
                        (&fab, ca.get(&d), cb.get(&h)),
                        (&fab, ca.get(&h), cb.get(&d)),
                        (&fbb, cb.get(&d), cb.get(&h)),
                    ];
                    for (f2, x, y) in pairs {
                        if let (Some(x), Some(y)) = (x, y) {
                            terms.push(sign.into_iter().chain([f2, x, y]).collect());
                        }
                    }
                }
                if let Some(v) = e.sum(products(terms)) {
                    out.insert(*m, v);
                }
            }
            v
        }
        Op::Dot(x) => {
            let cx = &comps[x];
            for m in need {
                let source = match *m {
                    Mono::D1(Dir::Qd(i)) => Mono::D1(Dir::Q(i)),
                    Mono::D1(Dir::W) => d2(Dir::W, Dir::W),
                    Mono::D1(Dir::Q(j)) => d2(Dir::Q(j), Dir::W),
                    Mono::D2(Dir::Q(j), Dir::Qd(i)) => d2(Dir::Q(j), Dir::Q(i)),
                    _ => continue,
                };
                if let Some(v) = cx.get(&source) {
                    out.insert(*m, v.clone());
                }
            }
            cx.get(&Mono::D1(Dir::W)).cloned().unwrap_or(Val::Lit(0.0))
        }
    };
    // Components a node does not need (a coordinate's seeds, say) are dropped here.
    out.retain(|m, _| need.contains(m));
    (value, out)
}
