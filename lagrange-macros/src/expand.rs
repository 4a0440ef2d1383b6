//! Code generation: the model struct, its coordinate names, and the `Model`, `Dynamics`,
//! `Constrained` and `Parametric` impls, read from the lowered form only.
//!
//! The model's terms are generated generic over the number type: one local per node of
//! the lowered graph that a function needs, in graph order. A node is either a constant
//! (`f64`: literals, parameters and what is built from them only) or a variable (the
//! generic dual type), so parameter arithmetic costs what it costs in plain Rust. `dot(e)`
//! evaluates `e` in the tangent type `Dual<D>`, seeded with (q̇, 1) on (q, t): its `eps`
//! part is the total time derivative, exact to every order the outer dual type carries.

use crate::ast::Header;
use crate::check::key;
use crate::dims::ModelUnits;
use crate::emit::{declare, Stmt};
use crate::graph::Graph;
use crate::ir::{Deps, Id, Ir, Jet1, Jet2, Op};
use crate::lower::{Degree, Let, Lowered, Parameter, Shape, Value};
use crate::names::{float, internal, private, unary_fn};
use crate::units::Unit;
use proc_macro2::{Delimiter, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote};
use syn::Ident;

/// A user's name as a binding of the generated code: at the name's source location, with
/// mixed-site hygiene and a prefix, so that nothing in the user's scope can capture it or
/// clash with it (Rust forbids `let G` where a `const G` is in scope).
fn local(ident: &Ident) -> Ident {
    let span = ident.span().resolved_at(Span::mixed_site());
    let name = crate::check::key(ident);
    Ident::new(&format!("__{name}"), span)
}

/// `items` (generated items, one after the other) each under the model's `#[cfg(...)]`
/// attributes, so that a model compiled out takes everything generated for it along.
pub fn under_cfg(header: &Header, items: TokenStream) -> TokenStream {
    let cfgs: Vec<_> = header
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .collect();
    if cfgs.is_empty() {
        return items;
    }
    // An item ends with a `;` or a braced body (`impl … { }`, `struct … { }`), followed by
    // a `;` in `const _: T = { … };`: the forms the generators emit at the top level.
    let mut out = TokenStream::new();
    let mut item = TokenStream::new();
    let mut tokens = items.into_iter().peekable();
    while let Some(token) = tokens.next() {
        let ends = match &token {
            TokenTree::Punct(p) => p.as_char() == ';',
            TokenTree::Group(g) => {
                g.delimiter() == Delimiter::Brace
                    && !matches!(tokens.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ';')
            }
            _ => false,
        };
        item.extend([token]);
        if ends {
            let body = std::mem::take(&mut item);
            out.extend(quote!(#(#cfgs)* #body));
        }
    }
    debug_assert!(item.is_empty(), "generated items end with `;` or a body");
    out.extend(item);
    out
}

/// The model's items; `units` are the declared units when the model declares them and
/// its dimensions check.
pub fn expand(l: &Lowered, units: Option<&ModelUnits>) -> TokenStream {
    // The form the fast path differentiates, built once for its equations and its rows of
    // frame Jacobians.
    let unrolled = Graph::unrolled(l);
    let items = [
        data_types(
            &l.header,
            &l.parameters,
            &l.coordinates,
            &l.inputs,
            &l.lets,
            (&l.ir, &l.degree),
            units,
        ),
        lets_impl(l),
        jacobians_impl(l, &unrolled),
    ];
    let generated = Generated::choose(l, &unrolled);
    let model = model_impl(l, units, &generated);
    let parametric = parametric_impl(l, units, generated.sweep.is_some());
    let robot = robot_items(l);
    quote!(#(#items)* #model #parametric #robot)
}

/// For a model read from a URDF file: `Name::JOINT_LIMITS`, and the file included as bytes
/// so that rustc rebuilds the crate when it changes.
fn robot_items(l: &Lowered) -> TokenStream {
    let Some(robot) = &l.robot else {
        return TokenStream::new();
    };
    let (name, p, file) = (&l.header.name, private(), &robot.file);
    let count = robot.limits.len();
    let limits = robot.limits.iter().map(|(joint, limit)| {
        let limit = match limit {
            Some(values) => {
                let [lower, upper, velocity, effort] = values.map(|v| {
                    if v.is_finite() {
                        float(v, Span::call_site())
                    } else if v > 0.0 {
                        quote!(f64::INFINITY)
                    } else {
                        quote!(f64::NEG_INFINITY)
                    }
                });
                quote!(::core::option::Option::Some(#p::JointLimit { lower: #lower, upper: #upper, velocity: #velocity, effort: #effort }))
            }
            None => quote!(::core::option::Option::None),
        };
        quote!((#joint, #limit))
    });
    quote! {
        // The file's numbers as written (`6.28318530718`, say): no lint of the user's applies.
        #[allow(clippy::all)]
        impl #name {
            /// Each joint coordinate of the URDF file with its `<limit>` (in the order of
            /// the coordinates), or `None` where the file gives none.
            pub const JOINT_LIMITS: [(&'static str, ::core::option::Option<#p::JointLimit>); #count] = [#(#limits),*];
        }
        const _: &[u8] = ::core::include_bytes!(#file);
    }
}

/// The code of the equations of motion, and the one place that chooses which generator
/// writes it: the unrolled fast path ([`crate::fast`]) for `eval_equations` where the
/// model is within its size, else the sweep ([`crate::sweep`]) in `f64`, which then also
/// gives `eval_mass_matrix` without its pass along the motion; the sweep for everything
/// generic (`eval_equations_in`, inverse dynamics, the gradient, parameters). A model that
/// neither handles (a `dot` of velocities, which the checker rejects) keeps the runtime's
/// generic dual-number passes.
struct Generated {
    /// `__lagrange_sweep`, an associated function of the model.
    sweep: Option<TokenStream>,
    /// `eval_equations` and `FAST_EQUATIONS` for `impl Model`, and `eval_mass_matrix`
    /// where the mass matrix alone costs less than the equations (the sweep).
    equations: Option<TokenStream>,
}

impl Generated {
    fn choose(l: &Lowered, unrolled: &Graph) -> Self {
        let sweep = crate::sweep::sweep_fn(l);
        let equations = match crate::fast::equations_fn(l, unrolled, crate::fast::MAX_STATEMENTS) {
            Some(code) => Some(code),
            None if sweep.is_some() => {
                let p = private();
                let (n, m) = (l.coordinates.len(), l.inputs.len());
                let fields: Vec<_> = l.parameters.iter().map(|x| &x.name).collect();
                let x = internal("x");
                let values = quote!(&[#(self.#fields),*]);
                let equations = sweep_equations(n, &quote!(f64), &values, &x, true);
                let mass_matrix = sweep_equations(n, &quote!(f64), &values, &x, false);
                let mass_matrix = quote!(#mass_matrix.mass);
                Some(quote! {
                    const FAST_EQUATIONS: bool = true;

                    fn eval_equations(&self, #x: &#p::Point<f64, #n, #m>) -> #p::Equations<#n> {
                        #equations
                    }

                    fn eval_mass_matrix(&self, #x: &#p::Point<f64, #n, #m>) -> #p::SMatrix<f64, #n, #n> {
                        #mass_matrix
                    }
                })
            }
            None => None,
        };
        Generated { sweep, equations }
    }
}

/// The [`Equations`](lagrange_runtime::model::Equations) from `__lagrange_sweep` in the
/// scalar given, the parameters as `values` and the point as `x`, the mass matrix written
/// into one the call clears; with `motion` false, the bias is not computed (for the mass
/// matrix alone).
fn sweep_equations(
    n: usize,
    scalar: &TokenStream,
    values: &TokenStream,
    x: &Ident,
    motion: bool,
) -> TokenStream {
    let p = private();
    let (mass, bias, gradient) = (
        internal("__mass"),
        internal("__bias"),
        internal("__gradient"),
    );
    quote! {{
        let mut #mass = #p::SMatrix::<#scalar, #n, #n>::from_element(
            <#scalar as #p::From<f64>>::from(0.0),
        );
        let (#bias, #gradient) = Self::__lagrange_sweep::<#scalar>(
            #values,
            #x,
            ::core::option::Option::None,
            #motion,
            ::core::option::Option::Some(&mut #mass),
        );
        #p::Equations {
            mass: #mass,
            momenta: #gradient.momenta,
            bias: #bias,
            lagrangian: #gradient.lagrangian,
        }
    }}
}

/// The model struct with its constructor, and the structs naming coordinates and inputs.
pub fn data_types(
    header: &Header,
    parameters: &[Parameter],
    coordinates: &[Ident],
    inputs: &[Ident],
    lets: &[Let],
    (ir, degree): (&Ir, &[Degree]),
    units: Option<&ModelUnits>,
) -> TokenStream {
    let items = [
        model_struct(header, parameters, units.map(|u| &u.parameters[..])),
        named_vector(header, "Coordinates", coordinates, "coordinates"),
        named_vector(header, "Inputs", inputs, "inputs"),
        lets_struct(header, lets),
        jacobians_struct(header, lets, (ir, degree), coordinates.len()),
    ];
    quote!(#(#items)*)
}

/// The Rust type of a value of this shape.
fn rust_type(shape: Shape) -> TokenStream {
    let p = private();
    match shape {
        Shape::Scalar => quote!(f64),
        Shape::Vector(n) => quote!(#p::SVector<f64, #n>),
        Shape::Matrix(r, c) => quote!(#p::SMatrix<f64, #r, #c>),
    }
}

/// `NameLets`: one field per `let`, typed by its shape (`f64` where the let has an error).
fn lets_struct(header: &Header, lets: &[Let]) -> TokenStream {
    let (name, vis) = (&header.name, &header.vis);
    let ty = lets_type(header);
    let fields = lets.iter().map(|l| &l.name);
    let types = lets
        .iter()
        .map(|l| rust_type(l.value.as_ref().map_or(Shape::Scalar, |v| v.shape)));
    let docs = lets
        .iter()
        .map(|l| format!("`let {} = {};`", key(&l.name), l.text));
    let doc = format!(
        "The `let`s of [`{name}`] by name, typed by their shapes: what [`{name}::lets`] returns."
    );
    // Every scalar of the lets by name: `x1`, `p2[0]`, `R[0][1]` (no commas: the names are
    // CSV column headers).
    let (mut scalar_names, mut scalars) = (Vec::new(), Vec::new());
    for l in lets {
        let (plain, field) = (key(&l.name), &l.name);
        match l.value.as_ref().map_or(Shape::Scalar, |v| v.shape) {
            Shape::Scalar => {
                scalar_names.push(plain);
                scalars.push(quote!(self.#field));
            }
            Shape::Vector(n) => {
                for i in 0..n {
                    scalar_names.push(format!("{plain}[{i}]"));
                    scalars.push(quote!(self.#field[#i]));
                }
            }
            Shape::Matrix(r, c) => {
                for i in 0..r {
                    for j in 0..c {
                        scalar_names.push(format!("{plain}[{i}][{j}]"));
                        scalars.push(quote!(self.#field[(#i, #j)]));
                    }
                }
            }
        }
    }
    let k = scalars.len();
    quote! {
        ::lagrange_runtime::__serde_item! {
            #[doc = #doc]
            #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq)]
            #[allow(non_snake_case)]
            #vis struct #ty {
                #( #[doc = #docs] pub #fields: #types, )*
            }
        }

        impl #ty {
            /// The name of every scalar of the lets, in declaration order: `x` for a scalar,
            /// `p[0]` for an element of a vector, `R[0][1]` for one of a matrix.
            pub const SCALARS: [&'static str; #k] = [#(#scalar_names),*];

            /// Every scalar of the lets, in the order of [`Self::SCALARS`].
            #[must_use]
            pub fn scalars(&self) -> [f64; #k] {
                [#(#scalars),*]
            }

            /// The values of the scalar `name` (one of [`Self::SCALARS`]) along `lets`, for
            /// example a CSV column; `None` for another name.
            #[must_use]
            pub fn column(lets: &[Self], name: &str) -> ::core::option::Option<::std::vec::Vec<f64>> {
                let k = Self::SCALARS.iter().position(|n| *n == name)?;
                ::core::option::Option::Some(lets.iter().map(|l| l.scalars()[k]).collect())
            }
        }
    }
}

pub fn lets_type(header: &Header) -> Ident {
    format_ident!("{}Lets", header.name, span = header.name.span())
}

pub fn jacobians_type(header: &Header) -> Ident {
    format_ident!("{}Jacobians", header.name, span = header.name.span())
}

/// Whether a `let` has a Jacobian (`lagrange_runtime::jacobian`) and at which level:
/// `Some(false)` at position level (no velocities in it), `Some(true)` at velocity level
/// (affine in q̇); `None` for a matrix, a value that is not affine in q̇, or an error.
fn jacobian_level(value: Option<&Value>, (ir, degree): (&Ir, &[Degree])) -> Option<bool> {
    let value = value?;
    if matches!(value.shape, Shape::Matrix(..)) {
        return None;
    }
    if !value.elems.iter().any(|&e| ir.deps(e).has(Deps::QD)) {
        return Some(false);
    }
    value
        .elems
        .iter()
        .all(|&e| !matches!(degree[e], Degree::Nonlinear(_)))
        .then_some(true)
}

/// `NameJacobians`: a `Jacobian<R, N>` for every scalar or vector `let` that has one.
fn jacobians_struct(
    header: &Header,
    lets: &[Let],
    nodes: (&Ir, &[Degree]),
    n: usize,
) -> TokenStream {
    let (name, vis) = (&header.name, &header.vis);
    let ty = jacobians_type(header);
    let p = private();
    let (mut fields, mut types, mut docs) = (Vec::new(), Vec::new(), Vec::new());
    for l in lets {
        let Some(velocity) = jacobian_level(l.value.as_ref(), nodes) else {
            continue;
        };
        let rows = l.value.as_ref().map_or(1, |v| v.elems.len());
        fields.push(&l.name);
        types.push(quote!(#p::jacobian::Jacobian<#rows, #n>));
        let (matrix, drift) = if velocity {
            ("∂/∂q̇", "∂/∂q q̇ + ∂/∂t")
        } else {
            ("∂/∂q", "the acceleration at q̈ = 0")
        };
        docs.push(format!(
            "`let {} = {};`: `matrix` {matrix}, `drift` {drift}.",
            key(&l.name),
            l.text
        ));
    }
    let doc = format!(
        "The Jacobians of the `let`s of [`{name}`] by name (scalar and vector `let`s at \
         position level, or at velocity level and affine in the velocities): what \
         [`{name}::jacobians`] returns. See `lagrange_runtime::jacobian`."
    );
    quote! {
        #[doc = #doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq)]
        #[allow(non_snake_case)]
        #vis struct #ty {
            #( #[doc = #docs] pub #fields: #types, )*
        }
    }
}

/// Beyond this many statements, `Name::jacobians` runs the runtime's dual-number passes
/// instead of the unrolled rows ([`crate::fast::jacobian_rows_fn`]). Measured in
/// instructions per call (callgrind, release), passes → unrolled: the UR5's 42 k → 7.1 k
/// (1 313 statements), the Panda's 82 k → 10.9 k (3 033), the Solo-12's 217 k → 37 k
/// (4 961), with no measurable change in building their test. The G1's would take 19 182
/// statements, and building its test 5.0 GB instead of 2.1 GB (dev profile): it keeps
/// the passes.
const MAX_JACOBIAN_STATEMENTS: usize = 6_000;

/// `Name::jacobians`, `Name::jacobians_along`, and the hidden method that evaluates the rows
/// of their Jacobians.
fn jacobians_impl(l: &Lowered, unrolled: &Graph) -> TokenStream {
    let name = &l.header.name;
    let (n, m) = (l.coordinates.len(), l.inputs.len());
    let p = private();
    let [s, u, rows, x] = ["s", "u", "rows", "x"].map(internal);
    let (mut ids, mut velocity, mut fields) = (Vec::new(), Vec::new(), Vec::new());
    for lt in &l.lets {
        let Some(level) = jacobian_level(lt.value.as_ref(), (&l.ir, &l.degree)) else {
            continue;
        };
        let Some(value) = lt.value.as_ref() else {
            continue;
        };
        let (offset, r) = (ids.len(), value.elems.len());
        ids.extend(value.elems.iter().copied());
        velocity.extend(std::iter::repeat_n(level, r));
        let field = &lt.name;
        fields.push(quote!(#field: #rows.jacobian::<#r>(#offset)));
    }
    let ty = jacobians_type(&l.header);
    let k = ids.len();
    // The rows unrolled in `f64` where the code stays within its size, else one
    // dual-number pass per coordinate over the `let`s (`lagrange_runtime::jacobian::rows`).
    let (evaluate, eval_fn) = match crate::fast::jacobian_rows_fn(
        l,
        unrolled,
        &ids,
        &velocity,
        MAX_JACOBIAN_STATEMENTS,
    ) {
        Some(code) => {
            let name = internal("__jacobian_rows");
            (quote!(self.#name(&#x)), code)
        }
        None => {
            // Every `let` has a Jacobian (the usual case): their values are what
            // `lets` evaluates, by the same method, not a second copy of it.
            let every_let = ids == let_elements(l);
            let eval = internal(if every_let {
                EVAL_LETS
            } else {
                "__eval_jacobian_lets"
            });
            let rows = quote! {
                #p::jacobian::rows::<#n, #m, #k>(
                    &#x,
                    &[#(#velocity),*],
                    |#x: &#p::Point<#p::Dual64, #n, #m>| self.#eval(#x),
                    |#x: &#p::Point<#p::Dual2_64, #n, #m>| self.#eval(#x),
                )
            };
            let eval_fn = if every_let {
                TokenStream::new()
            } else {
                values_fn(l, &eval, &ids)
            };
            (rows, eval_fn)
        }
    };
    quote! {
        impl #name {
            /// The Jacobian of every scalar and vector `let` that has one, with its drift,
            /// at the state `s` with inputs `u` (held fixed): see `lagrange_runtime::jacobian`.
            // `inline`: compiled only in programs that call it.
            #[must_use]
            #[inline]
            pub fn jacobians(&self, #s: &#p::State<#n>, #u: &#p::SVector<f64, #m>) -> #ty {
                let #x = #p::Point::new(#s, #u);
                let #rows = #evaluate;
                #ty { #(#fields),* }
            }

            /// The Jacobians at every sample of `trajectory` (its states and recorded inputs).
            #[must_use]
            #[inline]
            pub fn jacobians_along(&self, trajectory: &#p::simulate::Trajectory<#n, #m>) -> ::std::vec::Vec<#ty> {
                trajectory.map(|#s, #u| self.jacobians(#s, #u))
            }

            #eval_fn
        }
    }
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
fn lets_impl(l: &Lowered) -> TokenStream {
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

/// `Point<D, N, M>`, the argument of every generated term.
fn point_type(l: &Lowered, d: &Ident) -> TokenStream {
    let (n, m, p) = (l.coordinates.len(), l.inputs.len(), private());
    quote!(#p::Point<#d, #n, #m>)
}

/// The locals `t`, `q`, `qd` and `u` that generated code reads, from the point `x`.
fn unpack_point(x: &Ident) -> TokenStream {
    let [t, q, qd, u] = ["t", "q", "qd", "u"].map(internal);
    quote!(let (#t, #q, #qd, #u) = (#x.t, &#x.q, &#x.qd, &#x.u);)
}

fn model_struct(header: &Header, parameters: &[Parameter], units: Option<&[Unit]>) -> TokenStream {
    let (name, vis) = (&header.name, &header.vis);
    // `cfg` goes on every generated item (see `under_cfg`), `derive` is rebuilt below, the
    // other attributes go here.
    let attrs = header
        .attrs
        .iter()
        .filter(|a| !a.path().is_ident("cfg") && !a.path().is_ident("derive"));
    // The user's derives, without a `Default` that the macro generates (an error already
    // reported); the macro derives the standard traits the user did not.
    let all_defaults = parameters.iter().all(|p| p.default.is_some());
    let derived = crate::check::user_derives(header);
    let named = |path: &syn::Path, trait_name: &str| {
        path.segments.last().is_some_and(|s| s.ident == trait_name)
    };
    let user: Vec<&syn::Path> = derived
        .iter()
        .filter(|p| !(all_defaults && named(p, "Default")))
        .collect();
    let standard = ["Debug", "Clone", "Copy", "PartialEq"]
        .into_iter()
        .filter(|t| !derived.iter().any(|p| named(p, t)))
        .map(|t| {
            let module = match t {
                "Debug" => "fmt",
                "Clone" => "clone",
                "Copy" => "marker",
                _ => "cmp",
            };
            let (module, t) = (format_ident!("{module}"), format_ident!("{t}"));
            quote!(::core::#module::#t)
        });
    let params: Vec<&Ident> = parameters.iter().map(|p| &p.name).collect();
    // Without parameters a unit struct, so that the model's name alone is a value.
    let body = if params.is_empty() {
        quote!(;)
    } else {
        let docs = parameters.iter().enumerate().map(|(i, p)| {
            let unit = units.map(|u| format!(", in {}", u[i].text()));
            let unit = unit.unwrap_or_default();
            match p.default {
                Some(d) => format!("Parameter `{}`{unit} (default {d:?}).", p.name),
                None => format!("Parameter `{}`{unit}.", p.name),
            }
        });
        quote!({ #( #[doc = #docs] pub #params: f64, )* })
    };
    let locals: Vec<Ident> = params.iter().map(|p| local(p)).collect();
    let names: Vec<String> = params.iter().map(|p| format!("`{p}`")).collect();
    let new_doc = if names.is_empty() {
        String::new()
    } else {
        format!("\nArguments: {}.", names.join(", "))
    };
    let default = parameters
        .iter()
        .map(|p| p.default.map(|d| float(d, p.name.span())))
        .collect::<Option<Vec<_>>>()
        .map(|values| {
            quote! {
                // The defaults are the user's literals (clippy would re-lint their spelling).
                #[allow(clippy::all, clippy::pedantic)]
                impl ::core::default::Default for #name {
                    /// The model with every parameter at its declared default.
                    fn default() -> Self {
                        Self::new(#(#values),*)
                    }
                }
            }
        });
    quote! {
        // First, so that derive helper attributes (`#[serde(...)]`) come after it.
        #[derive(#(#standard,)* #(#user),*)]
        #(#attrs)*
        #[allow(non_snake_case)]
        #vis struct #name #body

        impl #name {
            /// The model with the given parameters, in the order they are declared.
            #[doc = #new_doc]
            #[allow(non_snake_case, clippy::too_many_arguments)]
            #[must_use]
            pub const fn new(#(#locals: f64),*) -> Self {
                Self { #(#params: #locals),* }
            }
        }

        #default
    }
}

/// `NameCoordinates` / `NameInputs`: one field per name, converting to and from `SVector`.
fn named_vector(header: &Header, suffix: &str, names: &[Ident], what: &str) -> TokenStream {
    if names.is_empty() && suffix == "Inputs" {
        return TokenStream::new();
    }
    let (model, vis) = (&header.name, &header.vis);
    let ty = format_ident!("{}{}", model, suffix, span = model.span());
    let n = names.len();
    let index = 0..n;
    let p = private();
    let v = internal("v");
    let doc = format!(
        "The {what} of [`{model}`] by name, checked by the compiler. Converts to and from `SVector<f64, {n}>` in declaration order."
    );
    let field_docs = names.iter().map(|n| format!("`{n}`"));
    quote! {
        ::lagrange_runtime::__serde_item! {
            #[doc = #doc]
            #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::default::Default)]
            #[allow(non_snake_case)]
            #vis struct #ty {
                #( #[doc = #field_docs] pub #names: f64, )*
            }
        }

        impl #p::From<#p::SVector<f64, #n>> for #ty {
            fn from(#v: #p::SVector<f64, #n>) -> Self {
                Self { #( #names: #v[#index], )* }
            }
        }

        impl #p::From<#ty> for #p::SVector<f64, #n> {
            fn from(#v: #ty) -> Self {
                #p::SVector::from([#( #v.#names ),*])
            }
        }
    }
}

fn model_impl(l: &Lowered, units: Option<&ModelUnits>, generated: &Generated) -> TokenStream {
    let name = &l.header.name;
    let (n, m) = (l.coordinates.len(), l.inputs.len());
    let p = private();
    let coordinates = l.coordinates.iter().map(crate::check::key);
    let inputs = l.inputs.iter().map(crate::check::key);
    let has_dissipation = l.dissipation.is_some();
    let has_forces = !l.forces.is_empty();
    let quadratic = l.quadratic_in_velocities();
    // A large model's terms are written once, in `impl Parametric`; a small one's twice,
    // its parameters constants of `f64` here (a dual number times an `f64` costs less than
    // times a dual: a slider pendulum's constrained accelerations, whose rod length is a
    // parameter, 1 480 instructions per call against 1 563 through `Parametric`).
    let terms = if l.ir.len() > DELEGATE_ABOVE {
        delegated_term_fns(l)
    } else {
        term_fns(l, false)
    };
    let [x, qdd, scalar] = ["x", "qdd", "__S"].map(internal);
    let lifted = lifted_parameters(l, &scalar);
    let equations = &generated.equations;
    let equations_in = sweep_equations(n, &quote!(#scalar), &lifted, &x, true);
    let swept = generated.sweep.as_ref().map(|_| {
        quote! {
            fn eval_equations_in<#scalar: #p::Scalar>(
                &self,
                #x: &#p::Point<#scalar, #n, #m>,
            ) -> #p::Equations<#n, #scalar> {
                #equations_in
            }

            fn eval_inverse_dynamics_in<#scalar: #p::Scalar>(
                &self,
                #x: &#p::Point<#scalar, #n, #m>,
                #qdd: &[#scalar; #n],
            ) -> [#scalar; #n] {
                let (bias, _) = Self::__lagrange_sweep(#lifted, #x, ::core::option::Option::Some(#qdd), true, ::core::option::Option::None);
                (-bias).into()
            }

            fn eval_gradient_in<#scalar: #p::Scalar>(
                &self,
                #x: &#p::Point<#scalar, #n, #m>,
            ) -> #p::Gradient<#n, #scalar> {
                let zero = [<#scalar as #p::From<f64>>::from(0.0); #n];
                Self::__lagrange_sweep(#lifted, #x, ::core::option::Option::Some(&zero), false, ::core::option::Option::None).1
            }
        }
    });
    let inherent = generated
        .sweep
        .as_ref()
        .map(|code| quote!(impl #name { #code }));
    let names = l.constraints.iter().map(|k| &k.name);
    let holonomic = l.constraints.iter().map(|k| k.holonomic);
    let k = l.constraints.len();
    let units = units_const(units);
    let tree = crate::tree::mass_tree(l).map(|tree| {
        let constrained = tree.constrained;
        let parents = tree.parents.iter().map(|&parent| {
            if parent == usize::MAX {
                quote!(#p::NO_PARENT)
            } else {
                quote!(#parent)
            }
        });
        quote! {
            const MASS_TREE: ::core::option::Option<#p::MassTree<#n>> =
                ::core::option::Option::Some(#p::MassTree {
                    parents: [#(#parents),*],
                    constrained: #constrained,
                });
        }
    });
    quote! {
        #inherent

        impl #p::Model<#n, #m> for #name {
            const COORDINATES: [&'static str; #n] = [#(#coordinates),*];
            const INPUTS: [&'static str; #m] = [#(#inputs),*];
            #units
            type Constraints = #p::Count<#k>;
            const HAS_DISSIPATION: bool = #has_dissipation;
            const HAS_FORCES: bool = #has_forces;
            const QUADRATIC_IN_VELOCITIES: bool = #quadratic;
            const CONSTRAINT_NAMES: &'static [&'static str] = &[#(#names),*];
            const HOLONOMIC: &'static [bool] = &[#(#holonomic),*];
            #tree

            #terms
            #equations
            #swept
        }
    }
}

/// `impl Parametric<N, M, P>`: the same terms with the parameters taken from an array of
/// the number type (so that they can be differentiated), and the accelerations in them.
fn parametric_impl(c: &Lowered, units: Option<&ModelUnits>, swept: bool) -> TokenStream {
    let name = &c.header.name;
    let (n, m) = (c.coordinates.len(), c.inputs.len());
    let np = c.parameters.len();
    let p = private();
    let names = c.parameters.iter().map(|x| crate::check::key(&x.name));
    let fields = c.parameters.iter().map(|x| &x.name);
    let terms = term_fns(c, true);
    let parameter_units = units.map(|u| {
        let units = u.parameters.iter().map(Unit::text);
        quote!(const PARAMETER_UNITS: ::core::option::Option<[&'static str; #np]> =
            ::core::option::Option::Some([#(#units),*]);)
    });
    let [values, x, scalar] = ["values", "x", "__S"].map(internal);
    let qdd = internal("qdd");
    let inverse_dynamics = swept.then(|| {
        quote! {
            fn eval_inverse_dynamics_with<#scalar: #p::Scalar>(
                &self,
                #values: &[#scalar; #np],
                #x: &#p::Point<#scalar, #n, #m>,
                #qdd: &[#scalar; #n],
            ) -> [#scalar; #n] {
                let (bias, _) = Self::__lagrange_sweep(#values, #x, ::core::option::Option::Some(#qdd), true, ::core::option::Option::None);
                (-bias).into()
            }
        }
    });
    quote! {
        impl #p::Parametric<#n, #m, #np> for #name {
            const PARAMETERS: [&'static str; #np] = [#(#names),*];
            #parameter_units

            fn parameter_values(&self) -> [f64; #np] {
                [#(self.#fields),*]
            }

            #terms
            #inverse_dynamics
        }
    }
}

/// The struct's parameters as an array of the scalar `scalar` (an expression of a method
/// of `impl Model`), for the functions that take them as values: `__lagrange_sweep` and
/// `impl Parametric`'s `_with` forms.
fn lifted_parameters(l: &Lowered, scalar: &Ident) -> TokenStream {
    let p = private();
    let fields = l.parameters.iter().map(|x| &x.name);
    quote!(&[#(<#scalar as #p::From<f64>>::from(self.#fields)),*])
}

/// Beyond this many nodes of `Lowered`, `impl Model`'s terms call `impl Parametric`'s
/// ([`delegated_term_fns`]): the G1 humanoid (about 5 100) and the 16 `let`s of 120 terms of
/// `tests/common/large_model.rs` (6 500) are; the Solo-12 (1 900) is not.
const DELEGATE_ABOVE: usize = 4_000;

/// `Model`'s terms, `eval_energies`, `eval_dissipation`, `eval_forces` and
/// `eval_constraints`: those of `Parametric` ([`term_fns`]) at the model's parameters, so
/// that the terms are written once (a model of 60 `let`s of 120 terms: 2.6 MB of tokens for
/// each copy of its energies, every one type-checked and borrow-checked).
fn delegated_term_fns(l: &Lowered) -> TokenStream {
    let (n, m, np) = (l.coordinates.len(), l.inputs.len(), l.parameters.len());
    let p = private();
    let [d, f, x, apply, level] = ["__D", "__F", "x", "apply", "level"].map(internal);
    let point = point_type(l, &d);
    let values = lifted_parameters(l, &d);
    let with = quote!(<Self as #p::Parametric<#n, #m, #np>>);
    let dissipation = l.dissipation.is_some().then(|| {
        quote! {
            #[inline]
            fn eval_dissipation<#d: #p::Scalar>(&self, #x: &#point) -> #d {
                #with::eval_dissipation_with(self, #values, #x)
            }
        }
    });
    let forces = (!l.forces.is_empty()).then(|| {
        quote! {
            #[inline]
            fn eval_forces<#d: #p::Scalar, #f: #p::FnMut(#d, #d)>(&self, #x: &#point, #apply: #f) {
                #with::eval_forces_with(self, #values, #x, #apply)
            }
        }
    });
    let constraints = (!l.constraints.is_empty()).then(|| {
        quote! {
            #[inline]
            fn eval_constraints<#d: #p::Scalar, #f: #p::FnMut(usize, #d)>(
                &self,
                #level: #p::Level,
                #x: &#point,
                #apply: #f,
            ) {
                #with::eval_constraints_with(self, #level, #values, #x, #apply)
            }
        }
    });
    quote! {
        #[inline]
        fn eval_energies<#d: #p::Scalar>(&self, #x: &#point) -> #p::Energies<#d> {
            #with::eval_energies_with(self, #values, #x)
        }
        #dissipation
        #forces
        #constraints
    }
}

/// The model's terms as functions generic over the number type, each taking a `Point`:
/// `eval_energies`, `eval_dissipation`, `eval_forces` and `eval_constraints`, or with
/// `parametric` their `_with` forms taking the parameters as an array first.
fn term_fns(l: &Lowered, parametric: bool) -> TokenStream {
    let np = l.parameters.len();
    let p = private();
    let [d, f, x, apply, pa] = ["__D", "__F", "x", "apply", "parameters"].map(internal);
    let point = point_type(l, &d);
    let args = if parametric {
        quote!(&self, #pa: &[#d; #np], #x: &#point)
    } else {
        quote!(&self, #x: &#point)
    };
    let unpack = unpack_point(&x);
    let suffix = if parametric { "_with" } else { "" };
    let fn_name = |base: &str| Ident::new(&format!("{base}{suffix}"), Span::call_site());
    let allow = quote!(#[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]);

    let mut g = Gen::new(l, parametric);
    let kinetic = lift(g.primal(l.kinetic));
    let potential = match l.potential {
        Some(v) => lift(g.primal(v)),
        None => quote!(<#d as #p::From<f64>>::from(0.0)),
    };
    let energies = g.body(quote!(#p::Energies { kinetic: #kinetic, potential: #potential }));
    let eval_energies = fn_name("eval_energies");

    let dissipation = l.dissipation.map(|e| {
        let mut g = Gen::new(l, parametric);
        let v = g.primal(e);
        let body = g.body(lift(v));
        let eval_dissipation = fn_name("eval_dissipation");
        quote! {
            #allow
            #[inline]
            fn #eval_dissipation<#d: #p::Scalar>(#args) -> #d { #unpack #body }
        }
    });

    let forces = (!l.forces.is_empty()).then(|| {
        let mut g = Gen::new(l, parametric);
        let calls: Vec<TokenStream> = l
            .forces
            .iter()
            .map(|force| {
                let (fv, v) = (lift(g.primal(force.force)), lift(g.primal(force.velocity)));
                quote!(#apply(#fv, #v);)
            })
            .collect();
        let body = g.body(quote!(#(#calls)*));
        let eval_forces = fn_name("eval_forces");
        quote! {
            #allow
            #[inline]
            fn #eval_forces<#d: #p::Scalar, #f: #p::FnMut(#d, #d)>(#args, mut #apply: #f) { #unpack #body }
        }
    });

    let constraints = constraints_fn(l, &allow, parametric);
    quote! {
        #allow
        #[inline]
        fn #eval_energies<#d: #p::Scalar>(#args) -> #p::Energies<#d> { #unpack #energies }

        #dissipation
        #forces
        #constraints
    }
}

/// `const UNITS` of `impl Dynamics` when the model declares units; nothing otherwise.
fn units_const(units: Option<&ModelUnits>) -> TokenStream {
    let Some(units) = units else {
        return TokenStream::new();
    };
    let p = private();
    let (n, m) = (units.coordinates.len(), units.inputs.len());
    let coordinates = units.coordinates.iter().map(Unit::text);
    let velocities = units.coordinates.iter().map(|u| u.per_second().text());
    let inputs = units.inputs.iter().map(Unit::text);
    quote! {
        const UNITS: ::core::option::Option<#p::Units<#n, #m>> =
            ::core::option::Option::Some(#p::Units {
                coordinates: [#(#coordinates),*],
                velocities: [#(#velocities),*],
                inputs: [#(#inputs),*],
            });
    }
}

/// `eval_constraints` (or `eval_constraints_with`): each constraint as written at
/// `Level::Position`; at `Level::Velocity` holonomic ones differentiated along the motion
/// (their tangent's `eps`) and nonholonomic ones as written.
fn constraints_fn(l: &Lowered, allow: &TokenStream, parametric: bool) -> Option<TokenStream> {
    if l.constraints.is_empty() {
        return None;
    }
    let p = private();
    let [d, f, apply, level, x, pa] =
        ["__D", "__F", "apply", "level", "x", "parameters"].map(internal);
    let np = l.parameters.len();
    let mut position = Gen::new(l, parametric);
    let calls: Vec<TokenStream> = l
        .constraints
        .iter()
        .enumerate()
        .map(|(k, constraint)| {
            let v = lift(position.primal(constraint.value));
            quote!(#apply(#k, #v);)
        })
        .collect();
    let position = position.body(quote!(#(#calls)*));
    let mut velocity = Gen::new(l, parametric);
    let calls: Vec<TokenStream> = l
        .constraints
        .iter()
        .enumerate()
        .map(|(k, constraint)| {
            let v = if constraint.holonomic {
                let v = velocity.tangent(constraint.value);
                quote!((#v).eps)
            } else {
                lift(velocity.primal(constraint.value))
            };
            quote!(#apply(#k, #v);)
        })
        .collect();
    let velocity = velocity.body(quote!(#(#calls)*));
    let (name, parameters) = if parametric {
        (quote!(eval_constraints_with), quote!(#pa: &[#d; #np],))
    } else {
        (quote!(eval_constraints), quote!())
    };
    let point = point_type(l, &d);
    let unpack = unpack_point(&x);
    Some(quote! {
        #allow
        #[inline]
        fn #name<#d: #p::Scalar, #f: #p::FnMut(usize, #d)>(
            &self,
            #level: #p::Level,
            #parameters
            #x: &#point,
            mut #apply: #f,
        ) {
            #unpack
            match #level {
                #p::Level::Position => { #position }
                #p::Level::Velocity => { #velocity }
            }
        }
    })
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// An `f64` that does not change with the state.
    Const,
    /// A value of the generic dual type (or of its tangent type).
    Var,
}

/// A value in the generated code and its kind.
type Code = (TokenStream, Kind);

/// Generates the body of one function: it is asked for the nodes it returns, in primal
/// (`D`) or tangent (`Dual<D>`) form, and emits exactly the nodes those need, one local
/// each, in graph order (operands first).
struct Gen<'l> {
    l: &'l Lowered,
    /// Parameters are variables taken from the `parameters` array (for differentiation)
    /// rather than `f64` constants read from `self`.
    parametric: bool,
    kind: Vec<Kind>,
    primal: Vec<bool>,
    tangent: Vec<bool>,
}

impl<'l> Gen<'l> {
    fn new(l: &'l Lowered, parametric: bool) -> Self {
        let mut kind = Vec::with_capacity(l.ir.len());
        for id in 0..l.ir.len() {
            let k = match l.ir.op(id) {
                Op::Lit(_) => Kind::Const,
                Op::Param(_) if !parametric => Kind::Const,
                Op::Param(_) | Op::Coord(_) | Op::Input(_) | Op::Vel(_) | Op::Time | Op::Dot(_) => {
                    Kind::Var
                }
                op => {
                    if op.operands().iter().all(|&a| kind[a] == Kind::Const) {
                        Kind::Const
                    } else {
                        Kind::Var
                    }
                }
            };
            kind.push(k);
        }
        let n = l.ir.len();
        Gen {
            l,
            parametric,
            kind,
            primal: vec![false; n],
            tangent: vec![false; n],
        }
    }

    /// Whether a node has a tangent form of its own: a variable that changes along the
    /// motion. Anything else enters tangent code as its primal value, lifted.
    fn moves(&self, id: Id) -> bool {
        self.kind[id] == Kind::Var && self.l.ir.deps(id).moves()
    }

    /// A node's value of type `D` (or `f64` for a constant), to be used in the tail.
    fn primal(&mut self, id: Id) -> Code {
        self.primal[id] = true;
        self.reference(id, false)
    }

    /// A node's value in the tangent type `Dual<D>`: its `eps` is the time derivative.
    fn tangent(&mut self, id: Id) -> TokenStream {
        if !self.moves(id) {
            self.primal[id] = true;
            let (p, v) = (private(), self.reference(id, false).0);
            return quote!(#p::Dual::from_re(#p::From::from(#v)));
        }
        self.tangent[id] = true;
        self.reference(id, true).0
    }

    fn reference(&self, id: Id, tangent: bool) -> Code {
        if let Some(v) = self.l.ir.op(id).literal() {
            return (float(v, Span::call_site()), Kind::Const);
        }
        let kind = self.kind[id];
        let name = if tangent && kind == Kind::Var {
            tangent_local(id)
        } else {
            primal_local(id)
        };
        (quote!(#name), kind)
    }

    /// Marks what every needed node needs, from the last node back to the first.
    fn mark(&mut self) {
        for id in (0..self.l.ir.len()).rev() {
            let op = self.l.ir.op(id);
            if self.tangent[id] {
                for a in op.operands() {
                    if !self.moves(a) {
                        self.primal[a] = true;
                    } else {
                        self.tangent[a] = true;
                    }
                }
            }
            // A node with a tangent takes its primal value from it (`.re`, in `body`), not
            // from its operands' primal values.
            if self.primal[id] && !self.tangent[id] {
                match op {
                    Op::Dot(a) => {
                        self.tangent[a] = true;
                    }
                    op => {
                        for a in op.operands() {
                            self.primal[a] = true;
                        }
                    }
                }
            }
        }
    }

    /// The statements computing every needed node, then `tail`.
    fn body(&mut self, tail: TokenStream) -> TokenStream {
        self.mark();
        // Every local is declared by one `let` ([`declare`]) and assigned once below.
        // The types are written out: left to inference, each local's type would be a
        // variable whose obligations stay pending, and type checking such a function grows
        // with the square of its size (20 `let`s of 120 terms: 41 s of `cargo check`).
        let (mut names, mut types, mut statements) = (Vec::new(), Vec::new(), Vec::new());
        let (p, d) = (private(), internal("__D"));
        for id in 0..self.l.ir.len() {
            if self.l.ir.op(id).literal().is_some() {
                continue;
            }
            if self.tangent[id] {
                let name = tangent_local(id);
                let (code, reads) = self.code(id, true);
                statements.push(Stmt::assign(vec![name.clone()], code, reads));
                names.push(name);
                types.push(quote!(#p::Dual<#d>));
            }
            if self.primal[id] {
                let name = primal_local(id);
                let (code, reads) = if self.tangent[id] {
                    let t = tangent_local(id);
                    (quote!(#t.re), vec![t])
                } else {
                    self.code(id, false)
                };
                statements.push(Stmt::assign(vec![name.clone()], code, reads));
                names.push(name);
                types.push(if self.kind[id] == Kind::Const {
                    quote!(f64)
                } else {
                    quote!(#d)
                });
            }
        }
        let declaration = declare(&names, &types);
        quote! {
            #declaration
            #(#statements)*
            #tail
        }
    }

    /// The expression computing node `id` in primal or tangent form, and the locals it reads.
    fn code(&self, id: Id, tangent: bool) -> (TokenStream, Vec<Ident>) {
        let p = private();
        let [t, q, qd, u, pa] = ["t", "q", "qd", "u", "parameters"].map(internal);
        let reads = std::cell::RefCell::new(Vec::new());
        let r = |a: Id| {
            let a_tangent = tangent && self.moves(a);
            let lifted = tangent && !a_tangent && self.kind[a] == Kind::Var;
            let (v, kind) = self.reference(a, a_tangent && !lifted);
            if self.l.ir.op(a).literal().is_none() {
                reads.borrow_mut().push(if a_tangent && kind == Kind::Var {
                    tangent_local(a)
                } else {
                    primal_local(a)
                });
            }
            if lifted {
                return (quote!(#p::Dual::from_re(#v)), Kind::Var);
            }
            (v, kind)
        };
        let code = match self.l.ir.op(id) {
            Op::Lit(bits) => float(f64::from_bits(bits), Span::call_site()),
            Op::Param(i) if self.parametric => quote!(#pa[#i]),
            Op::Param(i) => {
                let field = &self.l.parameters[i].name;
                quote!(self.#field)
            }
            Op::Coord(i) if tangent => quote!(#p::tangent(#q[#i], #qd[#i])),
            Op::Coord(i) => quote!(#q[#i]),
            Op::Input(i) => quote!(#u[#i]),
            Op::Time if tangent => quote!(#p::tangent(#t, #p::From::from(1.0))),
            Op::Time => quote!(#t),
            Op::Neg(a) => {
                let (v, _) = r(a);
                quote!(-#v)
            }
            Op::Add(a, b) => combine(Binary::Add, r(a), r(b)).0,
            Op::Sub(a, b) => combine(Binary::Sub, r(a), r(b)).0,
            Op::Mul(a, b) => combine(Binary::Mul, r(a), r(b)).0,
            Op::Div(a, b) => combine(Binary::Div, r(a), r(b)).0,
            Op::Unary(Jet1::Named(f), a) => {
                let (v, _) = r(a);
                let f = unary_fn(f);
                quote!(#p::functions::#f(#v))
            }
            Op::Unary(Jet1::Powi(n), a) => {
                let (v, _) = r(a);
                let n = Literal::i32_unsuffixed(n);
                quote!(#p::functions::powi(#v, #n))
            }
            Op::Binary(Jet2::Powd, a, b) => match (r(a), r(b)) {
                ((x, _), (e, Kind::Const)) => quote!(#p::functions::powf(#x, #e)),
                (x, (e, Kind::Var)) => {
                    let x = lift(x);
                    quote!(#p::functions::powd(#x, #e))
                }
            },
            Op::Binary(Jet2::Atan2, a, b) => {
                let (y, x) = (r(a), r(b));
                let (y, x) = if y.1 == Kind::Const && x.1 == Kind::Const {
                    (y.0, x.0)
                } else {
                    (lift(y), lift(x))
                };
                quote!(#p::functions::atan2(#y, #x))
            }
            Op::Dot(a) => {
                let v = tangent_local(a);
                reads.borrow_mut().push(v.clone());
                quote!(#v.eps)
            }
            // The derivative construction's operations (`graph.rs`): never in the lowered
            // form this generator reads.
            Op::Vel(_) | Op::D1(_) | Op::P1(..) | Op::Unary(Jet1::Recip | Jet1::Powf(_), _) => {
                unreachable!("{:?} is not in the lowered form", self.l.ir.op(id))
            }
        };
        (code, reads.into_inner())
    }
}

fn primal_local(id: Id) -> Ident {
    internal(&format!("__n{id}"))
}

fn tangent_local(id: Id) -> Ident {
    internal(&format!("__t{id}"))
}

/// A constant turned into the dual type the context expects.
fn lift((v, kind): Code) -> TokenStream {
    match kind {
        Kind::Var => v,
        Kind::Const => {
            let p = private();
            quote!(<_ as #p::From<f64>>::from(#v))
        }
    }
}

#[derive(Clone, Copy)]
enum Binary {
    Add,
    Sub,
    Mul,
    Div,
}

/// `a op b` where either side may be a constant: constants stay `f64` and go on the
/// side of the operator the dual type implements.
fn combine(op: Binary, (a, ka): Code, (b, kb): Code) -> Code {
    let p = private();
    use Binary::*;
    use Kind::*;
    let code = match (op, ka, kb) {
        (Add, Const, Var) => quote!((#b + #a)),
        (Mul, Const, Var) => quote!((#b * #a)),
        (Sub, Const, Var) => quote!((-#b + #a)),
        (Div, Const, Var) => quote!(#p::functions::divide_constant(#a, #b)),
        (Add, ..) => quote!((#a + #b)),
        (Sub, ..) => quote!((#a - #b)),
        (Mul, ..) => quote!((#a * #b)),
        (Div, ..) => quote!((#a / #b)),
    };
    let kind = if ka == Const && kb == Const {
        Const
    } else {
        Var
    };
    (code, kind)
}
