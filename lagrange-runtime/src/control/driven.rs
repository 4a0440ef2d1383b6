//! The inputs a design drives: some of a model's inputs, named, the others (disturbances,
//! inputs driven by something else) left out of the design and of its gain.

use super::{c2d, dlqr, lqr, ControlError, Gain};
use crate::linearize::Linearization;
use crate::Dynamics;
use nalgebra::DMatrix;

/// The inputs a controller drives, a subset of a model's M inputs chosen by name
/// ([`named`](Self::named)), in the order given: the columns of B a design uses, and the
/// rows of the gain it returns.
///
/// A design on the driven inputs only ([`lqr_gain_driving`], [`dlqr_gain_driving`],
/// [`LinearSystem::select_inputs`](super::LinearSystem::select_inputs) with
/// [`indices`](Self::indices)) returns a gain on them, m_d × n; [`expand`](Self::expand)
/// makes it the full M × n gain with zero rows for the inputs it does not drive, so that a
/// [`Gain`] still gives every input: u* (the operating point's value) on those, to which a
/// run adds its disturbances
/// ([`Simulation::disturbances`](crate::simulate::Simulation::disturbances)). The closed
/// loops of such a gain ([`Gain::closed_loop`], [`Gain::closed_loop_spectrum`], ...) are
/// those of the driven inputs alone: the zero rows add nothing to A − B K.
///
/// # Example
/// A cart pushed by its motor (`f`) and by the wind (`wind`), designed on the motor alone;
/// an input name the model does not have is refused, naming it.
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::control::{ControlError, DrivenInputs};
///
/// lagrangian! {
///     struct Cart { parameters: m = 1.0; coordinates: x; inputs: wind, f; kinetic = m/2 * dot(x)^2; force f + wind on x; }
/// }
///
/// let motor = DrivenInputs::named(&Cart::default(), &["f"]).unwrap();
/// assert_eq!(motor.indices(), &[1]);
/// assert_eq!(motor.undriven(), vec![0]);
/// match DrivenInputs::named(&Cart::default(), &["force"]) {
///     Err(ControlError::UnknownInput { name, inputs }) => {
///         assert_eq!((name.as_str(), inputs), ("force", vec!["wind", "f"]));
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrivenInputs<const M: usize> {
    indices: Vec<usize>,
}

impl<const M: usize> DrivenInputs<M> {
    /// Every input, in order: the designs that take all of B.
    pub fn all() -> Self {
        DrivenInputs {
            indices: (0..M).collect(),
        }
    }

    /// The inputs of `model` named `names` (its [`Dynamics::INPUTS`]), in the order given.
    ///
    /// # Errors
    /// As [`among`](Self::among).
    pub fn named<T: Dynamics<N, M>, const N: usize>(
        _model: &T,
        names: &[&str],
    ) -> Result<Self, ControlError> {
        Self::among(&T::INPUTS, names)
    }

    /// The inputs named `names` among the input names `inputs` (a model's `INPUTS`), in
    /// the order given.
    ///
    /// # Errors
    /// [`ControlError::UnknownInput`] for a name not among `inputs`, naming it and the
    /// inputs there are; [`ControlError::InvalidSetting`] for no names, or a name given
    /// twice.
    pub fn among(inputs: &[&'static str; M], names: &[&str]) -> Result<Self, ControlError> {
        let mut indices = Vec::with_capacity(names.len());
        for name in names {
            let index = inputs
                .iter()
                .position(|input| input == name)
                .ok_or_else(|| ControlError::UnknownInput {
                    name: (*name).to_owned(),
                    inputs: inputs.to_vec(),
                })?;
            indices.push(index);
        }
        Self::from_indices(&indices)
    }

    /// The inputs of the given indices (below M, each once, at least one), in that order.
    ///
    /// # Errors
    /// [`ControlError::NoSuchChannel`] for an index not below M;
    /// [`ControlError::InvalidSetting`] for no indices, or one given twice.
    pub fn from_indices(indices: &[usize]) -> Result<Self, ControlError> {
        if indices.is_empty() {
            return Err(ControlError::InvalidSetting(
                "a design must drive at least one input",
            ));
        }
        for (i, &index) in indices.iter().enumerate() {
            if index >= M {
                return Err(ControlError::NoSuchChannel {
                    kind: "input",
                    index,
                    count: M,
                });
            }
            if indices[..i].contains(&index) {
                return Err(ControlError::InvalidSetting(
                    "an input is named twice among the inputs a design drives",
                ));
            }
        }
        Ok(DrivenInputs {
            indices: indices.to_vec(),
        })
    }

    /// The indices of the driven inputs among the model's, in the order given.
    pub fn indices(&self) -> &[usize] {
        &self.indices
    }

    /// How many inputs are driven, m_d.
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Whether none is (never, for a value built by the constructors).
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The indices of the inputs not driven, ascending.
    pub fn undriven(&self) -> Vec<usize> {
        (0..M).filter(|i| !self.indices.contains(i)).collect()
    }

    /// The columns of `b` (n × M) of the driven inputs: n × m_d.
    ///
    /// # Errors
    /// [`ControlError::DimensionMismatch`] naming `"B"` when `b` does not have M columns.
    pub fn columns(&self, b: &DMatrix<f64>) -> Result<DMatrix<f64>, ControlError> {
        if b.ncols() != M {
            return Err(ControlError::DimensionMismatch {
                matrix: "B",
                expected: (b.nrows(), M),
                found: b.shape(),
            });
        }
        Ok(b.select_columns(&self.indices))
    }

    /// A gain on the driven inputs, m_d × n (row i for the i-th driven input), as the full
    /// M × n gain: its rows at the driven inputs' indices, zero rows elsewhere.
    ///
    /// # Errors
    /// [`ControlError::DimensionMismatch`] naming `"K"` when `k` does not have m_d rows.
    pub fn expand(&self, k: &DMatrix<f64>) -> Result<DMatrix<f64>, ControlError> {
        if k.nrows() != self.len() {
            return Err(ControlError::DimensionMismatch {
                matrix: "K",
                expected: (self.len(), k.ncols()),
                found: k.shape(),
            });
        }
        let mut full = DMatrix::zeros(M, k.ncols());
        for (row, &index) in self.indices.iter().enumerate() {
            full.row_mut(index).copy_from(&k.row(row));
        }
        Ok(full)
    }
}

/// [`lqr_gain`](super::lqr_gain) on the driven inputs only: the LQR gain around the
/// operating point of `lin` for the columns of B of `driven`, with R m_d × m_d (the
/// weights of the driven inputs, in their order), as a [`Gain`] on all M inputs whose rows
/// of the inputs not driven are zero (those stay at u* under its law, for a run to add its
/// disturbances to). Returns the gain and the Riccati solution P. A constrained model is
/// designed in its independent coordinates, as by `lqr_gain`.
///
/// # Errors
/// As [`lqr_gain`](super::lqr_gain): R must be m_d × m_d ([`ControlError::DimensionMismatch`]
/// naming `"R"`), and (A, B_d) stabilizable.
///
/// # Example
/// An inverted pendulum balanced by a torque at its pivot while the wind pushes its bob
/// (a second input, not driven): the wind stays out of the design, and its push out of the
/// law.
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::control::{lqr_gain_driving, DrivenInputs};
/// use lagrange_runtime::linearize::linearize;
/// use lagrange_runtime::nalgebra::DMatrix;
/// use lagrange_runtime::simulate::{Rk4, Simulation};
/// use lagrange_runtime::stability::Stability;
///
/// lagrangian! {
///     struct Pendulum {
///         parameters: m = 1.0, l = 1.0, g = 9.81;
///         coordinates: theta;
///         inputs: tau, wind;
///         kinetic = m/2 * l^2 * dot(theta)^2;
///         potential = m * g * l * cos(theta);
///         force tau + l * wind * cos(theta) on theta;
///     }
/// }
///
/// let model = Pendulum::default();
/// let lin = linearize(&model, &State::at_rest(SVector::zeros()), &SVector::zeros()).unwrap();
/// let motor = DrivenInputs::named(&model, &["tau"]).unwrap();
/// let (gain, _p) =
///     lqr_gain_driving(&lin, &motor, &DMatrix::identity(2, 2), &DMatrix::identity(1, 1)).unwrap();
/// assert_eq!(gain.positions[(1, 0)], 0.0); // no law on the wind
/// assert_eq!(gain.closed_loop_spectrum(&lin).unwrap().stability(), Stability::AsymptoticallyStable);
/// // A steady wind of 0.5 N: the torque ends up holding it, at a small lean.
/// let run = Simulation::new(&model, State::at_rest(SVector::zeros()))
///     .inputs(gain.law())
///     .disturbances(|_t, _s| SVector::from([0.0, 0.5]))
///     .run(&Rk4::new(1e-3), 20.0)
///     .unwrap();
/// let (end, u) = (run.last(), run.inputs().last().unwrap());
/// assert!((u[0] + 0.5 * end.q[0].cos() + 9.81 * end.q[0].sin()).abs() < 1e-6); // at rest
/// assert_eq!(u[1], 0.5);
/// ```
pub fn lqr_gain_driving<const N: usize, const M: usize>(
    lin: &Linearization<N, M>,
    driven: &DrivenInputs<M>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<(Gain<N, M>, DMatrix<f64>), ControlError> {
    let (weights, b) = driven_design(lin, driven, q)?;
    let (k, p) = lqr(&lin.reduced_a(), &b, &weights, r)?;
    Ok((Gain::from_matrix(&driven.expand(&k)?, lin)?, p))
}

/// [`dlqr_gain`](super::dlqr_gain) on the driven inputs only: the discrete LQR gain of a
/// controller sampled every `period` with a zero-order hold, for the columns of B of
/// `driven` (R m_d × m_d), as a [`Gain`] on all M inputs with zero rows for the inputs not
/// driven; and the solution P of [`dare`](super::dare).
///
/// # Errors
/// As [`dlqr_gain`](super::dlqr_gain), with R m_d × m_d.
pub fn dlqr_gain_driving<const N: usize, const M: usize>(
    lin: &Linearization<N, M>,
    driven: &DrivenInputs<M>,
    period: f64,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<(Gain<N, M>, DMatrix<f64>), ControlError> {
    let (weights, b) = driven_design(lin, driven, q)?;
    let (ad, bd) = c2d(&lin.reduced_a(), &b, period)?;
    let (k, p) = dlqr(&ad, &bd, &weights, r)?;
    Ok((Gain::from_matrix(&driven.expand(&k)?, lin)?, p))
}

/// The weights Vᵀ Q V and the driven columns of Vᵀ B of a design around `lin`.
fn driven_design<const N: usize, const M: usize>(
    lin: &Linearization<N, M>,
    driven: &DrivenInputs<M>,
    q: &DMatrix<f64>,
) -> Result<(DMatrix<f64>, DMatrix<f64>), ControlError> {
    Ok((super::reduced_q(lin, q)?, driven.columns(&lin.reduced_b())?))
}
