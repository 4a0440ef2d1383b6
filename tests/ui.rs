//! Compile-fail tests of the `lagrangian!` macro: one case per check rule, each with the
//! diagnostics it must produce (`tests/ui/*.stderr`). Regenerate the expected output with
//! `TRYBUILD=overwrite cargo test --test ui` and review every changed `.stderr`.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
