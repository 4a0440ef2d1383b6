//! What is emitted next to the errors of a model that failed its checks: the same data
//! types as a successful expansion and a stub `impl Model`, so that code using the model
//! reports nothing beyond the real errors.

use crate::ast::{Header, Statement};
use crate::check::{key, Checked, Symbol};
use crate::expand::{self, LetFace};
use crate::lower::Parameter;
use crate::typing::{Shape, Typed};
use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

/// The items of a model with errors, from what checking and typing found.
pub fn fallback(c: &Checked, typed: &Typed) -> TokenStream {
    let header = &c.model.header;
    // A name declared twice is already an error; emitting it twice would add rustc's own.
    let mut seen = Vec::new();
    let mut first = |name: &Ident| {
        let name = key(name);
        let fresh = !seen.contains(&name);
        seen.push(name);
        fresh
    };
    let parameters: Vec<Parameter> = c
        .parameters
        .iter()
        .zip(&c.defaults)
        .filter(|(p, _)| first(&p.name))
        .map(|(p, &default)| Parameter {
            name: p.name.clone(),
            default,
        })
        .collect();
    let coordinates: Vec<Ident> = c
        .coordinates
        .iter()
        .map(|d| d.name.clone())
        .filter(|n| first(n))
        .collect();
    let inputs: Vec<Ident> = c
        .inputs
        .iter()
        .map(|d| d.name.clone())
        .filter(|n| first(n))
        .collect();
    let texts: Vec<(&Ident, String, Option<Shape>)> = c
        .model
        .statements
        .iter()
        .filter_map(|statement| match statement {
            Statement::Let { name, value } => {
                let shape = match c.symbol(name) {
                    Some(Symbol::Let(i)) => typed.lets[i].map(|t| t.shape),
                    _ => None,
                };
                Some((name, value.text_up_to(crate::ast::QUOTED), shape))
            }
            _ => None,
        })
        .collect();
    // Every scalar or vector `let` that has a type has a Jacobian here: a field too many
    // costs the user nothing, one too few an error of its own.
    let lets: Vec<LetFace> = texts
        .iter()
        .filter(|(name, ..)| first(name))
        .map(|(name, text, shape)| LetFace {
            name,
            text,
            shape: shape.unwrap_or(Shape::Scalar),
            jacobian: shape
                .filter(|s| !matches!(s, Shape::Matrix(..)))
                .map(|_| false),
        })
        .collect();
    let (n, m) = (coordinates.len(), inputs.len());
    let contacts: Vec<expand::ContactFace> = c
        .model
        .statements
        .iter()
        .filter_map(|statement| match statement {
            Statement::Contact { name, rotation, .. } if first(name) => Some(expand::ContactFace {
                name,
                rows: if rotation.is_some() { 6 } else { 3 },
            }),
            _ => None,
        })
        .collect();
    let mut out = expand::data_types(header, &parameters, &coordinates, &inputs, &lets, None);
    out.extend(expand::contact_types(header, &contacts));
    out.extend(stubs(header, n, m, typed.constraints));
    out.extend(contact_stubs(header, n, m, !contacts.is_empty()));
    out
}

/// `contact_dynamics`, `contact_dynamics_with` and `impulse_dynamics` of a model with
/// contacts and errors.
fn contact_stubs(header: &Header, n: usize, m: usize, any: bool) -> TokenStream {
    if !any {
        return TokenStream::new();
    }
    let name = &header.name;
    let (active, forces) = (
        expand::contacts_type(header),
        expand::contact_forces_type(header),
    );
    let p = quote!(::lagrange_runtime::__private);
    let stub = quote!({ ::core::unreachable!() });
    let s = quote!(_s: &#p::State<#n>);
    let result = quote!(#p::Result<#p::contact::ContactDynamics<#n, #forces>, #p::DynamicsError>);
    quote! {
        impl #name {
            /// Not generated: the model has errors.
            pub fn contact_dynamics(&self, #s, _u: &#p::SVector<f64, #m>, _a: &#active) -> #result #stub
            /// Not generated: the model has errors.
            pub fn contact_dynamics_with(&self, #s, _u: &#p::SVector<f64, #m>, _a: &#active, _c: &#p::contact::ContactSettings) -> #result #stub
            /// Not generated: the model has errors.
            pub fn impulse_dynamics(&self, #s, _a: &#active, _e: f64) -> #p::Result<(#p::State<#n>, #forces), #p::DynamicsError> #stub
            /// Not generated: the model has errors.
            pub fn linearize_contacts(&self, #s, _u: &#p::SVector<f64, #m>, _a: &#active) -> #p::Result<#p::linearize::Linearization<#n, #m>, #p::DynamicsError> #stub
        }
    }
}

/// A `Model` impl that is never compiled into a program (the blanket impls of the
/// runtime give it `Dynamics` and, with its constraint count, `Constrained`), and the
/// inherent `lets` and `jacobians` methods: code using the model reports nothing beyond the real errors.
fn stubs(header: &Header, n: usize, m: usize, k: usize) -> TokenStream {
    let name = &header.name;
    let lets = expand::lets_type(header);
    let jacobians = expand::jacobians_type(header);
    let p = quote!(::lagrange_runtime::__private);
    let stub = quote!({ ::core::unreachable!() });
    let s = quote!(_s: &#p::State<#n>);
    quote! {
        impl #name {
            /// Not generated: the model has errors.
            pub fn lets(&self, #s, _u: &#p::SVector<f64, #m>) -> #lets #stub
            /// Not generated: the model has errors.
            pub fn lets_along(&self, _t: &#p::simulate::Trajectory<#n, #m>) -> ::std::vec::Vec<#lets> #stub
            /// Not generated: the model has errors.
            pub fn jacobians(&self, #s, _u: &#p::SVector<f64, #m>) -> #jacobians #stub
            /// Not generated: the model has errors.
            pub fn jacobians_along(&self, _t: &#p::simulate::Trajectory<#n, #m>) -> ::std::vec::Vec<#jacobians> #stub
        }
        impl #p::Model<#n, #m> for #name {
            const COORDINATES: [&'static str; #n] = ["?"; #n];
            const INPUTS: [&'static str; #m] = ["?"; #m];
            const CONSTRAINT_NAMES: &'static [&'static str] = &["?"; #k];
            type Constraints = #p::Count<#k>;
            fn eval_energies<D: #p::Scalar>(&self, _x: &#p::Point<D, #n, #m>) -> #p::Energies<D> #stub
        }
    }
}
