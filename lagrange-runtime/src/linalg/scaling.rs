//! Exact scaling by powers of two: the binary exponent of a magnitude, x · 2^k over the
//! whole exponent range, a matrix split into a power of two and a matrix of size about 1.
//! Multiplying by a power of two is exact in floating point (unless the result overflows
//! or underflows), so a problem scaled this way and its solution scaled back are those of
//! the problem posed.

use nalgebra::DMatrix;

/// The exponent e of 2^e ≤ x < 2^(e+1) for a positive x (up to rounding, which does not
/// matter here), and 0 for 0.
pub(crate) fn exponent(x: f64) -> i32 {
    if x > 0.0 {
        x.log2().floor() as i32
    } else {
        0
    }
}

/// x · 2^k, exact unless the result overflows or underflows, for any k (in steps that each
/// stay within the exponent range of f64).
pub(crate) fn times_pow2(mut x: f64, mut k: i32) -> f64 {
    const STEP: i32 = 1000;
    while k > STEP && x != 0.0 && x.is_finite() {
        x *= 2f64.powi(STEP);
        k -= STEP;
    }
    while k < -STEP && x != 0.0 && x.is_finite() {
        x *= 2f64.powi(-STEP);
        k += STEP;
    }
    if k.abs() > STEP {
        // x is zero or infinite.
        return x;
    }
    x * 2f64.powi(k)
}

/// (x₀, e) with x = 2^e x₀ and the largest entry of x₀ in [1, 2).
pub(crate) fn normalized(x: &DMatrix<f64>) -> (DMatrix<f64>, i32) {
    let e = exponent(x.amax());
    (x.map(|v| times_pow2(v, -e)), e)
}

/// (X + Xᵀ)/2.
pub(crate) fn symmetric_part(x: &DMatrix<f64>) -> DMatrix<f64> {
    (x + x.transpose()) * 0.5
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_two_beyond_the_exponent_range() {
        assert_eq!(exponent(1.0), 0);
        assert_eq!(exponent(0.75), -1);
        assert_eq!(exponent(0.0), 0);
        // 2^−1074 · 2^2000 · 2^−926 = 1, exactly, through steps inside the range.
        assert_eq!(times_pow2(times_pow2(f64::from_bits(1), 2000), -926), 1.0);
        assert_eq!(times_pow2(3.0, 5000), f64::INFINITY);
        assert_eq!(times_pow2(3.0, -5000), 0.0);
        let (x0, e) = normalized(&DMatrix::from_row_slice(1, 2, &[-3e300, 1.0]));
        assert_eq!(e, 998);
        assert!((1.0..2.0).contains(&x0.amax()));
        assert_eq!(times_pow2(x0[0], e), -3e300);
    }
}
