//! The kinds of joint a URDF file may name, and everything that depends on the kind.
//!
//! Each decision is a method with an exhaustive `match` (no `_` arm), so that a new kind
//! (`planar`, `floating`) or a new motion makes the compiler list every place to decide:
//! the kind's `type` attribute ([`Kind`]'s table), its coordinate ([`Kind::motion`]),
//! whether its position limits bound it ([`Kind::bounded`]); and for the motion of the
//! coordinate, its unit ([`Motion::unit`]), its damping's ([`Motion::damping`]), the units
//! of a mimic joint's multiplier and offset ([`Motion::per`], [`Motion::offset`]), and what
//! it does to the child's frame and velocities (the one `match` of `Writer::frames`, which
//! builds the expressions). Everything else asks whether the joint has a coordinate
//! (`motion().is_some()`): a fixed joint has none, and its axis, limits, damping and
//! `<mimic>` are read by no one.

use super::units::Si;

names! {
    /// A joint's `type`: the kinds supported, each with its attribute.
    pub enum Kind {
        Revolute = "revolute",
        Continuous = "continuous",
        Prismatic = "prismatic",
        Fixed = "fixed",
    }
}

/// What a joint's one coordinate does to its child's frame.
///
/// No `PartialEq`: it is matched, never compared, so that every use is exhaustive.
#[derive(Clone, Copy, Debug)]
pub enum Motion {
    /// Turns it about the joint's axis: the coordinate is an angle.
    Turn,
    /// Slides it along the joint's axis: the coordinate is a length.
    Slide,
}

impl Kind {
    /// The kinds supported, for an error message: `revolute, continuous, prismatic and
    /// fixed`.
    pub fn supported() -> String {
        let names: Vec<&str> = Kind::all().map(Kind::name).collect();
        match names.split_last() {
            Some((last, [])) => (*last).to_string(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        }
    }

    /// The joint's coordinate, by what it does; `None` for a fixed joint, which has none.
    pub fn motion(self) -> Option<Motion> {
        match self {
            Kind::Revolute | Kind::Continuous => Some(Motion::Turn),
            Kind::Prismatic => Some(Motion::Slide),
            Kind::Fixed => None,
        }
    }

    /// Whether the `lower` and `upper` of the joint's `<limit>` bound its position: a
    /// continuous joint turns without end, and its are −∞ and ∞ whatever the file says.
    pub fn bounded(self) -> bool {
        match self {
            Kind::Revolute | Kind::Prismatic | Kind::Fixed => true,
            Kind::Continuous => false,
        }
    }
}

impl Motion {
    /// The unit of the coordinate, when the model carries units.
    pub fn unit(self) -> &'static str {
        match self {
            Motion::Turn => "rad",
            Motion::Slide => "m",
        }
    }

    /// The unit of what drives the joint: a torque or a force (`actuated`'s inputs).
    pub fn effort(self) -> &'static str {
        match self {
            Motion::Turn => "N*m",
            Motion::Slide => "N",
        }
    }

    /// The unit of the joint's `<dynamics damping>`: torque or force per rate.
    pub fn damping(self) -> Si {
        match self {
            Motion::Turn => Si::NewtonMetreSecond,
            Motion::Slide => Si::NewtonSecondPerMetre,
        }
    }

    /// The unit of the multiplier of a mimic joint of this motion following one of the
    /// `leader`'s, which converts the leader's unit into the follower's (m/rad for a
    /// prismatic joint following a revolute one); `None` between joints of one motion.
    pub fn per(self, leader: Motion) -> Option<Si> {
        match (self, leader) {
            (Motion::Slide, Motion::Turn) => Some(Si::MetrePerRadian),
            (Motion::Turn, Motion::Slide) => Some(Si::RadianPerMetre),
            (Motion::Turn, Motion::Turn) | (Motion::Slide, Motion::Slide) => None,
        }
    }

    /// The unit of a mimic joint's offset, in the follower's unit: m for a length, none
    /// for an angle (written as a number, as the model's angles are).
    pub fn offset(self) -> Option<Si> {
        match self {
            Motion::Turn => None,
            Motion::Slide => Some(Si::Metre),
        }
    }
}
