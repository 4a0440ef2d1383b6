//! The model's named types: the struct with its parameters and constructor, the named
//! coordinates and inputs, the struct of the `let`s' values and of their Jacobians.

use super::local;
use crate::ast::Header;
use crate::check::key;
use crate::ir::{Deps, Ir};
use crate::lower::{Degree, Lowered, Parameter, Value};
use crate::names::{float, internal, private};
use crate::typing::{ModelUnits, Shape};
use crate::units::Unit;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

/// A `let` as the generated types show it.
pub struct LetFace<'l> {
    pub name: &'l Ident,
    /// The expression as written.
    pub text: &'l str,
    /// Its shape (a scalar where it has an error).
    pub shape: Shape,
    /// Whether it has a Jacobian, and at which level ([`jacobian_level`]).
    pub jacobian: Option<bool>,
}

impl LetFace<'_> {
    /// The `let`s of a lowered model as the generated types show them.
    pub fn of(l: &Lowered) -> Vec<LetFace<'_>> {
        l.lets
            .iter()
            .map(|lt| LetFace {
                name: &lt.name,
                text: &lt.text,
                shape: lt.value.as_ref().map_or(Shape::Scalar, |v| v.shape),
                jacobian: jacobian_level(lt.value.as_ref(), (&l.ir, &l.degree)),
            })
            .collect()
    }
}

/// The model struct with its constructor, and the structs naming coordinates and inputs.
pub fn data_types(
    header: &Header,
    parameters: &[Parameter],
    coordinates: &[Ident],
    inputs: &[Ident],
    lets: &[LetFace],
    units: Option<&ModelUnits>,
) -> TokenStream {
    let items = [
        model_struct(header, parameters, units.map(|u| &u.parameters[..])),
        named_vector(header, "Coordinates", coordinates, "coordinates"),
        named_vector(header, "Inputs", inputs, "inputs"),
        lets_struct(header, lets),
        jacobians_struct(header, lets, coordinates.len()),
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

/// The beginning of a `let`'s doc: `` `let name = source;` ``, or for a long source its
/// first [`crate::ast::QUOTED`] characters (cut where the text is made, so that a long
/// one is never written out). A URDF robot's `let`s are sums over its
/// links, whose source grows with the square of a chain's length: quoted whole, the docs
/// of a 200-link chain's fields were 45 MB of its 60 MB of generated code (19.5 MB of 32.5
/// MB before its centroidal `let`s), tokens that rustc reads and keeps in the crate's
/// metadata for nobody to read.
fn let_doc(l: &LetFace) -> String {
    let name = key(l.name);
    match l.text.strip_suffix('…') {
        Some(start) => format!("`let {name} = {start} …`"),
        None => format!("`let {name} = {};`", l.text),
    }
}

/// `NameLets`: one field per `let`, typed by its shape (`f64` where the let has an error).
fn lets_struct(header: &Header, lets: &[LetFace]) -> TokenStream {
    let (name, vis) = (&header.name, &header.vis);
    let ty = lets_type(header);
    let fields = lets.iter().map(|l| l.name);
    let types = lets.iter().map(|l| rust_type(l.shape));
    let docs = lets.iter().map(|l| format!("{}.", let_doc(l)));
    let doc = format!(
        "The `let`s of [`{name}`] by name, typed by their shapes: what [`{name}::lets`] returns."
    );
    // Every scalar of the lets by name: `x1`, `p2[0]`, `R[0][1]` (no commas: the names are
    // CSV column headers).
    let (mut scalar_names, mut scalars) = (Vec::new(), Vec::new());
    for l in lets {
        let (plain, field) = (key(l.name), l.name);
        match l.shape {
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

/// Whether a `let` has a Jacobian (`lagrange_runtime::jacobian`) and at which level:
/// `Some(false)` at position level (no velocities in it), `Some(true)` at velocity level
/// (affine in q̇); `None` for a matrix, a value that is not affine in q̇, or an error.
pub(super) fn jacobian_level(
    value: Option<&Value>,
    (ir, degree): (&Ir, &[Degree]),
) -> Option<bool> {
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
fn jacobians_struct(header: &Header, lets: &[LetFace], n: usize) -> TokenStream {
    let (name, vis) = (&header.name, &header.vis);
    let ty = jacobians_type(header);
    let p = private();
    let (mut fields, mut types, mut docs) = (Vec::new(), Vec::new(), Vec::new());
    for l in lets {
        let Some(velocity) = l.jacobian else {
            continue;
        };
        let rows = match l.shape {
            Shape::Vector(n) => n,
            _ => 1,
        };
        fields.push(l.name);
        types.push(quote!(#p::jacobian::Jacobian<#rows, #n>));
        let (matrix, drift) = if velocity {
            ("∂/∂q̇", "∂/∂q q̇ + ∂/∂t")
        } else {
            ("∂/∂q", "the acceleration at q̈ = 0")
        };
        docs.push(format!(
            "{}: `matrix` {matrix}, `drift` {drift}.",
            let_doc(l)
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
