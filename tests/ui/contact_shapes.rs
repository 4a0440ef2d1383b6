use lagrange_runtime::prelude::*;

lagrangian! {
    /// A point mass on a line, with contacts of the wrong shapes.
    pub struct Slider {
        parameters: m = 1.0;
        coordinates: x;
        contact tip = x;
        contact foot = frame([x, 0, 0], [x, 0, 0]);
        kinetic = m/2 * dot(x)^2;
    }
}

fn main() {}
