//! The functions of the `lagrangian!` language, for any [`crate::model::Scalar`].
//!
//! Generated code calls these; they are public so that a model written by hand can use
//! the same definitions. Each is exact for dual numbers of any order.

use crate::model::Scalar;
use num_dual::DualNum;

macro_rules! unary {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name<D: Scalar>(x: D) -> D {
            DualNum::$name(&x)
        }
    )*};
}

unary! {
    /// Sine.
    sin;
    /// Cosine.
    cos;
    /// Tangent.
    tan;
    /// Arcsine.
    asin;
    /// Arccosine.
    acos;
    /// Arctangent.
    atan;
    /// Hyperbolic sine.
    sinh;
    /// Hyperbolic cosine.
    cosh;
    /// Hyperbolic tangent.
    tanh;
    /// e^x.
    exp;
    /// Natural logarithm.
    ln;
    /// Base-10 logarithm.
    log10;
    /// Square root.
    sqrt;
    /// Cube root.
    cbrt;
}

/// |x|; its derivative at 0 is taken from the positive side.
///
/// ```
/// use lagrange_runtime::functions::abs;
/// assert_eq!(abs(-2.5), 2.5);
/// ```
#[inline]
pub fn abs<D: Scalar>(x: D) -> D {
    if x.re() < 0.0 {
        -x
    } else {
        x
    }
}

/// The angle of the point (x, y), in (−π, π]; NaN at the origin, where it is undefined.
///
/// Unlike a derivative taken from `atan(y/x)`, every branch here divides by the larger of
/// |x| and |y|, so derivatives stay exact and finite on the axes (a pendulum hanging
/// straight down has x = 0).
///
/// ```
/// use lagrange_runtime::functions::atan2;
/// use num_dual::Dual64;
/// assert!((atan2(1.0, -1.0) - 3.0 * std::f64::consts::FRAC_PI_4).abs() < 1e-15);
/// // d/dx atan2(y, x) = −y / (x² + y²) at (x, y) = (0, 2):
/// let a = atan2(Dual64::from_re(2.0), Dual64::from_re(0.0).derivative());
/// assert_eq!(a.eps, -0.5);
/// ```
#[inline]
pub fn atan2<D: Scalar>(y: D, x: D) -> D {
    use std::f64::consts::{FRAC_PI_2, PI};
    let (xr, yr) = (x.re(), y.re());
    if xr == 0.0 && yr == 0.0 {
        return x * f64::NAN;
    }
    if xr.abs() >= yr.abs() {
        let base = (y / x).atan();
        if xr > 0.0 {
            base
        } else if yr >= 0.0 {
            base + PI
        } else {
            base - PI
        }
    } else {
        let base = -(x / y).atan();
        if yr > 0.0 {
            base + FRAC_PI_2
        } else {
            base - FRAC_PI_2
        }
    }
}

/// The largest |n| for which num-dual's `powi` is used directly: it forms n − 3 and
/// n(n − 1)(n − 2) in `i32` (for third-order dual numbers), which overflow past about
/// 1290 and near `i32::MIN`. The macro sends literal powers beyond it to `powf` too.
const DIRECT_POWI: i32 = 1024;

/// x^n for an integer n, any n: exponents beyond ±1024 are split, x^n = (x^(n/2))²
/// x^(n mod 2), where num-dual's `powi` would overflow an `i32` (for n near `i32::MIN`
/// in any dual number, for |n| > 46340 in second-order ones).
///
/// ```
/// use lagrange_runtime::functions::powi;
/// assert_eq!(powi(2.0, i32::MIN), 0.0);
/// assert_eq!(powi(-1.0, i32::MIN + 1), -1.0); // an odd power
/// ```
#[inline]
pub fn powi<D: Scalar>(x: D, n: i32) -> D {
    if (-DIRECT_POWI..=DIRECT_POWI).contains(&n) {
        x.powi(n)
    } else {
        let half = powi(x, n / 2);
        half * half * powi(x, n % 2)
    }
}

/// x^y for a constant real y.
#[inline]
pub fn powf<D: Scalar>(x: D, y: f64) -> D {
    x.powf(y)
}

/// x^y where the exponent y is itself a variable quantity: exp(y ln x) for x > 0. For
/// x ≤ 0 only integral exponents have a real power; it is computed as an integer power
/// (a parameter `n` in `x^n` with negative x), without a derivative with respect to the
/// exponent, which does not exist there.
///
/// ```
/// use lagrange_runtime::functions::powd;
/// assert_eq!(powd(-2.0, 3.0), -8.0);
/// assert!((powd(2.0, 0.5) - 2f64.sqrt()).abs() < 1e-15);
/// ```
#[inline]
pub fn powd<D: Scalar>(x: D, y: D) -> D {
    let n = y.re();
    if x.re() <= 0.0 && n.fract() == 0.0 && n.abs() <= f64::from(i32::MAX) {
        powi(x, n as i32)
    } else {
        x.powd(y)
    }
}

/// √(x² + y²).
///
/// ```
/// use lagrange_runtime::functions::hypot;
/// assert_eq!(hypot(3.0, 4.0), 5.0);
/// ```
#[inline]
pub fn hypot<D: Scalar>(x: D, y: D) -> D {
    (x * x + y * y).sqrt()
}

/// c / x for a constant c, without turning c into a dual number.
#[inline]
pub fn divide_constant<D: Scalar>(c: f64, x: D) -> D {
    x.recip() * c
}
