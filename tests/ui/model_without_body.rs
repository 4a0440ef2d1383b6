use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Oscillator
}

fn main() {}
