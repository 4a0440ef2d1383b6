//! The kinematic tree of the mass matrix (`crate::tree`): found for branched models,
//! refused for chains and for patterns that are not trees in the declared order.

use super::lower_ok;
use crate::tree::{mass_tree, MassTree};
use quote::quote;

const ROOT: usize = usize::MAX;

/// A cart carrying two double pendulums: each pendulum's links hang from the cart.
#[test]
fn a_cart_with_two_pendulums_is_a_tree() {
    let l = lower_ok(quote! {
        struct Tree {
            coordinates: s, a1, a2, b1, b2;
            let p = [s + sin(a1), -cos(a1)];
            let pa = p + [sin(a1 + a2), -cos(a1 + a2)];
            let r = [s - sin(b1), -cos(b1)];
            let rb = r + [sin(b1 + b2), -cos(b1 + b2)];
            kinetic = 3 * dot(s)^2 / 2 + (inner(dot(p), dot(p)) + inner(dot(pa), dot(pa))
                + inner(dot(r), dot(r)) + inner(dot(rb), dot(rb))) / 2;
            potential = 9.81 * (p[1] + pa[1] + r[1] + rb[1]);
        }
    });
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
    let chain = lower_ok(quote! {
        struct Chain {
            coordinates: a, b, c;
            let p = [sin(a), -cos(a)];
            let r = p + [sin(a + b), -cos(a + b)];
            let s = r + [sin(a + b + c), -cos(a + b + c)];
            kinetic = (inner(dot(p), dot(p)) + inner(dot(r), dot(r)) + inner(dot(s), dot(s))) / 2;
        }
    });
    assert_eq!(mass_tree(&chain), None);
    let tied = lower_ok(quote! {
        struct Tied {
            coordinates: s, a1, a2, b1, b2;
            let p = [s + sin(a1), -cos(a1)];
            let pa = p + [sin(a1 + a2), -cos(a1 + a2)];
            let r = [s - sin(b1), -cos(b1)];
            let rb = r + [sin(b1 + b2), -cos(b1 + b2)];
            kinetic = 3 * dot(s)^2 / 2 + (inner(dot(p), dot(p)) + inner(dot(pa), dot(pa))
                + inner(dot(r), dot(r)) + inner(dot(rb), dot(rb))) / 2;
            constraint tie = a2 - b2;
        }
    });
    assert_eq!(mass_tree(&tied), None);
}
