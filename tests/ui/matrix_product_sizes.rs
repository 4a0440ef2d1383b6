use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Arm {
        coordinates: a;
        let R = rot_z(a);
        let tip = R * [1, 0];
        let M = R * [[1, 0], [0, 1]];
        kinetic = dot(a)^2 / 2 + tip.x + M[0, 0];
    }
}

fn main() {}
