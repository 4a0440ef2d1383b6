//! The UR5, the Franka Panda and the Solo-12 quadruped read from their URDF files
//! (`tests/robots/`; the paths are relative to this crate's `Cargo.toml`), shared by
//! `tests/urdf_robots.rs` and `benches/robots.rs`.

use lagrange_runtime::prelude::*;

lagrangian! {
    /// The UR5 arm, torque-controlled.
    pub struct Ur5 {
        urdf: "../robots/ur5.urdf";
        inputs: tau1, tau2, tau3, tau4, tau5, tau6;
        // The tool frame's angular velocity, in the world frame, for its Jacobian.
        let tool0_w = angular_velocity(tool0_R);
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        force tau1 on shoulder_pan_joint;
        force tau2 on shoulder_lift_joint;
        force tau3 on elbow_joint;
        force tau4 on wrist_1_joint;
        force tau5 on wrist_2_joint;
        force tau6 on wrist_3_joint;
    }
}

lagrangian! {
    /// The Franka Panda with its two fingers; the second mimics the first (a constraint).
    pub struct Panda {
        urdf: "../robots/panda.urdf";
        let panda_hand_w = angular_velocity(panda_hand_R);
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        dissipation = urdf_dissipation;
    }
}

lagrangian! {
    /// The Solo-12 quadruped on a floating base (19 coordinates: the base's position and
    /// unit quaternion, then three joints per leg), torque-controlled, with a wrench on the
    /// base in its own axes as six more inputs: Pinocchio's `tau` of a free-flyer root
    /// (zero for a robot left to itself; `tests/robots/README.md`, "Floating base").
    pub struct Solo12 {
        urdf: "../robots/solo12.urdf" floating;
        inputs: base_fx, base_fy, base_fz, base_mx, base_my, base_mz,
            tau1, tau2, tau3, tau4, tau5, tau6, tau7, tau8, tau9, tau10, tau11, tau12;
        // The front left foot's angular velocity, in the world frame, for its Jacobian.
        let FL_FOOT_w = angular_velocity(FL_FOOT_R);
        // The feet, candidate point contacts (`tests/contact_robots.rs`).
        contact fl = FL_FOOT_p;
        contact fr = FR_FOOT_p;
        contact hl = HL_FOOT_p;
        contact hr = HR_FOOT_p;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        // The base wrench: a force at the base's origin and a moment, both in base axes.
        force base_link_R * [base_fx, base_fy, base_fz] on base_link_p;
        torque base_link_R * [base_mx, base_my, base_mz] on base_link_R;
        force tau1 on FL_HAA;
        force tau2 on FL_HFE;
        force tau3 on FL_KFE;
        force tau4 on FR_HAA;
        force tau5 on FR_HFE;
        force tau6 on FR_KFE;
        force tau7 on HL_HAA;
        force tau8 on HL_HFE;
        force tau9 on HL_KFE;
        force tau10 on HR_HAA;
        force tau11 on HR_HFE;
        force tau12 on HR_KFE;
    }
}
