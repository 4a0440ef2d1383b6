use lagrange_runtime::prelude::*;

lagrangian! {
    /// A point in the plane with constraints that are not affine in the velocities.
    pub struct Skate {
        parameters: m = 1.0, c = 2.0;
        coordinates: x, y;

        let v = dot(x)^2;

        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        constraint square = c * dot(x)^2 + dot(y);
        constraint product = dot(x) * dot(y);
        constraint product_with_factor = y * dot(x) * dot(y) - 1;
        constraint function = sin(dot(x)) + x;
        constraint quotient = x / dot(y);
        constraint through_let = v + dot(y);
    }
}

fn main() {}
