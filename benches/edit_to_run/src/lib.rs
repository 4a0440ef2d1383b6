//! The models of a user's crate: the Furuta pendulum `measure.sh` edits, and four more with
//! a binary each in `src/bin/`.

pub mod five_bar;
pub mod furuta;
pub mod rolling;
pub mod spherical;
pub mod tumbling;
