//! An observer-based digital controller (LQG with integral action): a Kalman estimator of
//! the state from measured outputs, a state feedback with the integral of the tracking
//! error, a reference input, actuator limits with anti-windup, and its closed loop.

use super::{c2d, split_columns, ControlError, DiscreteSpectrum, DrivenInputs, LinearSystem};
use crate::linearize::Linearization;
use crate::simulate::SampledController;
use crate::State;
use nalgebra::{DMatrix, DVector, SVector};
use std::fmt;

/// A reference schedule: writes the references at time t into its slice.
type Schedule = dyn FnMut(f64, &mut [f64]);

/// An observer-based digital controller around the operating point of a linearization,
/// sampled every Ts with a zero-order hold: MATLAB's `lqgtrack` (the regulator `reg`/`lqg`
/// of an estimator and a state feedback, with `lqi`'s integral action and reference
/// input), as a [`SampledController`] a [`Simulation`](crate::simulate::Simulation) runs.
///
/// The plant it is designed on is [`plant`](Self::plant): the linearization sampled at Ts
/// with the driven inputs ([`DrivenInputs`]) alone, in the deviations z from the operating
/// point (in the independent coordinates of the constraint manifold for a constrained
/// model, x − x* = V z), measured as y = C x (C p × 2N on x = (q, q̇)). At every sample
/// t_k, with the plant's state x_k:
///
/// ```text
/// y_k  = C x_k                                       measured outputs
/// ẑ_k  = ẑ⁻_k + M (y_k − y* − C V ẑ⁻_k)                measurement update (dlqe's M)
/// δu_k = −K_x ẑ_k − K_ξ ξ_k                            state feedback (dlqi's K = [K_x K_ξ])
/// u_k  = clamp(u* + δu_k, lower, upper)                driven inputs; the others stay u*
/// ẑ⁻_{k+1} = A ẑ_k + B (u_k − u*)                      prediction, with the input applied
/// ξ_{k+1}  = ξ_k + Ts (r_k − y_k[tracked])             integral of the tracking error
/// ```
///
/// The tracked outputs are rows of C (`tracked`), the references r their wanted values (in
/// the units of y = C x, not deviations; they start at y*, so that the controller holds
/// the operating point until told otherwise: [`set_reference`](Self::set_reference),
/// [`with_reference_schedule`](Self::with_reference_schedule)). The integral is of the
/// measured outputs, not of the estimate, so that a constant disturbance the model does
/// not know of leaves no steady error. These are exactly the conventions of [`dlqi`]
/// (ξ_{k+1} = ξ_k + Ts (r − C x_k), u_k = −K [x_k; ξ_k]) and [`dlqe`] (M the
/// measurement-update gain), designed on [`plant`](Self::plant): K by
/// `plant.select_outputs(tracked)?.dlqi(q, r)` (or `plant.dlqr(q, r)` without tracked
/// outputs), M by `plant.dlqe(w, v)`.
///
/// **Actuator limits and anti-windup** ([`with_limits`](Self::with_limits)): the driven
/// inputs are clamped to [lower, upper]. The estimator predicts with the input applied
/// (clamped), so it stays right while the actuator saturates. The integrators are
/// clamped (conditional integration): at a sample where an input is clamped and the
/// integration step Ts (r − y) would push that input further beyond its limit (through
/// −K_ξ), the integrals are held instead of updated; otherwise they integrate. This stops
/// the windup of a large reference step, which would otherwise drive the integral far
/// beyond what the limited actuator can deliver and overshoot when it unwinds.
///
/// **Its closed loop** ([`closed_loop`](Self::closed_loop)), without the limits, is the
/// sampled [`LinearSystem`] with the state (z, ξ, ẑ⁻) (the plant's deviation, the
/// integrals, the prediction), the inputs (r − y*_tracked, then the inputs not driven,
/// held over each period) and the outputs (y − y*, then u − u* of the driven inputs); its
/// multipliers ([`spectrum`](Self::spectrum)) are, by the separation principle, those of
/// the regulator (the augmented A − B K of [`dlqi`]) and of the estimator (A − A M C V).
///
/// The controller does not allocate while it runs. It records, when given names
/// ([`recording`](Self::recording)), the estimate of x = (q, q̇) after the measurement
/// update, x* + V ẑ_k (2N values), then the integrals ξ_k.
///
/// [`dlqi`]: super::dlqi
/// [`dlqe`]: super::dlqe
///
/// # Example
/// A cart of 1 kg pushed by its motor (limited to ±2 N) and by a disturbance, measured by
/// its position alone, asked to move 1 m; the estimator and the integral hold it there
/// against a push of 0.5 N the design does not know of.
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::control::{DrivenInputs, ObserverController};
/// use lagrange_runtime::linearize::linearize;
/// use lagrange_runtime::nalgebra::DMatrix;
/// use lagrange_runtime::simulate::{Rk4, Simulation};
///
/// lagrangian! {
///     struct Cart { parameters: m = 1.0; coordinates: x; inputs: f, push; kinetic = m/2 * dot(x)^2; force f + push on x; }
/// }
///
/// let model = Cart::default();
/// let lin = linearize(&model, &State::at_rest(SVector::zeros()), &SVector::zeros()).unwrap();
/// let motor = DrivenInputs::named(&model, &["f"]).unwrap();
/// let position = DMatrix::from_row_slice(1, 2, &[1.0, 0.0]);
/// let ts = 0.01;
/// let plant = ObserverController::plant(&lin, &motor, ts, &position).unwrap();
/// let (k, _) = plant.select_outputs(&[0]).unwrap()
///     .dlqi(&DMatrix::identity(3, 3), &DMatrix::identity(1, 1)).unwrap();
/// let (m, _) = plant.dlqe(&(DMatrix::identity(2, 2) * 1e-4), &DMatrix::identity(1, 1)).unwrap();
/// let controller = ObserverController::new(&lin, &motor, ts, &position, &[0], &k, &m)
///     .unwrap()
///     .with_limits(SVector::from([-2.0, 0.0]), SVector::from([2.0, 0.0]))
///     .unwrap()
///     .with_reference(&[1.0])
///     .unwrap();
/// assert!(controller.spectrum().spectral_radius() < 1.0);
/// let run = Simulation::new(&model, State::at_rest(SVector::zeros()))
///     .controller(controller)
///     .disturbances(|_t, _s| SVector::from([0.0, 0.5]))
///     .run(&Rk4::new(ts / 4.0), 40.0)
///     .unwrap();
/// assert!((run.last().q[0] - 1.0).abs() < 1e-6);
/// assert!(run.inputs().iter().all(|u| u[0].abs() <= 2.0));
/// ```
pub struct ObserverController<const N: usize, const M: usize> {
    period: f64,
    driven: Vec<usize>,
    tracked: Vec<usize>,
    /// The operating point: x* = (q*, q̇*), u*, y* = C x*.
    x_star: DVector<f64>,
    u_star: SVector<f64, M>,
    y_star: DVector<f64>,
    /// V (2N × d), C (p × 2N), C V, the sampled A and B (driven inputs), the gains.
    tangent: DMatrix<f64>,
    c: DMatrix<f64>,
    cv: DMatrix<f64>,
    ad: DMatrix<f64>,
    bd: DMatrix<f64>,
    kx: DMatrix<f64>,
    kxi: DMatrix<f64>,
    estimator: DMatrix<f64>,
    lower: SVector<f64, M>,
    upper: SVector<f64, M>,
    reference: DVector<f64>,
    schedule: Option<Box<Schedule>>,
    /// The controller's state: the prediction ẑ⁻ and the integrals ξ.
    prior: DVector<f64>,
    xi: DVector<f64>,
    /// Buffers of one update.
    x: DVector<f64>,
    y: DVector<f64>,
    innovation: DVector<f64>,
    estimate: DVector<f64>,
    du: DVector<f64>,
    applied: DVector<f64>,
    excess: DVector<f64>,
    dxi: DVector<f64>,
    push: DVector<f64>,
    /// What the trajectory records: the full estimate, then ξ.
    names: &'static [&'static str],
    record: Vec<f64>,
    saturated: usize,
    closed: LinearSystem,
    spectrum: DiscreteSpectrum,
}

impl<const N: usize, const M: usize> fmt::Debug for ObserverController<N, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObserverController")
            .field("period", &self.period)
            .field("driven", &self.driven)
            .field("tracked", &self.tracked)
            .field("reference", &self.reference.as_slice())
            .field("lower", &self.lower.as_slice())
            .field("upper", &self.upper.as_slice())
            .field("spectral_radius", &self.spectrum.spectral_radius())
            .finish_non_exhaustive()
    }
}

impl<const N: usize, const M: usize> ObserverController<N, M> {
    /// The sampled plant the controller runs on, to design its gains on: the linearization
    /// `lin` in its independent coordinates z (x − x* = V z; z = x − x* without
    /// constraints) with the driven inputs alone, sampled every `period` with a zero-order
    /// hold, measured as y = C V z (`measured` is C, p × 2N on x = (q, q̇)), D = 0.
    ///
    /// # Errors
    /// As [`LinearSystem::from_linearization_outputs`] and [`LinearSystem::c2d`];
    /// [`ControlError::NoSuchChannel`] for a driven input beyond M.
    pub fn plant(
        lin: &Linearization<N, M>,
        driven: &DrivenInputs<M>,
        period: f64,
        measured: &DMatrix<f64>,
    ) -> Result<LinearSystem, ControlError> {
        LinearSystem::from_linearization_outputs(
            lin,
            measured,
            &DMatrix::zeros(measured.nrows(), M),
        )?
        .select_inputs(driven.indices())?
        .c2d(period)
    }

    /// The controller of the gain K = [K_x K_ξ] (m_d × (d + t): [`dlqi`](super::dlqi) on
    /// [`plant`](Self::plant)'s `tracked` outputs; with no tracked outputs, m_d × d, as
    /// [`dlqr`](super::dlqr)) and the estimator's measurement-update gain M (d × p,
    /// [`dlqe`](super::dlqe) on the plant), around the operating point of `lin`, driving
    /// `driven`, measuring C = `measured`, sampled every `period`; the references start at
    /// y* (the tracked outputs at the operating point), the inputs unlimited. Its closed
    /// loop and multipliers are computed here.
    ///
    /// # Errors
    /// As [`plant`](Self::plant); [`ControlError::NoSuchChannel`] for a tracked output
    /// beyond C's rows, [`ControlError::InvalidSetting`] for one given twice;
    /// [`ControlError::DimensionMismatch`] naming `"K"` or `"M"` for gains of other
    /// shapes, [`ControlError::NonFinite`] for gains that are not finite; as
    /// [`DiscreteSpectrum::new`] for the closed loop.
    pub fn new(
        lin: &Linearization<N, M>,
        driven: &DrivenInputs<M>,
        period: f64,
        measured: &DMatrix<f64>,
        tracked: &[usize],
        gain: &DMatrix<f64>,
        estimator: &DMatrix<f64>,
    ) -> Result<Self, ControlError> {
        let plant = Self::plant(lin, driven, period, measured)?;
        let (d, p, m, t) = (plant.states(), plant.outputs(), driven.len(), tracked.len());
        for (i, &row) in tracked.iter().enumerate() {
            plant.check_output(row)?;
            if tracked[..i].contains(&row) {
                return Err(ControlError::InvalidSetting(
                    "a tracked output is given twice",
                ));
            }
        }
        for (name, matrix, shape) in [("K", gain, (m, d + t)), ("M", estimator, (d, p))] {
            if matrix.shape() != shape {
                return Err(ControlError::DimensionMismatch {
                    matrix: name,
                    expected: shape,
                    found: matrix.shape(),
                });
            }
            if !matrix.iter().all(|v| v.is_finite()) {
                return Err(ControlError::NonFinite { matrix: name });
            }
        }
        let blocks = split_columns(gain, &[0..d, d..d + t])?;
        let (kx, kxi) = (blocks[0].clone(), blocks[1].clone());
        let x_star = DVector::from_iterator(
            2 * N,
            lin.state.q.iter().chain(lin.state.qd.iter()).copied(),
        );
        let y_star = measured * &x_star;
        // The inputs not driven, sampled as the driven ones (held over each period).
        let undriven = driven.undriven();
        let (_, b_all) = c2d(&lin.reduced_a(), &lin.reduced_b(), period)?;
        let bw = b_all.select_columns(&undriven);
        let closed = closed_loop(&plant, tracked, &kx, &kxi, estimator, &bw)?;
        let spectrum = DiscreteSpectrum::new(closed.a(), period)?;
        let reference = DVector::from_iterator(t, tracked.iter().map(|&row| y_star[row]));
        Ok(ObserverController {
            period,
            driven: driven.indices().to_vec(),
            tracked: tracked.to_vec(),
            x_star,
            u_star: lin.inputs,
            y_star,
            tangent: lin.tangent.clone(),
            c: measured.clone(),
            cv: plant.c().clone(),
            ad: plant.a().clone(),
            bd: plant.b().clone(),
            kx,
            kxi,
            estimator: estimator.clone(),
            lower: SVector::repeat(f64::NEG_INFINITY),
            upper: SVector::repeat(f64::INFINITY),
            reference,
            schedule: None,
            prior: DVector::zeros(d),
            xi: DVector::zeros(t),
            x: DVector::zeros(2 * N),
            y: DVector::zeros(p),
            innovation: DVector::zeros(p),
            estimate: DVector::zeros(d),
            du: DVector::zeros(m),
            applied: DVector::zeros(m),
            excess: DVector::zeros(m),
            dxi: DVector::zeros(t),
            push: DVector::zeros(m),
            names: &[],
            record: vec![0.0; 2 * N + t],
            saturated: 0,
            closed,
            spectrum,
        })
    }

    /// Limits the driven inputs to [lower, upper] (entry by entry, for the model's M
    /// inputs; the entries of inputs not driven are not used), with the anti-windup of the
    /// [type's docs](Self): the estimator predicts with the clamped input, the integrals
    /// are held while integrating would push a clamped input further. Infinite limits are
    /// none.
    ///
    /// # Errors
    /// [`ControlError::InvalidSetting`] for a limit that is NaN or a lower limit above the
    /// upper one.
    pub fn with_limits(
        mut self,
        lower: SVector<f64, M>,
        upper: SVector<f64, M>,
    ) -> Result<Self, ControlError> {
        if lower
            .iter()
            .zip(upper.iter())
            .any(|(l, u)| l.is_nan() || u.is_nan() || l > u)
        {
            return Err(ControlError::InvalidSetting(
                "actuator limits must not be NaN, and each lower limit at most its upper one",
            ));
        }
        (self.lower, self.upper) = (lower, upper);
        Ok(self)
    }

    /// Sets constant references for the tracked outputs (in their order), the values of
    /// y = C x wanted.
    ///
    /// # Errors
    /// As [`set_reference`](Self::set_reference).
    pub fn with_reference(mut self, reference: &[f64]) -> Result<Self, ControlError> {
        self.set_reference(reference)?;
        Ok(self)
    }

    /// References that change with time: `schedule(t, r)` writes the references at the
    /// sample time t into r (one per tracked output), before each update; a step, a ramp,
    /// a profile.
    pub fn with_reference_schedule(
        mut self,
        schedule: impl FnMut(f64, &mut [f64]) + 'static,
    ) -> Self {
        self.schedule = Some(Box::new(schedule));
        self
    }

    /// Sets the references (one per tracked output, finite), from the next sample on.
    ///
    /// # Errors
    /// [`ControlError::DimensionMismatch`] naming `"r"` for another count,
    /// [`ControlError::NonFinite`] for a NaN or an infinity.
    pub fn set_reference(&mut self, reference: &[f64]) -> Result<(), ControlError> {
        if reference.len() != self.tracked.len() {
            return Err(ControlError::DimensionMismatch {
                matrix: "r",
                expected: (self.tracked.len(), 1),
                found: (reference.len(), 1),
            });
        }
        if !reference.iter().all(|v| v.is_finite()) {
            return Err(ControlError::NonFinite { matrix: "r" });
        }
        self.reference.copy_from_slice(reference);
        Ok(())
    }

    /// Records the controller's state in the trajectory under `names`: the estimate of
    /// x = (q, q̇) (2N names, coordinates then velocities), then the integrals (one per
    /// tracked output).
    ///
    /// # Errors
    /// [`ControlError::InvalidSetting`] for another number of names (the run checks the
    /// names themselves against the trajectory's columns).
    pub fn recording(mut self, names: &'static [&'static str]) -> Result<Self, ControlError> {
        if names.len() != self.record.len() {
            return Err(ControlError::InvalidSetting(
                "an observer controller records 2N estimates and one integral per tracked output: give as many names",
            ));
        }
        self.names = names;
        Ok(self)
    }

    /// The closed loop without the limits, a sampled [`LinearSystem`]: state (z, ξ, ẑ⁻),
    /// inputs (r − y*_tracked, then the inputs not driven), outputs (y − y*, then the
    /// driven inputs' u − u*). See the [type's docs](Self).
    pub fn closed_loop(&self) -> &LinearSystem {
        &self.closed
    }

    /// The loop transfer broken at the driven inputs (MATLAB's `margin(-C*P)` with the
    /// controller C and the plant P, the loop's negative feedback convention): a sampled
    /// [`LinearSystem`] from the inputs u_in fed to the plant to the controller's output
    /// with its sign reversed, −δu, the references at zero; its state (z, ξ, ẑ⁻) as the
    /// closed loop's. Closing it with unit negative feedback (u_in = δu) gives back
    /// [`closed_loop`](Self::closed_loop)'s A; with one driven input,
    /// [`LinearSystem::margins`] gives the loop's gain and phase margins and
    /// `bode_plot` (feature `plot`) its Bode diagram. The controller predicts with
    /// the input it commands, not u_in (as it does with its limits), so these are the
    /// margins against a gain or a delay of the actuator.
    ///
    /// # Errors
    /// None in practice: the matrices are those of the closed loop, already checked.
    pub fn loop_at_inputs(&self) -> Result<LinearSystem, ControlError> {
        let phi = self.closed.a();
        let (n, m, p) = (phi.nrows(), self.driven.len(), self.c.nrows());
        let d = self.ad.nrows();
        // −δu = C_L X with C_L the closed loop's δu rows negated; A_L = Φ + B_L C_L.
        let c_loop = -self.closed.c().rows(p, m).into_owned();
        let mut b_loop = DMatrix::zeros(n, m);
        b_loop.view_mut((0, 0), (d, m)).copy_from(&self.bd);
        let a_loop = phi + &b_loop * &c_loop;
        LinearSystem::sampled(a_loop, b_loop, c_loop, DMatrix::zeros(m, m), self.period)
    }

    /// The multipliers of the closed loop (the eigenvalues of its A): the regulator's and
    /// the estimator's.
    pub fn spectrum(&self) -> &DiscreteSpectrum {
        &self.spectrum
    }

    /// The estimate of x = (q, q̇) after the last measurement update, x* + V ẑ
    /// (x* before the first sample).
    pub fn estimate(&self) -> State<N> {
        let x = &self.x_star + &self.tangent * &self.estimate;
        State::new(
            0.0,
            SVector::from_fn(|i, _| x[i]),
            SVector::from_fn(|i, _| x[N + i]),
        )
    }

    /// The integrals ξ of the tracking errors.
    pub fn integrals(&self) -> &[f64] {
        self.xi.as_slice()
    }

    /// How many samples so far had an input clamped at a limit.
    pub fn saturated_samples(&self) -> usize {
        self.saturated
    }
}

impl<const N: usize, const M: usize> SampledController<N, M> for ObserverController<N, M> {
    fn period(&self) -> f64 {
        self.period
    }

    fn update(&mut self, t: f64, s: &State<N>) -> SVector<f64, M> {
        for i in 0..N {
            self.x[i] = s.q[i] - self.x_star[i];
            self.x[N + i] = s.qd[i] - self.x_star[N + i];
        }
        // y − y*, and the measurement update of the prediction.
        self.y.gemv(1.0, &self.c, &self.x, 0.0);
        self.innovation.copy_from(&self.y);
        self.innovation.gemv(-1.0, &self.cv, &self.prior, 1.0);
        self.estimate.copy_from(&self.prior);
        self.estimate
            .gemv(1.0, &self.estimator, &self.innovation, 1.0);
        if let Some(schedule) = self.schedule.as_mut() {
            schedule(t, self.reference.as_mut_slice());
        }
        // The state feedback, clamped.
        self.du.gemv(-1.0, &self.kx, &self.estimate, 0.0);
        self.du.gemv(-1.0, &self.kxi, &self.xi, 1.0);
        let mut u = self.u_star;
        for (i, &j) in self.driven.iter().enumerate() {
            let wanted = self.u_star[j] + self.du[i];
            let got = wanted.max(self.lower[j]).min(self.upper[j]);
            u[j] = got;
            self.applied[i] = got - self.u_star[j];
            self.excess[i] = wanted - got;
        }
        // The integrals, held where integrating would push a clamped input further.
        for (k, &row) in self.tracked.iter().enumerate() {
            self.dxi[k] = self.period * (self.reference[k] - (self.y[row] + self.y_star[row]));
        }
        self.push.gemv(-1.0, &self.kxi, &self.dxi, 0.0);
        let clamped = self.excess.iter().any(|&e| e != 0.0);
        let windup = self
            .excess
            .iter()
            .zip(self.push.iter())
            .any(|(e, p)| e * p > 0.0);
        if clamped {
            self.saturated += 1;
        }
        if !windup {
            self.xi += &self.dxi;
        }
        // The record (before the prediction overwrites nothing it needs), then predict.
        if !self.names.is_empty() {
            // x = x* + V ẑ, in the buffer of the deviation (no longer needed).
            self.x.copy_from(&self.x_star);
            self.x.gemv(1.0, &self.tangent, &self.estimate, 1.0);
            self.record[..2 * N].copy_from_slice(self.x.as_slice());
            self.record[2 * N..].copy_from_slice(self.xi.as_slice());
        }
        self.prior.gemv(1.0, &self.ad, &self.estimate, 0.0);
        self.prior.gemv(1.0, &self.bd, &self.applied, 1.0);
        u
    }

    fn state_names(&self) -> &[&str] {
        self.names
    }

    fn state(&self) -> &[f64] {
        if self.names.is_empty() {
            &[]
        } else {
            &self.record
        }
    }
}

/// The closed loop of the controller on its plant, without limits (see
/// [`ObserverController::closed_loop`]): state (z, ξ, ẑ⁻), inputs (r, w), outputs
/// (y, δu). With G = M C V and F = I − G (the estimate ẑ = F ẑ⁻ + G z):
///
/// ```text
/// z'  = (A − B K_x G) z − B K_ξ ξ − B K_x F ẑ⁻ + B_w w
/// ξ'  = −Ts C_t z + ξ + Ts r
/// ẑ⁻' = (A G − B K_x G) z − B K_ξ ξ + (A F − B K_x F) ẑ⁻
/// ```
fn closed_loop(
    plant: &LinearSystem,
    tracked: &[usize],
    kx: &DMatrix<f64>,
    kxi: &DMatrix<f64>,
    estimator: &DMatrix<f64>,
    bw: &DMatrix<f64>,
) -> Result<LinearSystem, ControlError> {
    let (a, b, c) = (plant.a(), plant.b(), plant.c());
    let period = plant.period().unwrap_or(0.0);
    let (d, p, m, t, w) = (a.nrows(), c.nrows(), b.ncols(), tracked.len(), bw.ncols());
    let g = estimator * c;
    let f = DMatrix::identity(d, d) - &g;
    let ct = c.select_rows(tracked);
    let n = 2 * d + t;
    let mut phi = DMatrix::zeros(n, n);
    let bkx = b * kx;
    let bkxi = b * kxi;
    phi.view_mut((0, 0), (d, d)).copy_from(&(a - &bkx * &g));
    phi.view_mut((0, d), (d, t)).copy_from(&(-&bkxi));
    phi.view_mut((0, d + t), (d, d)).copy_from(&(-&bkx * &f));
    phi.view_mut((d, 0), (t, d)).copy_from(&(-&ct * period));
    phi.view_mut((d, d), (t, t)).fill_with_identity();
    phi.view_mut((d + t, 0), (d, d))
        .copy_from(&((a - &bkx) * &g));
    phi.view_mut((d + t, d), (d, t)).copy_from(&(-&bkxi));
    phi.view_mut((d + t, d + t), (d, d))
        .copy_from(&((a - &bkx) * &f));
    let mut gamma = DMatrix::zeros(n, t + w);
    gamma.view_mut((d, 0), (t, t)).fill_with_identity();
    gamma.view_mut((d, 0), (t, t)).scale_mut(period);
    gamma.view_mut((0, t), (d, w)).copy_from(bw);
    let mut out = DMatrix::zeros(p + m, n);
    out.view_mut((0, 0), (p, d)).copy_from(c);
    out.view_mut((p, 0), (m, d)).copy_from(&(-kx * &g));
    out.view_mut((p, d), (m, t)).copy_from(&(-kxi));
    out.view_mut((p, d + t), (m, d)).copy_from(&(-kx * &f));
    LinearSystem::sampled(phi, gamma, out, DMatrix::zeros(p + m, t + w), period)
}

#[cfg(test)]
mod tests {
    use super::super::reference::*;
    use super::super::{dlqe, dlqi, DrivenInputs};
    use super::*;
    use nalgebra::{Complex, SMatrix};

    fn m(rows: usize, columns: usize, entries: &[f64]) -> DMatrix<f64> {
        DMatrix::from_row_slice(rows, columns, entries)
    }

    /// The cart-pendulum of the reference, at rest at 0: its linearization by hand.
    fn linearization() -> Linearization<2, 2> {
        Linearization {
            state: State::at_rest(SVector::zeros()),
            inputs: SVector::zeros(),
            accelerations: SVector::zeros(),
            d_q: SMatrix::from_row_slice(&OBSERVER_DQ),
            d_qd: SMatrix::from_row_slice(&OBSERVER_DQD),
            d_u: SMatrix::from_row_slice(&OBSERVER_DU),
            tangent: DMatrix::identity(4, 4),
        }
    }

    fn force() -> DrivenInputs<2> {
        DrivenInputs::from_indices(&[0]).unwrap()
    }

    /// The controller of the reference's gains (SciPy's).
    fn reference_controller() -> ObserverController<2, 2> {
        ObserverController::new(
            &linearization(),
            &force(),
            OBSERVER_TS[0],
            &m(2, 4, &OBSERVER_C),
            &[0],
            &m(1, 5, &OBSERVER_K),
            &m(4, 2, &OBSERVER_M),
        )
        .unwrap()
    }

    fn sorted(mut z: Vec<Complex<f64>>) -> Vec<Complex<f64>> {
        z.sort_by(|a, b| a.re.total_cmp(&b.re).then(a.im.total_cmp(&b.im)));
        z
    }

    /// Multisets of eigenvalues equal to `tolerance`: each of `a` matched to a distinct
    /// nearest one of `b`.
    fn same_spectrum(a: &[Complex<f64>], b: &[Complex<f64>], tolerance: f64) {
        assert_eq!(a.len(), b.len());
        let mut left: Vec<Complex<f64>> = b.to_vec();
        for z in a {
            let (i, distance) = left
                .iter()
                .enumerate()
                .map(|(i, w)| (i, (z - w).norm()))
                .min_by(|x, y| x.1.total_cmp(&y.1))
                .unwrap();
            assert!(distance < tolerance, "{z} is {distance:e} from the nearest");
            left.swap_remove(i);
        }
    }

    /// The closed loop built by the controller, from SciPy's gains, against python-control's
    /// interconnection of the sampled plant and the controller written as a state-space
    /// system (same state order (x, ξ, x̂⁻)): every matrix to 1e-13 of its size.
    #[test]
    fn the_closed_loop_is_python_controls_interconnection() {
        let controller = reference_controller();
        let closed = controller.closed_loop();
        assert_eq!(closed.period(), Some(OBSERVER_TS[0]));
        for (name, ours, theirs) in [
            ("A", closed.a(), m(9, 9, &OBSERVER_CLOSED_A)),
            ("B", closed.b(), m(9, 2, &OBSERVER_CLOSED_B)),
            ("C", closed.c(), m(3, 9, &OBSERVER_CLOSED_C)),
            ("D", closed.d(), m(3, 2, &OBSERVER_CLOSED_D)),
        ] {
            let error = (ours - &theirs).amax();
            assert!(
                error < 1e-13 * theirs.amax().max(1.0),
                "{name}: {error:e}\n{ours}\n{theirs}"
            );
        }
        let poles: Vec<Complex<f64>> = OBSERVER_CLOSED_POLES
            .chunks(2)
            .map(|z| Complex::new(z[0], z[1]))
            .collect();
        same_spectrum(&controller.spectrum().eigenvalues, &poles, 1e-10);
    }

    /// The gains designed on [`ObserverController::plant`] with this crate's `dlqi` and
    /// `dlqe` are SciPy's, and the closed loop's multipliers are, by the separation
    /// principle, those of the regulator (the augmented A − B K) and of the estimator
    /// (A − A M C), to 1e-10.
    #[test]
    fn the_designs_on_the_plant_and_the_separation_principle() {
        let (lin, ts, c) = (linearization(), OBSERVER_TS[0], m(2, 4, &OBSERVER_C));
        let plant = ObserverController::plant(&lin, &force(), ts, &c).unwrap();
        let (k, _) = plant
            .select_outputs(&[0])
            .unwrap()
            .dlqi(&m(5, 5, &OBSERVER_Q), &m(1, 1, &OBSERVER_R))
            .unwrap();
        let (mg, _) = plant
            .dlqe(&m(4, 4, &OBSERVER_W), &m(2, 2, &OBSERVER_V))
            .unwrap();
        let (k_ref, m_ref) = (m(1, 5, &OBSERVER_K), m(4, 2, &OBSERVER_M));
        assert!((&k - &k_ref).amax() < 1e-9 * k_ref.amax(), "{k}\n{k_ref}");
        assert!((&mg - &m_ref).amax() < 1e-9 * m_ref.amax(), "{mg}\n{m_ref}");
        // The same designs by the free functions on the same matrices.
        let ct = c.rows(0, 1).into_owned();
        let (k_free, _) = dlqi(
            plant.a(),
            plant.b(),
            &ct,
            &m(5, 5, &OBSERVER_Q),
            &m(1, 1, &OBSERVER_R),
            ts,
        )
        .unwrap();
        assert_eq!(k_free, k);
        let (m_free, _) =
            dlqe(plant.a(), &c, &m(4, 4, &OBSERVER_W), &m(2, 2, &OBSERVER_V)).unwrap();
        assert_eq!(m_free, mg);

        let controller = ObserverController::new(&lin, &force(), ts, &c, &[0], &k, &mg).unwrap();
        let (a, b) = (plant.a(), plant.b());
        let mut augmented = DMatrix::identity(5, 5);
        augmented.view_mut((0, 0), (4, 4)).copy_from(a);
        augmented.view_mut((4, 0), (1, 4)).copy_from(&(-&ct * ts));
        let mut b5 = DMatrix::zeros(5, 1);
        b5.view_mut((0, 0), (4, 1)).copy_from(b);
        let regulator = (augmented - b5 * &k).complex_eigenvalues();
        let estimator = (a - a * &mg * &c).complex_eigenvalues();
        let union: Vec<Complex<f64>> = regulator.iter().chain(estimator.iter()).copied().collect();
        same_spectrum(
            &sorted(controller.spectrum().eigenvalues.clone()),
            &sorted(union),
            1e-10,
        );
        assert!(controller.spectrum().spectral_radius() < 1.0);
    }

    /// The plant of the reference driven by the controller, sample by sample (the sampled
    /// plant's recursion with the inputs the controller returns, a disturbance held on the
    /// push, a reference step on the cart), follows the closed loop's own recursion.
    #[test]
    fn the_controller_runs_its_closed_loop() {
        let lin = linearization();
        let (ts, c) = (OBSERVER_TS[0], m(2, 4, &OBSERVER_C));
        let mut controller = reference_controller()
            .with_reference_schedule(|t, r| r[0] = if t >= 0.1 { 0.5 } else { 0.0 })
            .recording(&["x", "th", "dx", "dth", "xi"])
            .unwrap();
        let (ad, b_all) = c2d(&lin.a(), &lin.b(), ts).unwrap();
        let closed = controller.closed_loop().clone();
        let mut x = DVector::from_vec(vec![0.05, -0.02, 0.0, 0.1]);
        let mut big = DVector::zeros(9);
        big.rows_mut(0, 4).copy_from(&x);
        let push = 0.3;
        for k in 0..1000 {
            let t = k as f64 * ts;
            let s = State::new(t, SVector::from([x[0], x[1]]), SVector::from([x[2], x[3]]));
            let u = controller.update(t, &s);
            assert_eq!(u[1], 0.0); // the push is not the controller's
            let r = if t >= 0.1 { 0.5 } else { 0.0 };
            let input = DVector::from_vec(vec![r, push]);
            let outputs = closed.c() * &big;
            assert!(
                (outputs[2] - u[0]).abs() < 1e-10 * (1.0 + u[0].abs()),
                "{k}: {outputs} {u}"
            );
            assert!((outputs.rows(0, 2) - &c * &x).amax() < 1e-12);
            x = &ad * &x + b_all.column(0) * u[0] + b_all.column(1) * push;
            big = closed.a() * &big + closed.b() * input;
            assert!((big.rows(0, 4) - &x).amax() < 1e-9, "{k}: {x} {big}");
            assert_eq!(controller.state()[4], controller.integrals()[0]);
        }
        // Settled: the cart at its reference despite the push (the integral's work).
        assert!((x[0] - 0.5).abs() < 1e-3, "{x}");
        assert_eq!(controller.saturated_samples(), 0);
    }

    /// With limits, the inputs stay within them and the integral is held while integrating
    /// would push a clamped input further, so a reference step larger than the actuator
    /// can follow quickly does not wind it up: on a mass on a spring (k = 4, a force
    /// limited to 1 N, a step of 0.2 m that needs 0.8 N), the integral stays smaller and
    /// the overshoot too than with the same clamp applied outside the controller (no
    /// hold); both settle at the reference.
    #[test]
    fn limits_clamp_the_inputs_and_hold_the_integral() {
        let lin = Linearization::<1, 1> {
            state: State::at_rest(SVector::zeros()),
            inputs: SVector::zeros(),
            accelerations: SVector::zeros(),
            d_q: SMatrix::from([[-4.0]]),
            d_qd: SMatrix::from([[-0.3]]),
            d_u: SMatrix::from([[1.0]]),
            tangent: DMatrix::identity(2, 2),
        };
        let (ts, c, all) = (0.01, m(1, 2, &[1.0, 0.0]), DrivenInputs::all());
        let plant = ObserverController::plant(&lin, &all, ts, &c).unwrap();
        let q = DMatrix::from_diagonal(&DVector::from_vec(vec![100.0, 1.0, 1000.0]));
        let (k, _) = plant.dlqi(&q, &m(1, 1, &[0.01])).unwrap();
        let (mg, _) = plant
            .dlqe(&(DMatrix::identity(2, 2) * 1e-3), &m(1, 1, &[1e-4]))
            .unwrap();
        let controller = || {
            ObserverController::new(&lin, &all, ts, &c, &[0], &k, &mg)
                .unwrap()
                .with_reference(&[0.2])
                .unwrap()
        };
        let limit = 1.0;
        let mut limited = controller()
            .with_limits(SVector::from([-limit]), SVector::from([limit]))
            .unwrap();
        let mut free = controller();
        let (ad, bd) = (plant.a().clone(), plant.b().clone());
        let (mut x, mut y) = (DVector::<f64>::zeros(2), DVector::<f64>::zeros(2));
        let (mut peak, mut free_peak, mut xi, mut free_xi) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        let at =
            |t: f64, x: &DVector<f64>| State::new(t, SVector::from([x[0]]), SVector::from([x[1]]));
        for k in 0..2000 {
            let t = k as f64 * ts;
            let u = limited.update(t, &at(t, &x));
            assert!(u[0].abs() <= limit);
            x = &ad * &x + &bd * u[0];
            let v = free.update(t, &at(t, &y));
            y = &ad * &y + &bd * v[0].clamp(-limit, limit);
            (peak, free_peak) = (peak.max(x[0]), free_peak.max(y[0]));
            xi = xi.max(limited.integrals()[0].abs());
            free_xi = free_xi.max(free.integrals()[0].abs());
        }
        println!(
            "saturated {} samples; peak {peak} (without the hold {free_peak}), |ξ| ≤ {xi} ({free_xi}); end {} {}",
            limited.saturated_samples(),
            x[0],
            y[0]
        );
        assert!(limited.saturated_samples() > 0);
        assert!(xi < free_xi && peak < free_peak);
        assert!((x[0] - 0.2).abs() < 1e-6 && (y[0] - 0.2).abs() < 1e-6);
        assert!(matches!(
            controller().with_limits(SVector::from([1.0]), SVector::from([-1.0])),
            Err(ControlError::InvalidSetting(_))
        ));
        assert!(matches!(
            controller().with_limits(SVector::from([f64::NAN]), SVector::from([1.0])),
            Err(ControlError::InvalidSetting(_))
        ));
    }

    /// The loop broken at the input, closed with unit negative feedback, is the closed loop;
    /// its margins are python-control's.
    #[test]
    fn the_loop_at_the_input_closes_into_the_closed_loop() {
        let controller = reference_controller();
        let open = controller.loop_at_inputs().unwrap();
        let closed = open.a() - open.b() * open.c();
        let phi = controller.closed_loop().a();
        assert!(
            (&closed - phi).amax() < 1e-14 * phi.amax(),
            "{closed}\n{phi}"
        );
        // Its margins against python-control's (its 'frd' fallback, interpolated on a
        // grid, so to 1e-4): the plant is unstable, so the gain margin is a lower one
        // (below 1: the loop needs at least that fraction of its gain).
        let margins = open.margins().unwrap();
        let want = OBSERVER_LOOP_MARGINS;
        for (ours, theirs) in [
            margins.gain,
            margins.phase,
            margins.phase_crossover,
            margins.gain_crossover,
        ]
        .iter()
        .zip(want)
        {
            assert!(
                (ours - theirs).abs() < 1e-4 * theirs.abs(),
                "{margins:?} {want:?}"
            );
        }
        // Ours are the crossings themselves: |L| = 1 and Im L = 0 there, to 1e-9.
        let at = open
            .frequency_response(&[margins.gain_crossover, margins.phase_crossover])
            .unwrap();
        assert!((at.values[0][(0, 0)].norm() - 1.0).abs() < 1e-9);
        assert!(at.values[1][(0, 0)].im.abs() < 1e-9 * at.values[1][(0, 0)].norm());
    }

    /// Gains, tracked outputs, references and names of the wrong shape are refused, naming
    /// what is wrong.
    #[test]
    fn settings_that_do_not_fit_are_refused() {
        let (lin, ts, c) = (linearization(), OBSERVER_TS[0], m(2, 4, &OBSERVER_C));
        let (k, mg) = (m(1, 5, &OBSERVER_K), m(4, 2, &OBSERVER_M));
        let new = |tracked: &[usize], k: &DMatrix<f64>, mg: &DMatrix<f64>| {
            ObserverController::new(&lin, &force(), ts, &c, tracked, k, mg)
        };
        assert!(matches!(
            new(&[0], &m(1, 4, &OBSERVER_K[..4]), &mg),
            Err(ControlError::DimensionMismatch {
                matrix: "K",
                expected: (1, 5),
                ..
            })
        ));
        assert!(matches!(
            new(&[0], &k, &mg.transpose()),
            Err(ControlError::DimensionMismatch {
                matrix: "M",
                expected: (4, 2),
                ..
            })
        ));
        assert!(matches!(
            new(&[2], &k, &mg),
            Err(ControlError::NoSuchChannel {
                kind: "output",
                index: 2,
                count: 2
            })
        ));
        assert!(matches!(
            new(&[0, 0], &k, &mg),
            Err(ControlError::InvalidSetting(_))
        ));
        let mut nan = k.clone();
        nan[(0, 1)] = f64::NAN;
        assert!(matches!(
            new(&[0], &nan, &mg),
            Err(ControlError::NonFinite { matrix: "K" })
        ));
        assert!(matches!(
            reference_controller().with_reference(&[1.0, 2.0]),
            Err(ControlError::DimensionMismatch { matrix: "r", .. })
        ));
        assert!(matches!(
            reference_controller().with_reference(&[f64::INFINITY]),
            Err(ControlError::NonFinite { matrix: "r" })
        ));
        assert!(matches!(
            reference_controller().recording(&["a", "b"]),
            Err(ControlError::InvalidSetting(_))
        ));
        // A regulator without tracked outputs: K is m × d.
        let regulator = new(&[], &k.columns(0, 4).into_owned(), &mg).unwrap();
        assert_eq!(regulator.closed_loop().states(), 8);
        assert_eq!(regulator.closed_loop().inputs(), 1); // the push alone
    }
}
