//! Compile-fail tests of the `lagrangian!` macro: one case per check rule, each with the
//! diagnostics it must produce (`tests/ui/*.stderr`). Regenerate the expected output with
//! `TRYBUILD=overwrite cargo test --test ui` and review every changed `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    // Physical dimensions: one case per rule of the units check.
    t.compile_fail("tests/ui/units/*.rs");
}
