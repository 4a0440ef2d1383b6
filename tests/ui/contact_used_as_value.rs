use lagrange_runtime::prelude::*;

lagrangian! {
    /// A contact named where a value is expected, and declared twice.
    pub struct Hopper {
        parameters: m = 1.0;
        coordinates: z;
        contact foot = [0, 0, z];
        let height = foot[2];
        contact foot = [0, 0, 2 * z];
        kinetic = m/2 * dot(z)^2;
    }
}

fn main() {}
