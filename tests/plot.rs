//! The `plot` feature (enabled for the workspace's tests): a quick look at a trajectory is a
//! valid PNG of the promised size, an animation a valid GIF of the asked size with one
//! frame per 1/fps of simulated time, and bad input is an error, not a panic.

use crate::common;

use common::derivatives::Derivatives;
use lagrange_runtime::plot::{animate, quick_look, snapshot, Animation};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{Rk4, Simulation, Trajectory};
use std::path::PathBuf;

lagrangian! {
    struct Pendulum {
        parameters: l = 1.0, g = 9.81;
        coordinates: theta;
        let bob = [l * sin(theta), -l * cos(theta)];
        kinetic = l^2/2 * dot(theta)^2;
        potential = -g * l * cos(theta);
    }
}

fn dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lagrange-plot-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run() -> Trajectory<1> {
    Simulation::new(&Pendulum::default(), State::at_rest(SVector::from([1.0])))
        .run(&Rk4::new(0.01), 2.0)
        .unwrap()
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn a_quick_look_is_a_png_of_1200_by_900() {
    let path = dir("quick").join("look.png");
    quick_look(&run(), &path).unwrap();
    assert_eq!(png_size(&std::fs::read(&path).unwrap()), (1200, 900));
}

#[test]
fn an_animation_is_a_gif_with_a_frame_per_step_of_time() {
    let model = Pendulum::default();
    let rod = |s: &State<1>| {
        let bob = model.lets(s, &SVector::zeros()).bob;
        vec![vec![(0.0, 0.0), (bob.x, bob.y)]]
    };
    let path = dir("anim").join("pendulum.gif");
    let settings = Animation {
        size: (200, 160),
        fps: 10,
        ..Animation::default()
    };
    animate(&run(), &path, &settings, rod).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..6], b"GIF89a");
    let le = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    assert_eq!((le(6), le(8)), (200, 160));
    // 2 s at 10 frames per second: frames at 0, 0.1, …, 2.0. Each frame has one graphic
    // control extension (0x21 0xF9 0x04).
    let frames = bytes
        .windows(3)
        .filter(|w| w == &[0x21, 0xF9, 0x04])
        .count();
    assert_eq!(frames, 21);
    // One frame as a PNG.
    let frame = dir("anim").join("frame.png");
    snapshot(&run().states()[50], &frame, &settings, rod).unwrap();
    assert_eq!(png_size(&std::fs::read(&frame).unwrap()), (200, 160));
}

#[test]
fn bad_input_is_an_error() {
    let path = dir("bad").join("x.gif");
    let empty = Trajectory::<1>::new(&["theta"], &[]);
    assert!(quick_look(&empty, &path).is_err());
    let rod = |_: &State<1>| vec![vec![(0.0, 0.0), (1.0, 1.0)]];
    assert!(animate(&empty, &path, &Animation::default(), rod).is_err());
    for settings in [
        Animation {
            fps: 0,
            ..Animation::default()
        },
        Animation {
            speed: f64::NAN,
            ..Animation::default()
        },
        Animation {
            size: (0, 10),
            ..Animation::default()
        },
        Animation {
            bounds: Some((1.0..0.0, 0.0..1.0)),
            ..Animation::default()
        },
    ] {
        let error = animate(&run(), &path, &settings, rod).unwrap_err();
        assert!(!error.to_string().is_empty());
    }
    let nan = |_: &State<1>| vec![vec![(f64::NAN, 0.0)]];
    let error = animate(&run(), &path, &Animation::default(), nan).unwrap_err();
    assert!(error.to_string().contains("non-finite"), "{error}");
}

/// Found by a probe: these panicked or hung inside plotters.
#[test]
fn extreme_ranges_sizes_and_frame_counts_are_errors() {
    use lagrange_runtime::plot::{figure, Panel};
    let path = dir("extreme").join("x.png");
    let huge = |_: &State<1>| vec![vec![(-1e308, -1e308), (1e308, 1e308)]];
    assert!(snapshot(&run().states()[0], &path, &Animation::default(), huge).is_err());
    for bounds in [
        (f64::NEG_INFINITY..f64::INFINITY, 0.0..1.0),
        (-1e308..1e308, -1e308..1e308),
    ] {
        let settings = Animation {
            bounds: Some(bounds),
            ..Animation::default()
        };
        let rod = |_: &State<1>| vec![vec![(0.0, 0.0), (1.0, 1.0)]];
        assert!(snapshot(&run().states()[0], &path, &settings, rod).is_err());
    }
    for size in [(u32::MAX, u32::MAX), (3, 70_000), (100_000, 100_000)] {
        let settings = Animation {
            size,
            ..Animation::default()
        };
        let rod = |_: &State<1>| vec![vec![(0.0, 0.0), (1.0, 1.0)]];
        assert!(animate(&run(), dir("extreme").join("x.gif"), &settings, rod).is_err());
    }
    let settings = Animation {
        speed: f64::MIN_POSITIVE,
        ..Animation::default()
    };
    let rod = |_: &State<1>| vec![vec![(0.0, 0.0), (1.0, 1.0)]];
    let error = animate(&run(), dir("extreme").join("y.gif"), &settings, rod).unwrap_err();
    assert!(error.to_string().contains("frames"), "{error}");
    let flat = figure(&path, (300, 200), |root| {
        Panel::new("flat", "x", "y")
            .line("l", [(0.0, 0.0), (1.0, 1.0)])
            .x_range(1.0..1.0)
            .draw(root)
    });
    assert!(flat.is_err());
    let wide = figure(&path, (300, 200), |root| {
        Panel::new("wide", "x", "y")
            .line("l", [(-1e308, -1e308), (1e308, 1e308)])
            .draw(root)
    });
    assert!(wide.is_err());
}

/// Issue 29, item 2: a fixed range with data far outside it. plotters' pixel arithmetic
/// overflowed (a panic in debug builds, a dip drawn as a peak in release); now only what
/// lies in the chart is drawn, the line cut at its edge.
#[test]
fn data_far_outside_a_fixed_range_is_clipped() {
    use lagrange_runtime::plot::{figure, Panel};
    let path = dir("clip").join("panel.png");
    let dip = [
        (0.0, 0.5),
        (1.0, -1e10),
        (2.0, 0.5),
        (3.0, 1e300),
        (4.0, 0.2),
    ];
    figure(&path, (300, 200), |root| {
        Panel::new("dip", "x", "y")
            .line("l", dip)
            .points("p", dip)
            .y_range(0.0..1.0)
            .draw(root)
    })
    .expect("drawn, clipped");
    assert_eq!(png_size(&std::fs::read(&path).unwrap()), (300, 200));
    figure(&path, (300, 200), |root| {
        Panel::new("log", "x", "y")
            .line("l", [(0.0, 10.0), (1.0, 1e-300), (2.0, 1e300)])
            .log_y()
            .y_range(1.0..100.0)
            .draw(root)
    })
    .expect("drawn, clipped");
    let far = |_: &State<1>| vec![vec![(0.0, 0.0), (1e10, 0.5), (0.5, -1e12)]];
    let settings = Animation {
        bounds: Some((-1.0..1.0, -1.0..1.0)),
        ..Animation::default()
    };
    snapshot(
        &run().states()[0],
        dir("clip").join("frame.png"),
        &settings,
        far,
    )
    .expect("drawn, clipped");
}

/// Issue 29 item 14: a logarithmic panel of positive values down to the subnormal ones
/// (an error decaying to nothing, 5e-324 the smallest double) is drawn, not refused.
#[test]
fn a_logarithmic_panel_draws_subnormal_values() {
    use lagrange_runtime::plot::{figure, Panel};
    let path = dir("subnormal").join("log.png");
    for data in [
        vec![(0.0, 1.0), (1.0, 1e-200), (2.0, 1e-310), (3.0, 5e-324)],
        vec![(0.0, 5e-324), (1.0, 5e-324)],
        vec![(0.0, 1e-310), (1.0, 2e-310)],
    ] {
        figure(&path, (300, 200), |root| {
            Panel::new("decay", "t", "error")
                .line("e", data.clone())
                .log_y()
                .draw(root)
        })
        .unwrap_or_else(|e| panic!("{data:?}: {e}"));
        assert_eq!(png_size(&std::fs::read(&path).unwrap()), (300, 200));
    }
    // A range given wider than a double's ratio of ends is refused, not looped on.
    let wide = figure(&path, (300, 200), |root| {
        Panel::new("wide", "t", "error")
            .line("e", [(0.0, 1.0), (1.0, 2.0)])
            .log_y()
            .y_range(1e-320..1e10)
            .draw(root)
    });
    let message = wide.expect_err("too wide").to_string();
    assert!(message.contains("308 decades"), "{message}");
}

/// Exact derivatives against central differences (`common::derivatives`).
#[test]
fn derivatives_match_finite_differences() {
    Derivatives::new("Pendulum", &Pendulum::default())
        .standard()
        .check();
}
