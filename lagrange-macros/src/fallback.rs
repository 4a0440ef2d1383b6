//! What is emitted next to the errors of a model that failed its checks: the struct and
//! its constructor, so that code using the model reports nothing beyond the real errors.

use crate::ast::{Model, Statement};
use proc_macro2::TokenStream;
use quote::quote;

pub fn fallback(model: &Model) -> TokenStream {
    let (name, vis, attrs) = (&model.name, &model.vis, &model.attrs);
    let params: Vec<_> = model
        .statements
        .iter()
        .filter_map(|s| match s {
            Statement::Parameters(items) => Some(items.iter().map(|p| &p.name)),
            _ => None,
        })
        .flatten()
        .collect();
    quote! {
        #(#attrs)*
        #[allow(non_snake_case, dead_code)]
        #vis struct #name { #( pub #params: f64, )* }

        #[allow(dead_code)]
        impl #name {
            #[allow(non_snake_case, clippy::too_many_arguments)]
            pub const fn new(#(#params: f64),*) -> Self {
                Self { #(#params),* }
            }
        }
    }
}
