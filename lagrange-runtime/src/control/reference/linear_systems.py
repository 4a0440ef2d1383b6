#!/usr/bin/env python3
"""Reference values for lagrange_runtime::control::LinearSystem, from python-control and SciPy.

Run from the repository root:

    python3 -m venv /tmp/ctrlvenv && /tmp/ctrlvenv/bin/pip install control scipy numpy
    /tmp/ctrlvenv/bin/python lagrange-runtime/src/control/reference/linear_systems.py

Writes lagrange-runtime/src/control/reference/linear_systems.rs (Rust constants, read by
the unit tests of control/lti_tests.rs). Every value is computed by python-control or SciPy,
never by lagrange:

  * poles: numpy.linalg.eigvals(A), sorted by (real, imaginary) part;
  * dcgain: control.dcgain (absent for a system with a pole at s = 0 / z = 1);
  * ctrb/obsv ranks: numpy.linalg.matrix_rank(control.ctrb(A, B)) (and obsv), NumPy's
    default tolerance;
  * step / impulse: control.step_response / control.impulse_response (one response per
    input, squeeze=False); initial: control.initial_response;
  * lsim (arbitrary inputs, zero-order hold): for continuous systems
    scipy.signal.lsim(..., interp=False) -- python-control's forced_response interpolates
    the input linearly (first-order hold), MATLAB's lsim and lagrange hold it; for sampled
    systems control.forced_response (the difference equation);
  * frequency response: control.frequency_response(sys, omega).complex;
  * margins: control.stability_margins(sys, method='poly') -> (gm, pm, wpc, wgc), the
    'poly' method (exact crossings) forced so that a sampled loop is not evaluated on a grid;
  * place: scipy.signal.place_poles(A, B, poles) (method 'YT'): gain and computed poles;
  * c2d: control.c2d(sys, Ts, 'zoh');
  * the observer-based controller's closed loop (OBSERVER_*): the gains of dlqi and dlqe by
    scipy.linalg.solve_discrete_are, the loop by control.interconnect of the sampled plant
    and the controller written as a state-space system (see observer_loop); the margins of
    the loop broken at the driven input by control.stability_margins.
"""

import math
import pathlib
import warnings

import control as ct
import numpy as np
import scipy
import scipy.signal as sig

OUT = pathlib.Path(__file__).with_name("linear_systems.rs")


def lit(x):
    x = float(x)
    if math.isnan(x):
        return "f64::NAN"
    if math.isinf(x):
        return "f64::INFINITY" if x > 0 else "f64::NEG_INFINITY"
    return repr(x) if ("e" in repr(x) or "." in repr(x)) else repr(x) + ".0"


lines = []
cases, loops, placements = [], [], []


def emit(name, values, doc=None):
    flat = np.asarray(values, dtype=float).ravel()
    if doc:
        lines.append(f"/// {doc}")
    body = ", ".join(lit(v) for v in flat)
    lines.append(f"pub(super) const {name}: [f64; {flat.size}] = [{body}];")


def emit_usize(name, value, doc=None):
    if doc:
        lines.append(f"/// {doc}")
    lines.append(f"pub(super) const {name}: usize = {int(value)};")


def sorted_poles(values):
    return sorted(np.asarray(values, dtype=complex), key=lambda z: (z.real, z.imag))


def system(name, sys, times, x0, u_fn, omegas, describe):
    """Matrices, poles, DC gain, ranks, responses and frequency response of one system."""
    A, B, C, D = (np.asarray(M, dtype=float) for M in (sys.A, sys.B, sys.C, sys.D))
    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    lines.append(f"\n// ----- {name}: {describe} -----")
    emit(f"{name}_A", A, f"A, {n} x {n}, row by row.")
    emit(f"{name}_B", B, f"B, {n} x {m}.")
    emit(f"{name}_C", C, f"C, {p} x {n}.")
    emit(f"{name}_D", D, f"D, {p} x {m}.")
    emit(f"{name}_PERIOD", [sys.dt if ct.isdtime(sys, strict=True) else 0.0],
         "The sample period (0 for a continuous system).")
    poles = sorted_poles(np.linalg.eigvals(A))
    emit(f"{name}_POLES", [[z.real, z.imag] for z in poles],
         "The poles (re, im), sorted by real then imaginary part.")
    try:
        with np.errstate(all="ignore"):
            dc = np.asarray(ct.dcgain(sys), dtype=float).reshape(p, m)
    except NotImplementedError:  # python-control's dcgain of a singular non-square system
        dc = np.full((p, m), np.inf)
    if np.all(np.isfinite(dc)):
        emit(f"{name}_DCGAIN", dc, "control.dcgain, p x m.")
    cases.append((name, np.all(np.isfinite(dc))))
    emit_usize(f"{name}_CTRB_RANK", np.linalg.matrix_rank(ct.ctrb(A, B)), "rank ctrb(A, B).")
    emit_usize(f"{name}_OBSV_RANK", np.linalg.matrix_rank(ct.obsv(A, C)), "rank obsv(A, C).")
    emit(f"{name}_TIMES", times, "The time grid of the responses.")
    step = ct.step_response(sys, times, squeeze=False)
    emit(f"{name}_STEP", step.outputs.transpose(1, 0, 2),
         "step_response outputs, [input][output][time].")
    impulse = ct.impulse_response(sys, times, squeeze=False)
    emit(f"{name}_IMPULSE", impulse.outputs.transpose(1, 0, 2),
         "impulse_response outputs, [input][output][time].")
    emit(f"{name}_X0", x0, "The initial state of initial and lsim.")
    initial = ct.initial_response(sys, times, x0, squeeze=False)
    emit(f"{name}_INITIAL", initial.outputs, "initial_response outputs, [output][time].")
    u = np.array([[u_fn(i, t) for t in times] for i in range(m)])
    emit(f"{name}_U", u, "The inputs of lsim, [input][time].")
    if ct.isdtime(sys, strict=True):
        forced = ct.forced_response(sys, times, u, x0, squeeze=False)
        y, x = forced.outputs, forced.states
    else:
        _, y, x = sig.lsim((A, B, C, D), u.T, times, x0, interp=False)
        y, x = np.atleast_2d(y.T).reshape(p, -1), np.atleast_2d(x.T).reshape(n, -1)
    emit(f"{name}_LSIM", y, "lsim outputs (zero-order hold), [output][time].")
    emit(f"{name}_LSIM_STATES", x, "lsim states, [state][time].")
    emit(f"{name}_OMEGA", omegas, "The frequencies of the frequency response, rad/s.")
    g = ct.frequency_response(sys, omegas, squeeze=False).complex  # p x m x w
    g = g.transpose(2, 0, 1)
    emit(f"{name}_FRESP", np.stack([g.real, g.imag], axis=-1),
         "frequency_response, [frequency][output][input][re, im].")


def margins(name, sys, describe):
    gm, pm, _sm, wpc, wgc, _wms = ct.stability_margins(sys, method="poly")
    loops.append(name)
    lines.append(f"\n// ----- {name}: {describe} -----")
    A, B, C, D = (np.asarray(M, dtype=float) for M in (sys.A, sys.B, sys.C, sys.D))
    emit(f"{name}_A", A)
    emit(f"{name}_B", B)
    emit(f"{name}_C", C)
    emit(f"{name}_D", D)
    emit(f"{name}_PERIOD", [sys.dt if ct.isdtime(sys, strict=True) else 0.0])
    emit(f"{name}_MARGINS", [gm, pm, wpc, wgc],
         "stability_margins(method='poly'): gain margin, phase margin (deg), "
         "phase crossover, gain crossover (rad/s).")
    # The crossings python-control reports are crossings of this system.
    if np.isfinite(wgc):
        z = np.exp(1j * wgc * sys.dt) if ct.isdtime(sys, strict=True) else 1j * wgc
        assert abs(abs(sys(z)[0][0] if np.ndim(sys(z)) else sys(z)) - 1) < 1e-9, name


def placement(name, A, B, poles, describe):
    result = sig.place_poles(A, B, poles)
    placements.append(name)
    lines.append(f"\n// ----- {name}: {describe} -----")
    emit(f"{name}_A", A)
    emit(f"{name}_B", B)
    emit(f"{name}_POLES", [[z.real, z.imag] for z in np.asarray(poles, dtype=complex)],
         "The requested poles (re, im).")
    emit(f"{name}_GAIN", result.gain_matrix, "scipy.signal.place_poles gain_matrix (YT).")
    emit(f"{name}_COMPUTED", [[z.real, z.imag] for z in sorted_poles(result.computed_poles)],
         "Its computed poles, sorted.")


# ----- The systems -----------------------------------------------------------------------

# A mass on a spring and a damper: m x'' + c x' + k x = f, m = 2, c = 0.6, k = 8; y = x.
msd = ct.ss([[0, 1], [-4, -0.3]], [[0], [0.5]], [[1, 0]], [[0]])
t_msd = np.linspace(0, 10, 201)
system("MSD", msd, t_msd, [0.3, -0.2],
       lambda i, t: math.sin(1.3 * t) + (0.5 if t > 4 else 0.0),
       np.logspace(-1, 1.5, 25), "a mass-spring-damper, y = x")

# An inverted pendulum on a cart (the CTMS model): M = 0.5, m = 0.2, b = 0.1, I = 0.006,
# g = 9.8, l = 0.3; states (x, x', phi, phi'), input the force, outputs x and phi.
M_, m_, b_, I_, g_, l_ = 0.5, 0.2, 0.1, 0.006, 9.8, 0.3
den = I_ * (M_ + m_) + M_ * m_ * l_**2
A_pend = np.array([
    [0, 1, 0, 0],
    [0, -(I_ + m_ * l_**2) * b_ / den, (m_**2 * g_ * l_**2) / den, 0],
    [0, 0, 0, 1],
    [0, -(m_ * l_ * b_) / den, m_ * g_ * l_ * (M_ + m_) / den, 0],
])
B_pend = np.array([[0], [(I_ + m_ * l_**2) / den], [0], [m_ * l_ / den]])
C_pend = np.array([[1, 0, 0, 0], [0, 0, 1, 0]])
pend = ct.ss(A_pend, B_pend, C_pend, np.zeros((2, 1)))
system("PENDULUM", pend, np.linspace(0, 1, 101), [0.0, 0.0, 0.05, 0.0],
       lambda i, t: 0.2 * math.cos(3 * t),
       np.logspace(-1, 2, 16),
       "an inverted pendulum on a cart (unstable, a pole at 0), outputs x and phi")

# A MIMO system, 4 states, 2 inputs, 3 outputs, with feedthrough.
A_mimo = np.array([
    [-0.5, 1.0, 0.2, 0.0],
    [-2.0, -0.4, 0.0, 0.3],
    [0.1, 0.0, -1.5, 2.0],
    [0.0, -0.2, -3.0, -0.8],
])
B_mimo = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.2], [0.0, 1.0]])
C_mimo = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.5], [0.2, 1.0, 0.0, 0.0]])
D_mimo = np.array([[0.0, 0.1], [0.0, 0.0], [0.3, 0.0]])
mimo = ct.ss(A_mimo, B_mimo, C_mimo, D_mimo)
system("MIMO", mimo, np.linspace(0, 8, 161), [1.0, 0.0, -0.5, 0.2],
       lambda i, t: math.sin((1 + i) * t) if i == 0 else (1.0 if 1 < t < 3 else -0.5),
       np.logspace(-2, 2, 21), "a MIMO system: 4 states, 2 inputs, 3 outputs, D != 0")

# The mass-spring-damper sampled at 10 Hz (zero-order hold).
msd_d = ct.c2d(msd, 0.1, "zoh")
system("SAMPLED", msd_d, 0.1 * np.arange(81), [0.3, -0.2],
       lambda i, t: math.sin(1.3 * t) + (0.5 if t > 4 else 0.0),
       np.linspace(0.05, 31.0, 25), "the mass-spring-damper sampled at 10 Hz by control.c2d")

# Marginal: a motor's position, 1/(s (s + 1)) with a pole at s = 0 (no DC gain).
motor = ct.ss([[0, 1], [0, -1]], [[0], [1]], [[1, 0]], [[0]])
system("MARGINAL", motor, np.linspace(0, 5, 51), [1.0, 0.5],
       lambda i, t: 1.0 - 0.2 * t,
       np.logspace(-1, 1, 9), "a pole at s = 0: position of a motor 1/(s (s + 1))")

# Uncontrollable and unobservable: two decoupled lags, one driven, one seen.
unc = ct.ss([[-1, 0], [0, -2]], [[1], [0]], [[0, 1]], [[0]])
system("UNCONTROLLABLE", unc, np.linspace(0, 3, 31), [1.0, 1.0],
       lambda i, t: 1.0, np.logspace(-1, 1, 5),
       "two decoupled lags: the first driven, the second seen (ranks 1 and 1)")

# ----- Margins of loops ------------------------------------------------------------------

margins("LOOP_MSD", ct.ss(msd.A, msd.B, 10 * msd.C, msd.D),
        "10 times the mass-spring-damper: a gain crossover, no phase crossover")
third = ct.ss([[-1, 1, 0], [0, -1, 1], [0, 0, -1]], [[0], [0], [4]], [[1, 0, 0]], [[0]])
margins("LOOP_THIRD", third, "4/(s + 1)^3: gain margin 2 at sqrt(3)")
margins("LOOP_MOTOR", ct.ss(motor.A, motor.B, 2 * motor.C, motor.D),
        "2/(s (s + 1)): a pole at 0, a phase margin only")
margins("LOOP_SAMPLED", ct.c2d(third, 0.1, "zoh"), "4/(s + 1)^3 sampled at 10 Hz")
lead = ct.ss([[-10.0, 0.0, 0.0], [1.0, -1.0, 0.0], [0.0, 1.0, -0.5]],
             [[1.0], [0.0], [0.0]], [[0.0, 0.0, 15.0]], [[0.0]]) * ct.ss([[-5.0]], [[1.0]], [[-4.0]], [[2.0]])
margins("LOOP_LEAD", ct.ss(lead.A, lead.B, lead.C, lead.D),
        "a third-order plant with a lead compensator (D != 0 in the compensator)")

# ----- Pole placement --------------------------------------------------------------------

placement("PLACE_PENDULUM", A_pend, B_pend,
          [-2.0, -3.0, -4.0 + 1.0j, -4.0 - 1.0j],
          "the pendulum on its cart, one input: the gain is unique")
placement("PLACE_MSD", np.asarray(msd.A), np.asarray(msd.B), [-3.0 + 2.0j, -3.0 - 2.0j],
          "the mass-spring-damper, one input, a complex pair")
placement("PLACE_MIMO", A_mimo, B_mimo, [-1.0, -2.0, -3.0 + 1.5j, -3.0 - 1.5j],
          "the MIMO system, two inputs (YT iterations; the gain is not unique)")
placement("PLACE_MIMO_REAL", A_mimo, B_mimo, [-1.0, -2.0, -3.0, -4.0],
          "the MIMO system, two inputs, real poles")
placement("PLACE_REPEATED", A_mimo, B_mimo, [-2.0, -2.0, -3.0, -4.0],
          "the MIMO system, a pole twice (= rank B)")
placement("PLACE_SAMPLED", np.asarray(msd_d.A), np.asarray(msd_d.B), [0.5, 0.6],
          "the sampled mass-spring-damper, poles z = 0.5, 0.6")

# ----- An observer-based controller (ObserverController) ----------------------------------

def observer_loop(name, d_q, d_qd, d_u, driven, C, tracked, Ts, Q, R, W, V, describe):
    """The closed loop of an LQG tracker (dlqe's measurement update, dlqi's integral of the
    measured tracked outputs), built by python-control's interconnect of the plant and the
    controller as two state-space systems; the gains by SciPy's solve_discrete_are."""
    d_q, d_qd, d_u, C = (np.asarray(M, dtype=float) for M in (d_q, d_qd, d_u, C))
    N, Mi = d_u.shape
    A = np.block([[np.zeros((N, N)), np.eye(N)], [d_q, d_qd]])
    Ball = np.vstack([np.zeros((N, Mi)), d_u])
    undriven = [j for j in range(Mi) if j not in driven]
    sysd = ct.c2d(ct.ss(A, Ball, C, np.zeros((C.shape[0], Mi))), Ts, "zoh")
    Ad, Bd_all = np.asarray(sysd.A), np.asarray(sysd.B)
    Bd, Bw = Bd_all[:, driven], Bd_all[:, undriven]
    n, m, p, t, w = A.shape[0], len(driven), C.shape[0], len(tracked), len(undriven)
    Ct = C[tracked, :]
    # dlqi: the augmented plant (x, xi), xi' = xi + Ts (r - Ct x).
    Aa = np.block([[Ad, np.zeros((n, t))], [-Ts * Ct, np.eye(t)]])
    Ba = np.vstack([Bd, np.zeros((t, m))])
    P = scipy.linalg.solve_discrete_are(Aa, Ba, Q, R)
    K = np.linalg.solve(R + Ba.T @ P @ Ba, Ba.T @ P @ Aa)
    Kx, Kxi = K[:, :n], K[:, n:]
    # dlqe: the prior covariance and the measurement-update gain M = P C' (C P C' + V)^-1.
    Pe = scipy.linalg.solve_discrete_are(Ad.T, C.T, W, V)
    Mg = Pe @ C.T @ np.linalg.inv(C @ Pe @ C.T + V)
    F = np.eye(n) - Mg @ C
    S = np.eye(p)[tracked, :]
    # The controller: states (xi, x_hat_prior), inputs (y, r), output u.
    Ac = np.block([[np.eye(t), np.zeros((t, n))], [-Bd @ Kxi, (Ad - Bd @ Kx) @ F]])
    Bc = np.block([[-Ts * S, Ts * np.eye(t)], [(Ad - Bd @ Kx) @ Mg, np.zeros((n, t))]])
    Cc = np.hstack([-Kxi, -Kx @ F])
    Dc = np.hstack([-Kx @ Mg, np.zeros((m, t))])
    ynames = [f"y{i}" for i in range(p)]
    unames = [f"u{i}" for i in range(m)]
    wnames = [f"w{i}" for i in range(w)]
    rnames = [f"r{i}" for i in range(t)]
    plant = ct.ss(Ad, np.hstack([Bd, Bw]), C, np.zeros((p, m + w)), Ts,
                  inputs=unames + wnames, outputs=ynames, name="plant")
    ctrl = ct.ss(Ac, Bc, Cc, Dc, Ts, inputs=ynames + rnames, outputs=unames, name="ctrl")
    loop = ct.interconnect([plant, ctrl], inplist=rnames + wnames, outlist=ynames + unames)
    lines.append(f"\n// ----- {name}: {describe} -----")
    emit(f"{name}_DQ", d_q, "The linearization's d_q, N x N.")
    emit(f"{name}_DQD", d_qd, "d_qd, N x N.")
    emit(f"{name}_DU", d_u, "d_u, N x M.")
    emit(f"{name}_C", C, "The measured outputs C, p x 2N.")
    emit(f"{name}_TS", [Ts], "The sample period.")
    emit(f"{name}_Q", Q, "The weight of dlqi on (x, xi).")
    emit(f"{name}_R", R, "The weight of dlqi on the driven inputs.")
    emit(f"{name}_W", W, "The process noise covariance of dlqe.")
    emit(f"{name}_V", V, "The measurement noise covariance of dlqe.")
    emit(f"{name}_K", K, "dlqi's K = [Kx Kxi] by scipy.linalg.solve_discrete_are.")
    emit(f"{name}_M", Mg, "dlqe's measurement-update gain, by scipy.linalg.solve_discrete_are.")
    emit(f"{name}_CLOSED_A", loop.A, "The closed loop of control.interconnect: A, state (x, xi, x_hat_prior).")
    emit(f"{name}_CLOSED_B", loop.B, "Its B: inputs (r, the undriven inputs).")
    emit(f"{name}_CLOSED_C", loop.C, "Its C: outputs (y, u).")
    emit(f"{name}_CLOSED_D", loop.D, "Its D.")
    poles = sorted_poles(np.linalg.eigvals(loop.A))
    emit(f"{name}_CLOSED_POLES", [[z.real, z.imag] for z in poles],
         "numpy.linalg.eigvals of the closed loop, sorted.")
    # The loop broken at the driven input: L = -K_y(z) P(z), the controller from y alone.
    Ky = ct.ss(Ac, Bc[:, :p], Cc, Dc[:, :p], Ts)
    Pu = ct.ss(Ad, Bd, C, np.zeros((p, m)), Ts)
    with warnings.catch_warnings():
        # The 'poly' method is inaccurate for this loop; python-control falls back to
        # its frequency-response method ('frd') and says so.
        warnings.simplefilter("ignore")
        gm, pm, _, wpc, wgc, _ = ct.stability_margins(-ct.series(Pu, Ky))
    emit(f"{name}_LOOP_MARGINS", [gm, pm, wpc, wgc],
         "control.stability_margins of the loop broken at the driven input (its 'frd' "
         "fallback, interpolated on a grid): (gm, pm, wpc, wgc).")


# A cart (q0) with a pendulum (q1), a force on the cart (driven) and a push on the pendulum
# (not driven); both positions measured, the cart's tracked; 100 Hz.
observer_loop("OBSERVER",
              [[0.0, -0.98], [0.0, 21.56]], [[-0.1, 0.0], [0.1, -0.05]],
              [[1.0, -0.5], [-1.0, 2.0]], [0],
              [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]], [0], 0.01,
              np.diag([10.0, 100.0, 1.0, 1.0, 50.0]), np.array([[0.5]]),
              np.diag([1e-6, 1e-6, 1e-3, 1e-3]), np.diag([1e-4, 1e-5]),
              "a cart-pendulum, force driven, push not; cart tracked")

header = f'''//! Reference values for the tests of [`LinearSystem`](super::LinearSystem), generated by
//! `linear_systems.py` beside this file with python-control {ct.__version__}, SciPy
//! {scipy.__version__} and NumPy {np.__version__}. Do not edit: run the script again (see its
//! docstring for what each constant holds and which function computed it).
'''

lines.append("""
/// One system of the reference: its matrices and what python-control and SciPy computed.
pub(super) struct Case {
    pub(super) name: &'static str,
    pub(super) a: &'static [f64],
    pub(super) b: &'static [f64],
    pub(super) c: &'static [f64],
    pub(super) d: &'static [f64],
    pub(super) period: f64,
    pub(super) poles: &'static [f64],
    pub(super) dc_gain: Option<&'static [f64]>,
    pub(super) ctrb_rank: usize,
    pub(super) obsv_rank: usize,
    pub(super) times: &'static [f64],
    pub(super) step: &'static [f64],
    pub(super) impulse: &'static [f64],
    pub(super) x0: &'static [f64],
    pub(super) initial: &'static [f64],
    pub(super) u: &'static [f64],
    pub(super) lsim: &'static [f64],
    pub(super) lsim_states: &'static [f64],
    pub(super) omega: &'static [f64],
    pub(super) fresp: &'static [f64],
}

/// A loop transfer function and its margins.
pub(super) struct Loop {
    pub(super) name: &'static str,
    pub(super) a: &'static [f64],
    pub(super) b: &'static [f64],
    pub(super) c: &'static [f64],
    pub(super) d: &'static [f64],
    pub(super) period: f64,
    pub(super) margins: &'static [f64],
}

/// A pole placement by scipy.signal.place_poles.
pub(super) struct Placed {
    pub(super) name: &'static str,
    pub(super) a: &'static [f64],
    pub(super) b: &'static [f64],
    pub(super) poles: &'static [f64],
    pub(super) gain: &'static [f64],
    pub(super) computed: &'static [f64],
}
""")
fields = ["A", "B", "C", "D"]
body = []
for name, has_dc in cases:
    dc = f"Some(&{name}_DCGAIN)" if has_dc else "None"
    body.append(f"""    Case {{
        name: "{name}",
        a: &{name}_A, b: &{name}_B, c: &{name}_C, d: &{name}_D, period: {name}_PERIOD[0],
        poles: &{name}_POLES, dc_gain: {dc},
        ctrb_rank: {name}_CTRB_RANK, obsv_rank: {name}_OBSV_RANK,
        times: &{name}_TIMES, step: &{name}_STEP, impulse: &{name}_IMPULSE,
        x0: &{name}_X0, initial: &{name}_INITIAL, u: &{name}_U, lsim: &{name}_LSIM,
        lsim_states: &{name}_LSIM_STATES, omega: &{name}_OMEGA, fresp: &{name}_FRESP,
    }},""")
lines.append(f"pub(super) const CASES: [Case; {len(cases)}] = [\n" + "\n".join(body) + "\n];")
body = [f"""    Loop {{ name: "{n}", a: &{n}_A, b: &{n}_B, c: &{n}_C, d: &{n}_D, period: {n}_PERIOD[0], margins: &{n}_MARGINS }},""" for n in loops]
lines.append(f"pub(super) const LOOPS: [Loop; {len(loops)}] = [\n" + "\n".join(body) + "\n];")
body = [f"""    Placed {{ name: "{n}", a: &{n}_A, b: &{n}_B, poles: &{n}_POLES, gain: &{n}_GAIN, computed: &{n}_COMPUTED }},""" for n in placements]
lines.append(f"pub(super) const PLACEMENTS: [Placed; {len(placements)}] = [\n" + "\n".join(body) + "\n];")
OUT.write_text(header + "\n".join(lines) + "\n")
print(f"wrote {OUT}")
