use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Bob {
        parameters: m = 1.0;
        coordinates: x, y;
        let p = [x, y, 0];
        let v = dot(p);
        kinetic = m/2 * v * v;
        potential = [0, 0, 1] * transpose(rot_z(x));
    }
}

fn main() {}
