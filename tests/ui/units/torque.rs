use lagrange_runtime::prelude::*;

lagrangian! {
    struct Wheel {
        parameters: I = 0.1 [kg*m^2], r = 0.2 [m];
        coordinates: phi [rad];
        inputs: f [N];
        let R = rot_z(phi);
        kinetic = I/2 * dot(phi)^2;
        // A force is not a torque: the moment of f about the axle is r * f.
        torque [0, 0, f] on R;
        torque [0, 0, r * f] on r * R;
    }
}

fn main() {}
