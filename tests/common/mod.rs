//! Helpers shared by the integration tests that include this file with `mod common;`:
//! reproducible "random" samples and tolerance checks with readable failure messages, and
//! the generic derivative checks (`derivatives.rs`).
//!
//! The models shared between tests, benches and examples are the crate
//! `lagrange-test-models` (`tests/models/`), each compiled once. Beside this module: the
//! robots' reference data (`reference.rs`, a module of the `robots` binary), and files
//! that a test binary `include!`s: the counting allocator (`counting_allocator.rs`, by the
//! binaries that assert how much an evaluation allocates) and the split model of
//! `split_sweep` (`large_model.rs`, written by `large_model.py`; the macro's unit tests
//! read it too).
#![allow(dead_code)]

/// xorshift64*: reproducible "random" states without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let bits = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        lo + (hi - lo) * (bits as f64 / (1u64 << 53) as f64)
    }
}

/// |got − want| ≤ tol · max(scale, |want|).
pub fn assert_close(got: f64, want: f64, scale: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * scale.max(want.abs()),
        "{what}: got {got:e}, want {want:e} (diff {:e}, scale {scale:e})",
        (got - want).abs()
    );
}

/// [`assert_close`] element by element, lengths equal.
pub fn assert_slice_close(got: &[f64], want: &[f64], scale: f64, tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_close(*g, *w, scale, tol, &format!("{what}[{i}]"));
    }
}

pub mod derivatives;
