//! `urdf: "path";`: a robot read from its URDF file at compile time, spliced into the model
//! as the statements a user would write by hand, before names are checked. Every later
//! stage (names, shapes, dimensions, code generation) then treats them like the user's.
//!
//! The file is found relative to the crate's `Cargo.toml` (`CARGO_MANIFEST_DIR`) and read
//! with `roxmltree`. From it come, in a depth-first walk from the root link, a link's child
//! joints in the order of the file (Pinocchio's order when that order is alphabetical:
//! urdfdom sorts a link's child joints by name, `tests/robots/README.md`):
//!
//! - `coordinates:` one per non-fixed joint, named by the joint (an angle for revolute and
//!   continuous joints, a length for prismatic ones), after the floating base's
//!   `base_x base_y base_z base_qw base_qx base_qy base_qz` with `floating`;
//! - for each link `L`, `let L_R` (orientation), `L_p` (origin) and `L_c` (centre of
//!   mass), in the world frame: `L_R = P_R * origin rotation * joint rotation`, `L_p =
//!   P_p + P_R * (origin + axis q)`, `L_c = L_p + L_R * com` for the parent link `P`;
//! - `let urdf_kinetic` = Σ ½ m |ċ|² + ½ ω_bᵀ I ω_b (I about the centre of mass in the
//!   link frame, ω_b = L_Rᵀ ω), written with the velocities of the tree rather than by
//!   differentiating the frames: in the world frame, ω_L = ω_P + a q̇ for a revolute
//!   joint (a its axis, P_R times the joint origin's rotation of the file's axis), and
//!   v_L, the velocity of the link's point at the reference o (the world's origin, or
//!   with `floating` the root's origin): v_L = v_P + ((L_p − o) × a) q̇ for a revolute
//!   joint, v_P + a q̇ for a prismatic one; ċ = v_L + ω_L × (L_c − o), with `floating`
//!   L_p − o the sum of the arms from the root, not a difference of positions that may be
//!   far from the world's origin (`tests/urdf_robots.rs`,
//!   `a_floating_robot_far_from_the_origin_moves_as_near_it`). The root's are
//!   zero, or with `floating` ω = `angular_velocity(root_R)` and v = `dot(root_p)`. The
//!   rotational energy is written as three squares through I = L D Lᵀ
//!   (`Writer::rotational_energy`). Every link below a joint shares the joint's a and
//!   (L_p − o) × a, the velocity Jacobian columns of ω and v, from which the mass
//!   matrix's generator sums the links' inertias up the tree once, as CRBA does
//!   (`sweep::mass_from_jacobians`): the Solo-12's `mass_matrix` costs 38% fewer
//!   instructions than with the velocities of the links' origins, the G1's 52%. This is
//!   the same energy as `dot(L_c)` and `body_angular_velocity(L_R)` give, with less to
//!   differentiate (no derivative of a rotation matrix below the root): the mass matrix
//!   of the four robots of `tests/robots/` costs 43–50% fewer instructions. With
//!   `floating`, the two agree on every velocity that keeps the quaternion's norm (|n| = 1,
//!   n · ṅ = 0); the quaternion's rate along itself, which the constraint forbids, carries
//!   no kinetic energy here, so the mass matrix has n as its null vector
//!   (`tests/urdf_robots.rs`, `a_floating_base_is_the_free_body_written_by_hand`).
//!   `urdf_potential` = Σ m g c_z (with a parameter `g = 9.81` unless the model declares
//!   `g`), `urdf_dissipation` = ½ Σ damping q̇²;
//! - `constraint mimic_<joint>` for a mimic joint, `constraint base_unit` for the floating
//!   base's quaternion; and each joint's limits, for `Name::JOINT_LIMITS`.
//!
//! Refused, each at its line, besides what the format itself forbids: values no body has
//! (a negative mass, an inertia with a negative principal moment beyond rounding,
//! [`INDEFINITE_INERTIA`], a negative damping or friction, limits with lower above upper),
//! mimic joints that follow each other in a cycle (or themselves), an inertia whose turn
//! into the link frame is beyond `f64`, and a robot without a movable joint when the model
//! declares no coordinates of its own. Accepted as the tools that load URDFs accept them:
//! principal moments that break the triangle inequality, a `<mimic>` on a fixed joint
//! (ignored), an axis of any nonzero length. A name that is a Rust keyword gets a trailing
//! `_` (`type_`); `gen`, an identifier until the 2024 edition, stays `gen` and is written
//! raw (`r#gen`), as the model's own names are, so that the code compiles in every edition.
//!
//! When the model's own declarations carry units, the spliced ones do too (rad or m for
//! the joints, m/s² for `g`) and every number of the file is a quantity in SI units, so
//! the whole model is dimension-checked; otherwise nothing carries a unit. Every spliced
//! token is spanned at the path literal, and every error about the file is an error there
//! that names the file and, where the cause is at a line of it, the line.

use crate::ast::{BinOp, Declared, Expr, Index, Model, Number, Parameter, Robot, Statement};
use crate::func::{Builtin, Func};
use proc_macro2::Span;
use std::collections::HashMap;
use syn::Ident;

/// Replaces the model's `urdf:` statement by the statements of its file; `Ok` without one.
pub fn splice(model: &mut Model) -> syn::Result<()> {
    let mut found = None;
    for (index, statement) in model.statements.iter().enumerate() {
        if let Statement::Urdf { keyword, .. } = statement {
            if index != 0 || found.is_some() {
                return Err(syn::Error::new(
                    keyword.span(),
                    "`urdf:` is the first statement of a model, and there is one",
                ));
            }
            found = Some(index);
        }
    }
    let Some(index) = found else {
        return Ok(());
    };
    let Statement::Urdf { path, floating, .. } = model.statements.remove(index) else {
        unreachable!("found above")
    };
    let units = model.statements.iter().any(declares_units);
    let own_coordinates = model
        .statements
        .iter()
        .any(|s| matches!(s, Statement::Coordinates(_)));
    let declared: Vec<Ident> = model.statements.iter().flat_map(declared_names).collect();
    let (file, text) = read(&path)?;
    let error = |line: Option<u32>, message: String| {
        let at = line.map_or(String::new(), |l| format!(":{l}"));
        syn::Error::new(path.span(), format!("{}{at}: {message}", path.value()))
    };
    let robot = parse(&text).map_err(|(line, m)| error(line, m))?;
    let writer = Writer {
        span: path.span(),
        units,
    };
    let names: Vec<String> = declared.iter().map(crate::check::key).collect();
    let (statements, limits) = writer
        .statements(&robot, floating, &names, own_coordinates)
        .map_err(|failure| match failure {
            Failure::File(line, m) => error(line, m),
            Failure::Declared(clashes) => {
                let mut all: Option<syn::Error> = None;
                for (k, line, m) in clashes {
                    let mut e = error(line, m);
                    e.combine(syn::Error::new(
                        declared[k].span(),
                        format!("`{}` is declared here too", names[k]),
                    ));
                    match &mut all {
                        Some(all) => all.combine(e),
                        None => all = Some(e),
                    }
                }
                all.expect("at least one clash")
            }
        })?;
    model.statements.splice(0..0, statements);
    model.robot = Some(Robot { file, limits });
    Ok(())
}

/// Whether a statement declares a name with a unit.
fn declares_units(statement: &Statement) -> bool {
    match statement {
        Statement::Parameters(items) => items.iter().any(|p| p.unit.is_some()),
        Statement::Coordinates(items) | Statement::Inputs(items) => {
            items.iter().any(|d| d.unit.is_some())
        }
        _ => false,
    }
}

/// The names a statement declares.
fn declared_names(statement: &Statement) -> Vec<Ident> {
    match statement {
        Statement::Parameters(items) => items.iter().map(|p| p.name.clone()).collect(),
        Statement::Coordinates(items) | Statement::Inputs(items) => {
            items.iter().map(|d| d.name.clone()).collect()
        }
        Statement::Let { name, .. } | Statement::Constraint { name, .. } => vec![name.clone()],
        _ => Vec::new(),
    }
}

/// Why the statements of a parsed file cannot be written: an error in the file (at a line
/// of it, when there is one), or file's names taken by the model's own declarations, each
/// with the index of the declaration (reported at both, all of them).
enum Failure {
    File(Option<u32>, String),
    Declared(Vec<(usize, Option<u32>, String)>),
}

impl From<FileError> for Failure {
    fn from((line, message): FileError) -> Self {
        Failure::File(line, message)
    }
}

/// What a name means to the language when it is a built-in name or a function's, which a
/// URDF's joint cannot be named as.
fn language_name(id: &str) -> Option<String> {
    if let Some(builtin) = Builtin::from_name(id) {
        Some(format!("the built-in name `{id}` ({})", builtin.meaning()))
    } else {
        Func::from_name(id).map(|_| format!("the function `{id}`"))
    }
}

/// The file's absolute path and text.
fn read(path: &syn::LitStr) -> syn::Result<(String, String)> {
    let relative = path.value();
    let base = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_string());
    let full = std::path::Path::new(&base).join(&relative);
    let text = std::fs::read_to_string(&full).map_err(|e| {
        syn::Error::new(
            path.span(),
            format!(
                "cannot read the URDF file `{relative}` (looked for {}): {e}",
                full.display()
            ),
        )
    })?;
    Ok((full.to_string_lossy().into_owned(), text))
}

/// An error about the file: the line it concerns, if any, and what is wrong.
type FileError = (Option<u32>, String);

/// Each joint coordinate with its limits (lower, upper, velocity, effort), if any.
type Limits = Vec<(String, Option<[f64; 4]>)>;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Revolute,
    Continuous,
    Prismatic,
    Fixed,
}

struct Link {
    name: String,
    line: u32,
    /// Mass, centre of mass and its frame's rotation, inertia about it (ixx ixy ixz iyy
    /// iyz izz) in that frame.
    inertial: Option<Inertial>,
}

struct Inertial {
    mass: f64,
    xyz: [f64; 3],
    /// The inertia about the centre of mass in the link frame, R I Rᵀ for the file's I in
    /// the frame of the inertial's `rpy` R: positive semidefinite (to rounding) and finite.
    tensor: Matrix,
}

struct Joint {
    name: String,
    line: u32,
    kind: Kind,
    parent: usize,
    child: usize,
    xyz: [f64; 3],
    rpy: [f64; 3],
    axis: [f64; 3],
    limit: Option<[f64; 4]>,
    damping: f64,
    /// The joint it mimics, its multiplier and offset.
    mimic: Option<(String, f64, f64)>,
}

struct Urdf {
    links: Vec<Link>,
    joints: Vec<Joint>,
}

fn parse(text: &str) -> Result<Urdf, FileError> {
    let doc = roxmltree::Document::parse(text).map_err(|e| {
        let pos = e.pos();
        (Some(pos.row), format!("malformed XML: {e}"))
    })?;
    let line = |n: roxmltree::Node| doc.text_pos_at(n.range().start).row;
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
        let kind = match attribute(node, "type", at)? {
            "revolute" => Kind::Revolute,
            "continuous" => Kind::Continuous,
            "prismatic" => Kind::Prismatic,
            "fixed" => Kind::Fixed,
            other => {
                return Err((
                    Some(at),
                    format!(
                        "joint `{name}` is `{other}`: the joints supported are revolute, \
                         continuous, prismatic and fixed (a free base is `urdf: \"…\" floating;`)"
                    ),
                ))
            }
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
            None if kind == Kind::Fixed => [1.0, 0.0, 0.0],
            None => return Err((Some(at), format!("joint `{name}` has a zero axis"))),
        };
        let limit = match child(node, "limit") {
            Some(l) => {
                let get =
                    |k: &str, default: f64| number(l, k, line(l)).map(|v| v.unwrap_or(default));
                let (lower, upper) = if kind == Kind::Continuous {
                    (f64::NEG_INFINITY, f64::INFINITY)
                } else {
                    (get("lower", 0.0)?, get("upper", 0.0)?)
                };
                // A fixed joint's limits are read by no one; a moving joint's are a range.
                if kind != Kind::Fixed && lower > upper {
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
        let damping = match child(node, "dynamics") {
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
                number(d, "damping", line(d))?.unwrap_or(0.0)
            }
            None => 0.0,
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
const INDEFINITE_INERTIA: f64 = 1e-5;

/// The eigenvalues of a symmetric 3×3 matrix whose entries are at most 1 in magnitude,
/// by cyclic Jacobi rotations: each is accurate to a few ε of the matrix's norm, which
/// the closed form (the roots of the characteristic cubic) is not near a double root.
pub(crate) fn symmetric_eigenvalues(mut a: Matrix) -> [f64; 3] {
    for _sweep in 0..64 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        let diagonal = a[0][0].abs() + a[1][1].abs() + a[2][2].abs();
        if off <= f64::EPSILON * f64::EPSILON * diagonal || off == 0.0 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            // The rotation that zeroes a[p][q]: t = tan of its angle, the smaller root of
            // t² + 2θt − 1 = 0 (Golub and Van Loan, algorithm 8.4.1).
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = if theta.abs() > 1e150 {
                0.5 / theta
            } else {
                theta.signum() / (theta.abs() + theta.mul_add(theta, 1.0).sqrt())
            };
            let c = 1.0 / t.mul_add(t, 1.0).sqrt();
            let s = t * c;
            // A ← Jᵀ A J: the columns p and q, then the rows.
            for row in &mut a {
                let (kp, kq) = (row[p], row[q]);
                row[p] = c * kp - s * kq;
                row[q] = s * kp + c * kq;
            }
            let (rp, rq) = (a[p], a[q]);
            a[p] = std::array::from_fn(|k| c * rp[k] - s * rq[k]);
            a[q] = std::array::from_fn(|k| s * rp[k] + c * rq[k]);
            a[p][q] = 0.0;
            a[q][p] = 0.0;
        }
    }
    [a[0][0], a[1][1], a[2][2]]
}

/// The units of the numbers of a URDF file (SI, as the format specifies).
#[derive(Clone, Copy)]
enum Si {
    Metre,
    Kilogram,
    /// A moment of inertia.
    KilogramMetreSquared,
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
    fn text(self) -> &'static str {
        match self {
            Si::Metre => "m",
            Si::Kilogram => "kg",
            Si::KilogramMetreSquared => "kg*m^2",
            Si::NewtonMetreSecond => "N*m*s",
            Si::NewtonSecondPerMetre => "N*s/m",
            Si::MetrePerRadian => "m/rad",
            Si::RadianPerMetre => "rad/m",
        }
    }
}

/// A 3×3 matrix, row by row.
type Matrix = [[f64; 3]; 3];

fn rpy_matrix([r, p, y]: [f64; 3]) -> Matrix {
    let (sr, cr, sp, cp, sy, cy) = (r.sin(), r.cos(), p.sin(), p.cos(), y.sin(), y.cos());
    // rot_z(y) rot_y(p) rot_x(r).
    [
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]
}

/// I = L D Lᵀ of a symmetric 3×3 matrix, L unit lower triangular: each pivot d_k with
/// the column l_k of L. `None` where a zero pivot stands over a nonzero entry.
pub(crate) fn unit_ldlt(m: &Matrix) -> Option<[(f64, [f64; 3]); 3]> {
    let ratio = |x: f64, d: f64| {
        if x == 0.0 {
            Some(0.0)
        } else {
            (d != 0.0).then(|| x / d)
        }
    };
    let [[d0, _, _], [t10, t11, _], [t20, t21, t22]] = *m;
    let (l10, l20) = (ratio(t10, d0)?, ratio(t20, d0)?);
    let d1 = t11 - l10 * l10 * d0;
    let l21 = ratio(t21 - l20 * l10 * d0, d1)?;
    let d2 = t22 - l20 * l20 * d0 - l21 * l21 * d1;
    Some([
        (d0, [1.0, l10, l20]),
        (d1, [0.0, 1.0, l21]),
        (d2, [0.0, 0.0, 1.0]),
    ])
}

/// `v / |v|`, `None` for the zero vector. Scaled by its largest component first, so that
/// no square overflows or underflows: `0 0 1e200` and `1e-200 0 0` are the unit axes they
/// point along (their squared norms, 1e400 and 1e-400, are beyond `f64`).
pub(crate) fn unit_vector(v: [f64; 3]) -> Option<[f64; 3]> {
    let largest = v.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    if largest == 0.0 || !largest.is_finite() {
        return None;
    }
    let scaled = v.map(|x| x / largest);
    let norm = scaled.iter().map(|x| x * x).sum::<f64>().sqrt();
    Some(scaled.map(|x| x / norm))
}

fn apply(m: &Matrix, v: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|i| (0..3).map(|k| m[i][k] * v[k]).sum())
}

/// An identifier from a name of the file: characters an identifier cannot hold become
/// `_`, and a name that would be a keyword gets a trailing `_` (`type_`, `async_`; the
/// names generated from such files since they were first read). `gen`, an identifier until
/// the 2024 edition, is kept and written raw ([`escaped`]).
fn identifier(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) || s == "_" {
        s.insert(0, '_');
    }
    if syn::parse_str::<Ident>(&s).is_err() {
        s.push('_');
    }
    s
}

/// The identifier of a name ([`identifier`]'s characters), raw when it is reserved in a
/// later edition of Rust (`r#gen`), as the model's own names are kept: the generated code
/// then compiles in every edition, whatever the edition of the user's crate.
fn escaped(name: &str, span: Span) -> Ident {
    crate::parse::usable_in_every_edition(&Ident::new(name, span))
}

/// Where the joints of a file in which every link has a parent close a loop: from the
/// first link, up through the joints whose child it is, to the first link met twice; the
/// joint into it names the loop, at its line.
fn loop_error(links: &[Link], joints: &[Joint]) -> FileError {
    let mut met = vec![false; links.len()];
    let mut link = 0;
    loop {
        met[link] = true;
        let Some(j) = joints.iter().position(|j| j.child == link) else {
            unreachable!("every link has a parent when there is no root")
        };
        let parent = joints[j].parent;
        if met[parent] {
            return (
                Some(joints[j].line),
                format!(
                    "the joints form a loop, closed by joint `{}` (from `{}` to `{}`): no link \
                     is the root, and a robot is a tree",
                    joints[j].name, links[parent].name, links[joints[j].child].name
                ),
            );
        }
        link = parent;
    }
}

/// The first cycle of mimic joints, in the order of the file, each joint of it followed by
/// the one it mimics (one joint when it mimics itself): `leader[j]` is the joint that joint
/// `j` mimics.
fn mimic_cycle(leader: &[Option<usize>]) -> Option<Vec<usize>> {
    for start in 0..leader.len() {
        let mut path = vec![start];
        let mut at = start;
        while let Some(next) = leader[at] {
            if let Some(k) = path.iter().position(|&p| p == next) {
                let cycle = &path[k..];
                // From its first joint in the file, so that each cycle is told one way.
                let first = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap_or(0);
                return Some([&cycle[first..], &cycle[..first]].concat());
            }
            path.push(next);
            at = next;
        }
    }
    None
}

/// Why a cycle of mimic joints is refused, naming each joint and its line.
fn cycle_message(joints: &[Joint], cycle: &[usize]) -> String {
    let first = &joints[cycle[0]];
    if let [_] = cycle {
        return format!(
            "joint `{}` mimics itself: its constraint q = {} q + {} holds it at one position \
             (or at none, or at every one), and a mimic joint follows another joint",
            first.name,
            first.mimic.as_ref().map_or(1.0, |m| m.1),
            first.mimic.as_ref().map_or(0.0, |m| m.2),
        );
    }
    let steps: Vec<String> = cycle
        .iter()
        .map(|&j| {
            let joint = &joints[j];
            let other = joint.mimic.as_ref().map_or("", |m| m.0.as_str());
            format!("`{}` (line {}) mimics `{other}`", joint.name, joint.line)
        })
        .collect();
    format!(
        "the mimic joints form a cycle: {}; each follows the next, so none moves on its own \
         and the constraints hold them at one position (or leave them undetermined)",
        steps.join(", ")
    )
}

/// The coordinates of a floating base with their units: the root's position and unit
/// quaternion, declared first and claimed before the file's names.
const FLOATING_BASE: [(&str, &str); 7] = [
    ("base_x", "m"),
    ("base_y", "m"),
    ("base_z", "m"),
    ("base_qw", "1"),
    ("base_qx", "1"),
    ("base_qy", "1"),
    ("base_qz", "1"),
];

/// Writes the statements, every token at `span`.
struct Writer {
    span: Span,
    units: bool,
}

impl Writer {
    fn ident(&self, name: &str) -> Ident {
        escaped(name, self.span)
    }

    fn name(&self, name: &str) -> Expr {
        Expr::Name(self.ident(name))
    }

    /// A literal, with its unit when the model carries units.
    fn number(&self, value: f64, unit: Option<Si>) -> Expr {
        let number = Expr::Number(Number {
            value: value.abs(),
            span: self.span,
        });
        let literal = if value.is_sign_negative() && value != 0.0 {
            Expr::Neg {
                minus: self.span,
                operand: Box::new(number),
            }
        } else {
            number
        };
        self.with_unit(literal, unit)
    }

    /// `value [unit]` when the model carries units.
    fn with_unit(&self, value: Expr, unit: Option<Si>) -> Expr {
        match unit.filter(|_| self.units) {
            Some(u) => Expr::Quantity {
                value: Box::new(value),
                unit: crate::parse::unit_at(u.text(), self.span),
                close: self.span,
            },
            None => value,
        }
    }

    fn binary(&self, op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        }
    }

    fn call(&self, func: &str, args: Vec<Expr>) -> Expr {
        Expr::Call {
            func: self.ident(func),
            args,
            method: false,
            close: self.span,
        }
    }

    fn list(&self, items: Vec<Expr>) -> Expr {
        Expr::List {
            items,
            open: self.span,
            close: self.span,
        }
    }

    fn vector(&self, v: [f64; 3], unit: Option<Si>) -> Expr {
        let list = self.list(v.iter().map(|&x| self.number(x, None)).collect());
        self.with_unit(list, unit)
    }

    fn matrix(&self, m: &Matrix, unit: Option<Si>) -> Expr {
        let rows = m.iter().map(|row| self.vector(*row, None)).collect();
        self.with_unit(self.list(rows), unit)
    }

    /// A declaration's unit, when the model carries units.
    fn unit(&self, text: &str) -> Option<crate::ast::UnitExpr> {
        self.units.then(|| crate::parse::unit_at(text, self.span))
    }

    fn declared(&self, name: &str, unit: &str) -> Declared {
        Declared {
            name: self.ident(name),
            unit: self.unit(unit),
        }
    }

    fn let_(&self, name: &str, value: Expr) -> Statement {
        Statement::Let {
            name: self.ident(name),
            value,
        }
    }

    /// A sum of terms; `0` for none.
    fn sum(&self, terms: Vec<Expr>) -> Expr {
        self.total(terms.into_iter().map(Some))
            .unwrap_or_else(|| self.number(0.0, None))
    }

    /// The sum of the terms present; `None` for none (a velocity that is zero).
    fn total(&self, terms: impl IntoIterator<Item = Option<Expr>>) -> Option<Expr> {
        terms
            .into_iter()
            .flatten()
            .reduce(|a, b| self.binary(BinOp::Add, a, b))
    }

    /// The rotation of a joint by its coordinate `q` about its unit `axis`: an axis
    /// rotation when the axis is a coordinate axis, so that its zeros stay literal.
    fn joint_rotation(&self, axis: [f64; 3], q: &str) -> Expr {
        for (k, f) in ["rot_x", "rot_y", "rot_z"].iter().enumerate() {
            let others = (0..3).filter(|&i| i != k).all(|i| axis[i] == 0.0);
            if others && axis[k].abs() == 1.0 {
                let angle = if axis[k] > 0.0 {
                    self.name(q)
                } else {
                    Expr::Neg {
                        minus: self.span,
                        operand: Box::new(self.name(q)),
                    }
                };
                return self.call(f, vec![angle]);
            }
        }
        self.call("rot", vec![self.vector(axis, None), self.name(q)])
    }

    /// ½ ω_bᵀ I ω_b of link `id` turning at `w` (world frame), I its inertia about the
    /// centre of mass in its frame and ω_b = L_Rᵀ w: with I = L D Lᵀ (L unit lower
    /// triangular, D diagonal, at compile time), Σ_k d_k/2 (l_kᵀ ω_b)² = Σ_k d_k/2
    /// ((L_R l_k) · w)², l_k the columns of L. Three squares whose velocity derivatives
    /// are three products each, where ωᵀ I ω would take nine, and L_R l₂ is a column of
    /// L_R. An inertia without that factorization (a zero pivot over a nonzero entry, not
    /// a physical one) or whose factors overflow `f64` is written as ½ ω_bᵀ I ω_b.
    fn rotational_energy(&self, id: &str, tensor: &Matrix, w: &Expr) -> Vec<Expr> {
        let frame = || self.name(&format!("{id}_R"));
        let half = |d: f64| self.number(d / 2.0, Some(Si::KilogramMetreSquared));
        // A factor whose entries (or halved pivots) overflow, as a tiny pivot under large
        // entries can make them, is not used: the tensor itself is finite.
        let finite = |factor: &[(f64, [f64; 3]); 3]| {
            factor
                .iter()
                .all(|(d, l)| (d / 2.0).is_finite() && l.iter().all(|x| x.is_finite()))
        };
        let Some(factor) = unit_ldlt(tensor).filter(finite) else {
            let body = self.call("transpose", vec![frame()]);
            let body = self.binary(BinOp::Mul, body, w.clone());
            let spin = self.binary(
                BinOp::Mul,
                self.matrix(tensor, Some(Si::KilogramMetreSquared)),
                body.clone(),
            );
            let energy = self.call("inner", vec![body, spin]);
            return vec![self.binary(BinOp::Div, energy, self.number(2.0, None))];
        };
        factor
            .into_iter()
            .filter(|&(d, _)| d != 0.0)
            .map(|(d, column)| {
                let axis = self.binary(BinOp::Mul, frame(), self.vector(column, None));
                let along = self.call("inner", vec![axis, w.clone()]);
                self.binary(
                    BinOp::Mul,
                    half(d),
                    self.binary(BinOp::Mul, along.clone(), along),
                )
            })
            .collect()
    }

    /// The statements and the joint limits.
    #[allow(clippy::too_many_lines)]
    fn statements(
        &self,
        robot: &Urdf,
        floating: bool,
        declared: &[String],
        own_coordinates: bool,
    ) -> Result<(Vec<Statement>, Limits), Failure> {
        let declare_g = !declared.iter().any(|n| n == "g");
        let (links, joints) = (&robot.links, &robot.joints);
        if links.is_empty() {
            return Err(Failure::File(None, "the robot has no links".into()));
        }
        // The root: the one link that is no joint's child.
        let children: Vec<usize> = joints.iter().map(|j| j.child).collect();
        let roots: Vec<usize> = (0..links.len()).filter(|l| !children.contains(l)).collect();
        let root = match roots.as_slice() {
            [root] => *root,
            [] => return Err(loop_error(links, joints).into()),
            [a, b, ..] => {
                return Err(Failure::File(
                    Some(links[*b].line),
                    format!(
                        "two root links, `{}` and `{}`: a robot is one tree",
                        links[*a].name, links[*b].name
                    ),
                ))
            }
        };
        // Depth first from the root, a link's child joints in file order.
        let mut order = Vec::new();
        let mut stack = vec![root];
        let mut seen = vec![false; links.len()];
        while let Some(link) = stack.pop() {
            seen[link] = true;
            let below: Vec<usize> = (0..joints.len())
                .filter(|&j| joints[j].parent == link)
                .collect();
            for &j in below.iter().rev() {
                stack.push(joints[j].child);
            }
            if link != root {
                let j = (0..joints.len())
                    .find(|&j| joints[j].child == link)
                    .expect("a child");
                order.push(j);
            }
        }
        if let Some(l) = (0..links.len()).find(|&l| !seen[l]) {
            return Err(Failure::File(
                Some(links[l].line),
                format!(
                    "link `{}` is on a loop of joints, not below the root",
                    links[l].name
                ),
            ));
        }
        // Identifiers, distinct after replacing characters, from each other and from the
        // names every URDF model declares (and, below, from the model's own declarations).
        let mut taken: HashMap<String, (String, Option<u32>)> = HashMap::new();
        let mut generated = vec![
            (
                "urdf_kinetic",
                "the `let` of the kinetic energy every URDF model has",
            ),
            (
                "urdf_potential",
                "the `let` of the potential energy every URDF model has",
            ),
            (
                "urdf_dissipation",
                "the `let` of the dissipation every URDF model has",
            ),
        ];
        if declare_g {
            generated.push((
                "g",
                "the parameter of gravity a URDF model declares unless the model does",
            ));
        }
        if floating {
            generated
                .extend(FLOATING_BASE.map(|(name, _)| (name, "a coordinate of the floating base")));
            generated.push((
                "base_unit",
                "the constraint of the floating base's unit quaternion",
            ));
        }
        for (name, what) in generated {
            taken.insert(name.to_string(), (what.to_string(), None));
        }
        let mut claim = |id: String, what: String, line: u32| -> Result<String, FileError> {
            if let Some(meaning) = language_name(&id) {
                return Err((
                    Some(line),
                    format!("{what} is `{id}` as an identifier, which is {meaning}: rename it in the file"),
                ));
            }
            match taken.get(&id) {
                Some((other, Some(at))) => Err((
                    Some(line),
                    format!(
                        "{what} and {other} (line {at}) are both `{id}` as identifiers: \
                         rename one of them in the file"
                    ),
                )),
                Some((other, None)) => Err((
                    Some(line),
                    format!(
                        "{what} is `{id}` as an identifier, which is {other}: rename it in the file"
                    ),
                )),
                None => {
                    taken.insert(id.clone(), (what, Some(line)));
                    Ok(id)
                }
            }
        };
        let mut link_id = vec![String::new(); links.len()];
        for (l, link) in links.iter().enumerate() {
            let id = identifier(&link.name);
            for suffix in ["R", "p", "c"] {
                claim(
                    format!("{id}_{suffix}"),
                    format!("link `{}`", link.name),
                    link.line,
                )?;
            }
            link_id[l] = id;
        }
        let mut joint_id = vec![String::new(); joints.len()];
        for &j in &order {
            let joint = &joints[j];
            if joint.kind != Kind::Fixed {
                joint_id[j] = claim(
                    identifier(&joint.name),
                    format!("joint `{}`", joint.name),
                    joint.line,
                )?;
            }
        }
        for &j in &order {
            let joint = &joints[j];
            if joint.mimic.is_some() && joint.kind != Kind::Fixed {
                claim(
                    format!("mimic_{}", joint_id[j]),
                    format!("the constraint of mimic joint `{}`", joint.name),
                    joint.line,
                )?;
            }
        }
        // The model's own declarations come after the file's names: a clash is reported
        // at the path, naming the file's joint or link, and at the declaration.
        let mut clashes = Vec::new();
        for (k, name) in declared.iter().enumerate() {
            let Some((what, line)) = taken.get(name) else {
                continue;
            };
            let message = match line {
                // The model's `g` stands for the import's own, which the file's name would
                // then take: the file's name is the one to change.
                Some(_) if name == "g" => format!(
                    "{what} is `g` as an identifier, the name of gravity, which the model \
                     declares: rename it in the file"
                ),
                Some(_) => format!(
                    "{what} is `{name}` as an identifier, which the model declares too: \
                     rename the model's `{name}`"
                ),
                None => format!(
                    "`{name}` is {what}, and the model declares it too: rename the model's \
                     `{name}`"
                ),
            };
            clashes.push((k, *line, message));
        }
        if !clashes.is_empty() {
            return Err(Failure::Declared(clashes));
        }

        let mut out = Vec::new();
        let mut coordinates = Vec::new();
        if floating {
            for (n, unit) in FLOATING_BASE {
                coordinates.push(self.declared(n, unit));
            }
        }
        let mut limits = Vec::new();
        for &j in &order {
            let joint = &joints[j];
            let unit = match joint.kind {
                Kind::Fixed => continue,
                Kind::Prismatic => "m",
                Kind::Revolute | Kind::Continuous => "rad",
            };
            coordinates.push(self.declared(&joint_id[j], unit));
            limits.push((joint_id[j].clone(), joint.limit));
        }
        if coordinates.is_empty() && !own_coordinates {
            let fixed = joints.len();
            let joints = match fixed {
                0 => "it has no joints".to_string(),
                1 => "its one joint is fixed".to_string(),
                n => format!("its {n} joints are all fixed"),
            };
            return Err(Failure::File(
                None,
                format!(
                    "the robot has no movable joint ({joints}), so the model has no \
                     coordinates: give the root a free base with `floating` after the path, \
                     or declare coordinates of the model's own"
                ),
            ));
        }
        if !coordinates.is_empty() {
            out.push(Statement::Coordinates(coordinates));
        }
        if declare_g {
            out.push(Statement::Parameters(vec![Parameter {
                name: self.ident("g"),
                default: Some(self.number(9.81, None)),
                unit: self.unit("m/s^2"),
            }]));
        }

        // The root's frame, then each link's below its joint.
        let r = &link_id[root];
        let identity = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let (root_r, root_p) = if floating {
            (
                self.call(
                    "quat",
                    ["base_qw", "base_qx", "base_qy", "base_qz"]
                        .map(|n| self.name(n))
                        .into(),
                ),
                self.list(["base_x", "base_y", "base_z"].map(|n| self.name(n)).into()),
            )
        } else {
            (
                self.matrix(&identity, None),
                self.vector([0.0; 3], Some(Si::Metre)),
            )
        };
        out.push(self.let_(&format!("{r}_R"), root_r));
        out.push(self.let_(&format!("{r}_p"), root_p));
        // Whether each link's frame moves with the coordinates.
        let mut moves = vec![false; links.len()];
        moves[root] = floating;
        let mut frames = vec![root];
        // Each link's origin from the reference point o, the world's origin or with
        // `floating` the root's: `L_p`, or with `floating` the sum of the arms from the
        // root (`None`: o itself), never a difference of positions far from the origin.
        let mut from_o: Vec<Option<Expr>> = vec![None; links.len()];
        // Each link's angular velocity and the velocity of its point at o, in the world
        // frame, as expressions of its parent's (`None`: zero, a link that does not move).
        let mut omega: Vec<Option<Expr>> = vec![None; links.len()];
        let mut velocity: Vec<Option<Expr>> = vec![None; links.len()];
        if floating {
            omega[root] = Some(self.call("angular_velocity", vec![self.name(&format!("{r}_R"))]));
            velocity[root] = Some(self.call("dot", vec![self.name(&format!("{r}_p"))]));
        }
        for &j in &order {
            let joint = &joints[j];
            let (parent, child) = (&link_id[joint.parent], &link_id[joint.child]);
            moves[joint.child] = moves[joint.parent] || joint.kind != Kind::Fixed;
            let origin = rpy_matrix(joint.rpy);
            let mut rotation = self.name(&format!("{parent}_R"));
            if origin != identity {
                rotation = self.binary(BinOp::Mul, rotation, self.matrix(&origin, None));
            }
            let mut offset = self.vector(joint.xyz, Some(Si::Metre));
            let parent_r = || self.name(&format!("{parent}_R"));
            // The joint's axis in the world frame times its rate.
            let along = apply(&origin, joint.axis);
            let rate = || {
                let axis = self.binary(BinOp::Mul, parent_r(), self.vector(along, None));
                self.binary(
                    BinOp::Mul,
                    self.call("dot", vec![self.name(&joint_id[j])]),
                    axis,
                )
            };
            let (mut spin, mut slide) = (None, None);
            match joint.kind {
                Kind::Revolute | Kind::Continuous => {
                    let turn = self.joint_rotation(joint.axis, &joint_id[j]);
                    rotation = self.binary(BinOp::Mul, rotation, turn);
                    spin = Some(rate());
                }
                Kind::Prismatic => {
                    let slide_by = self.binary(
                        BinOp::Mul,
                        self.name(&joint_id[j]),
                        self.vector(along, None),
                    );
                    offset = self.binary(BinOp::Add, offset, slide_by);
                    slide = Some(rate());
                }
                Kind::Fixed => {}
            }
            let arm = self.binary(BinOp::Mul, parent_r(), offset);
            // ω_L = ω_P + a q̇; v_L = v_P + ((L_p − o) × a) q̇ for a revolute joint, v_P +
            // a q̇ for a prismatic one.
            let (w_parent, v_parent) = (&omega[joint.parent], &velocity[joint.parent]);
            from_o[joint.child] = if floating {
                self.total([from_o[joint.parent].clone(), Some(arm.clone())])
            } else {
                Some(self.name(&format!("{child}_p")))
            };
            let turning = spin
                .clone()
                .zip(from_o[joint.child].clone())
                .map(|(spin, at)| self.call("cross", vec![at, spin]));
            velocity[joint.child] = self.total([v_parent.clone(), turning, slide]);
            omega[joint.child] = self.total([w_parent.clone(), spin]);
            let position = self.binary(BinOp::Add, self.name(&format!("{parent}_p")), arm);
            out.push(self.let_(&format!("{child}_R"), rotation));
            out.push(self.let_(&format!("{child}_p"), position));
            frames.push(joint.child);
        }
        // Centres of mass, and the energies.
        let (mut kinetic, mut potential) = (Vec::new(), Vec::new());
        for &l in &frames {
            let id = &link_id[l];
            let inertial = links[l].inertial.as_ref();
            let com = inertial.map_or([0.0; 3], |i| i.xyz);
            // The centre of mass from the link's origin, R times the file's offset (`None`:
            // the origin itself).
            let offset = (com != [0.0; 3]).then(|| {
                self.binary(
                    BinOp::Mul,
                    self.name(&format!("{id}_R")),
                    self.vector(com, Some(Si::Metre)),
                )
            });
            let c = self.total([Some(self.name(&format!("{id}_p"))), offset.clone()]);
            out.push(self.let_(&format!("{id}_c"), c.expect("a position")));
            let Some(inertial) = inertial.filter(|i| i.mass > 0.0 || i.tensor != [[0.0; 3]; 3])
            else {
                continue;
            };
            // A link that does not move adds constants to the energies: left out, as
            // Pinocchio leaves it out.
            if !moves[l] {
                continue;
            }
            let m = inertial.mass;
            let c = || self.name(&format!("{id}_c"));
            // The centre of mass from o.
            let r = if floating {
                self.total([from_o[l].clone(), offset])
            } else {
                Some(c())
            };
            if m > 0.0 {
                // m g c_z
                let height = Expr::Index {
                    base: Box::new(c()),
                    indices: vec![Index {
                        value: 2,
                        span: self.span,
                    }],
                    close: self.span,
                };
                let weight = self.binary(
                    BinOp::Mul,
                    self.number(m, Some(Si::Kilogram)),
                    self.name("g"),
                );
                potential.push(self.binary(BinOp::Mul, weight, height));
                // ċ = v + ω × r: v, the velocity of the link's point at o, and ω have
                // velocity Jacobians that are the same for every link below a joint.
                let turning = omega[l]
                    .clone()
                    .zip(r)
                    .map(|(w, r)| self.call("cross", vec![w, r]));
                if let Some(v) = self.total([velocity[l].clone(), turning]) {
                    let speed = self.call("inner", vec![v.clone(), v]);
                    let half = self.number(m / 2.0, Some(Si::Kilogram));
                    kinetic.push(self.binary(BinOp::Mul, half, speed));
                }
            }
            if inertial.tensor != [[0.0; 3]; 3] {
                if let Some(w) = omega[l].clone() {
                    kinetic.extend(self.rotational_energy(id, &inertial.tensor, &w));
                }
            }
        }
        let kinetic = self.sum(kinetic);
        out.push(self.let_("urdf_kinetic", kinetic));
        let potential = self.sum(potential);
        out.push(self.let_("urdf_potential", potential));
        let mut dissipation = Vec::new();
        for &j in &order {
            let joint = &joints[j];
            if joint.kind == Kind::Fixed || joint.damping == 0.0 {
                continue;
            }
            let unit = if joint.kind == Kind::Prismatic {
                Si::NewtonSecondPerMetre
            } else {
                Si::NewtonMetreSecond
            };
            let rate = self.binary(
                BinOp::Pow,
                self.call("dot", vec![self.name(&joint_id[j])]),
                self.number(2.0, None),
            );
            let half = self.binary(
                BinOp::Div,
                self.number(joint.damping, Some(unit)),
                self.number(2.0, None),
            );
            dissipation.push(self.binary(BinOp::Mul, half, rate));
        }
        let dissipation = self.sum(dissipation);
        out.push(self.let_("urdf_dissipation", dissipation));
        // Constraints: the base's unit quaternion, and mimic joints.
        if floating {
            let squares = ["base_qw", "base_qx", "base_qy", "base_qz"]
                .map(|n| self.binary(BinOp::Pow, self.name(n), self.number(2.0, None)));
            let norm = self.sum(squares.into());
            out.push(Statement::Constraint {
                name: self.ident("base_unit"),
                value: self.binary(BinOp::Sub, norm, self.number(1.0, None)),
            });
        }
        // Mimic joints: each follows the joint it names. A `<mimic>` on a fixed joint means
        // nothing (urdfdom and Pinocchio load it and ignore it): users lock a finger of a
        // gripper by changing its type alone.
        let mut leader = vec![None; joints.len()];
        for (j, joint) in joints.iter().enumerate() {
            let Some((other, ..)) = &joint.mimic else {
                continue;
            };
            if joint.kind == Kind::Fixed {
                continue;
            }
            let Some(o) = joints.iter().position(|k| &k.name == other) else {
                return Err(Failure::File(
                    Some(joint.line),
                    format!("joint `{}` mimics no joint `{other}`", joint.name),
                ));
            };
            if joints[o].kind == Kind::Fixed {
                return Err(Failure::File(
                    Some(joint.line),
                    format!(
                        "joint `{}` mimics `{other}`, a fixed joint, which has no coordinate",
                        joint.name
                    ),
                ));
            }
            leader[j] = Some(o);
        }
        if let Some(cycle) = mimic_cycle(&leader) {
            return Err(Failure::File(
                Some(joints[cycle[0]].line),
                cycle_message(joints, &cycle),
            ));
        }
        for &j in &order {
            let joint = &joints[j];
            let (Some((_, multiplier, offset)), Some(o)) = (&joint.mimic, leader[j]) else {
                continue;
            };
            // q = multiplier · q_leader + offset: the multiplier converts the leader's
            // unit into the follower's (m/rad for a prismatic joint following a revolute
            // one), the offset is in the follower's.
            let prismatic = |k: usize| joints[k].kind == Kind::Prismatic;
            let per = match (prismatic(j), prismatic(o)) {
                (true, false) => Some(Si::MetrePerRadian),
                (false, true) => Some(Si::RadianPerMetre),
                _ => None,
            };
            let unit = prismatic(j).then_some(Si::Metre);
            let followed = self.binary(
                BinOp::Mul,
                self.number(*multiplier, per),
                self.name(&joint_id[o]),
            );
            let target = self.binary(BinOp::Add, followed, self.number(*offset, unit));
            let name = format!("mimic_{}", joint_id[j]);
            out.push(Statement::Constraint {
                name: self.ident(&name),
                value: self.binary(BinOp::Sub, self.name(&joint_id[j]), target),
            });
        }
        Ok((out, limits))
    }
}
