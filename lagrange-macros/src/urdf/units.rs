//! The units of the numbers of a URDF file (SI, as the format specifies), which the
//! spliced statements carry when the model's own declarations carry units.

/// A unit of the file's numbers.
#[derive(Clone, Copy)]
pub enum Si {
    Metre,
    Kilogram,
    /// A moment of inertia.
    KilogramMetreSquared,
    /// A linear momentum.
    KilogramMetrePerSecond,
    /// An angular momentum.
    KilogramMetreSquaredPerSecond,
    /// The damping of a revolute joint, N·m·s/rad.
    NewtonMetreSecond,
    /// The damping of a prismatic joint.
    NewtonSecondPerMetre,
    /// The multiplier of a prismatic joint mimicking a revolute one.
    MetrePerRadian,
    /// The multiplier of a revolute joint mimicking a prismatic one.
    RadianPerMetre,
}

impl Si {
    pub fn text(self) -> &'static str {
        match self {
            Si::Metre => "m",
            Si::Kilogram => "kg",
            Si::KilogramMetreSquared => "kg*m^2",
            Si::KilogramMetrePerSecond => "kg*m/s",
            Si::KilogramMetreSquaredPerSecond => "kg*m^2/s",
            Si::NewtonMetreSecond => "N*m*s",
            Si::NewtonSecondPerMetre => "N*s/m",
            Si::MetrePerRadian => "m/rad",
            Si::RadianPerMetre => "rad/m",
        }
    }
}
