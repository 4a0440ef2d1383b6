//! What is emitted next to the errors of a model that failed its checks: the same data
//! types as a successful expansion and a stub `impl Model`, so that code using the model
//! reports nothing beyond the real errors.

use crate::ast::Header;
use crate::check::key;
use crate::expand;
use crate::lower::{Let, Lowered, Parameter};
use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

pub fn fallback(l: &Lowered) -> TokenStream {
    // A name declared twice is already an error; emitting it twice would add rustc's own.
    let mut seen = Vec::new();
    let mut first = |name: &Ident| {
        let name = key(name);
        let fresh = !seen.contains(&name);
        seen.push(name);
        fresh
    };
    let parameters: Vec<Parameter> = l
        .parameters
        .iter()
        .filter(|p| first(&p.name))
        .map(|p| Parameter {
            name: p.name.clone(),
            default: p.default,
        })
        .collect();
    let coordinates: Vec<Ident> = l.coordinates.iter().filter(|c| first(c)).cloned().collect();
    let inputs: Vec<Ident> = l.inputs.iter().filter(|i| first(i)).cloned().collect();
    let lets: Vec<Let> = l
        .lets
        .iter()
        .filter(|x| first(&x.name))
        .map(|x| Let {
            name: x.name.clone(),
            text: x.text.clone(),
            value: x.value.clone(),
        })
        .collect();
    let (n, m) = (coordinates.len(), inputs.len());
    let mut out = expand::data_types(
        &l.header,
        &parameters,
        &coordinates,
        &inputs,
        &lets,
        (&l.ir, &l.degree),
        None,
    );
    // A constraint statement with an error counts as one constraint.
    let k = l.constraints.len() + l.failed_constraints;
    out.extend(stubs(&l.header, n, m, k));
    out
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
