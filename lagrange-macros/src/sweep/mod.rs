//! Code generation of the sweep: the equations of motion by forward-over-reverse AD,
//! written once as straight-line code and run once per seed direction, in any scalar.
//!
//! [`fast`](crate::fast) unrolls second-order forward mode over every pair of directions:
//! the fastest code there is for small models, but its size grows with the number of
//! nonzero second derivatives (N³/6 for a chain), so past a few thousand statements it
//! costs more to compile than it saves. The sweep's size grows with the model's size
//! alone:
//!
//! 1. **Expansion.** Each `dot(e)` becomes explicit nodes: the derivative of `e` along the
//!    motion, built by the chain rule on the graph (`dot(sin(x))` is `cos(x) · dot(x)`,
//!    `dot(q)` a velocity leaf). The result is a graph of (q, q̇, t) without `dot`; a
//!    function's derivative `f′(a)` is a node that shares the function's jet. This is
//!    [`Graph`]'s swept form, hash-consed like the rest, so a derivative that appears
//!    twice is computed once.
//! 2. **Primal and reverse.** One forward pass computes every value (and the jets
//!    [f, f′, f″] of the functions); one reverse pass from L gives the adjoints, so
//!    ∂L/∂q and the momenta ∂L/∂q̇ at the leaves; a second reverse pass from D and the
//!    virtual power of the forces gives Q − ∂D/∂q̇.
//! 3. **Tangent sweeps.** For a seed direction σ, forward tangents of the values and then
//!    tangents of the adjoints (forward-over-reverse) give the derivative of the momenta
//!    along σ: with σ = q̇ⱼ a column of the mass matrix, with σ = (q̇, a, 1) in (q, q̇, t)
//!    the term ∂²L/∂q̇∂q q̇ + ∂²L/∂q̇∂t + M a. Only the adjoints of nodes that depend on
//!    the velocities need tangents (the others never reach a momentum), which is why no
//!    third derivative of any function is needed.
//! 4. **Mass matrix.** Up to [`MAX_WRITTEN_MASS`](mass::MAX_WRITTEN_MASS) written out, either as Σₙ n̄ Jᵀ ∇²n J
//!    over the nodes with curvature in the velocities, J their operands' velocity
//!    Jacobians carried forward (`mass::mass_from_jacobians`), or as one tangent sweep per
//!    velocity, whichever does less arithmetic ([`mass_columns`]); beyond, the tangent
//!    sweeps run in loops, one per group of columns that move the same part of the model
//!    ([`loop_groups`](mass::loop_groups)). By the Jacobians, the products' operands are first expanded into
//!    the nodes they combine linearly (`mass::Expansions`), and products of the same pair of
//!    Jacobian entries share the sum of their weights, each sum formed from the smaller
//!    ones it contains (`mass::Interner::sums`): on a chain or a tree of bodies whose
//!    velocities are written as the tree composes them (`urdf`), this is the
//!    composite-rigid-body algorithm, found in the graph.
//!
//! The code is generic over the scalar (`f64`, or a dual number to differentiate the
//! equations again: linearization, equilibria, parameter sensitivities) and takes the
//! parameters as values of it. Work is O(N · size of the model) for the mass matrix and
//! O(size) for everything else.
//!
//! Beyond [`SPLIT_ABOVE`] statements of the primal and reverse passes, each straight run
//! of code (the passes, each column or loop of the mass matrix, the motion's sweep) is
//! split into functions that share a tape ([`Parts`]), for the cost of building it.

use crate::chunk::{Parts, SPLIT_ABOVE};
use crate::emit::{Emit, Scalar, Term, Val};
use crate::graph::Graph;
use crate::ir::{Deps, Id, Jet1, Op};
use crate::lower::Lowered;
use crate::names::{
    coordinate, input, internal, jet1_call, jet2_call, parameter, private, velocity,
};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::Ident;

pub(crate) mod mass;

use mass::mass_columns;

/// The jet of a function node: [f, f′, f″], or [f, f_a, f_b, f_aa, f_ab, f_bb].
type Jet = Vec<Val>;

/// The second partial of a binary jet along operands `i` and `j`.
fn second(jet: &Jet, i: usize, j: usize) -> Val {
    jet[3 + i + j].clone()
}

struct Sweep<'g> {
    g: &'g Graph,
    live: Vec<bool>,
    value: Vec<Option<Val>>,
    jet: Vec<Option<Jet>>,
}

impl Sweep<'_> {
    fn val(&self, id: Id) -> Val {
        self.value[id].clone().expect("operands come first")
    }

    /// The derivative of node `id` with respect to its varying operand `a` (the k-th
    /// operand when it appears twice, as in x·x, is handled by the caller summing).
    fn partials(&self, id: Id) -> Vec<(Id, Val)> {
        let g = self.g;
        let jet = |n: Id| self.jet[n].as_ref().expect("jet of a live function");
        let mut out = Vec::new();
        let mut push = |a: Id, v: Val| {
            if g.varies(a) {
                out.push((a, v));
            }
        };
        match g.op(id) {
            Op::Neg(a) => push(a, Val::Lit(-1.0)),
            Op::Add(a, b) => {
                push(a, Val::Lit(1.0));
                push(b, Val::Lit(1.0));
            }
            Op::Sub(a, b) => {
                push(a, Val::Lit(1.0));
                push(b, Val::Lit(-1.0));
            }
            Op::Mul(a, b) => {
                push(a, self.val(b));
                push(b, self.val(a));
            }
            Op::Unary(_, a) => push(a, jet(id)[1].clone()),
            Op::D1(u) => {
                if let Op::Unary(_, a) = g.op(u) {
                    push(a, jet(u)[2].clone());
                }
            }
            Op::Binary(_, a, b) => {
                push(a, jet(id)[1].clone());
                push(b, jet(id)[2].clone());
            }
            Op::P1(f, k) => {
                if let Op::Binary(_, a, b) = g.op(f) {
                    push(a, second(jet(f), k, 0));
                    push(b, second(jet(f), k, 1));
                }
            }
            // Division is by a constant: handled with a divisor.
            _ => {}
        }
        out
    }
}

/// How an operand's tangent enters its node's, in forward mode: times the partial, or
/// over the divisor of a division by what does not vary.
enum Link {
    Times(Val),
    Over(Val),
}

impl Link {
    /// The term of the node's tangent for the operand's tangent `x`.
    fn term(&self, x: Val) -> Term {
        match self {
            Link::Times(p) => Term::new(vec![p.clone(), x]),
            Link::Over(d) => Term::new(vec![x]).over(d.clone()),
        }
    }
}

impl Sweep<'_> {
    /// The chain rule of node `id` forward: each varying operand with the link of its
    /// tangent to the node's (a tangent sweep's values, the velocity Jacobians' columns).
    fn chain(&self, id: Id) -> Vec<(Id, Link)> {
        match self.g.op(id) {
            Op::Div(a, b) if self.g.varies(a) => vec![(a, Link::Over(self.val(b)))],
            Op::Div(..) => Vec::new(),
            _ => self
                .partials(id)
                .into_iter()
                .map(|(a, p)| (a, Link::Times(p)))
                .collect(),
        }
    }
}

/// The primal value (and jet) of a node.
fn primal(e: &mut Emit, s: &mut Sweep, id: Id) {
    let g = s.g;
    let value = match g.op(id) {
        Op::Lit(bits) => Val::Lit(f64::from_bits(bits)),
        Op::Param(i) => Val::Id(parameter(i)),
        Op::Input(i) => Val::Id(input(i)),
        Op::Coord(i) => Val::Id(coordinate(i)),
        Op::Vel(i) => Val::Id(velocity(i)),
        Op::Time => Val::Id(internal("__time")),
        Op::Neg(a) => {
            let a = s.val(a);
            let code = a.scalar();
            e.bind(quote!(-#code), [&a])
        }
        Op::Add(a, b) | Op::Sub(a, b) | Op::Mul(a, b) | Op::Div(a, b) => {
            // A literal on the right stays an `f64`, which the generic scalar takes there
            // (on the left it would be converted first: a call, and for a dual number a
            // full operation); a sum's or a product's literal goes to the right, the same
            // value rounded once.
            let (mut vx, mut vy) = (s.val(a), s.val(b));
            let commutes = matches!(g.op(id), Op::Add(..) | Op::Mul(..));
            if commutes && matches!((&vx, &vy), (Val::Lit(_), Val::Id(_))) {
                std::mem::swap(&mut vx, &mut vy);
            }
            let x = vx.scalar();
            let y = match vy {
                Val::Lit(_) => vy.to_token_stream(),
                Val::Id(_) => vy.scalar(),
            };
            e.bind(
                match g.op(id) {
                    Op::Add(..) => quote!(#x + #y),
                    Op::Sub(..) => quote!(#x - #y),
                    Op::Mul(..) => quote!(#x * #y),
                    _ => quote!(#x / #y),
                },
                [&vx, &vy],
            )
        }
        Op::Unary(f, a) => {
            let va = s.val(a);
            let exponent = match f {
                Jet1::Powf(x) => Some(s.val(x)),
                _ => None,
            };
            let call = jet1_call(f.map(|x| s.val(x).to_token_stream()), &va.scalar());
            let names: [Val; 3] = e.bind_all(call, std::iter::once(&va).chain(&exponent));
            let jet: Jet = names.into_iter().collect();
            let v = jet[0].clone();
            s.jet[id] = Some(jet);
            v
        }
        Op::Binary(f, a, b) => {
            let (va, vb) = (s.val(a), s.val(b));
            let call = jet2_call(f, &va.scalar(), &vb.scalar());
            let names: [Val; 6] = e.bind_all(call, [&va, &vb]);
            let jet: Jet = names.into_iter().collect();
            let v = jet[0].clone();
            s.jet[id] = Some(jet);
            v
        }
        Op::D1(u) => s.jet[u].as_ref().expect("jet first")[1].clone(),
        Op::P1(f, k) => s.jet[f].as_ref().expect("jet first")[1 + k].clone(),
        Op::Dot(_) => unreachable!("the swept form expands `dot`"),
    };
    s.value[id] = Some(value);
}

/// A reverse pass: the adjoint of every node that the roots reach, restricted to nodes
/// for which `keep` holds (their operands outside it get nothing).
fn reverse(
    e: &mut Emit,
    s: &Sweep,
    roots: Vec<(Id, Val)>,
    keep: impl Fn(Id) -> bool,
) -> Vec<Option<Val>> {
    let g = s.g;
    let n = g.len();
    let mut terms: Vec<Vec<Term>> = (0..n).map(|_| Vec::new()).collect();
    for (id, seed) in roots {
        if keep(id) {
            terms[id].push(Term::new(vec![seed]));
        }
    }
    let mut adjoint: Vec<Option<Val>> = vec![None; n];
    for id in (0..n).rev() {
        if terms[id].is_empty() {
            continue;
        }
        let Some(bar) = e.sum(std::mem::take(&mut terms[id])) else {
            continue;
        };
        if let Op::Div(a, b) = g.op(id) {
            if g.varies(a) && keep(a) {
                terms[a].push(Term::new(vec![bar.clone()]).over(s.val(b)));
            }
        }
        for (a, d) in s.partials(id) {
            if keep(a) {
                terms[a].push(Term::new(vec![bar.clone(), d]));
            }
        }
        adjoint[id] = Some(bar);
    }
    adjoint
}

/// A tangent sweep along a direction that moves the leaves in `classes` (the seeds of
/// the leaves given by `seed`): tangents of the values, then of the adjoints of the nodes
/// that depend on the velocities. Returns the tangents of the adjoints.
fn tangent(
    e: &mut Emit,
    s: &Sweep,
    adjoint: &[Option<Val>],
    classes: Deps,
    seed: &dyn Fn(Op) -> Option<Val>,
) -> Vec<Option<Val>> {
    let g = s.g;
    let n = g.len();
    let mut dot: Vec<Option<Val>> = vec![None; n];
    for id in 0..n {
        if !s.live[id] || !g.deps(id).has(classes) {
            continue;
        }
        let d = |a: Id| dot[a].clone();
        let terms = match g.op(id) {
            Op::Coord(_) | Op::Vel(_) | Op::Time => {
                dot[id] = seed(g.op(id));
                continue;
            }
            _ => s
                .chain(id)
                .into_iter()
                .filter_map(|(a, link)| d(a).map(|x| link.term(x)))
                .collect(),
        };
        dot[id] = e.sum(terms);
    }
    // Tangents of the adjoints: T(ā) += T(n̄) ∂n/∂a + n̄ T(∂n/∂a), for nodes on the
    // velocities.
    let mut terms: Vec<Vec<Term>> = (0..n).map(|_| Vec::new()).collect();
    let mut out: Vec<Option<Val>> = vec![None; n];
    for id in (0..n).rev() {
        if !g.deps(id).has(Deps::QD) {
            continue;
        }
        let Some(bar) = adjoint[id].clone() else {
            continue;
        };
        let tbar = e.sum(std::mem::take(&mut terms[id]));
        out[id] = tbar.clone();
        let on_velocity = |a: Id| g.deps(a).has(Deps::QD);
        match g.op(id) {
            Op::Div(a, b) => {
                if let (true, Some(t)) = (on_velocity(a), &tbar) {
                    terms[a].push(Term::new(vec![t.clone()]).over(s.val(b)));
                }
            }
            Op::Mul(a, b) => {
                for (x, y) in [(a, b), (b, a)] {
                    if !on_velocity(x) {
                        continue;
                    }
                    if let Some(t) = &tbar {
                        terms[x].push(Term::new(vec![t.clone(), s.val(y)]));
                    }
                    if let Some(dy) = dot[y].clone() {
                        terms[x].push(Term::new(vec![bar.clone(), dy]));
                    }
                }
            }
            Op::Unary(_, a) if on_velocity(a) => {
                let jet = s.jet[id].as_ref().expect("jet");
                if let Some(t) = &tbar {
                    terms[a].push(Term::new(vec![t.clone(), jet[1].clone()]));
                }
                if let Some(da) = dot[a].clone() {
                    terms[a].push(Term::new(vec![bar.clone(), jet[2].clone(), da]));
                }
            }
            Op::Binary(_, a, b) => {
                let jet = s.jet[id].as_ref().expect("jet");
                for (k, x) in [a, b].into_iter().enumerate() {
                    if !on_velocity(x) {
                        continue;
                    }
                    if let Some(t) = &tbar {
                        terms[x].push(Term::new(vec![t.clone(), jet[1 + k].clone()]));
                    }
                    for (m, y) in [a, b].into_iter().enumerate() {
                        if let Some(dy) = dot[y].clone() {
                            terms[x].push(Term::new(vec![bar.clone(), second(jet, k, m), dy]));
                        }
                    }
                }
            }
            Op::Neg(_) | Op::Add(..) | Op::Sub(..) => {
                if let Some(t) = &tbar {
                    for (a, sign) in s.partials(id) {
                        if on_velocity(a) {
                            terms[a].push(Term::new(vec![t.clone(), sign]));
                        }
                    }
                }
            }
            // Leaves, and derivative nodes (which never depend on the velocities).
            _ => {}
        }
    }
    out
}

/// `__lagrange_sweep`, an associated function of the model: the bias of the
/// [`Equations`](lagrange_runtime::model::Equations) and the
/// [`Gradient`](lagrange_runtime::model::Gradient) in any scalar, the parameters given as
/// values of it, and the mass matrix written into `mass` when one is given (zeroed by the
/// caller: only the entries that can be nonzero are written), so that inverse dynamics and
/// the gradient neither clear nor move an N×N matrix they do not read. With `qdd` given
/// the bias is that of M q̈ = bias with M·qdd moved to the right: −(M qdd − bias), the
/// negated inverse-dynamics residual. With `motion` false, the tangent sweep along the
/// motion does not run and the bias is not meant to be read. `None` when the model is
/// beyond it (a `dot` of velocities, which the checker rejects).
pub fn sweep_fn(l: &Lowered) -> Option<TokenStream> {
    let g = Graph::swept(l)?;
    let (n, m, np) = (l.coordinates.len(), l.inputs.len(), l.parameters.len());
    let (lagrangian, dissipation, forces) = (g.lagrangian, g.dissipation, &g.forces);
    let count = g.len();
    let live = g.live(&g.roots());
    let mut s = Sweep {
        g: &g,
        live,
        value: vec![None; count],
        jet: vec![None; count],
    };

    // Primal and reverse passes.
    let mut e = Emit::new("__v", Scalar::Generic);
    for id in 0..count {
        if s.live[id] {
            primal(&mut e, &mut s, id);
        }
    }
    let adjoint = reverse(&mut e, &s, vec![(lagrangian, Val::Lit(1.0))], |_| true);
    let mut generalized = Vec::new();
    if let Some(d) = dissipation {
        generalized.push((d, Val::Lit(-1.0)));
    }
    for &(f, v) in forces {
        generalized.push((v, s.val(f)));
    }
    let on_velocity = |a: Id| g.deps(a).has(Deps::QD);
    let applied = reverse(&mut e, &s, generalized, on_velocity);

    // Leaves: the local of each velocity and coordinate, when live.
    let leaf = |op: fn(usize) -> Op, i: usize| -> Option<Id> {
        let id = g.find(op(i))?;
        s.live[id].then_some(id)
    };
    let velocities: Vec<Option<Id>> = (0..n).map(|i| leaf(Op::Vel, i)).collect();
    let coordinates: Vec<Option<Id>> = (0..n).map(|i| leaf(Op::Coord, i)).collect();

    // Leaves, and the primal and reverse passes' locals: what every part of a split
    // sweep may read.
    let leaves: Vec<Ident> = std::iter::once(internal("__time"))
        .chain((0..np).map(parameter))
        .chain((0..m).map(input))
        .chain((0..n).map(coordinate))
        .chain((0..n).map(velocity))
        .collect();
    let outer = leaves.iter().chain(e.names()).map(Ident::to_string);
    let mut parts = Parts::new(e.statements.len() > SPLIT_ABOVE, outer, n);

    // Columns of the mass matrix: one sweep along each velocity.
    let mass = internal("__mass");
    let columns = mass_columns(&s, &adjoint, &velocities, &mass, &mut parts);

    // Along the motion (q̇, a, 1): ∂²L/∂q̇∂q q̇ + ∂²L/∂q̇∂t + M a.
    let mut motion = Emit::new("__m", Scalar::Generic);
    let accelerations_names: Vec<Ident> = (0..n).map(|i| internal(&format!("__a{i}"))).collect();
    let seed_motion = |op: Op| match op {
        Op::Coord(i) => Some(Val::Id(velocity(i))),
        Op::Vel(i) => Some(Val::Id(accelerations_names[i].clone())),
        Op::Time => Some(Val::Lit(1.0)),
        _ => None,
    };
    let classes = Deps::Q.union(Deps::QD).union(Deps::T);
    let along = tangent(&mut motion, &s, &adjoint, classes, &seed_motion);

    let get = |list: &[Option<Val>], id: Option<Id>| -> Val {
        id.and_then(|id| list[id].clone()).unwrap_or(Val::Lit(0.0))
    };
    let momenta: Vec<Val> = velocities.iter().map(|&v| get(&adjoint, v)).collect();
    let gradient: Vec<Val> = coordinates.iter().map(|&q| get(&adjoint, q)).collect();
    let forces: Vec<Val> = velocities.iter().map(|&v| get(&applied, v)).collect();
    let along: Vec<Val> = velocities.iter().map(|&v| get(&along, v)).collect();
    let value = s.val(lagrangian);
    let locals = |values: &[Val]| -> Vec<Ident> {
        values
            .iter()
            .filter_map(|v| match v {
                Val::Id(i) => Some(i.clone()),
                Val::Lit(_) => None,
            })
            .collect()
    };
    let motion_code = parts.straight(
        motion.declaration(),
        &motion.statements,
        Vec::new(),
        &accelerations_names,
    );
    let load_along = parts.load(&locals(&along));
    let results: Vec<Ident> = [&momenta, &gradient, &forces, std::slice::from_ref(&value)]
        .into_iter()
        .flat_map(locals)
        .collect();
    let load_results = parts.load(&results);
    let passes = parts.straight(e.declaration(), &e.statements, Vec::new(), &[]);
    let prologue = parts.prologue(&leaves);
    let [momenta, gradient, forces, along] =
        [momenta, gradient, forces, along].map(|v| v.iter().map(Val::scalar).collect::<Vec<_>>());
    let value = value.scalar();

    let p = private();
    let [x, params, qdd, with_motion, zero, accelerations, given, grad, along_motion, into] = [
        "x",
        "parameters",
        "qdd",
        "motion",
        "__zero",
        "__accelerations",
        "__given",
        "__gradient",
        "__along",
        "mass",
    ]
    .map(internal);
    let (pi, ui, qi, vi) = (0..np, 0..m, 0..n, 0..n);
    let (pn, un, qn, vn) = (
        (0..np).map(parameter),
        (0..m).map(input),
        (0..n).map(coordinate),
        (0..n).map(velocity),
    );
    let an = &accelerations_names;
    let ai = 0..n;
    let time = internal("__time");
    let grad_bias = internal("__bias");
    Some(quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]
        fn __lagrange_sweep<__S: #p::Scalar>(
            #params: &[__S; #np],
            #x: &#p::Point<__S, #n, #m>,
            #qdd: ::core::option::Option<&[__S; #n]>,
            #with_motion: bool,
            #into: ::core::option::Option<&mut #p::SMatrix<__S, #n, #n>>,
        ) -> (#p::SVector<__S, #n>, #p::Gradient<#n, __S>) {
            let #time: __S = #x.t;
            #( let #pn: __S = #params[#pi]; )*
            #( let #un: __S = #x.u[#ui]; )*
            #( let #qn: __S = #x.q[#qi]; )*
            #( let #vn: __S = #x.qd[#vi]; )*
            #prologue
            #passes
            let #zero = <__S as #p::From<f64>>::from(0.0);
            if let ::core::option::Option::Some(#mass) = #into {
                #columns
            }
            let #along_motion: [__S; #n] = if #with_motion {
                let #accelerations: [__S; #n] = match #qdd {
                    ::core::option::Option::Some(#given) => *#given,
                    ::core::option::Option::None => [#zero; #n],
                };
                #( let #an: __S = #accelerations[#ai]; )*
                #motion_code
                #load_along
                [#(#along),*]
            } else {
                [#zero; #n]
            };
            #load_results
            let #grad = #p::Gradient {
                coordinates: <#p::SVector<__S, #n> as #p::From<[__S; #n]>>::from([#(#gradient),*]),
                momenta: <#p::SVector<__S, #n> as #p::From<[__S; #n]>>::from([#(#momenta),*]),
                forces: <#p::SVector<__S, #n> as #p::From<[__S; #n]>>::from([#(#forces),*]),
                lagrangian: #value,
            };
            let #grad_bias = #grad.coordinates + #grad.forces
                - <#p::SVector<__S, #n> as #p::From<[__S; #n]>>::from(#along_motion);
            (#grad_bias, #grad)
        }
    })
}
