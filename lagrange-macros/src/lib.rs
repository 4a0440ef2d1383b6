//! The `lagrangian!` procedural macro. Use it through `lagrange-runtime`, which re-exports
//! it together with the traits the generated code implements.
//!
//! The pipeline is `parse` (tokens → syntax tree with spans), `urdf` (a robot's file
//! replaced by the statements it declares), `check` (names and scopes), `typing` (the
//! shape and, when the declarations carry units, the physical dimension of every
//! expression, in one walk; the SI units themselves are in `units`), `lower` (vectors and
//! matrices lowered to one graph of scalar operations, the resolved form every later stage
//! reads, and the rules on what a quantity depends on, decided on that graph) and
//! `expand` (code generation
//! from that graph; `graph` is the form of it that `fast`, forward-mode AD unrolled at
//! compile time, and `sweep`, forward-over-reverse AD as straight-line code, both
//! differentiate; `chunk` splits a large sweep into functions for the cost of building
//! it). The functions of the language are one enum in `func`, the statement
//! keywords one in `ast`. Every error is spanned and all of a model's errors are reported
//! together; when there are any, `fallback` still emits the model's struct so that the
//! user sees the real errors and not a cascade of missing-type errors.

/// An enum of the names of the language (functions, built-in names, statement keywords)
/// from one table: the variants, their list `all()`, `name()` and `from_name()`, so that a
/// name added to the table is everywhere at once. A leading `Variant(Type),` line nests
/// another such enum (`Func::Unary(Unary)`), whose names come first.
macro_rules! names {
    (
        $(#[$attr:meta])*
        pub enum $enum:ident {
            $(#[$nattr:meta])*
            $nested:ident($inner:ident),
            $($(#[$vattr:meta])* $variant:ident = $text:literal,)*
        }
    ) => {
        $(#[$attr])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum $enum {
            $(#[$nattr])*
            $nested($inner),
            $($(#[$vattr])* $variant,)*
        }

        impl $enum {
            /// Every name, in the order of the table (error messages list them so).
            pub fn all() -> impl Iterator<Item = $enum> {
                $inner::all().map($enum::$nested).chain([$($enum::$variant,)*])
            }

            pub fn name(self) -> &'static str {
                match self {
                    $enum::$nested(inner) => inner.name(),
                    $($enum::$variant => $text,)*
                }
            }

            #[allow(dead_code)]
            pub fn from_name(name: &str) -> Option<$enum> {
                $enum::all().find(|x| x.name() == name)
            }
        }
    };
    (
        $(#[$attr:meta])*
        pub enum $enum:ident {
            $($(#[$vattr:meta])* $variant:ident = $text:literal,)*
        }
    ) => {
        $(#[$attr])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum $enum {
            $($(#[$vattr])* $variant,)*
        }

        impl $enum {
            /// Every name, in the order of the table (error messages list them so).
            pub fn all() -> impl Iterator<Item = $enum> {
                [$($enum::$variant,)*].into_iter()
            }

            pub fn name(self) -> &'static str {
                match self {
                    $($enum::$variant => $text,)*
                }
            }

            #[allow(dead_code)]
            pub fn from_name(name: &str) -> Option<$enum> {
                $enum::all().find(|x| x.name() == name)
            }
        }
    };
}

mod ast;
mod check;
mod chunk;
mod emit;
mod errors;
mod expand;
mod fallback;
mod fast;
mod func;
mod graph;
mod ir;
mod lower;
mod names;
mod parse;
mod sweep;
mod tree;
mod typing;
mod units;
mod urdf;

#[cfg(test)]
mod tests;

use proc_macro::TokenStream;

/// Defines a mechanical model from its kinetic energy, potential energy and dissipation.
///
/// See the `lagrange_runtime` crate documentation for the language and what is generated.
#[proc_macro]
pub fn lagrangian(input: TokenStream) -> TokenStream {
    expand(input.into()).into()
}

/// The whole macro over `proc_macro2` tokens, callable from tests.
fn expand(input: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let mut model = match parse::parse(input) {
        Ok(model) => model,
        Err(e) => return e.to_compile_error(),
    };
    if let Err(e) = urdf::splice(&mut model) {
        return e.to_compile_error();
    }
    let mut errors = errors::Errors::default();
    let checked = check::check(&model, &mut errors);
    let mut typed = typing::infer(&checked, &mut errors);
    // Lowering reads a model whose names and types are right.
    let lowered = errors
        .is_empty()
        .then(|| lower::lower(&checked, &mut errors));
    // Dimensions are reported once everything else is right, so that one mistake is not
    // reported twice, as a wrong name or shape and as the dimension guessed around it.
    if errors.is_empty() {
        errors = std::mem::take(&mut typed.dimension_errors);
    }
    let header = &checked.model.header;
    match (errors.finish(), lowered) {
        (Ok(()), Some(lowered)) => {
            expand::under_cfg(header, expand::expand(&lowered, typed.units.as_ref()))
        }
        (result, _) => {
            // The errors are reported whatever the `cfg`: they are mistakes in the model.
            let mut out = result
                .err()
                .map(|e| e.to_compile_error())
                .unwrap_or_default();
            out.extend(expand::under_cfg(
                header,
                fallback::fallback(&checked, &typed),
            ));
            out
        }
    }
}
