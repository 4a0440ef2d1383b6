//! Exact derivatives against central finite differences of the `f64` functions they
//! differentiate, for any model: the test discipline of issue 25.
//!
//! Issue 25 was a `linearize` that was wrong exactly at the states stability analyses look
//! at (coordinates zero, upright, symmetric) and right at the random states where the
//! tests looked: the constrained solve skipped an elimination whose multiplier had a zero
//! real part, and num-dual's `is_zero` and `==` compare real parts only. Any code that
//! decides on the real part of a dual number can fail the same way, so every check here
//! runs at structured states (coordinates exactly at a reference value, at rest and
//! moving; velocities exactly zero; some entries zero), at random ones, and at the named
//! states (equilibria, steady motions) a test file already knows.
//!
//! [`Derivatives`] compares, at each state:
//!
//! - `linearize`: ∂q̈/∂q, ∂q̈/∂q̇, ∂q̈/∂u against central differences of
//!   `Dynamics::accelerations` (for constrained models the constrained solve, evaluated at
//!   the perturbed states even where they leave the constraint manifold: the acceleration
//!   function is defined off it, and the linearization is of that function);
//! - `sensitivities`: ∂q̈/∂p against central differences of
//!   `Parametric::eval_accelerations_with::<f64>` at p ± h, and that function's value
//!   against `accelerations`;
//! - the sweep: `Model::eval_equations_in::<Dual64>` (mass matrix, bias, momenta, L)
//!   seeded along each of q, q̇, u and t, against central differences of
//!   `eval_equations_in::<f64>`, and its value against the fast path `eval_equations`;
//! - the fast path's own derivatives: its momenta and the gradient's ∂L/∂q against
//!   differences of L, its mass matrix against differences of its momenta, the generalized
//!   forces against differences of the forces' virtual power and of D, its bias against
//!   ∂L/∂q + Q minus the difference of its momenta along (q̇, 1) in (q, t);
//! - `Model::eval_inverse_dynamics_in::<Dual64>` seeded along q, q̇, u, t and q̈, and the
//!   public `inverse_dynamics_derivatives` (vector-mode duals; its value against
//!   `Dynamics::inverse_dynamics`);
//! - `Model::eval_gradient_in::<Dual64>` (∂L/∂q, momenta, generalized forces, L) seeded
//!   along q, q̇, u and t;
//! - the variational integrators' Newton Jacobian. `Step::jacobian` (crate-private, in
//!   `lagrange-runtime/src/simulate/discrete.rs`) is ∂/∂q₁ of (h/2)(∂L/∂q + Q) − ∂L/∂q̇
//!   at the midpoint m = (q₀ + q₁)/2 with velocity v = (q₁ − q₀)/h, evaluated as
//!   `eval_gradient_in::<Dual64>` seeded with δm = e_j/2, δv = e_j/h. It is not reachable
//!   from outside the runtime, so it is rebuilt here the same way from the public
//!   `eval_gradient_in` and compared with central differences of the same residual in
//!   `f64` in q₁. That checks everything the Jacobian takes from the model; `Step`'s own
//!   three-line combination of the gradient is not reached (a mistake there would slow
//!   Newton's convergence, which the integrator tests would see, rather than move the
//!   solution).
//!
//! Finite differences are central with steps h = 10⁻⁶ · max(1, |x|) (10⁻⁶ · |p| for a
//! parameter p ≠ 0, which can be far below 1). An entry agrees when
//!
//! ```text
//! |exact − difference| ≤ 10⁻⁶ · max(largest entry of its column,
//!                                   10⁻³ · largest entry of the whole quantity)
//!                        + 100 ε S / h,
//! ```
//!
//! the last term the rounding of the difference quotient, with S the size of the terms the
//! function sums: the largest of its values at x ± h, of each exact derivative column times
//! the size of its variable, and of what the function is made of (|L|, |p| |q̇|, |M| |q̇|²,
//! |bias|; for q̈ also |M⁻¹ bias| and the linearization's columns): at an equilibrium, or
//! at rest in a linkage the constraints drive, q̈ and its derivatives vanish while the
//! forces that balance do not. A column that fails is tried again with steps 10 h, 100 h,
//! h / 10 and h / 100 and passes if one agrees: finite differences that are merely
//! inaccurate (rounding through an ill-conditioned mass matrix, the kink of |v| v at v = 0,
//! truncation where the function varies on a scale far below max(1, |x|), as a quaternion
//! pendulum's accelerations near the zero quaternion) agree at some step, a wrong
//! derivative at none. A failure names the model, the state (its label
//! and values), the quantity, the row and the column, and both numbers, with the
//! differences at the other steps; all failures of a model are collected and reported
//! together. With the environment variable `DERIVATIVES_MARGIN` set, each model prints the
//! largest |exact − difference| / allowed it met at the first step.

use super::Rng;
use lagrange_runtime::linearize::{
    inverse_dynamics_derivatives, linearize, sensitivities, Linearization,
};
use lagrange_runtime::model::{Equations, Gradient, Model, Parametric, Point};
use lagrange_runtime::nalgebra::SVector;
use lagrange_runtime::num_dual::Dual64;
use lagrange_runtime::{Dynamics, State};
use std::array::from_fn;

/// Relative agreement required of every column (see the module docs).
pub const TOLERANCE: f64 = 1e-6;

/// The relative finite-difference step.
const STEP: f64 = 1e-6;

/// The step of the variational integrator whose Newton Jacobian is checked.
const VARIATIONAL_STEP: f64 = 0.05;

/// A state to check at: a label for failure messages, the state and the inputs.
#[derive(Debug, Clone)]
pub struct Case<const N: usize, const M: usize> {
    /// Says which state this is ("upright, rolling", "random #2").
    pub label: String,
    /// The state.
    pub state: State<N>,
    /// The inputs.
    pub inputs: SVector<f64, M>,
}

/// The parts of the check, each of which a model can leave out, saying why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// `linearize` against differences of `accelerations`.
    Linearize,
    /// `sensitivities` against differences in the parameters.
    Sensitivities,
    /// `eval_equations_in::<Dual64>` against differences of `eval_equations_in::<f64>`,
    /// and the fast path's derivatives of L against differences of L.
    Equations,
    /// `eval_inverse_dynamics_in::<Dual64>`.
    InverseDynamics,
    /// `eval_gradient_in::<Dual64>`.
    Gradient,
    /// The variational integrators' Newton Jacobian.
    Variational,
}

/// Draws a state and inputs.
pub type Sampler<'a, const N: usize, const M: usize> =
    Box<dyn FnMut(&mut Rng) -> (State<N>, SVector<f64, M>) + 'a>;

/// The default sampler: t in [0, 2), q, q̇ and u in (−1, 1).
pub fn order_one<const N: usize, const M: usize>(rng: &mut Rng) -> (State<N>, SVector<f64, M>) {
    let t = rng.uniform(0.0, 2.0);
    let q = SVector::from_fn(|_, _| rng.uniform(-1.0, 1.0));
    let qd = SVector::from_fn(|_, _| rng.uniform(-1.0, 1.0));
    let u = SVector::from_fn(|_, _| rng.uniform(-1.0, 1.0));
    (State::new(t, q, qd), u)
}

/// The derivative checks of one model at a list of states.
///
/// ```ignore
/// Derivatives::new("DoublePendulum", &model)
///     .standard() // structured states at q = 0, and three random ones
///     .state("inverted", State::at_rest(SVector::from([PI, PI])), SVector::zeros())
///     .check();
/// ```
pub struct Derivatives<'a, T, const N: usize, const M: usize> {
    name: String,
    model: &'a T,
    cases: Vec<Case<N, M>>,
    rng: Rng,
    sampler: Sampler<'a, N, M>,
    /// The parts left out, with why.
    without: Vec<(Part, String)>,
    tolerance: f64,
    failures: Vec<String>,
    /// The largest |exact − central| / allowed met (at the first step), with where:
    /// printed when the environment variable `DERIVATIVES_MARGIN` is set, to see how close
    /// the checks come to failing.
    margin: (f64, String),
}

impl<'a, T: Model<N, M>, const N: usize, const M: usize> Derivatives<'a, T, N, M> {
    /// The checks of `model`, named `name` in failure messages, at no state yet; random
    /// states come from [`order_one`] unless [`sampler`](Self::sampler) says otherwise.
    pub fn new(name: &str, model: &'a T) -> Self {
        // FNV-1a of the name: each model its own reproducible sequence.
        let seed = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        Derivatives {
            name: name.to_string(),
            model,
            cases: Vec::new(),
            rng: Rng(seed | 1),
            sampler: Box::new(order_one::<N, M>),
            without: Vec::new(),
            tolerance: TOLERANCE,
            failures: Vec::new(),
            margin: (0.0, String::new()),
        }
    }

    /// Random states from `sampler` instead of [`order_one`]: for models defined only on
    /// part of the state space (a radius that must be positive, a speed below c).
    pub fn sampler(
        mut self,
        sampler: impl FnMut(&mut Rng) -> (State<N>, SVector<f64, M>) + 'a,
    ) -> Self {
        self.sampler = Box::new(sampler);
        self
    }

    /// [`structured`](Self::structured) and three random states: what most models need.
    pub fn standard(self) -> Self {
        self.structured().random(3)
    }

    /// The structured states at q = 0: see [`structured_at`](Self::structured_at).
    pub fn structured(self) -> Self {
        self.structured_at(SVector::zeros())
    }

    /// The structured states around the reference coordinates `base` (zero for most
    /// models; the identity quaternion, a point on a constraint circle for models that
    /// degenerate at q = 0), at t = 0: q = base at rest with u = 0; q = base moving
    /// (random q̇, u = 0); random q at rest (random u); and a random state with every
    /// other coordinate exactly at its reference value and every other velocity exactly
    /// zero. Random values come from the sampler.
    pub fn structured_at(mut self, base: SVector<f64, N>) -> Self {
        let at = if base.iter().all(|&x| x == 0.0) {
            "all coordinates zero".to_string()
        } else {
            format!("q = {:?}", base.as_slice())
        };
        let zero = SVector::zeros();
        self = self.state(
            &format!("{at}, at rest"),
            State::new(0.0, base, zero),
            zero_inputs(),
        );
        let (moving, _) = self.draw();
        self = self.state(
            &format!("{at}, moving"),
            State::new(0.0, base, moving.qd),
            zero_inputs(),
        );
        let (random, u) = self.draw();
        self = self.state("random q, at rest", State::new(0.0, random.q, zero), u);
        let (mut mixed, u) = self.draw();
        for i in 0..N {
            if i % 2 == 0 {
                mixed.q[i] = base[i];
            } else {
                mixed.qd[i] = 0.0;
            }
        }
        self.state("random, every other q at reference, q̇ zero", mixed, u)
    }

    /// `count` random states from the sampler.
    pub fn random(mut self, count: usize) -> Self {
        for k in 0..count {
            let (s, u) = self.draw();
            self = self.state(&format!("random #{k}"), s, u);
        }
        self
    }

    /// A named state (an equilibrium, a steady motion).
    pub fn state(mut self, label: &str, state: State<N>, inputs: SVector<f64, M>) -> Self {
        self.cases.push(Case {
            label: label.to_string(),
            state,
            inputs,
        });
        self
    }

    /// Leaves out `part`, saying `why` (printed with the margin, see the module docs).
    pub fn without(mut self, part: Part, why: &str) -> Self {
        self.without.push((part, why.to_string()));
        self
    }

    /// Requires agreement to `tolerance` instead of [`TOLERANCE`].
    pub fn tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    fn draw(&mut self) -> (State<N>, SVector<f64, M>) {
        (self.sampler)(&mut self.rng)
    }

    fn checks(&self, part: Part) -> bool {
        !self.without.iter().any(|(p, _)| *p == part)
    }

    /// Runs every check and panics listing the disagreements.
    pub fn check<const P: usize>(self)
    where
        T: Parametric<N, M, P>,
    {
        let name = self.name.clone();
        let failures = self.failures();
        report(&name, &failures);
    }

    /// Runs every check but [`Part::Sensitivities`] (for a model that is not
    /// `Parametric`, written by hand) and panics listing the disagreements.
    pub fn check_without_parameters(mut self) {
        let cases = std::mem::take(&mut self.cases);
        for case in &cases {
            self.check_case(case);
        }
        self.print_margin();
        report(&self.name, &self.failures);
    }

    /// Runs every check and returns the disagreements, one message each.
    pub fn failures<const P: usize>(mut self) -> Vec<String>
    where
        T: Parametric<N, M, P>,
    {
        let cases = std::mem::take(&mut self.cases);
        for case in &cases {
            self.check_case(case);
            if self.checks(Part::Sensitivities) && P > 0 {
                self.sensitivities(case);
            }
        }
        self.print_margin();
        self.failures
    }

    fn print_margin(&self) {
        if std::env::var_os("DERIVATIVES_MARGIN").is_some() {
            eprintln!(
                "margin {}: {:.3e} of the tolerance, {}",
                self.name, self.margin.0, self.margin.1
            );
            for (part, why) in &self.without {
                eprintln!("  without {part:?}: {why}");
            }
        }
    }

    /// The checks at one case but the sensitivities.
    fn check_case(&mut self, case: &Case<N, M>) {
        // The linearization is of the accelerations, which must exist at the state (a
        // model singular by design leaves it out).
        let accelerations = self.model.accelerations(&case.state, &case.inputs);
        if let Err(e) = &accelerations {
            if self.checks(Part::Linearize) {
                let at = self.describe(case);
                self.failures.push(format!(
                    "{}: accelerations fail at {at}: {e} (choose states where the model is \
                     regular)",
                    self.name
                ));
            }
        }
        if accelerations.is_ok() && self.checks(Part::Linearize) {
            self.linearize(case);
        }
        if self.checks(Part::Equations) {
            self.equations(case);
            self.first_derivatives(case);
        }
        if self.checks(Part::InverseDynamics) {
            // At the model's accelerations, as linearize evaluates it; else at some.
            let qdd =
                accelerations.unwrap_or_else(|_| SVector::from_fn(|i, _| 0.5 - 0.1 * i as f64));
            self.inverse_dynamics(case, &qdd);
        }
        if self.checks(Part::Gradient) {
            self.gradient(case);
        }
        if self.checks(Part::Variational) {
            self.variational(case);
        }
    }

    /// The state and inputs with the model's names, at full precision.
    fn describe(&self, case: &Case<N, M>) -> String {
        let named = |names: &[&str], v: &[f64]| -> String {
            names
                .iter()
                .zip(v)
                .map(|(n, x)| format!("{n} = {x:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let coordinates = <T as Model<N, M>>::COORDINATES;
        let s = &case.state;
        format!(
            "state '{}' (t = {:?}; q: {}; q̇: {}; u: {})",
            case.label,
            s.t,
            named(&coordinates, s.q.as_slice()),
            named(&coordinates, s.qd.as_slice()),
            if M == 0 {
                "none".to_string()
            } else {
                named(&<T as Model<N, M>>::INPUTS, case.inputs.as_slice())
            }
        )
    }

    /// The names of the entries of (q, q̇, u, t), in that order.
    fn variables(&self) -> Vec<String> {
        (0..2 * N + M + 1).map(|k| self.variable(k)).collect()
    }

    /// The name of entry k of (q, q̇, u, t).
    fn variable(&self, k: usize) -> String {
        let q = <T as Model<N, M>>::COORDINATES;
        if k < N {
            format!("q {}", q[k])
        } else if k < 2 * N {
            format!("q̇ {}", q[k - N])
        } else if k < 2 * N + M {
            format!("u {}", <T as Model<N, M>>::INPUTS[k - 2 * N])
        } else {
            "t".to_string()
        }
    }

    /// The case's point with entry k of (q, q̇, u, t) moved by `h` (k past the end: none).
    fn moved(case: &Case<N, M>, k: usize, h: f64) -> Point<f64, N, M> {
        let mut x = Point::new(&case.state, &case.inputs);
        if k < N {
            x.q[k] += h;
        } else if k < 2 * N {
            x.qd[k - N] += h;
        } else if k < 2 * N + M {
            x.u[k - 2 * N] += h;
        } else if k == 2 * N + M {
            x.t += h;
        }
        x
    }

    /// The entry k of (q, q̇, u, t) at the case.
    fn value(case: &Case<N, M>, k: usize) -> f64 {
        let x = Point::new(&case.state, &case.inputs);
        if k < N {
            x.q[k]
        } else if k < 2 * N {
            x.qd[k - N]
        } else if k < 2 * N + M {
            x.u[k - 2 * N]
        } else {
            x.t
        }
    }

    /// The case's point in dual numbers seeded along entry k of (q, q̇, u, t).
    fn seeded(case: &Case<N, M>, k: usize) -> Point<Dual64, N, M> {
        let x = Point::new(&case.state, &case.inputs);
        let d = |v: f64, i: usize| Dual64::new(v, if i == k { 1.0 } else { 0.0 });
        Point {
            q: from_fn(|i| d(x.q[i], i)),
            qd: from_fn(|i| d(x.qd[i], N + i)),
            u: from_fn(|i| d(x.u[i], 2 * N + i)),
            t: d(x.t, 2 * N + M),
        }
    }

    fn linearize(&mut self, case: &Case<N, M>) {
        let lin = match linearize(self.model, &case.state, &case.inputs) {
            Ok(lin) => lin,
            Err(e) => {
                let at = self.describe(case);
                self.failures
                    .push(format!("{}: linearize fails at {at}: {e}", self.name));
                return;
            }
        };
        let columns = 2 * N + M;
        let exact: Vec<Vec<f64>> = (0..columns)
            .map(|k| {
                let column = if k < N {
                    lin.d_q.column(k).into_owned()
                } else if k < 2 * N {
                    lin.d_qd.column(k - N).into_owned()
                } else {
                    lin.d_u.column(k - 2 * N).into_owned()
                };
                column.as_slice().to_vec()
            })
            .collect();
        let model = self.model;
        let f = |k: usize, h: f64| -> Result<Vec<f64>, String> {
            let x = Self::moved(case, k, h);
            let s = State::new(x.t, SVector::from(x.q), SVector::from(x.qd));
            model
                .accelerations(&s, &SVector::from(x.u))
                .map(|a| a.as_slice().to_vec())
                .map_err(|e| e.to_string())
        };
        let rows = |i: usize| format!("q̈ {}", <T as Model<N, M>>::COORDINATES[i]);
        let columns: Vec<String> = (0..columns).map(|k| self.variable(k)).collect();
        let terms = self.acceleration_terms(case);
        self.compare(
            case,
            Columns {
                quantity: "linearize: ∂q̈",
                exact: &exact,
                size_of: &|k| Self::value(case, k).abs().max(1.0),
                f: &f,
                rows: &rows,
                columns: &|k| columns[k].clone(),
                terms,
            },
        );
    }

    fn sensitivities<const P: usize>(&mut self, case: &Case<N, M>)
    where
        T: Parametric<N, M, P>,
    {
        let d = match sensitivities(self.model, &case.state, &case.inputs) {
            Ok(d) => d,
            Err(e) => {
                let at = self.describe(case);
                self.failures
                    .push(format!("{}: sensitivities fail at {at}: {e}", self.name));
                return;
            }
        };
        let exact: Vec<Vec<f64>> = (0..P).map(|k| d.column(k).as_slice().to_vec()).collect();
        let p0 = self.model.parameter_values();
        let model = self.model;
        let x = Point::new(&case.state, &case.inputs);
        let f = |k: usize, h: f64| -> Result<Vec<f64>, String> {
            let mut p = p0;
            p[k] += h;
            model
                .eval_accelerations_with::<f64>(&p, &x)
                .map(|a| a.as_slice().to_vec())
                .ok_or_else(|| "eval_accelerations_with is singular".to_string())
        };
        let rows = |i: usize| format!("q̈ {}", <T as Model<N, M>>::COORDINATES[i]);
        let parameters = <T as Parametric<N, M, P>>::PARAMETERS;
        let name = self.name.clone();
        let terms = self.acceleration_terms(case);
        self.compare(
            case,
            Columns {
                quantity: "sensitivities: ∂q̈",
                exact: &exact,
                // Relative to the parameter itself, which can be far below 1.
                size_of: &|k| if p0[k] == 0.0 { 1.0 } else { p0[k].abs() },
                f: &f,
                rows: &rows,
                columns: &|k| format!("p {}", parameters[k]),
                terms,
            },
        );
        // The generic passes with the parameters given agree with the model's own
        // accelerations, to rounding of the terms q̈ sums (near a singular mass matrix they
        // are far larger than q̈, and the two passes round them differently).
        if let (Some(with), Ok(own)) = (
            model.eval_accelerations_with::<f64>(&p0, &x),
            model.accelerations(&case.state, &case.inputs),
        ) {
            let scale = own.amax().max(1.0);
            if (with - own).amax() > 1e-9 * scale + 100.0 * f64::EPSILON * terms {
                let at = self.describe(case);
                self.failures.push(format!(
                    "{name}: eval_accelerations_with at the model's own parameters {:?} \
                     differs from accelerations {:?} at {at}",
                    with.as_slice(),
                    own.as_slice()
                ));
            }
        }
    }

    /// The size of the terms of q̈ = M⁻¹ (bias − Jᵀλ): they can be far larger than q̈ and
    /// its derivatives, which all vanish at rest when the constraints alone fix the
    /// motion (a driven linkage), or with their parameter derivatives at an equilibrium
    /// or a steady spin. The largest of |q̈|, |M⁻¹ bias| and each column of the
    /// linearization times its variable.
    fn acceleration_terms(&self, case: &Case<N, M>) -> f64 {
        let (s, u) = (&case.state, &case.inputs);
        let e = self.model.eval_equations(&Point::new(s, u));
        let free = match e.mass.cholesky() {
            Some(c) => c.solve(&e.bias).amax(),
            None => e.bias.amax() / e.mass.amax().max(f64::MIN_POSITIVE),
        };
        let mut size = if free.is_finite() { free } else { 0.0 };
        if let Ok(lin) = linearize(self.model, s, u) {
            size = size.max(lin.accelerations.amax());
            for k in 0..N {
                size = size
                    .max(lin.d_q.column(k).amax() * s.q[k].abs().max(1.0))
                    .max(lin.d_qd.column(k).amax() * s.qd[k].abs().max(1.0));
            }
            for k in 0..M {
                size = size.max(lin.d_u.column(k).amax() * u[k].abs().max(1.0));
            }
        }
        size
    }

    /// The size of the terms the model's equations sum, which cancel in a derivative that
    /// vanishes (∂L/∂q of a cyclic coordinate): the largest of |L|, |p| max(1, |q̇|),
    /// |M| max(1, |q̇|)², |bias|, and |M q̈| for the accelerations `qdd`.
    fn model_terms(&self, case: &Case<N, M>, qdd: Option<&SVector<f64, N>>) -> f64 {
        let e = self
            .model
            .eval_equations(&Point::new(&case.state, &case.inputs));
        let speed = case.state.qd.amax().max(1.0);
        let size = e
            .lagrangian
            .abs()
            .max(e.momenta.amax() * speed)
            .max(e.mass.amax() * speed * speed)
            .max(e.bias.amax())
            .max(qdd.map_or(0.0, |a| (e.mass * a).amax()));
        if size.is_finite() {
            size
        } else {
            0.0
        }
    }

    fn equations(&mut self, case: &Case<N, M>) {
        let model = self.model;
        let columns = 2 * N + M + 1;
        let duals: Vec<Equations<N, Dual64>> = (0..columns)
            .map(|k| model.eval_equations_in(&Self::seeded(case, k)))
            .collect();
        // The value: the fast path (`eval_equations`) and the sweep in f64 and in dual
        // numbers agree.
        let x = Point::new(&case.state, &case.inputs);
        let fast = flatten_equations(&model.eval_equations(&x));
        let swept = flatten_equations(&model.eval_equations_in(&x));
        let dual_value = flatten_equations(&duals[0].map_re());
        for (what, got) in [
            ("eval_equations_in::<f64>", &swept),
            ("eval_equations_in::<Dual64>", &dual_value),
        ] {
            self.compare_values(
                case,
                &format!("{what} against the fast path eval_equations"),
                &fast,
                got,
                equation_entry::<N>,
            );
        }
        let exact: Vec<Vec<f64>> = duals
            .iter()
            .map(|e| flatten_equations(&e.map_eps()))
            .collect();
        let f = |k: usize, h: f64| -> Result<Vec<f64>, String> {
            Ok(flatten_equations(
                &model.eval_equations_in(&Self::moved(case, k, h)),
            ))
        };
        // Mass matrix, bias, momenta and L have different units: each is a quantity.
        let terms = self.model_terms(case, None);
        let names = self.variables();
        for (what, range) in equation_parts::<N>() {
            let exact: Vec<Vec<f64>> = exact.iter().map(|c| c[range.clone()].to_vec()).collect();
            let r = range.clone();
            self.compare(
                case,
                Columns {
                    quantity: &format!("eval_equations_in::<Dual64>: ∂{what}"),
                    exact: &exact,
                    size_of: &|k| Self::value(case, k).abs().max(1.0),
                    f: &|k, h| f(k, h).map(|v| v[r.clone()].to_vec()),
                    rows: &|i| equation_entry::<N>(range.start + i),
                    columns: &|k| names[k].clone(),
                    terms,
                },
            );
        }
    }

    /// The equations' own derivatives of L and the forces in `f64`, the fast path's
    /// (`eval_equations`) and the gradient's, against central differences of L
    /// (`eval_lagrangian`), of the virtual power of the forces and of D, and of the fast
    /// path's momenta: p = ∂L/∂q̇, ∂L/∂q, M = ∂p/∂q̇, Q = Σ F ∂v/∂q̇ − ∂D/∂q̇, and
    /// bias = ∂L/∂q − (∂p/∂q q̇ + ∂p/∂t) + Q.
    fn first_derivatives(&mut self, case: &Case<N, M>) {
        let model = self.model;
        let x = Point::new(&case.state, &case.inputs);
        let fast = model.eval_equations(&x);
        let gradient = model.eval_gradient_in(&x);
        let terms = self.model_terms(case, None);
        let coordinates = <T as Model<N, M>>::COORDINATES;
        let lagrangian = |k: usize, h: f64| -> Result<Vec<f64>, String> {
            Ok(vec![model.eval_lagrangian(&Self::moved(case, k, h))])
        };
        let size_q = |k: usize| Self::value(case, k).abs().max(1.0);
        for (what, offset, exact) in [
            ("eval_equations: momenta = ∂L/∂q̇", N, fast.momenta),
            ("eval_gradient_in::<f64>: ∂L/∂q", 0, gradient.coordinates),
        ] {
            let exact: Vec<Vec<f64>> = (0..N).map(|j| vec![exact[j]]).collect();
            self.compare(
                case,
                Columns {
                    quantity: what,
                    exact: &exact,
                    size_of: &|j| size_q(offset + j),
                    f: &|j, h| lagrangian(offset + j, h),
                    rows: &|_| "L".to_string(),
                    columns: &|j| {
                        format!("{} {}", if offset == 0 { "q" } else { "q̇" }, coordinates[j])
                    },
                    terms,
                },
            );
        }
        let mass: Vec<Vec<f64>> = (0..N)
            .map(|j| fast.mass.column(j).as_slice().to_vec())
            .collect();
        self.compare(
            case,
            Columns {
                quantity: "eval_equations: mass matrix = ∂p/∂q̇",
                exact: &mass,
                size_of: &|j| size_q(N + j),
                f: &|j, h| {
                    Ok(model
                        .eval_equations(&Self::moved(case, N + j, h))
                        .momenta
                        .as_slice()
                        .to_vec())
                },
                rows: &|i| format!("p {}", coordinates[i]),
                columns: &|j| format!("q̇ {}", coordinates[j]),
                terms,
            },
        );
        // Q_j: the forces frozen at the state, their points' velocities moved (they are
        // linear in q̇), and D.
        let mut frozen = Vec::new();
        model.eval_forces(&x, |f: f64, _v: f64| frozen.push(f));
        let power = |j: usize, h: f64| -> Result<Vec<f64>, String> {
            let moved = Self::moved(case, N + j, h);
            let mut i = 0;
            let mut power = -model.eval_dissipation(&moved);
            model.eval_forces(&moved, |_f: f64, v: f64| {
                power += frozen.get(i).copied().unwrap_or(f64::NAN) * v;
                i += 1;
            });
            Ok(vec![power])
        };
        let forces: Vec<Vec<f64>> = (0..N).map(|j| vec![gradient.forces[j]]).collect();
        self.compare(
            case,
            Columns {
                quantity: "eval_gradient_in::<f64>: generalized forces Q = Σ F ∂v/∂q̇ − ∂D/∂q̇",
                exact: &forces,
                size_of: &|j| size_q(N + j),
                f: &power,
                rows: &|_| "virtual power − D".to_string(),
                columns: &|j| format!("q̇ {}", coordinates[j]),
                terms,
            },
        );
        // ∂p/∂q q̇ + ∂p/∂t = ∂L/∂q + Q − bias, along (q̇, 1) in (q, t).
        let mixed = (gradient.coordinates + gradient.forces - fast.bias)
            .as_slice()
            .to_vec();
        let along = |_: usize, h: f64| -> Result<Vec<f64>, String> {
            let mut moved = x;
            for i in 0..N {
                moved.q[i] += h * x.qd[i];
            }
            moved.t += h;
            Ok(model.eval_equations(&moved).momenta.as_slice().to_vec())
        };
        let speed = case.state.qd.amax().max(1.0);
        self.compare(
            case,
            Columns {
                quantity: "eval_equations: bias = ∂L/∂q − (∂p/∂q q̇ + ∂p/∂t) + Q",
                exact: &[mixed],
                size_of: &|_| speed,
                f: &along,
                rows: &|i| format!("p {}", coordinates[i]),
                columns: &|_| "(q, t) along (q̇, 1)".to_string(),
                terms,
            },
        );
    }

    fn inverse_dynamics(&mut self, case: &Case<N, M>, qdd: &SVector<f64, N>) {
        let model = self.model;
        let qdd = *qdd;
        let columns = 2 * N + M + 1;
        // Columns past (q, q̇, u, t) seed q̈.
        let exact: Vec<Vec<f64>> = (0..columns + N)
            .map(|k| {
                let x = Self::seeded(case, k);
                let a: [Dual64; N] =
                    from_fn(|i| Dual64::new(qdd[i], if k == columns + i { 1.0 } else { 0.0 }));
                model
                    .eval_inverse_dynamics_in(&x, &a)
                    .iter()
                    .map(|r| r.eps)
                    .collect()
            })
            .collect();
        let f = |k: usize, h: f64| -> Result<Vec<f64>, String> {
            let mut a: [f64; N] = qdd.into();
            if k >= columns {
                a[k - columns] += h;
            }
            Ok(model
                .eval_inverse_dynamics_in(&Self::moved(case, k, h), &a)
                .to_vec())
        };
        let size_of = |k: usize| {
            let v = if k >= columns {
                qdd[k - columns]
            } else {
                Self::value(case, k)
            };
            v.abs().max(1.0)
        };
        let coordinates = <T as Model<N, M>>::COORDINATES;
        let names: Vec<String> = (0..columns + N)
            .map(|k| {
                if k >= columns {
                    format!("q̈ {}", coordinates[k - columns])
                } else {
                    self.variable(k)
                }
            })
            .collect();
        self.compare(
            case,
            Columns {
                quantity: "eval_inverse_dynamics_in::<Dual64>: ∂(M q̈ − bias)",
                exact: &exact,
                size_of: &size_of,
                f: &f,
                rows: &|i| format!("row {}", coordinates[i]),
                columns: &|k| names[k].clone(),
                terms: self.model_terms(case, Some(&qdd)),
            },
        );
        // The public face: `inverse_dynamics_derivatives` (vector-mode duals), its columns
        // along (q, q̇, u) and q̈ (the mass matrix) in place of the ones above (t has none).
        let public = match inverse_dynamics_derivatives(model, &case.state, &qdd, &case.inputs) {
            Ok(d) => d,
            Err(e) => {
                let at = self.describe(case);
                self.failures.push(format!(
                    "{}: inverse_dynamics_derivatives fails at {at}: {e}",
                    self.name
                ));
                return;
            }
        };
        let value = model.inverse_dynamics(&case.state, &qdd, &case.inputs);
        self.compare_values(
            case,
            "inverse_dynamics_derivatives' forces against inverse_dynamics",
            value.as_slice(),
            public.forces.as_slice(),
            |i| format!("row {}", coordinates[i]),
        );
        let exact: Vec<Vec<f64>> = (0..columns + N)
            .map(|k| {
                let column = if k < N {
                    public.d_q.column(k).into_owned()
                } else if k < 2 * N {
                    public.d_qd.column(k - N).into_owned()
                } else if k < 2 * N + M {
                    public.d_u.column(k - 2 * N).into_owned()
                } else if k >= columns {
                    public.mass.column(k - columns).into_owned()
                } else {
                    return exact[k].clone();
                };
                column.iter().copied().collect()
            })
            .collect();
        self.compare(
            case,
            Columns {
                quantity: "inverse_dynamics_derivatives: ∂τ",
                exact: &exact,
                size_of: &size_of,
                f: &f,
                rows: &|i| format!("row {}", coordinates[i]),
                columns: &|k| names[k].clone(),
                terms: self.model_terms(case, Some(&qdd)),
            },
        );
    }

    fn gradient(&mut self, case: &Case<N, M>) {
        let model = self.model;
        let columns = 2 * N + M + 1;
        let exact: Vec<Vec<f64>> = (0..columns)
            .map(|k| flatten_gradient(&model.eval_gradient_in(&Self::seeded(case, k))).1)
            .collect();
        let f = |k: usize, h: f64| -> Result<Vec<f64>, String> {
            Ok(flatten_gradient(&model.eval_gradient_in(&Self::moved(case, k, h))).0)
        };
        let terms = self.model_terms(case, None);
        let names = self.variables();
        for (what, range) in gradient_parts::<N>() {
            let exact: Vec<Vec<f64>> = exact.iter().map(|c| c[range.clone()].to_vec()).collect();
            let r = range.clone();
            self.compare(
                case,
                Columns {
                    quantity: &format!("eval_gradient_in::<Dual64>: ∂{what}"),
                    exact: &exact,
                    size_of: &|k| Self::value(case, k).abs().max(1.0),
                    f: &|k, h| f(k, h).map(|v| v[r.clone()].to_vec()),
                    rows: &|i| gradient_entry::<N>(range.start + i),
                    columns: &|k| names[k].clone(),
                    terms,
                },
            );
        }
    }

    /// The variational residual D₁L_d + (h/2) Q = (h/2)(∂L/∂q + Q) − ∂L/∂q̇ at the
    /// midpoint of (q₀, q₁) of a step of length h whose midpoint state is the case's
    /// state, in any scalar, as `Step::discrete` and `Step::jacobian` evaluate it.
    fn variational(&mut self, case: &Case<N, M>) {
        let model = self.model;
        let h = VARIATIONAL_STEP;
        let s = &case.state;
        let q0 = s.q - s.qd * (0.5 * h);
        let q1 = s.q + s.qd * (0.5 * h);
        let residual_f64 = |q1: &SVector<f64, N>| -> Vec<f64> {
            let x = Point {
                t: s.t,
                q: from_fn(|i| (q1[i] + q0[i]) * 0.5),
                qd: from_fn(|i| (q1[i] - q0[i]) * (1.0 / h)),
                u: case.inputs.into(),
            };
            let g = model.eval_gradient_in(&x);
            (0..N)
                .map(|i| (g.coordinates[i] + g.forces[i]) * (0.5 * h) - g.momenta[i])
                .collect()
        };
        let exact: Vec<Vec<f64>> = (0..N)
            .map(|j| {
                let q1: [Dual64; N] =
                    from_fn(|i| Dual64::new(q1[i], if i == j { 1.0 } else { 0.0 }));
                let x = Point {
                    t: Dual64::from(s.t),
                    q: from_fn(|i| (q1[i] + q0[i]) * 0.5),
                    qd: from_fn(|i| (q1[i] - q0[i]) * (1.0 / h)),
                    u: case.inputs.map(Dual64::from).into(),
                };
                let g = model.eval_gradient_in(&x);
                (0..N)
                    .map(|i| {
                        (g.coordinates[i].eps + g.forces[i].eps) * (0.5 * h) - g.momenta[i].eps
                    })
                    .collect()
            })
            .collect();
        let f = |j: usize, d: f64| -> Result<Vec<f64>, String> {
            let mut moved = q1;
            moved[j] += d;
            Ok(residual_f64(&moved))
        };
        let coordinates = <T as Model<N, M>>::COORDINATES;
        self.compare(
            case,
            Columns {
                quantity: "variational Newton Jacobian ∂(D₁L_d + (h/2) Q)",
                exact: &exact,
                size_of: &|j| q1[j].abs().max(1.0),
                f: &f,
                rows: &|i| format!("row {}", coordinates[i]),
                columns: &|j| format!("q₁ {}", coordinates[j]),
                terms: 0.0,
            },
        );
    }

    /// Values that must agree to rounding (10⁻¹⁰ of the quantity's largest entry, at
    /// least 1).
    fn compare_values(
        &mut self,
        case: &Case<N, M>,
        what: &str,
        want: &[f64],
        got: &[f64],
        entry: impl Fn(usize) -> String,
    ) {
        let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for (i, (w, g)) in want.iter().zip(got).enumerate() {
            let agrees = (w - g).abs() <= 1e-10 * scale;
            if !agrees {
                let at = self.describe(case);
                self.failures.push(format!(
                    "{}: {what}, {}: {g:e}, want {w:e} at {at}",
                    self.name,
                    entry(i)
                ));
            }
        }
    }

    /// Compares the columns of `c` with central differences, as the module docs say.
    fn compare(&mut self, case: &Case<N, M>, c: Columns<'_>) {
        let Columns {
            quantity,
            exact,
            size_of,
            f,
            rows,
            columns,
            terms: size,
        } = c;
        let largest = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let whole = exact.iter().map(|c| largest(c)).fold(0.0, f64::max);
        // The terms a function sums can be much larger than its value (forces that
        // balance at an equilibrium): their size is at least that of each derivative
        // times its variable.
        let size = exact
            .iter()
            .enumerate()
            .map(|(k, c)| largest(c) * size_of(k))
            .fold(size, f64::max);
        for (k, column) in exact.iter().enumerate() {
            let h = STEP * size_of(k);
            let mut verdicts = Vec::new();
            for h in [h, 10.0 * h, 100.0 * h, 0.1 * h, 0.01 * h] {
                let (verdict, ratio) =
                    difference(column, |d| f(k, d), h, whole, size, self.tolerance);
                if ratio > self.margin.0 && verdicts.is_empty() {
                    self.margin = (
                        ratio,
                        format!("{quantity} ∂/∂({}) at '{}'", columns(k), case.label),
                    );
                }
                let agrees = matches!(verdict, Verdict::Agrees);
                verdicts.push(verdict);
                if agrees {
                    break;
                }
            }
            if matches!(verdicts.last(), Some(Verdict::Agrees)) {
                continue;
            }
            // Every step disagrees: the first step's disagreement is the one reported,
            // with the others'.
            let others: Vec<String> = verdicts[1..]
                .iter()
                .map(|v| match v {
                    Verdict::Differs {
                        exact,
                        central,
                        allowed,
                        ..
                    } => format!("{:e} > {allowed:e}", (exact - central).abs()),
                    Verdict::Fails(why) => why.clone(),
                    Verdict::Agrees => unreachable!("the loop stops at agreement"),
                })
                .collect();
            let others = others.join(", ");
            match verdicts.swap_remove(0) {
                Verdict::Agrees => unreachable!("the loop stops at agreement"),
                Verdict::Fails(why) => {
                    let at = self.describe(case);
                    self.failures.push(format!(
                        "{}: {quantity}, column ∂/∂({}): {why} at {at}",
                        self.name,
                        columns(k)
                    ));
                }
                Verdict::Differs {
                    row,
                    exact,
                    central,
                    allowed,
                } => {
                    let at = self.describe(case);
                    self.failures.push(format!(
                        "{}: {quantity}, row {} column ∂/∂({}): exact {exact:e}, central \
                         difference {central:e} (|difference| {:e} > {allowed:e}; at steps \
                         10, 100, 1/10 and 1/100 times as long: {others}) at {at}",
                        self.name,
                        rows(row),
                        columns(k),
                        (exact - central).abs(),
                    ));
                }
            }
        }
    }
}

/// A quantity compared column by column: the exact derivative along each variable and the
/// function whose central differences it must match.
struct Columns<'c> {
    /// Names the quantity in failure messages.
    quantity: &'c str,
    /// Column k: the exact derivative along variable k.
    exact: &'c [Vec<f64>],
    /// The typical size of variable k: the step is [`STEP`] times it.
    size_of: &'c dyn Fn(usize) -> f64,
    /// The function with variable k moved by h.
    f: &'c dyn Fn(usize, f64) -> Result<Vec<f64>, String>,
    /// Names row i.
    rows: &'c dyn Fn(usize) -> String,
    /// Names column k.
    columns: &'c dyn Fn(usize) -> String,
    /// The size of the terms the function sums beyond what its values and these
    /// derivatives show (0 if none is known).
    terms: f64,
}

/// What a comparison of one column found.
enum Verdict {
    Agrees,
    Differs {
        row: usize,
        exact: f64,
        central: f64,
        allowed: f64,
    },
    Fails(String),
}

/// The column `exact` against the central difference of `f` with step `h`, and the
/// largest |exact − central| / allowed. `whole` is the largest entry of the quantity,
/// `terms` the size of the terms the function sums.
fn difference(
    exact: &[f64],
    f: impl Fn(f64) -> Result<Vec<f64>, String>,
    h: f64,
    whole: f64,
    terms: f64,
    tolerance: f64,
) -> (Verdict, f64) {
    let (plus, minus) = match (f(h), f(-h)) {
        (Ok(p), Ok(m)) => (p, m),
        (Err(e), _) | (_, Err(e)) => {
            return (
                Verdict::Fails(format!("the function fails at a step of {h:e}: {e}")),
                0.0,
            )
        }
    };
    let central: Vec<f64> = plus
        .iter()
        .zip(&minus)
        .map(|(p, m)| (p - m) / (2.0 * h))
        .collect();
    if let Some(row) = exact.iter().position(|x| !x.is_finite()) {
        return (
            Verdict::Fails(format!("exact entry {row} is {}", exact[row])),
            0.0,
        );
    }
    if let Some(row) = central.iter().position(|x| !x.is_finite()) {
        return (
            Verdict::Fails(format!("central difference {row} is {}", central[row])),
            0.0,
        );
    }
    let size = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let scale = size(exact).max(size(&central)).max(1e-3 * whole);
    let rounding = 100.0 * f64::EPSILON * size(&plus).max(size(&minus)).max(terms) / h;
    let allowed = tolerance * scale + rounding;
    let worst = (0..exact.len()).max_by(|&a, &b| {
        (exact[a] - central[a])
            .abs()
            .total_cmp(&(exact[b] - central[b]).abs())
    });
    let Some(row) = worst else {
        return (Verdict::Agrees, 0.0);
    };
    let error = (exact[row] - central[row]).abs();
    let ratio = if allowed > 0.0 { error / allowed } else { 0.0 };
    if error > allowed {
        let verdict = Verdict::Differs {
            row,
            exact: exact[row],
            central: central[row],
            allowed,
        };
        (verdict, ratio)
    } else {
        (Verdict::Agrees, ratio)
    }
}

fn zero_inputs<const M: usize>() -> SVector<f64, M> {
    SVector::zeros()
}

/// Panics with the failures of `name`, if any.
fn report(name: &str, failures: &[String]) {
    if failures.is_empty() {
        return;
    }
    let shown = 40;
    let mut message = format!(
        "{name}: {} derivative(s) disagree with central differences:\n",
        failures.len()
    );
    for f in failures.iter().take(shown) {
        message.push_str("  ");
        message.push_str(f);
        message.push('\n');
    }
    if failures.len() > shown {
        message.push_str(&format!("  … and {} more\n", failures.len() - shown));
    }
    panic!("{message}");
}

/// The real and derivative parts of equations in dual numbers.
trait Parts {
    type Real;
    fn map_re(&self) -> Self::Real;
    fn map_eps(&self) -> Self::Real;
}

impl<const N: usize> Parts for Equations<N, Dual64> {
    type Real = Equations<N>;
    fn map_re(&self) -> Equations<N> {
        Equations {
            mass: self.mass.map(|x| x.re),
            momenta: self.momenta.map(|x| x.re),
            bias: self.bias.map(|x| x.re),
            lagrangian: self.lagrangian.re,
        }
    }
    fn map_eps(&self) -> Equations<N> {
        Equations {
            mass: self.mass.map(|x| x.eps),
            momenta: self.momenta.map(|x| x.eps),
            bias: self.bias.map(|x| x.eps),
            lagrangian: self.lagrangian.eps,
        }
    }
}

/// Mass matrix (column-major), bias, momenta, L.
fn flatten_equations<const N: usize>(e: &Equations<N>) -> Vec<f64> {
    let mut v = e.mass.as_slice().to_vec();
    v.extend_from_slice(e.bias.as_slice());
    v.extend_from_slice(e.momenta.as_slice());
    v.push(e.lagrangian);
    v
}

fn equation_parts<const N: usize>() -> [(&'static str, std::ops::Range<usize>); 4] {
    let n2 = N * N;
    [
        ("mass matrix", 0..n2),
        ("bias", n2..n2 + N),
        ("momenta", n2 + N..n2 + 2 * N),
        ("L", n2 + 2 * N..n2 + 2 * N + 1),
    ]
}

fn equation_entry<const N: usize>(k: usize) -> String {
    let n2 = N * N;
    if k < n2 {
        format!("mass[{}, {}]", k % N, k / N)
    } else if k < n2 + N {
        format!("bias[{}]", k - n2)
    } else if k < n2 + 2 * N {
        format!("momenta[{}]", k - n2 - N)
    } else {
        "L".to_string()
    }
}

/// (values, derivative parts) of a gradient in dual numbers, as ∂L/∂q, momenta, forces,
/// L; for an `f64` gradient the values only.
fn flatten_gradient<S: Flat, const N: usize>(g: &Gradient<N, S>) -> (Vec<f64>, Vec<f64>) {
    let all = g
        .coordinates
        .iter()
        .chain(g.momenta.iter())
        .chain(g.forces.iter())
        .chain([&g.lagrangian]);
    all.map(|x| x.parts()).unzip()
}

/// The value and derivative part of a number.
trait Flat: Copy {
    fn parts(&self) -> (f64, f64);
}

impl Flat for f64 {
    fn parts(&self) -> (f64, f64) {
        (*self, 0.0)
    }
}

impl Flat for Dual64 {
    fn parts(&self) -> (f64, f64) {
        (self.re, self.eps)
    }
}

fn gradient_parts<const N: usize>() -> [(&'static str, std::ops::Range<usize>); 4] {
    [
        ("L/∂q", 0..N),
        ("momenta", N..2 * N),
        ("generalized forces", 2 * N..3 * N),
        ("L", 3 * N..3 * N + 1),
    ]
}

fn gradient_entry<const N: usize>(k: usize) -> String {
    if k < N {
        format!("∂L/∂q[{k}]")
    } else if k < 2 * N {
        format!("momenta[{}]", k - N)
    } else if k < 3 * N {
        format!("forces[{}]", k - 2 * N)
    } else {
        "L".to_string()
    }
}

/// The columns of a linearization (`linearize_contacts`'s) against central differences of
/// the accelerations it linearizes (`accelerations`, for example `contact_dynamics`'s),
/// column by column, with a step of 1e-4 of each entry's size.
pub fn agree_with_central_differences<const N: usize, const M: usize>(
    lin: &Linearization<N, M>,
    accelerations: impl Fn(&State<N>, &SVector<f64, M>) -> SVector<f64, N>,
    tol: f64,
    what: &str,
) {
    let (s, u) = (lin.state, lin.inputs);
    for k in 0..2 * N + M {
        let step = |sign: f64| {
            let (mut s, mut u) = (s, u);
            let x = match k {
                k if k < N => &mut s.q[k],
                k if k < 2 * N => &mut s.qd[k - N],
                k => &mut u[k - 2 * N],
            };
            // Larger than the square root of ε: the accelerations of a robot at a
            // singular stance (legs straight) are large, and their rounding over a step
            // of 1e-6 is 1e-6 of a derivative of size one.
            let h = 1e-4 * x.abs().max(1.0);
            *x += sign * h;
            (accelerations(&s, &u), h)
        };
        let ((plus, h), (minus, _)) = (step(1.0), step(-1.0));
        let fd = (plus - minus) / (2.0 * h);
        let exact: SVector<f64, N> = match k {
            k if k < N => lin.d_q.column(k).into(),
            k if k < 2 * N => lin.d_qd.column(k - N).into(),
            k => lin.d_u.column(k - 2 * N).into(),
        };
        let scale = fd.amax().max(1.0);
        let err = (exact - fd).amax();
        assert!(
            err <= tol * scale,
            "{what}: column {k} off by {err:e} (scale {scale:e})\n exact {exact}\n    fd {fd}"
        );
    }
}
