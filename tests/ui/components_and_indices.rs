use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Bob {
        parameters: m = 1.0;
        coordinates: x, y;
        let p = [x, y, 0];
        let R = rot_z(x);
        let a = p.w;
        let b = p[3];
        let c = R[0, 3];
        let d = R[1];
        let e = p[0, 1];
        let f = x.z;
        let g = x[0];
        let h = [x, y, 0, 1].z;
        kinetic = m/2 * dot(p)^2 + a + b + c + d + e + f + g + h;
    }
}

fn main() {}
