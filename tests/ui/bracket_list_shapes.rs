use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Bob {
        parameters: m = 1.0;
        coordinates: x, y;
        let a = [x, [y, 1]];
        let b = [[x, y], [1]];
        let c = [rot_z(x), rot_z(y)];
        kinetic = m/2 * (dot(x)^2 + dot(y)^2) + a[0] + b[0, 0] + c[0, 0];
    }
}

fn main() {}
