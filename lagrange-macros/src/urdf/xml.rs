//! A URDF file's text → [`Urdf`]: its links (with their inertials) and joints (with their
//! kind, origin, axis, limits, damping and mimic), in the order of the file, as
//! `roxmltree` reads them; and the refusals that concern one element: a malformed number,
//! a link or joint named twice, a joint to no link, a link with two parents, a zero axis,
//! crossed limits, a negative mass, damping or friction, an inertia that is not positive
//! semidefinite ([`INDEFINITE_INERTIA`]) or that its `rpy` turns beyond `f64`.

use super::failure::FileError;
use super::kind::Kind;
use super::maths::{rpy_matrix, symmetric_eigenvalues, unit_vector, Matrix};
use std::collections::HashMap;

/// A robot as its file declares it: links and joints in the order of the file, joints
/// naming links by index.
pub struct Urdf {
    pub links: Vec<Link>,
    pub joints: Vec<Joint>,
}

/// A `<link>`: its name, its line and its `<inertial>`, if any.
pub struct Link {
    pub name: String,
    pub line: u32,
    /// Mass, centre of mass and its frame's rotation, inertia about it (ixx ixy ixz iyy
    /// iyz izz) in that frame.
    pub inertial: Option<Inertial>,
}

/// A link's `<inertial>`, checked: a mass of a body and an inertia of one.
pub struct Inertial {
    pub mass: f64,
    pub xyz: [f64; 3],
    /// The inertia about the centre of mass in the link frame, R I Rᵀ for the file's I in
    /// the frame of the inertial's `rpy` R: positive semidefinite (to rounding) and finite.
    pub tensor: Matrix,
}

/// A `<joint>`, its parent and child links by index in [`Urdf::links`]; its axis is a unit
/// vector.
pub struct Joint {
    pub name: String,
    pub line: u32,
    pub kind: Kind,
    pub parent: usize,
    pub child: usize,
    pub xyz: [f64; 3],
    pub rpy: [f64; 3],
    pub axis: [f64; 3],
    pub limit: Option<[f64; 4]>,
    pub damping: f64,
    /// `<dynamics friction>`: not in the equations (dry friction is no Rayleigh
    /// dissipation), given to the user as `Name::JOINT_FRICTION`.
    pub friction: f64,
    /// The joint it mimics, its multiplier and offset.
    pub mimic: Option<(String, f64, f64)>,
}

/// The robot of a file's text, or the first error in it.
pub fn parse(text: &str) -> Result<Urdf, FileError> {
    let doc = roxmltree::Document::parse(text).map_err(|e| {
        let pos = e.pos();
        (Some(pos.row), format!("malformed XML: {e}"))
    })?;
    // A node's line, from where the file's lines start (roxmltree's `text_pos_at` counts
    // them from the top for every node: 7% of the macro's time on a robot of 2 600 lines).
    let newlines: Vec<usize> = text
        .bytes()
        .enumerate()
        .filter_map(|(at, b)| (b == b'\n').then_some(at))
        .collect();
    let line = |n: roxmltree::Node| {
        let before = newlines.partition_point(|&at| at < n.range().start);
        u32::try_from(before + 1).unwrap_or(u32::MAX)
    };
    let robot = doc.root_element();
    if !robot.has_tag_name("robot") {
        return Err((
            Some(line(robot)),
            "the root element is not `<robot>`".into(),
        ));
    }
    let mut links = Vec::new();
    let mut index = HashMap::new();
    for node in robot.children().filter(|n| n.has_tag_name("link")) {
        let name = attribute(node, "name", line(node))?.to_string();
        if index.insert(name.clone(), links.len()).is_some() {
            return Err((Some(line(node)), format!("a second link named `{name}`")));
        }
        let inertial = match child(node, "inertial") {
            Some(i) => Some(inertial(i, &name, &line)?),
            None => None,
        };
        links.push(Link {
            name,
            line: line(node),
            inertial,
        });
    }
    let mut joints = Vec::new();
    let mut parent_of: HashMap<usize, usize> = HashMap::new();
    for node in robot.children().filter(|n| n.has_tag_name("joint")) {
        let at = line(node);
        let name = attribute(node, "name", at)?.to_string();
        if joints.iter().any(|j: &Joint| j.name == name) {
            return Err((Some(at), format!("a second joint named `{name}`")));
        }
        let kind_name = attribute(node, "type", at)?;
        let Some(kind) = Kind::from_name(kind_name) else {
            return Err((
                Some(at),
                format!(
                    "joint `{name}` is `{kind_name}`: the joints supported are {} (a free base is \
                     `urdf: \"…\" floating;`)",
                    Kind::supported()
                ),
            ));
        };
        let link_of = |tag: &str| -> Result<usize, FileError> {
            let n = child(node, tag)
                .ok_or_else(|| (Some(at), format!("joint `{name}` has no `<{tag}>`")))?;
            let link = attribute(n, "link", line(n))?;
            index.get(link).copied().ok_or_else(|| {
                (
                    Some(line(n)),
                    format!("joint `{name}` names no link `{link}`"),
                )
            })
        };
        let (parent, child_link) = (link_of("parent")?, link_of("child")?);
        if let Some(&first) = parent_of.get(&child_link) {
            let first: &Joint = &joints[first];
            return Err((
                Some(at),
                format!(
                    "link `{}` has two parents: joint `{name}` and joint `{}` (line {})",
                    links[child_link].name, first.name, first.line
                ),
            ));
        }
        parent_of.insert(child_link, joints.len());
        let (xyz, rpy) = origin(node, &line)?;
        let axis = match child(node, "axis") {
            Some(a) => triple(a, "xyz", line(a))?.unwrap_or([1.0, 0.0, 0.0]),
            None => [1.0, 0.0, 0.0],
        };
        let axis = match unit_vector(axis) {
            Some(unit) => unit,
            // A fixed joint's axis is read by no one.
            None if kind.motion().is_none() => [1.0, 0.0, 0.0],
            None => return Err((Some(at), format!("joint `{name}` has a zero axis"))),
        };
        let limit = match child(node, "limit") {
            Some(l) => {
                let get =
                    |k: &str, default: f64| number(l, k, line(l)).map(|v| v.unwrap_or(default));
                let (lower, upper) = if !kind.bounded() {
                    (f64::NEG_INFINITY, f64::INFINITY)
                } else {
                    (get("lower", 0.0)?, get("upper", 0.0)?)
                };
                // A fixed joint's limits are read by no one; a moving joint's are a range.
                if kind.motion().is_some() && lower > upper {
                    return Err((
                        Some(line(l)),
                        format!(
                            "joint `{name}` has the limits lower=\"{lower}\" > upper=\"{upper}\": \
                             no position is within them"
                        ),
                    ));
                }
                Some([
                    lower,
                    upper,
                    get("velocity", f64::INFINITY)?,
                    get("effort", f64::INFINITY)?,
                ])
            }
            None => None,
        };
        let (damping, friction) = match child(node, "dynamics") {
            Some(d) => {
                // Friction is not modelled, but a negative one is no friction either.
                for (what, effect) in [
                    ("damping", "it would add energy through `urdf_dissipation`"),
                    ("friction", "a friction opposes motion"),
                ] {
                    if let Some(v) = number(d, what, line(d))?.filter(|&v| v < 0.0) {
                        return Err((
                            Some(line(d)),
                            format!("joint `{name}` has a negative {what}, {v}: {effect}"),
                        ));
                    }
                }
                (
                    number(d, "damping", line(d))?.unwrap_or(0.0),
                    number(d, "friction", line(d))?.unwrap_or(0.0),
                )
            }
            None => (0.0, 0.0),
        };
        let mimic = match child(node, "mimic") {
            Some(m) => Some((
                attribute(m, "joint", line(m))?.to_string(),
                number(m, "multiplier", line(m))?.unwrap_or(1.0),
                number(m, "offset", line(m))?.unwrap_or(0.0),
            )),
            None => None,
        };
        joints.push(Joint {
            name,
            line: at,
            kind,
            parent,
            child: child_link,
            xyz,
            rpy,
            axis,
            limit,
            damping,
            friction,
            mimic,
        });
    }
    Ok(Urdf { links, joints })
}

fn child<'a, 'i>(node: roxmltree::Node<'a, 'i>, tag: &str) -> Option<roxmltree::Node<'a, 'i>> {
    node.children().find(|n| n.has_tag_name(tag))
}

fn attribute<'a>(
    node: roxmltree::Node<'a, '_>,
    name: &str,
    line: u32,
) -> Result<&'a str, FileError> {
    node.attribute(name).ok_or_else(|| {
        (
            Some(line),
            format!("`<{}>` has no `{name}`", node.tag_name().name()),
        )
    })
}

/// An optional attribute that is one finite number.
fn number(node: roxmltree::Node, name: &str, line: u32) -> Result<Option<f64>, FileError> {
    let Some(text) = node.attribute(name) else {
        return Ok(None);
    };
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        _ => Err((
            Some(line),
            format!("`{name}=\"{text}\"` is not a finite number"),
        )),
    }
}

/// An optional attribute of three finite numbers.
fn triple(node: roxmltree::Node, name: &str, line: u32) -> Result<Option<[f64; 3]>, FileError> {
    let Some(text) = node.attribute(name) else {
        return Ok(None);
    };
    let values: Vec<f64> = text
        .split_whitespace()
        .map(str::parse::<f64>)
        .collect::<Result<_, _>>()
        .unwrap_or_default();
    match values.as_slice() {
        [a, b, c] if values.iter().all(|v| v.is_finite()) => Ok(Some([*a, *b, *c])),
        _ => Err((
            Some(line),
            format!("`{name}=\"{text}\"` is not three finite numbers"),
        )),
    }
}

/// The `<origin xyz rpy>` of an element (zeros without one).
fn origin(
    node: roxmltree::Node,
    line: &impl Fn(roxmltree::Node) -> u32,
) -> Result<([f64; 3], [f64; 3]), FileError> {
    match child(node, "origin") {
        Some(o) => Ok((
            triple(o, "xyz", line(o))?.unwrap_or_default(),
            triple(o, "rpy", line(o))?.unwrap_or_default(),
        )),
        None => Ok(([0.0; 3], [0.0; 3])),
    }
}

fn inertial(
    node: roxmltree::Node,
    link: &str,
    line: &impl Fn(roxmltree::Node) -> u32,
) -> Result<Inertial, FileError> {
    let at = line(node);
    let (xyz, rpy) = origin(node, line)?;
    let mass = match child(node, "mass") {
        Some(m) => number(m, "value", line(m))?.unwrap_or(0.0),
        None => 0.0,
    };
    let mut inertia = [0.0; 6];
    let mut inertia_line = at;
    if let Some(i) = child(node, "inertia") {
        inertia_line = line(i);
        for (k, name) in ["ixx", "ixy", "ixz", "iyy", "iyz", "izz"]
            .iter()
            .enumerate()
        {
            inertia[k] = number(i, name, line(i))?.unwrap_or(0.0);
        }
    }
    if mass < 0.0 {
        return Err((Some(at), format!("a negative mass, {mass}")));
    }
    let [xx, xy, xz, yy, yz, zz] = inertia;
    let principal = [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]];
    // Scaled by the power of two at its largest entry, so that neither the eigenvalues nor
    // the rotation below overflow or underflow on the way to a result that `f64` holds,
    // and so that scaling is exact (an inertia under no rotation is the file's, bit for
    // bit).
    let largest = inertia.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    let scale = if largest >= f64::MIN_POSITIVE {
        // The sign and exponent bits alone: the power of two at or below `largest`.
        f64::from_bits(largest.to_bits() & 0xfff0_0000_0000_0000)
    } else if largest > 0.0 {
        f64::MIN_POSITIVE
    } else {
        0.0
    };
    let mut tensor = [[0.0; 3]; 3];
    if scale > 0.0 {
        let scaled = principal.map(|row| row.map(|x| x / scale));
        let eigenvalues = symmetric_eigenvalues(scaled);
        let lowest = eigenvalues.iter().copied().fold(f64::INFINITY, f64::min);
        let size: f64 = eigenvalues.iter().map(|e| e.abs()).sum();
        if lowest < -INDEFINITE_INERTIA * size {
            let mut moments = eigenvalues.map(|e| e * scale);
            moments.sort_by(f64::total_cmp);
            let [a, b, c] = moments;
            return Err((
                Some(inertia_line),
                format!(
                    "link `{link}` has an inertia that is not positive semidefinite (its \
                     principal moments are \
                     {a:.3e}, {b:.3e}, {c:.3e}): a rotation about the axis of the negative \
                     one would have negative kinetic energy"
                ),
            ));
        }
        // The inertia about the centre of mass in the link frame: R I Rᵀ.
        let frame = rpy_matrix(rpy);
        tensor = std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                let mut s = 0.0;
                for a in 0..3 {
                    for b in 0..3 {
                        s += frame[i][a] * scaled[a][b] * frame[j][b];
                    }
                }
                s * scale
            })
        });
        if tensor.iter().flatten().any(|x| !x.is_finite()) {
            return Err((
                Some(inertia_line),
                format!(
                    "the inertia of link `{link}`, turned into the link frame by the \
                     inertial's rpy, has an entry beyond the largest `f64` ({:e})",
                    f64::MAX
                ),
            ));
        }
    }
    Ok(Inertial { mass, xyz, tensor })
}

/// How far below zero, relative to the sum of the magnitudes of its principal moments
/// (its trace when it is positive semidefinite), the lowest principal moment of a link's
/// inertia may be and still count as zero. A positive semidefinite inertia written with
/// six significant digits (`printf`'s `%g`, C++ streams' default precision), each entry
/// off by at most 5e-6 of itself and so by 5e-6 of the trace, has its eigenvalues moved
/// by at most ‖E‖₂ ≤ ‖E‖_F ≤ 5e-6 trace: a thin rod's or a flat plate's zero moment
/// printed in a rotated frame may come out that far negative, and is accepted. Twice
/// that is refused: the tensor is then indefinite whatever rounding wrote it.
///
/// The macro crate cannot read `lagrange_runtime::tolerances`, where the runtime's
/// tolerances are, so this one lives here.
pub const INDEFINITE_INERTIA: f64 = 1e-5;
