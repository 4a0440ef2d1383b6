use lagrange_runtime::prelude::*;

lagrangian! {
    struct Link {
        parameters: ixx = 0.1 [kg*m^2], iyy = 0.2 [kg*m^2], izz = 0.3 [kg*m^2],
                    m = 1.0 [kg], l = 0.5 [m];
        coordinates: a [rad], b [rad];
        // An angle that is a length, and an inertia with one entry of another dimension.
        let R = rpy(a, l, b);
        let I = inertia(ixx, m, 0, iyy, 0, izz);
        let w = body_angular_velocity(R);
        kinetic = inner(w, I * w) / 2;
    }
}

fn main() {}
