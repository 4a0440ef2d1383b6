// The UR5 and the Franka Panda read from their URDF files (`tests/robots/`), shared by
// `tests/urdf_robots.rs` and `benches/robots.rs` through `include!`.

lagrangian! {
    /// The UR5 arm, torque-controlled.
    pub struct Ur5 {
        urdf: "tests/robots/ur5.urdf";
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
        urdf: "tests/robots/panda.urdf";
        let panda_hand_w = angular_velocity(panda_hand_R);
        kinetic = urdf_kinetic;
        potential = urdf_potential;
        dissipation = urdf_dissipation;
    }
}
