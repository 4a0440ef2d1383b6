//! A state-space system that knows whether it is continuous or sampled, its designs
//! checked against that, its poles, DC gain and controllability and observability tests.

use super::{c2d, check_matrices, check_period, dlqe, dlqi, dlqr, lqe, lqi, lqr, ControlError};
use crate::linearize::Linearization;
use nalgebra::{Complex, DMatrix, DVector};

/// A linear time-invariant system in state-space form, continuous or sampled:
///
/// ```text
/// continuous:   ẋ = A x + B u,          y = C x + D u
/// sampled:      x_{k+1} = A x_k + B u_k,  y_k = C x_k + D u_k   (every Ts seconds)
/// ```
///
/// with n states, m inputs and p outputs (A n × n, B n × m, C p × n, D p × m, every entry
/// finite, Ts positive and finite). The value knows which it is, so that a design meant
/// for the other kind cannot be fed to it by mistake: [`lqr`](Self::lqr),
/// [`lqi`](Self::lqi) and [`lqe`](Self::lqe) need a continuous system, [`dlqr`](Self::dlqr),
/// [`dlqi`](Self::dlqi) and [`dlqe`](Self::dlqe) a sampled one, and otherwise return
/// [`ControlError::DomainMismatch`]; [`c2d`](Self::c2d) samples a continuous system with a
/// zero-order hold. These call the free functions of the [module](super) of the same
/// names, which take raw matrices and cannot tell.
///
/// Analyses: [`poles`](Self::poles), [`dc_gain`](Self::dc_gain),
/// [`controllability`](Self::controllability) and [`observability`](Self::observability);
/// time responses ([`step`](Self::step), [`impulse`](Self::impulse),
/// [`initial`](Self::initial), [`lsim`](Self::lsim), in [`Response`](super::Response)s); the frequency
/// response ([`frequency_response`](Self::frequency_response)) and the gain and phase
/// margins ([`margins`](Self::margins)); pole placement ([`place`](Self::place)). With
/// the `plot` feature, `bode_plot` draws the Bode diagram.
///
/// Built from a model's [`Linearization`] with
/// [`from_linearization`](Self::from_linearization), the system is in the deviations
/// δx = x − x*, δu = u − u* from the operating point.
///
/// # Example
/// A mass on a spring and a damper, pushed by a force: its DC gain, and once sampled its
/// discrete LQR, while the continuous LQR of the sampled system is refused.
/// ```
/// use lagrange_runtime::control::{ControlError, LinearSystem};
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // m ẍ + c ẋ + k x = f with m = 1, c = 0.4, k = 4, y = x.
/// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -4.0, -0.4]);
/// let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
/// let c = DMatrix::from_row_slice(1, 2, &[1.0, 0.0]);
/// let plant = LinearSystem::continuous(a, b, c, DMatrix::zeros(1, 1)).unwrap();
/// assert!((plant.dc_gain().unwrap()[(0, 0)] - 0.25).abs() < 1e-15); // 1/k
///
/// let sampled = plant.c2d(0.01).unwrap();
/// assert_eq!(sampled.period(), Some(0.01));
/// let (q, r) = (DMatrix::identity(2, 2), DMatrix::identity(1, 1));
/// assert!(sampled.dlqr(&q, &r).is_ok());
/// assert!(matches!(
///     sampled.lqr(&q, &r),
///     Err(ControlError::DomainMismatch { operation: "lqr", expected: "continuous", found: "sampled" })
/// ));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LinearSystem {
    pub(super) a: DMatrix<f64>,
    pub(super) b: DMatrix<f64>,
    pub(super) c: DMatrix<f64>,
    pub(super) d: DMatrix<f64>,
    pub(super) period: Option<f64>,
}

/// The result of a rank test of controllability or observability: the matrix, its
/// singular values (descending) and its rank.
///
/// The rank counts the singular values above max(rows, columns) · ε · σ_max (ε the machine
/// epsilon, σ_max the largest singular value), NumPy's `matrix_rank` default that
/// python-control's `ctrb`/`obsv` users apply. The test is the textbook one and shares its
/// weakness: the columns Aᵏ B of a system whose modes differ by orders of magnitude differ
/// as much in size, so a system far from uncontrollable may be reported rank deficient (and
/// the converse); the [`singular_values`](Self::singular_values) show how clear-cut the
/// answer is.
#[derive(Debug, Clone, PartialEq)]
pub struct RankTest {
    /// The controllability matrix [B AB … Aⁿ⁻¹B] (n × nm) or the observability matrix
    /// [C; CA; …; CAⁿ⁻¹] (np × n).
    pub matrix: DMatrix<f64>,
    /// Its singular values, descending.
    pub singular_values: DVector<f64>,
    /// Its numerical rank (see above).
    pub rank: usize,
    /// The number of states n: the test passes when `rank == states`.
    pub states: usize,
}

impl RankTest {
    /// Whether the rank is full (= the number of states): the system is controllable
    /// (observable).
    pub fn full(&self) -> bool {
        self.rank == self.states
    }

    fn new(matrix: DMatrix<f64>, states: usize) -> Self {
        let singular_values = if matrix.is_empty() {
            DVector::zeros(0)
        } else {
            matrix.clone().svd(false, false).singular_values
        };
        let rank = numerical_rank(&singular_values, matrix.nrows().max(matrix.ncols()));
        RankTest {
            matrix,
            singular_values,
            rank,
            states,
        }
    }
}

/// The number of `singular` values (descending or not) above max(rows, columns) ε σ_max.
pub(super) fn numerical_rank(singular: &DVector<f64>, size: usize) -> usize {
    let largest = singular.iter().copied().fold(0.0, f64::max);
    let tolerance = size as f64 * f64::EPSILON * largest;
    singular.iter().filter(|&&s| s > tolerance).count()
}

/// The controllability matrix [B AB A²B … Aⁿ⁻¹B] of (A, B) and its rank (see
/// [`RankTest`]), as MATLAB's and python-control's `ctrb` with the rank test.
///
/// # Errors
/// [`ControlError::NotSquare`], [`ControlError::DimensionMismatch`] (B with n rows) and
/// [`ControlError::NonFinite`].
///
/// # Example
/// ```
/// use lagrange_runtime::control::ctrb;
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // Two decoupled integrators, one of them driven: rank 1 of 2.
/// let test = ctrb(&DMatrix::zeros(2, 2), &DMatrix::from_row_slice(2, 1, &[1.0, 0.0])).unwrap();
/// assert_eq!((test.rank, test.full()), (1, false));
/// ```
pub fn ctrb(a: &DMatrix<f64>, b: &DMatrix<f64>) -> Result<RankTest, ControlError> {
    super::check_system(a, b)?;
    let (n, m) = (a.nrows(), b.ncols());
    let mut matrix = DMatrix::zeros(n, n * m);
    let mut block = b.clone();
    for k in 0..n {
        matrix.view_mut((0, k * m), (n, m)).copy_from(&block);
        block = a * block;
    }
    Ok(RankTest::new(matrix, n))
}

/// The observability matrix [C; CA; CA²; …; CAⁿ⁻¹] of (A, C) and its rank (see
/// [`RankTest`]), as MATLAB's and python-control's `obsv` with the rank test.
///
/// # Errors
/// [`ControlError::NotSquare`], [`ControlError::DimensionMismatch`] (C with n columns) and
/// [`ControlError::NonFinite`].
///
/// # Example
/// ```
/// use lagrange_runtime::control::obsv;
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // The double integrator seen by its position: observable; by its speed: not.
/// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
/// assert!(obsv(&a, &DMatrix::from_row_slice(1, 2, &[1.0, 0.0])).unwrap().full());
/// assert_eq!(obsv(&a, &DMatrix::from_row_slice(1, 2, &[0.0, 1.0])).unwrap().rank, 1);
/// ```
pub fn obsv(a: &DMatrix<f64>, c: &DMatrix<f64>) -> Result<RankTest, ControlError> {
    check_matrices(a, &[("C", c, (c.nrows(), a.nrows()))], &[])?;
    let transposed = ctrb(&a.transpose(), &c.transpose())?;
    Ok(RankTest::new(transposed.matrix.transpose(), a.nrows()))
}

/// The names of the two kinds, for [`ControlError::DomainMismatch`].
const CONTINUOUS: &str = "continuous";
const SAMPLED: &str = "sampled";

impl LinearSystem {
    /// The continuous system ẋ = A x + B u, y = C x + D u.
    ///
    /// # Errors
    /// [`ControlError::NotSquare`] (A), [`ControlError::DimensionMismatch`] (B n × m, C
    /// p × n, D p × m: m is read off B and p off C) and [`ControlError::NonFinite`], each
    /// naming its matrix.
    pub fn continuous(
        a: DMatrix<f64>,
        b: DMatrix<f64>,
        c: DMatrix<f64>,
        d: DMatrix<f64>,
    ) -> Result<Self, ControlError> {
        let (n, m, p) = (a.nrows(), b.ncols(), c.nrows());
        check_matrices(
            &a,
            &[("B", &b, (n, m)), ("C", &c, (p, n)), ("D", &d, (p, m))],
            &[],
        )?;
        Ok(LinearSystem {
            a,
            b,
            c,
            d,
            period: None,
        })
    }

    /// The sampled system x_{k+1} = A x_k + B u_k, y_k = C x_k + D u_k, with the samples
    /// `period` seconds apart.
    ///
    /// # Errors
    /// As [`continuous`](Self::continuous), and [`ControlError::InvalidSetting`] for a
    /// period that is not positive and finite.
    pub fn sampled(
        a: DMatrix<f64>,
        b: DMatrix<f64>,
        c: DMatrix<f64>,
        d: DMatrix<f64>,
        period: f64,
    ) -> Result<Self, ControlError> {
        check_period(period)?;
        let mut system = Self::continuous(a, b, c, d)?;
        system.period = Some(period);
        Ok(system)
    }

    /// The continuous system of a linearization, with the whole state x = (q, q̇) as its
    /// outputs: [`from_linearization_outputs`](Self::from_linearization_outputs) with
    /// C = I (2N × 2N) and D = 0.
    ///
    /// # Errors
    /// As [`from_linearization_outputs`](Self::from_linearization_outputs).
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::prelude::*;
    /// use lagrange_runtime::control::LinearSystem;
    /// use lagrange_runtime::linearize::linearize;
    ///
    /// lagrangian! {
    ///     /// A pendulum with a torque at its pivot, upside down.
    ///     struct Pendulum {
    ///         parameters: m = 1.0, l = 1.0, g = 9.81;
    ///         coordinates: theta;
    ///         inputs: tau;
    ///         kinetic = m/2 * l^2 * dot(theta)^2;
    ///         potential = m * g * l * cos(theta);
    ///         force tau on theta;
    ///     }
    /// }
    ///
    /// let lin = linearize(&Pendulum::default(), &State::at_rest(SVector::zeros()), &SVector::zeros()).unwrap();
    /// let system = LinearSystem::from_linearization(&lin).unwrap();
    /// assert_eq!((system.states(), system.inputs(), system.outputs()), (2, 1, 2));
    /// // Upright: s² = g/l, poles ±√9.81.
    /// let mut poles: Vec<f64> = system.poles().unwrap().iter().map(|s| s.re).collect();
    /// poles.sort_by(f64::total_cmp);
    /// assert!((poles[1] - 9.81f64.sqrt()).abs() < 1e-12 && (poles[0] + poles[1]).abs() < 1e-12);
    /// assert!(system.controllability().unwrap().full());
    /// ```
    pub fn from_linearization<const N: usize, const M: usize>(
        lin: &Linearization<N, M>,
    ) -> Result<Self, ControlError> {
        Self::from_linearization_outputs(
            lin,
            &DMatrix::identity(2 * N, 2 * N),
            &DMatrix::zeros(2 * N, M),
        )
    }

    /// The continuous system of a linearization, ẋ = A x + B u around its operating point
    /// (x, u the deviations from it), with the outputs y = C x + D u, C p × 2N on
    /// x = (q, q̇) and D p × M.
    ///
    /// A constrained model is written in the independent coordinates z of the constraint
    /// manifold (x = V z, V = `lin.tangent`, as [`Linearization::reduced_a`]): the states
    /// are z (d of them), A = Vᵀ A V, B = Vᵀ B and the outputs C V, so the outputs are
    /// those asked for while the spurious modes along the constraints are gone. Without
    /// constraints V = I and the states are x.
    ///
    /// # Errors
    /// [`ControlError::DimensionMismatch`] naming `"C"` (not 2N columns), `"D"` (not p × M)
    /// or `"tangent"` (a `lin.tangent` that is not 2N × d, d ≤ 2N);
    /// [`ControlError::NonFinite`] for a NaN or an infinity in the linearization or the
    /// outputs.
    ///
    /// # Example
    /// A pendulum in Cartesian coordinates, its rod a constraint, seen by the horizontal
    /// position of its bob: two states (one degree of freedom), not four.
    /// ```
    /// use lagrange_runtime::prelude::*;
    /// use lagrange_runtime::control::LinearSystem;
    /// use lagrange_runtime::linearize::linearize;
    /// use lagrange_runtime::nalgebra::DMatrix;
    ///
    /// lagrangian! {
    ///     struct Bob {
    ///         parameters: m = 1.0, l = 2.0, g = 9.81;
    ///         coordinates: x, y;
    ///         inputs: f;
    ///         kinetic = m/2 * (dot(x)^2 + dot(y)^2);
    ///         potential = m * g * y;
    ///         constraint rod = x^2 + y^2 - l^2;
    ///         force f on x;
    ///     }
    /// }
    ///
    /// let bottom = State::at_rest(SVector::from([0.0, -2.0]));
    /// let lin = linearize(&Bob::default(), &bottom, &SVector::zeros()).unwrap();
    /// let x = DMatrix::from_row_slice(1, 4, &[1.0, 0.0, 0.0, 0.0]);
    /// let system = LinearSystem::from_linearization_outputs(&lin, &x, &DMatrix::zeros(1, 1)).unwrap();
    /// assert_eq!((system.states(), system.inputs(), system.outputs()), (2, 1, 2 - 1));
    /// // A push f on the bob: x'' = −(g/l) x + f/m, so the DC gain is l/(m g).
    /// assert!((system.dc_gain().unwrap()[(0, 0)] - 2.0 / 9.81).abs() < 1e-12);
    /// ```
    pub fn from_linearization_outputs<const N: usize, const M: usize>(
        lin: &Linearization<N, M>,
        c: &DMatrix<f64>,
        d: &DMatrix<f64>,
    ) -> Result<Self, ControlError> {
        super::check_tangent(lin)?;
        let p = c.nrows();
        if c.ncols() != 2 * N {
            return Err(ControlError::DimensionMismatch {
                matrix: "C",
                expected: (p, 2 * N),
                found: c.shape(),
            });
        }
        let v = &lin.tangent;
        Self::continuous(lin.reduced_a(), lin.reduced_b(), c * v, d.clone())
    }

    /// The same system with only the inputs of the given indices, in that order (the
    /// columns of B and D): a design on some inputs, the others (disturbances) left out,
    /// as with [`DrivenInputs::indices`](super::DrivenInputs::indices); or the response to
    /// a disturbance input alone.
    ///
    /// # Errors
    /// [`ControlError::NoSuchChannel`] for an index not below the number of inputs.
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::control::LinearSystem;
    /// use lagrange_runtime::nalgebra::DMatrix;
    ///
    /// // ẍ = f + w: a motor force f and a disturbance w.
    /// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
    /// let b = DMatrix::from_row_slice(2, 2, &[0.0, 0.0, 1.0, 1.0]);
    /// let plant = LinearSystem::continuous(a, b, DMatrix::identity(2, 2), DMatrix::zeros(2, 2)).unwrap();
    /// let motor = plant.select_inputs(&[0]).unwrap();
    /// assert_eq!(motor.inputs(), 1);
    /// assert!(motor.lqr(&DMatrix::identity(2, 2), &DMatrix::identity(1, 1)).is_ok());
    /// ```
    pub fn select_inputs(&self, indices: &[usize]) -> Result<Self, ControlError> {
        for &index in indices {
            self.check_input(index)?;
        }
        Ok(LinearSystem {
            a: self.a.clone(),
            b: self.b.select_columns(indices),
            c: self.c.clone(),
            d: self.d.select_columns(indices),
            period: self.period,
        })
    }

    /// The same system with only the outputs of the given indices, in that order (the rows
    /// of C and D): the outputs an integral action holds ([`dlqi`](Self::dlqi) holds every
    /// output of the system it is given).
    ///
    /// # Errors
    /// [`ControlError::NoSuchChannel`] for an index not below the number of outputs.
    pub fn select_outputs(&self, indices: &[usize]) -> Result<Self, ControlError> {
        for &index in indices {
            self.check_output(index)?;
        }
        Ok(LinearSystem {
            a: self.a.clone(),
            b: self.b.clone(),
            c: self.c.select_rows(indices),
            d: self.d.select_rows(indices),
            period: self.period,
        })
    }

    /// A: n × n.
    pub fn a(&self) -> &DMatrix<f64> {
        &self.a
    }

    /// B: n × m.
    pub fn b(&self) -> &DMatrix<f64> {
        &self.b
    }

    /// C: p × n.
    pub fn c(&self) -> &DMatrix<f64> {
        &self.c
    }

    /// D: p × m.
    pub fn d(&self) -> &DMatrix<f64> {
        &self.d
    }

    /// The sample period Ts of a sampled system; `None` for a continuous one.
    pub fn period(&self) -> Option<f64> {
        self.period
    }

    /// Whether the system is sampled.
    pub fn is_sampled(&self) -> bool {
        self.period.is_some()
    }

    /// The number of states n.
    pub fn states(&self) -> usize {
        self.a.nrows()
    }

    /// The number of inputs m.
    pub fn inputs(&self) -> usize {
        self.b.ncols()
    }

    /// The number of outputs p.
    pub fn outputs(&self) -> usize {
        self.c.nrows()
    }

    /// `Ok` for a continuous system; the mismatch naming `operation` otherwise.
    pub(super) fn need_continuous(&self, operation: &'static str) -> Result<(), ControlError> {
        match self.period {
            None => Ok(()),
            Some(_) => Err(ControlError::DomainMismatch {
                operation,
                expected: CONTINUOUS,
                found: SAMPLED,
            }),
        }
    }

    /// The period of a sampled system; the mismatch naming `operation` otherwise.
    pub(super) fn need_sampled(&self, operation: &'static str) -> Result<f64, ControlError> {
        self.period.ok_or(ControlError::DomainMismatch {
            operation,
            expected: SAMPLED,
            found: CONTINUOUS,
        })
    }

    /// The continuous system sampled every `period` with a zero-order hold (the input held
    /// over each period): A and B by [`c2d`](super::c2d) (exact, one matrix exponential), C
    /// and D unchanged.
    ///
    /// # Errors
    /// [`ControlError::DomainMismatch`] for a system already sampled; as
    /// [`c2d`](super::c2d) otherwise (a period that is not positive and finite, an
    /// overflow).
    pub fn c2d(&self, period: f64) -> Result<Self, ControlError> {
        self.need_continuous("c2d")?;
        let (a, b) = c2d(&self.a, &self.b, period)?;
        Ok(LinearSystem {
            a,
            b,
            c: self.c.clone(),
            d: self.d.clone(),
            period: Some(period),
        })
    }

    /// The system from input `input` to output `output` alone (one column of B and D, one
    /// row of C and D), for the analyses that need one input and one output
    /// ([`margins`](Self::margins)).
    ///
    /// # Errors
    /// [`ControlError::NoSuchChannel`] for an index beyond the system's.
    pub fn channel(&self, output: usize, input: usize) -> Result<Self, ControlError> {
        self.check_input(input)?;
        self.check_output(output)?;
        Ok(LinearSystem {
            a: self.a.clone(),
            b: self.b.columns(input, 1).into_owned(),
            c: self.c.rows(output, 1).into_owned(),
            d: DMatrix::from_element(1, 1, self.d[(output, input)]),
            period: self.period,
        })
    }

    pub(super) fn check_input(&self, input: usize) -> Result<(), ControlError> {
        if input < self.inputs() {
            Ok(())
        } else {
            Err(ControlError::NoSuchChannel {
                kind: "input",
                index: input,
                count: self.inputs(),
            })
        }
    }

    pub(super) fn check_output(&self, output: usize) -> Result<(), ControlError> {
        if output < self.outputs() {
            Ok(())
        } else {
            Err(ControlError::NoSuchChannel {
                kind: "output",
                index: output,
                count: self.outputs(),
            })
        }
    }

    /// [`lqr`](super::lqr) of a continuous system: (K, P) of u = −K x.
    ///
    /// # Errors
    /// [`ControlError::DomainMismatch`] for a sampled system (use [`dlqr`](Self::dlqr)); as
    /// [`lqr`](super::lqr) otherwise.
    pub fn lqr(
        &self,
        q: &DMatrix<f64>,
        r: &DMatrix<f64>,
    ) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
        self.need_continuous("lqr")?;
        lqr(&self.a, &self.b, q, r)
    }

    /// [`dlqr`](super::dlqr) of a sampled system: (K, P) of u_k = −K x_k.
    ///
    /// # Errors
    /// [`ControlError::DomainMismatch`] for a continuous system (sample it with
    /// [`c2d`](Self::c2d) first); as [`dlqr`](super::dlqr) otherwise.
    pub fn dlqr(
        &self,
        q: &DMatrix<f64>,
        r: &DMatrix<f64>,
    ) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
        self.need_sampled("dlqr")?;
        dlqr(&self.a, &self.b, q, r)
    }

    /// [`lqi`](super::lqi) of a continuous system, holding its outputs y = C x at a
    /// reference (as MATLAB's `lqi(sys, Q, R)`): (K, P) with K = [K_x K_ξ].
    ///
    /// # Errors
    /// [`ControlError::DomainMismatch`] for a sampled system (use [`dlqi`](Self::dlqi));
    /// [`ControlError::InvalidSetting`] for outputs with a feedthrough D ≠ 0 (the
    /// integrated error would then depend on u); as [`lqi`](super::lqi) otherwise.
    pub fn lqi(
        &self,
        q: &DMatrix<f64>,
        r: &DMatrix<f64>,
    ) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
        self.need_continuous("lqi")?;
        self.no_feedthrough()?;
        lqi(&self.a, &self.b, &self.c, q, r)
    }

    /// [`dlqi`](super::dlqi) of a sampled system, at its own period: (K, P).
    ///
    /// # Errors
    /// [`ControlError::DomainMismatch`] for a continuous system; as [`lqi`](Self::lqi) and
    /// [`dlqi`](super::dlqi) otherwise.
    pub fn dlqi(
        &self,
        q: &DMatrix<f64>,
        r: &DMatrix<f64>,
    ) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
        let period = self.need_sampled("dlqi")?;
        self.no_feedthrough()?;
        dlqi(&self.a, &self.b, &self.c, q, r, period)
    }

    /// [`lqe`](super::lqe) of a continuous system measured by its outputs y = C x: the
    /// Kalman gain L and the error covariance P for the process noise W and measurement
    /// noise V.
    ///
    /// # Errors
    /// [`ControlError::DomainMismatch`] for a sampled system (use [`dlqe`](Self::dlqe)); as
    /// [`lqe`](super::lqe) otherwise.
    pub fn lqe(
        &self,
        w: &DMatrix<f64>,
        v: &DMatrix<f64>,
    ) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
        self.need_continuous("lqe")?;
        lqe(&self.a, &self.c, w, v)
    }

    /// [`dlqe`](super::dlqe) of a sampled system measured by its outputs: the measurement
    /// update gain M and the prior covariance P.
    ///
    /// # Errors
    /// [`ControlError::DomainMismatch`] for a continuous system; as [`dlqe`](super::dlqe)
    /// otherwise.
    pub fn dlqe(
        &self,
        w: &DMatrix<f64>,
        v: &DMatrix<f64>,
    ) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
        self.need_sampled("dlqe")?;
        dlqe(&self.a, &self.c, w, v)
    }

    fn no_feedthrough(&self) -> Result<(), ControlError> {
        if self.d.iter().all(|&v| v == 0.0) {
            Ok(())
        } else {
            Err(ControlError::InvalidSetting(
                "lqi and dlqi hold outputs y = C x: the system's D must be zero",
            ))
        }
    }

    /// The poles: the eigenvalues of A (s for a continuous system, z for a sampled one),
    /// with multiplicity, sorted by increasing real part, then imaginary part.
    ///
    /// # Errors
    /// [`ControlError::EigenvaluesDidNotConverge`].
    pub fn poles(&self) -> Result<Vec<Complex<f64>>, ControlError> {
        let mut poles =
            crate::linalg::eigenvalues(&self.a).ok_or(ControlError::EigenvaluesDidNotConverge)?;
        poles.sort_by(|a, b| a.re.total_cmp(&b.re).then(a.im.total_cmp(&b.im)));
        Ok(poles)
    }

    /// The steady-state gain (p × m) of the outputs for constant inputs: D − C A⁻¹ B for a
    /// continuous system (G(0)), D + C (I − A)⁻¹ B for a sampled one (G(1)), as
    /// python-control's `dcgain`.
    ///
    /// # Errors
    /// [`ControlError::PoleAtFrequency`] (frequency 0) when A (I − A when sampled) is
    /// singular: a pole at s = 0 (z = 1), an integrator, whose output grows without bound
    /// under a constant input. Singular means a smallest singular value at most
    /// n ε σ_max, the rank test of [`RankTest`].
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::control::{ControlError, LinearSystem};
    /// use lagrange_runtime::nalgebra::DMatrix;
    ///
    /// // The double integrator has no DC gain.
    /// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
    /// let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
    /// let system = LinearSystem::continuous(a, b, DMatrix::identity(2, 2), DMatrix::zeros(2, 1)).unwrap();
    /// assert_eq!(system.dc_gain(), Err(ControlError::PoleAtFrequency { frequency: 0.0 }));
    /// ```
    pub fn dc_gain(&self) -> Result<DMatrix<f64>, ControlError> {
        let n = self.states();
        if n == 0 {
            return Ok(self.d.clone());
        }
        let m = match self.period {
            None => -&self.a,
            Some(_) => DMatrix::identity(n, n) - &self.a,
        };
        let singular = m.clone().svd(false, false).singular_values;
        if numerical_rank(&singular, n) < n {
            return Err(ControlError::PoleAtFrequency { frequency: 0.0 });
        }
        let x = m
            .lu()
            .solve(&self.b)
            .ok_or(ControlError::PoleAtFrequency { frequency: 0.0 })?;
        Ok(&self.d + &self.c * x)
    }

    /// The controllability test: [`ctrb`] of (A, B).
    ///
    /// # Errors
    /// None for a valid system; the `Result` is [`ctrb`]'s.
    pub fn controllability(&self) -> Result<RankTest, ControlError> {
        ctrb(&self.a, &self.b)
    }

    /// The observability test: [`obsv`] of (A, C).
    ///
    /// # Errors
    /// None for a valid system; the `Result` is [`obsv`]'s.
    pub fn observability(&self) -> Result<RankTest, ControlError> {
        obsv(&self.a, &self.c)
    }

    /// A state feedback u = −K x that puts the poles of A − B K at `poles` (s for a
    /// continuous system, z for a sampled one): [`place`](super::place) of (A, B).
    ///
    /// # Errors
    /// As [`place`](super::place).
    pub fn place(&self, poles: &[Complex<f64>]) -> Result<DMatrix<f64>, ControlError> {
        super::place(&self.a, &self.b, poles)
    }
}
