use lagrange_runtime::prelude::*;

lagrangian! {
    struct Cart {
        parameters: m = 1.0 [kg], l = 0.5 [m], c = 0.2 [N*s/m];
        coordinates: x [m], theta [rad];
        inputs: f [N];
        let p = [x + l * sin(theta), -l * cos(theta)];
        kinetic = m/2 * dot(p)^2;
        // A force on an angle must be a torque; on a point, a force.
        force f on theta;
        force -c * dot(p) * l on p;
        force f on x;
    }
}

fn main() {}
