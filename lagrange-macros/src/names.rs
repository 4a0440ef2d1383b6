//! The names and literals of the generated code, shared by every generator (`expand`,
//! `fast`, `sweep`): a leaf that imports no other stage, so that the generators depend on
//! it and never on each other.

use crate::func::Unary;
use proc_macro2::{Literal, Span, TokenStream};
use quote::quote;
use syn::Ident;

/// An identifier of the generated code that user code can never see or shadow.
pub(crate) fn internal(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// The path of the runtime's items for generated code.
pub(crate) fn private() -> TokenStream {
    quote!(::lagrange_runtime::__private)
}

/// The runtime function of a unary function (`functions::sin`, `jet::sin`, …).
pub(crate) fn unary_fn(f: Unary) -> Ident {
    Ident::new(f.name(), Span::call_site())
}

/// An `f64` literal at the user's span.
pub(crate) fn float(value: f64, span: Span) -> TokenStream {
    let mut lit = Literal::f64_suffixed(value.abs());
    lit.set_span(span);
    if value.is_sign_negative() {
        quote!((-#lit))
    } else {
        quote!(#lit)
    }
}

/// The locals holding parameter, input, coordinate and velocity `i` (also the sweep's).
pub(crate) fn parameter(i: usize) -> Ident {
    internal(&format!("__p{i}"))
}
pub(crate) fn input(i: usize) -> Ident {
    internal(&format!("__u{i}"))
}
pub(crate) fn coordinate(i: usize) -> Ident {
    internal(&format!("__q{i}"))
}
pub(crate) fn velocity(i: usize) -> Ident {
    internal(&format!("__qd{i}"))
}
