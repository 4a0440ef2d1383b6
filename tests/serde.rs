//! The `serde` feature (enabled for the workspace's tests): a trajectory, with its inputs
//! and crossings, and the generated named structs survive a JSON round trip; a trajectory
//! that does not fit the model's sizes is refused.

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Event, Simulation, Trajectory};

lagrangian! {
    struct Driven {
        parameters: m = 1.0, k = 4.0;
        coordinates: x;
        inputs: f;
        let p = [x, 2 * x];
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * x^2;
        force f on x;
    }
}

#[test]
fn a_trajectory_survives_a_json_round_trip() {
    let run = Simulation::new(&Driven::default(), State::at_rest(SVector::from([1.0])))
        .inputs(|t, _| SVector::from([t.sin()]))
        .event(Event::record("zero", |_t, s: &State<1>| s.q[0]))
        .run(&DormandPrince::default(), 3.0)
        .unwrap();
    assert!(!run.crossings().is_empty());
    let json = serde_json::to_string(&run).unwrap();
    let back: Trajectory<1, 1> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, run);
    // Sizes that do not fit are refused with a message: states of another model, names
    // that are not the model's, samples that do not match.
    assert!(serde_json::from_str::<Trajectory<2, 1>>(&json).is_err());
    let renamed = json.replace(r#""coordinates":["x"]"#, r#""coordinates":["x","y"]"#);
    let error = serde_json::from_str::<Trajectory<1, 1>>(&renamed).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("2 coordinates and 1 inputs, where 1 and 1 were expected"),
        "{error}"
    );
    let cut = json.replace(r#""energies":[2.0,"#, r#""energies":["#);
    let error = serde_json::from_str::<Trajectory<1, 1>>(&cut).unwrap_err();
    assert!(error.to_string().contains("energies"), "{error}");
}

#[test]
fn the_generated_structs_serialize() {
    let q = DrivenCoordinates { x: 0.5 };
    let json = serde_json::to_string(&q).unwrap();
    assert_eq!(json, r#"{"x":0.5}"#);
    assert_eq!(serde_json::from_str::<DrivenCoordinates>(&json).unwrap(), q);
    let u = DrivenInputs { f: -1.0 };
    assert_eq!(serde_json::to_string(&u).unwrap(), r#"{"f":-1.0}"#);
    let s = State::at_rest(SVector::from([0.5]));
    let lets = Driven::default().lets(&s, &SVector::zeros());
    let back: DrivenLets = serde_json::from_str(&serde_json::to_string(&lets).unwrap()).unwrap();
    assert_eq!(back, lets);
    let state: State<1> = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(state, s);
}

#[test]
fn trajectories_that_break_their_invariants_are_refused() {
    let mut run = Trajectory::<1, 0>::new(&["x"], &[]);
    run.push(
        State::new(1.0, SVector::from([0.0]), SVector::zeros()),
        SVector::zeros(),
        0.0,
    );
    run.push(
        State::new(0.0, SVector::from([0.0]), SVector::zeros()),
        SVector::zeros(),
        0.0,
    );
    let json = serde_json::to_string(&run).unwrap();
    let error = serde_json::from_str::<Trajectory<1, 0>>(&json).unwrap_err();
    assert!(error.to_string().contains("ascending"), "{error}");
}

/// Exact derivatives against central differences (`common::derivatives`).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("Driven", &Driven::default())
        .standard()
        .check();
}
