//! Helpers shared by the examples: where their figures go, and a progress bar for
//! [`Simulation::progress`](lagrange_runtime::simulate::Simulation::progress). The drawing
//! itself is the library's own (`lagrange_runtime::plot`, feature `plot`).
//!
//! Each example includes this file with `mod common;` and uses only part of it.
#![allow(dead_code)]

#[allow(unused_imports)]
pub use lagrange_runtime::plot::{Area, Panel, SeriesLabelPosition};
use lagrange_runtime::simulate::Progress;
use std::io::IsTerminal;
use std::path::PathBuf;

/// `target/plots/<file>` of the workspace, where the examples write their figures.
pub fn plot_path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("plots")
        .join(file)
}

/// Draws a figure of `size` pixels into `target/plots/<name>.png` with
/// [`lagrange_runtime::plot::figure`], prints the path and returns it.
pub fn figure(
    name: &str,
    size: (u32, u32),
    draw: impl FnOnce(&Area) -> lagrange_runtime::plot::Result<()>,
) -> lagrange_runtime::plot::Result<PathBuf> {
    let path = plot_path(&format!("{name}.png"));
    lagrange_runtime::plot::figure(&path, size, draw)?;
    println!("plot written to {}", path.display());
    Ok(path)
}

/// A progress bar on standard error, `label [#########...........]  45%`, for the
/// progress hook of a simulation. It redraws only when the percentage changes, and only
/// prints the finished bar when standard error is not a terminal (a log file, a pipe).
pub fn progress_bar(label: &str) -> impl FnMut(Progress) {
    const WIDTH: usize = 30;
    let label = label.to_owned();
    let live = std::io::stderr().is_terminal();
    let mut shown = None;
    move |p: Progress| {
        let percent = (p.fraction() * 100.0).floor() as usize;
        if shown == Some(percent) || !(live || percent == 100) {
            return;
        }
        shown = Some(percent);
        let filled = percent * WIDTH / 100;
        let bar = "#".repeat(filled) + &".".repeat(WIDTH - filled);
        eprint!("\r{label:<28} [{bar}] {percent:3}%");
        if percent == 100 {
            eprintln!();
        }
    }
}
