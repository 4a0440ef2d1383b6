//! The Whipple bicycle benchmark of Meijaard, Papadopoulos, Ruina and Schwab, "Linearized
//! dynamics equations for the balance and steer of a bicycle: a benchmark and review",
//! Proc. R. Soc. A 463 (2007): the model, the paper's Table 2 and the analysis that
//! reproduces it. Shared by `tests/bicycle.rs` and `examples/bicycle.rs`.

use lagrange_runtime::nalgebra::Complex;
use lagrange_runtime::prelude::*;
use lagrange_runtime::steady::{steady_motion, SteadyMotion, Turning};

lagrangian! {
    /// The Whipple bicycle: rear wheel R, rear frame B (with the rider), front frame H
    /// (handlebar and fork) and front wheel F, knife-edge wheels rolling without slipping
    /// on level ground. Parameters of the paper's Table 1, in its axes: x forward, y to the
    /// right, z down, every body's inertia about its centre of mass in the reference
    /// configuration (upright, straight, every angle zero).
    pub struct Bicycle {
        parameters: w = 1.02, c = 0.08, lam = pi/10, g = 9.81,
                    rR = 0.3, mR = 2.0, IRxx = 0.0603, IRyy = 0.12,
                    xB = 0.3, zB = -0.9, mB = 85.0,
                    IBxx = 9.2, IByy = 11.0, IBzz = 2.8, IBxz = 2.4,
                    xH = 0.9, zH = -0.7, mH = 4.0,
                    IHxx = 0.05892, IHyy = 0.06, IHzz = 0.00708, IHxz = -0.00756,
                    rF = 0.35, mF = 3.0, IFxx = 0.1405, IFyy = 0.28;
        // The rear contact point (x, y), yaw, lean (roll), the rear frame's pitch, steer,
        // and the rotations of the wheels relative to their frames.
        coordinates: x, y, psi, phi, theta, delta, thetaR, thetaF;

        let RY = rot_z(psi) * rot_x(phi);                  // the rear wheel's plane
        let RB = RY * rot_y(theta);                        // rear frame
        let RR = RB * rot_y(thetaR);                       // rear wheel
        let RH = RB * rot([sin(lam), 0, cos(lam)], delta); // front frame, about the steer axis
        let RF = RH * rot_y(thetaF);                       // front wheel
        let P = [x, y, 0];                                 // rear contact point
        let cR = P + RY * [0, 0, -rR];                     // rear wheel centre
        let S = cR + RB * [w + c, 0, rR];                  // the steer axis's ground point at rest
        let pB = cR + RB * [xB, 0, zB + rR];
        let pH = S + RH * [xH - w - c, 0, zH];
        let cF = S + RH * [-c, 0, -rF];                    // front wheel centre
        let a = RH * [0, 1, 0];                            // front axle
        let down = [0, 0, 1];
        // The lowest point of the front wheel: from its centre, down within its plane.
        let contactF = cF + rF * (down - a.z * a) / sqrt(1 - a.z^2);
        let wR = body_angular_velocity(RR);
        let wB = body_angular_velocity(RB);
        let wH = body_angular_velocity(RH);
        let wF = body_angular_velocity(RF);
        // Velocities of the wheels' material points at the contacts.
        let vR = dot(cR) + cross(angular_velocity(RR), P - cR);
        let vF = dot(cF) + cross(angular_velocity(RF), contactF - cF);

        kinetic = mR/2 * dot(cR)^2 + inner(wR, diag(IRxx, IRyy, IRxx) * wR)/2
                + mB/2 * dot(pB)^2 + inner(wB, [[IBxx, 0, IBxz], [0, IByy, 0], [IBxz, 0, IBzz]] * wB)/2
                + mH/2 * dot(pH)^2 + inner(wH, [[IHxx, 0, IHxz], [0, IHyy, 0], [IHxz, 0, IHzz]] * wH)/2
                + mF/2 * dot(cF)^2 + inner(wF, diag(IFxx, IFyy, IFxx) * wF)/2;
        potential = -g * (mR * cR.z + mB * pB.z + mH * pH.z + mF * cF.z);

        constraint front_contact = contactF.z;             // the front wheel touches the ground
        constraint rear_rolling = [vR.x, vR.y];
        constraint front_rolling = [vF.x, vF.y];
    }
}

/// Table 2 of the paper: at v = 0, 1, …, 10 m/s, the weave pair (real part, imaginary
/// part), capsize and castering. At v = 0 the four are real: ±3.13164324790656 and
/// ±5.53094371765393, listed separately in [`STANDING`].
// The digits as the paper prints them, trailing zeros included.
#[allow(clippy::excessive_precision)]
pub const TABLE_2: [(f64, (f64, f64), f64, f64); 10] = [
    (
        1.0,
        (3.52696170990070, 0.80774027519930),
        -3.13423125066578,
        -7.11008014637442,
    ),
    (
        2.0,
        (2.68234517512745, 1.68066296590675),
        -3.07158645641514,
        -8.67387984831735,
    ),
    (
        3.0,
        (1.70675605663975, 2.31582447384325),
        -2.63366137253667,
        -10.35101467245920,
    ),
    (
        4.0,
        (0.41325331521125, 3.07910818603206),
        -1.42944427361326,
        -12.15861426576450,
    ),
    (
        5.0,
        (-0.77534188219585, 4.46486771378823),
        -0.32286642900409,
        -14.07838969279820,
    ),
    (
        6.0,
        (-1.52644486584142, 5.87673060598709),
        -0.00406690076970,
        -16.08537123098030,
    ),
    (
        7.0,
        (-2.13875644258362, 7.19525913329805),
        0.10268170574766,
        -18.15788466125262,
    ),
    (
        8.0,
        (-2.69348683581097, 8.46037971396931),
        0.14327879765713,
        -20.27940894394569,
    ),
    (
        9.0,
        (-3.21675402252485, 9.69377351531791),
        0.15790184030917,
        -22.43788559040858,
    ),
    (
        10.0,
        (-3.72016840437287, 10.90681139476287),
        0.16105338653172,
        -24.62459635017404,
    ),
];

/// The four eigenvalues standing still (v = 0), in ascending order.
pub const STANDING: [f64; 4] = [
    -5.53094371765393,
    -3.13164324790656,
    3.13164324790656,
    5.53094371765393,
];

/// The weave and capsize speeds of §5 of the paper, where the bicycle becomes and stops
/// being self-stable.
pub const WEAVE_SPEED: f64 = 4.29238253634111;
/// See [`WEAVE_SPEED`].
pub const CAPSIZE_SPEED: f64 = 6.02426201538837;

/// Upright, straight running at forward speed `v`: the rear wheel turns at −v/r_R, every
/// other velocity follows from the constraints.
pub fn straight_running(bike: &Bicycle, v: f64) -> Result<SteadyMotion<8>, DynamicsError> {
    let upright = State::at_rest(SVector::zeros());
    steady_motion(
        bike,
        &upright,
        &[("thetaR", Turning::Rate(-v / bike.rR))],
        &SVector::zeros(),
    )
}

/// The eigenvalues of a steady motion split into the lean and steer motion's (the modes
/// that move φ or δ: the four of Table 2) and the others (the cyclic coordinates and the
/// conserved speed: zero).
pub fn lean_and_steer(motion: &SteadyMotion<8>) -> (Vec<Complex<f64>>, Vec<Complex<f64>>) {
    let (mut lateral, mut other) = (Vec::new(), Vec::new());
    for mode in motion.spectrum.modes() {
        let size = |v: &SVector<Complex<f64>, 8>| v.iter().map(|z| z.norm()).fold(0.0, f64::max);
        let whole = size(&mode.positions).max(size(&mode.velocities));
        let lean_steer = [3, 5]
            .iter()
            .map(|&i| mode.positions[i].norm().max(mode.velocities[i].norm()))
            .fold(0.0, f64::max);
        if lean_steer > 1e-6 * whole {
            lateral.push(mode.eigenvalue);
        } else {
            other.push(mode.eigenvalue);
        }
    }
    (lateral, other)
}

/// The real part of the weave pair at speed `v` (the complex pair of the lean and steer
/// motion; it exists above the bifurcation speed 0.684 m/s).
pub fn weave_real_part(bike: &Bicycle, v: f64) -> f64 {
    let motion = straight_running(bike, v).expect("straight running");
    motion
        .spectrum
        .eigenvalues
        .iter()
        .filter(|l| l.im.abs() > 0.5)
        .map(|l| l.re)
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The capsize eigenvalue at speed `v`, for speeds where the weave pair and castering are
/// far from zero (2 to 10 m/s): the sum of the eigenvalues of modulus below 1. Near the
/// capsize speed it meets the zero eigenvalues of the cyclic coordinates, which come in
/// pairs ±ε when rounding splits them, so the sum (the trace of that invariant subspace)
/// is the capsize eigenvalue to rounding even where the modes cannot be told apart.
pub fn capsize_eigenvalue(bike: &Bicycle, v: f64) -> f64 {
    let motion = straight_running(bike, v).expect("straight running");
    motion
        .spectrum
        .eigenvalues
        .iter()
        .filter(|l| l.norm() < 1.0)
        .map(|l| l.re)
        .sum()
}

/// The speed in `[lo, hi]` where `f` changes sign, by bisection to `tolerance`.
pub fn bisect(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64, tolerance: f64) -> f64 {
    let sign_lo = f(lo) > 0.0;
    assert_ne!(sign_lo, f(hi) > 0.0, "no sign change in [{lo}, {hi}]");
    while hi - lo > tolerance {
        let mid = 0.5 * (lo + hi);
        if (f(mid) > 0.0) == sign_lo {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}
