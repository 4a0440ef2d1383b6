//! A quadruped on its feet: the Solo-12, read from its URDF, stands on four feet under a
//! whole-body controller, shifts its weight, lifts a foot, puts it down, and is dropped from
//! 5 cm onto its feet.
//!
//! ```sh
//! cargo run --release --example solo12_standing
//! ```
//!
//! The model is `tests/robots/solo12.urdf` on a floating base (`floating`), a torque on
//! each of its twelve joints (`actuated`), and its four feet declared as candidate contacts
//! (`contact fl = FL_FOOT_p;` …): which of them hold the ground is chosen at run time.
//!
//! The controller is inverse dynamics with contacts, written from the frame Jacobians that
//! `Solo::jacobians` gives (the feet's, the centre of mass's `urdf_com`, the base's
//! angular velocity) and their drifts:
//!
//! 1. the accelerations q̈* that make every task exact: each standing foot at rest
//!    (J q̈ + J̇ q̇ = 0), a lifted foot along its path, the centre of mass along its plan
//!    and the base level (each a critically damped PD on its error), and the base's unit
//!    quaternion: 19 equations for 19 unknowns;
//! 2. the contact forces and torques that produce q̈*: M q̈* − (the rest) = Sᵀ τ + J_cᵀ f
//!    (+ the quaternion's constraint force); the base's rows give f (of least norm, the
//!    tangential components weighted 25 times the normal ones: the forces that lean on
//!    friction least), the joints' rows then τ.
//!
//! `Solo::holding(&active, gain)` is the model with a set of feet held, a `Dynamics` that
//! a `Simulation` runs; its accelerations are `contact_dynamics`', which with these
//! torques are q̈* again, so the tasks are followed to the integrator's error. The example
//! checks that the contact forces it planned are those `contact_dynamics` finds, that the
//! feet push on the ground (f_z > 0) inside a friction cone of μ = 0.6, and that the
//! lifted foot comes back to rest. For the drop, the robot falls with its joints held by a
//! PD law until its feet reach the ground (an event), `impulse_dynamics` gives the
//! velocities just after the landing (inelastic: the feet stop), and the controller then
//! brings the body back to its height on four feet. It writes
//! `target/plots/solo12_standing.png`: the height of the centre of mass, the normal
//! contact forces, the friction-cone ratio, and the robot seen from the side and from
//! behind.

mod common;

use common::{figure, Panel, SeriesLabelPosition};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{Event, Rk4, Simulation};
use lagrange_runtime::Jacobian;

lagrangian! {
    /// The Solo-12 quadruped on a floating base, its twelve joints torque-controlled, its
    /// feet candidate point contacts.
    pub struct Solo {
        urdf: "tests/robots/solo12.urdf" floating actuated;
        // The base's angular velocity in world axes, for its Jacobian.
        let base_w = angular_velocity(base_link_R);
        contact fl = FL_FOOT_p;
        contact fr = FR_FOOT_p;
        contact hl = HL_FOOT_p;
        contact hr = HR_FOOT_p;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

type V3 = SVector<f64, 3>;
type U = SVector<f64, 12>;

/// The task gains: critically damped at ω (1/s).
const OMEGA: f64 = 15.0;
/// The friction coefficient the contact forces must respect.
const MU: f64 = 0.6;
/// How high the lifted foot goes (m), and how far the robot is dropped (m).
const LIFT: f64 = 0.04;
const DROP: f64 = 0.05;
/// The velocity gain (1/s) that keeps held feet from drifting in the integration.
const HOLD_GAIN: f64 = 20.0;

/// The joints of the standing posture: hips forward, knees back (front legs), mirrored for
/// the hind legs.
fn posture() -> [f64; 12] {
    [
        0.0, 0.8, -1.6, 0.0, 0.8, -1.6, 0.0, -0.8, 1.6, 0.0, -0.8, 1.6,
    ]
}

/// Every coordinate: the base at `height`, level, the joints in `posture`.
fn standing_q(height: f64) -> SVector<f64, 19> {
    let mut q = SVector::<f64, 19>::zeros();
    q[2] = height;
    q[3] = 1.0;
    q.fixed_rows_mut::<12>(7).copy_from_slice(&posture());
    q
}

/// A smooth step from 0 to 1 over [t0, t1] (minimum jerk) and its two derivatives.
fn smooth(t: f64, t0: f64, t1: f64) -> [f64; 3] {
    let d = t1 - t0;
    let x = ((t - t0) / d).clamp(0.0, 1.0);
    if x <= 0.0 || x >= 1.0 {
        return [x, 0.0, 0.0];
    }
    let s = x * x * x * (10.0 - 15.0 * x + 6.0 * x * x);
    let ds = 30.0 * x * x * (1.0 - x) * (1.0 - x) / d;
    let dds = 60.0 * x * (1.0 - 3.0 * x + 2.0 * x * x) / (d * d);
    [s, ds, dds]
}

/// Where a task should be: position, velocity, acceleration.
type Target = [V3; 3];

/// The plan of a phase: which feet hold the ground, where the centre of mass goes, and the
/// path of each lifted foot.
struct Plan {
    active: SoloContacts,
    com: Box<dyn Fn(f64) -> Target>,
    swing: Box<dyn Fn(f64) -> Target>,
}

/// A path from `a` to `b` over [t0, t1], smooth.
fn between(a: V3, b: V3, t0: f64, t1: f64) -> impl Fn(f64) -> Target {
    move |t| {
        let [s, ds, dds] = smooth(t, t0, t1);
        [a + (b - a) * s, (b - a) * ds, (b - a) * dds]
    }
}

/// What the controller computes at a state: the torques, and the contact forces it plans.
struct Command {
    torques: U,
    forces: [V3; 4],
}

/// Inverse dynamics with contacts (the module docs): the torques that make every task of
/// `plan` exact at the state `s`, and the contact forces that come with them.
fn control(solo: &Solo, plan: &Plan, s: &State<19>) -> Command {
    let none = U::zeros();
    let j = solo.jacobians(s, &none);
    let feet: [(&Jacobian<3, 19>, bool); 4] = [
        (&j.FL_FOOT_p, plan.active.fl),
        (&j.FR_FOOT_p, plan.active.fr),
        (&j.HL_FOOT_p, plan.active.hl),
        (&j.HR_FOOT_p, plan.active.hr),
    ];
    let lets = solo.lets(s, &none);
    let pd = |target: &Target, x: V3, v: V3| {
        target[2] + (target[1] - v) * (2.0 * OMEGA) + (target[0] - x) * (OMEGA * OMEGA)
    };
    let mut a = SMatrix::<f64, 19, 19>::zeros();
    let mut b = SVector::<f64, 19>::zeros();
    let mut row = 0;
    let mut task = |jac: &Jacobian<3, 19>, wanted: V3| {
        a.fixed_rows_mut::<3>(row).copy_from(&jac.matrix);
        b.fixed_rows_mut::<3>(row).copy_from(&(wanted - jac.drift));
        row += 3;
    };
    // The feet: at rest where they hold, along the swing path where lifted.
    let swing = (plan.swing)(s.t);
    for (jac, holds) in feet {
        if holds {
            task(jac, V3::zeros());
        } else {
            let p = lets.HR_FOOT_p;
            task(jac, pd(&swing, p, jac.matrix * s.qd));
        }
    }
    // The centre of mass along its plan; the base level and not turning.
    let com = (plan.com)(s.t);
    task(
        &j.urdf_com,
        pd(&com, lets.urdf_com, j.urdf_com.matrix * s.qd),
    );
    let r = lets.base_link_R;
    let tilt = V3::new(
        r[(2, 1)] - r[(1, 2)],
        r[(0, 2)] - r[(2, 0)],
        r[(1, 0)] - r[(0, 1)],
    ) / 2.0;
    let spin = j.base_w.matrix * s.qd;
    task(&j.base_w, -tilt * (OMEGA * OMEGA) - spin * (2.0 * OMEGA));
    // The unit quaternion n: n · n̈ = −|ṅ|².
    let (n, dn) = (s.q.fixed_rows::<4>(3), s.qd.fixed_rows::<4>(3));
    a.fixed_view_mut::<1, 4>(18, 3).copy_from(&n.transpose());
    b[18] = -dn.norm_squared();
    let qdd = a
        .lu()
        .solve(&b)
        .expect("the tasks determine the accelerations");

    // M q̈* − (the rest) = Sᵀ τ + J_cᵀ f + n μ: the base's seven rows give f and μ (least
    // norm), the joints' rows τ.
    let needed = solo.inverse_dynamics(s, &qdd, &none);
    let holding: Vec<&Jacobian<3, 19>> = feet.iter().filter(|f| f.1).map(|f| f.0).collect();
    let mut g = lagrange_runtime::nalgebra::DMatrix::<f64>::zeros(7, 3 * holding.len() + 1);
    // Least norm in f with the tangential components weighted 25 times the normal one:
    // the forces that lean on friction least (columns scaled by 1/5, the solution back).
    let scale = |i: usize| if i % 3 == 2 { 1.0 } else { 0.2 };
    for (k, jac) in holding.iter().enumerate() {
        let base = jac.matrix.fixed_columns::<7>(0).transpose();
        g.view_mut((0, 3 * k), (7, 3)).copy_from(&base);
        for i in 0..3 {
            g.column_mut(3 * k + i).scale_mut(scale(i));
        }
    }
    g.view_mut((3, 3 * holding.len()), (4, 1)).copy_from(&n);
    let unknowns = g
        .svd(true, true)
        .solve(
            &lagrange_runtime::nalgebra::DVector::from_column_slice(&needed.as_slice()[..7]),
            1e-12,
        )
        .expect("an SVD");
    let mut forces = [V3::zeros(); 4];
    let mut applied = SVector::<f64, 19>::zeros();
    let mut k = 0;
    for (slot, (jac, holds)) in forces.iter_mut().zip(feet) {
        if holds {
            *slot = V3::from_fn(|i, _| unknowns[3 * k + i] * scale(i));
            applied += jac.matrix.transpose() * *slot;
            k += 1;
        }
    }
    let torques = (needed - applied).fixed_rows::<12>(7).into_owned();
    Command { torques, forces }
}

/// One sample of a run, for the figure.
struct Sample {
    t: f64,
    com_height: f64,
    forces: [V3; 4],
    /// The base, each leg's hip, knee and foot.
    body: [V3; 13],
}

fn sample(solo: &Solo, s: &State<19>, forces: [V3; 4]) -> Sample {
    let l = solo.lets(s, &U::zeros());
    Sample {
        t: s.t,
        com_height: l.urdf_com[2],
        forces,
        body: [
            l.base_link_p,
            l.FL_UPPER_LEG_p,
            l.FL_LOWER_LEG_p,
            l.FL_FOOT_p,
            l.FR_UPPER_LEG_p,
            l.FR_LOWER_LEG_p,
            l.FR_FOOT_p,
            l.HL_UPPER_LEG_p,
            l.HL_LOWER_LEG_p,
            l.HL_FOOT_p,
            l.HR_UPPER_LEG_p,
            l.HR_LOWER_LEG_p,
            l.HR_FOOT_p,
        ],
    }
}

/// Runs a phase of `plan` on its feet from `start` to `t_end`, sampling every 10 ms, and
/// checks each sample's planned forces against `contact_dynamics` and the friction cone.
fn phase(
    solo: &Solo,
    plan: &Plan,
    start: State<19>,
    t_end: f64,
    samples: &mut Vec<Sample>,
) -> Result<State<19>, Box<dyn std::error::Error>> {
    // A run that ends a phase leaves the quaternion's norm off by rounding: the next one
    // starts on it again.
    let start = solo.project(&start, &U::zeros(), &[], 1e-14)?;
    let held = solo.holding(&plan.active, HOLD_GAIN);
    let times: Vec<f64> = (0..)
        .map(|i| start.t + 0.01 * f64::from(i))
        .take_while(|&t| t <= t_end + 1e-9)
        .collect();
    let run = Simulation::new(&held, start)
        .inputs(|_, s| control(solo, plan, s).torques)
        .run_at(&Rk4::new(1e-3), &times)?;
    for s in run.states() {
        let command = control(solo, plan, s);
        let found = solo.contact_dynamics(s, &command.torques, &plan.active)?;
        let f = found.forces;
        for (planned, found) in command.forces.iter().zip([f.fl, f.fr, f.hl, f.hr]) {
            let off = (planned - found).norm();
            assert!(
                off < 1e-6 * (1.0 + found.norm()),
                "planned force off by {off:e} N"
            );
            if found.norm() > 0.0 {
                assert!(found[2] > 0.0, "a foot pulls on the ground at t = {}", s.t);
                let ratio = found.xy().norm() / found[2];
                assert!(
                    ratio < MU,
                    "outside the friction cone at t = {}: {ratio}",
                    s.t
                );
            }
        }
        samples.push(sample(solo, s, command.forces));
    }
    Ok(*run.last())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let solo = Solo::default();
    let none = U::zeros();
    // Standing: the base at the height that puts the feet on the ground, z = 0.
    let feet_z = {
        let l = solo.lets(&State::at_rest(standing_q(0.0)), &none);
        [l.FL_FOOT_p, l.FR_FOOT_p, l.HL_FOOT_p, l.HR_FOOT_p].map(|p| p[2])
    };
    let height = -feet_z.iter().sum::<f64>() / 4.0;
    let start = State::at_rest(standing_q(height));
    let l = solo.lets(&start, &none);
    let (fl, fr, hl, hr) = (l.FL_FOOT_p, l.FR_FOOT_p, l.HL_FOOT_p, l.HR_FOOT_p);
    let c0 = l.urdf_com;
    println!(
        "Solo-12 from tests/robots/solo12.urdf: {} coordinates, {} kg, standing with its base {height:.4} m up, the centre of mass at {:.4?} m",
        <Solo as Dynamics<19, 12>>::COORDINATES.len(),
        l.urdf_mass,
        c0.as_slice()
    );

    // Weight over the three feet that will stay down (their triangle's centroid, at the
    // same height), the hind right foot lifted by 4 cm and put back, the weight back.
    let over = {
        let mut c = (fl + fr + hl) / 3.0;
        c[2] = c0[2];
        c
    };
    let four = SoloContacts::ALL;
    let three = SoloContacts { hr: false, ..four };
    let still = move |p: V3| move |_t: f64| [p, V3::zeros(), V3::zeros()];
    let up = hr + V3::new(0.0, 0.0, LIFT);
    let clock = std::time::Instant::now();
    let mut samples = Vec::new();
    let plans = [
        (
            Plan {
                active: four,
                com: Box::new(between(c0, over, 0.0, 1.0)),
                swing: Box::new(still(hr)),
            },
            1.5,
        ),
        (
            Plan {
                active: three,
                com: Box::new(still(over)),
                swing: Box::new(move |t| {
                    if t < 2.25 {
                        between(hr, up, 1.5, 2.2)(t)
                    } else {
                        between(up, hr, 2.3, 3.0)(t)
                    }
                }),
            },
            3.0,
        ),
        (
            Plan {
                active: four,
                com: Box::new(between(over, c0, 3.0, 4.0)),
                swing: Box::new(still(hr)),
            },
            4.5,
        ),
    ];
    let mut s = start;
    for (plan, t_end) in &plans {
        s = phase(&solo, plan, s, *t_end, &mut samples)?;
        if !plan.active.hr {
            // The lifted foot is back on the ground, at rest: it lands without an impact.
            let foot = solo.lets(&s, &none).HR_FOOT_p;
            let speed = (solo.jacobians(&s, &none).HR_FOOT_p.matrix * s.qd).norm();
            println!(
                "the hind right foot is back at {:.2e} m from where it left, moving at {speed:.1e} m/s",
                (foot - hr).norm()
            );
            assert!((foot - hr).norm() < 1e-4 && speed < 1e-3);
        }
    }
    let end = solo.lets(&s, &none).urdf_com;
    println!(
        "weight shift, foot lift and back: 4.5 s simulated in {:.2} s; the centre of mass ends {:.1e} m from where it started",
        clock.elapsed().as_secs_f64(),
        (end - c0).norm()
    );

    // Dropped from 5 cm: joints held by a PD law while it falls, the landing, then the
    // controller on four feet.
    let dropped = State::at_rest(standing_q(height + DROP));
    let hold = SVector::from(posture());
    let fall = Simulation::new(&solo, dropped)
        .inputs(|_, s| (hold - s.q.fixed_rows::<12>(7)) * 8.0 - s.qd.fixed_rows::<12>(7) * 0.1)
        .event(
            Event::stop("touchdown", |_, s| {
                let l = solo.lets(s, &U::zeros());
                [l.FL_FOOT_p, l.FR_FOOT_p, l.HL_FOOT_p, l.HR_FOOT_p]
                    .iter()
                    .map(|p| p[2])
                    .fold(f64::INFINITY, f64::min)
            })
            .falling(),
        )
        .run(&Rk4::new(1e-3), 1.0)?;
    let touchdown = fall.stopped_by().expect("the feet reach the ground").state;
    let before = solo.kinetic_energy(&touchdown, &none);
    let (landed, impulses) = solo.impulse_dynamics(&touchdown, &four, 0.0)?;
    let after = solo.kinetic_energy(&landed, &none);
    let rest = solo.jacobians(&landed, &none);
    let feet_speed = [
        rest.FL_FOOT_p,
        rest.FR_FOOT_p,
        rest.HL_FOOT_p,
        rest.HR_FOOT_p,
    ]
    .iter()
    .map(|j| (j.matrix * landed.qd).norm())
    .fold(0.0, f64::max);
    println!(
        "dropped from {DROP} m: touchdown at t = {:.4} s, falling at {:.3} m/s; the impact's impulses {:.3} N s in all, kinetic energy {before:.4} J → {after:.4} J, the feet at rest to {feet_speed:.1e} m/s",
        touchdown.t,
        -touchdown.qd[2],
        [impulses.fl, impulses.fr, impulses.hl, impulses.hr].iter().map(|i| i[2]).sum::<f64>()
    );
    assert!(after <= before && feet_speed < 1e-12);
    let landed_com = solo.lets(&landed, &none).urdf_com;
    let recover = Plan {
        active: four,
        com: Box::new(move |t| {
            let mut target = landed_com;
            target[2] = c0[2];
            between(landed_com, target, touchdown.t, touchdown.t + 0.6)(t)
        }),
        swing: Box::new(still(hr)),
    };
    let mut drop_samples: Vec<Sample> = fall
        .states()
        .iter()
        .map(|s| sample(&solo, s, [V3::zeros(); 4]))
        .collect();
    let last = phase(
        &solo,
        &recover,
        landed,
        touchdown.t + 1.0,
        &mut drop_samples,
    )?;
    println!(
        "after the landing the centre of mass is back at {:.4} m (standing: {:.4} m)",
        solo.lets(&last, &none).urdf_com[2],
        c0[2]
    );

    let cone = samples
        .iter()
        .chain(&drop_samples)
        .flat_map(|x| x.forces)
        .filter(|f| f[2] > 0.0)
        .map(|f| f.xy().norm() / f[2])
        .fold(0.0, f64::max);
    println!("largest friction-cone ratio |f_xy| / f_z: {cone:.3} (μ = {MU})");

    figure("solo12_standing", (1400, 1300), |root| {
        let panels = root.split_evenly((2, 2));
        Panel::new("Height of the centre of mass", "t [s]", "z [m]")
            .line(
                "stand, shift, lift, put down, shift back",
                samples.iter().map(|x| (x.t, x.com_height)),
            )
            .line(
                "dropped from 5 cm (time since release)",
                drop_samples.iter().map(|x| (x.t, x.com_height)),
            )
            .draw(&panels[0])?;
        let mut normal = Panel::new("Normal contact forces", "t [s]", "f_z [N]")
            .legend(SeriesLabelPosition::UpperRight);
        for (k, name) in ["front left", "front right", "hind left", "hind right"]
            .iter()
            .enumerate()
        {
            normal = normal.line(name, samples.iter().map(|x| (x.t, x.forces[k][2])));
        }
        normal.draw(&panels[1])?;
        let mut ratio = Panel::new("Friction-cone ratio", "t [s]", "|f_xy| / f_z")
            .y_range(0.0..MU)
            .legend(SeriesLabelPosition::UpperRight);
        for (k, name) in ["front left", "front right", "hind left", "hind right"]
            .iter()
            .enumerate()
        {
            let points = samples
                .iter()
                .filter(|x| x.forces[k][2] > 0.0)
                .map(|x| (x.t, x.forces[k].xy().norm() / x.forces[k][2]));
            ratio = ratio.points(name, points);
        }
        ratio.draw(&panels[2])?;
        robot_view(&samples).draw(&panels[3])
    })?;
    Ok(())
}

/// The robot seen from its right side (x, z), standing and with its hind right foot at the
/// top of its lift: the base to each hip, knee and foot.
fn robot_view(samples: &[Sample]) -> Panel {
    let mut panel = Panel::new("The robot from the side", "x [m]", "z [m]")
        .x_range(-0.35..0.35)
        .y_range(-0.05..0.35)
        .legend(SeriesLabelPosition::UpperLeft);
    for (label, t) in [
        ("standing, t = 0", 0.0),
        ("hind right foot up, t = 2.25 s", 2.25),
    ] {
        if let Some(x) = samples.iter().find(|x| x.t >= t - 1e-9) {
            for leg in 0..4 {
                let b = &x.body;
                let points = [b[0], b[1 + 3 * leg], b[2 + 3 * leg], b[3 + 3 * leg]];
                let name = if leg == 0 { label } else { "" };
                panel = panel.line(name, points.iter().map(|p| (p[0], p[2])));
            }
        }
    }
    panel.line("ground", [(-0.35, 0.0), (0.35, 0.0)])
}
