//! The planar N-link chain of `benches/chain.rs`, written in the DSL by a `macro_rules!`
//! so that its large sizes (32, 64 links) need not be typed out: absolute angles q_k
//! from the downward vertical, links of length `l`, a bob of mass `m` at the end of each,
//! gravity `g`; the bob positions are `let`s built link by link and the kinetic energy is
//! Σ m/2 (ẋ_k² + ẏ_k²) of their exact time derivatives.
//!
//! `chain!(Name; (q1 x1 y1) (q2 x2 y2 x1 y1) …)`: the first link, then each further link
//! with the names of the previous bob.
//!
//! Beside it, the chain's equations of motion derived by hand ([`hand_terms`]): the
//! independent truth the tests check the DSL's chains against, and what the bench times
//! them against.

use lagrange_runtime::prelude::*;

#[macro_export]
macro_rules! chain {
    ($name:ident; ($q1:ident $x1:ident $y1:ident) $(($q:ident $x:ident $y:ident $xp:ident $yp:ident))*) => {
        ::lagrange_runtime::lagrangian! {
            /// A planar chain of point masses (see `lagrange_test_models::chain`).
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

/// The chain's parameters, shared by the DSL models and the hand-derived equations.
#[derive(Debug, Clone, Copy)]
pub struct Params {
    pub m: f64,
    pub l: f64,
    pub g: f64,
}

/// The hand-derived equations of motion of the N-link chain.
///
/// With absolute angles, bob k (1-based) sits at
/// x_k = l Σ_{i≤k} sin q_i, y_k = −l Σ_{i≤k} cos q_i, so
/// ẋ_k = l Σ_{i≤k} cos q_i q̇_i, ẏ_k = l Σ_{i≤k} sin q_i q̇_i and
/// ẋ_k² + ẏ_k² = l² Σ_{i,j≤k} cos(q_i − q_j) q̇_i q̇_j.
/// Summing over the bobs, the pair (i, j) appears once for every k ≥ max(i, j), that is
/// c_ij = N − max(i, j) + 1 times:
///
/// ```text
/// T = ½ Σ_ij M_ij q̇_i q̇_j,   M_ij = m l² c_ij cos(q_i − q_j)
/// V = m g Σ_k y_k = −m g l Σ_i (N − i + 1) cos q_i        (q_i is in bobs i … N)
/// ```
///
/// Euler–Lagrange for q_i, with ∂M_ij/∂q_i = −m l² c_ij sin(q_i − q_j) (j ≠ i; zero for
/// j = i) and the symmetric contribution from M_ji:
///
/// ```text
/// d/dt ∂T/∂q̇_i = Σ_j M_ij q̈_j − Σ_j m l² c_ij sin(q_i − q_j) (q̇_i − q̇_j) q̇_j
/// ∂T/∂q_i      = −Σ_j m l² c_ij sin(q_i − q_j) q̇_i q̇_j
/// ∂V/∂q_i      = m g l (N − i + 1) sin q_i
/// ```
///
/// The q̇_i q̇_j terms cancel, leaving
///
/// ```text
/// Σ_j M_ij q̈_j = −Σ_j m l² c_ij sin(q_i − q_j) q̇_j² − m g l (N − i + 1) sin q_i
/// ```
///
/// solved by nalgebra's Cholesky on stack matrices (M is symmetric positive definite).
/// cos(q_i − q_j) and sin(q_i − q_j) come from the N sines and cosines of the angles.
/// Indices below are 0-based: c_ij = N − max(i, j), N − i + 1 becomes N − i.
/// `None` when the mass matrix is not positive definite (it always is, for l, m > 0).
#[inline(never)]
pub fn hand_written<const N: usize>(p: &Params, s: &State<N>) -> Option<SVector<f64, N>> {
    let (mass, rhs) = hand_terms(p, s);
    Some(mass.cholesky()?.solve(&rhs))
}

/// The hand-derived mass matrix and right-hand side (see [`hand_written`]).
#[inline(always)]
pub fn hand_terms<const N: usize>(
    p: &Params,
    s: &State<N>,
) -> (SMatrix<f64, N, N>, SVector<f64, N>) {
    let Params { m, l, g } = *p;
    let (ml2, mgl) = (m * l * l, m * g * l);
    let sc: [(f64, f64); N] = std::array::from_fn(|i| s.q[i].sin_cos());
    let mut mass = SMatrix::<f64, N, N>::zeros();
    let mut rhs = SVector::<f64, N>::zeros();
    for i in 0..N {
        let (si, ci) = sc[i];
        let mut r = -mgl * (N - i) as f64 * si;
        for j in 0..N {
            let (sj, cj) = sc[j];
            let w = ml2 * (N - i.max(j)) as f64;
            // cos(q_i − q_j), sin(q_i − q_j)
            let (cos_ij, sin_ij) = (ci * cj + si * sj, si * cj - ci * sj);
            mass[(i, j)] = w * cos_ij;
            r -= w * sin_ij * s.qd[j] * s.qd[j];
        }
        rhs[i] = r;
    }
    (mass, rhs)
}

/// An irregular state: no symmetry, no zero velocity, angles up to about ±1.3 rad.
pub fn irregular_state<const N: usize>() -> State<N> {
    let q = SVector::from_fn(|i, _| 0.9 * (1.7 * i as f64 + 0.4).sin() + 0.05 * i as f64);
    let qd = SVector::from_fn(|i, _| 1.3 * (2.3 * i as f64 + 1.1).cos() + 0.3);
    State::new(0.37, q, qd)
}

// The chains that the tests and `benches/chain.rs` share.
chain!(Chain16;
    (q1 x1 y1) (q2 x2 y2 x1 y1) (q3 x3 y3 x2 y2) (q4 x4 y4 x3 y3) (q5 x5 y5 x4 y4)
    (q6 x6 y6 x5 y5) (q7 x7 y7 x6 y6) (q8 x8 y8 x7 y7) (q9 x9 y9 x8 y8) (q10 x10 y10 x9 y9)
    (q11 x11 y11 x10 y10) (q12 x12 y12 x11 y11) (q13 x13 y13 x12 y12) (q14 x14 y14 x13 y13)
    (q15 x15 y15 x14 y14) (q16 x16 y16 x15 y15)
);

chain!(Chain32;
    (q1 x1 y1) (q2 x2 y2 x1 y1) (q3 x3 y3 x2 y2) (q4 x4 y4 x3 y3) (q5 x5 y5 x4 y4)
    (q6 x6 y6 x5 y5) (q7 x7 y7 x6 y6) (q8 x8 y8 x7 y7) (q9 x9 y9 x8 y8) (q10 x10 y10 x9 y9)
    (q11 x11 y11 x10 y10) (q12 x12 y12 x11 y11) (q13 x13 y13 x12 y12) (q14 x14 y14 x13 y13)
    (q15 x15 y15 x14 y14) (q16 x16 y16 x15 y15) (q17 x17 y17 x16 y16) (q18 x18 y18 x17 y17)
    (q19 x19 y19 x18 y18) (q20 x20 y20 x19 y19) (q21 x21 y21 x20 y20) (q22 x22 y22 x21 y21)
    (q23 x23 y23 x22 y22) (q24 x24 y24 x23 y23) (q25 x25 y25 x24 y24) (q26 x26 y26 x25 y25)
    (q27 x27 y27 x26 y26) (q28 x28 y28 x27 y27) (q29 x29 y29 x28 y28) (q30 x30 y30 x29 y29)
    (q31 x31 y31 x30 y30) (q32 x32 y32 x31 y31)
);

chain!(Chain64;
    (q1 x1 y1) (q2 x2 y2 x1 y1) (q3 x3 y3 x2 y2) (q4 x4 y4 x3 y3) (q5 x5 y5 x4 y4)
    (q6 x6 y6 x5 y5) (q7 x7 y7 x6 y6) (q8 x8 y8 x7 y7) (q9 x9 y9 x8 y8) (q10 x10 y10 x9 y9)
    (q11 x11 y11 x10 y10) (q12 x12 y12 x11 y11) (q13 x13 y13 x12 y12) (q14 x14 y14 x13 y13)
    (q15 x15 y15 x14 y14) (q16 x16 y16 x15 y15) (q17 x17 y17 x16 y16) (q18 x18 y18 x17 y17)
    (q19 x19 y19 x18 y18) (q20 x20 y20 x19 y19) (q21 x21 y21 x20 y20) (q22 x22 y22 x21 y21)
    (q23 x23 y23 x22 y22) (q24 x24 y24 x23 y23) (q25 x25 y25 x24 y24) (q26 x26 y26 x25 y25)
    (q27 x27 y27 x26 y26) (q28 x28 y28 x27 y27) (q29 x29 y29 x28 y28) (q30 x30 y30 x29 y29)
    (q31 x31 y31 x30 y30) (q32 x32 y32 x31 y31) (q33 x33 y33 x32 y32) (q34 x34 y34 x33 y33)
    (q35 x35 y35 x34 y34) (q36 x36 y36 x35 y35) (q37 x37 y37 x36 y36) (q38 x38 y38 x37 y37)
    (q39 x39 y39 x38 y38) (q40 x40 y40 x39 y39) (q41 x41 y41 x40 y40) (q42 x42 y42 x41 y41)
    (q43 x43 y43 x42 y42) (q44 x44 y44 x43 y43) (q45 x45 y45 x44 y44) (q46 x46 y46 x45 y45)
    (q47 x47 y47 x46 y46) (q48 x48 y48 x47 y47) (q49 x49 y49 x48 y48) (q50 x50 y50 x49 y49)
    (q51 x51 y51 x50 y50) (q52 x52 y52 x51 y51) (q53 x53 y53 x52 y52) (q54 x54 y54 x53 y53)
    (q55 x55 y55 x54 y54) (q56 x56 y56 x55 y55) (q57 x57 y57 x56 y56) (q58 x58 y58 x57 y57)
    (q59 x59 y59 x58 y58) (q60 x60 y60 x59 y59) (q61 x61 y61 x60 y60) (q62 x62 y62 x61 y61)
    (q63 x63 y63 x62 y62) (q64 x64 y64 x63 y63)
);
