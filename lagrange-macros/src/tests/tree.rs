//! The kinematic tree of the mass matrix (`crate::tree`): found for branched models,
//! refused for chains and for patterns that are not trees in the declared order.

use super::{cart_with_two_pendulums, chain, lower_ok};
use crate::tree::{mass_tree, MassTree};
use quote::quote;

const ROOT: usize = usize::MAX;

/// A cart carrying two double pendulums: each pendulum's links hang from the cart.
#[test]
fn a_cart_with_two_pendulums_is_a_tree() {
    let l = lower_ok(cart_with_two_pendulums(quote!()));
    assert_eq!(
        mass_tree(&l),
        Some(MassTree {
            parents: vec![ROOT, 0, 1, 0, 3],
            constrained: 0
        })
    );
}

/// The Solo-12 from its URDF: the floating base's seven coordinates (whose three
/// position coordinates are not coupled with each other, only with everything else) a
/// path, each leg a branch of three joints from its last; the unit-quaternion
/// constraint involves coordinates 3 to 6.
#[test]
fn a_quadruped_is_four_legs_on_a_base() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/robots/solo12.urdf");
    let mut model = super::parse_ok(quote! {
        struct Solo {
            urdf: #path floating;
            kinetic = urdf_kinetic;
            potential = urdf_potential;
        }
    });
    crate::urdf::splice(&mut model).expect("the file splices");
    let l = super::checked_lowered(&model);
    let base = [ROOT, 0, 1, 2, 3, 4, 5];
    let legs = [6, 7, 8, 6, 10, 11, 6, 13, 14, 6, 16, 17];
    assert_eq!(
        mass_tree(&l),
        Some(MassTree {
            parents: base.into_iter().chain(legs).collect(),
            constrained: 7
        })
    );
}

/// A chain's tree is a path: no cheaper than the dense factorization, so none. A model
/// whose two halves a constraint ties together has no tree either.
#[test]
fn chains_and_closed_loops_have_none() {
    assert_eq!(mass_tree(&lower_ok(chain(3))), None);
    let tied = lower_ok(cart_with_two_pendulums(quote!(constraint tie = a2 - b2;)));
    assert_eq!(mass_tree(&tied), None);
}
