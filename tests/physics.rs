//! Mechanical models against closed forms, published tables and conservation laws: one test binary, a module per file
//! (the files keep their names; `cargo test --test physics <file>::` runs one of them).

#[macro_use]
mod common;

pub mod bead_on_spinning_hoop;
pub mod bicycle;
pub mod cartesian_pendulum;
pub mod charged_particle;
pub mod contacts;
pub mod double_pendulum;
pub mod driven_oscillator;
pub mod energy_balance;
pub mod four_bar;
pub mod free_floating_body;
pub mod free_rigid_body;
pub mod kepler_orbit;
pub mod kinematic_tree;
pub mod knife_edge;
pub mod quadrotor;
pub mod reaction_wheel_satellite;
pub mod relativistic_particle;
pub mod rolling_coin;
pub mod simple_pendulum;
pub mod slider_pendulum;
pub mod slider_pendulum_cartesian;
pub mod spatial_arm;
pub mod spherical_pendulum;
pub mod symmetric_top;
pub mod two_carts_pendulums;
pub mod two_link_arm;
