//! Every tolerance and iteration limit of the runtime, with why it has its value. The
//! numbers are relative (to a matrix's own scale, a diagonal entry, |t|) wherever a scale
//! exists, so that they hold in any units. Defaults that a user can change (integrator
//! and projection settings) start from here too.

// ----- Linear algebra ------------------------------------------------------------------

/// An LU pivot at most this fraction of the largest entry of its column is zero: the
/// matrix is singular to rounding (a few ε of elimination error on an entry of that size),
/// and dividing by it would only amplify noise.
pub(crate) const PIVOT: f64 = 1e-14;

/// A Cholesky pivot of the mass matrix smaller than this fraction of its own diagonal
/// entry counts as zero: the coordinate's inertia is (to rounding) a combination of the
/// others'. Relative to each coordinate's own entry, so that a heavy cart next to a light
/// pendulum is fine however different their masses (down to [`NEGLIGIBLE_INERTIA`]);
/// looser than [`PIVOT`] because the pivot is a difference of squares, which loses half the
/// digits.
pub(crate) const SINGULAR_MASS: f64 = 1e-12;

/// A diagonal entry of the mass matrix at most this fraction of the largest one is zero:
/// that velocity has no kinetic energy at this state, to working precision (the azimuth of
/// a spherical pendulum at its pole, sin²θ ≤ ε² for θ ≤ 2.2e-16, where its acceleration
/// is whatever rounding makes of −2 cot θ θ̇ φ̇). ε², not ε: the acceleration of a small
/// diagonal entry stays accurate to about ε/√(entry/largest) relative, so up to that point
/// the answer is still worth giving, and one model may mix inertias of very different
/// sizes in SI units (a nanoparticle's mass and moment of inertia differ by about 1e-18).
pub(crate) const NEGLIGIBLE_INERTIA: f64 = f64::EPSILON * f64::EPSILON;

/// A mass matrix that fails the Cholesky factorization is told singular (positive
/// semidefinite) rather than indefinite when it factors after a shift of its diagonal by
/// this many ε max|M|: rounding leaves the zero eigenvalues of a semidefinite matrix a few
/// ε max|M| from zero, on either side, while an indefinite one has an eigenvalue clearly
/// below.
pub(crate) const SEMIDEFINITE_MASS_SHIFT: f64 = 1e3;

// ----- Constraints ---------------------------------------------------------------------

/// With constraints, the mass matrix is factored alone (the fast path) only when every
/// pivot is above this fraction of its diagonal entry; otherwise it is completed by the
/// constraints, M + ρ JᵀJ (see [`constrained`](crate::constrained#semidefinite-mass-matrices)).
/// An exactly singular M (quaternion coordinates) leaves a last pivot of rounding noise
/// that, a difference of squares relative to a small diagonal entry, was measured up to
/// 6e-12, above [`SINGULAR_MASS`]: solving with it lost up to 1e-3 of the velocities. Below
/// 1e-8 the plain solve would lose more than half the digits, and the completed matrix is
/// the better conditioned one.
pub(crate) const PLAIN_MASS: f64 = 1e-8;

/// A row of a constraint Jacobian at most this fraction of the Jacobian's largest entry
/// is zero (a nonholonomic constraint at position level, a constraint on held coordinates
/// only): as [`PIVOT`], rounding of entries of that size.
pub(crate) const IDLE_ROW: f64 = 1e-14;

/// A coordinate takes part in a null vector of the completed mass matrix M + ρ JᵀJ (a
/// combination of velocities that neither T nor the constraints fix) when its component
/// is above this fraction of the largest: the coordinates an error message names.
pub(crate) const NULL_COMPONENT: f64 = 1e-3;

/// How far, relative to the size of the coordinates, the states are that tell a kinematic
/// singularity (constraint rows dependent at this state only) from redundant constraints
/// (dependent everywhere): far enough that the rows of a linkage near its dead point are
/// independent well above rounding (their smallest singular value grows in proportion),
/// near enough that the projection back onto the constraints converges at once.
pub(crate) const NEARBY_STATE: f64 = 1e-3;

/// Newton iterations allowed to the projection of positions onto the constraints: from a
/// state near the constraints it converges quadratically in a handful; 50 leaves room for
/// a start far off without looping for long on one that cannot converge.
pub(crate) const PROJECTION_ITERATIONS: usize = 50;

/// How many running bounds on the rounding of its own evaluation
/// ([`rounding`](crate::rounding)) a constraint's residual may be, beside the relative
/// part of the start check ([`CONSTRAINED_START`] times max|∂φ_k/∂q| max|q|), the part that
/// does not vanish at q = 0. The bound is rigorous to first order and already charges the
/// math library 4 ulp, so a residual of more than a few bounds is not rounding; 64 leaves
/// room for the neglected second-order terms and for a state computed in `f64` by other
/// means, and stays above [`ROUNDING_FLOOR`], where `project` stops. Not 1/ε bounds (an
/// earlier choice, "the size of the terms" at the relative tolerance): with constant
/// offsets in a constraint (`(x0 + x) - (x0 + l*sin(theta))`, x0 = 1000, l = 0.01) that
/// accepted a start 2e-5 off, 0.2 % of the link.
pub(crate) const ROUNDING_ACCEPTED: f64 = 64.0;

/// The factor that turns a rounding bound into a part of a constraint's scale, which the
/// start check multiplies by [`CONSTRAINED_START`]: [`ROUNDING_ACCEPTED`] bounds accepted.
pub(crate) const ROUNDING_TO_SIZE: f64 = ROUNDING_ACCEPTED / CONSTRAINED_START;

/// [`project`](crate::constrained::project) stops when each residual |φ_k| is within its
/// tolerance relative to max|∂φ_k/∂q| max|q| or within this many times its running
/// rounding bound ([`rounding`](crate::rounding)): no Newton step can bring a residual
/// below the rounding of its own evaluation, and at q = 0 (a start at the origin) the
/// relative part is 0. The bound is first order and charges the math library a few ulp;
/// 4 covers the neglected second-order terms with room, and stays below what the start
/// check accepts ([`ROUNDING_ACCEPTED`] bounds), so that a projected state is always one a
/// simulation starts from.
pub(crate) const ROUNDING_FLOOR: f64 = 4.0;

/// The default tolerance of [`Projected`](crate::simulate::Projected) on the position
/// residuals |φ_k|, relative to max|∂φ_k/∂q| max|q| (what φ_k changes by when the
/// coordinates change by that fraction of their size), with a floor of
/// [`ROUNDING_FLOOR`] rounding bounds (see [`project`](crate::constrained::project)): a few
/// thousand ε, which Newton reaches in one or two iterations from a step's drift, tight
/// enough that the drift never accumulates. Relative, so that a pendulum of length 1000 m
/// is held as well as one of 1 m: an absolute 1e-12 was below the rounding of its φ.
pub(crate) const PROJECTED_TOLERANCE: f64 = 1e-12;

/// A simulation starts only from a state on its constraints: each residual at most this
/// fraction of its scale (max|∂φ_k/∂q| max|q| at position level, max|J_k| max|q̇| + |j_k| at
/// velocity level), plus [`ROUNDING_ACCEPTED`] bounds on the rounding of the constraint's
/// evaluation, so that the check accepts rounding at q = 0 or at rest, where the scale
/// alone is 0. A state computed in `f64` from a parametrization (x = l sin θ) or by
/// [`project`](crate::constrained::project) is on them to a few ε; a violation above √ε is a
/// start that was never put on them, which every integrator would otherwise carry along
/// (Dormand–Prince), record and then jump from (`Projected`), or jump from silently
/// (RATTLE).
pub(crate) const CONSTRAINED_START: f64 = 1e-8;

// ----- Integrators ---------------------------------------------------------------------

/// The default relative tolerance of the Newton solves of
/// [`Variational`](crate::simulate::Variational) and [`Rattle`](crate::simulate::Rattle):
/// about 50 ε, the rounding floor of the residuals, so that the discrete equations hold to
/// machine precision and energy and momenta stay conserved over long runs.
pub(crate) const NEWTON_TOLERANCE: f64 = 1e-14;

/// The default limit of their Newton iterations: a step needs one to three from its
/// O(h³) guess; 50 gives a difficult step room and then reports failure.
pub(crate) const NEWTON_ITERATIONS: usize = 50;

/// The default tolerances (relative, absolute) of
/// [`DormandPrince`](crate::simulate::DormandPrince): errors of 10⁻⁸ relative per step,
/// plotting accuracy for long runs at a few hundred steps per period.
pub(crate) const DORMAND_PRINCE: (f64, f64) = (1e-8, 1e-10);

/// An adaptive step at most this fraction of max(|t|, 1) has underflowed: it no longer
/// changes t by more than a few units in the last place.
pub(crate) const STEP_UNDERFLOW: f64 = 16.0 * f64::EPSILON;

/// The safety factor of the step-size control of
/// [`DormandPrince`](crate::simulate::DormandPrince): the next step is this fraction of the
/// one the error estimate asks for, so that most steps are accepted the first time.
pub(crate) const DORMAND_PRINCE_SAFETY: f64 = 0.9;

/// The most a Dormand–Prince step shrinks and grows from one step to the next: a rejected
/// step (or one whose slopes or error are not finite) is retried at most 5 times shorter,
/// an accepted one is followed by one at most 5 times longer, so that a single odd error
/// estimate cannot throw the step size far off.
pub(crate) const DORMAND_PRINCE_STEP_CHANGE: (f64, f64) = (0.2, 5.0);

/// The starting step of an adaptive integrator (Hairer, Nørsett and Wanner, "Solving
/// Ordinary Differential Equations I", II.4) when the state or its slope, in units of the
/// tolerances, is below [`STARTING_STEP_NEGLIGIBLE`] (too small to estimate from), when the
/// estimate is not finite, and the shortest it takes when the slope does not change.
pub(crate) const STARTING_STEP: f64 = 1e-6;

/// The size, in units of the tolerances, below which the state or its slope is too small
/// to estimate a starting step from.
pub(crate) const STARTING_STEP_NEGLIGIBLE: f64 = 1e-5;

/// The change of the slope over a trial step, in units of the tolerances, below which
/// the solution counts as flat: the starting step is then 10⁻³ of the trial (but at least
/// [`STARTING_STEP`]) instead of one estimated from a vanishing curvature.
pub(crate) const STARTING_STEP_FLAT: f64 = 1e-15;

/// The shortest starting step, in units of [`STEP_UNDERFLOW`] max(|t|, 1): well above the
/// time's precision, when the tolerances are so far below a component's size (atol =
/// 1e-100 on a velocity starting at 0) that the estimate vanishes; the error control
/// shortens or grows it from there.
pub(crate) const STARTING_STEP_FLOOR: f64 = 1e3;

// ----- Equilibria ----------------------------------------------------------------------

/// Newton iterations allowed to [`steady_motion`](crate::steady::steady_motion) and
/// [`equilibrium`](crate::steady::equilibrium): quadratic
/// convergence needs a handful from a fair guess; 50 reports a guess that leads nowhere.
pub(crate) const EQUILIBRIUM_ITERATIONS: usize = 50;

/// The shortest fraction of a Newton step that the backtracking of
/// [`equilibrium`](crate::steady::equilibrium) and
/// [`steady_motion`](crate::steady::steady_motion) tries before taking it anyway: 14
/// halvings, enough to get past a bend of the residual without stalling far from a root.
pub(crate) const SHORTEST_STEP: f64 = 1e-4;

/// An equilibrium or a steady motion is found when its residual (the static force
/// F = M q̈, the constraints, the momenta given) is at most this fraction of the largest
/// entry of its Jacobian times 1 + |q|: a few hundred ε of the force's own scale.
pub(crate) const EQUILIBRIUM: f64 = 1e-13;

/// The loosest acceptance of an equilibrium or a steady motion, as a fraction of the
/// Jacobian's scale, however large the coordinates. The acceptance grows with |q| because a
/// force evaluated at q is uncertain by about ε |∂F/∂q| |q|; past this fraction the state is
/// not resolved at all, and growing further accepted anything (from a guess of 1e300 rad, a
/// pendulum with θ̈ = −8).
pub(crate) const LOOSEST_EQUILIBRIUM: f64 = 1e-6;

/// The acceptance of an equilibrium or steady-motion residual: `relative` ([`EQUILIBRIUM`]
/// or [`STALLED_EQUILIBRIUM`]) times 1 + |q| for the rounding of coordinates of size
/// `size`, at most [`LOOSEST_EQUILIBRIUM`], times the Jacobian's scale `jacobian`.
pub(crate) fn equilibrium_acceptance(relative: f64, size: f64, jacobian: f64) -> f64 {
    (relative * (1.0 + size)).min(LOOSEST_EQUILIBRIUM) * jacobian
}

// ----- Stability -------------------------------------------------------------------------

/// The default margin of [`Spectrum::stability`](crate::stability::Spectrum::stability): a
/// real part within this fraction of the reduced Jacobian's norm counts as zero. Simple
/// eigenvalues on the imaginary axis come out with real parts of a few ε‖A‖, but the zero
/// eigenvalues of a symmetry form Jordan blocks, which rounding splits by about
/// ε^(1/k)‖A‖ for a block of size k: √ε ≈ 1e-8 (a spinning body's yaw), ∛ε ≈ 6e-6 (the
/// rolling coin's heading and contact point, measured at 1.3e-6 of its norm). A split block
/// and a true growth rate that small cannot be told apart in double precision, so this is
/// the resolution of the classification: growth rates below 1e-4 of the Jacobian's size
/// (a time constant ten thousand times the model's) count as marginal.
pub(crate) const MARGINAL: f64 = 1e-4;

/// The default margin of [`DiscreteSpectrum::stability`](crate::control::DiscreteSpectrum::stability):
/// a multiplier z of a sampled closed loop with |z| within this distance of 1 counts as on
/// the unit circle. It is [`MARGINAL`] at the scale the unit circle sets: |z| = e^(Re λ Ts),
/// so a growth rate Re λ that small per sample is not told apart from a Jordan block split
/// by rounding.
pub(crate) const MARGINAL_MULTIPLIER: f64 = MARGINAL;

/// QR iterations allowed to a real Schur form (of a reduced Jacobian, and in the Riccati
/// solve of the Hamiltonian, of A and of the closed loop): a few per eigenvalue converge;
/// 10000 only stops a pathological matrix.
pub(crate) const EIGENVALUE_ITERATIONS: usize = 10_000;

/// A steady motion whose Gauss–Newton steps have stalled at rounding size is accepted
/// when its residual is at most this fraction of the Jacobian's scale: the residual
/// mixes accelerations, constraints and momenta, whose rounding floors differ, so the
/// floor can sit above [`EQUILIBRIUM`] while the state is exact to the last digits.
pub(crate) const STALLED_EQUILIBRIUM: f64 = 1e-10;

// ----- Riccati equation (LQR) and the matrix sign function -----------------------------

/// A weight matrix Q or R is symmetric when Q − Qᵀ is at most this fraction of its largest
/// entry: rounding of a matrix built as a product, not a user's asymmetric input.
pub(crate) const SYMMETRY: f64 = 1e-10;

/// How far below zero, in units of n ε ‖Q‖₂, the smallest eigenvalue of Q may lie and Q
/// still count as positive semidefinite: the eigenvalues of a semidefinite Q formed in
/// floating point (CᵀC, say) and those computed by the eigensolver err by a few n ε ‖Q‖₂.
pub(crate) const SEMIDEFINITE: f64 = 100.0;

/// The singular values of [A B; C 0] (rows of C and columns of B of unit length) below
/// this many (n + m) ε times the largest count as zero when [`lqi`](crate::control::lqi)
/// decides whether the outputs can be held at a reference: a rank decided at rounding
/// level would take the rounding of an exactly singular matrix for rank.
pub(crate) const TRACKABLE_RANK: f64 = 1e3;

/// How many binary orders of magnitude g q must exceed ‖A‖² before a failure is put down
/// to the scaling (checked by solving the problem with a smaller Q).
pub(crate) const RICCATI_TAMING: i32 = 20;

/// Solves allowed, each but the first with the states rescaled by the diagonal of the
/// previous solution (one rescaling is usually enough).
pub(crate) const RICCATI_RESCALING_PASSES: usize = 5;

/// The largest relative residual accepted of a Riccati solution: far above rounding (a
/// solution refined by Newton steps is within a few ε), far below anything useful.
pub(crate) const RICCATI_RESIDUAL: f64 = 1e-8;

/// Iterations allowed to the matrix sign function; with determinant scaling it needs
/// about 10 plus log₂ of the ratio between the largest eigenvalue and the real part
/// closest to zero, so 100 covers every problem whose answer means anything in double
/// precision.
pub(crate) const SIGN_ITERATIONS: usize = 100;

/// Relative change below which the quadratically convergent sign iteration is one step
/// from full precision.
pub(crate) const SIGN_CONVERGED: f64 = 1e-10;

/// When the sign iteration fails, the eigenvalue closest to the imaginary axis is on it if
/// its real part is within this fraction of the matrix's largest entry: √ε = 2⁻²⁶, since
/// the eigenvalues of a Jordan block on the axis are only computed to about that.
pub(crate) const IMAGINARY_AXIS: f64 = 1.0 / (1u64 << 26) as f64;

/// Sweeps allowed to the symplectic balancing of a Hamiltonian; it usually settles in a
/// few, badly scaled problems take some tens.
pub(crate) const BALANCING_SWEEPS: usize = 200;

/// The balancing scales a state by a power of two only when that brings the sum of the
/// magnitudes it changes to at most this fraction of what it was (a drop of 5 %, the rule
/// of Parlett and Reinsch and of LAPACK's balancing): smaller gains are not worth a sweep.
pub(crate) const BALANCING_GAIN: f64 = 0.95;

/// Times the time scaling of a Riccati problem is corrected to bring the largest entry of
/// the scaled blocks to about 1: once is usually enough, since the scaling by a power of
/// two is exact; the others leave room for blocks that first overflowed or underflowed.
pub(crate) const RICCATI_TIME_SCALING_PASSES: usize = 4;

/// The largest entry of the time-scaled blocks counts as about 1 when its binary exponent
/// is at most this far from 0 (the entry between 2⁻¹ and 4).
pub(crate) const RICCATI_TIME_SCALED: i32 = 1;

/// The diagonal of the solution of a scaled Riccati problem counts as near enough to 1,
/// and the states are not rescaled again, when each entry would call for a state scaling
/// of at most 2^this (the entries between about 2⁻⁵ and 2⁵): it is entries that differ by
/// orders of magnitude that make the stable subspace [I; P] ill-conditioned.
pub(crate) const RICCATI_UNIT_DIAGONAL: i32 = 2;

/// The singular values of the least-squares system [W₁₂; W₂₂ + I] P = −[W₁₁ + I; W₂₁]
/// for P from a sign matrix W below this many 2n ε times the largest count as zero (the
/// stable subspace is not the graph of a matrix: no stabilizing solution). W comes out of
/// tens of Newton steps, each with rounding errors of a few ε, so a rank decided nearer to
/// rounding would take noise for rank.
pub(crate) const SUBSPACE_RANK: f64 = 1e3;

/// Iterations allowed to the SVD of that least-squares system; as for
/// [`EIGENVALUE_ITERATIONS`], only a pathological matrix reaches the limit.
pub(crate) const SVD_ITERATIONS: usize = 10_000;

/// Newton (Kleinman) steps allowed to refine a Riccati solution from the sign function:
/// each squares the error of an accurate enough P, so one or two reach rounding; six leave
/// room for the small entries of a graded P, which the sign function gets wrong.
pub(crate) const RICCATI_REFINEMENT_STEPS: usize = 6;

/// A refinement step is kept only while it brings the relative residual below this
/// fraction of the last: one that does not halve it has reached the rounding floor.
pub(crate) const RICCATI_REFINEMENT_PROGRESS: f64 = 0.5;

/// Iterations of the doubling algorithm for the discrete Riccati equation
/// ([`discrete_riccati`](crate::linalg::discrete_riccati)). Each squares the horizon of the
/// control problem it solves (2ᵏ steps after k iterations), and convergence is quadratic
/// once the horizon exceeds the slowest closed-loop time constant: 60 iterations cover a
/// horizon of 2⁶⁰ steps, far past any closed loop whose modes double precision resolves.
pub(crate) const DOUBLING_ITERATIONS: usize = 60;

/// The doubling algorithm has converged when an iteration changes P by at most this
/// much relative to its largest entry: a few units of rounding, since the last steps of a
/// quadratically converging iteration change P by the square of the previous change.
pub(crate) const DOUBLING_STEP: f64 = 1e-14;

/// A multiplier z of a discrete closed loop A − BK counts as inside the unit circle only
/// when |z| < 1 − this many n ε ‖A − BK‖_F: the QR iteration computes the eigenvalues of a
/// matrix within a few n ε ‖A − BK‖ of A − BK, so a multiplier nearer to the circle
/// cannot be told from one on it. A mode the input cannot move at z = 1 comes out at
/// 1 − 2⁻⁵² after the rounding of the data (A = Tᵀ diag(1, ½) T, T a rotation), and the
/// doubling then returns a finite P (about 2e8) for a problem with no stabilizing solution.
/// 100 leaves room for the rounding of K; a closed loop this close to the circle would
/// take more than 10¹³ samples to halve an error (over a year at 100 kHz).
pub(crate) const UNIT_CIRCLE_MARGIN: f64 = 100.0;

/// Newton (Hewer) steps allowed from the stabilizing gain of a problem with a larger Q to
/// the stabilizing solution of a discrete Riccati equation whose Q does not see an unstable
/// mode (which the doubling misses): Newton's method on the Riccati equation converges
/// monotonically, quadratically once near, and at worst linearly with ratio ½ (near a
/// double root, the nearly marginal case), so 50 steps reach rounding from any start.
pub(crate) const HEWER_STEPS: usize = 50;

/// When a Riccati solve has failed, a mode λ of A counts as on the stability boundary
/// (|Re λ| or |1 − |λ||, relative to ‖A‖), and as unreachable or unseen (the smallest
/// singular value of [A − λI, B] or [A − λI; Q] relative to ‖A‖), within √ε = 2⁻²⁶, as
/// [`IMAGINARY_AXIS`]: the eigenvalues of a Jordan block on the boundary are computed only
/// to about that. Used only to name the cause of a failure, never to decide one.
pub(crate) const BOUNDARY_MODE: f64 = IMAGINARY_AXIS;

/// Below this change per iteration, a doubling iteration that no longer halves the change
/// has reached the rounding noise of P and stops (the residual check then decides).
pub(crate) const DOUBLING_STALL: f64 = 1e-10;

// ----- Sampled controllers -------------------------------------------------------------

/// A sampled controller's period must exceed this many times the spacing u of the
/// floating-point numbers at max(|t₀|, |t_end|), the coarsest along the run: a sample time
/// t₀ + k·Ts is a product (up to about 2 max(|t₀|, |t_end|), rounded by at most u) and a
/// sum (rounded by at most u/2), so consecutive ones differ by at least Ts − 3u, which a
/// period above 4u keeps above u: every sample advances the time, to the end of the run.
pub(crate) const SAMPLE_RESOLUTION: f64 = 4.0;

// ----- Linear systems: responses, margins, pole placement ---------------------------

/// Two steps of a continuous response whose lengths differ by at most this fraction share
/// one discretization: the steps of an evenly spaced grid computed in floating point
/// (t₀ + k h) differ in their last bits, and an error of 10⁻¹⁰ of a step in its length is
/// far below what a response is read to.
pub(crate) const SAME_RESPONSE_STEP: f64 = 1e-10;

/// The times of a sampled system's response must be t₀ + k Ts to within this fraction of
/// Ts (times k + 1): the rounding of a grid computed as t₀ + k Ts, not another rate.
pub(crate) const SAMPLE_GRID: f64 = 1e-9;

/// Newton steps allowed to polish a crossover frequency found as a polynomial root.
pub(crate) const CROSSOVER_POLISH_STEPS: usize = 30;

/// A polynomial root counts as real (a crossover candidate, continuous systems) when its
/// imaginary part is at most this fraction of its magnitude (plus an absolute 10⁻¹²): a
/// double root of a loop that only touches |L| = 1 splits into a pair about √ε apart. The
/// candidates are then polished on the state-space response and kept only if the
/// condition holds there (see [`CROSSOVER`]), so a loose filter admits no false crossover.
pub(crate) const CROSSOVER_REAL_ROOT: f64 = 1e-6;

/// A candidate crossover is kept when, after polishing, |L| is 1 (or Im L is 0) to this
/// fraction of |L| (of 1 + |L|); and it must not move by more than [`CROSSOVER_REAL_ROOT`]
/// relative while polished (otherwise it was not a root of the loop but of rounding).
pub(crate) const CROSSOVER: f64 = 1e-9;

/// The number of frequencies, log-spaced over 16 decades (8 below the Nyquist frequency
/// of a sampled loop), on which [`LinearSystem::margins`](crate::control::LinearSystem::margins)
/// brackets the crossings |L| = 1 and Im L = 0 besides the roots of its polynomials, which
/// lose their accuracy for loops of many states with crowded poles (a sampled LQG loop
/// at a fast rate): 250 per decade, so that two crossings closer than 1 % in frequency
/// may still share a bracket (and cancel), which the polynomial roots then catch; each
/// evaluation is one complex LU of the loop's size, a few milliseconds in all.
pub(crate) const MARGIN_GRID: usize = 4000;

/// Pole placement ([`place_with`](crate::control::place_with)) has converged when |det X|
/// (X the unit eigenvectors) changes by less than this fraction in a sweep: SciPy's
/// `place_poles` default `rtol`, so that the iterates are SciPy's.
pub(crate) const PLACE_CONVERGED: f64 = 1e-3;

/// The sweeps allowed to pole placement: SciPy's `place_poles` default `maxiter`.
pub(crate) const PLACE_SWEEPS: usize = 30;
