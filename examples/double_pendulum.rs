use lagrange_runtime::prelude::*;

lagrangian! {
    /// Planar double pendulum with point masses.
    pub struct DoublePendulum {
        parameters: m1 = 1.0, m2 = 1.0, l1 = 1.0, l2 = 1.0, g = 9.81;
        coordinates: theta1, theta2;

        let x1 = l1 * sin(theta1);
        let y1 = -l1 * cos(theta1);
        let x2 = x1 + l2 * sin(theta2);
        let y2 = y1 - l2 * cos(theta2);

        kinetic = m1/2 * (dot(x1)^2 + dot(y1)^2) + m2/2 * (dot(x2)^2 + dot(y2)^2);
        potential = g * (m1*y1 + m2*y2);
    }
}

fn main() {
    let model = DoublePendulum::default();
    let s = State::new(0.0, SVector::from([0.5, -0.3]), SVector::from([0.2, 0.1]));
    let u = SVector::zeros();
    println!("{:?}", model.accelerations(&s, &u));
    println!("M = {}", model.mass_matrix(&s, &u));
    println!("h = {}", model.energy(&s, &u));
}
