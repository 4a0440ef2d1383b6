use lagrange_runtime::prelude::*;

lagrangian! {}

fn main() {}
