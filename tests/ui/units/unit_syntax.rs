use lagrange_runtime::prelude::*;

lagrangian! {
    struct A {
        parameters: m = 1.0 [];
        coordinates: x [m];
        kinetic = m/2 * dot(x)^2;
    }
}

lagrangian! {
    struct B {
        parameters: m = 1.0 [2*kg];
        coordinates: x [m];
        kinetic = m/2 * dot(x)^2;
    }
}

lagrangian! {
    struct C {
        parameters: m = 1.0 [kg];
        coordinates: x [m^x];
        kinetic = m/2 * dot(x)^2;
    }
}

lagrangian! {
    struct D {
        parameters: m = 1.0 [kg m];
        coordinates: x [m];
        kinetic = m/2 * dot(x)^2;
    }
}

fn main() {}

lagrangian! {
    struct E {
        parameters: m [kg] = 1.0;
        coordinates: x [m^2147483647 * m^2147483647];
        kinetic = m/2 * dot(x)^2;
    }
}
