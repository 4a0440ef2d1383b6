use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Empty {
        parameters: m = 1.0;

        kinetic = m;
    }
}

fn main() {}
