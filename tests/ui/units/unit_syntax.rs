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

lagrangian! {
    struct F {
        parameters: m = 1.0 [kg];
        coordinates: x [m];
        let y [m] = x;
        let z = 2 * x [m];
        constraint c [m] = x - y;
        kinetic [J] = m/2 * dot(x)^2;
    }
}

lagrangian! {
    struct G {
        parameters: m = 1.0 [kg^1.5];
        coordinates: x [m^99999999999];
        inputs: f [N^];
        kinetic = m/2 * dot(x)^2;
    }
}

lagrangian! {
    struct H {
        parameters: m = 1.0 [Kg], B = 0.5 [T], a = 1 [m·s], h = 2 [hours];
        coordinates: x [m];
        kinetic = m/2 * dot(x)^2;
    }
}
