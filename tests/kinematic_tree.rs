//! Branched models, whose mass matrix `lagrangian!` factors along its kinematic tree
//! (`Model::MASS_TREE`, Featherstone's L D Lᵀ on branch-induced sparsity) instead of
//! densely: a cart carrying two double pendulums, free and with its cart driven. The
//! accelerations must satisfy the equations of motion as inverse dynamics computes them
//! (without factoring anything), and every derivative must match finite differences at
//! structured and random states. The floating-base robots (`tests/urdf_robots.rs`,
//! `tests/g1.rs`) take the same path, completed by their unit-quaternion constraint, and
//! match Pinocchio.

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::constrained::velocity_terms;
use lagrange_runtime::model::Model;
use lagrange_runtime::prelude::*;

/// A cart (mass 3) carrying two double pendulums of unit links and masses, with the
/// statements given.
macro_rules! cart_with_two_pendulums {
    ($(#[$doc:meta])* $name:ident; $($extra:tt)*) => {
        lagrangian! {
            $(#[$doc])*
            pub struct $name {
                parameters: g = 9.81;
                coordinates: s, a1, a2, b1, b2;
                let p = [s + sin(a1), -cos(a1)];
                let pa = p + [sin(a1 + a2), -cos(a1 + a2)];
                let r = [s - sin(b1), -cos(b1)];
                let rb = r + [sin(b1 + b2), -cos(b1 + b2)];
                kinetic = 3 * dot(s)^2 / 2 + (inner(dot(p), dot(p)) + inner(dot(pa), dot(pa))
                    + inner(dot(r), dot(r)) + inner(dot(rb), dot(rb))) / 2;
                potential = g * (p[1] + pa[1] + r[1] + rb[1]);
                $($extra)*
            }
        }
    };
}

cart_with_two_pendulums!(
    /// Free.
    CartWithTwoPendulums;
);
cart_with_two_pendulums!(
    /// The cart driven along s = sin(t) / 10: a constraint on the root of the tree, which
    /// keeps it a tree.
    DrivenCart;
    constraint drive = s - sin(t) / 10;
);

const ROOT: usize = lagrange_runtime::model::NO_PARENT;

fn states() -> Vec<State<5>> {
    vec![
        State::new(0.0, SVector::zeros(), SVector::zeros()),
        State::new(
            0.3,
            SVector::from([0.1, 0.4, -0.7, -0.2, 1.1]),
            SVector::from([0.5, -1.2, 0.3, 0.8, -0.6]),
        ),
        // Both pendulums mirror each other: entries of M that vanish by symmetry.
        State::new(
            0.0,
            SVector::from([0.0, 0.5, 0.2, -0.5, -0.2]),
            SVector::from([0.0, 0.3, -0.1, -0.3, 0.1]),
        ),
    ]
}

#[test]
fn each_pendulum_hangs_from_the_cart() {
    let tree = <CartWithTwoPendulums as Model<5, 0>>::MASS_TREE.expect("a tree");
    assert_eq!(tree.parents, [ROOT, 0, 1, 0, 3]);
    assert_eq!(tree.constrained, 0);
    let tree = <DrivenCart as Model<5, 0>>::MASS_TREE.expect("a tree");
    assert_eq!(tree.parents, [ROOT, 0, 1, 0, 3]);
    assert_eq!(tree.constrained, 1);
}

/// Inverse dynamics at the accelerations the tree's factorization found is zero for the
/// free model (nothing drives it), and −Jᵀλ for the driven one.
#[test]
fn the_accelerations_satisfy_the_equations_of_motion() {
    let u = SVector::zeros();
    let free = CartWithTwoPendulums::default();
    let driven = DrivenCart::default();
    for s in states() {
        let qdd = free.accelerations(&s, &u).unwrap();
        let residual = free.inverse_dynamics(&s, &qdd, &u);
        assert!(residual.amax() < 1e-12 * (1.0 + qdd.amax()), "{residual}");

        let qdd = driven.accelerations(&s, &u).unwrap();
        let lambda = driven.multipliers(&s, &u).unwrap();
        let (_, j) = velocity_terms::<DrivenCart, 5, 0, 1>(&driven, &s, &u);
        let residual = driven.inverse_dynamics(&s, &qdd, &u) + j.transpose() * lambda;
        assert!(residual.amax() < 1e-12 * (1.0 + qdd.amax()), "{residual}");
        // The cart follows its drive: s̈ = −sin(t) / 10.
        assert!((qdd[0] + s.t.sin() / 10.0).abs() < 1e-14);
    }
}

#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("CartWithTwoPendulums", &CartWithTwoPendulums::default())
        .standard()
        .check();
    Derivatives::new("DrivenCart", &DrivenCart::default())
        .standard()
        .check();
}
