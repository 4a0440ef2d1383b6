use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct A {
        coordinates: x;
        kinetic = dot(x)^2;
    }
    pub struct B {
        coordinates: y;
        kinetic = dot(y)^2;
    }
}

fn main() {}
