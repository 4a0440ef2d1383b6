//! The `lagrangian!` procedural macro. Use it through `lagrange-runtime`, which re-exports
//! it together with the traits the generated code implements.
//!
//! The pipeline is `parse` (tokens → syntax tree with spans), `check`
//! (names, scopes, rules; every error spanned, all reported together) and `expand` (code
//! generation; `fast` generates the model's specialised `f64` fast path, forward-mode AD
//! unrolled at compile time). When checking fails, `fallback` still emits the model's struct so that the
//! user sees the real errors and not a cascade of missing-type errors.

mod ast;
mod check;
mod errors;
mod expand;
mod fallback;
mod fast;
mod parse;

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
    let model = match parse::parse(input) {
        Ok(model) => model,
        Err(e) => return e.to_compile_error(),
    };
    match check::check(&model) {
        Ok(checked) => expand::expand(&checked),
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(fallback::fallback(&model));
            out
        }
    }
}
