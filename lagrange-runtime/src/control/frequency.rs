//! The frequency response of a [`LinearSystem`] and the gain and phase margins of a loop.

use super::{ControlError, LinearSystem};
use crate::tolerances::{CROSSOVER, CROSSOVER_POLISH_STEPS, CROSSOVER_REAL_ROOT, MARGIN_GRID};
use nalgebra::{Complex, DMatrix};
use std::f64::consts::PI;

/// The frequency response of a [`LinearSystem`] at given frequencies: G(jω) (continuous)
/// or G(e^{jωTs}) (sampled), a p × m complex matrix per frequency.
#[derive(Debug, Clone, PartialEq)]
pub struct FrequencyResponse {
    /// The frequencies ω in rad/s, as given.
    pub frequencies: Vec<f64>,
    /// G at each frequency, p × m.
    pub values: Vec<DMatrix<Complex<f64>>>,
}

impl FrequencyResponse {
    /// The gain |G_ij| from input `input` to output `output` at each frequency.
    ///
    /// # Panics
    /// For an index beyond the system's.
    pub fn magnitude(&self, output: usize, input: usize) -> Vec<f64> {
        self.values
            .iter()
            .map(|g| g[(output, input)].norm())
            .collect()
    }

    /// The gain in decibels, 20 log₁₀ |G_ij|.
    ///
    /// # Panics
    /// For an index beyond the system's.
    pub fn magnitude_db(&self, output: usize, input: usize) -> Vec<f64> {
        self.magnitude(output, input)
            .into_iter()
            .map(|g| 20.0 * g.log10())
            .collect()
    }

    /// The phase of G_ij in radians, each in (−π, π] (as python-control's
    /// `FrequencyResponseData.phase`).
    ///
    /// # Panics
    /// For an index beyond the system's.
    pub fn phase(&self, output: usize, input: usize) -> Vec<f64> {
        self.values
            .iter()
            .map(|g| g[(output, input)].arg())
            .collect()
    }

    /// The phase of G_ij in radians made continuous along the frequencies (a jump of more
    /// than π from one frequency to the next taken as a wrap of 2π, as NumPy's `unwrap`),
    /// starting in (−π, π]: what a Bode plot draws, with frequencies given in increasing
    /// order.
    ///
    /// # Panics
    /// For an index beyond the system's.
    pub fn unwrapped_phase(&self, output: usize, input: usize) -> Vec<f64> {
        let mut phase = self.phase(output, input);
        let mut shift = 0.0;
        for k in 1..phase.len() {
            let jump = phase[k] + shift - phase[k - 1];
            shift -= 2.0 * PI * (jump / (2.0 * PI)).round();
            phase[k] += shift;
        }
        phase
    }
}

/// The gain and phase margins of a loop transfer function L (one input, one output), as
/// python-control's `stability_margins` (and `margin`) compute them: the loop u → y
/// closed by unit negative feedback stays stable for gains up to the gain margin and for
/// extra phase lags up to the phase margin (when it is stable at all: the margins are
/// read off the frequency response, they do not test stability).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Margins {
    /// The gain margin, as a factor (not in dB): 1/|L(jω)| at a phase crossover, where
    /// L(jω) crosses the negative real axis. Of several crossovers, the margin closest to
    /// 1 (smallest |log|); infinite when there is none.
    pub gain: f64,
    /// The phase margin in degrees: 180° + ∠L(jω) (the angle taken in [0°, 360°)) at a
    /// gain crossover, where |L(jω)| = 1. Of several, the smallest in magnitude; infinite
    /// when there is none.
    pub phase: f64,
    /// The phase crossover frequency of [`gain`](Self::gain) in rad/s (NaN when none).
    pub phase_crossover: f64,
    /// The gain crossover frequency of [`phase`](Self::phase) in rad/s (NaN when none).
    pub gain_crossover: f64,
}

impl Margins {
    /// The gain margin in decibels, 20 log₁₀ of [`gain`](Self::gain).
    pub fn gain_db(&self) -> f64 {
        20.0 * self.gain.log10()
    }
}

impl LinearSystem {
    /// G at the complex point `s` (s for a continuous system, z for a sampled one):
    /// C (sI − A)⁻¹ B + D, by a complex LU factorization; `None` at a pole (a singular
    /// sI − A, or a non-finite result).
    pub(super) fn transfer_at(&self, s: Complex<f64>) -> Option<DMatrix<Complex<f64>>> {
        let n = self.states();
        let complex = |m: &DMatrix<f64>| m.map(|v| Complex::new(v, 0.0));
        if n == 0 {
            return Some(complex(&self.d));
        }
        let mut resolvent = -complex(&self.a);
        for i in 0..n {
            resolvent[(i, i)] += s;
        }
        let x = resolvent.lu().solve(&complex(&self.b))?;
        let g = complex(&self.c) * x + complex(&self.d);
        g.iter()
            .all(|v| v.re.is_finite() && v.im.is_finite())
            .then_some(g)
    }

    /// The point of the frequency ω: jω, or e^{jωTs} when sampled.
    fn point(&self, omega: f64) -> Complex<f64> {
        match self.period {
            None => Complex::new(0.0, omega),
            Some(period) => Complex::from_polar(1.0, omega * period),
        }
    }

    /// The frequency response at the frequencies `omegas` (rad/s):
    /// G(jω) = C (jωI − A)⁻¹ B + D for a continuous system, G(e^{jωTs}) for a sampled one
    /// (periodic in ω with period 2π/Ts), as MATLAB's `freqresp` and python-control's
    /// `frequency_response`. Each point solves (sI − A) X = B by nalgebra's complex LU
    /// factorization.
    ///
    /// # Errors
    /// [`ControlError::InvalidSetting`] for a frequency that is not finite;
    /// [`ControlError::PoleAtFrequency`] for a frequency at a pole (where sI − A is
    /// singular to the factorization or the result overflows).
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::control::LinearSystem;
    /// use lagrange_runtime::nalgebra::DMatrix;
    ///
    /// // The lag 1/(s + 1) at its corner frequency: −3 dB, −45°.
    /// let lag = LinearSystem::continuous(
    ///     DMatrix::from_element(1, 1, -1.0),
    ///     DMatrix::from_element(1, 1, 1.0),
    ///     DMatrix::from_element(1, 1, 1.0),
    ///     DMatrix::zeros(1, 1),
    /// )
    /// .unwrap();
    /// let response = lag.frequency_response(&[1.0]).unwrap();
    /// assert!((response.magnitude_db(0, 0)[0] + 10.0 * 2f64.log10()).abs() < 1e-12);
    /// assert!((response.phase(0, 0)[0].to_degrees() + 45.0).abs() < 1e-12);
    /// ```
    pub fn frequency_response(&self, omegas: &[f64]) -> Result<FrequencyResponse, ControlError> {
        if !omegas.iter().all(|w| w.is_finite()) {
            return Err(ControlError::InvalidSetting(
                "the frequencies of a frequency response must be finite",
            ));
        }
        let values = omegas
            .iter()
            .map(|&omega| {
                self.transfer_at(self.point(omega))
                    .ok_or(ControlError::PoleAtFrequency { frequency: omega })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(FrequencyResponse {
            frequencies: omegas.to_vec(),
            values,
        })
    }

    /// The gain and phase margins of the system taken as the loop transfer function L of
    /// a unit negative feedback loop (one input, one output), as python-control's
    /// `stability_margins` (its `margin` returns the same four numbers).
    ///
    /// The crossovers are found as python-control's `poly` method finds them, exactly
    /// rather than on a frequency grid: with L = N/D (D the characteristic polynomial of
    /// A, N = det(sI − A + BC) − D + D_L D by the determinant lemma), the gain crossovers
    /// are the positive real roots ω of |N(jω)|² − |D(jω)|², the phase crossovers the
    /// non-negative real roots of Im(N(jω) D(−jω)) at which Re L ≤ 0; for a sampled system
    /// the roots z on the unit circle of z²ⁿ-multiplied N(z)N(1/z) − D(z)D(1/z) and
    /// N(z)D(1/z) − N(1/z)D(z), ω = arg z / Ts in [0, π/Ts). Each root is then polished by
    /// Newton steps on the state-space response and kept only if |L| = 1 (Im L = 0) holds
    /// there to 10⁻⁹, which also removes spurious roots of the polynomials' rounding.
    /// Frequencies at a pole of L are skipped. The roots of these polynomials of degree 2n
    /// lose their accuracy when n is large and the poles crowd (a sampled LQG loop of nine
    /// states at 100 Hz, its multipliers near 1: the case where python-control itself falls
    /// back to a frequency grid), so the crossings are also bracketed by sign changes on a
    /// logarithmic grid of frequencies (250 per decade over 16 decades, up to π/Ts for a
    /// sampled loop) and located by bisection, then checked in the same way.
    ///
    /// # Errors
    /// [`ControlError::NotSiso`] for a system with several inputs or outputs (choose a pair
    /// with [`channel`](Self::channel)); [`ControlError::EigenvaluesDidNotConverge`].
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::control::LinearSystem;
    /// use lagrange_runtime::nalgebra::DMatrix;
    ///
    /// // L(s) = 4 / (s + 1)³: the phase is −180° at ω = √3, where |L| = 4/8, so the gain
    /// // margin is 2 (6 dB).
    /// let a = DMatrix::from_row_slice(3, 3, &[-1.0, 1.0, 0.0, 0.0, -1.0, 1.0, 0.0, 0.0, -1.0]);
    /// let b = DMatrix::from_row_slice(3, 1, &[0.0, 0.0, 4.0]);
    /// let c = DMatrix::from_row_slice(1, 3, &[1.0, 0.0, 0.0]);
    /// let loop_ = LinearSystem::continuous(a, b, c, DMatrix::zeros(1, 1)).unwrap();
    /// let margins = loop_.margins().unwrap();
    /// assert!((margins.gain - 2.0).abs() < 1e-12);
    /// assert!((margins.phase_crossover - 3f64.sqrt()).abs() < 1e-12);
    /// // |L| = 1 where (1 + ω²)^{3/2} = 4: ω = √(4^{2/3} − 1).
    /// assert!((margins.gain_crossover - (4f64.powf(2.0 / 3.0) - 1.0).sqrt()).abs() < 1e-12);
    /// ```
    pub fn margins(&self) -> Result<Margins, ControlError> {
        if self.inputs() != 1 || self.outputs() != 1 {
            return Err(ControlError::NotSiso {
                outputs: self.outputs(),
                inputs: self.inputs(),
            });
        }
        let (num, den) = self.siso_polynomials()?;
        let (mut gain_candidates, mut phase_candidates) = match self.period {
            None => continuous_candidates(&num, &den)?,
            Some(period) => sampled_candidates(&num, &den, period)?,
        };
        let value = |omega: f64| self.transfer_at(self.point(omega)).map(|g| g[(0, 0)]);
        // The polynomials' roots on the axis (the circle) lose their accuracy as the order
        // grows and the poles crowd (a sampled loop of many states at a fast rate, its
        // multipliers near 1), and may then be missed: the crossings are also bracketed on
        // a grid of frequencies and located by bisection, the same checks applying.
        let (gains, phases) = self.bracketed_crossings(&value);
        gain_candidates.extend(gains);
        phase_candidates.extend(phases);

        // Phase crossovers: Im L = 0 with Re L ≤ 0.
        let mut phase_crossovers: Vec<(f64, Complex<f64>)> = Vec::new();
        for omega in phase_candidates {
            let polished = if omega == 0.0 {
                Some(0.0)
            } else {
                polish(omega, |w| value(w).map(|g| g.im / (1.0 + g.norm())))
            };
            let Some(omega) = polished else { continue };
            let Some(g) = value(omega) else { continue };
            if g.im.abs() <= CROSSOVER * (1.0 + g.norm()) && g.re <= 0.0 {
                phase_crossovers.push((omega, g));
            }
        }
        // Gain crossovers: |L| = 1.
        let mut gain_crossovers: Vec<(f64, Complex<f64>)> = Vec::new();
        for omega in gain_candidates {
            let Some(omega) = polish(omega, |w| value(w).map(|g| g.norm().ln())) else {
                continue;
            };
            let Some(g) = value(omega) else { continue };
            if (g.norm() - 1.0).abs() <= CROSSOVER {
                gain_crossovers.push((omega, g));
            }
        }
        for list in [&mut phase_crossovers, &mut gain_crossovers] {
            list.sort_by(|a, b| a.0.total_cmp(&b.0));
            list.dedup_by(|a, b| (a.0 - b.0).abs() <= CROSSOVER_REAL_ROOT * b.0.abs().max(1e-300));
        }

        let gains: Vec<f64> = phase_crossovers
            .iter()
            .map(|(_, g)| 1.0 / g.norm())
            .collect();
        let (gain, phase_crossover) = if gains.iter().all(|g| g.is_infinite()) {
            (f64::INFINITY, f64::NAN)
        } else {
            let best = (0..gains.len())
                .min_by(|&i, &j| gains[i].ln().abs().total_cmp(&gains[j].ln().abs()))
                .expect("not all infinite, so not empty");
            (gains[best], phase_crossovers[best].0)
        };
        let phases: Vec<f64> = gain_crossovers
            .iter()
            .map(|(_, g)| g.arg().to_degrees().rem_euclid(360.0) - 180.0)
            .collect();
        let (phase, gain_crossover) =
            match (0..phases.len()).min_by(|&i, &j| phases[i].abs().total_cmp(&phases[j].abs())) {
                Some(best) => (phases[best], gain_crossovers[best].0),
                None => (f64::INFINITY, f64::NAN),
            };
        Ok(Margins {
            gain,
            phase,
            phase_crossover,
            gain_crossover,
        })
    }

    /// The crossings of |L| = 1 and of Im L = 0 found by sign changes of ln |L| and Im L
    /// between neighbours of a logarithmic grid of [`MARGIN_GRID`] frequencies (a sampled
    /// loop: from 10⁻⁸ of the Nyquist frequency π/Ts to just below it; a continuous one:
    /// 10⁻⁸ to 10⁸ times the size of A, at least 1), each located by bisection in log ω
    /// to the precision of the frequency.
    fn bracketed_crossings(
        &self,
        value: &impl Fn(f64) -> Option<Complex<f64>>,
    ) -> (Vec<f64>, Vec<f64>) {
        let top = match self.period {
            Some(period) => PI / period * (1.0 - 1e-9),
            None => 1e8 * self.a.amax().max(1.0),
        };
        let bottom = top * 1e-16 * if self.period.is_some() { 1e8 } else { 1.0 };
        let ratio = (top / bottom).ln();
        let at = |k: usize| bottom * (ratio * k as f64 / (MARGIN_GRID - 1) as f64).exp();
        let mut gains = Vec::new();
        let mut phases = Vec::new();
        let magnitude = |w: f64| value(w).map(|g| g.norm().ln());
        let imaginary = |w: f64| value(w).map(|g| g.im);
        let mut previous: Option<(f64, Complex<f64>)> = None;
        for k in 0..MARGIN_GRID {
            let w = at(k);
            let Some(g) = value(w) else {
                previous = None;
                continue;
            };
            if let Some((w0, g0)) = previous {
                if (g0.norm().ln() > 0.0) != (g.norm().ln() > 0.0) {
                    gains.extend(bisect(w0, w, &magnitude));
                }
                if (g0.im > 0.0) != (g.im > 0.0) {
                    phases.extend(bisect(w0, w, &imaginary));
                }
            }
            previous = Some((w, g));
        }
        (gains, phases)
    }

    /// The numerator N and denominator D of the single-input single-output transfer
    /// function, coefficients in increasing powers (of s or z), D = det(sI − A) monic of
    /// degree n (from the eigenvalues of A) and N = C adj(sI − A) B + D_L D, with
    /// adj(sI − A) = Σ s^(n−1−k) R_k, R₀ = I, R_k = A R_{k−1} + a_k I (Faddeev–LeVerrier on
    /// the coefficients a_k of D): the coefficient C R_k B = Σᵢ a_{k−i} C Aⁱ B of the Markov
    /// parameters. A coefficient below 10 n ε times the same sum in absolute values is
    /// rounding and set to zero, so that a relative degree above 1 stays exact (a leading
    /// coefficient of rounding noise would put a spurious root near infinity).
    fn siso_polynomials(&self) -> Result<(Vec<f64>, Vec<f64>), ControlError> {
        let den = characteristic(&self.a)?;
        let n = self.states();
        // a_k in decreasing powers: a_0 = 1, a_k = den[n − k].
        let a_k = |k: usize| den[n - k];
        let (abs_a, abs_b, abs_c) = (self.a.abs(), self.b.abs(), self.c.abs());
        let mut markov = Vec::with_capacity(n);
        let mut bound = Vec::with_capacity(n);
        let (mut power_b, mut power_abs) = (self.b.clone(), abs_b);
        for _ in 0..n {
            markov.push((&self.c * &power_b)[(0, 0)]);
            bound.push((&abs_c * &power_abs)[(0, 0)]);
            power_b = &self.a * power_b;
            power_abs = &abs_a * power_abs;
        }
        let feedthrough = self.d[(0, 0)];
        let mut num: Vec<f64> = den.iter().map(|d| feedthrough * d).collect();
        for k in 0..n {
            let coefficient: f64 = (0..=k).map(|i| a_k(k - i) * markov[i]).sum();
            let size: f64 = (0..=k).map(|i| a_k(k - i).abs() * bound[i]).sum();
            let noise = 10.0 * n as f64 * f64::EPSILON * size;
            if coefficient.abs() > noise {
                num[n - 1 - k] += coefficient;
            }
        }
        Ok((num, den))
    }
}

/// The characteristic polynomial det(sI − A), coefficients in increasing powers, as the
/// product of (s − λ) over the eigenvalues (real, since they come in conjugate pairs).
fn characteristic(a: &DMatrix<f64>) -> Result<Vec<f64>, ControlError> {
    let eigenvalues =
        crate::linalg::eigenvalues(a).ok_or(ControlError::EigenvaluesDidNotConverge)?;
    let mut poly = vec![Complex::new(1.0, 0.0)];
    for lambda in eigenvalues {
        let mut next = vec![Complex::new(0.0, 0.0); poly.len() + 1];
        for (k, &c) in poly.iter().enumerate() {
            next[k + 1] += c;
            next[k] -= c * lambda;
        }
        poly = next;
    }
    Ok(poly.iter().map(|c| c.re).collect())
}

/// The product of two polynomials (coefficients in increasing powers).
fn multiply<T>(p: &[T], q: &[T]) -> Vec<T>
where
    T: Copy + Default + std::ops::Add<Output = T> + std::ops::Mul<Output = T>,
{
    if p.is_empty() || q.is_empty() {
        return Vec::new();
    }
    let mut r = vec![T::default(); p.len() + q.len() - 1];
    for (i, &a) in p.iter().enumerate() {
        for (j, &b) in q.iter().enumerate() {
            r[i + j] = r[i + j] + a * b;
        }
    }
    r
}

/// p − q, padded to the longer.
fn subtract(p: &[f64], q: &[f64]) -> Vec<f64> {
    (0..p.len().max(q.len()))
        .map(|k| p.get(k).copied().unwrap_or(0.0) - q.get(k).copied().unwrap_or(0.0))
        .collect()
}

/// The roots of a real polynomial (coefficients in increasing powers), by the eigenvalues
/// of its companion matrix; exactly zero leading coefficients are dropped first, and a
/// polynomial that is zero has no roots to report.
fn roots(p: &[f64]) -> Result<Vec<Complex<f64>>, ControlError> {
    let Some(top) = p.iter().rposition(|&c| c != 0.0) else {
        return Ok(Vec::new());
    };
    let degree = top;
    if degree == 0 {
        return Ok(Vec::new());
    }
    let mut companion = DMatrix::zeros(degree, degree);
    for k in 0..degree {
        companion[(0, k)] = -p[top - 1 - k] / p[top];
    }
    for k in 1..degree {
        companion[(k, k - 1)] = 1.0;
    }
    if let Some(roots) = crate::linalg::eigenvalues(&companion) {
        return Ok(roots);
    }
    // The QR iteration can stall on the symmetric patterns of a companion matrix (an even
    // or odd polynomial, roots ±r): the eigenvalues of C + σI are the roots shifted by σ,
    // and a shift breaks the pattern.
    let scale = 1.0 + companion.row(0).amax();
    for fraction in [0.1, 0.37, 1.3] {
        let sigma = fraction * scale;
        let mut shifted = companion.clone();
        for k in 0..degree {
            shifted[(k, k)] += sigma;
        }
        if let Some(roots) = crate::linalg::eigenvalues(&shifted) {
            return Ok(roots.into_iter().map(|r| r - sigma).collect());
        }
    }
    Err(ControlError::EigenvaluesDidNotConverge)
}

/// The polynomial P(jω) in ω: coefficient k is p_k jᵏ.
fn on_imaginary_axis(p: &[f64]) -> Vec<Complex<f64>> {
    let powers = [
        Complex::new(1.0, 0.0),
        Complex::new(0.0, 1.0),
        Complex::new(-1.0, 0.0),
        Complex::new(0.0, -1.0),
    ];
    p.iter()
        .enumerate()
        .map(|(k, &c)| powers[k % 4] * c)
        .collect()
}

/// The candidate gain and phase crossovers ω ≥ 0 of a continuous loop N/D.
fn continuous_candidates(num: &[f64], den: &[f64]) -> Result<(Vec<f64>, Vec<f64>), ControlError> {
    let (n, d) = (on_imaginary_axis(num), on_imaginary_axis(den));
    let square = |p: &[Complex<f64>]| -> Vec<f64> {
        let conjugate: Vec<Complex<f64>> = p.iter().map(|c| c.conj()).collect();
        multiply(p, &conjugate).iter().map(|c| c.re).collect()
    };
    let magnitude = subtract(&square(&n), &square(&d));
    let re = |p: &[Complex<f64>]| p.iter().map(|c| c.re).collect::<Vec<f64>>();
    let im = |p: &[Complex<f64>]| p.iter().map(|c| c.im).collect::<Vec<f64>>();
    let imaginary = subtract(&multiply(&im(&n), &re(&d)), &multiply(&re(&n), &im(&d)));
    let real_roots = |p: &[f64], zero: bool| -> Result<Vec<f64>, ControlError> {
        Ok(roots(p)?
            .into_iter()
            .filter(|r| r.im.abs() <= CROSSOVER_REAL_ROOT * r.norm() + 1e-12)
            .map(|r| r.re)
            .filter(|&w| if zero { w >= -1e-12 } else { w > 0.0 })
            .map(|w| if w.abs() <= 1e-12 { 0.0 } else { w })
            .collect())
    };
    let mut gain = real_roots(&magnitude, false)?;
    gain.retain(|&w| w > 0.0);
    Ok((gain, real_roots(&imaginary, true)?))
}

/// The candidate gain and phase crossovers ω = arg z / Ts in [0, π/Ts) of a sampled loop
/// N/D, from the roots on the unit circle.
fn sampled_candidates(
    num: &[f64],
    den: &[f64],
    period: f64,
) -> Result<(Vec<f64>, Vec<f64>), ControlError> {
    let n = den.len() - 1;
    // zⁿ P(1/z) for a polynomial of degree at most n: the coefficients reversed.
    let reversed = |p: &[f64]| -> Vec<f64> {
        let mut padded = p.to_vec();
        padded.resize(n + 1, 0.0);
        padded.reverse();
        padded
    };
    let magnitude = subtract(
        &multiply(num, &reversed(num)),
        &multiply(den, &reversed(den)),
    );
    let imaginary = subtract(
        &multiply(num, &reversed(den)),
        &multiply(&reversed(num), den),
    );
    let on_circle = |p: &[f64], zero: bool| -> Result<Vec<f64>, ControlError> {
        Ok(roots(p)?
            .into_iter()
            .filter(|z| (z.norm() - 1.0).abs() <= CROSSOVER_REAL_ROOT.sqrt())
            .map(|z| z.arg())
            .filter(|&theta| theta < PI && if zero { theta >= -1e-12 } else { theta > 0.0 })
            .map(|theta| theta.max(0.0) / period)
            .collect())
    };
    Ok((on_circle(&magnitude, false)?, on_circle(&imaginary, true)?))
}

/// A sign change of `f` between `a` < `b` located by bisection in log ω, to the precision
/// of the frequency; `None` if `f` cannot be evaluated on the way.
fn bisect(mut a: f64, mut b: f64, f: &impl Fn(f64) -> Option<f64>) -> Option<f64> {
    let positive = f(a)? > 0.0;
    for _ in 0..200 {
        let m = (a * b).sqrt();
        if !(m > a && m < b) {
            break;
        }
        if (f(m)? > 0.0) == positive {
            a = m;
        } else {
            b = m;
        }
    }
    Some((a * b).sqrt())
}

/// A root of `f` near `omega` by Newton steps with a central-difference derivative, or
/// `None` if `f` cannot be evaluated or the root wanders off by more than
/// [`CROSSOVER_REAL_ROOT`] · 100 relative.
fn polish(omega: f64, f: impl Fn(f64) -> Option<f64>) -> Option<f64> {
    let start = omega;
    let mut w = omega;
    for _ in 0..CROSSOVER_POLISH_STEPS {
        let value = f(w)?;
        if value == 0.0 {
            break;
        }
        let h = 1e-7 * w.abs().max(1e-300);
        let slope = (f(w + h)? - f(w - h)?) / (2.0 * h);
        if slope == 0.0 || !slope.is_finite() {
            break;
        }
        let step = value / slope;
        w -= step;
        if step.abs() <= 4.0 * f64::EPSILON * w.abs() {
            break;
        }
    }
    ((w - start).abs() <= 100.0 * CROSSOVER_REAL_ROOT * start.abs() && w > 0.0).then_some(w)
}
