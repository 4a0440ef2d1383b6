//! `urdf: "path";`: what the file splices into the model, and every error about the file,
//! each an error that names the file and the line. The files are written to a temporary
//! directory and named by absolute path (a path relative to `CARGO_MANIFEST_DIR` is the
//! integration tests' case, `tests/urdf_robots.rs`).

use super::{compile_errors, parse_ok, statement_kind};
use quote::quote;

/// Writes `text` to a file of its own and returns its absolute path.
fn file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("lagrange-urdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("written");
    path.to_string_lossy().into_owned()
}

/// A two-link arm: a revolute shoulder, a prismatic forearm, a fixed tool.
const ARM: &str = r#"<?xml version="1.0"?>
<robot name="arm">
  <link name="base"/>
  <link name="upper">
    <inertial><origin xyz="0 0 0.2"/><mass value="2"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.02"/></inertial>
  </link>
  <link name="fore-arm">
    <inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <link name="tool"/>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/><axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.5" velocity="2" effort="40"/>
    <dynamics damping="0.5"/>
  </joint>
  <joint name="slide" type="prismatic">
    <parent link="upper"/><child link="fore-arm"/><origin xyz="0 0 0.4" rpy="0 1.5707963267948966 0"/>
    <axis xyz="1 0 0"/>
  </joint>
  <joint name="mount" type="fixed">
    <parent link="fore-arm"/><child link="tool"/><origin xyz="0.1 0 0"/>
  </joint>
</robot>
"#;

fn model_with(path: &str, rest: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    quote! {
        struct Arm {
            urdf: #path;
            #rest
        }
    }
}

#[test]
fn the_file_becomes_the_statements_a_user_would_write() {
    let path = file("arm.urdf", ARM);
    let mut model = parse_ok(model_with(&path, quote!(kinetic = urdf_kinetic;)));
    crate::urdf::splice(&mut model).expect("a valid file");
    let kinds: Vec<String> = model.statements.iter().map(statement_kind).collect();
    assert_eq!(
        kinds,
        [
            "coordinates(2)",
            "parameters(1)",
            "let base_R",
            "let base_p",
            "let upper_R",
            "let upper_p",
            "let fore_arm_R",
            "let fore_arm_p",
            "let tool_R",
            "let tool_p",
            "let base_c",
            "let upper_c",
            "let fore_arm_c",
            "let tool_c",
            "let urdf_kinetic",
            "let urdf_potential",
            "let urdf_dissipation",
            "let urdf_mass",
            "let urdf_com",
            "let urdf_momentum",
            "let urdf_angular_momentum",
            "kinetic",
        ]
    );
    let robot = model.robot.expect("the robot");
    let limits: Vec<(&str, Option<[f64; 4]>)> = robot
        .joints
        .iter()
        .map(|j| (j.name.as_str(), j.limit))
        .collect();
    assert_eq!(
        limits,
        [("shoulder", Some([-1.5, 1.5, 2.0, 40.0])), ("slide", None)]
    );
    // The whole model compiles without errors.
    let out = crate::expand(model_with(
        &path,
        quote!(kinetic = urdf_kinetic; potential = urdf_potential;),
    ));
    assert_eq!(compile_errors(&out), Vec::<String>::new());
    assert!(out.to_string().contains("JOINT_LIMITS"));
    assert!(out.to_string().contains("include_bytes"));
}

#[test]
fn a_declared_g_is_the_models_own() {
    let path = file("arm_g.urdf", ARM);
    let mut model = parse_ok(model_with(
        &path,
        quote!(parameters: g = 1.62; kinetic = urdf_kinetic;),
    ));
    crate::urdf::splice(&mut model).expect("a valid file");
    let kinds: Vec<String> = model.statements.iter().map(statement_kind).collect();
    assert_eq!(
        kinds.iter().filter(|k| k.starts_with("parameters")).count(),
        1
    );
}

#[test]
fn floating_base_and_mimic_joints_are_constraints() {
    let text = ARM.replace(
        r#"<joint name="mount" type="fixed">"#,
        r#"<joint name="twin" type="prismatic"><parent link="upper"/><child link="twin_link"/><mimic joint="slide" multiplier="-1" offset="0.01"/></joint>
  <link name="twin_link"/>
  <joint name="mount" type="fixed">"#,
    );
    let path = file("arm_twin.urdf", &text);
    let out = crate::expand(quote! {
        struct Floating {
            urdf: #path floating;
            kinetic = urdf_kinetic;
        }
    });
    assert_eq!(compile_errors(&out), Vec::<String>::new());
    let code = out.to_string();
    assert!(
        code.contains("\"base_unit\"") && code.contains("\"mimic_twin\""),
        "{code}"
    );
    for name in ["base_x", "base_qw", "shoulder", "slide", "twin"] {
        assert!(code.contains(&format!("\"{name}\"")), "{name}");
    }
}

/// The one error of a model over the file `text`.
fn error_of(name: &str, text: &str) -> (String, String) {
    let path = file(name, text);
    let out = crate::expand(model_with(&path, quote!(kinetic = urdf_kinetic;)));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{errors:?}");
    (path, errors[0].clone())
}

#[test]
fn errors_name_the_file_and_the_line() {
    let cases = [
        (
            "malformed",
            ARM.replace("</robot>", ""),
            "malformed XML",
            None,
        ),
        (
            "planar",
            ARM.replace(r#"type="prismatic""#, r#"type="planar""#),
            "joint `slide` is `planar`",
            Some(17),
        ),
        (
            "two_parents",
            ARM.replace(r#"<child link="tool"/>"#, r#"<child link="upper"/>"#),
            "link `upper` has two parents",
            Some(21),
        ),
        (
            "loop",
            ARM.replace(
                r#"<parent link="base"/><child link="upper"/>"#,
                r#"<parent link="tool"/><child link="upper"/>"#,
            ),
            "link `upper` is on a loop of joints",
            Some(4),
        ),
        (
            "two_roots",
            ARM.replace(
                r#"<link name="tool"/>"#,
                r#"<link name="tool"/><link name="spare"/>"#,
            ),
            "two root links, `base` and `spare`",
            Some(11),
        ),
        (
            "collision",
            ARM.replace(r#"name="slide""#, r#"name="shoulder""#),
            "a second joint named `shoulder`",
            Some(17),
        ),
        (
            "identifiers",
            ARM.replace(r#"name="tool""#, r#"name="fore_arm""#)
                .replace(r#"link="tool""#, r#"link="fore_arm""#),
            "are both `fore_arm_R` as identifiers",
            None,
        ),
        (
            "no_mass",
            ARM.replace(r#"<mass value="2"/>"#, r#"<mass value="two"/>"#),
            "is not a finite number",
            Some(5),
        ),
        (
            "unknown_link",
            ARM.replace(r#"<child link="tool"/>"#, r#"<child link="gripper"/>"#),
            "names no link `gripper`",
            Some(22),
        ),
    ];
    for (name, text, says, line) in cases {
        let (path, message) = error_of(&format!("{name}.urdf"), &text);
        assert!(message.starts_with(&path), "{name}: {message}");
        assert!(message.contains(says), "{name}: {message}");
        if let Some(line) = line {
            assert!(
                message.starts_with(&format!("{path}:{line}:")),
                "{name}: {message}"
            );
        }
    }
    // A file that is not there.
    let out = crate::expand(model_with(
        "/no/such/robot.urdf",
        quote!(kinetic = urdf_kinetic;),
    ));
    let errors = compile_errors(&out);
    assert!(
        errors[0].contains("cannot read the URDF file `/no/such/robot.urdf`"),
        "{errors:?}"
    );
}

#[test]
fn urdf_is_the_first_statement_and_its_names_are_checked() {
    let path = file("arm_order.urdf", ARM);
    let out = crate::expand(quote! {
        struct Late {
            coordinates: x;
            urdf: #path;
            kinetic = dot(x)^2;
        }
    });
    assert_eq!(
        compile_errors(&out),
        ["`urdf:` is the first statement of a model, and there is one"]
    );
    // A user declaration that collides with a name the file declares.
    let out = crate::expand(model_with(
        &path,
        quote!(coordinates: shoulder; kinetic = urdf_kinetic;),
    ));
    let errors = compile_errors(&out);
    assert!(
        errors[0].ends_with(
            "arm_order.urdf:12: joint `shoulder` is `shoulder` as an identifier, which the \
             model declares too: rename the model's `shoulder`"
        ) && errors[1] == "`shoulder` is declared here too",
        "{errors:?}"
    );
    // A joint named like the language's time, and one like a floating base's coordinate.
    for (name, meaning, floating) in [
        ("t", "the built-in name `t` (time)", quote!()),
        ("sin", "the function `sin`", quote!()),
        (
            "base_z",
            "a coordinate of the floating base",
            quote!(floating),
        ),
    ] {
        let path = file(&format!("arm_{name}.urdf"), &ARM.replace("shoulder", name));
        let out = crate::expand(quote! {
            struct Named {
                urdf: #path #floating;
                kinetic = urdf_kinetic;
            }
        });
        let errors = compile_errors(&out);
        assert!(
            errors[0].ends_with(&format!(
                "joint `{name}` is `{name}` as an identifier, which is {meaning}: rename it in \
                 the file"
            )),
            "{errors:?}"
        );
    }
}

/// The inertia's L D Lᵀ that writes the rotational energy as three squares rebuilds the
/// tensor, keeps a principal axis with zero inertia (a thin rod) as a zero pivot, and
/// refuses a zero pivot over a nonzero entry.
#[test]
fn the_inertia_factors_into_three_squares() {
    let tensor = [[0.3, 0.02, -0.01], [0.02, 0.25, 0.03], [-0.01, 0.03, 0.1]];
    let factor = crate::urdf::maths::unit_ldlt(&tensor).expect("positive definite");
    for i in 0..3 {
        for j in 0..3 {
            let rebuilt: f64 = factor.iter().map(|(d, l)| d * l[i] * l[j]).sum();
            assert!(
                (rebuilt - tensor[i][j]).abs() < 1e-15,
                "({i}, {j}): {rebuilt}"
            );
        }
    }
    let rod = [[0.0, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.2]];
    let factor = crate::urdf::maths::unit_ldlt(&rod).expect("semidefinite, diagonal");
    assert_eq!(factor.map(|(d, _)| d), [0.0, 0.2, 0.2]);
    let indefinite = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    assert!(crate::urdf::maths::unit_ldlt(&indefinite).is_none());
}

/// Each `(case, text, what the error says, line)`: the one error of the file, at its line.
fn assert_errors(cases: Vec<(&str, String, &str, Option<u32>)>) {
    for (name, text, says, line) in cases {
        assert_ne!(text, ARM, "{name}: the case changes the file");
        let (path, message) = error_of(&format!("{name}.urdf"), &text);
        let at = line.map_or(format!("{path}: "), |l| format!("{path}:{l}: "));
        assert!(message.starts_with(&at), "{name}: {message}");
        assert!(message.contains(says), "{name}: {message}");
    }
}

/// The file with `joint`'s line (`<joint name="joint" …>`) followed by `tag`.
fn with_tag(joint: &str, tag: &str) -> String {
    let open = ARM
        .lines()
        .find(|l| l.contains(&format!("<joint name=\"{joint}\"")))
        .expect("the joint");
    ARM.replace(open, &format!("{open}\n    {tag}"))
}

/// Mimic joints that follow each other, or themselves, would hold each other still: the
/// cycle is refused at its first joint's line, naming every joint of it.
#[test]
fn mimic_cycles_are_refused() {
    let both = with_tag("shoulder", r#"<mimic joint="slide" multiplier="2"/>"#);
    let both = both.replace(
        r#"<joint name="slide" type="prismatic">"#,
        r#"<joint name="slide" type="prismatic"><mimic joint="shoulder" multiplier="2"/>"#,
    );
    assert_errors(vec![
        (
            "mimic_cycle",
            both,
            "the mimic joints form a cycle: `shoulder` (line 12) mimics `slide`, `slide` \
             (line 18) mimics `shoulder`",
            Some(12),
        ),
        (
            "mimic_itself",
            with_tag("slide", r#"<mimic joint="slide" multiplier="2"/>"#),
            "joint `slide` mimics itself: its constraint q = 2 q + 0 holds it at one \
             position (or at none, or at every one)",
            Some(17),
        ),
    ]);
    // A chain that ends at a joint that moves on its own is fine.
    let path = file(
        "mimic_chain.urdf",
        &with_tag("slide", r#"<mimic joint="shoulder" multiplier="2"/>"#),
    );
    let out = crate::expand(model_with(&path, quote!(kinetic = urdf_kinetic;)));
    assert_eq!(compile_errors(&out), Vec::<String>::new());
}

/// Values no body has: an inertia with a negative principal moment, a negative damping
/// (it would feed energy in) or friction, limits with lower > upper. The triangle
/// inequality of the principal moments is not required, and a zero moment rounded below
/// zero by the digits the file was written with is accepted.
#[test]
fn physically_invalid_values_are_refused() {
    let inertia = r#"<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.02"/>"#;
    assert_errors(vec![
        (
            "indefinite_inertia",
            ARM.replace(
                inertia,
                r#"<inertia ixx="0.01" ixy="0.5" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>"#,
            ),
            "link `upper` has an inertia that is not positive semidefinite (its principal \
             moments are -4.900e-1, 1.000e-2, 5.100e-1)",
            Some(6),
        ),
        (
            "negative_damping",
            ARM.replace(r#"damping="0.5""#, r#"damping="-0.5""#),
            "joint `shoulder` has a negative damping, -0.5: it would add energy",
            Some(15),
        ),
        (
            "negative_friction",
            ARM.replace(r#"damping="0.5""#, r#"damping="0.5" friction="-1""#),
            "joint `shoulder` has a negative friction, -1",
            Some(15),
        ),
        (
            "limits_crossed",
            ARM.replace(r#"lower="-1.5" upper="1.5""#, r#"lower="3" upper="-3""#),
            "joint `shoulder` has the limits lower=\"3\" > upper=\"-3\"",
            Some(14),
        ),
    ]);
    for (name, tensor) in [
        // izz > ixx + iyy: no rigid body has it, but the energy is positive.
        (
            "triangle",
            r#"<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.5"/>"#,
        ),
        // A rod along (1, 1, 1): 0.1 (E − u uᵀ) to six digits, its zero moment
        // 0.0666667 − 2 · 0.0333334 = −1e-7, rounding of 5e-7 of the trace.
        (
            "rounded_rod",
            r#"<inertia ixx="0.0666667" ixy="-0.0333334" ixz="-0.0333334" iyy="0.0666667" iyz="-0.0333334" izz="0.0666667"/>"#,
        ),
    ] {
        let path = file(&format!("{name}.urdf"), &ARM.replace(inertia, tensor));
        let out = crate::expand(model_with(&path, quote!(kinetic = urdf_kinetic;)));
        assert_eq!(compile_errors(&out), Vec::<String>::new(), "{name}");
    }
}

/// The eigenvalues that decide whether an inertia is positive semidefinite, against
/// Q diag(λ) Qᵀ with Q a rotation: to a few ε of the largest, double roots included.
#[test]
fn inertia_eigenvalues_are_accurate() {
    let (c, s) = (0.6_f64, 0.8_f64);
    // Q = rot_z · rot_x, both with cos 0.6 and sin 0.8: exact in binary to an ulp.
    let q = [[c, -s * c, s * s], [s, c * c, -c * s], [0.0, s, c]];
    for lambda in [[0.5, -0.25, 1.0], [1.0, 1.0, 1e-17], [0.0, 0.3, 0.3]] {
        let m: [[f64; 3]; 3] = std::array::from_fn(|i| {
            std::array::from_fn(|j| (0..3).map(|k| q[i][k] * lambda[k] * q[j][k]).sum())
        });
        let mut got = crate::urdf::maths::symmetric_eigenvalues(m);
        got.sort_by(f64::total_cmp);
        let mut want = lambda;
        want.sort_by(f64::total_cmp);
        for k in 0..3 {
            assert!(
                (got[k] - want[k]).abs() < 8.0 * f64::EPSILON,
                "{got:?} {want:?}"
            );
        }
    }
}

/// Axes whose squared norm is beyond `f64` (1e400, 1e-400) are the unit axes they point
/// along; the zero axis is still refused.
#[test]
fn axes_are_normalized_at_any_scale() {
    use crate::urdf::maths::unit_vector;
    assert_eq!(unit_vector([0.0, 0.0, 1e200]), Some([0.0, 0.0, 1.0]));
    assert_eq!(unit_vector([1e-200, 0.0, 0.0]), Some([1.0, 0.0, 0.0]));
    assert_eq!(unit_vector([0.0, -5e-324, 0.0]), Some([0.0, -1.0, 0.0]));
    let diagonal = unit_vector([3e200, 4e200, 0.0]).expect("an axis");
    assert!((diagonal[0] - 0.6).abs() < 1e-16 && (diagonal[1] - 0.8).abs() < 1e-16);
    assert_eq!(unit_vector([0.0; 3]), None);
    let text = ARM
        .replace(r#"<axis xyz="0 1 0"/>"#, r#"<axis xyz="0 1e200 0"/>"#)
        .replace(r#"<axis xyz="1 0 0"/>"#, r#"<axis xyz="1e-200 0 0"/>"#);
    let path = file("huge_axes.urdf", &text);
    let mut model = parse_ok(model_with(&path, quote!(kinetic = urdf_kinetic;)));
    crate::urdf::splice(&mut model).expect("a valid file");
    let out = crate::expand(model_with(&path, quote!(kinetic = urdf_kinetic;)));
    assert_eq!(compile_errors(&out), Vec::<String>::new());
    // The same statements as with the unit axes.
    let unit = file("unit_axes.urdf", ARM);
    let mut reference = parse_ok(model_with(&unit, quote!(kinetic = urdf_kinetic;)));
    crate::urdf::splice(&mut reference).expect("a valid file");
    let text = |m: &crate::ast::Model| {
        format!(
            "{:?}",
            m.statements.iter().map(statement_kind).collect::<Vec<_>>()
        )
    };
    assert_eq!(text(&model), text(&reference));
    assert_errors(vec![(
        "zero_axis",
        ARM.replace(r#"<axis xyz="0 1 0"/>"#, r#"<axis xyz="0 0 0"/>"#),
        "joint `shoulder` has a zero axis",
        Some(12),
    )]);
}

/// A robot whose joints are all fixed gives the model no coordinates: said at the file,
/// with why.
#[test]
fn a_robot_without_movable_joints_is_told_so() {
    let text = ARM
        .replace(r#"type="revolute""#, r#"type="fixed""#)
        .replace(r#"type="prismatic""#, r#"type="fixed""#);
    assert_errors(vec![(
        "all_fixed",
        text.clone(),
        "the robot has no movable joint (its 3 joints are all fixed), so the model has no \
         coordinates",
        None,
    )]);
    // With coordinates of the model's own, it is a model.
    let path = file("all_fixed_own.urdf", &text);
    let out = crate::expand(model_with(
        &path,
        quote!(coordinates: x; kinetic = urdf_kinetic + dot(x)^2;),
    ));
    assert_eq!(compile_errors(&out), Vec::<String>::new());
}

/// Joints named like Rust keywords of any edition keep their names, as raw identifiers
/// (as the model's own names are): `gen`, a keyword from 2024 on that syn accepts, would
/// otherwise be written bare and break an edition-2024 crate.
#[test]
fn keyword_names_compile_in_every_edition() {
    let text = ARM
        .replace(r#"name="shoulder""#, r#"name="gen""#)
        .replace(r#"name="slide""#, r#"name="async""#)
        .replace(r#"name="upper""#, r#"name="gen""#)
        .replace(r#"link="upper""#, r#"link="gen""#);
    let path = file("keywords.urdf", &text);
    let out = crate::expand(model_with(
        &path,
        quote!(kinetic = urdf_kinetic; potential = urdf_potential; dissipation = urdf_dissipation;),
    ));
    assert_eq!(compile_errors(&out), Vec::<String>::new());
    fn idents(stream: proc_macro2::TokenStream, found: &mut Vec<String>) {
        for tree in stream {
            match tree {
                proc_macro2::TokenTree::Ident(id) => found.push(id.to_string()),
                proc_macro2::TokenTree::Group(g) => idents(g.stream(), found),
                _ => {}
            }
        }
    }
    let mut found = Vec::new();
    idents(out.clone(), &mut found);
    // `gen` is raw (an identifier until 2024), never bare; `async` is `async_`, as every
    // keyword has been since files were first read.
    assert!(!found.iter().any(|i| i == "gen"), "a bare `gen`");
    assert!(found.iter().any(|i| i == "r#gen"), "no `r#gen`");
    assert!(!found.iter().any(|i| i == "async" || i == "r#async"));
    assert!(found.iter().any(|i| i == "async_"), "no `async_`");
    let code = out.to_string();
    assert!(
        code.contains("\"gen\"") && code.contains("\"async_\""),
        "{code}"
    );
    assert!(found.iter().any(|i| i == "gen_R"));
    let path = file(
        "keyword_self.urdf",
        &ARM.replace(r#"name="shoulder""#, r#"name="self""#),
    );
    let out = crate::expand(model_with(&path, quote!(kinetic = urdf_kinetic;)));
    assert_eq!(compile_errors(&out), Vec::<String>::new());
    assert!(out.to_string().contains("\"self_\""));
}

/// A prismatic joint that mimics a revolute one (and the other way round) in a model
/// with units: the multiplier carries m/rad (rad/m).
#[test]
fn mimics_across_joint_kinds_carry_units() {
    for (name, tag, joint) in [
        (
            "prismatic_follows",
            r#"<mimic joint="shoulder" multiplier="0.1" offset="0.02"/>"#,
            "slide",
        ),
        (
            "revolute_follows",
            r#"<mimic joint="slide" multiplier="3"/>"#,
            "shoulder",
        ),
    ] {
        let path = file(&format!("{name}.urdf"), &with_tag(joint, tag));
        let out = crate::expand(model_with(
            &path,
            quote!(inputs: tau [N*m]; kinetic = urdf_kinetic; potential = urdf_potential; force tau on shoulder;),
        ));
        assert_eq!(compile_errors(&out), Vec::<String>::new(), "{name}");
    }
}

/// Huge but finite numbers of the file either build or are refused at their line, never
/// a crash of the macro: an inertia whose L D Lᵀ overflows (a pivot of 1e-300 under an
/// entry of 0.5) is written as ωᵀ I ω, one whose rotation into the link frame is beyond
/// `f64` is refused, an indefinite one of 1e300 is refused, a joint or a centre of mass
/// 1e308 m away builds.
#[test]
fn huge_values_build_or_are_refused_at_their_line() {
    let inertia = r#"<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.02"/>"#;
    let turned = r#"<origin xyz="0 0 0.2" rpy="0.3 0.2 0.7"/>"#;
    let builds = [
        ARM.replace(
            inertia,
            r#"<inertia ixx="1e-300" ixy="0.5" ixz="0" iyy="1e300" iyz="0" izz="1e300"/>"#,
        ),
        ARM.replace(
            inertia,
            r#"<inertia ixx="1.7e308" ixy="0" ixz="0" iyy="1.7e308" iyz="0" izz="1.7e308"/>"#,
        )
        .replace(r#"<origin xyz="0 0 0.2"/>"#, turned),
        ARM.replace(r#"<origin xyz="0.1 0 0"/>"#, r#"<origin xyz="1e308 0 0"/>"#),
        ARM.replace(r#"<origin xyz="0 0 0.4""#, r#"<origin xyz="1e308 0 0""#),
        ARM.replace(
            r#"<origin xyz="0 0 0.2"/>"#,
            r#"<origin xyz="1e308 0 -1e308"/>"#,
        ),
    ];
    for (k, text) in builds.iter().enumerate() {
        assert_ne!(text, ARM);
        let path = file(&format!("huge_{k}.urdf"), text);
        let out = crate::expand(model_with(
            &path,
            quote!(kinetic = urdf_kinetic; potential = urdf_potential;),
        ));
        assert_eq!(compile_errors(&out), Vec::<String>::new(), "case {k}");
    }
    assert_errors(vec![
        (
            "huge_turned",
            ARM.replace(
                inertia,
                r#"<inertia ixx="1.7e308" ixy="1.7e308" ixz="0" iyy="1.7e308" iyz="0" izz="1"/>"#,
            )
            .replace(r#"<origin xyz="0 0 0.2"/>"#, turned),
            "the inertia of link `upper`, turned into the link frame by the inertial's rpy, \
             has an entry beyond the largest `f64`",
            Some(6),
        ),
        (
            "huge_indefinite",
            ARM.replace(
                inertia,
                r#"<inertia ixx="1e-300" ixy="1e300" ixz="0" iyy="0.1" iyz="0" izz="0.02"/>"#,
            ),
            "an inertia that is not positive semidefinite",
            Some(6),
        ),
    ]);
}
