use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Bob {
        parameters: m = 1.0;
        coordinates: x, y;
        let p = [x, y, 0];
        let a = sin(p);
        let b = norm(x);
        let c = cross([x, y], p);
        let d = inner(p, [x, y]);
        let e = transpose(p);
        let f = rot(x, y);
        let g = angular_velocity(p);
        let h = diag(p, 1);
        kinetic = m/2 * dot(p)^2 + a + b + c.x + d + e[0, 0] + f[0, 0] + g.x + h[0, 0];
    }
}

fn main() {}
