//! `Name::lets` and `Name::jacobians`: the values of the `let`s at a state, and the frame
//! Jacobians (with their drifts) of those that have one, unrolled where they stay small,
//! else for a URDF robot from its tree at run time ([`TreeLets`], [`momenta_rows`]), else
//! by the runtime's dual-number passes.

use super::terms::{lift, point_type, unpack_point, Gen};
use super::types::{jacobian_level, jacobians_type, lets_type};
use crate::ast::{RobotTree, TreeJoint};
use crate::check::key;
use crate::graph::Graph;
use crate::ir::{Deps, Id, Op};
use crate::lower::Lowered;
use crate::names::{float, internal, private};
use crate::typing::Shape;
use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

/// Beyond this many statements, `Name::jacobians` takes a robot's rows from its tree
/// ([`TreeLets`]), or runs the runtime's dual-number passes, instead of the unrolled rows
/// ([`crate::fast::jacobian_rows_fn`]). Measured in instructions per call (callgrind,
/// release), passes → unrolled: the UR5's 42 k → 7.1 k (1 313 statements), the Panda's
/// 82 k → 10.9 k (3 033), the Solo-12's 217 k → 37 k (4 961), with no measurable change
/// in building their test. The G1's would take 19 182 statements, and building its test
/// 5.0 GB instead of 2.1 GB (dev profile): its rows come from its tree, 299 k
/// instructions per call where the passes took 907 k. Within the budget the unrolled
/// rows are the cheaper: with every field filled in place, the Solo-12's `jacobians` takes
/// 47 k instructions unrolled against 92 k from its tree, the Panda's 23.5 k against
/// 45 k, the UR5's 9.1 k against 29 k (forward mode folds the file's zeros and ones, and
/// writes only the result's nonzero entries).
const MAX_JACOBIAN_STATEMENTS: usize = 6_000;

/// The budget of a robot's momenta unrolled apart from its other `let`s, whose rows then
/// stay unrolled ([`MOMENTA`]); beyond, their rows come from the robot's tree at run time
/// ([`momenta_rows`]). Unrolled, they are the cheaper: the Solo-12's take 11 602
/// statements and its `jacobians` 62 k instructions per call (callgrind, release)
/// against 64 k from the tree, the Panda's 23.5 k against 27.3 k, and the UR5's, all its
/// rows unrolled together, 9.9 k against 17.0 k: forward mode folds the file's zeros
/// and ones, where the tree's recursion does every product. Against the passes the
/// Solo-12's were 327 k.
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
    // A robot's momenta ([`MOMENTA`]), by index into `all`.
    let momenta: Vec<usize> = match &l.robot {
        Some(_) => MOMENTA
            .iter()
            .filter_map(|name| all.iter().position(|(field, ..)| key(field) == *name))
            .collect(),
        None => Vec::new(),
    };
    let momenta = (momenta.len() == MOMENTA.len()).then_some(momenta);
    let robot = l.robot.as_ref().map(|robot| &robot.tree);
    // A robot's tree as a constant, and its momenta's rows from it: for `jacobians` when
    // they are too large to unroll, and always for the tests, which check them against
    // the `let`s (a hidden method).
    let mut code = robot.map(robot_constant).unwrap_or_default();
    let tree_rows = match (&momenta, robot) {
        (Some(_), Some(_)) => {
            let evaluate = momenta_rows(n, m);
            let doc = "The rows of the momenta from the robot's tree \
                (`lagrange_runtime::centroidal`), for the tests. Not part of the public API.";
            code.extend(quote! {
                #[doc = #doc]
                #[doc(hidden)]
                #[must_use]
                #[inline]
                pub fn __momenta_from_tree(&self, #s: &#p::State<#n>, #u: &#p::SVector<f64, #m>) -> #p::jacobian::Rows<#n, 6> {
                    let #x = #p::Point::new(#s, #u);
                    #evaluate
                }
            });
            evaluate
        }
        _ => TokenStream::new(),
    };
    // A robot's links' points and the sums of them, whose rows come from its tree.
    let from_tree = robot
        .map(|tree| tree_lets(l, &all, tree, momenta.as_deref().unwrap_or(&[])))
        .filter(|t| !t.points.is_empty());
    let every: Vec<usize> = (0..all.len()).collect();
    let others: Vec<usize> = every
        .iter()
        .copied()
        .filter(|k| momenta.as_ref().is_none_or(|m| !m.contains(k)))
        .collect();
    // The rows unrolled in `f64` where the code stays within its size; else, for a robot,
    // the rows of every `let` but its momenta unrolled and those apart, or from its tree;
    // else, for a robot, its links' points and their sums from its tree ([`TreeLets`]),
    // its momenta too, and the other `let`s (the model's own) unrolled or by the passes;
    // else one dual-number pass per coordinate (`lagrange_runtime::jacobian::rows`) over
    // the method `lets` evaluates with.
    let unrolled_rows = |members: &[usize], how| rows(l, unrolled, &all, members, how);
    let mut tree_route = None;
    let groups = if let Some((evaluate, more)) =
        unrolled_rows(&every, Evaluation::Unrolled("__jacobian_rows"))
    {
        code.extend(more);
        vec![(every.clone(), evaluate)]
    } else if let Some((evaluate, more)) = momenta
        .as_ref()
        // Without momenta apart, the others are every `let`, just found too large.
        .and_then(|_| unrolled_rows(&others, Evaluation::Unrolled("__jacobian_rows")))
    {
        code.extend(more);
        let mut groups = vec![(others.clone(), evaluate)];
        if let Some(members) = momenta.clone() {
            let apart = unrolled_rows(&members, Evaluation::Centroidal);
            let (evaluate, more) = apart.unwrap_or_else(|| (tree_rows.clone(), quote!()));
            groups.push((members, evaluate));
            code.extend(more);
        }
        groups
    } else if let Some(tree) = &from_tree {
        let rest: Vec<usize> = others.iter().copied().filter(|k| !tree.has(*k)).collect();
        let mut groups = Vec::new();
        if !rest.is_empty() {
            let (evaluate, more) = unrolled_rows(&rest, Evaluation::Unrolled("__jacobian_rows"))
                .or_else(|| unrolled_rows(&rest, Evaluation::Passes("__eval_jacobian_lets")))
                .expect("the passes");
            code.extend(more);
            groups.push((rest, evaluate));
        }
        if let Some(members) = momenta.clone() {
            groups.push((members, tree_rows.clone()));
        }
        tree_route = Some(tree);
        groups
    } else {
        let how = if others.len() == all.len() {
            Evaluation::Lets
        } else {
            Evaluation::Passes("__eval_jacobian_lets")
        };
        let (evaluate, more) = unrolled_rows(&others, how).expect("the passes");
        code.extend(more);
        let mut groups = vec![(others.clone(), evaluate)];
        if let Some(members) = momenta.clone() {
            groups.push((members, tree_rows.clone()));
        }
        groups
    };
    // The result is zeros filled in place: no Jacobian is built apart and moved in.
    let (out, fill) = (internal("out"), internal("__fill_jacobians"));
    let zeros = quote!(#p::jacobian::Jacobian::ZEROS);
    let fields = all.iter().map(|(field, ..)| quote!(#field: #zeros));
    let mut bindings = Vec::new();
    let mut writes = Vec::new();
    for (g, (members, evaluate)) in groups.iter().enumerate() {
        let rows = internal(&format!("rows{g}"));
        bindings.push(quote!(let #rows = #evaluate;));
        let mut offset = 0;
        for &k in members {
            let (field, elems, _) = &all[k];
            writes.push(quote!(#rows.write(#offset, &mut #out.#field);));
            offset += elems.len();
        }
    }
    if let Some(tree) = tree_route {
        let (frames, points, _, sums) = tree.fields(&all, n);
        bindings.push(frames);
        writes.extend(points.into_iter().map(|(_, write)| write));
        writes.push(sums);
    }
    // The tree's rows in place of the others' (a hidden method for the tests, which
    // compare the two).
    if let (None, Some(tree)) = (tree_route, &from_tree) {
        let (frames, points, summed, sums) = tree.fields(&all, n);
        let points = points
            .into_iter()
            .map(|(f, write)| quote!(#out.#f = #zeros; #write));
        let summed = summed.into_iter().map(|f| quote!(#out.#f = #zeros;));
        let momenta = match &momenta {
            Some(members) => {
                let rows = internal("rows");
                let mut offset = 0;
                let assign = members.iter().map(|&k| {
                    let (field, elems, _) = &all[k];
                    let at = offset;
                    offset += elems.len();
                    quote!(#rows.write(#at, &mut #out.#field);)
                });
                quote!(let #rows = #tree_rows; #(#assign)*)
            }
            None => quote!(),
        };
        code.extend(quote! {
            /// `jacobians` with the rows of the robot's links' points, their sums and its
            /// momenta from its tree, for the tests. Not part of the public API.
            #[doc(hidden)]
            #[must_use]
            #[inline]
            pub fn __jacobians_from_tree(&self, #s: &#p::State<#n>, #u: &#p::SVector<f64, #m>) -> #ty {
                let mut #out = self.jacobians(#s, #u);
                let #x = #p::Point::new(#s, #u);
                #frames
                #(#points)*
                #(#summed)*
                #momenta
                #sums
                #out
            }
        });
    }
    quote! {
        impl #name {
            /// The Jacobian of every scalar and vector `let` that has one, with its drift,
            /// at the state `s` with inputs `u` (held fixed): see `lagrange_runtime::jacobian`.
            // `inline`: compiled only in programs that call it.
            #[must_use]
            #[inline]
            pub fn jacobians(&self, #s: &#p::State<#n>, #u: &#p::SVector<f64, #m>) -> #ty {
                let mut #out = #ty { #(#fields),* };
                self.#fill(&#p::Point::new(#s, #u), &mut #out);
                #out
            }

            /// Fills `jacobians`' result in place (zeros where nothing is written), so that
            /// the caller's copy is the only one, where `jacobians` is inlined.
            #[allow(non_snake_case)]
            #[inline]
            fn #fill(&self, #x: &#p::Point<f64, #n, #m>, #out: &mut #ty) {
                #(#bindings)*
                #(#writes)*
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

/// A URDF robot's momenta (`urdf::writer`), whose rows `jacobians` computes apart from
/// its other `let`s' when all of them would not stay within [`MAX_JACOBIAN_STATEMENTS`]:
/// unrolled within [`MAX_CENTROIDAL_STATEMENTS`] (the Solo-12's 11 602 statements, the
/// Panda's 5 481: a product per link and velocity above it), else from the robot's tree
/// ([`momenta_rows`], the G1's), not by the passes, each of which would evaluate them and
/// the velocities they are made of: the G1's `jacobians` took 396 µs with its momenta's
/// rows by the passes (2N of them), 112 µs before it had momenta, and takes 111–119 µs
/// with them from its tree (`cargo bench --bench robots -- --exact g1/jacobians`, the
/// machine shared); callgrind: 0.93 M instructions per call, against 2.0 M with the
/// momenta in N passes.
const MOMENTA: [&str; 2] = ["urdf_momentum", "urdf_angular_momentum"];

/// How the rows of a group of `let`s are evaluated.
pub(super) enum Evaluation {
    /// Unrolled in `f64` ([`crate::fast::jacobian_rows_fn`]), within
    /// [`MAX_JACOBIAN_STATEMENTS`], by a method of this name.
    Unrolled(&'static str),
    /// A robot's momenta unrolled apart, within [`MAX_CENTROIDAL_STATEMENTS`].
    Centroidal,
    /// By the runtime's dual-number passes, over a generic method of this name evaluating
    /// the group's elements.
    Passes(&'static str),
    /// By the passes over the method `lets` evaluates with, the group's elements picked
    /// from every `let`'s, when the group is every `let` that has a Jacobian: not a second
    /// copy of the `let`s' code for the few that have none, at the cost of evaluating
    /// those too. Not for a robot, whose momenta are not in the group: every pass would
    /// evaluate them and the kinetic energy's velocities they are made of, where the
    /// group's own method (`Passes`) evaluates the frames alone.
    Lets,
}

/// The expression evaluating the rows of the `let`s `members` (indices into `all`, each
/// `let` with its elements and level) and the code it calls; `None` when unrolled rows
/// would exceed their size.
pub(super) fn rows(
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

/// The expression evaluating the rows of a robot's momenta (`urdf_momentum`, then
/// `urdf_angular_momentum`) from its tree at run time
/// (`lagrange_runtime::centroidal::momenta`), the tree the constant of [`robot_constant`].
fn momenta_rows(n: usize, m: usize) -> TokenStream {
    let p = private();
    let x = internal("x");
    let name = internal(ROBOT_TREE);
    quote!(#p::centroidal::momenta::<#n, #m, _, _>(&Self::#name, &#x))
}

/// The associated constant holding a robot's tree ([`robot_constant`]).
pub(super) const ROBOT_TREE: &str = "__ROBOT_TREE";

/// A robot's tree as a constant (`lagrange_runtime::centroidal::Robot`), for its momenta's
/// rows and its links' points' ([`momenta_rows`], [`TreeLets`]).
fn robot_constant(tree: &RobotTree) -> TokenStream {
    let p = private();
    let c = quote!(#p::centroidal);
    let number = |v: f64| float(v, proc_macro2::Span::call_site());
    let vector = |v: &[f64; 3]| {
        let [a, b, c] = v.map(number);
        quote!([#a, #b, #c])
    };
    let matrix = |r: &[[f64; 3]; 3]| {
        let rows = r.iter().map(vector);
        quote!([#(#rows),*])
    };
    let links = tree.links.iter().map(|link| {
        let joint = match &link.joint {
            TreeJoint::Root => quote!(#c::Joint::Root),
            TreeJoint::Fixed => quote!(#c::Joint::Fixed),
            TreeJoint::Revolute {
                coordinate,
                axis,
                along,
            } => {
                let (axis, along) = (vector(axis), vector(along));
                quote!(#c::Joint::Revolute { coordinate: #coordinate, axis: #axis, along: #along })
            }
            TreeJoint::Prismatic { coordinate, along } => {
                let along = vector(along);
                quote!(#c::Joint::Prismatic { coordinate: #coordinate, along: #along })
            }
        };
        let (parent, xyz) = (link.parent, vector(&link.xyz));
        let rpy = match &link.rpy {
            Some(r) => {
                let r = matrix(r);
                quote!(Some(#r))
            }
            None => quote!(None),
        };
        quote!(#c::Link { parent: #parent, joint: #joint, xyz: #xyz, rpy: #rpy })
    });
    let bodies = tree.bodies.iter().map(|b| {
        let (link, mass, com) = (b.link, number(b.mass), vector(&b.com));
        let inertia = match &b.inertia {
            None => quote!(#c::Inertia::Zero),
            Some(Ok(factors)) => {
                let factors = factors.iter().map(|(d, l)| {
                    let (d, l) = (number(*d), vector(l));
                    quote!((#d, #l))
                });
                quote!(#c::Inertia::Factored(&[#(#factors),*]))
            }
            Some(Err(tensor)) => {
                let tensor = matrix(tensor);
                quote!(#c::Inertia::Plain(#tensor))
            }
        };
        quote!(#c::Body { link: #link, mass: #mass, com: #com, inertia: #inertia })
    });
    let (count, bodies_count, floating) = (tree.links.len(), tree.bodies.len(), tree.floating);
    let name = internal(ROBOT_TREE);
    quote! {
        // The file's numbers as they are (clippy's `approx_constant` would see π/4 in them).
        #[doc(hidden)]
        #[allow(clippy::all, clippy::pedantic)]
        pub const #name: #c::Robot<#count, #bodies_count> = #c::Robot {
            floating: #floating,
            links: [#(#links),*],
            bodies: [#(#bodies),*],
        };
    }
}

/// The `let`s of a robot whose rows `jacobians` can take from its tree at run time
/// (`lagrange_runtime::frames`), in one pass down it and a few products per column,
/// instead of the passes: each link's points as the URDF writer declares them, `L_p` its
/// origin and `L_c` its centre of mass (`L_p + L_R · com`), and the `let`s that are sums
/// of their elements with weights that do not vary with the state (`urdf_com`, Σ (m / M)
/// L_c; `urdf_potential`, Σ m g L_c[2]; `urdf_mass`, a constant), whose rows are the same
/// sums of theirs.
struct TreeLets {
    /// Each point: its index in `all`, its link's in the tree, its offset in the link's
    /// frame.
    points: Vec<(usize, usize, [f64; 3])>,
    /// Each sum: its index in `all`, and for each of its elements the weights (Rust
    /// expressions of literals, parameters and inputs) of the points' elements (index in
    /// `all`, row) it adds.
    sums: Vec<(usize, Vec<Vec<Term>>)>,
}

/// A term of an element of a sum ([`TreeLets::sums`]): its weight, as a Rust expression,
/// and the point's element (index in `all`, row) it multiplies.
type Term = (TokenStream, usize, usize);

impl TreeLets {
    fn has(&self, k: usize) -> bool {
        self.points.iter().any(|p| p.0 == k) || self.sums.iter().any(|s| s.0 == k)
    }

    /// The binding of the tree's frames at the point; each point's field and the code
    /// writing its rows into `__out`; each sum's field, and the code adding its terms into
    /// `__out` (the sums' rows zeros before, their points' rows written).
    fn fields(
        &self,
        all: &[(&Ident, Vec<Id>, bool)],
        n: usize,
    ) -> (
        TokenStream,
        Vec<(Ident, TokenStream)>,
        Vec<Ident>,
        TokenStream,
    ) {
        let p = private();
        let [x, frames, out] = ["x", "frames", "out"].map(internal);
        let tree = internal(ROBOT_TREE);
        let binding = quote!(let #frames = #p::frames::Frames::new(&Self::#tree, &#x););
        let number = |v: f64| float(v, proc_macro2::Span::call_site());
        let mut points = Vec::new();
        for &(k, link, offset) in &self.points {
            let [a, b, c] = offset.map(number);
            let field = all[k].0;
            let write = quote!(#frames.point::<#n>(&mut #out.#field, #link, [#a, #b, #c]););
            points.push((field.clone(), write));
        }
        let mut summed = Vec::new();
        let mut add = TokenStream::new();
        for (k, elems) in &self.sums {
            let field = all[*k].0;
            summed.push(field.clone());
            // The same weight of the same point in every element, row by row (`urdf_com`):
            // whole Jacobians added.
            let first = elems.first().map(|terms| {
                terms
                    .iter()
                    .map(|(w, source, from)| (w.to_string(), *source, *from))
                    .collect::<Vec<_>>()
            });
            let whole = first.as_ref().is_some_and(|first| {
                first.iter().all(|(_, _, from)| *from == 0)
                    && elems.iter().enumerate().all(|(row, terms)| {
                        terms.len() == first.len()
                            && terms.iter().zip(first).all(|((w, source, from), f)| {
                                w.to_string() == f.0 && *source == f.1 && *from == row
                            })
                    })
                    && first
                        .iter()
                        .all(|(_, source, _)| all[*source].1.len() == elems.len())
            });
            if whole {
                for (weight, source, _) in &elems[0] {
                    let source = all[*source].0;
                    add.extend(quote! {
                        #p::frames::accumulate_all(&mut #out.#field, #weight, &#out.#source);
                    });
                }
                continue;
            }
            for (row, terms) in elems.iter().enumerate() {
                for (weight, source, from) in terms {
                    let source = all[*source].0;
                    add.extend(quote! {
                        #p::frames::accumulate(&mut #out.#field, #row, #weight, &#out.#source, #from);
                    });
                }
            }
        }
        (binding, points, summed, add)
    }
}

/// The `let`s of `all` (each with its elements and level) whose rows come from the robot's
/// tree ([`TreeLets`]), its momenta (`momenta`, indices into `all`) apart.
fn tree_lets(
    l: &Lowered,
    all: &[(&Ident, Vec<Id>, bool)],
    tree: &RobotTree,
    momenta: &[usize],
) -> TreeLets {
    let mut points = Vec::new();
    // Each point's elements: the point's index in `all` and the row.
    let mut basis = std::collections::HashMap::new();
    for (k, (field, elems, velocity)) in all.iter().enumerate() {
        let name = key(field);
        let at = tree.links.iter().enumerate().find_map(|(i, link)| {
            if name == format!("{}_p", link.name) {
                Some((i, [0.0; 3]))
            } else if name == format!("{}_c", link.name) {
                Some((i, link.com))
            } else {
                None
            }
        });
        let Some((link, offset)) = at.filter(|_| !velocity && elems.len() == 3) else {
            continue;
        };
        points.push((k, link, offset));
        for (row, &e) in elems.iter().enumerate() {
            basis.entry(e).or_insert((k, row));
        }
    }
    let mut sums = Vec::new();
    for (k, (_, elems, _)) in all.iter().enumerate() {
        if momenta.contains(&k) || points.iter().any(|p| p.0 == k) {
            continue;
        }
        let terms: Option<Vec<_>> = elems
            .iter()
            .map(|&e| {
                let mut terms = Vec::new();
                sum_of_points(l, &basis, e, None, &mut terms)?;
                Some(terms)
            })
            .collect();
        if let Some(terms) = terms {
            sums.push((k, terms));
        }
    }
    TreeLets { points, sums }
}

/// Adds to `terms` the node `id` as a sum of the points' elements (`basis`) with weights
/// that do not vary with the state, times `weight` (`None`: 1); `None` when it is not one.
fn sum_of_points(
    l: &Lowered,
    basis: &std::collections::HashMap<Id, (usize, usize)>,
    id: Id,
    weight: Option<TokenStream>,
    terms: &mut Vec<Term>,
) -> Option<()> {
    let ir = &l.ir;
    let fixed = |a: Id| !ir.deps(a).has(Deps::STATE);
    if let Some(&(k, row)) = basis.get(&id) {
        terms.push((weight.unwrap_or_else(|| quote!(1.0)), k, row));
        return Some(());
    }
    if fixed(id) {
        // Its rows are zeros.
        return Some(());
    }
    let times = |w: TokenStream| match &weight {
        Some(v) => quote!((#v) * (#w)),
        None => w,
    };
    match ir.op(id) {
        Op::Add(a, b) => {
            sum_of_points(l, basis, a, weight.clone(), terms)?;
            sum_of_points(l, basis, b, weight, terms)
        }
        Op::Sub(a, b) => {
            sum_of_points(l, basis, a, weight.clone(), terms)?;
            sum_of_points(l, basis, b, Some(times(quote!(-1.0))), terms)
        }
        Op::Neg(a) => sum_of_points(l, basis, a, Some(times(quote!(-1.0))), terms),
        Op::Mul(a, b) if fixed(a) => {
            sum_of_points(l, basis, b, Some(times(fixed_value(l, a)?)), terms)
        }
        Op::Mul(a, b) if fixed(b) => {
            sum_of_points(l, basis, a, Some(times(fixed_value(l, b)?)), terms)
        }
        Op::Div(a, b) if fixed(b) => {
            let b = fixed_value(l, b)?;
            sum_of_points(l, basis, a, Some(times(quote!(1.0 / (#b)))), terms)
        }
        _ => None,
    }
}

/// A node that does not vary with the state as an `f64` expression in `jacobians`: of
/// literals, parameters and inputs by the four operations; `None` for anything else.
fn fixed_value(l: &Lowered, id: Id) -> Option<TokenStream> {
    let x = internal("x");
    let value = |a: Id| fixed_value(l, a);
    Some(match l.ir.op(id) {
        Op::Lit(bits) => float(f64::from_bits(bits), proc_macro2::Span::call_site()),
        Op::Param(i) => {
            let field = &l.parameters[i].name;
            quote!(self.#field)
        }
        Op::Input(i) => quote!(#x.u[#i]),
        Op::Neg(a) => {
            let a = value(a)?;
            quote!(-(#a))
        }
        Op::Add(a, b) => {
            let (a, b) = (value(a)?, value(b)?);
            quote!((#a) + (#b))
        }
        Op::Sub(a, b) => {
            let (a, b) = (value(a)?, value(b)?);
            quote!((#a) - (#b))
        }
        Op::Mul(a, b) => {
            let (a, b) = (value(a)?, value(b)?);
            quote!((#a) * (#b))
        }
        Op::Div(a, b) => {
            let (a, b) = (value(a)?, value(b)?);
            quote!((#a) / (#b))
        }
        _ => return None,
    })
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
pub(super) fn values_fn(l: &Lowered, name: &Ident, ids: &[Id]) -> TokenStream {
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
