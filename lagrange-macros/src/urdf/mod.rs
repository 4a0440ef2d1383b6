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
//!   v_L, the velocity of the link's point at the reference o (the origin of the nearest
//!   link above that does not move, or with `floating` the root's origin): v_L = v_P +
//!   ((L_p − o) × a) q̇ for a revolute joint, v_P + a q̇ for a prismatic one; ċ = v_L +
//!   ω_L × (L_c − o), with L_p − o the sum of the arms from o, never a difference of
//!   positions measured from the world's origin, so that a robot's numbers do not depend
//!   on where it stands (`tests/urdf_robots.rs`,
//!   `a_floating_robot_far_from_the_origin_moves_as_near_it` and
//!   `a_fixed_robot_far_from_the_origin_moves_as_near_it`). The root's are
//!   zero, or with `floating` ω = `angular_velocity(root_R)` and v = `dot(root_p)`. The
//!   rotational energy is written as three squares through I = L D Lᵀ
//!   (`writer::Writer::rotational_energy`). Every link below a joint shares the joint's a and
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
//! - the centroidal `let`s `urdf_mass`, `urdf_com`, `urdf_momentum` and
//!   `urdf_angular_momentum` (about `urdf_com`, world axes), of the links that move (as
//!   Pinocchio's and `urdf_potential`), the momenta from the kinetic energy's velocities
//!   and rotational terms, every lever from the velocities' reference o
//!   (`writer::Writer::centroidal`);
//!   without mass that moves no `urdf_com`, and naming it is an error at the name;
//! - `constraint mimic_<joint>` for a mimic joint, `constraint base_unit` for the floating
//!   base's quaternion; and each joint's limits, for `Name::JOINT_LIMITS`.
//!
//! Refused, each at its line, besides what the format itself forbids: values no body has
//! (a negative mass, an inertia with a negative principal moment beyond rounding,
//! [`INDEFINITE_INERTIA`](xml::INDEFINITE_INERTIA), a negative damping or friction, limits with lower above upper),
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
//!
//! One file per concern, in the order a file goes through them:
//!
//! - [`xml`]: the file's text → [`xml::Urdf`], its links (with their inertials) and joints
//!   (with their limits, damping and mimic) in the order of the file, and the refusals
//!   that concern one element (numbers, names, links, limits, masses, inertias);
//! - [`kind`]: the kinds of joint, and every decision that depends on the kind, each a
//!   method with an exhaustive `match`, so that a new kind makes the compiler list them;
//! - [`maths`]: the 3×3 maths in `f64` (an `rpy`'s rotation, unit vectors, the
//!   eigenvalues of an inertia and its L D Lᵀ factorization);
//! - [`order`]: the tree, its root and the depth-first walk of its joints, and the
//!   refusals of a file that is not one tree;
//! - [`names`](mod@names): the identifiers of the file's names (keywords escaped), each claimed once
//!   against each other, the names every URDF model declares and the model's own;
//! - [`mimic`]: the joint each mimic joint follows, and the refusal of cycles;
//! - [`writer`]: the statements themselves ([`writer::Writer`]);
//! - [`units`]: the SI units of the file's numbers, [`failure`]: the errors' types.

mod failure;
mod kind;
pub(crate) mod maths;
mod mimic;
mod names;
mod order;
mod units;
mod writer;
mod xml;

use crate::ast::{Expr, Model, Robot, Statement};
use failure::Failure;
use syn::Ident;
use writer::Writer;

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
    let Statement::Urdf {
        path,
        floating,
        actuated,
        ..
    } = model.statements.remove(index)
    else {
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
    let robot = xml::parse(&text).map_err(|(line, m)| error(line, m))?;
    let writer = Writer {
        span: path.span(),
        units,
        actuated,
    };
    let names: Vec<String> = declared.iter().map(crate::check::key).collect();
    let (statements, joints, fixed_joints, tree) = writer
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
    // A robot without mass that moves has no centre of mass, and so no `urdf_com`
    // (`writer::Writer::centroidal`): where the model names it, say why.
    let com = statements
        .iter()
        .any(|s| matches!(s, Statement::Let { name, .. } if name == "urdf_com"));
    if !com {
        if let Some(at) = model.statements.iter().find_map(|s| naming(s, "urdf_com")) {
            return Err(syn::Error::new(
                at,
                format!(
                    "`urdf_com` is not declared: no link of `{}` that moves has mass \
                     (`urdf_mass` is 0), so the robot has no centre of mass",
                    path.value()
                ),
            ));
        }
    }
    model.statements.splice(0..0, statements);
    model.robot = Some(Robot {
        file,
        joints,
        fixed_joints,
        tree,
    });
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
        Statement::Let { name, .. }
        | Statement::Constraint { name, .. }
        | Statement::Contact { name, .. } => vec![name.clone()],
        _ => Vec::new(),
    }
}

/// Where a statement names `name` in an expression, if it does.
fn naming(statement: &Statement, name: &str) -> Option<proc_macro2::Span> {
    let exprs: Vec<&Expr> = match statement {
        Statement::Parameters(items) => items.iter().filter_map(|p| p.default.as_ref()).collect(),
        Statement::Let { value, .. }
        | Statement::Energy { value, .. }
        | Statement::Constraint { value, .. } => vec![value],
        Statement::Force { force, point } => vec![force, point],
        Statement::Contact {
            rotation, point, ..
        } => rotation.iter().chain([point]).collect(),
        Statement::Torque {
            torque, rotation, ..
        } => vec![torque, rotation],
        Statement::Coordinates(_) | Statement::Inputs(_) | Statement::Urdf { .. } => Vec::new(),
    };
    exprs.into_iter().find_map(|e| named(e, name))
}

/// Where an expression names `name`, if it does.
fn named(expr: &Expr, name: &str) -> Option<proc_macro2::Span> {
    match expr {
        Expr::Number(_) => None,
        Expr::Name(id) => (crate::check::key(id) == name).then(|| id.span()),
        Expr::Neg { operand: e, .. }
        | Expr::Paren { inner: e, .. }
        | Expr::Index { base: e, .. }
        | Expr::Component { base: e, .. }
        | Expr::Quantity { value: e, .. } => named(e, name),
        Expr::Binary { lhs, rhs, .. } => named(lhs, name).or_else(|| named(rhs, name)),
        Expr::Call { args: items, .. } | Expr::List { items, .. } => {
            items.iter().find_map(|e| named(e, name))
        }
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
