//! The fast path: generated when small enough, left out past its statement limit.

use super::*;

// ---------------------------------------------------------------------------------------
// The fast path
// ---------------------------------------------------------------------------------------

/// The generated `eval_equations` of a model, as text, with at most `limit` statements.
fn equations_code(tokens: TokenStream, limit: usize) -> Option<String> {
    crate::fast::equations_fn(&lower_ok(tokens), limit).map(|code| code.to_string())
}

/// The number of statements of the generated code that compute a value (a `let` of an
/// input, or an assignment to one of the locals declared together).
fn statements(code: &str) -> usize {
    code.matches(" = ").count()
}

#[test]
fn every_valid_model_has_a_fast_path() {
    for tokens in [double_pendulum(), cart_pole(), driven(), oscillator()] {
        let code = equations_code(tokens, crate::fast::MAX_STATEMENTS).expect("a fast path");
        assert!(code.contains("fn eval_equations"), "{code}");
    }
}

#[test]
fn structurally_zero_derivatives_are_not_computed() {
    // Two uncoupled oscillators: the off-diagonal mass entries are the literal zero, and
    // nothing is computed for them.
    let code = equations_code(
        quote! {
            struct Two {
                coordinates: a, b;
                kinetic = dot(a)^2/2 + 3*dot(b)^2/2;
                potential = a^2/2 + b^4;
            }
        },
        crate::fast::MAX_STATEMENTS,
    )
    .unwrap();
    let mass = &code[code.find("mass").unwrap()..code.find("momenta").unwrap()];
    assert_eq!(mass.matches("0f64").count(), 2, "{mass}");
    // Each coordinate's square: value, q̇ gradient and (q̇, q̇) entry, and no more.
    assert!(statements(&code) < 40, "{code}");
}

#[test]
fn a_model_too_large_for_the_unrolled_path_is_left_to_the_sweep() {
    let code = equations_code(double_pendulum(), crate::fast::MAX_STATEMENTS).unwrap();
    let n = statements(&code);
    // The double pendulum takes well under a thousand statements; with a lower limit the
    // unrolled path is left out (and `eval_equations` is the sweep).
    assert!((20..1000).contains(&n), "{n} statements");
    assert!(equations_code(double_pendulum(), n / 2).is_none());
    assert!(equations_code(double_pendulum(), n).is_some());
}

#[test]
fn what_cancels_in_the_right_hand_side_is_not_computed() {
    // The right-hand side of the double pendulum is −Σ m ∂x/∂q ẍ|q̈=0 − ∂V/∂q, from the
    // positions' Jacobians and drifts: no ∂ẋ/∂q = ∂²x/∂q∂w (the sine's second derivative
    // times one velocity, `f″ · q̇`), whose products with ẋ cancel between ∂L/∂q and
    // d/dt ∂L/∂q̇. Computing both parts took 145 statements.
    let code = equations_code(double_pendulum(), crate::fast::MAX_STATEMENTS).unwrap();
    let n = statements(&code);
    assert!(n <= 131, "{n} statements: {code}");
    // `[value, f′, f″] = …jet::sin(__q0);`
    let jet = code.find("jet :: sin (__q0)").expect("the sine's jet");
    let outputs = &code[code[..jet].rfind('[').unwrap() + 1..];
    let f2 = outputs[..outputs.find(']').unwrap()]
        .split(" , ")
        .nth(2)
        .unwrap();
    assert!(!code.contains(&format!("{f2} * __qd0 ;")), "{code}");
    assert!(code.contains(&format!("{f2} * __qd0 * __qd0 ;")), "{code}");
}
