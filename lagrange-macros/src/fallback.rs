//! What is emitted next to the errors of a model that failed its checks: the same data
//! types as a successful expansion and a stub `impl Dynamics`, so that code using the
//! model reports nothing beyond the real errors.

use crate::ast::{Model, Parameter, Statement};
use crate::expand;
use syn::Ident;

pub fn fallback(model: &Model) -> proc_macro2::TokenStream {
    let mut parameters: Vec<&Parameter> = Vec::new();
    let mut coordinates: Vec<&Ident> = Vec::new();
    let mut inputs: Vec<&Ident> = Vec::new();
    for statement in &model.statements {
        match statement {
            Statement::Parameters(items) => parameters.extend(items),
            Statement::Coordinates(names) => coordinates.extend(names),
            Statement::Inputs(names) => inputs.extend(names),
            _ => {}
        }
    }
    // A name declared twice is already an error; emitting it twice would add rustc's own.
    let mut seen = Vec::new();
    let mut first = |name: &Ident| {
        let fresh = !seen.contains(name);
        seen.push(name.clone());
        fresh
    };
    parameters.retain(|p| first(&p.name));
    coordinates.retain(|c| first(c));
    inputs.retain(|i| first(i));
    let mut out = expand::data_types(model, &parameters, &coordinates, &inputs);
    out.extend(expand::dynamics_stub(
        model,
        coordinates.len(),
        inputs.len(),
    ));
    out
}
