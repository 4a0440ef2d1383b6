//! The language and the runtime's face: units, vectors, names, traits, errors, settings, serialization, plots: one test binary, a module per file
//! (the files keep their names; `cargo test --test language <file>::` runs one of them).

#[macro_use]
mod common;

pub mod dynamics_errors;
pub mod model_traits;
pub mod named_quantities;
pub mod names_in_scope;
pub mod plot;
pub mod robustness;
pub mod serde;
pub mod settings_and_errors;
pub mod units;
pub mod vector_language;
