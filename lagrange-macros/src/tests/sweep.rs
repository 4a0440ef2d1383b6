//! The sweep's mass matrix: by the velocity Jacobians or by columns, and the columns' loops.

use super::{cart_with_two_pendulums, chain, lower_ok};
use crate::sweep::mass::loop_groups;
use proc_macro2::TokenStream;
use quote::quote;

/// The generated `__lagrange_sweep` of a model, as text.
fn sweep_code(tokens: TokenStream) -> String {
    crate::sweep::sweep_fn(&lower_ok(tokens))
        .expect("a sweep")
        .to_string()
}

/// Which way the mass matrix is written: by the Jacobians (their locals `__j…`) or by
/// one tangent sweep per column (`__c…`).
fn by_jacobians(code: &str) -> bool {
    let (j, c) = (code.contains("__j0 ="), code.contains("__c0 ="));
    assert!(j != c, "one way or the other");
    j
}

/// Trees and chains of bodies favour the Jacobians: once the products of one pair of
/// Jacobian entries share the sum of their weights, a chain's entry costs the same at any
/// depth (composite inertias), where one tangent sweep per column grows with the body's
/// depth. The generator picks the one with less arithmetic.
#[test]
fn the_mass_matrix_is_written_the_cheaper_way() {
    let tree = cart_with_two_pendulums(quote!());
    assert!(by_jacobians(&sweep_code(tree)));
    assert!(by_jacobians(&sweep_code(chain(3))));
    assert!(by_jacobians(&sweep_code(chain(24))));
}

/// The 24-link chain's mass matrix by the Jacobians: the weights of bob k's products (its
/// mass) are summed over the bobs below each joint once, link by link, not once per entry;
/// each of the 300 entries i ≤ j is then one sum of two products, l cos q_i and l sin q_i
/// times the sums F_j = (Σ_{k ≥ j} m) l cos q_j and (Σ_{k ≥ j} m) l sin q_j, formed once
/// per joint (CRBA's F = I_c S).
#[test]
fn a_chains_mass_matrix_sums_its_masses_once_per_link() {
    let code = sweep_code(chain(24));
    let start = code.find("__j0 =").expect("by the Jacobians");
    let jacobians = &code[start..];
    let end = jacobians.find("__mass").map_or(jacobians.len(), |k| k);
    let statements = jacobians[..end].matches(" = ").count();
    // 24 Jacobian entries (the other 24 are values of the primal pass), 24 sums of
    // masses, 48 F_j and 300 entries: 396, and a few.
    assert!(statements <= 420, "{statements} statements");
}

/// The rows of a column from the list of its nonzero rows.
fn rows(n: usize, nonzero: &[usize]) -> Vec<bool> {
    (0..n).map(|i| nonzero.contains(&i)).collect()
}

/// A floating base (column 0, coupled with everything) carrying two limbs of three joints
/// (1–3 and 4–6): each joint couples with the base, its limb's joints above it and those
/// below it. Each limb is one loop, its smaller columns sharing its first joint's; the
/// base is a loop of its own, since a limb's column is much smaller than the base's.
#[test]
fn limbs_loop_apart_from_the_base() {
    let n = 7;
    let sizes = [4000, 900, 600, 400, 900, 600, 400];
    let rows = [
        rows(n, &[0, 1, 2, 3, 4, 5, 6]),
        rows(n, &[0, 1, 2, 3]),
        rows(n, &[0, 1, 2, 3]),
        rows(n, &[0, 1, 2, 3]),
        rows(n, &[0, 4, 5, 6]),
        rows(n, &[0, 4, 5, 6]),
        rows(n, &[0, 4, 5, 6]),
    ];
    assert_eq!(
        loop_groups(&sizes, &rows),
        vec![vec![0], vec![1, 2, 3], vec![4, 5, 6]]
    );
    // A column more than three times smaller than every column containing it loops alone.
    let sizes = [4000, 900, 600, 250, 900, 600, 400];
    assert_eq!(
        loop_groups(&sizes, &rows),
        vec![vec![0], vec![1, 2], vec![4, 5, 6], vec![3]]
    );
    // A column whose rows are not inside the larger one's does not join it (5 leaves 4's
    // loop), and a column joins the smallest loop that holds it (6 joins 5's, not 4's).
    let mut crossing = rows.clone();
    crossing[5] = self::rows(n, &[0, 3, 4, 5, 6]);
    assert_eq!(
        loop_groups(&sizes, &crossing),
        vec![vec![0], vec![1, 2], vec![4], vec![5, 6], vec![3]]
    );
}

/// The model of `tests/split_sweep.rs` (`tests/common/large_model.rs`), as tokens.
fn large_model() -> TokenStream {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/common/large_model.rs"
    );
    let text = std::fs::read_to_string(path).expect("the large model");
    let (start, end) = (text.find('{').expect("{") + 1, text.rfind('}').expect("}"));
    text[start..end].parse().expect("tokens")
}

/// A sweep whose primal and reverse passes are beyond `SPLIT_ABOVE` statements is split
/// into functions that share a tape (so that `tests/split_sweep.rs` runs split code); a
/// robot-sized one is not.
#[test]
fn large_sweeps_are_split_into_functions() {
    let large = sweep_code(large_model());
    assert!(large.contains("fn __part"), "split");
    assert!(large.contains("__TAPE"), "a tape");
    let parts = large.matches("fn __part").count();
    assert!(parts > 10, "{parts} parts");
    // Its mass matrix's columns run in a loop, one of whose parts takes the column (so
    // that the test runs that form too).
    assert!(large.contains("for (__k , __j)"), "columns in a loop");
    assert!(large.contains("__j : usize"), "a part of the loop");
    let small = sweep_code(chain(24));
    assert!(!small.contains("__part"), "not split");
}

#[test]
fn a_long_chains_jacobian_products_stop_at_their_limit() {
    // Issue 45: the mass matrix by the Jacobians formed every product of a URDF chain's
    // Jacobian entries (as many as its links cubed) before comparing their number with
    // its limit, 110 s of the 270 s a chain of 200 links took to build. Checked as they
    // are formed, they stop one pair past it (a pair: at most links² products), in each of
    // the two tries (the products' operands expanded or not): 430 000 at 50 links, where
    // 1 330 000 were formed before.
    use crate::sweep::mass::{GROUPED_MASS, MAX_WRITTEN_MASS, PRODUCTS};
    let links = 50;
    let l = super::fast::urdf_model(&super::fast::urdf_chain(links));
    PRODUCTS.with(|p| p.set(0));
    let code = crate::sweep::sweep_fn(&l).expect("a sweep").to_string();
    // Past the limit: by columns, in loops.
    assert!(!by_jacobians(&code));
    let formed = PRODUCTS.with(std::cell::Cell::get);
    let limit = 2 * (GROUPED_MASS * MAX_WRITTEN_MASS + links * links);
    assert!(
        formed <= limit,
        "{formed} products formed, at most {limit} expected"
    );
}
