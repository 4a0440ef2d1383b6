//! Single masses on a line: free, pushed, or on a spring.

use lagrange_runtime::prelude::*;

lagrangian! {
    /// m ẍ + k x = 0, x(t) = x0 cos ωt + (v0/ω) sin ωt with ω = √(k/m).
    pub struct Oscillator {
        parameters: m = 1.0, k = 4.0;
        coordinates: x;
        kinetic = m/2 * dot(x)^2;
        potential = k/2 * x^2;
    }
}

lagrangian! {
    /// A unit mass in a unit well: no parameters at all (a unit struct).
    pub struct UnitOscillator { coordinates: x; kinetic = dot(x)^2 / 2; potential = x^2 / 2; }
}

lagrangian! {
    /// A free unit mass: no parameters, no `let`s, no potential.
    pub struct FreeParticle { coordinates: x; kinetic = dot(x)^2 / 2; }
}

lagrangian! {
    /// A cart on a frictionless rail pushed by a force f.
    pub struct Cart {
        parameters: m = 2.0;
        coordinates: x;
        inputs: f;
        kinetic = m/2 * dot(x)^2;
        force f on x;
    }
}
