//! The functions of the language with their first two derivatives, in any
//! [`Scalar`] (plain `f64` for the unrolled fast path, dual numbers when the sweep's
//! equations are differentiated again), for the code `lagrangian!` generates.
//!
//! A unary function returns `[f(x), f′(x), f″(x)]`; a binary one `[f, f_x, f_y, f_xx,
//! f_xy, f_yy]`. The generated code applies the chain rule of second-order forward-mode
//! AD with them, component by component. Each formula is the one num-dual uses for the
//! same function (or the one [`functions`](crate::functions) builds it from), so the fast
//! path and the generic dual-number passes agree to rounding where the results are finite.
//! Past an overflow, or outside a function's domain, the generic passes can give NaN where
//! the fast path, which never forms a structurally zero product such as 0 · ∞, gives a
//! number; the Lagrangian itself is then usually non-finite, which `accelerations` reports.

use crate::model::Scalar;
use std::f64::consts::LN_10;

macro_rules! jet {
    ($($(#[$doc:meta])* fn $name:ident($x:ident) $body:block)*) => {$(
        $(#[$doc])*
        #[inline]
        #[must_use]
        pub fn $name<S: Scalar>($x: S) -> [S; 3] $body
    )*};
}

jet! {
    /// Sine.
    fn sin(x) {
        let (s, c) = x.sin_cos();
        [s, c, -s]
    }
    /// Cosine.
    fn cos(x) {
        let (s, c) = x.sin_cos();
        [c, -s, -c]
    }
    /// Tangent, as sin / cos.
    fn tan(x) {
        let t = x.tan();
        let d = t * t + 1.0;
        [t, d, t * d * 2.0]
    }
    /// Arcsine.
    fn asin(x) {
        let rec = (-(x * x) + 1.0).recip();
        let f1 = rec.sqrt();
        [x.asin(), f1, x * f1 * rec]
    }
    /// Arccosine.
    fn acos(x) {
        let rec = (-(x * x) + 1.0).recip();
        let f1 = -rec.sqrt();
        [x.acos(), f1, x * f1 * rec]
    }
    /// Arctangent.
    fn atan(x) {
        let rec = (x * x + 1.0).recip();
        [x.atan(), rec, -x * rec * rec * 2.0]
    }
    /// Hyperbolic sine.
    fn sinh(x) {
        let (s, c) = (x.sinh(), x.cosh());
        [s, c, s]
    }
    /// Hyperbolic cosine.
    fn cosh(x) {
        let (s, c) = (x.sinh(), x.cosh());
        [c, s, c]
    }
    /// Hyperbolic tangent.
    fn tanh(x) {
        let t = x.tanh();
        let d = -(t * t) + 1.0;
        [t, d, t * d * -2.0]
    }
    /// e^x.
    fn exp(x) {
        let e = x.exp();
        [e, e, e]
    }
    /// Natural logarithm.
    fn ln(x) {
        let rec = x.recip();
        [x.ln(), rec, -rec * rec]
    }
    /// Base-10 logarithm.
    fn log10(x) {
        let rec = x.recip();
        let f1 = rec / LN_10;
        [x.log10(), f1, -f1 * rec]
    }
    /// Square root.
    fn sqrt(x) {
        let rec = x.recip();
        let f0 = x.sqrt();
        let f1 = f0 * rec * 0.5;
        [f0, f1, -f1 * rec * 0.5]
    }
    /// Cube root.
    fn cbrt(x) {
        let rec = x.recip();
        let f0 = x.cbrt();
        let f1 = f0 * rec * (1.0 / 3.0);
        [f0, f1, f1 * rec * (1.0 / 3.0 - 1.0)]
    }
    /// |x|, with the derivative at 0 from the positive side.
    fn abs(x) {
        let (zero, one) = (S::from(0.0), S::from(1.0));
        if x.re() < 0.0 {
            [-x, -one, zero]
        } else {
            [x, one, zero]
        }
    }
    /// 1 / x.
    fn recip(x) {
        let rec = x.recip();
        let f1 = -rec * rec;
        [rec, f1, -f1 * rec * 2.0]
    }
}

/// x^n for an integer n, any n (as [`functions::powi`](crate::functions::powi), which
/// it evaluates with).
///
/// ```
/// use lagrange_runtime::jet::powi;
/// assert_eq!(powi(2.0, i32::MIN), [0.0, 0.0, 0.0]);
/// assert_eq!(powi(1.0, i32::MIN), [1.0, f64::from(i32::MIN), 2f64.powi(62) + 2f64.powi(31)]);
/// ```
#[inline]
#[must_use]
pub fn powi<S: Scalar>(x: S, n: i32) -> [S; 3] {
    let (zero, one) = (S::from(0.0), S::from(1.0));
    match n {
        0 => [one, zero, zero],
        1 => [x, one, zero],
        2 => [x * x, x * 2.0, S::from(2.0)],
        _ => {
            // x^(n−3), in two factors where n − 3 would overflow.
            let pow3 = match n.checked_sub(3) {
                Some(m) => crate::functions::powi(x, m),
                None => crate::functions::powi(x, n / 2) * crate::functions::powi(x, n - n / 2 - 3),
            };
            let n = f64::from(n);
            [pow3 * x * x * x, pow3 * x * x * n, pow3 * x * n * (n - 1.0)]
        }
    }
}

/// x^n for a real n that does not vary with the state.
#[inline]
#[must_use]
pub fn powf<S: Scalar>(x: S, n: f64) -> [S; 3] {
    let (zero, one) = (S::from(0.0), S::from(1.0));
    if n == 0.0 {
        [one, zero, zero]
    } else if n == 1.0 {
        [x, one, zero]
    } else if (n - 2.0).abs() < f64::EPSILON {
        [x * x, x * 2.0, S::from(2.0)]
    } else {
        let n1 = n - 1.0;
        let pow3 = x.powf(n - 3.0);
        [pow3 * x * x * x, pow3 * x * x * n, pow3 * x * n * n1]
    }
}

/// x^y where the exponent varies too, as [`functions::powd`](crate::functions::powd):
/// exp(y ln x), or for x ≤ 0 and an integral y the integer power, without derivatives
/// with respect to y.
#[inline]
#[must_use]
pub fn powd<S: Scalar>(x: S, y: S) -> [S; 6] {
    let n = y.re();
    if x.re() <= 0.0 && n.fract() == 0.0 && n.abs() <= f64::from(i32::MAX) {
        // `y` is integral and within `i32` here.
        #[allow(clippy::cast_possible_truncation)]
        let [f, fx, fxx] = powi(x, n as i32);
        let zero = S::from(0.0);
        return [f, fx, zero, fxx, zero, zero];
    }
    let ln = x.ln();
    let f = (y * ln).exp();
    let rec = x.recip();
    let fx = f * y * rec;
    [
        f,
        fx,
        f * ln,
        fx * (y - 1.0) * rec,
        f * rec * (y * ln + 1.0),
        f * ln * ln,
    ]
}

/// The angle of (x, y) as [`functions::atan2`](crate::functions::atan2): NaN at the
/// origin. Arguments in the order of the language: `atan2(y, x)`, so the partials are
/// with respect to y, then x.
#[inline]
#[must_use]
pub fn atan2<S: Scalar>(y: S, x: S) -> [S; 6] {
    if x.re() == 0.0 && y.re() == 0.0 {
        return [S::from(f64::NAN); 6];
    }
    let r2 = x * x + y * y;
    let rec = r2.recip();
    let rec2 = rec * rec;
    [
        crate::functions::atan2(y, x),
        x * rec,
        -y * rec,
        x * y * rec2 * -2.0,
        (y * y - x * x) * rec2,
        x * y * rec2 * 2.0,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_dual::{Dual2, DualNum};

    /// The jet of `f` at `x` from num-dual's second-order dual.
    fn reference(f: impl Fn(Dual2<f64>) -> Dual2<f64>, x: f64) -> [f64; 3] {
        let d = f(Dual2::from_re(x).derivative());
        [d.re, d.v1, d.v2]
    }

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        a.iter()
            .zip(b.iter())
            .all(|(a, b)| (a - b).abs() <= 1e-13 * (1.0 + a.abs().max(b.abs())))
    }

    #[test]
    fn unary_jets_match_num_dual() {
        type F = fn(Dual2<f64>) -> Dual2<f64>;
        type Jet = fn(f64) -> [f64; 3];
        let cases: [(Jet, F, f64); 16] = [
            (sin, |x| x.sin(), 0.7),
            (cos, |x| x.cos(), -1.3),
            (tan, |x| x.tan(), 0.4),
            (asin, |x| x.asin(), 0.3),
            (acos, |x| x.acos(), -0.6),
            (atan, |x| x.atan(), 2.0),
            (sinh, |x| x.sinh(), 0.9),
            (cosh, |x| x.cosh(), -0.8),
            (tanh, |x| x.tanh(), 0.5),
            (exp, |x| x.exp(), 1.1),
            (ln, |x| x.ln(), 2.5),
            (log10, |x| x.log10(), 3.5),
            (sqrt, |x| x.sqrt(), 1.7),
            (cbrt, |x| x.cbrt(), -2.2),
            (abs, |x| if x.re < 0.0 { -x } else { x }, -0.3),
            (recip, |x| x.recip(), -1.9),
        ];
        for (i, (jet, dual, x)) in cases.into_iter().enumerate() {
            assert!(close(jet(x), reference(dual, x)), "case {i}");
        }
        for n in [-3, 0, 1, 2, 3, 7] {
            assert!(
                close(powi(1.3, n), reference(|x| x.powi(n), 1.3)),
                "powi {n}"
            );
        }
        // Issue 29, item 10: beyond ±1024 num-dual's powi overflows an i32 (it panicked
        // at i32::MIN, and at |n| > 46340 in second-order duals); the split agrees with
        // the closed form.
        for n in [1025, -1025, 46341, -46341, i32::MAX, i32::MIN + 1, i32::MIN] {
            let x = if n.unsigned_abs() > 50_000 {
                1.0
            } else {
                1.0005
            };
            let nf = f64::from(n);
            let want = [
                x.powf(nf),
                nf * x.powf(nf - 1.0),
                nf * (nf - 1.0) * x.powf(nf - 2.0),
            ];
            let got = powi(x, n);
            for k in 0..3 {
                assert!(
                    (got[k] - want[k]).abs() <= 1e-11 * want[k].abs(),
                    "powi {n}, derivative {k}: {} vs {}",
                    got[k],
                    want[k]
                );
            }
            let dual = reference(|x| crate::functions::powi(x, n), x);
            assert!(
                close(got, dual) || n.unsigned_abs() > 50_000,
                "powi {n} against Dual2"
            );
        }
        for n in [0.0, 1.0, 2.0, 0.5, -1.5] {
            assert!(
                close(powf(1.3, n), reference(|x| x.powf(n), 1.3)),
                "powf {n}"
            );
        }
    }

    #[test]
    fn binary_jets_match_num_dual() {
        use num_dual::HyperDual64;
        // f_xy from a hyper-dual, f_xx and f_yy from second-order duals.
        let check =
            |jet: [f64; 6], f: &dyn Fn(HyperDual64, HyperDual64) -> HyperDual64, a: f64, b: f64| {
                let h = |da: [f64; 2], db: [f64; 2]| {
                    let x = HyperDual64::new(a, da[0], da[1], 0.0);
                    let y = HyperDual64::new(b, db[0], db[1], 0.0);
                    f(x, y)
                };
                let xy = h([1.0, 0.0], [0.0, 1.0]);
                let xx = h([1.0, 1.0], [0.0, 0.0]);
                let yy = h([0.0, 0.0], [1.0, 1.0]);
                let want = [
                    xy.re,
                    xy.eps1,
                    xy.eps2,
                    xx.eps1eps2,
                    xy.eps1eps2,
                    yy.eps1eps2,
                ];
                for (a, b) in jet.iter().zip(want.iter()) {
                    assert!(
                        (a - b).abs() <= 1e-13 * (1.0 + a.abs()),
                        "{jet:?} vs {want:?}"
                    );
                }
            };
        check(powd(1.7, 0.6), &|x, y| x.powd(y), 1.7, 0.6);
        check(
            atan2(0.8, -1.4),
            &|y, x| (y / x).atan() + std::f64::consts::PI,
            0.8,
            -1.4,
        );
        let [f, fx, fy, fxx, fxy, fyy] = powd(-2.0_f64, 3.0);
        assert_eq!(
            [f, fx, fy, fxx, fxy, fyy],
            [-8.0, 12.0, 0.0, -12.0, 0.0, 0.0]
        );
        assert!(atan2(0.0_f64, 0.0)[0].is_nan());
    }
}
