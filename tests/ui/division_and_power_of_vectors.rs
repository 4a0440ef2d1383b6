use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Bob {
        parameters: m = 1.0;
        coordinates: x, y;
        let p = [x, y, 0];
        let q = p / p;
        let r = p^3;
        let s = rot_x(x)^2;
        kinetic = m/2 * dot(p)^2 + q.x + r + s[0, 0];
    }
}

fn main() {}
