//! Running error analysis: a number that carries, beside its `f64` value, a bound on the
//! rounding error it has accumulated (Wilkinson; Higham, "Accuracy and Stability of
//! Numerical Algorithms", 2nd ed., §3.3). It is a [`Scalar`](crate::model::Scalar), so a
//! model's generated terms evaluate in it unchanged: one evaluation gives the value the
//! `f64` evaluation gives (the same operations in the same order) and a bound on how far
//! that value can be from the exact value of the same expression.
//!
//! The constraint checks ([`constrained`](crate::constrained)) use the bound as the size
//! of the terms a constraint is made of: at q = 0 the lengths in `x + l*cos(theta + pi/2)`
//! still make a residual of l·6e-17 rounding, where the sensitivity max|∂φ/∂q| max|q| is 0.
//!
//! The rules, with u = 2⁻⁵³ (the unit roundoff) and e the bound of each operand:
//!
//! | operation | bound of the result |
//! |---|---|
//! | a coordinate, velocity, input or time ([`Rounded::exact`], [`DualNum::from_re`]) | 0 |
//! | a constant c (`From<f64>`, an `f64` operand: literals, parameters) | u\|c\| |
//! | a ± b | e_a + e_b + u\|a ± b\| |
//! | a · b | \|a\| e_b + \|b\| e_a + e_a e_b + u\|ab\| |
//! | a / b | (e_a + \|a/b\| e_b) / \|b\| + u\|a/b\| |
//! | f(a) | \|f′(a)\| e_a + [`LIBM_ULPS`] ulp of f(a) (u for √, which is correctly rounded) |
//!
//! The bound is first order in e where a function's derivative is used (the neglected
//! terms are O(e²), far below the bound for any result that means something), and is
//! capped by what a function can change at all where its derivative blows up: √ and ∛
//! are Hölder continuous (|√x − √y| ≤ √|x − y|), arcsin and arccos move by at most π.
//! A constant subexpression (parameters and literals only) is computed in `f64` by the
//! generated code before it meets a variable, so it enters as one rounded constant: its
//! own cancellations (`cos(pi/2)` alone, 6e-17 where 0 is meant) are not seen.
//!
//! Overflow and underflow are not modelled: a result past them is not finite or is a
//! subnormal, and the checks that use the bound first require finite residuals.

use num_dual::{DualNum, DualStruct, Mappable};
use num_traits::{FromPrimitive, Inv, Num, One, Signed, Zero};
use std::fmt;
use std::iter::{Product, Sum};
use std::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

/// The unit roundoff u = 2⁻⁵³: a correctly rounded operation errs by at most u|result|.
pub(crate) const UNIT: f64 = f64::EPSILON / 2.0;

/// The error charged to a function of the platform's math library (sin, exp, ln, pow, …),
/// in units in the last place of its result: glibc documents at most 1 to 3 ulp for the
/// functions the language has on x86-64 and AArch64; 4 leaves a margin for other
/// libraries. One ulp of x is at most 2u|x|.
pub(crate) const LIBM_ULPS: f64 = 4.0;

/// A value and a bound on the absolute error it carries from rounding: |value − exact| ≤
/// `error` to first order, where exact is the value of the same expression evaluated
/// without rounding from the same inputs (coordinates exact, constants as given in
/// decimal). Comparisons read the value only, so that code branches as it does in `f64`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Rounded {
    /// What the `f64` evaluation gives.
    pub value: f64,
    /// The bound on |value − exact|.
    pub error: f64,
}

impl Rounded {
    /// An exact input: a coordinate, a velocity, an input, the time.
    pub(crate) const fn exact(value: f64) -> Self {
        Rounded { value, error: 0.0 }
    }

    /// A constant that was rounded once to `f64` (a literal, a parameter).
    pub(crate) fn constant(value: f64) -> Self {
        Rounded {
            value,
            error: UNIT * value.abs(),
        }
    }

    /// `value` with `propagated` error from its operands and one rounding of `ulps`
    /// units of u|value| (1 for a correctly rounded operation).
    fn new(value: f64, propagated: f64, rounding: f64) -> Self {
        Rounded {
            value,
            error: propagated + rounding * UNIT * value.abs(),
        }
    }

    /// The result `value` of a function of the math library with derivative `derivative`
    /// at self, its propagated error at most `cap` (what the function can change at all).
    fn function(self, value: f64, derivative: f64, cap: f64) -> Self {
        let propagated = propagate(derivative, self.error).min(cap);
        Rounded::new(value, propagated, 2.0 * LIBM_ULPS)
    }
}

/// |derivative| · error, 0 for an exact operand (even where the derivative is infinite:
/// √x at x = 0).
fn propagate(derivative: f64, error: f64) -> f64 {
    if error == 0.0 {
        0.0
    } else {
        derivative.abs() * error
    }
}

// ----- Arithmetic ---------------------------------------------------------------------

impl Add for Rounded {
    type Output = Rounded;
    #[inline]
    fn add(self, b: Rounded) -> Rounded {
        Rounded::new(self.value + b.value, self.error + b.error, 1.0)
    }
}

impl Sub for Rounded {
    type Output = Rounded;
    #[inline]
    fn sub(self, b: Rounded) -> Rounded {
        Rounded::new(self.value - b.value, self.error + b.error, 1.0)
    }
}

impl Mul for Rounded {
    type Output = Rounded;
    #[inline]
    fn mul(self, b: Rounded) -> Rounded {
        let propagated =
            propagate(self.value, b.error) + propagate(b.value, self.error) + self.error * b.error;
        Rounded::new(self.value * b.value, propagated, 1.0)
    }
}

impl Div for Rounded {
    type Output = Rounded;
    #[inline]
    /// |a/b − a′/b′| ≤ (e_a + |a/b| e_b) / (|b| − e_b) while e_b < |b|; beyond, the
    /// divisor may be 0 and the bound is infinite (no information).
    fn div(self, b: Rounded) -> Rounded {
        let value = self.value / b.value;
        let room = b.value.abs() - b.error;
        let propagated = if room > 0.0 {
            (self.error + propagate(value, b.error)) / room
        } else {
            f64::INFINITY
        };
        Rounded::new(value, propagated, 1.0)
    }
}

impl Rem for Rounded {
    type Output = Rounded;
    /// `fmod` is exact; the result moves with a and, −trunc(a/b) times, with b.
    #[inline]
    fn rem(self, b: Rounded) -> Rounded {
        let quotient = (self.value / b.value).trunc();
        Rounded::new(
            self.value % b.value,
            self.error + propagate(quotient, b.error),
            0.0,
        )
    }
}

impl Neg for Rounded {
    type Output = Rounded;
    #[inline]
    fn neg(self) -> Rounded {
        Rounded {
            value: -self.value,
            error: self.error,
        }
    }
}

impl Neg for &Rounded {
    type Output = Rounded;
    #[inline]
    fn neg(self) -> Rounded {
        -*self
    }
}

/// The operators with a reference and with an `f64` (a rounded constant), and their
/// assigning forms, all through the operator on two values.
macro_rules! forward {
    ($($trait:ident $method:ident $assign:ident $assign_method:ident;)*) => {$(
        impl $trait<&Rounded> for Rounded {
            type Output = Rounded;
            #[inline]
            fn $method(self, b: &Rounded) -> Rounded {
                $trait::$method(self, *b)
            }
        }
        impl $trait<f64> for Rounded {
            type Output = Rounded;
            #[inline]
            fn $method(self, b: f64) -> Rounded {
                $trait::$method(self, Rounded::constant(b))
            }
        }
        impl $assign for Rounded {
            #[inline]
            fn $assign_method(&mut self, b: Rounded) {
                *self = $trait::$method(*self, b);
            }
        }
        impl $assign<f64> for Rounded {
            #[inline]
            fn $assign_method(&mut self, b: f64) {
                *self = $trait::$method(*self, b);
            }
        }
    )*};
}

forward! {
    Add add AddAssign add_assign;
    Sub sub SubAssign sub_assign;
    Mul mul MulAssign mul_assign;
    Div div DivAssign div_assign;
    Rem rem RemAssign rem_assign;
}

impl Inv for Rounded {
    type Output = Rounded;
    #[inline]
    fn inv(self) -> Rounded {
        DualNum::recip(&self)
    }
}

impl Sum for Rounded {
    fn sum<I: Iterator<Item = Rounded>>(iter: I) -> Rounded {
        iter.fold(Rounded::zero(), Add::add)
    }
}

impl<'a> Sum<&'a Rounded> for Rounded {
    fn sum<I: Iterator<Item = &'a Rounded>>(iter: I) -> Rounded {
        iter.fold(Rounded::zero(), |a, b| a + *b)
    }
}

impl Product for Rounded {
    fn product<I: Iterator<Item = Rounded>>(iter: I) -> Rounded {
        iter.fold(Rounded::one(), Mul::mul)
    }
}

impl<'a> Product<&'a Rounded> for Rounded {
    fn product<I: Iterator<Item = &'a Rounded>>(iter: I) -> Rounded {
        iter.fold(Rounded::one(), |a, b| a * *b)
    }
}

// ----- num-traits -------------------------------------------------------------------------

impl Zero for Rounded {
    fn zero() -> Rounded {
        Rounded::exact(0.0)
    }
    fn is_zero(&self) -> bool {
        self.value == 0.0
    }
}

impl One for Rounded {
    fn one() -> Rounded {
        Rounded::exact(1.0)
    }
}

impl Num for Rounded {
    type FromStrRadixErr = <f64 as Num>::FromStrRadixErr;
    fn from_str_radix(s: &str, radix: u32) -> Result<Rounded, Self::FromStrRadixErr> {
        f64::from_str_radix(s, radix).map(Rounded::constant)
    }
}

impl Signed for Rounded {
    fn abs(&self) -> Rounded {
        Rounded {
            value: self.value.abs(),
            error: self.error,
        }
    }
    fn abs_sub(&self, other: &Rounded) -> Rounded {
        if self.value > other.value {
            *self - *other
        } else {
            Rounded::zero()
        }
    }
    /// Piecewise constant: exact.
    fn signum(&self) -> Rounded {
        Rounded::exact(if self.value > 0.0 {
            1.0
        } else if self.value < 0.0 {
            -1.0
        } else {
            0.0
        })
    }
    fn is_positive(&self) -> bool {
        self.value > 0.0
    }
    fn is_negative(&self) -> bool {
        self.value < 0.0
    }
}

impl FromPrimitive for Rounded {
    fn from_i64(n: i64) -> Option<Rounded> {
        f64::from_i64(n).map(Rounded::constant)
    }
    fn from_u64(n: u64) -> Option<Rounded> {
        f64::from_u64(n).map(Rounded::constant)
    }
    fn from_f64(n: f64) -> Option<Rounded> {
        Some(Rounded::constant(n))
    }
}

impl From<f64> for Rounded {
    /// A constant of the model, rounded once to `f64`.
    fn from(c: f64) -> Rounded {
        Rounded::constant(c)
    }
}

impl PartialEq for Rounded {
    fn eq(&self, other: &Rounded) -> bool {
        self.value == other.value
    }
}

impl PartialEq<f64> for Rounded {
    fn eq(&self, other: &f64) -> bool {
        self.value == *other
    }
}

impl PartialOrd for Rounded {
    fn partial_cmp(&self, other: &Rounded) -> Option<std::cmp::Ordering> {
        self.value.partial_cmp(&other.value)
    }
}

impl PartialOrd<f64> for Rounded {
    fn partial_cmp(&self, other: &f64) -> Option<std::cmp::Ordering> {
        self.value.partial_cmp(other)
    }
}

impl fmt::Display for Rounded {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} ± {}", self.value, self.error)
    }
}

// ----- num-dual ---------------------------------------------------------------------------

impl DualStruct for Rounded {
    type Real = f64;
    type Inner = f64;
    fn re(&self) -> f64 {
        self.value
    }
    fn from_inner(inner: &f64) -> Rounded {
        Rounded::exact(*inner)
    }
}

impl Mappable<Rounded> for Rounded {
    type Output<O> = O;
    fn map_dual<G: Fn(Rounded) -> O, O>(self, g: G) -> O {
        g(self)
    }
}

/// The Hölder bound of √: |√x − √y| ≤ √|x − y|.
fn sqrt_cap(error: f64) -> f64 {
    error.sqrt()
}

impl DualNum for Rounded {
    type Primitive = f64;
    const NDERIV: usize = 0;
    type InnerDual = f64;

    /// An exact value (the runtime lifts states with it); constants come through `From`.
    fn from_re(re: f64) -> Rounded {
        Rounded::exact(re)
    }

    fn scale(self, factor: &f64) -> Rounded {
        self * *factor
    }

    /// |1/x − 1/x′| ≤ e / (|x| (|x| − e)) while e < |x|; beyond, infinite.
    fn recip(&self) -> Rounded {
        let value = self.value.recip();
        let room = self.value.abs() - self.error;
        let propagated = if room > 0.0 {
            propagate(value / room, self.error)
        } else {
            f64::INFINITY
        };
        Rounded::new(value, propagated, 1.0)
    }

    /// x^n by repeated squaring (`f64::powi`), then 1/x^|n| for n < 0: a relative error
    /// of at most (|n| − 1) u to first order (squaring doubles the relative error: x⁴ as
    /// (x²)² errs by 3u), and one rounding more for the reciprocal.
    fn powi(&self, n: i32) -> Rounded {
        let value = self.value.powi(n);
        let derivative = if n == 0 {
            0.0
        } else {
            f64::from(n) * self.value.powi(n - 1)
        };
        let roundings =
            f64::from(n.unsigned_abs().saturating_sub(1)) + if n < 0 { 1.0 } else { 0.0 };
        Rounded::new(value, propagate(derivative, self.error), roundings)
    }

    fn powf(&self, n: f64) -> Rounded {
        let value = self.value.powf(n);
        let derivative = if n == 0.0 {
            0.0
        } else {
            n * self.value.powf(n - 1.0)
        };
        // The exponent is a rounded constant too: ∂(x^n)/∂n = x^n ln x.
        let exponent = propagate(value * self.value.ln(), UNIT * n.abs());
        let exponent = if exponent.is_nan() { 0.0 } else { exponent };
        // |xⁿ − yⁿ| ≤ |x − y|ⁿ for 0 < n ≤ 1: the cap where the derivative blows up at 0.
        let base = propagate(derivative, self.error);
        let base = if n > 0.0 && n <= 1.0 {
            base.min(self.error.powf(n))
        } else {
            base
        };
        Rounded::new(value, base + exponent, 2.0 * LIBM_ULPS)
    }

    fn powd(&self, n: Rounded) -> Rounded {
        let value = self.value.powf(n.value);
        let base = if n.value == 0.0 {
            0.0
        } else {
            n.value * self.value.powf(n.value - 1.0)
        };
        let propagated = propagate(base, self.error) + propagate(value * self.value.ln(), n.error);
        Rounded::new(value, propagated, 2.0 * LIBM_ULPS)
    }

    /// Correctly rounded (IEEE 754); the error propagates as |√x − √(x − ε)| =
    /// ε/(√x + √(x − ε)) (not the first-order ε/(2√x), up to 2× smaller where ε ≈ x), and
    /// never beyond √ε.
    fn sqrt(&self) -> Rounded {
        let value = self.value.sqrt();
        let below = (self.value - self.error).max(0.0).sqrt();
        let propagated = if self.error == 0.0 {
            0.0
        } else {
            (self.error / (value + below)).min(sqrt_cap(self.error))
        };
        Rounded::new(value, propagated, 1.0)
    }

    /// ∛: the error propagates as ε/(3∛x²) but never beyond 2^(2/3) ∛ε.
    fn cbrt(&self) -> Rounded {
        let value = self.value.cbrt();
        let cap = 1.6 * self.error.cbrt();
        self.function(value, 1.0 / (3.0 * value * value), cap)
    }

    fn exp(&self) -> Rounded {
        let value = self.value.exp();
        self.function(value, value, f64::INFINITY)
    }

    fn exp2(&self) -> Rounded {
        let value = self.value.exp2();
        self.function(value, value * std::f64::consts::LN_2, f64::INFINITY)
    }

    fn exp_m1(&self) -> Rounded {
        let value = self.value.exp_m1();
        self.function(value, self.value.exp(), f64::INFINITY)
    }

    fn ln(&self) -> Rounded {
        self.function(self.value.ln(), 1.0 / self.value, f64::INFINITY)
    }

    fn log(&self, base: f64) -> Rounded {
        let derivative = 1.0 / (self.value * base.ln());
        self.function(self.value.log(base), derivative, f64::INFINITY)
    }

    fn log2(&self) -> Rounded {
        let derivative = std::f64::consts::LOG2_E / self.value;
        self.function(self.value.log2(), derivative, f64::INFINITY)
    }

    fn log10(&self) -> Rounded {
        let derivative = std::f64::consts::LOG10_E / self.value;
        self.function(self.value.log10(), derivative, f64::INFINITY)
    }

    fn ln_1p(&self) -> Rounded {
        self.function(self.value.ln_1p(), 1.0 / (1.0 + self.value), f64::INFINITY)
    }

    fn sin(&self) -> Rounded {
        self.function(self.value.sin(), self.value.cos(), 2.0)
    }

    fn cos(&self) -> Rounded {
        self.function(self.value.cos(), self.value.sin(), 2.0)
    }

    fn tan(&self) -> Rounded {
        let value = self.value.tan();
        self.function(value, 1.0 + value * value, f64::INFINITY)
    }

    fn sin_cos(&self) -> (Rounded, Rounded) {
        (DualNum::sin(self), DualNum::cos(self))
    }

    fn asin(&self) -> Rounded {
        let derivative = 1.0 / (1.0 - self.value * self.value).sqrt();
        self.function(self.value.asin(), derivative, std::f64::consts::PI)
    }

    fn acos(&self) -> Rounded {
        let derivative = 1.0 / (1.0 - self.value * self.value).sqrt();
        self.function(self.value.acos(), derivative, std::f64::consts::PI)
    }

    fn atan(&self) -> Rounded {
        let derivative = 1.0 / (1.0 + self.value * self.value);
        self.function(self.value.atan(), derivative, std::f64::consts::PI)
    }

    /// atan2(self, x): moves by (|x| e_y + |y| e_x)/(x² + y²), at most 2π.
    fn atan2(&self, x: Rounded) -> Rounded {
        let (y, value) = (*self, self.value.atan2(x.value));
        let r2 = y.value * y.value + x.value * x.value;
        let propagated = (propagate(x.value, y.error) + propagate(y.value, x.error)) / r2;
        let propagated = if y.error == 0.0 && x.error == 0.0 {
            0.0
        } else {
            propagated.min(2.0 * std::f64::consts::PI)
        };
        Rounded::new(value, propagated, 2.0 * LIBM_ULPS)
    }

    fn sinh(&self) -> Rounded {
        self.function(self.value.sinh(), self.value.cosh(), f64::INFINITY)
    }

    fn cosh(&self) -> Rounded {
        self.function(self.value.cosh(), self.value.sinh(), f64::INFINITY)
    }

    fn tanh(&self) -> Rounded {
        let value = self.value.tanh();
        self.function(value, 1.0 - value * value, 2.0)
    }

    fn asinh(&self) -> Rounded {
        let derivative = 1.0 / (1.0 + self.value * self.value).sqrt();
        self.function(self.value.asinh(), derivative, f64::INFINITY)
    }

    fn acosh(&self) -> Rounded {
        let derivative = 1.0 / (self.value * self.value - 1.0).sqrt();
        self.function(self.value.acosh(), derivative, f64::INFINITY)
    }

    fn atanh(&self) -> Rounded {
        let derivative = 1.0 / (1.0 - self.value * self.value);
        self.function(self.value.atanh(), derivative, f64::INFINITY)
    }

    // The spherical Bessel functions by the formulas num-dual evaluates them with in
    // `f64`, in this arithmetic: the same values, and the cancellation of
    // (sin x / x − cos x) / x near 0 in the bound.

    fn sph_j0(&self) -> Rounded {
        if self.value.abs() < f64::EPSILON {
            Rounded::one() - *self * *self / 6.0
        } else {
            DualNum::sin(self) / *self
        }
    }

    fn sph_j1(&self) -> Rounded {
        if self.value.abs() < f64::EPSILON {
            *self / 3.0
        } else {
            let (s, c) = DualNum::sin_cos(self);
            let rec = DualNum::recip(self);
            (s * rec - c) * rec
        }
    }

    fn sph_j2(&self) -> Rounded {
        if self.value.abs() < f64::EPSILON {
            *self * *self / 15.0
        } else {
            let (s, c) = DualNum::sin_cos(self);
            let s2 = *self * *self;
            ((Rounded::constant(3.0) - s2) * s - Rounded::constant(3.0) * *self * c) / (*self * s2)
        }
    }

    /// Fused: one rounding of self·a + b.
    fn mul_add(&self, a: Rounded, b: Rounded) -> Rounded {
        let value = self.value.mul_add(a.value, b.value);
        let propagated = propagate(self.value, a.error)
            + propagate(a.value, self.error)
            + self.error * a.error
            + b.error;
        Rounded::new(value, propagated, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A double-double number hi + lo (Dekker, Knuth): the truth the bounds are tested
    /// against, about 106 bits, exact for the sums and products of a few f64.
    #[derive(Clone, Copy, Debug)]
    struct Dd(f64, f64);

    fn two_sum(a: f64, b: f64) -> Dd {
        let s = a + b;
        let bb = s - a;
        Dd(s, (a - (s - bb)) + (b - bb))
    }

    fn fast(a: f64, b: f64) -> Dd {
        let s = a + b;
        Dd(s, b - (s - a))
    }

    impl Dd {
        fn add(self, b: Dd) -> Dd {
            let Dd(s, e) = two_sum(self.0, b.0);
            fast(s, e + self.1 + b.1)
        }
        fn neg(self) -> Dd {
            Dd(-self.0, -self.1)
        }
        fn mul(self, b: Dd) -> Dd {
            let p = self.0 * b.0;
            let e = self.0.mul_add(b.0, -p) + self.0 * b.1 + self.1 * b.0;
            fast(p, e)
        }
        fn div(self, b: Dd) -> Dd {
            let q1 = self.0 / b.0;
            let r = self.add(b.mul(Dd(q1, 0.0)).neg());
            let q2 = r.0 / b.0;
            let r = r.add(b.mul(Dd(q2, 0.0)).neg());
            let q3 = r.0 / b.0;
            fast(q1, q2).add(Dd(q3, 0.0))
        }
        /// self − value, rounded once: the error of an f64 value against this truth.
        fn minus(self, value: f64) -> f64 {
            (self.0 - value) + self.1
        }
    }

    /// xorshift64*: deterministic random numbers without a dependency.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        /// Uniform in [−1, 1).
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
    }

    /// A random expression of depth `depth` over the inputs `x`, in both arithmetics at
    /// once; the inputs are exact (error 0 in both).
    fn expression(r: &mut Random, x: &[f64], depth: u32) -> (Rounded, Dd) {
        if depth == 0 || r.next().is_multiple_of(5) {
            let v = x[(r.next() % x.len() as u64) as usize];
            return (Rounded::exact(v), Dd(v, 0.0));
        }
        let (a, ta) = expression(r, x, depth - 1);
        let (b, tb) = expression(r, x, depth - 1);
        match r.next() % 4 {
            0 => (a + b, ta.add(tb)),
            1 => (a - b, ta.add(tb.neg())),
            2 => (a * b, ta.mul(tb)),
            _ if b.value.abs() > 1e-3 * (1.0 + a.value.abs()) => (a / b, ta.div(tb)),
            _ => (a - b, ta.add(tb.neg())),
        }
    }

    #[test]
    fn the_bound_bounds_the_error_of_random_expressions() {
        let mut r = Random(0x9e37_79b9_7f4a_7c15);
        let (mut worst, mut cancelled) = (0.0f64, 0);
        for _ in 0..20_000 {
            // Inputs of different sizes, some nearly equal (cancellation).
            let base = r.unit();
            let x: Vec<f64> = (0..5)
                .map(|i| {
                    if i < 2 {
                        base + r.unit() * 1e-9
                    } else {
                        r.unit() * 2f64.powi((r.next() % 20) as i32 - 10)
                    }
                })
                .collect();
            let (v, truth) = expression(&mut r, &x, 6);
            if !(v.value.is_finite() && v.error.is_finite() && truth.0.is_finite()) {
                continue;
            }
            let error = truth.minus(v.value).abs();
            assert!(
                error <= v.error,
                "error {error:e} above the bound {:e} of {v}",
                v.error
            );
            if error > 0.0 {
                worst = worst.max(error / v.error);
            }
            if v.error > 1e3 * UNIT * v.value.abs() {
                cancelled += 1;
            }
        }
        // The bound is not vacuous: some errors come within a factor 100 of it, and the
        // cancellations the inputs provoke are in the sample.
        assert!(worst > 1e-2, "largest error / bound {worst}");
        assert!(cancelled > 100, "{cancelled} cancellations");
    }

    #[test]
    fn integer_cases() {
        // (1 + 1e16) − 1e16: 1e16 + 1 rounds to 1e16 (the spacing there is 2), so the
        // value is 0 where the exact answer is 1.
        let one = Rounded::exact(1.0);
        let v = (one + 1e16) - 1e16;
        assert_eq!(v.value, 0.0);
        assert!(v.error >= 1.0 && v.error < 8.0, "{v}");
        // Sums and products of small integers are exact, and so is their bound's cause:
        // the bound is u times the sizes met, nothing more.
        let (a, b) = (Rounded::exact(3.0), Rounded::exact(7.0));
        let v = a * b - a - b;
        assert_eq!(v.value, 11.0);
        assert_eq!(v.error, UNIT * (21.0 + 18.0 + 11.0));
        // x + l cos(θ + π/2) at θ = 0, l = 2: cos of the rounded π/2 is 6.1e-17, where
        // the exact value (with the π/2 of the model) is 0.
        let theta = Rounded::exact(0.0);
        let v = Rounded::exact(0.0) + DualNum::cos(&(theta + std::f64::consts::FRAC_PI_2)) * 2.0;
        assert!(
            v.value > 1e-16 && v.value <= v.error && v.error < 1e-15,
            "{v}"
        );
        // Exact inputs through exact operations: the bound is 0 exactly when the value is.
        let z = Rounded::exact(0.0);
        let v = z * 5.0 + DualNum::sin(&z) - z;
        assert_eq!((v.value, v.error), (0.0, 0.0));
    }

    #[test]
    fn functions_propagate_their_argument_s_error() {
        // The argument a sum s with a known rounding error (hi + lo exactly); the truth of
        // f(s) is f(hi) + f′(hi) lo to O(lo²), plus the library's own error in f(hi),
        // which the bound covers with its LIBM_ULPS (one ulp of it is left for the truth's).
        let mut r = Random(7);
        type Case = (
            &'static str,
            fn(Rounded) -> Rounded,
            fn(f64) -> f64,
            fn(f64) -> f64,
        );
        let functions: [Case; 11] = [
            ("sin", |x| DualNum::sin(&x), f64::sin, f64::cos),
            ("cos", |x| DualNum::cos(&x), f64::cos, |x| -x.sin()),
            (
                "tan",
                |x| DualNum::tan(&x),
                f64::tan,
                |x| 1.0 + x.tan().powi(2),
            ),
            ("exp", |x| DualNum::exp(&x), f64::exp, f64::exp),
            (
                "ln",
                |x| DualNum::ln(&x.abs()),
                |x| x.abs().ln(),
                |x| 1.0 / x,
            ),
            (
                "sqrt",
                |x| DualNum::sqrt(&x.abs()),
                |x| x.abs().sqrt(),
                |x| x.signum() * 0.5 / x.abs().sqrt(),
            ),
            (
                "atan",
                |x| DualNum::atan(&x),
                f64::atan,
                |x| 1.0 / (1.0 + x * x),
            ),
            (
                "tanh",
                |x| DualNum::tanh(&x),
                f64::tanh,
                |x| 1.0 - x.tanh().powi(2),
            ),
            (
                "asin",
                |x| DualNum::asin(&(x * 0.25)),
                |x| (x * 0.25).asin(),
                |x| 0.25 / (1.0 - x * x / 16.0).sqrt(),
            ),
            (
                "powi",
                |x| DualNum::powi(&x, 5),
                |x| x.powi(5),
                |x| 5.0 * x.powi(4),
            ),
            (
                "cbrt",
                |x| DualNum::cbrt(&x),
                f64::cbrt,
                |x| 1.0 / (3.0 * x.cbrt().powi(2)),
            ),
        ];
        for (name, f, value, derivative) in functions {
            for _ in 0..2000 {
                let (a, b) = (r.unit() * 3.0, r.unit() * 1e-3);
                let s = Rounded::exact(a) + Rounded::exact(b);
                let Dd(hi, lo) = two_sum(a, b);
                assert_eq!(s.value, hi);
                assert!(lo.abs() <= s.error);
                let y = f(s);
                assert_eq!(
                    y.value.to_bits(),
                    value(hi).to_bits(),
                    "{name}: the f64 value"
                );
                let moved = (derivative(hi) * lo).abs();
                // √ is correctly rounded: the truth's own error is half an ulp.
                let ulps = if name == "sqrt" { 1.0 } else { 2.0 };
                let truth_ulp = ulps * UNIT * y.value.abs();
                assert!(
                    moved + truth_ulp <= y.error,
                    "{name}({hi:e} + {lo:e}): moved {moved:e}, bound {:e}",
                    y.error
                );
            }
        }
    }

    #[test]
    fn hoelder_caps_where_the_derivative_is_infinite() {
        // √ of a rounded 0 (1e-30 + 1 − 1): the exact value 1e-15, computed 0.
        let tiny = (Rounded::exact(1e-30) + 1.0) - 1.0;
        assert_eq!(tiny.value, 0.0);
        let root = DualNum::sqrt(&tiny);
        assert!(
            root.value == 0.0 && root.error.is_finite() && root.error >= 1e-15,
            "{root}"
        );
        // An exact 0 stays exact.
        let root = DualNum::sqrt(&Rounded::exact(0.0));
        assert_eq!((root.value, root.error), (0.0, 0.0));
        // A real power below 1 is capped the same way: |xⁿ − yⁿ| ≤ |x − y|ⁿ (it was
        // infinite, and an infinite scale accepts any residual).
        let half = DualNum::powf(&tiny, 0.5);
        assert!(
            half.value == 0.0 && half.error.is_finite() && half.error >= 1e-15,
            "{half}"
        );
    }

    #[test]
    fn a_divisor_that_may_be_zero_has_no_finite_bound() {
        // cos of the rounded π/2 is 6.1e-17 where the exact value is 0: 1/cos(π/2) is
        // infinite exactly, so no finite bound holds (the first-order one was finite).
        let c = DualNum::cos(&(Rounded::exact(0.0) + std::f64::consts::FRAC_PI_2));
        assert!(c.error >= c.value.abs(), "{c}");
        assert_eq!(DualNum::recip(&c).error, f64::INFINITY);
        assert_eq!((Rounded::exact(1.0) / c).error, f64::INFINITY);
        // A divisor well away from 0 keeps a bound of a few roundings.
        let q = Rounded::exact(1.0) / (Rounded::exact(3.0) + 0.1);
        assert!(
            q.error > 0.0 && q.error < 4.0 * f64::EPSILON * q.value,
            "{q}"
        );
    }

    #[test]
    fn a_tangent_carries_the_bound_of_the_derivative() {
        // d/dt (x² − 9) along ẋ = 1 at x = 3, in Dual<Rounded> as the generated velocity
        // forms evaluate it: 6, exact inputs, one rounding of 2·3 and of 3·1 + 1·3.
        use num_dual::Dual;
        let x = Dual::new(Rounded::exact(3.0), Rounded::exact(1.0));
        let v = x * x - Dual::from_re(Rounded::from(9.0));
        assert_eq!((v.re.value, v.eps.value), (0.0, 6.0));
        assert!(v.eps.error > 0.0 && v.eps.error < 1e-14, "{}", v.eps);
        assert!(v.re.error >= 9.0 * UNIT, "{}", v.re);
    }
}
