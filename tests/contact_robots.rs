//! Contacts chosen at run time on the Solo-12 (four point feet) and the G1 (two flat soles)
//! against Pinocchio 4.1's `constraintDynamics` and `impulseDynamics`
//! (`tests/robots/<robot>_contacts.json`, written by `reference.py --contacts`: contact sets
//! of one to four feet, impacts with restitution 0 and 0.5, the G1's soles at rest), to
//! 1e-10 relative; and, with no reference, the centroidal momentum balance while the
//! contacts act: ḣ_G = m g + Σ f, and its angular part the moments of the contact forces
//! about the centre of mass.

use crate::reference::reference;
use lagrange_runtime::prelude::*;
use lagrange_test_models::g1::{G1Contacts, G1};
use lagrange_test_models::robots::{Solo12, Solo12Contacts};
use serde_json::Value;

fn vector<const N: usize>(v: &Value) -> SVector<f64, N> {
    crate::reference::vector(v)
}

/// |got − want| ≤ 1e-10 · max(1, max|want|).
fn agree<const R: usize>(got: &SVector<f64, R>, want: &SVector<f64, R>, what: &str) {
    let scale = want.amax().max(1.0);
    let err = (got - want).amax();
    assert!(
        err <= 1e-10 * scale,
        "{what}: off by {err:e} (scale {scale:e})\n got {got}\nwant {want}"
    );
}

fn names(set: &Value) -> Vec<&str> {
    set["active"]
        .as_array()
        .expect("names")
        .iter()
        .map(|n| n.as_str().expect("a name"))
        .collect()
}

/// The force of `name` in a recorded set (zero when it is not active).
fn recorded<const R: usize>(forces: &Value, name: &str) -> SVector<f64, R> {
    forces.get(name).map_or_else(SVector::zeros, vector)
}

/// Every state and contact set of `robot`'s file: `run(s, u, active names, set)`.
fn each_set<const N: usize, const M: usize>(
    robot: &str,
    mut run: impl FnMut(&State<N>, &SVector<f64, M>, &[&str], &Value, &str),
) {
    let data = reference(&format!("{robot}_contacts"));
    let states = data["states"].as_array().expect("states");
    assert!(states.len() >= 7);
    for state in states {
        let s = State::new(
            0.0,
            vector(&state["lagrange"]["q"]),
            vector(&state["lagrange"]["qd"]),
        );
        let u = vector::<M>(&state["tau"]);
        for set in state["sets"].as_array().expect("sets") {
            let active = names(set);
            let label = format!("{robot} {} {active:?}", state["label"]);
            run(&s, &u, &active, set, &label);
        }
    }
}

#[test]
fn solo12_point_feet_match_pinocchio() {
    let solo = Solo12::default();
    let mut sets = 0;
    each_set::<19, 18>("solo12", |s, u, active, set, label| {
        let on = Solo12Contacts {
            fl: active.contains(&"fl"),
            fr: active.contains(&"fr"),
            hl: active.contains(&"hl"),
            hr: active.contains(&"hr"),
        };
        let out = solo.contact_dynamics(s, u, &on).unwrap();
        agree(
            &out.accelerations,
            &vector(&set["qdd"]),
            &format!("{label}: q̈"),
        );
        let f = &out.forces;
        for (name, got) in [("fl", f.fl), ("fr", f.fr), ("hl", f.hl), ("hr", f.hr)] {
            let want = recorded::<3>(&set["forces"], name);
            agree(&got, &want, &format!("{label}: force of {name}"));
        }
        for impact in set["impacts"].as_array().expect("impacts") {
            let e = impact["restitution"].as_f64().expect("e");
            let (after, impulses) = solo.impulse_dynamics(s, &on, e).unwrap();
            let what = format!("{label} e = {e}");
            agree(
                &after.qd,
                &vector(&impact["qd_after"]),
                &format!("{what}: q̇⁺"),
            );
            assert_eq!((after.t, after.q), (s.t, s.q));
            let i = &impulses;
            for (name, got) in [("fl", i.fl), ("fr", i.fr), ("hl", i.hl), ("hr", i.hr)] {
                let want = recorded::<3>(&impact["impulses"], name);
                agree(&got, &want, &format!("{what}: impulse of {name}"));
            }
        }
        sets += 1;
    });
    assert_eq!(sets, 7 * 5);
}

#[test]
fn g1_flat_soles_match_pinocchio() {
    let g1 = G1::default();
    let mut sets = 0;
    each_set::<36, 35>("g1", |s, u, active, set, label| {
        let on = G1Contacts {
            left_sole: active.contains(&"left_sole"),
            right_sole: active.contains(&"right_sole"),
        };
        let out = g1.contact_dynamics(s, u, &on).unwrap();
        agree(
            &out.accelerations,
            &vector(&set["qdd"]),
            &format!("{label}: q̈"),
        );
        let f = &out.forces;
        for (name, got) in [("left_sole", f.left_sole), ("right_sole", f.right_sole)] {
            let want = recorded::<6>(&set["forces"], name);
            agree(&got, &want, &format!("{label}: wrench of {name}"));
        }
        for impact in set["impacts"].as_array().expect("impacts") {
            let e = impact["restitution"].as_f64().expect("e");
            let (after, impulses) = g1.impulse_dynamics(s, &on, e).unwrap();
            let what = format!("{label} e = {e}");
            agree(
                &after.qd,
                &vector(&impact["qd_after"]),
                &format!("{what}: q̇⁺"),
            );
            let i = &impulses;
            for (name, got) in [("left_sole", i.left_sole), ("right_sole", i.right_sole)] {
                let want = recorded::<6>(&impact["impulses"], name);
                agree(&got, &want, &format!("{what}: impulse of {name}"));
            }
        }
        sets += 1;
    });
    assert_eq!(sets, 7 * 2);
}

/// While the feet hold, the centroidal momentum changes by gravity and the contact forces
/// alone (the joint torques are internal): d/dt `urdf_momentum` = m g + Σ f and
/// d/dt `urdf_angular_momentum` = Σ (p − c) × f, the rates from the `let`s' Jacobians
/// and drifts (J q̈ + drift) at the accelerations `contact_dynamics` returns. At the
/// Solo-12's recorded states, with its joint torques and no wrench on the base.
#[test]
fn the_centroidal_momentum_changes_by_gravity_and_the_contact_forces() {
    let solo = Solo12::default();
    each_set::<19, 18>("solo12", |s, tau, active, _, label| {
        let mut u = *tau;
        u.fixed_rows_mut::<6>(0).fill(0.0);
        let on = Solo12Contacts {
            fl: active.contains(&"fl"),
            fr: active.contains(&"fr"),
            hl: active.contains(&"hl"),
            hr: active.contains(&"hr"),
        };
        let out = solo.contact_dynamics(s, &u, &on).unwrap();
        let (lets, j) = (solo.lets(s, &u), solo.jacobians(s, &u));
        let rate =
            |jac: &lagrange_runtime::Jacobian<3, 19>| jac.matrix * out.accelerations + jac.drift;
        let f = &out.forces;
        let feet = [
            (f.fl, lets.FL_FOOT_p),
            (f.fr, lets.FR_FOOT_p),
            (f.hl, lets.HL_FOOT_p),
            (f.hr, lets.HR_FOOT_p),
        ];
        let weight = SVector::from([0.0, 0.0, -solo.g * lets.urdf_mass]);
        let force: SVector<f64, 3> = feet.iter().map(|(f, _)| f).sum();
        let moment: SVector<f64, 3> = feet.iter().map(|(f, p)| (p - lets.urdf_com).cross(f)).sum();
        agree(
            &rate(&j.urdf_momentum),
            &(weight + force),
            &format!("{label}: ṗ"),
        );
        agree(
            &rate(&j.urdf_angular_momentum),
            &moment,
            &format!("{label}: k̇ about the centre of mass"),
        );
    });
}

/// `linearize_contacts` of the Solo-12 against central differences of `contact_dynamics`
/// at a stored random state and at the neutral state at rest, on four feet and on three;
/// and the tangent of the contact manifold: each held foot fixes three positions and three
/// velocities, the quaternion's norm one more of each.
#[test]
fn solo12_linearize_contacts_matches_central_differences() {
    let solo = Solo12::default();
    let data = reference("solo12_contacts");
    let states = data["states"].as_array().expect("states");
    for state in [&states[0], &states[4]] {
        let s = State::new(
            0.0,
            vector(&state["lagrange"]["q"]),
            vector(&state["lagrange"]["qd"]),
        );
        let u = vector::<18>(&state["tau"]);
        for (on, held) in [
            (Solo12Contacts::ALL, 4),
            (
                Solo12Contacts {
                    hr: false,
                    ..Solo12Contacts::ALL
                },
                3,
            ),
        ] {
            let lin = solo.linearize_contacts(&s, &u, &on).unwrap();
            assert_eq!(lin.tangent.ncols(), 2 * (19 - 1 - 3 * held));
            let f = |s: &State<19>, u: &SVector<f64, 18>| {
                solo.contact_dynamics(s, u, &on).unwrap().accelerations
            };
            crate::common::derivatives::agree_with_central_differences(
                &lin,
                f,
                1e-6,
                &format!("solo12 {} {held} feet", state["label"]),
            );
        }
    }
}

/// An inelastic impact on the Solo-12's feet is the M-weighted projection of the
/// velocities onto those that keep the feet (and the quaternion's norm) at rest: after it
/// the active feet do not move, M (q̇⁺ − q̇⁻) is orthogonal to every velocity that keeps
/// them at rest, and the kinetic energy does not grow; the impulses are the change of the
/// linear momentum. At every stored state and contact set.
#[test]
fn an_inelastic_impact_is_the_mass_weighted_projection() {
    use lagrange_runtime::nalgebra::DMatrix;
    let solo = Solo12::default();
    let none = SVector::<f64, 18>::zeros();
    each_set::<19, 18>("solo12", |s, _, active, _, label| {
        let on = Solo12Contacts {
            fl: active.contains(&"fl"),
            fr: active.contains(&"fr"),
            hl: active.contains(&"hl"),
            hr: active.contains(&"hr"),
        };
        let (after, impulses) = solo.impulse_dynamics(s, &on, 0.0).unwrap();
        let j = solo.jacobians(s, &none);
        let feet = [
            (on.fl, &j.FL_FOOT_p.matrix, impulses.fl),
            (on.fr, &j.FR_FOOT_p.matrix, impulses.fr),
            (on.hl, &j.HL_FOOT_p.matrix, impulses.hl),
            (on.hr, &j.HR_FOOT_p.matrix, impulses.hr),
        ];
        // The rows that must vanish: the active feet's, and n · ṅ = 0.
        let mut rows: Vec<SVector<f64, 19>> = Vec::new();
        for (held, jac, _) in &feet {
            if *held {
                for r in 0..3 {
                    rows.push(jac.row(r).transpose());
                    let speed = jac.row(r).dot(&after.qd.transpose());
                    assert!(
                        speed.abs() < 1e-12,
                        "{label}: a held foot moves at {speed:e}"
                    );
                }
            }
        }
        let mut n = SVector::<f64, 19>::zeros();
        n.fixed_rows_mut::<4>(3).copy_from(&s.q.fixed_rows::<4>(3));
        rows.push(n);
        let c = DMatrix::from_fn(rows.len(), 19, |r, k| rows[r][k]);
        let svd = c.svd(false, true);
        let v_t = svd.v_t.expect("V");
        let rank = svd.singular_values.iter().filter(|&&x| x > 1e-10).count();
        let mass = solo.mass_matrix(s, &none);
        let change = mass * (after.qd - s.qd);
        // Every velocity that keeps them at rest: the rows of Vᵀ past the rank, and the
        // directions no row involves (V's full basis is 19 × 19 only for 19 rows, so the
        // complement is taken by projection).
        let basis = DMatrix::from_fn(rank, 19, |r, k| v_t[(r, k)]);
        for k in 0..19 {
            let mut e = SVector::<f64, 19>::zeros();
            e[k] = 1.0;
            let de = DMatrix::from_column_slice(19, 1, e.as_slice());
            let free = &de - basis.transpose() * (&basis * &de);
            let work: f64 = (0..19).map(|i| free[(i, 0)] * change[i]).sum();
            assert!(
                work.abs() < 1e-10 * (1.0 + change.amax()),
                "{label}: {work:e}"
            );
        }
        let before = solo.kinetic_energy(s, &none);
        assert!(solo.kinetic_energy(&after, &none) <= before + 1e-12 * (1.0 + before));
        // Σ Λ = Δ(m ċ): the momentum the feet took out.
        let total: SVector<f64, 3> = feet.iter().map(|(_, _, i)| i).sum();
        let momentum = |s: &State<19>| solo.lets(s, &none).urdf_momentum;
        let delta = momentum(&after) - momentum(s);
        assert!(
            (total - delta).amax() < 1e-10 * (1.0 + delta.amax()),
            "{label}: {total} vs {delta}"
        );
    });
}

/// `linearize` of a floating robot that is its tree alone takes its accelerations from the
/// articulated-body algorithm and its multiplier and KKT matrix from the derivatives' pass
/// (`Model::TREE_ACCELERATIONS`); `linearize_contacts` with no contact held takes the
/// model's equations and the KKT solve. The two agree to 1e-10 relative, the tangent
/// bases exactly, on the Solo-12 and the G1 at every stored state.
#[test]
fn a_floating_tree_linearizes_as_the_kkt_solve_does() {
    use lagrange_runtime::linearize::{linearize, Linearization};
    use lagrange_runtime::model::Model;
    const { assert!(<Solo12 as Model<19, 18>>::TREE_ACCELERATIONS) };
    const { assert!(<G1 as Model<36, 35>>::TREE_ACCELERATIONS) };

    fn same<const N: usize, const M: usize>(
        tree: &Linearization<N, M>,
        kkt: &Linearization<N, M>,
        what: &str,
    ) {
        assert_eq!(tree.tangent, kkt.tangent, "{what}: tangent");
        for (block, a, b) in [
            (
                "q̈",
                tree.accelerations.as_slice(),
                kkt.accelerations.as_slice(),
            ),
            ("∂q̈/∂q", tree.d_q.as_slice(), kkt.d_q.as_slice()),
            ("∂q̈/∂q̇", tree.d_qd.as_slice(), kkt.d_qd.as_slice()),
            ("∂q̈/∂u", tree.d_u.as_slice(), kkt.d_u.as_slice()),
        ] {
            let scale = b.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
            let off = a
                .iter()
                .zip(b)
                .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()));
            assert!(
                off <= 1e-10 * scale,
                "{what}, {block}: off by {off:e} of {scale:e}"
            );
        }
    }

    /// At every stored state of `robot`, `linearize` by `tree` against `kkt`.
    fn at_every_state<const N: usize, const M: usize>(
        robot: &str,
        tree: impl Fn(&State<N>, &SVector<f64, M>) -> Linearization<N, M>,
        kkt: impl Fn(&State<N>, &SVector<f64, M>) -> Linearization<N, M>,
    ) {
        let data = reference(&format!("{robot}_contacts"));
        for state in data["states"].as_array().expect("states") {
            let s = State::new(
                0.0,
                vector(&state["lagrange"]["q"]),
                vector(&state["lagrange"]["qd"]),
            );
            let u = vector::<M>(&state["tau"]);
            same(
                &tree(&s, &u),
                &kkt(&s, &u),
                &format!("{robot} {}", state["label"]),
            );
        }
    }

    let (solo, g1) = (Solo12::default(), G1::default());
    at_every_state(
        "solo12",
        |s, u| linearize(&solo, s, u).expect("regular"),
        |s, u| {
            solo.linearize_contacts(s, u, &Solo12Contacts::NONE)
                .expect("regular")
        },
    );
    at_every_state(
        "g1",
        |s, u| linearize(&g1, s, u).expect("regular"),
        |s, u| {
            g1.linearize_contacts(s, u, &G1Contacts::NONE)
                .expect("regular")
        },
    );
}
