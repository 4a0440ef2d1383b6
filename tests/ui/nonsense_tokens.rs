use lagrange_runtime::prelude::*;

lagrangian! { 1 + }

fn main() {}
