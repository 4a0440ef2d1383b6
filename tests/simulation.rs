//! Integrators, events, projection, constraint drift and sampled controllers: one test binary, a module per file
//! (the files keep their names; `cargo test --test simulation <file>::` runs one of them).

#[macro_use]
mod common;

pub mod constraint_drift;
pub mod events;
pub mod integrator_orders;
pub mod long_run_energy;
pub mod projection;
pub mod rattle;
pub mod sampled_control;
pub mod simulation_api;
