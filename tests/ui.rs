//! Compile-fail tests of the `lagrangian!` macro: one case per check rule, each with the
//! diagnostics it must produce (`tests/ui/*.stderr`). Regenerate the expected output with
//! `TRYBUILD=overwrite cargo test --test ui` and review every changed `.stderr`.

use std::path::PathBuf;

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    // Physical dimensions: one case per rule of the units check.
    t.compile_fail("tests/ui/units/*.rs");
    // Robots from a URDF file (`urdf: "path";`): one case per error of the file or of its
    // import, each with its small URDF file beside it (`tests/ui/urdf/<case>.urdf`).
    copy_urdf_files();
    t.compile_fail("tests/ui/urdf/*.rs");
}

/// Copies `tests/ui/urdf/*.urdf` to where the cases look for them.
///
/// `urdf: "path";` reads the file relative to `CARGO_MANIFEST_DIR`, and trybuild compiles
/// the cases as binaries of a crate of its own, `<target dir>/tests/trybuild/lagrange/`:
/// that is their `CARGO_MANIFEST_DIR`. With the files copied under it at the same relative
/// paths as in the repository, a case writes `urdf: "tests/ui/urdf/loop.urdf";` as a user
/// of the repository would, whatever the target directory (`CARGO_TARGET_DIR` may be
/// anywhere, so no `../..` path from the generated crate reaches the repository).
/// The target directory is found as trybuild finds it, with `cargo metadata`.
fn copy_urdf_files() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version=1"])
        .output()
        .expect("cargo metadata runs");
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let target = metadata["target_directory"]
        .as_str()
        .expect("cargo metadata gives the target directory");
    let from = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/ui/urdf");
    let to = PathBuf::from(target).join("tests/trybuild/lagrange/tests/ui/urdf");
    std::fs::create_dir_all(&to).expect("the trybuild crate's directory can be made");
    for entry in std::fs::read_dir(&from).expect("tests/ui/urdf") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|e| e == "urdf") {
            let name = path.file_name().expect("a file name");
            std::fs::copy(&path, to.join(name)).expect("the URDF file can be copied");
        }
    }
}
