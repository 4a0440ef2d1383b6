//! The identifiers of the file's names: characters an identifier cannot hold replaced,
//! keywords escaped ([`identifier`], [`escaped`]), and each claimed once ([`claim_all`]): the
//! links' frames (`L_R`, `L_p`, `L_c`), the joints' coordinates and their mimic constraints
//! must differ from each other, from the names every URDF model declares (the energies,
//! the centroidal `let`s, `g`, the floating base's [`FLOATING_BASE`]), from the language's names, and from the
//! model's own declarations.

use super::failure::{Failure, FileError};
use super::xml::Urdf;
use crate::func::{Builtin, Func};
use proc_macro2::Span;
use std::collections::HashMap;
use syn::Ident;

/// The identifier of each link (its frames are `L_R`, `L_p`, `L_c`) and of each joint's
/// coordinate (empty for a joint without one).
pub struct Identifiers {
    pub links: Vec<String>,
    pub joints: Vec<String>,
}

/// Claims the identifiers of the joints in `order` (the tree's walk) and of every link, or
/// says which names clash: in the file, with the names every URDF model declares (`g`
/// with `declare_g`, the base's with `floating`), or with the model's own `declared` ones.
pub fn claim_all(
    robot: &Urdf,
    order: &[usize],
    floating: bool,
    declare_g: bool,
    actuated: bool,
    declared: &[String],
) -> Result<Identifiers, Failure> {
    let (links, joints) = (&robot.links, &robot.joints);
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
        (
            "urdf_mass",
            "the `let` of the total mass every URDF model has",
        ),
        (
            "urdf_com",
            "the `let` of the centre of mass every URDF model with mass has",
        ),
        (
            "urdf_momentum",
            "the `let` of the linear momentum every URDF model has",
        ),
        (
            "urdf_angular_momentum",
            "the `let` of the angular momentum every URDF model has",
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
                format!(
                    "{what} is `{id}` as an identifier, which is {meaning}: rename it in the file"
                ),
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
    for &j in order {
        let joint = &joints[j];
        if joint.kind.motion().is_some() {
            joint_id[j] = claim(
                identifier(&joint.name),
                format!("joint `{}`", joint.name),
                joint.line,
            )?;
        }
    }
    for &j in order {
        let joint = &joints[j];
        if joint.mimic.is_some() && joint.kind.motion().is_some() {
            claim(
                format!("mimic_{}", joint_id[j]),
                format!("the constraint of mimic joint `{}`", joint.name),
                joint.line,
            )?;
        }
        if actuated && joint.mimic.is_none() && joint.kind.motion().is_some() {
            claim(
                format!("tau_{}", joint_id[j]),
                format!("the input of joint `{}` (`actuated`)", joint.name),
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
    Ok(Identifiers {
        links: link_id,
        joints: joint_id,
    })
}

/// The coordinates of a floating base with their units: the root's position and unit
/// quaternion, declared first and claimed before the file's names.
pub const FLOATING_BASE: [(&str, &str); 7] = [
    ("base_x", "m"),
    ("base_y", "m"),
    ("base_z", "m"),
    ("base_qw", "1"),
    ("base_qx", "1"),
    ("base_qy", "1"),
    ("base_qz", "1"),
];

/// What a name means to the language when it is a built-in name or a function's, which a
/// URDF's joint cannot be named as.
fn language_name(id: &str) -> Option<String> {
    if let Some(builtin) = Builtin::from_name(id) {
        Some(format!("the built-in name `{id}` ({})", builtin.meaning()))
    } else {
        Func::from_name(id).map(|_| format!("the function `{id}`"))
    }
}

/// An identifier from a name of the file: characters an identifier cannot hold become
/// `_`, and a name that would be a keyword gets a trailing `_` (`type_`, `async_`; the
/// names generated from such files since they were first read). `gen`, an identifier until
/// the 2024 edition, is kept and written raw ([`escaped`]).
pub fn identifier(name: &str) -> String {
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
pub fn escaped(name: &str, span: Span) -> Ident {
    crate::parse::usable_in_every_edition(&Ident::new(name, span))
}
