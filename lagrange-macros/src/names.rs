//! The names, literals and runtime calls of the generated code, shared by every generator
//! (`expand`, `fast`, `sweep`, and `graph` and `emit`, which both equation generators
//! use): a leaf that imports no other stage, so that the generators depend on it and never
//! on each other.

use crate::func::Unary;
use crate::ir::{Jet1, Jet2};
use proc_macro2::{Literal, Span, TokenStream};
use quote::ToTokens;
use quote::{quote, quote_spanned};
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

/// An `f64` literal at the user's span. A value that is not finite (a product of huge
/// literals folded at compile time overflows, as it would at run time) is the constant of
/// `f64` that it is: a literal cannot hold it, and the runtime's checks report the
/// non-finite result it makes.
pub(crate) fn float(value: f64, span: Span) -> TokenStream {
    if value.is_nan() {
        return quote_spanned!(span=> ::core::f64::NAN);
    } else if value.is_infinite() {
        return if value > 0.0 {
            quote_spanned!(span=> ::core::f64::INFINITY)
        } else {
            quote_spanned!(span=> (-::core::f64::INFINITY))
        };
    }
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

/// The call of `f`'s jet at `a`, the exponent of a power given as code.
pub(crate) fn jet1_call(f: Jet1<TokenStream>, a: &impl ToTokens) -> TokenStream {
    let p = private();
    match f {
        Jet1::Named(f) => {
            let f = unary_fn(f);
            quote!(#p::jet::#f(#a))
        }
        Jet1::Recip => quote!(#p::jet::recip(#a)),
        Jet1::Powi(k) => {
            let k = Literal::i32_unsuffixed(k);
            quote!(#p::jet::powi(#a, #k))
        }
        Jet1::Powf(x) => quote!(#p::jet::powf(#a, #x)),
    }
}

/// The call of `f`'s jet at (`a`, `b`).
pub(crate) fn jet2_call(f: Jet2, a: &impl ToTokens, b: &impl ToTokens) -> TokenStream {
    let p = private();
    let name = match f {
        Jet2::Atan2 => quote!(atan2),
        Jet2::Powd => quote!(powd),
    };
    quote!(#p::jet::#name(#a, #b))
}
