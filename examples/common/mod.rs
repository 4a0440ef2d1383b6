//! Helpers shared by the examples: labelled line plots written as PNG files, and a
//! progress bar for [`Simulation::progress`](lagrange_runtime::simulate::Simulation::progress).
//!
//! Each example includes this file with `mod common;` and uses only part of it.
#![allow(dead_code)]

use lagrange_runtime::simulate::Progress;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::error::Error;
use std::io::IsTerminal;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The drawing area of a figure, or of one panel of it.
pub type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// Colours of the series, in order (the "tab10" palette: distinguishable, print well).
const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// Draws a figure of `size` pixels into `target/plots/<name>.png`, prints the path and
/// returns it. `draw` fills the white drawing area, typically by splitting it into panels.
pub fn figure(
    name: &str,
    size: (u32, u32),
    draw: impl FnOnce(&Area) -> Result<()>,
) -> Result<PathBuf> {
    register_font()?;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("plots");
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("cannot create the plot directory {}: {e}", dir.display()))?;
    let path = dir.join(format!("{name}.png"));
    {
        let root = BitMapBackend::new(&path, size).into_drawing_area();
        root.fill(&WHITE)?;
        draw(&root)?;
        root.present()
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    println!("plot written to {}", path.display());
    Ok(path)
}

/// The text of the plots uses DejaVu Sans, shipped with the examples, so that no system
/// font library is needed. It is registered once per process.
fn register_font() -> Result<()> {
    static REGISTERED: OnceLock<std::result::Result<(), &str>> = OnceLock::new();
    let bytes = include_bytes!("../assets/DejaVuSans.ttf");
    REGISTERED
        .get_or_init(|| {
            plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
                .map_err(|_| "examples/assets/DejaVuSans.ttf is not a valid font")
        })
        .map_err(Into::into)
}

/// How a series is drawn.
enum Style {
    Line,
    Points,
}

/// One labelled data series of a panel.
struct Series {
    label: String,
    points: Vec<(f64, f64)>,
    style: Style,
}

/// One panel of a figure: a title, titled axes and labelled series, built step by step
/// and drawn with [`Panel::draw`].
pub struct Panel {
    title: String,
    x_desc: String,
    y_desc: String,
    series: Vec<Series>,
    x_range: Option<Range<f64>>,
    y_range: Option<Range<f64>>,
    log_y: bool,
    legend: SeriesLabelPosition,
}

impl Panel {
    /// An empty panel with a title and the descriptions of its x and y axes.
    pub fn new(title: &str, x_desc: &str, y_desc: &str) -> Self {
        Panel {
            title: title.into(),
            x_desc: x_desc.into(),
            y_desc: y_desc.into(),
            series: Vec::new(),
            x_range: None,
            y_range: None,
            log_y: false,
            legend: SeriesLabelPosition::UpperRight,
        }
    }

    /// Adds a series drawn as a line.
    pub fn line(self, label: &str, points: impl IntoIterator<Item = (f64, f64)>) -> Self {
        self.add(label, points, Style::Line)
    }

    /// Adds a series drawn as dots.
    pub fn points(self, label: &str, points: impl IntoIterator<Item = (f64, f64)>) -> Self {
        self.add(label, points, Style::Points)
    }

    fn add(
        mut self,
        label: &str,
        points: impl IntoIterator<Item = (f64, f64)>,
        style: Style,
    ) -> Self {
        self.series.push(Series {
            label: label.into(),
            points: points.into_iter().collect(),
            style,
        });
        self
    }

    /// Fixes the x range instead of fitting it to the data.
    pub fn x_range(mut self, range: Range<f64>) -> Self {
        self.x_range = Some(range);
        self
    }

    /// Fixes the y range instead of fitting it to the data.
    pub fn y_range(mut self, range: Range<f64>) -> Self {
        self.y_range = Some(range);
        self
    }

    /// A logarithmic y axis; points with y ≤ 0 are left out.
    pub fn log_y(mut self) -> Self {
        self.log_y = true;
        self
    }

    /// Where the legend goes (upper right by default).
    pub fn legend(mut self, position: SeriesLabelPosition) -> Self {
        self.legend = position;
        self
    }

    /// Draws the panel into `area`. A fitted linear y range leaves room for the legend
    /// above or below the data.
    pub fn draw(mut self, area: &Area) -> Result<()> {
        if self.log_y {
            for series in &mut self.series {
                series.points.retain(|&(_, y)| y > 0.0);
            }
        }
        let all = || self.series.iter().flat_map(|s| s.points.iter());
        let x = self.x_range.clone();
        let x = x.unwrap_or_else(|| span(all().map(|p| p.0), (0.0, 0.0)));
        let mut builder = ChartBuilder::on(area);
        builder
            .caption(&self.title, ("sans-serif", 24))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(78);
        let x_span = x.end - x.start;
        let x_format = move |v: &f64| tick(*v, x_span);
        if self.log_y {
            let y = self.y_range.clone();
            let y = y.unwrap_or_else(|| decades(all().map(|p| p.1)));
            let chart = builder.build_cartesian_2d(x, y.log_scale())?;
            self.fill(chart, &x_format, &|v: &f64| format!("{v:.0e}"))
        } else {
            let rows = self.series.iter().filter(|s| !s.label.is_empty()).count() as f64;
            let room = 0.05 + 0.1 * rows;
            let pad = match self.legend {
                SeriesLabelPosition::UpperLeft
                | SeriesLabelPosition::UpperMiddle
                | SeriesLabelPosition::UpperRight => (0.05, room),
                SeriesLabelPosition::LowerLeft
                | SeriesLabelPosition::LowerMiddle
                | SeriesLabelPosition::LowerRight => (room, 0.05),
                _ => (0.05, 0.05),
            };
            let y = self.y_range.clone();
            let y = y.unwrap_or_else(|| span(all().map(|p| p.1), pad));
            let y_span = y.end - y.start;
            let chart = builder.build_cartesian_2d(x, y)?;
            self.fill(chart, &x_format, &|v: &f64| tick(*v, y_span))
        }
    }

    /// Mesh, series and legend of a chart whose y axis is linear or logarithmic.
    fn fill<'a, 'b: 'a, Y>(
        &self,
        mut chart: ChartContext<'a, BitMapBackend<'b>, Cartesian2d<RangedCoordf64, Y>>,
        x_format: &dyn Fn(&f64) -> String,
        y_format: &dyn Fn(&f64) -> String,
    ) -> Result<()>
    where
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        chart
            .configure_mesh()
            .x_desc(self.x_desc.as_str())
            .y_desc(self.y_desc.as_str())
            .x_label_formatter(x_format)
            .y_label_formatter(y_format)
            .label_style(("sans-serif", 16))
            .axis_desc_style(("sans-serif", 19))
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(200, 200, 200))
            .draw()?;
        for (
            i,
            Series {
                label,
                points,
                style,
            },
        ) in self.series.iter().enumerate()
        {
            let color = COLORS[i % COLORS.len()];
            let drawn = match style {
                Style::Line => chart.draw_series(LineSeries::new(
                    points.iter().copied(),
                    color.stroke_width(line_width(points.len())),
                ))?,
                Style::Points => {
                    chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))?
                }
            };
            if !label.is_empty() {
                let drawn = drawn.label(label.as_str());
                match style {
                    Style::Line => drawn.legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 24, y)], color.stroke_width(3))
                    }),
                    Style::Points => {
                        drawn.legend(move |(x, y)| Circle::new((x + 12, y), 4, color.filled()))
                    }
                };
            }
        }
        if self.series.iter().any(|s| !s.label.is_empty()) {
            chart
                .configure_series_labels()
                .position(self.legend.clone())
                .label_font(("sans-serif", 17))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.5))
                .draw()?;
        }
        Ok(())
    }
}

/// Lines of few points are drawn 2 px wide; long ones 1 px (anti-aliased), because
/// plotters draws wide lines segment by segment, which looks ragged for short segments.
fn line_width(points: usize) -> u32 {
    if points < 600 {
        2
    } else {
        1
    }
}

/// The range of `values`, widened by `pad.0` of its length below and `pad.1` above (and
/// never empty).
fn span(values: impl Iterator<Item = f64>, pad: (f64, f64)) -> Range<f64> {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    match (lo.is_finite(), hi > lo) {
        (false, _) => 0.0..1.0,
        (true, false) => lo - 1.0..lo + 1.0,
        (true, true) => lo - pad.0 * (hi - lo)..hi + pad.1 * (hi - lo),
    }
}

/// The whole decades holding the positive `values`.
fn decades(values: impl Iterator<Item = f64>) -> Range<f64> {
    let r = span(values.filter(|v| *v > 0.0).map(f64::log10), (0.0, 0.0));
    10f64.powf(r.start.floor())..10f64.powf(r.end.ceil())
}

/// A tick label with as many decimals as an axis spanning `span` needs, without the
/// binary noise of floating point (0.30000000000000004, 1.4e-17 for zero).
fn tick(v: f64, span: f64) -> String {
    let decimals = (3.0 - span.log10().floor()).max(0.0) as usize;
    let text = format!("{v:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
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
