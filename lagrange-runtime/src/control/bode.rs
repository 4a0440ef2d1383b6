//! The Bode diagram of a [`LinearSystem`] with its margins marked (feature `plot`).

use super::LinearSystem;
use crate::plot::{figure, Panel, PlotError, Result, SeriesLabelPosition};
use std::path::Path;

impl LinearSystem {
    /// The Bode diagram of the channel from input `input` to output `output`, as a PNG of
    /// 1000 × 800 pixels at `path`: the gain in dB (20 log₁₀ |G|) and the phase in degrees
    /// (continuous along the frequencies, [`FrequencyResponse::unwrapped_phase`]) against
    /// the frequency ω in rad/s on a logarithmic axis, at the frequencies `omegas`
    /// (positive and increasing; for a sampled system up to the Nyquist frequency π/Ts is
    /// what is meaningful).
    ///
    /// The channel's gain and phase margins ([`margins`](Self::margins), the channel taken
    /// as a loop transfer function) are marked as MATLAB's `margin` marks them, when their
    /// crossover lies among the frequencies: the 0 dB line and, at the phase crossover, a
    /// segment from the gain curve up to it (the gain margin); the −180° line (the odd
    /// multiple of 180° where the curve crosses) and, at the gain crossover, a segment from
    /// it to the phase curve (the phase margin). The title gives both margins.
    ///
    /// [`FrequencyResponse::unwrapped_phase`]: super::FrequencyResponse::unwrapped_phase
    ///
    /// # Errors
    /// Frequencies that are empty, not positive, not finite or not increasing; the errors
    /// of [`channel`](Self::channel), [`frequency_response`](Self::frequency_response) and
    /// [`margins`](Self::margins) (in words); a file that cannot be written.
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::control::LinearSystem;
    /// use lagrange_runtime::nalgebra::DMatrix;
    ///
    /// // The loop 4/(s + 1)³: a gain margin of 6 dB at √3 rad/s.
    /// let a = DMatrix::from_row_slice(3, 3, &[-1.0, 1.0, 0.0, 0.0, -1.0, 1.0, 0.0, 0.0, -1.0]);
    /// let b = DMatrix::from_row_slice(3, 1, &[0.0, 0.0, 4.0]);
    /// let c = DMatrix::from_row_slice(1, 3, &[1.0, 0.0, 0.0]);
    /// let loop_ = LinearSystem::continuous(a, b, c, DMatrix::zeros(1, 1)).unwrap();
    /// let omegas: Vec<f64> = (0..=200).map(|k| 10f64.powf(-2.0 + 0.02 * f64::from(k))).collect();
    /// let path = std::env::temp_dir().join("lagrange-plot-doc").join("bode.png");
    /// loop_.bode_plot(&omegas, 0, 0, &path).unwrap();
    /// assert!(path.exists());
    /// ```
    pub fn bode_plot(
        &self,
        omegas: &[f64],
        output: usize,
        input: usize,
        path: impl AsRef<Path>,
    ) -> Result<()> {
        let words = |e: super::ControlError| PlotError::from(e.to_string());
        if omegas.is_empty()
            || !omegas.iter().all(|w| w.is_finite() && *w > 0.0)
            || omegas.windows(2).any(|w| w[1] <= w[0])
        {
            return Err("a Bode plot needs positive, finite, increasing frequencies".into());
        }
        let channel = self.channel(output, input).map_err(words)?;
        let margins = channel.margins().map_err(words)?;
        let (low, high) = (omegas[0], omegas[omegas.len() - 1]);
        let shown = |w: f64| w.is_finite() && low <= w && w <= high;
        // The crossovers join the frequencies, so that the curves pass through the marks.
        let mut frequencies = omegas.to_vec();
        for w in [margins.phase_crossover, margins.gain_crossover] {
            if shown(w) {
                frequencies.push(w);
            }
        }
        frequencies.sort_by(f64::total_cmp);
        frequencies.dedup();
        let response = channel.frequency_response(&frequencies).map_err(words)?;
        let gain = response.magnitude_db(0, 0);
        let phase: Vec<f64> = response
            .unwrapped_phase(0, 0)
            .iter()
            .map(|p| p.to_degrees())
            .collect();
        let at = |w: f64| frequencies.iter().position(|&f| f == w);
        let curve = |values: &[f64]| -> Vec<(f64, f64)> {
            frequencies
                .iter()
                .copied()
                .zip(values.iter().copied())
                .collect()
        };

        let gain_label = if margins.gain.is_finite() {
            format!(
                "GM {:.3} dB at {:.4} rad/s",
                margins.gain_db(),
                margins.phase_crossover
            )
        } else {
            "GM ∞".to_string()
        };
        let phase_label = if margins.phase.is_finite() {
            format!(
                "PM {:.3}° at {:.4} rad/s",
                margins.phase, margins.gain_crossover
            )
        } else {
            "PM ∞".to_string()
        };
        let title = format!("Bode diagram: {gain_label}, {phase_label}");

        let mut magnitude = Panel::new(&title, "ω [rad/s]", "|G| [dB]")
            .log_x()
            .x_range(low..high)
            .legend(SeriesLabelPosition::LowerLeft)
            .line("gain", curve(&gain))
            .line("0 dB", [(low, 0.0), (high, 0.0)]);
        if let Some(k) = at(margins.phase_crossover).filter(|_| margins.gain.is_finite()) {
            let w = frequencies[k];
            magnitude = magnitude.line("gain margin", [(w, gain[k]), (w, 0.0)]);
        }
        // The odd multiple of 180° the margins refer to: where the phase is −180° + PM at
        // the gain crossover, else at the phase crossover, else −180°.
        let reference = match (at(margins.gain_crossover), at(margins.phase_crossover)) {
            (Some(k), _) if margins.phase.is_finite() => phase[k] - margins.phase,
            (_, Some(k)) => 360.0 * ((phase[k] + 180.0) / 360.0).round() - 180.0,
            _ => -180.0,
        };
        let mut phase_panel = Panel::new("", "ω [rad/s]", "∠G [°]")
            .log_x()
            .x_range(low..high)
            .legend(SeriesLabelPosition::LowerLeft)
            .line("phase", curve(&phase))
            .line(
                &format!("{reference:.0}°"),
                [(low, reference), (high, reference)],
            );
        if let Some(k) = at(margins.gain_crossover).filter(|_| margins.phase.is_finite()) {
            let w = frequencies[k];
            phase_panel = phase_panel.line("phase margin", [(w, reference), (w, phase[k])]);
        }
        figure(path, (1000, 800), |root| {
            let (top, bottom) = root.split_vertically(420);
            magnitude.draw(&top)?;
            phase_panel.draw(&bottom)
        })
    }
}
