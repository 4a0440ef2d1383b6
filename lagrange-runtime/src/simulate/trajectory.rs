//! The record of a simulation.

use super::events::Crossing;
use crate::{State, Units};
use nalgebra::SVector;
use std::io::{self, Write};

/// The states of a simulated motion, in time order, with the inputs the control law gave
/// and the energy function h at each, and the state of a sampled controller
/// ([`SampledController`](super::SampledController)) when one drove the run.
///
/// With the feature `serde` it serializes; deserializing checks that the names and the
/// samples fit the model's sizes `N` and `M` and each other. The units of a model that
/// declares them are part of the trajectory (and of its equality); a trajectory without
/// units serializes without the field, and one read without it has no units.
///
/// # Example
/// Reading a run: its samples, columns by name, any quantity along it, a state between
/// samples.
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::simulate::{Rk4, Simulation};
///
/// lagrangian! {
///     struct Oscillator { parameters: m = 1.0, k = 4.0; coordinates: x; kinetic = m/2 * dot(x)^2; potential = k/2 * x^2; }
/// }
///
/// let start = State::at_rest(SVector::from([1.0]));
/// let run = Simulation::new(&Oscillator::default(), start).run(&Rk4::new(0.01), 1.0).unwrap();
/// assert_eq!(run.len(), 101); // the start and 100 steps
/// assert_eq!(run.coordinates(), ["x"]);
/// let t: Vec<f64> = run.times().collect();
/// assert!((t[100] - 1.0).abs() < 1e-15 && run.last().t == t[100]);
///
/// // Columns by name: `x`, `dot(x)`, the inputs, `energy`.
/// let x = run.column("x").unwrap();
/// let v = run.column("dot(x)").unwrap();
/// assert!((x[50] - (2.0 * t[50]).cos()).abs() < 1e-8 && (v[50] + 2.0 * (2.0 * t[50]).sin()).abs() < 1e-8);
/// assert!(run.energies().iter().all(|h| (h - 2.0).abs() < 1e-8)); // k x₀²/2
/// // Anything along the run, from each state and its inputs:
/// let kinetic: Vec<f64> = run.map(|s, _u| s.qd[0] * s.qd[0] / 2.0);
/// assert!(kinetic[0] == 0.0);
/// // A state between samples, by Hermite interpolation:
/// let s = run.at(0.505).unwrap();
/// assert!((s.q[0] - 1.01f64.cos()).abs() < 1e-8);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "Fields<N, M>")
)]
pub struct Trajectory<const N: usize, const M: usize = 0> {
    coordinates: Vec<String>,
    input_names: Vec<String>,
    states: Vec<State<N>>,
    inputs: Vec<SVector<f64, M>>,
    energies: Vec<f64>,
    crossings: Vec<Crossing<N>>,
    stopped_by: Option<Crossing<N>>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    units: Option<ColumnUnits>,
    /// The names of a sampled controller's state, and its values, sample after sample.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    controller_names: Vec<String>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    controller: Vec<f64>,
}

/// The units of a trajectory's columns, owned (a deserialized trajectory has no `'static`
/// strings).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct ColumnUnits {
    coordinates: Vec<String>,
    velocities: Vec<String>,
    inputs: Vec<String>,
}

impl<const N: usize, const M: usize> Trajectory<N, M> {
    /// An empty trajectory of a model with these coordinate and input names. Names that a
    /// CSV field cannot hold unquoted (a comma, a quote, a line break) or that are empty
    /// make [`write_csv`](Self::write_csv) fail with an error rather than write a header
    /// whose fields do not match the rows.
    pub fn new(coordinates: &[&str; N], inputs: &[&str; M]) -> Self {
        Trajectory {
            coordinates: coordinates.iter().map(|&c| c.to_owned()).collect(),
            input_names: inputs.iter().map(|&u| u.to_owned()).collect(),
            states: Vec::new(),
            inputs: Vec::new(),
            energies: Vec::new(),
            crossings: Vec::new(),
            stopped_by: None,
            units: None,
            controller_names: Vec::new(),
            controller: Vec::new(),
        }
    }

    /// Gives an empty trajectory the columns of a sampled controller's state.
    pub(crate) fn set_controller(&mut self, names: &[&str]) {
        debug_assert!(self.is_empty());
        self.controller_names = names.iter().map(|&n| n.to_owned()).collect();
    }

    /// The names of every column, in CSV order, without units.
    pub(crate) fn column_names(&self) -> Vec<String> {
        self.columns().into_iter().map(|(name, _)| name).collect()
    }

    /// The trajectory with the units of its columns: [`column_unit`](Self::column_unit)
    /// answers with them, and the CSV header and plots show them. A
    /// [`Simulation`](super::Simulation) of a model that declares units does this itself.
    #[must_use]
    pub fn with_units(mut self, units: Units<N, M>) -> Self {
        let owned = |list: &[&str]| list.iter().map(|&u| u.to_owned()).collect();
        self.units = Some(ColumnUnits {
            coordinates: owned(&units.coordinates),
            velocities: owned(&units.velocities),
            inputs: owned(&units.inputs),
        });
        self
    }

    /// The column a name of [`column`](Self::column) stands for, by the names of
    /// [`columns`](Self::columns). `t` and `energy` come first, so a coordinate called
    /// `energy` is found only by position.
    fn resolve(&self, name: &str) -> Option<Column> {
        match name {
            "t" => Some(Column::Time),
            "energy" => Some(Column::Energy),
            _ => self
                .columns()
                .into_iter()
                .find_map(|(n, column)| (n == name).then_some(column)),
        }
    }

    /// Every column in CSV order, with its name.
    fn columns(&self) -> Vec<(String, Column)> {
        let mut columns = vec![("t".to_owned(), Column::Time)];
        let coordinates = self.coordinates.iter().enumerate();
        columns.extend(
            coordinates
                .clone()
                .map(|(i, c)| (c.clone(), Column::Coordinate(i))),
        );
        columns.extend(coordinates.map(|(i, c)| (format!("dot({c})"), Column::Velocity(i))));
        let inputs = self.input_names.iter().enumerate();
        columns.extend(inputs.map(|(j, u)| (u.clone(), Column::Input(j))));
        columns.push(("energy".to_owned(), Column::Energy));
        let controller = self.controller_names.iter().enumerate();
        columns.extend(controller.map(|(i, c)| (c.clone(), Column::Controller(i))));
        columns
    }

    /// The unit of a column, if the trajectory has units.
    fn unit_of(&self, column: Column) -> Option<&str> {
        let units = self.units.as_ref()?;
        Some(match column {
            Column::Time => "s",
            Column::Coordinate(i) => &units.coordinates[i],
            Column::Velocity(i) => &units.velocities[i],
            Column::Input(j) => &units.inputs[j],
            Column::Energy => "J",
            Column::Controller(_) => return None,
        })
    }

    /// The unit of a column (named as in [`column`](Self::column): `t`, `x`, `dot(x)`, an
    /// input or `energy`) when the model declares units: `s`, `m`, `m/s`, `N`, `J`. `None`
    /// without units, for a sampled controller's state (whose units the controller does not
    /// declare) or for another name.
    pub fn column_unit(&self, name: &str) -> Option<&str> {
        self.unit_of(self.resolve(name)?)
    }

    /// `name [unit]` when the column has a unit (`dot(x) [m/s]`), else `name`: the CSV
    /// header's spelling, and an axis title for figures of the column.
    pub fn column_label(&self, name: &str) -> String {
        label(name, self.column_unit(name))
    }

    /// The CSV header's names, each with its unit when the trajectory has units. Units are
    /// taken by position, so a coordinate that happens to be called `energy` keeps its own.
    pub(crate) fn header(&self) -> Vec<String> {
        self.columns()
            .into_iter()
            .map(|(name, column)| label(&name, self.unit_of(column)))
            .collect()
    }

    /// The crossings of the run's recording events ([`Event::record`](super::Event::record)),
    /// in time order.
    pub fn crossings(&self) -> &[Crossing<N>] {
        &self.crossings
    }

    /// The crossing of the stopping event ([`Event::stop`](super::Event::stop)) that ended
    /// the run, if one did; the trajectory's last sample is its state.
    pub fn stopped_by(&self) -> Option<&Crossing<N>> {
        self.stopped_by.as_ref()
    }

    pub(crate) fn push_crossing(&mut self, crossing: Crossing<N>) {
        self.crossings.push(crossing);
    }

    pub(crate) fn stop_at(&mut self, crossing: Crossing<N>) {
        self.stopped_by = Some(crossing);
    }

    /// Appends a sample: the state, the inputs there and the energy function. In a
    /// trajectory with a sampled controller's columns, the controller's state of a sample
    /// pushed by hand is NaN.
    pub fn push(&mut self, state: State<N>, u: SVector<f64, M>, energy: f64) {
        self.states.push(state);
        self.inputs.push(u);
        self.energies.push(energy);
        let width = self.controller_names.len();
        self.controller.extend(std::iter::repeat_n(f64::NAN, width));
    }

    /// Appends a sample with the sampled controller's state, one value per name of
    /// [`controller_names`](Self::controller_names).
    pub(crate) fn push_sampled(
        &mut self,
        state: State<N>,
        u: SVector<f64, M>,
        energy: f64,
        controller: &[f64],
    ) {
        debug_assert_eq!(controller.len(), self.controller_names.len());
        self.states.push(state);
        self.inputs.push(u);
        self.energies.push(energy);
        self.controller.extend_from_slice(controller);
    }

    /// The names of the state of the sampled controller that drove the run
    /// ([`SampledController::state_names`](super::SampledController::state_names)); empty
    /// without one.
    pub fn controller_names(&self) -> &[String] {
        &self.controller_names
    }

    /// The sampled controller's state at each sample, one value per name of
    /// [`controller_names`](Self::controller_names): its state after its last update
    /// (held, like its output, between sample times).
    pub fn controller_states(&self) -> impl ExactSizeIterator<Item = &[f64]> + '_ {
        let width = self.controller_names.len();
        (0..self.len()).map(move |k| &self.controller[k * width..(k + 1) * width])
    }

    /// The input names, in input order.
    pub fn input_names(&self) -> &[String] {
        &self.input_names
    }

    /// The inputs u at each sample: what the control law returned there.
    pub fn inputs(&self) -> &[SVector<f64, M>] {
        &self.inputs
    }

    /// One value per sample by column name: `t`, a coordinate `x`, its velocity `dot(x)`,
    /// an input, `energy`, or a sampled controller's state variable (the names of
    /// [`write_csv`](Self::write_csv)'s header). `None` for any other name.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let column = self.resolve(name)?;
        let width = self.controller_names.len();
        let value = |k: usize| match column {
            Column::Time => self.states[k].t,
            Column::Coordinate(i) => self.states[k].q[i],
            Column::Velocity(i) => self.states[k].qd[i],
            Column::Input(j) => self.inputs[k][j],
            Column::Energy => self.energies[k],
            Column::Controller(i) => self.controller[k * width + i],
        };
        Some((0..self.len()).map(value).collect())
    }

    /// `f` of every sample (state and inputs), in order: for example the model's `let`s
    /// along the whole trajectory, `trajectory.map(|s, u| model.lets(s, u))`.
    pub fn map<R>(&self, mut f: impl FnMut(&State<N>, &SVector<f64, M>) -> R) -> Vec<R> {
        self.states
            .iter()
            .zip(&self.inputs)
            .map(|(s, u)| f(s, u))
            .collect()
    }

    /// The coordinate names, in state order.
    pub fn coordinates(&self) -> &[String] {
        &self.coordinates
    }

    /// The recorded states.
    pub fn states(&self) -> &[State<N>] {
        &self.states
    }

    /// The energy function h at each state.
    pub fn energies(&self) -> &[f64] {
        &self.energies
    }

    /// The sample times.
    pub fn times(&self) -> impl ExactSizeIterator<Item = f64> + '_ {
        self.states.iter().map(|s| s.t)
    }

    /// The number of samples.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// The last state. A trajectory returned by a successful run is never empty.
    ///
    /// # Panics
    /// If the trajectory is empty.
    pub fn last(&self) -> &State<N> {
        self.states
            .last()
            .expect("an empty trajectory has no last state")
    }

    /// The largest |h − h₀| over the samples: the energy error of a run of a
    /// conservative, time-independent model.
    pub fn energy_drift(&self) -> f64 {
        let h0 = self.energies.first().copied().unwrap_or(0.0);
        // NaN when any energy is NaN (`f64::max` would skip it).
        self.energies
            .iter()
            .map(|h| (h - h0).abs())
            .fold(0.0, |a, b| if b.is_nan() || b > a { b } else { a })
    }

    /// The state at time `t` by cubic Hermite interpolation between the samples around it
    /// (positions from positions and velocities, fourth-order accurate; velocities from the
    /// derivative of that cubic, third-order). `None` outside the recorded time span.
    pub fn at(&self, t: f64) -> Option<State<N>> {
        let (first, last) = (self.states.first()?, self.states.last()?);
        if !(first.t..=last.t).contains(&t) {
            return None;
        }
        let i = self
            .states
            .partition_point(|s| s.t <= t)
            .clamp(1, self.len().max(2) - 1);
        if self.len() == 1 {
            return Some(*first);
        }
        let (a, b) = (&self.states[i - 1], &self.states[i]);
        let h = b.t - a.t;
        if h <= 0.0 {
            return Some(*b);
        }
        let x = (t - a.t) / h;
        let (x2, x3) = (x * x, x * x * x);
        let (h00, h10, h01, h11) = (
            2.0 * x3 - 3.0 * x2 + 1.0,
            x3 - 2.0 * x2 + x,
            -2.0 * x3 + 3.0 * x2,
            x3 - x2,
        );
        let (d00, d10, d01, d11) = (
            6.0 * x2 - 6.0 * x,
            3.0 * x2 - 4.0 * x + 1.0,
            -6.0 * x2 + 6.0 * x,
            3.0 * x2 - 2.0 * x,
        );
        let q = a.q * h00 + a.qd * (h * h10) + b.q * h01 + b.qd * (h * h11);
        let qd = (a.q * d00 + b.q * d01) / h + a.qd * d10 + b.qd * d11;
        Some(State::new(t, q, qd))
    }

    /// Writes the trajectory as CSV: a header `t,<coordinates>,dot(<coordinates>),<inputs>,energy`
    /// (followed by a sampled controller's state names, when one drove the run), then one
    /// line per sample. When the model declares units, each name of the header is
    /// followed by its unit: `t [s],x [m],dot(x) [m/s],f [N],energy [J]`.
    ///
    /// # Errors
    /// Any error of the writer; [`io::ErrorKind::InvalidInput`] for a coordinate or input
    /// name that is empty or holds a comma, a quote or a line break.
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::{simulate::Trajectory, State, SVector};
    /// let mut tr = Trajectory::new(&["x"], &["f"]);
    /// tr.push(State::new(0.0, SVector::from([1.0]), SVector::from([0.5])), SVector::from([3.0]), 2.0);
    /// let mut out = Vec::new();
    /// tr.write_csv(&mut out).unwrap();
    /// assert_eq!(String::from_utf8(out).unwrap(), "t,x,dot(x),f,energy\n0,1,0.5,3,2\n");
    /// ```
    pub fn write_csv<W: Write>(&self, out: W) -> io::Result<()> {
        self.write_csv_with(out, &[])
    }

    /// [`write_csv`](Self::write_csv) with extra named columns after `energy`, one value
    /// per sample each: `let`s of the model, say, from [`map`](Self::map).
    ///
    /// # Errors
    /// Any error of the writer; [`io::ErrorKind::InvalidInput`] for a column whose length
    /// is not the number of samples, or whose name holds a comma, a quote or a line break.
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::{simulate::Trajectory, State, SVector};
    /// let mut tr = Trajectory::new(&["x"], &[]);
    /// tr.push(State::new(0.0, SVector::from([1.0]), SVector::from([0.5])), SVector::zeros(), 2.0);
    /// let height = tr.map(|s, _| 2.0 * s.q[0]);
    /// let mut out = Vec::new();
    /// tr.write_csv_with(&mut out, &[("height", &height)]).unwrap();
    /// assert_eq!(String::from_utf8(out).unwrap(), "t,x,dot(x),energy,height\n0,1,0.5,2,2\n");
    /// ```
    pub fn write_csv_with<W: Write>(&self, mut out: W, extra: &[(&str, &[f64])]) -> io::Result<()> {
        let invalid = |why: String| Err(io::Error::new(io::ErrorKind::InvalidInput, why));
        if let Some(bad) = self
            .coordinates
            .iter()
            .chain(&self.input_names)
            .chain(&self.controller_names)
            .find(|n| !csv_name(n))
        {
            return invalid(format!(
                "the trajectory's name `{bad}` is empty or holds a separator or quote: it cannot head a CSV column"
            ));
        }
        for (name, values) in extra {
            if values.len() != self.len() {
                return invalid(format!(
                    "CSV column `{name}` has {} values for {} samples",
                    values.len(),
                    self.len()
                ));
            }
            if !csv_name(name) && !name.is_empty() {
                return invalid(format!(
                    "CSV column name `{name}` holds a separator or quote"
                ));
            }
            let taken = self.column(name).is_some()
                || extra.iter().filter(|(other, _)| other == name).count() > 1;
            if name.is_empty() || taken {
                return invalid(format!(
                    "CSV column name `{name}` is empty or names another column"
                ));
            }
        }
        write!(out, "{}", self.header().join(","))?;
        for (name, _) in extra {
            write!(out, ",{name}")?;
        }
        writeln!(out)?;
        for (k, (((s, u), h), c)) in self
            .states
            .iter()
            .zip(&self.inputs)
            .zip(&self.energies)
            .zip(self.controller_states())
            .enumerate()
        {
            write!(out, "{}", s.t)?;
            for x in s.q.iter().chain(s.qd.iter()).chain(u.iter()) {
                write!(out, ",{x}")?;
            }
            write!(out, ",{h}")?;
            for x in c {
                write!(out, ",{x}")?;
            }
            for (_, values) in extra {
                write!(out, ",{}", values[k])?;
            }
            writeln!(out)?;
        }
        out.flush()
    }
}

/// A column of a trajectory, as [`Trajectory::column`] and the CSV header name them.
#[derive(Clone, Copy)]
enum Column {
    Time,
    Coordinate(usize),
    Velocity(usize),
    Input(usize),
    Energy,
    Controller(usize),
}

/// Whether `name` can head a CSV column unquoted: not empty, without a separator, a quote
/// or a line break.
fn csv_name(name: &str) -> bool {
    !name.is_empty() && !name.contains([',', '"', '\n', '\r'])
}

/// `name [unit]`, or `name` without a unit.
fn label(name: &str, unit: Option<&str>) -> String {
    match unit {
        Some(unit) => format!("{name} [{unit}]"),
        None => name.to_owned(),
    }
}

/// The fields of a [`Trajectory`] as serialized, checked when deserialized.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct Fields<const N: usize, const M: usize> {
    coordinates: Vec<String>,
    input_names: Vec<String>,
    states: Vec<State<N>>,
    inputs: Vec<SVector<f64, M>>,
    energies: Vec<f64>,
    crossings: Vec<Crossing<N>>,
    stopped_by: Option<Crossing<N>>,
    #[serde(default)]
    units: Option<ColumnUnits>,
    #[serde(default)]
    controller_names: Vec<String>,
    #[serde(default)]
    controller: Vec<f64>,
}

#[cfg(feature = "serde")]
impl<const N: usize, const M: usize> TryFrom<Fields<N, M>> for Trajectory<N, M> {
    type Error = String;

    fn try_from(f: Fields<N, M>) -> Result<Self, String> {
        if f.coordinates.len() != N || f.input_names.len() != M {
            return Err(format!(
                "a trajectory of {} coordinates and {} inputs, where {N} and {M} were expected",
                f.coordinates.len(),
                f.input_names.len()
            ));
        }
        let n = f.states.len();
        if f.inputs.len() != n || f.energies.len() != n {
            return Err(format!(
                "a trajectory of {n} states with {} inputs and {} energies",
                f.inputs.len(),
                f.energies.len()
            ));
        }
        if f.states.iter().any(|s| !s.t.is_finite()) || f.states.windows(2).any(|w| w[0].t > w[1].t)
        {
            return Err("a trajectory's sample times must be finite and ascending".into());
        }
        if let Some(bad) = f
            .coordinates
            .iter()
            .chain(&f.input_names)
            .chain(&f.controller_names)
            .find(|n| !csv_name(n))
        {
            return Err(format!(
                "a trajectory's name `{bad}` is empty or holds a separator or quote"
            ));
        }
        if f.controller.len() != f.controller_names.len() * n {
            return Err(format!(
                "a trajectory of {n} samples with {} values for {} controller state names",
                f.controller.len(),
                f.controller_names.len()
            ));
        }
        if f.stopped_by
            .as_ref()
            .is_some_and(|c| f.states.last() != Some(&c.state))
        {
            return Err(
                "the state of a stopping event must be the trajectory's last sample".into(),
            );
        }
        if f.units.as_ref().is_some_and(|u| {
            u.coordinates.len() != N || u.velocities.len() != N || u.inputs.len() != M
        }) {
            return Err(
                "a trajectory's units must name one unit per coordinate, velocity and input".into(),
            );
        }
        let mut units = f
            .units
            .iter()
            .flat_map(|u| u.coordinates.iter().chain(&u.velocities).chain(&u.inputs));
        if let Some(bad) = units.find(|u| u.contains([',', '"', '\n', '\r', ']'])) {
            return Err(format!(
                "a trajectory's unit `{bad}` holds a separator, quote or bracket"
            ));
        }
        Ok(Trajectory {
            units: f.units,
            coordinates: f.coordinates,
            input_names: f.input_names,
            states: f.states,
            inputs: f.inputs,
            energies: f.energies,
            crossings: f.crossings,
            stopped_by: f.stopped_by,
            controller_names: f.controller_names,
            controller: f.controller,
        })
    }
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;

    fn fields(times: &[f64], coordinate: &str) -> Fields<1, 0> {
        let n = times.len();
        Fields {
            coordinates: vec![coordinate.to_owned()],
            input_names: Vec::new(),
            states: times
                .iter()
                .map(|&t| State::new(t, SVector::zeros(), SVector::zeros()))
                .collect(),
            inputs: vec![SVector::zeros(); n],
            energies: vec![0.0; n],
            crossings: Vec::new(),
            stopped_by: None,
            units: None,
            controller_names: Vec::new(),
            controller: Vec::new(),
        }
    }

    /// Issue 29, item 11: the order check looked at pairs, so a NaN as the last time (never
    /// the first of a pair) was accepted. JSON cannot hold a NaN; other formats can.
    #[test]
    fn a_nan_or_infinite_time_is_refused_wherever_it_is() {
        for times in [
            &[0.0, 1.0, f64::NAN][..],
            &[f64::NAN],
            &[0.0, f64::NAN, 2.0],
            &[0.0, f64::INFINITY],
        ] {
            let error = Trajectory::try_from(fields(times, "x")).unwrap_err();
            assert_eq!(
                error, "a trajectory's sample times must be finite and ascending",
                "{times:?}"
            );
        }
        assert!(Trajectory::try_from(fields(&[0.0, 1.0, 1.0], "x")).is_ok());
    }

    /// Issue 29, item 9: a name with a comma or a line break gave a CSV whose header and
    /// rows had different numbers of fields.
    #[test]
    fn names_a_csv_cannot_hold_are_refused() {
        for name in ["a,b", "a\nb", "a\"b", ""] {
            let error = Trajectory::try_from(fields(&[0.0], name)).unwrap_err();
            assert!(error.contains("separator or quote"), "{name:?}: {error}");
        }
    }
}
