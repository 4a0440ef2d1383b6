//! Equilibria, steady motions and stability: one test binary, a module per file
//! (the files keep their names; `cargo test --test control <file>::` runs one of them).

#[macro_use]
mod common;

pub mod equilibria;
pub mod stability;
