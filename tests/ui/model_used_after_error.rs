use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Oscillator {
        parameters: m = 1.0, k = 1.0;
        coordinates: x;

        kinetic = m/2 * dot(x)^2;
        potential = k/2 * position^2;
    }
}

fn main() {
    let model = Oscillator::new(1.0, 2.0);
    let s = State::new(0.0, SVector::from([0.5]), SVector::from([0.2]));
    let _ = model.accelerations(&s, &SVector::zeros());
}
