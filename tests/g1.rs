//! The Unitree G1 humanoid (`tests/robots/g1.urdf`, 29 joints on a floating base: 36
//! coordinates) against Pinocchio 4.1's free flyer at the seven states of
//! `tests/robots/g1.json`, as `tests/urdf_robots.rs` does for the Solo-12 (see
//! `floating_matches_pinocchio` and `tests/robots/README.md`, "Floating base").
//! The model, the suite's largest, is compiled once, in `lagrange-test-models`.

use crate::reference::*;
use lagrange_runtime::prelude::*;
use lagrange_test_models::g1::*;

/// The G1 on Pinocchio's free flyer, with its left foot's frame (`left_ankle_roll_link`).
#[test]
fn g1_matches_pinocchio() {
    let model = G1::default();
    let none = SVector::zeros();
    floating_matches_pinocchio(&model, "g1", |s| {
        let (lets, j) = (model.lets(s, &none), model.jacobians(s, &none));
        Frame {
            position: lets.left_ankle_roll_link_p,
            rotation: lets.left_ankle_roll_link_R,
            linear: j.left_ankle_roll_link_p.matrix,
            angular: j.left_ankle_roll_link_w.matrix,
        }
    });
}
