//! Robots read from their URDF files against Pinocchio: one test binary, a module per file
//! (the files keep their names; `cargo test --test robots <file>::` runs one of them).

#[macro_use]
mod common;

#[path = "common/reference.rs"]
pub mod reference;

pub mod contact_robots;
pub mod g1;
pub mod urdf_robots;
