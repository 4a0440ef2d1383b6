//! Helpers shared by the integration tests that include this file with `mod common;`:
//! reproducible "random" samples and tolerance checks with readable failure messages.
//!
//! The models shared between tests, benches and examples (`double_pendulum.rs`,
//! `spatial_arm.rs`, `cart_pole.rs`, `bicycle.rs`, `robots.rs`, `g1.rs`, `chain16.rs` …)
//! and the robots' helpers (`free_flyer.rs`, `reference.rs`) are not modules of this one:
//! each user `include!`s the files it needs, so that a test binary compiles only its own
//! models.
#![allow(dead_code)]

#[macro_use]
pub mod chain;

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
