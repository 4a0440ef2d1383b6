//! Reading criterion's results back, for the summary tables the benchmarks print.

use std::path::PathBuf;
use std::time::SystemTime;

/// Where criterion writes its results: `$CRITERION_HOME`, else `criterion/` in the target
/// directory (`$CARGO_TARGET_DIR`, else the one this binary was built in).
fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return home.into();
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            // target/release/deps/<bench>-<hash>
            let exe = std::env::current_exe().ok()?;
            exe.ancestors().nth(3).map(PathBuf::from)
        })
        .unwrap_or_else(|| "target".into());
    target.join("criterion")
}

/// Criterion's estimate of the time per iteration in ns (the slope of the linear fit, or
/// the mean), if it was measured by this process (not left over from an earlier run).
pub fn estimate(group: &str, id: &str, since: SystemTime) -> Option<f64> {
    // Criterion replaces '/' (among others) by '_' in directory names.
    let path = criterion_home()
        .join(group.replace('/', "_"))
        .join(id)
        .join("new")
        .join("estimates.json");
    if std::fs::metadata(&path).ok()?.modified().ok()? < since {
        return None;
    }
    let json = std::fs::read_to_string(path).ok()?;
    let point = |key: &str| {
        let rest = &json[json.find(&format!("\"{key}\":"))? + key.len() + 3..];
        if rest.trim_start().starts_with("null") {
            return None;
        }
        let rest = &rest[rest.find("\"point_estimate\":")? + 17..];
        let end = rest.find([',', '}'])?;
        rest[..end].trim().parse::<f64>().ok()
    };
    point("slope").or_else(|| point("mean"))
}
