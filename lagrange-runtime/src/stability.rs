//! Stability of equilibria and steady motions: the eigenvalues and modes of a
//! [`Linearization`](crate::linearize::Linearization) in independent coordinates of the
//! constraint manifold, and a plain classification.
//!
//! A constrained model's state x = (q, q̇) is not free: holonomic constraints hold at
//! position and velocity level, nonholonomic ones at velocity level. The linearization in
//! the redundant coordinates then has eigenvalues that belong to the constraint
//! directions, not to the motion (pairs of rounding size, ±7e-8 i say, where the
//! constraints hold exactly). [`Linearization::tangent`](crate::linearize::Linearization::tangent)
//! is an orthonormal basis V of the tangent space of the manifold at the state, and
//! `Vᵀ A V` is the Jacobian of the flow written in that chart: its eigenvalues are the
//! system's and nothing else. Without constraints V is the identity.
//!
//! For a steady motion the linearization is about a moving state; its eigenvalues mean
//! what they mean for an equilibrium when the steady motion is one of a symmetry (the
//! turning coordinates are cyclic: nothing depends on them, so the linearized equations
//! have constant coefficients). The symmetry itself shows as zero eigenvalues: the phase
//! of the turning coordinates, and the neighbouring steady motions at other rates.
//!
//! The classification is of the linearization: eigenvalues in the left half plane mean
//! asymptotic stability, one in the right half plane instability. Marginal (eigenvalues on
//! the imaginary axis, the rule for conservative systems) leaves the nonlinear question
//! open, as it does in every textbook; for a conservative system it is the linear
//! stability that the textbook criteria (the sleeping top, the rolling coin) state.
//!
//! # Example
//! A damped oscillator, m ẍ + c ẋ + k x = 0, is asymptotically stable with
//! λ = −σ ± i √(k/m − σ²), σ = c / 2m:
//! ```
//! use lagrange_runtime::prelude::*;
//! use lagrange_runtime::linearize::linearize;
//! use lagrange_runtime::stability::Stability;
//!
//! lagrangian! {
//!     struct Damped {
//!         parameters: m = 1.0, c = 0.4, k = 4.0;
//!         coordinates: x;
//!         kinetic = m/2 * dot(x)^2;
//!         potential = k/2 * x^2;
//!         dissipation = c/2 * dot(x)^2;
//!     }
//! }
//!
//! let lin = linearize(&Damped::default(), &State::at_rest(SVector::zeros()), &SVector::zeros()).unwrap();
//! let spectrum = lin.spectrum().unwrap();
//! assert_eq!(spectrum.stability(), Stability::AsymptoticallyStable);
//! for lambda in &spectrum.eigenvalues {
//!     assert!((lambda.re - -0.2).abs() < 1e-12 && (lambda.im.abs() - 3.96f64.sqrt()).abs() < 1e-12);
//! }
//! ```

use crate::error::DynamicsError;
use crate::linalg;
use crate::tolerances;
use nalgebra::{Complex, DMatrix, SVector};

/// The stability of an equilibrium or a steady motion, read off the eigenvalues λ of its
/// linearization in independent coordinates.
///
/// # Example
/// A pendulum's two equilibria: hanging (marginal, eigenvalues ±i √(g/l)) and inverted
/// (unstable, ±√(g/l)).
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::stability::Stability;
/// use lagrange_runtime::steady::equilibrium;
///
/// lagrangian! {
///     struct Pendulum {
///         parameters: m = 1.0, l = 1.0, g = 9.81;
///         coordinates: theta;
///         kinetic = m/2 * l^2 * dot(theta)^2;
///         potential = -m * g * l * cos(theta);
///     }
/// }
///
/// let model = Pendulum::default();
/// let u = SVector::zeros();
/// let down = equilibrium(&model, &State::at_rest(SVector::from([0.1])), &u).unwrap();
/// let up = equilibrium(&model, &State::at_rest(SVector::from([3.0])), &u).unwrap();
/// assert!(down.state.q[0].abs() < 1e-12 && (up.state.q[0] - std::f64::consts::PI).abs() < 1e-12);
/// assert_eq!(down.stability(), Stability::Marginal);
/// assert_eq!(up.stability(), Stability::Unstable);
/// assert!((up.spectrum.largest_real_part() - 9.81f64.sqrt()).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stability {
    /// Every Re λ < 0: small disturbances die out.
    AsymptoticallyStable,
    /// No Re λ > 0, some Re λ = 0 (to the margin): small disturbances neither grow
    /// exponentially nor die out; linearly stable, the usual case of conservative systems.
    Marginal,
    /// Some Re λ > 0: some small disturbance grows exponentially.
    Unstable,
}

/// One eigenvalue of the linearization and its mode: the motion x(t) = Re(c e^{λt} x̂).
///
/// # Example
/// The modes of two unit masses between three springs: at √(k/m) they swing together
/// (x1 = x2), at √(3k/m) against each other (x1 = −x2).
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::linearize::linearize;
///
/// lagrangian! {
///     struct Masses {
///         parameters: m = 1.0, k = 4.0;
///         coordinates: x1, x2;
///         kinetic = m/2 * (dot(x1)^2 + dot(x2)^2);
///         potential = k/2 * (x1^2 + (x2 - x1)^2 + x2^2);
///     }
/// }
///
/// let rest = State::at_rest(SVector::zeros());
/// let spectrum = linearize(&Masses::default(), &rest, &SVector::zeros()).unwrap().spectrum().unwrap();
/// for mode in spectrum.modes() {
///     let ratio = mode.positions[1] / mode.positions[0];
///     if (mode.eigenvalue.im.abs() - 2.0).abs() < 1e-9 {
///         assert!((ratio.re - 1.0).abs() < 1e-12 && ratio.im.abs() < 1e-12); // together
///     } else {
///         assert!((mode.eigenvalue.im.abs() - 12f64.sqrt()).abs() < 1e-9);
///         assert!((ratio.re + 1.0).abs() < 1e-12 && ratio.im.abs() < 1e-12); // against
///     }
///     // x̂ = (positions, velocities) with velocities = λ positions.
///     assert!((mode.velocities - mode.positions * mode.eigenvalue).norm() < 1e-12);
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Mode<const N: usize> {
    /// λ: the growth rate (real part) and the angular frequency (imaginary part).
    pub eigenvalue: Complex<f64>,
    /// The coordinates' part of x̂, unit length together with `velocities`, its largest
    /// entry real and positive.
    pub positions: SVector<Complex<f64>, N>,
    /// The velocities' part of x̂ (λ times `positions` for λ ≠ 0).
    pub velocities: SVector<Complex<f64>, N>,
}

/// The eigenvalues of a linearization in independent coordinates, sorted by decreasing
/// real part (then decreasing imaginary part), and their modes on demand.
///
/// # Example
/// Two unit masses between three springs k (wall, mass, mass, wall): the eigenvalues are
/// ±i √(k/m) and ±i √(3k/m), sorted by decreasing imaginary part at equal real parts.
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::linearize::linearize;
/// use lagrange_runtime::stability::Stability;
///
/// lagrangian! {
///     struct Masses {
///         parameters: m = 1.0, k = 4.0;
///         coordinates: x1, x2;
///         kinetic = m/2 * (dot(x1)^2 + dot(x2)^2);
///         potential = k/2 * (x1^2 + (x2 - x1)^2 + x2^2);
///     }
/// }
///
/// let rest = State::at_rest(SVector::zeros());
/// let spectrum = linearize(&Masses::default(), &rest, &SVector::zeros()).unwrap().spectrum().unwrap();
/// let mut frequencies: Vec<f64> = spectrum.eigenvalues.iter().map(|l| l.im).collect();
/// frequencies.sort_by(f64::total_cmp);
/// let expected = [-12f64.sqrt(), -2.0, 2.0, 12f64.sqrt()];
/// for (w, e) in frequencies.iter().zip(expected) {
///     assert!((w - e).abs() < 1e-12);
/// }
/// assert!(spectrum.largest_real_part().abs() < 1e-12);
/// assert_eq!(spectrum.stability(), Stability::Marginal);
/// assert_eq!(spectrum.modes().len(), 4);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Spectrum<const N: usize> {
    /// The eigenvalues, counted with multiplicity: 2N − 2 (holonomic constraints) −
    /// (nonholonomic constraints) of them.
    pub eigenvalues: Vec<Complex<f64>>,
    /// The size of the reduced Jacobian (its Frobenius norm), the scale of the margin of
    /// [`classify`](Self::classify).
    pub scale: f64,
    /// The reduced Jacobian Vᵀ A V.
    reduced: DMatrix<f64>,
    /// V.
    tangent: DMatrix<f64>,
}

impl<const N: usize> Spectrum<N> {
    /// The mode of eigenvalue `index` (in the order of
    /// [`eigenvalues`](Self::eigenvalues)), `None` past the last. Each costs a singular
    /// value decomposition of the reduced Jacobian, so modes are computed when asked for.
    pub fn mode(&self, index: usize) -> Option<Mode<N>> {
        let lambda = *self.eigenvalues.get(index)?;
        Some(mode(&self.reduced, &self.tangent, lambda))
    }

    /// Every mode, in the order of [`eigenvalues`](Self::eigenvalues).
    pub fn modes(&self) -> Vec<Mode<N>> {
        (0..self.eigenvalues.len())
            .filter_map(|i| self.mode(i))
            .collect()
    }

    /// The largest real part: the growth rate of the fastest growing (or slowest decaying)
    /// disturbance; −∞ for a model without states.
    pub fn largest_real_part(&self) -> f64 {
        self.eigenvalues
            .iter()
            .map(|l| l.re)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// The classification with the default margin: a real part within 10⁻⁴ of the
    /// spectrum's [`scale`](Self::scale) counts as zero (see [`classify`](Self::classify)).
    pub fn stability(&self) -> Stability {
        self.classify(tolerances::MARGINAL)
    }

    /// The classification, a real part within `margin` × [`scale`](Self::scale) counting
    /// as zero. The margin absorbs rounding: eigenvalues on the imaginary axis come out
    /// with real parts of the order of ε‖A‖, but the zero eigenvalues of a symmetry form
    /// Jordan blocks that rounding splits by ε^(1/k)‖A‖ for a block of size k (√ε for a
    /// spinning body, ∛ε for a rolling coin). Growth rates below the margin cannot be told
    /// from such a split; [`largest_real_part`](Self::largest_real_part) gives the number.
    /// A margin that is NaN or negative counts as 0 (the strictest classification): a NaN
    /// made every comparison false and called an unstable spectrum marginal.
    pub fn classify(&self, margin: f64) -> Stability {
        let margin = if margin > 0.0 { margin } else { 0.0 };
        let zero = margin * self.scale;
        if self.eigenvalues.iter().any(|l| l.re > zero) {
            Stability::Unstable
        } else if self.eigenvalues.iter().all(|l| l.re < -zero) {
            Stability::AsymptoticallyStable
        } else {
            Stability::Marginal
        }
    }
}

/// The spectrum of the reduced Jacobian `reduced` (d × d), its modes mapped back to the
/// state (q, q̇) through the tangent basis `tangent` (2N × d).
pub(crate) fn spectrum<const N: usize>(
    reduced: &DMatrix<f64>,
    tangent: &DMatrix<f64>,
) -> Result<Spectrum<N>, DynamicsError> {
    let not_converged = DynamicsError::NonFiniteResult {
        quantity: "eigenvalues of the linearization (the QR iteration did not converge)",
    };
    if !reduced.iter().all(|x| x.is_finite()) {
        return Err(DynamicsError::NonFiniteResult {
            quantity: "linearization",
        });
    }
    let mut eigenvalues = linalg::eigenvalues(reduced).ok_or(not_converged)?;
    eigenvalues.sort_by(|a, b| b.re.total_cmp(&a.re).then(b.im.total_cmp(&a.im)));
    Ok(Spectrum {
        eigenvalues,
        scale: reduced.norm(),
        reduced: reduced.clone(),
        tangent: tangent.clone(),
    })
}

/// The mode of `lambda`: the right singular vector of the smallest singular value of
/// A − λI, mapped to the state by the tangent basis and normalized.
fn mode<const N: usize>(
    reduced: &DMatrix<f64>,
    tangent: &DMatrix<f64>,
    lambda: Complex<f64>,
) -> Mode<N> {
    let d = reduced.nrows();
    let shifted = DMatrix::from_fn(d, d, |i, j| {
        Complex::new(reduced[(i, j)], 0.0)
            - if i == j {
                lambda
            } else {
                Complex::new(0.0, 0.0)
            }
    });
    let svd = shifted.svd(false, true);
    let smallest = svd.singular_values.imin();
    let v_t = svd.v_t.expect("requested");
    let y: Vec<Complex<f64>> = (0..d).map(|j| v_t[(smallest, j)].conj()).collect();
    let x: Vec<Complex<f64>> = (0..2 * N)
        .map(|i| (0..d).map(|j| y[j] * tangent[(i, j)]).sum())
        .collect();
    // Unit length, the largest entry real and positive.
    let largest = x
        .iter()
        .copied()
        .max_by(|a, b| a.norm().total_cmp(&b.norm()))
        .unwrap_or(Complex::new(1.0, 0.0));
    let norm = x.iter().map(|c| c.norm_sqr()).sum::<f64>().sqrt();
    let phase = if largest.norm() > 0.0 {
        largest.conj() / largest.norm()
    } else {
        Complex::new(1.0, 0.0)
    };
    let scale = phase / norm.max(f64::MIN_POSITIVE);
    Mode {
        eigenvalue: lambda,
        positions: SVector::from_fn(|i, _| x[i] * scale),
        velocities: SVector::from_fn(|i, _| x[N + i] * scale),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_and_complex_pairs_from_the_schur_form() {
        // A saddle ±2, a rotation ±3i and decays −1, −1/2, mixed by an orthogonal change
        // of basis so that the Schur form has to find them.
        let mut blocks = DMatrix::<f64>::zeros(6, 6);
        blocks[(0, 1)] = 4.0;
        blocks[(1, 0)] = 1.0;
        blocks[(2, 3)] = 3.0;
        blocks[(3, 2)] = -3.0;
        blocks[(4, 4)] = -1.0;
        blocks[(5, 5)] = -0.5;
        let q = DMatrix::from_fn(6, 6, |i, j| ((i * 7 + j * 3) as f64).sin())
            .qr()
            .q();
        let a = &q * blocks * q.transpose();
        let s = spectrum::<3>(&a, &DMatrix::identity(6, 6)).unwrap();
        let want = [
            Complex::new(2.0, 0.0),
            Complex::new(0.0, 3.0),
            Complex::new(0.0, -3.0),
            Complex::new(-0.5, 0.0),
            Complex::new(-1.0, 0.0),
            Complex::new(-2.0, 0.0),
        ];
        for (got, want) in s.eigenvalues.iter().zip(want) {
            assert!((got - want).norm() < 1e-12, "{got} vs {want}");
        }
        assert_eq!(s.stability(), Stability::Unstable);
        // Every mode is an eigenvector: A x̂ = λ x̂.
        for m in &s.modes() {
            let x = DMatrix::from_fn(6, 1, |i, _| {
                if i < 3 {
                    m.positions[i]
                } else {
                    m.velocities[i - 3]
                }
            });
            let ax = a.map(|v| Complex::new(v, 0.0)) * &x;
            assert!((ax - x * m.eigenvalue).norm() < 1e-12);
        }
    }

    #[test]
    fn classification_with_a_margin() {
        let decaying = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -4.0, -0.1]);
        let s = spectrum::<1>(&decaying, &DMatrix::identity(2, 2)).unwrap();
        assert_eq!(s.stability(), Stability::AsymptoticallyStable);
        let oscillating = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -4.0, 0.0]);
        let s = spectrum::<1>(&oscillating, &DMatrix::identity(2, 2)).unwrap();
        assert_eq!(s.stability(), Stability::Marginal);
        assert!((s.eigenvalues[0] - Complex::new(0.0, 2.0)).norm() < 1e-14);
        // The velocity part of a mode is λ times its position part.
        let m = s.mode(0).unwrap();
        assert!((m.velocities[0] - m.positions[0] * m.eigenvalue).norm() < 1e-14);
    }

    #[test]
    fn structure_isolates_exact_zero_eigenvalues() {
        // A heading ψ that makes a lateral position y grow at speed 6 (ẏ = 6ψ), driven by a
        // slow mode: a Jordan chain at zero. The isolated eigenvalues are exact; a Schur
        // form of the whole matrix would split the zeros by the square root of rounding.
        let a = DMatrix::from_row_slice(3, 3, &[0.0, 6.0, 0.0, 0.0, 0.0, 1e-3, 0.0, 0.0, -0.004]);
        let s = spectrum::<2>(&a, &DMatrix::identity(3, 3)).unwrap();
        let want = [0.0, 0.0, -0.004].map(|re| Complex::new(re, 0.0));
        assert_eq!(s.eigenvalues, want);
    }
}
