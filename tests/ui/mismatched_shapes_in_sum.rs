use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Bob {
        parameters: m = 1.0, l = 1.0;
        coordinates: x, y;
        let p = [x, y, 0];
        kinetic = m/2 * dot(p)^2;
        potential = p - l;
    }
}

fn main() {}
