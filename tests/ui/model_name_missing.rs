use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct
}

fn main() {}
