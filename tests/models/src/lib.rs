//! The models that lagrange's tests, benches and examples share, each written once and
//! compiled once (a crate of its own, not published): a test binary, a bench or an
//! example names them (`use lagrange_test_models::DoublePendulum;`) instead of compiling
//! its own copy. A model that only one test file uses stays in that file.
//!
//! Beside the models, what belongs to them: the bicycle's benchmark table and analysis
//! ([`bicycle`]), the chain's equations derived by hand and the `chain!` macro that writes
//! chains of any length ([`chain`](mod@chain)), and the map between a floating base's coordinates and
//! Pinocchio's free flyer ([`free_flyer`]).
//!
//! The robots read their URDF files from `tests/robots/` (`urdf: "../robots/…"`: a path is
//! relative to the `Cargo.toml` of the crate that expands the macro, this one's).

pub mod bicycle;
pub mod cart_pole;
pub mod chain;
pub mod double_pendulum;
pub mod free_flyer;
pub mod g1;
pub mod linked_slider;
pub mod oscillators;
pub mod pendulums;
pub mod rigid_bodies;
pub mod robots;
pub mod spatial_arm;

pub use bicycle::Bicycle;
pub use cart_pole::CartPole;
pub use chain::{Chain16, Chain32, Chain64};
pub use double_pendulum::DoublePendulum;
pub use free_flyer::FreeFlyer;
pub use g1::G1;
pub use linked_slider::LinkedSlider;
pub use oscillators::{Cart, FreeParticle, Oscillator, UnitOscillator};
pub use pendulums::{
    CartesianPendulum, ForcedCartesianPendulum, Pendulum, SliderPendulum, TwoLinkArm,
};
pub use rigid_bodies::{FreeBody, QuaternionBody, QuaternionPendulum, Unicycle};
pub use robots::{Panda, Solo12, Ur5};
pub use spatial_arm::SpatialArm;
