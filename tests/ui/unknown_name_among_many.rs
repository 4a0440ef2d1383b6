use lagrange_runtime::prelude::*;

// A model that declares more names than an error's note lists: the note counts them by kind
// and shows the few closest to the unknown one (issue 50: a robot's 180 link `let`s made a
// 5.3 KB line).
lagrangian! {
    pub struct ManyLets {
        parameters: m = 1.0, k = 2.0;
        coordinates: x;
        let e0 = x * 1.0;
        let e1 = x * 2.0;
        let e2 = x * 3.0;
        let e3 = x * 4.0;
        let e4 = x * 5.0;
        let e5 = x * 6.0;
        let e6 = x * 7.0;
        let e7 = x * 8.0;
        let e8 = x * 9.0;
        let e9 = x * 10.0;
        let e10 = x * 11.0;
        let e11 = x * 12.0;
        let e12 = x * 13.0;
        let e13 = x * 14.0;
        let e14 = x * 15.0;
        let e15 = x * 16.0;
        let e16 = x * 17.0;
        let e17 = x * 18.0;
        let e18 = x * 19.0;
        let e19 = x * 20.0;
        let e20 = x * 21.0;
        let e21 = x * 22.0;
        let e22 = x * 23.0;
        let e23 = x * 24.0;
        let e24 = x * 25.0;
        let e25 = x * 26.0;
        let e26 = x * 27.0;
        let e27 = x * 28.0;
        let e28 = x * 29.0;
        let e29 = x * 30.0;
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * (e1 + e12 + e_21);
    }
}

fn main() {}
