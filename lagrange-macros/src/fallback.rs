//! What is emitted next to the errors of a model that failed its checks: the same data
//! types as a successful expansion and a stub `impl Dynamics`, so that code using the
//! model reports nothing beyond the real errors.

use crate::ast::{Model, Statement};
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
    let mut out = expand::data_types(l.model, &parameters, &coordinates, &inputs, &lets, None);
    out.extend(stubs(l.model, n, m, constraint_count(l)));
    out
}

/// The number of scalar constraints, counting a constraint statement with an error as one.
fn constraint_count(l: &Lowered) -> usize {
    let failed = l
        .model
        .statements
        .iter()
        .filter(|s| match s {
            Statement::Constraint { name, .. } => {
                let plain = key(name);
                let element = format!("{plain}[");
                !l.constraints
                    .iter()
                    .any(|c| c.name == plain || c.name.starts_with(&element))
            }
            _ => false,
        })
        .count();
    l.constraints.len() + failed
}

/// `Dynamics` and `Model` (and, with constraints, `Constrained` and `ConstraintSolver`)
/// impls that are never compiled into a program: code using the model through these
/// traits reports nothing beyond the real errors.
fn stubs(model: &Model, n: usize, m: usize, k: usize) -> TokenStream {
    let name = &model.name;
    let lets = expand::lets_type(model);
    let p = quote!(::lagrange_runtime::__private);
    let stub = quote!({ ::core::unreachable!() });
    let d = quote!(__D);
    let params = quote!(_t: #d, _q: &[#d; #n], _qd: &[#d; #n], _u: &[#d; #m]);
    let coordinates = vec![quote!("?"); n];
    let inputs = vec![quote!("?"); m];
    let s = quote!(_s: &#p::State<#n>);
    let u = quote!(_u: &#p::SVector<f64, #m>);
    let vector = quote!(#p::SVector<f64, #n>);
    let mut out = quote! {
        impl #p::Dynamics<#n, #m> for #name {
            const COORDINATES: [&'static str; #n] = [#(#coordinates),*];
            const INPUTS: [&'static str; #m] = [#(#inputs),*];
            fn lagrangian(&self, #s, #u) -> f64 #stub
            fn energy(&self, #s, #u) -> f64 #stub
            fn momenta(&self, #s, #u) -> #vector #stub
            fn mass_matrix(&self, #s, #u) -> #p::SMatrix<f64, #n, #n> #stub
            fn generalized_forces(&self, #s, #u) -> #vector #stub
            fn accelerations(&self, #s, #u) -> #p::Result<#vector, #p::DynamicsError> #stub
            fn inverse_dynamics(&self, #s, _qdd: &#vector, #u) -> #vector #stub
            fn kinetic_energy(&self, #s, #u) -> f64 #stub
            fn potential_energy(&self, #s, #u) -> f64 #stub
            fn dissipation(&self, #s, #u) -> f64 #stub
        }
        impl #name {
            /// Not generated: the model has errors.
            pub fn lets(&self, #s, #u) -> #lets #stub
            /// Not generated: the model has errors.
            pub fn lets_along(&self, _t: &#p::simulate::Trajectory<#n, #m>) -> ::std::vec::Vec<#lets> #stub
        }
        impl #p::Model<#n, #m> for #name {
            const COORDINATES: [&'static str; #n] = [#(#coordinates),*];
            const INPUTS: [&'static str; #m] = [#(#inputs),*];
            fn eval_lagrangian<#d: #p::Scalar>(&self, #params) -> #d #stub
        }
    };
    if k > 0 {
        let names = vec![quote!("?"); k];
        out.extend(quote! {
            impl #p::Constrained<#n, #m, #k> for #name {
                const CONSTRAINTS: [&'static str; #k] = [#(#names),*];
                fn constraint_residuals(&self, #s, #u) -> #p::SVector<f64, #k> #stub
                fn multipliers(&self, #s, #u)
                    -> #p::Result<#p::SVector<f64, #k>, #p::DynamicsError> #stub
            }
            impl #p::ConstraintSolver<#n, #m> for #name {
                fn stabilized_accelerations(&self, #s, #u, _b: #p::constrained::Stabilization)
                    -> #p::Result<#p::SVector<f64, #n>, #p::DynamicsError> #stub
                fn project(&self, #s, #u, _h: &[usize], _t: f64)
                    -> #p::Result<#p::State<#n>, #p::DynamicsError> #stub
                fn violation(&self, #s, #u) -> #p::constrained::Violation #stub
                fn reaction_forces(&self, #s, #u)
                    -> #p::Result<#p::SVector<f64, #n>, #p::DynamicsError> #stub
                fn rattle_step(&self, _r: &#p::simulate::Rattle, #s, _p: &#p::SVector<f64, #n>,
                    #u, _t: f64)
                    -> #p::Result<(#p::State<#n>, #p::SVector<f64, #n>), #p::simulate::StepError> #stub
            }
        });
    }
    out
}
