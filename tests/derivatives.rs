//! Every derivative against finite differences and the generic passes: the fast path, the sweep, linearization, sensitivities, frame Jacobians: one test binary, a module per file
//! (the files keep their names; `cargo test --test derivatives <file>::` runs one of them).

#[macro_use]
mod common;

pub mod derivative_properties;
pub mod exact_derivatives;
pub mod fast_path;
pub mod frame_jacobians;
pub mod linearization;
pub mod parameter_sensitivities;
pub mod stack_depth;
