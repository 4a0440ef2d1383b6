use lagrange_runtime::prelude::*;

lagrangian! {
    /// A point mass whose contact point moves with its velocity.
    pub struct Skater {
        parameters: m = 1.0;
        coordinates: x, y;
        contact blade = [x + dot(y), y, 0];
        contact fixed = [1, 2, 0];
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
    }
}

fn main() {}
