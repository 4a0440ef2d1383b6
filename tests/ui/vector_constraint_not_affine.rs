use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Disk {
        parameters: m = 1.0, r = 0.5;
        coordinates: x, y, a;
        let v = [dot(x), dot(y)];
        kinetic = m/2 * (v^2 + dot(a)^2);
        constraint roll = v - r * dot(a) * [cos(a), sin(a)] * dot(a);
        constraint flat = [x - 1, 0];
    }
}

fn main() {}
