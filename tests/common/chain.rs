//! The planar N-link chain of `benches/chain.rs`, written in the DSL by a `macro_rules!`
//! so that its large sizes (32, 64 links) need not be typed out: absolute angles q_k
//! from the downward vertical, links of length `l`, a bob of mass `m` at the end of each,
//! gravity `g`; the bob positions are `let`s built link by link and the kinetic energy is
//! Σ m/2 (ẋ_k² + ẏ_k²) of their exact time derivatives.
//!
//! `chain!(Name; (q1 x1 y1) (q2 x2 y2 x1 y1) …)`: the first link, then each further link
//! with the names of the previous bob.

#[allow(unused_macros)]
macro_rules! chain {
    ($name:ident; ($q1:ident $x1:ident $y1:ident) $(($q:ident $x:ident $y:ident $xp:ident $yp:ident))*) => {
        lagrangian! {
            /// A planar chain of point masses (see `tests/common/chain.rs`).
            pub struct $name {
                parameters: m = 1.0, l = 1.0, g = 9.81;
                coordinates: $q1 $(, $q)*;

                let $x1 = l * sin($q1);
                let $y1 = -l * cos($q1);
                $(
                    let $x = $xp + l * sin($q);
                    let $y = $yp - l * cos($q);
                )*

                kinetic = m/2 * (dot($x1)^2 + dot($y1)^2) $(+ m/2 * (dot($x)^2 + dot($y)^2))*;
                potential = m*g*$y1 $(+ m*g*$y)*;
            }
        }
    };
}
