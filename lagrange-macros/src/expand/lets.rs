//! `Name::lets` and `Name::jacobians`: the values of the `let`s at a state, and the frame
//! Jacobians (with their drifts) of those that have one, unrolled where they stay small.

use super::terms::{lift, point_type, unpack_point, Gen};
use super::types::{jacobian_level, jacobians_type, lets_type};
use crate::check::key;
use crate::graph::Graph;
use crate::ir::{Deps, Id, Op};
use crate::lower::Lowered;
use crate::names::{internal, private};
use crate::typing::Shape;
use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

/// Beyond this many statements, `Name::jacobians` runs the runtime's dual-number passes
/// instead of the unrolled rows ([`crate::fast::jacobian_rows_fn`]). Measured in
/// instructions per call (callgrind, release), passes → unrolled: the UR5's 42 k → 7.1 k
/// (1 313 statements), the Panda's 82 k → 10.9 k (3 033), the Solo-12's 217 k → 37 k
/// (4 961), with no measurable change in building their test. The G1's would take 19 182
/// statements, and building its test 5.0 GB instead of 2.1 GB (dev profile): it keeps
/// the passes.
const MAX_JACOBIAN_STATEMENTS: usize = 6_000;

/// The budget of a robot's centroidal rows unrolled apart ([`CENTROIDAL`]). Measured on
/// the Solo-12, whose momenta's rows take 11 602 statements: its `jacobians` costs 43 k
/// instructions per call (callgrind, release) against 327 k with those rows by the passes
/// (the frames' alone: 18 k), and `lagrange-test-models` builds in 43.1 s and 1.28 GB
/// against 44.8 s and 1.23 GB (dev profile, `CARGO_INCREMENTAL=0`, the machine shared).
const MAX_CENTROIDAL_STATEMENTS: usize = 12_000;

/// `Name::jacobians`, `Name::jacobians_along`, and the hidden method that evaluates the rows
/// of their Jacobians.
pub(super) fn jacobians_impl(l: &Lowered, unrolled: &Graph) -> TokenStream {
    let name = &l.header.name;
    let (n, m) = (l.coordinates.len(), l.inputs.len());
    let p = private();
    let [s, u, x] = ["s", "u", "x"].map(internal);
    // The `let`s that have a Jacobian: each with its elements and level.
    let mut all: Vec<(&Ident, Vec<Id>, bool)> = Vec::new();
    for lt in &l.lets {
        let Some(level) = jacobian_level(lt.value.as_ref(), (&l.ir, &l.degree)) else {
            continue;
        };
        let Some(value) = lt.value.as_ref() else {
            continue;
        };
        all.push((&lt.name, value.elems.clone(), level));
    }
    let ty = jacobians_type(&l.header);
    let every: Vec<usize> = (0..all.len()).collect();
    // The rows unrolled in `f64` where the code stays within its size; else, for a robot,
    // the rows of every `let` but its centroidal ones unrolled and those apart
    // (`CENTROIDAL`); else one dual-number pass per coordinate over the `let`s
    // (`lagrange_runtime::jacobian::rows`).
    let (groups, code) = match rows(
        l,
        unrolled,
        &all,
        &every,
        Evaluation::Unrolled("__jacobian_rows"),
    ) {
        Some(unrolled_rows) => (vec![(every, unrolled_rows.0)], unrolled_rows.1),
        None => {
            // The momenta first (velocity-level: their passes seed the velocities alone),
            // then the centre of mass too.
            let split = [&CENTROIDAL[2..], &CENTROIDAL[..]]
                .into_iter()
                .filter(|_| l.robot.is_some())
                .map(|names| -> (Vec<usize>, Vec<usize>) {
                    every
                        .iter()
                        .partition(|&&k| names.contains(&key(all[k].0).as_str()))
                })
                .filter(|(centroidal, _)| !centroidal.is_empty())
                .find_map(|(centroidal, others)| {
                    let unrolled_rows = rows(
                        l,
                        unrolled,
                        &all,
                        &others,
                        Evaluation::Unrolled("__jacobian_rows"),
                    )?;
                    Some((centroidal, others, unrolled_rows))
                });
            match split {
                Some((centroidal, others, (evaluate, code))) => {
                    let (centroidal_rows, centroidal_code) =
                        rows(l, unrolled, &all, &centroidal, Evaluation::Centroidal)
                            .or_else(|| {
                                rows(
                                    l,
                                    unrolled,
                                    &all,
                                    &centroidal,
                                    Evaluation::Passes("__eval_centroidal_lets"),
                                )
                            })
                            .expect("the passes");
                    (
                        vec![(others, evaluate), (centroidal, centroidal_rows)],
                        quote!(#code #centroidal_code),
                    )
                }
                None => {
                    let (evaluate, eval_fn) =
                        rows(l, unrolled, &all, &every, Evaluation::Lets).expect("the passes");
                    (vec![(every, evaluate)], eval_fn)
                }
            }
        }
    };
    let mut fields = Vec::new();
    let mut bindings = Vec::new();
    for (g, (members, evaluate)) in groups.iter().enumerate() {
        let rows = internal(&format!("rows{g}"));
        bindings.push(quote!(let #rows = #evaluate;));
        let mut offset = 0;
        for &k in members {
            let (field, elems, _) = &all[k];
            let r = elems.len();
            fields.push((k, quote!(#field: #rows.jacobian::<#r>(#offset))));
            offset += r;
        }
    }
    fields.sort_by_key(|(k, _)| *k);
    let fields = fields.into_iter().map(|(_, f)| f);
    quote! {
        impl #name {
            /// The Jacobian of every scalar and vector `let` that has one, with its drift,
            /// at the state `s` with inputs `u` (held fixed): see `lagrange_runtime::jacobian`.
            // `inline`: compiled only in programs that call it.
            #[must_use]
            #[inline]
            pub fn jacobians(&self, #s: &#p::State<#n>, #u: &#p::SVector<f64, #m>) -> #ty {
                let #x = #p::Point::new(#s, #u);
                #(#bindings)*
                #ty { #(#fields),* }
            }

            /// The Jacobians at every sample of `trajectory` (its states and recorded inputs).
            #[must_use]
            #[inline]
            pub fn jacobians_along(&self, trajectory: &#p::simulate::Trajectory<#n, #m>) -> ::std::vec::Vec<#ty> {
                trajectory.map(|#s, #u| self.jacobians(#s, #u))
            }

            #code
        }
    }
}

/// The centroidal `let`s of a URDF model (`urdf::writer`), whose rows a robot's
/// `jacobians` computes apart when the rows of all its `let`s would not stay within
/// [`MAX_JACOBIAN_STATEMENTS`], so that its frames keep their unrolled rows: the momenta
/// (or, when that is not enough, all four), unrolled by a method of their own within
/// [`MAX_CENTROIDAL_STATEMENTS`], else by the dual-number passes. The Solo-12's frames and
/// centre of mass take 5 585 statements, its momenta 11 602 apart (16 430 together: a
/// product per link and velocity, and the drift a second derivative of every link's
/// velocity); the Panda's 3 349 and 5 481.
const CENTROIDAL: [&str; 4] = [
    "urdf_mass",
    "urdf_com",
    "urdf_momentum",
    "urdf_angular_momentum",
];

/// How the rows of a group of `let`s are evaluated.
enum Evaluation {
    /// Unrolled in `f64` ([`crate::fast::jacobian_rows_fn`]), within
    /// [`MAX_JACOBIAN_STATEMENTS`], by a method of this name.
    Unrolled(&'static str),
    /// A robot's centroidal rows unrolled apart, within [`MAX_CENTROIDAL_STATEMENTS`].
    Centroidal,
    /// By the runtime's dual-number passes, over a generic method of this name evaluating
    /// the group's elements.
    Passes(&'static str),
    /// By the passes over the method `lets` evaluates with, the group's elements picked
    /// from every `let`'s: not a second copy of the `let`s' code for the few that have no
    /// Jacobian (the energies, whose terms the others share: a URDF robot's momenta are
    /// made of its kinetic energy's velocities), at the cost of evaluating those too.
    Lets,
}

/// The expression evaluating the rows of the `let`s `members` (indices into `all`, each
/// `let` with its elements and level) and the code it calls; `None` when unrolled rows
/// would exceed their size.
fn rows(
    l: &Lowered,
    unrolled: &Graph,
    all: &[(&Ident, Vec<Id>, bool)],
    members: &[usize],
    how: Evaluation,
) -> Option<(TokenStream, TokenStream)> {
    let (n, m) = (l.coordinates.len(), l.inputs.len());
    let p = private();
    let x = internal("x");
    let mut ids = Vec::new();
    let mut velocity = Vec::new();
    for &k in members {
        let (_, elems, level) = &all[k];
        ids.extend(elems.iter().copied());
        velocity.extend(std::iter::repeat_n(*level, elems.len()));
    }
    let k = ids.len();
    match how {
        Evaluation::Unrolled(_) | Evaluation::Centroidal => {
            let (method, budget) = match how {
                Evaluation::Unrolled(method) => (method, MAX_JACOBIAN_STATEMENTS),
                _ => ("__centroidal_rows", MAX_CENTROIDAL_STATEMENTS),
            };
            let name = internal(method);
            let code = crate::fast::jacobian_rows_fn(l, unrolled, &ids, &velocity, budget, &name)?;
            Some((quote!(self.#name(&#x)), code))
        }
        Evaluation::Passes(method) => {
            let eval = internal(method);
            let linear = linear_in_velocities(l, &ids, &velocity);
            let rows = quote! {
                #p::jacobian::rows::<#n, #m, #k>(
                    &#x,
                    &[#(#velocity),*],
                    #linear,
                    |#x: &#p::Point<#p::Dual64, #n, #m>| self.#eval(#x),
                    |#x: &#p::Point<#p::Dual2_64, #n, #m>| self.#eval(#x),
                )
            };
            Some((rows, values_fn(l, &eval, &ids)))
        }
        Evaluation::Lets => {
            let eval = internal(EVAL_LETS);
            let every = let_elements(l);
            // Every `let` has a Jacobian (the usual case): their values are what `lets`
            // evaluates, as they are; else the elements of those that have one.
            let pick = if ids == every {
                quote!(self.#eval(#x))
            } else {
                let v = internal("v");
                let at = ids
                    .iter()
                    .map(|id| every.iter().position(|e| e == id).expect("a let's element"));
                quote!({ let #v = self.#eval(#x); [#(#v[#at]),*] })
            };
            let linear = linear_in_velocities(l, &ids, &velocity);
            let rows = quote! {
                #p::jacobian::rows::<#n, #m, #k>(
                    &#x,
                    &[#(#velocity),*],
                    #linear,
                    |#x: &#p::Point<#p::Dual64, #n, #m>| #pick,
                    |#x: &#p::Point<#p::Dual2_64, #n, #m>| #pick,
                )
            };
            Some((rows, TokenStream::new()))
        }
    }
}

/// Whether every velocity-level element of `ids` is linear in the velocities, A(q, t) q̇
/// with nothing added (`velocity[k]`: element k is at velocity level), so that the
/// runtime's passes read its Jacobian's columns off one pass per coordinate with q̇ = e_j
/// (`lagrange_runtime::jacobian::rows`): a URDF robot's momenta, an `angular_velocity`;
/// not a velocity with a term of ∂p/∂t. Decided on the lowered graph, by the rules that
/// keep a node homogeneous of degree one in q̇: `dot` of what does not depend on t (nor
/// on an input), sums and differences of such nodes, their negations, products with and
/// quotients by what does not depend on q̇.
fn linear_in_velocities(l: &Lowered, ids: &[Id], velocity: &[bool]) -> bool {
    let ir = &l.ir;
    let live = ir.live(ids);
    let constant = |a: Id| !ir.deps(a).has(Deps::QD);
    let mut linear = vec![false; ir.len()];
    for id in (0..ir.len()).filter(|&id| live[id]) {
        linear[id] = match ir.op(id) {
            Op::Dot(a) => !ir.deps(a).has(Deps::T.union(Deps::U).union(Deps::QD)),
            Op::Neg(a) => linear[a],
            Op::Add(a, b) | Op::Sub(a, b) => linear[a] && linear[b],
            Op::Mul(a, b) => (linear[a] && constant(b)) || (constant(a) && linear[b]),
            Op::Div(a, b) => linear[a] && constant(b),
            _ => false,
        };
    }
    ids.iter()
        .zip(velocity)
        .all(|(&id, &at_velocity)| !at_velocity || linear[id])
}

/// The hidden generic method evaluating every element of every `let` ([`let_elements`]).
const EVAL_LETS: &str = "__eval_lets";

/// The nodes of every `let`'s elements, in the order of the `let`s.
fn let_elements(l: &Lowered) -> Vec<Id> {
    l.lets
        .iter()
        .filter_map(|l| l.value.as_ref())
        .flat_map(|v| v.elems.iter().copied())
        .collect()
}

/// `Name::lets`, `Name::lets_along`, and the hidden generic method that evaluates the lets.
pub(super) fn lets_impl(l: &Lowered) -> TokenStream {
    let name = &l.header.name;
    let (n, m) = (l.coordinates.len(), l.inputs.len());
    let p = private();
    let [s, u, v] = ["s", "u", "v"].map(internal);
    let values: Vec<&crate::lower::Value> =
        l.lets.iter().filter_map(|l| l.value.as_ref()).collect();
    let ids = let_elements(l);
    let mut next = 0;
    let fields = l.lets.iter().zip(&values).map(|(l, value)| {
        let field = &l.name;
        let k = value.elems.len();
        let elems = (next..next + k).map(|i| quote!(#v[#i]));
        next += k;
        let init = match value.shape {
            Shape::Scalar => quote!(#(#elems)*),
            Shape::Vector(_) => quote!(#p::SVector::from([#(#elems),*])),
            Shape::Matrix(..) => quote!(#p::SMatrix::from_row_slice(&[#(#elems),*])),
        };
        quote!(#field: #init)
    });
    let ty = lets_type(&l.header);
    let eval_lets_name = internal(EVAL_LETS);
    let eval_lets = values_fn(l, &eval_lets_name, &ids);
    let doc =
        format!("The `let`s of the model at the state `s` with inputs `u`, by name ([`{ty}`]).");
    quote! {
        impl #name {
            #[doc = #doc]
            #[must_use]
            pub fn lets(&self, #s: &#p::State<#n>, #u: &#p::SVector<f64, #m>) -> #ty {
                let #v = self.#eval_lets_name(&#p::Point::new(#s, #u));
                #ty { #(#fields),* }
            }

            /// The `let`s at every sample of `trajectory` (its states and recorded inputs).
            #[must_use]
            pub fn lets_along(&self, trajectory: &#p::simulate::Trajectory<#n, #m>) -> ::std::vec::Vec<#ty> {
                trajectory.map(|#s, #u| self.lets(#s, #u))
            }

            #eval_lets
        }
    }
}

/// A generic method `name` evaluating the nodes `ids` at a point.
fn values_fn(l: &Lowered, name: &Ident, ids: &[Id]) -> TokenStream {
    let p = private();
    let (d, x) = (internal("__D"), internal("x"));
    let mut g = Gen::new(l, false);
    let values: Vec<TokenStream> = ids.iter().map(|&id| lift(g.primal(id))).collect();
    let count = ids.len();
    let body = g.body(quote!([#(#values),*]));
    let point = point_type(l, &d);
    let unpack = unpack_point(&x);
    quote! {
        #[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]
        #[inline]
        fn #name<#d: #p::Scalar>(&self, #x: &#point) -> [#d; #count] {
            #unpack
            #body
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which velocity-level `let`s [`linear_in_velocities`] finds linear in q̇: an angular
    /// velocity, a sum of rates times what depends on q, a quotient by it, and a rate
    /// times an input are; a velocity with ∂p/∂t and one with a constant added are not.
    #[test]
    fn a_velocity_is_linear_when_nothing_without_a_rate_is_added() {
        let model = crate::parse::parse(quote! {
            struct Linear {
                coordinates: a, b;
                inputs: u;
                let w = angular_velocity(rot_z(a) * rot_x(b));
                let v = 2 * cos(a) * dot(a) - dot([a * b, sin(b)]) / (2 + a^2);
                let moving = dot([a + t, b]);
                let shifted = dot(a) + 1;
                let pushed = u * dot(a);
                kinetic = dot(a)^2 + dot(b)^2;
            }
        })
        .expect("a model");
        let mut errors = crate::errors::Errors::default();
        let checked = crate::check::check(&model, &mut errors);
        let l = crate::lower::lower(&checked, &mut errors);
        assert!(errors.finish().is_ok());
        let linear = |name: &str| {
            let value = l
                .lets
                .iter()
                .find(|lt| lt.name == name)
                .and_then(|lt| lt.value.as_ref())
                .expect("the let");
            linear_in_velocities(&l, &value.elems, &vec![true; value.elems.len()])
        };
        assert!(linear("w") && linear("v") && linear("pushed"));
        assert!(!linear("moving") && !linear("shifted"));
    }
}
