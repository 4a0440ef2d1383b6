use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{Simulation, Variational};
use lagrange_runtime::ConstraintSolver;

// One typo (`gg`): the only error reported, however the model is used afterwards.
lagrangian! {
    pub struct Pendulum {
        parameters: m = 1.0, l = 1.0, g = 9.81;
        coordinates: x, y;
        kinetic = m/2 * (dot(x)^2 + dot(y)^2);
        potential = m * gg * y;
        constraint rod = x^2 + y^2 - l^2;
    }
}

fn main() {
    let model = Pendulum::default();
    let s = State::new(0.0, SVector::from([1.0, 0.0]), SVector::zeros());
    let u = SVector::zeros();
    let _ = model.multipliers(&s, &u);
    let _ = model.violation(&s, &u);
    let _ = lagrange_runtime::linearize::linearize(&model, &s, &u);
    let _ = Simulation::new(&model, s).run(&Variational::new(0.01), 1.0);
}
