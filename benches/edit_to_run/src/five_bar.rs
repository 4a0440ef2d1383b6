//! A five-bar linkage: four moving bars between two ground pivots, two degrees of freedom.

use lagrange_runtime::prelude::*;

lagrangian! {
    /// Uniform bars of length l and mass m, pivots d apart; the chain from the left pivot
    /// (angles a1, a2) must meet the chain from the right one (a4, a3).
    pub struct FiveBar {
        parameters: l = 0.2, d = 0.25, m = 0.3, g = 9.81;
        coordinates: a1, a2, a3, a4;
        let p1 = [l * cos(a1), l * sin(a1)];
        let p2 = p1 + [l * cos(a2), l * sin(a2)];
        let p4 = [d + l * cos(a4), l * sin(a4)];
        let p3 = p4 + [l * cos(a3), l * sin(a3)];
        let c2 = p1 + [l / 2 * cos(a2), l / 2 * sin(a2)];
        let c3 = p4 + [l / 2 * cos(a3), l / 2 * sin(a3)];
        kinetic = m * l^2 / 6 * (dot(a1)^2 + dot(a4)^2)
            + m / 2 * (dot(c2)^2 + dot(c3)^2) + m * l^2 / 24 * (dot(a2)^2 + dot(a3)^2);
        potential = m * g * (p1.y / 2 + c2.y + c3.y + p4.y / 2);
        constraint closure = p2 - p3;
    }
}
