//! The Unitree G1 humanoid read from its URDF file (`tests/robots/g1.urdf`), shared by
//! `tests/g1.rs` and `benches/robots.rs`.

use lagrange_runtime::prelude::*;

lagrangian! {
    /// The Unitree G1 humanoid (29 joints) on a floating base: 36 coordinates, the joints
    /// torque-controlled, and a wrench on the base (the pelvis) in its own axes as six more
    /// inputs, as the Solo-12: Pinocchio's `tau` of a free-flyer root.
    pub struct G1 {
        urdf: "../robots/g1.urdf" floating;
        inputs: base_fx, base_fy, base_fz, base_mx, base_my, base_mz,
            tau1, tau2, tau3, tau4, tau5, tau6, tau7, tau8, tau9, tau10, tau11, tau12, tau13,
            tau14, tau15, tau16, tau17, tau18, tau19, tau20, tau21, tau22, tau23, tau24, tau25,
            tau26, tau27, tau28, tau29;
        // The left foot's angular velocity, in the world frame, for its Jacobian.
        let left_ankle_roll_link_w = angular_velocity(left_ankle_roll_link_R);
        // The soles, candidate flat contacts (`tests/contact_robots.rs`).
        contact left_sole = frame(left_ankle_roll_link_R, left_ankle_roll_link_p);
        contact right_sole = frame(right_ankle_roll_link_R, right_ankle_roll_link_p);
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        force pelvis_R * [base_fx, base_fy, base_fz] on pelvis_p;
        torque pelvis_R * [base_mx, base_my, base_mz] on pelvis_R;
        force tau1 on left_hip_pitch_joint;
        force tau2 on left_hip_roll_joint;
        force tau3 on left_hip_yaw_joint;
        force tau4 on left_knee_joint;
        force tau5 on left_ankle_pitch_joint;
        force tau6 on left_ankle_roll_joint;
        force tau7 on right_hip_pitch_joint;
        force tau8 on right_hip_roll_joint;
        force tau9 on right_hip_yaw_joint;
        force tau10 on right_knee_joint;
        force tau11 on right_ankle_pitch_joint;
        force tau12 on right_ankle_roll_joint;
        force tau13 on waist_yaw_joint;
        force tau14 on waist_roll_joint;
        force tau15 on waist_pitch_joint;
        force tau16 on left_shoulder_pitch_joint;
        force tau17 on left_shoulder_roll_joint;
        force tau18 on left_shoulder_yaw_joint;
        force tau19 on left_elbow_joint;
        force tau20 on left_wrist_roll_joint;
        force tau21 on left_wrist_pitch_joint;
        force tau22 on left_wrist_yaw_joint;
        force tau23 on right_shoulder_pitch_joint;
        force tau24 on right_shoulder_roll_joint;
        force tau25 on right_shoulder_yaw_joint;
        force tau26 on right_elbow_joint;
        force tau27 on right_wrist_roll_joint;
        force tau28 on right_wrist_pitch_joint;
        force tau29 on right_wrist_yaw_joint;
    }
}
