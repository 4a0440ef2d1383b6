//! Time responses of a [`LinearSystem`]: step, impulse, initial condition and arbitrary
//! inputs, exact for inputs held between the sample times.

use super::{c2d, ControlError, LinearSystem};
use crate::tolerances::{SAME_RESPONSE_STEP, SAMPLE_GRID};
use nalgebra::{DMatrix, DVector};

/// A time response of a [`LinearSystem`]: the outputs and states at the given times.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The times t₀, t₁, … (those given).
    pub times: Vec<f64>,
    /// The outputs, p × T: column k is y(t_k).
    pub outputs: DMatrix<f64>,
    /// The states, n × T: column k is x(t_k).
    pub states: DMatrix<f64>,
}

impl Response {
    /// Output `i` against time, as (t, yᵢ) pairs (for a plot, say).
    ///
    /// # Panics
    /// If `i` is not below the number of outputs.
    pub fn output(&self, i: usize) -> Vec<(f64, f64)> {
        self.times
            .iter()
            .zip(self.outputs.row(i).iter())
            .map(|(&t, &y)| (t, y))
            .collect()
    }
}

impl LinearSystem {
    /// The response to a unit step on input `input` from rest: u = 1 on that input (0 on
    /// the others) from `times[0]` on, x(t₀) = 0, as python-control's `step_response` and
    /// MATLAB's `step` for one input. Computed as [`lsim`](Self::lsim).
    ///
    /// # Errors
    /// [`ControlError::NoSuchChannel`] for an input index beyond the system's; as
    /// [`lsim`](Self::lsim) for the times.
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::control::LinearSystem;
    /// use lagrange_runtime::nalgebra::DMatrix;
    ///
    /// // A first-order lag ẋ = −x + u, y = x: y(t) = 1 − e^{−t}.
    /// let lag = LinearSystem::continuous(
    ///     DMatrix::from_element(1, 1, -1.0),
    ///     DMatrix::from_element(1, 1, 1.0),
    ///     DMatrix::from_element(1, 1, 1.0),
    ///     DMatrix::zeros(1, 1),
    /// )
    /// .unwrap();
    /// let times: Vec<f64> = (0..=50).map(|k| 0.1 * f64::from(k)).collect();
    /// let step = lag.step(&times, 0).unwrap();
    /// for (k, &t) in times.iter().enumerate() {
    ///     assert!((step.outputs[(0, k)] - (1.0 - (-t).exp())).abs() < 1e-14);
    /// }
    /// ```
    pub fn step(&self, times: &[f64], input: usize) -> Result<Response, ControlError> {
        self.check_input(input)?;
        let mut u = DMatrix::zeros(self.inputs(), times.len());
        u.row_mut(input).fill(1.0);
        self.lsim(times, &u, &DVector::zeros(self.states()))
    }

    /// The impulse response of input `input`, as python-control's `impulse_response`
    /// (and MATLAB's `impulse`): for a continuous system the response from x(t₀) = B eᵢ
    /// without input, which is that to a unit impulse δ(t − t₀) on the input except for
    /// the impulse D eᵢ δ(t − t₀) itself, which no sample shows; for a sampled system the
    /// response from rest to the pulse of unit area u₀ = 1/Ts at the first sample (y₀ =
    /// D eᵢ / Ts, then y_k = C Aᵏ⁻¹ B eᵢ / Ts).
    ///
    /// # Errors
    /// As [`step`](Self::step).
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::control::LinearSystem;
    /// use lagrange_runtime::nalgebra::DMatrix;
    ///
    /// // An undamped oscillator ẍ = −4x + u struck at t = 0: x = sin(2t)/2.
    /// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -4.0, 0.0]);
    /// let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
    /// let c = DMatrix::from_row_slice(1, 2, &[1.0, 0.0]);
    /// let oscillator = LinearSystem::continuous(a, b, c, DMatrix::zeros(1, 1)).unwrap();
    /// let times: Vec<f64> = (0..=20).map(|k| 0.1 * f64::from(k)).collect();
    /// let struck = oscillator.impulse(&times, 0).unwrap();
    /// for (t, x) in struck.output(0) {
    ///     assert!((x - (2.0 * t).sin() / 2.0).abs() < 1e-14);
    /// }
    /// ```
    pub fn impulse(&self, times: &[f64], input: usize) -> Result<Response, ControlError> {
        self.check_input(input)?;
        let mut u = DMatrix::zeros(self.inputs(), times.len());
        match self.period {
            None => self.lsim(times, &u, &self.b.column(input).into_owned()),
            Some(period) => {
                if !times.is_empty() {
                    u[(input, 0)] = 1.0 / period;
                }
                self.lsim(times, &u, &DVector::zeros(self.states()))
            }
        }
    }

    /// The response from the state `x0` at `times[0]` without input (python-control's
    /// `initial_response`, MATLAB's `initial`).
    ///
    /// # Errors
    /// As [`lsim`](Self::lsim).
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::control::LinearSystem;
    /// use lagrange_runtime::nalgebra::{DMatrix, DVector};
    ///
    /// // A sampled decay x_{k+1} = x_k / 2 from x₀ = 1: y_k = 2⁻ᵏ.
    /// let half = |v: f64| DMatrix::from_element(1, 1, v);
    /// let decay = LinearSystem::sampled(half(0.5), half(0.0), half(1.0), half(0.0), 0.1).unwrap();
    /// let times: Vec<f64> = (0..5).map(|k| 0.1 * f64::from(k)).collect();
    /// let run = decay.initial(&times, &DVector::from_element(1, 1.0)).unwrap();
    /// assert_eq!(run.outputs.as_slice(), &[1.0, 0.5, 0.25, 0.125, 0.0625]);
    /// ```
    pub fn initial(&self, times: &[f64], x0: &DVector<f64>) -> Result<Response, ControlError> {
        self.lsim(times, &DMatrix::zeros(self.inputs(), times.len()), x0)
    }

    /// The response to the inputs `u` (m × T, column k the input at `times[k]`) from the
    /// state `x0` at `times[0]`, the input held constant from each time to the next
    /// (zero-order hold): as MATLAB's `lsim(sys, u, t, x0, 'zoh')` and SciPy's
    /// `lsim(..., interp=False)`.
    ///
    /// A continuous system is advanced exactly over each step h = t_{k+1} − t_k,
    /// x_{k+1} = e^{Ah} x_k + ∫₀ʰ e^{As} ds B u_k (one matrix exponential per distinct step,
    /// [`c2d`](super::c2d); steps equal to 10⁻¹⁰ share one), so the times need not be evenly
    /// spaced; a sampled one by its difference equation, and its times must then be
    /// t₀ + k Ts (to 10⁻⁹ Ts). The outputs are y_k = C x_k + D u_k.
    ///
    /// # Errors
    /// [`ControlError::InvalidSetting`] for times that are empty, not finite, not strictly
    /// increasing or (sampled) not a multiple of the period apart, or a response that
    /// overflows; [`ControlError::DimensionMismatch`] naming `"u"` (not m × T) or `"x0"`
    /// (not n); [`ControlError::NonFinite`] naming `"u"` or `"x0"`.
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::control::LinearSystem;
    /// use lagrange_runtime::nalgebra::{DMatrix, DVector};
    ///
    /// // The double integrator from rest, pushed by u = 1 for 1 s and then u = −1 for 1 s:
    /// // it stops at x = 1.
    /// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
    /// let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
    /// let c = DMatrix::from_row_slice(1, 2, &[1.0, 0.0]);
    /// let system = LinearSystem::continuous(a, b, c, DMatrix::zeros(1, 1)).unwrap();
    /// let times = [0.0, 0.5, 1.0, 2.0];
    /// let u = DMatrix::from_row_slice(1, 4, &[1.0, 1.0, -1.0, 0.0]);
    /// let run = system.lsim(&times, &u, &DVector::zeros(2)).unwrap();
    /// assert!((run.outputs[(0, 3)] - 1.0).abs() < 1e-14 && run.states[(1, 3)].abs() < 1e-14);
    /// ```
    pub fn lsim(
        &self,
        times: &[f64],
        u: &DMatrix<f64>,
        x0: &DVector<f64>,
    ) -> Result<Response, ControlError> {
        let (n, m, count) = (self.states(), self.inputs(), times.len());
        check_times(times, self.period)?;
        if u.shape() != (m, count) {
            return Err(ControlError::DimensionMismatch {
                matrix: "u",
                expected: (m, count),
                found: u.shape(),
            });
        }
        if x0.len() != n {
            return Err(ControlError::DimensionMismatch {
                matrix: "x0",
                expected: (n, 1),
                found: (x0.len(), 1),
            });
        }
        if !u.iter().all(|v| v.is_finite()) {
            return Err(ControlError::NonFinite { matrix: "u" });
        }
        if !x0.iter().all(|v| v.is_finite()) {
            return Err(ControlError::NonFinite { matrix: "x0" });
        }
        let mut states = DMatrix::zeros(n, count);
        states.set_column(0, x0);
        let mut step: Option<(f64, DMatrix<f64>, DMatrix<f64>)> = self
            .period
            .map(|period| (period, self.a.clone(), self.b.clone()));
        for k in 0..count - 1 {
            let h = times[k + 1] - times[k];
            let stale = match &step {
                Some((length, _, _)) => {
                    self.period.is_none() && (h - length).abs() > SAME_RESPONSE_STEP * length
                }
                None => true,
            };
            if stale {
                let (ad, bd) = c2d(&self.a, &self.b, h)?;
                step = Some((h, ad, bd));
            }
            let Some((_, ad, bd)) = &step else {
                unreachable!("a step was just set")
            };
            let next = ad * states.column(k) + bd * u.column(k);
            states.set_column(k + 1, &next);
        }
        let outputs = &self.c * &states + &self.d * u;
        if !outputs.iter().chain(states.iter()).all(|v| v.is_finite()) {
            return Err(ControlError::InvalidSetting(
                "the response overflows: the system grows beyond the range of f64 over these times",
            ));
        }
        Ok(Response {
            times: times.to_vec(),
            outputs,
            states,
        })
    }
}

/// `Ok` for times that are not empty, finite and strictly increasing, and for a sampled
/// system t₀ + k Ts.
fn check_times(times: &[f64], period: Option<f64>) -> Result<(), ControlError> {
    if times.is_empty() {
        return Err(ControlError::InvalidSetting(
            "a response needs at least one time",
        ));
    }
    if !times.iter().all(|t| t.is_finite()) || times.windows(2).any(|w| w[1] <= w[0]) {
        return Err(ControlError::InvalidSetting(
            "the times of a response must be finite and strictly increasing",
        ));
    }
    if let Some(period) = period {
        let t0 = times[0];
        let off = times.iter().enumerate().any(|(k, &t)| {
            let k = k as f64;
            (t - t0 - k * period).abs() > SAMPLE_GRID * period * (k + 1.0)
        });
        if off {
            return Err(ControlError::InvalidSetting(
                "the times of a sampled system's response must be t0 + k Ts, one per sample",
            ));
        }
    }
    Ok(())
}
