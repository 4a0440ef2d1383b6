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
            "kinetic",
        ]
    );
    let robot = model.robot.expect("the robot");
    assert_eq!(robot.limits.len(), 2);
    assert_eq!(
        robot.limits[0],
        ("shoulder".to_string(), Some([-1.5, 1.5, 2.0, 40.0]))
    );
    assert_eq!(robot.limits[1], ("slide".to_string(), None));
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
    let factor = crate::urdf::unit_ldlt(&tensor).expect("positive definite");
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
    let factor = crate::urdf::unit_ldlt(&rod).expect("semidefinite, diagonal");
    assert_eq!(factor.map(|(d, _)| d), [0.0, 0.2, 0.2]);
    let indefinite = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    assert!(crate::urdf::unit_ldlt(&indefinite).is_none());
}
