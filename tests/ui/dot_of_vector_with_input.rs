use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Body {
        parameters: m = 1.0;
        coordinates: x, a;
        inputs: u;
        let p = [x, u, 0];
        let w = angular_velocity(rot_z(a + u));
        let v = angular_velocity(rot_z(dot(a)));
        kinetic = m/2 * dot(p)^2 + w.z + v.z;
    }
}

fn main() {}
