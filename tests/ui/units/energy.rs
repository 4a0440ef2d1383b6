// A missing l²: the kinetic energy of a pendulum written with l instead of l^2.
use lagrange_runtime::prelude::*;

lagrangian! {
    struct Pendulum {
        parameters: m = 1.0 [kg], l = 0.5 [m], g = 9.81 [m/s^2];
        coordinates: theta [rad];
        kinetic = m/2 * l * dot(theta)^2;
        potential = -m * g * l * cos(theta);
    }
}

lagrangian! {
    // In a sum, the error sits on the term that disagrees with the others.
    struct TwoTerms {
        parameters: m = 1.0 [kg], l = 0.5 [m], g = 9.81 [m/s^2];
        coordinates: x [m], theta [rad];
        kinetic = m/2 * dot(x)^2 + m/2 * l * dot(theta)^2 + m * l * dot(x) * dot(theta) * cos(theta);
        potential = -m * g * l * cos(theta) + m * l;
    }
}

fn main() {}

lagrangian! {
    // Every term wrong, each in its own way: each is reported against the energy.
    struct AllWrong {
        parameters: m = 1.0 [kg], l = 0.5 [m];
        coordinates: x [m];
        kinetic = m * dot(x) + m * l;
    }
}
