//! The record of a simulation.

use crate::State;
use std::io::{self, Write};

/// The states of a simulated motion, in time order, with the energy function h at each.
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectory<const N: usize> {
    coordinates: [&'static str; N],
    states: Vec<State<N>>,
    energies: Vec<f64>,
}

impl<const N: usize> Trajectory<N> {
    /// An empty trajectory of a model with these coordinate names.
    pub fn new(coordinates: [&'static str; N]) -> Self {
        Trajectory {
            coordinates,
            states: Vec::new(),
            energies: Vec::new(),
        }
    }

    /// Appends a sample.
    pub fn push(&mut self, state: State<N>, energy: f64) {
        self.states.push(state);
        self.energies.push(energy);
    }

    /// The coordinate names, in state order.
    pub fn coordinates(&self) -> &[&'static str; N] {
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
        self.energies
            .iter()
            .map(|h| (h - h0).abs())
            .fold(0.0, f64::max)
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

    /// Writes the trajectory as CSV: a header `t,<coordinates>,dot(<coordinates>),energy`,
    /// then one line per sample.
    ///
    /// # Errors
    /// Any error of the writer.
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::{simulate::Trajectory, State, SVector};
    /// let mut tr = Trajectory::new(["x"]);
    /// tr.push(State::new(0.0, SVector::from([1.0]), SVector::from([0.5])), 2.0);
    /// let mut out = Vec::new();
    /// tr.write_csv(&mut out).unwrap();
    /// assert_eq!(String::from_utf8(out).unwrap(), "t,x,dot(x),energy\n0,1,0.5,2\n");
    /// ```
    pub fn write_csv<W: Write>(&self, mut out: W) -> io::Result<()> {
        write!(out, "t")?;
        for name in &self.coordinates {
            write!(out, ",{name}")?;
        }
        for name in &self.coordinates {
            write!(out, ",dot({name})")?;
        }
        writeln!(out, ",energy")?;
        for (s, h) in self.states.iter().zip(&self.energies) {
            write!(out, "{}", s.t)?;
            for x in s.q.iter().chain(s.qd.iter()) {
                write!(out, ",{x}")?;
            }
            writeln!(out, ",{h}")?;
        }
        out.flush()
    }
}
