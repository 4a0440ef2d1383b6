use lagrange_runtime::prelude::*;

// `theta3` is one edit away from both `theta1` and `theta2`: the suggestion is the first
// declared, the same in every build.
lagrangian! {
    pub struct DoublePendulum {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: theta1, theta2;
        kinetic = m/2 * l^2 * (dot(theta1)^2 + dot(theta3)^2);
        potential = -m * g * l * cos(theta1);
    }
}

fn main() {}
