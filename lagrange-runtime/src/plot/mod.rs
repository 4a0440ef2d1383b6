//! Figures of trajectories (feature `plot`): labelled line plots written as PNG files
//! ([`figure`], [`Panel`]), a quick look at a trajectory ([`quick_look`]) and animations of
//! a mechanism as GIF files ([`animate`]). Drawn with [`plotters`] (re-exported), text in the
//! DejaVu Sans font shipped with the crate, so nothing beyond the Rust toolchain is needed.
//!
//! # Example
//! ```
//! use lagrange_runtime::prelude::*;
//! use lagrange_runtime::plot::{animate, quick_look, Animation};
//! use lagrange_runtime::simulate::{Rk4, Simulation};
//!
//! lagrangian! {
//!     struct Pendulum {
//!         parameters: l = 1.0, g = 9.81;
//!         coordinates: theta;
//!         let bob = [l * sin(theta), -l * cos(theta)];
//!         kinetic = l^2/2 * dot(theta)^2;
//!         potential = -g * l * cos(theta);
//!     }
//! }
//!
//! let model = Pendulum::default();
//! let run = Simulation::new(&model, State::at_rest(SVector::from([1.0])))
//!     .run(&Rk4::new(0.01), 2.0)
//!     .unwrap();
//! let dir = std::env::temp_dir().join("lagrange-plot-doc");
//! quick_look(&run, dir.join("pendulum.png")).unwrap();
//! // The rod from the pivot to the bob, read from the model's `let`.
//! let rod = |s: &State<1>| {
//!     let bob = model.lets(s, &SVector::zeros()).bob;
//!     vec![vec![(0.0, 0.0), (bob.x, bob.y)]]
//! };
//! animate(&run, dir.join("pendulum.gif"), &Animation::default(), rod).unwrap();
//! ```

use crate::simulate::Trajectory;
use crate::State;
pub use plotters;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::Shift;
use plotters::drawing::DrawingAreaErrorKind;
pub use plotters::prelude::SeriesLabelPosition;
use plotters::prelude::*;
use std::error::Error;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

mod gif_file;
use gif_file::GifFile;

/// The drawing area of a figure, or of one panel of it.
pub type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// What the functions of this module return.
pub type Result<T> = std::result::Result<T, PlotError>;

/// Why a figure or an animation could not be made, in words.
///
/// # Example
/// ```
/// use lagrange_runtime::plot::quick_look;
/// use lagrange_runtime::simulate::Trajectory;
///
/// let empty = Trajectory::<1>::new(&["x"], &[]);
/// let error = quick_look(&empty, std::env::temp_dir().join("never.png")).unwrap_err();
/// assert_eq!(error.to_string(), "an empty trajectory has nothing to plot");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlotError(String);

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Error for PlotError {}

impl From<String> for PlotError {
    fn from(message: String) -> Self {
        PlotError(message)
    }
}

impl From<&str> for PlotError {
    fn from(message: &str) -> Self {
        PlotError(message.into())
    }
}

impl<E: Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        PlotError(format!("drawing failed: {e}"))
    }
}

/// The fill of [`Panel::band`]: a pale green, behind every series.
const BAND: RGBColor = RGBColor(216, 240, 216);

/// Colours of the series, in order (the "tab10" palette: distinguishable, print well),
/// repeating from the eleventh series of a panel.
const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Draws a PNG figure of `size` pixels (width, height) to `path`, creating its directory.
/// `draw` fills the white drawing area, typically by splitting it into [`Panel`]s.
///
/// # Errors
/// An empty size, a file that cannot be written, or an error of `draw`.
///
/// # Example
/// Two panels, one above the other:
/// ```
/// use lagrange_runtime::plot::{figure, Panel};
///
/// let path = std::env::temp_dir().join("lagrange-plot-doc").join("waves.png");
/// let t: Vec<f64> = (0..=100).map(|k| 0.1 * f64::from(k)).collect();
/// figure(&path, (800, 600), |root| {
///     let (top, bottom) = root.split_vertically(300);
///     Panel::new("Sine", "t [s]", "x")
///         .line("sin t", t.iter().map(|&t| (t, t.sin())))
///         .draw(&top)?;
///     Panel::new("Cosine", "t [s]", "x")
///         .points("cos t", t.iter().map(|&t| (t, t.cos())))
///         .draw(&bottom)
/// })
/// .unwrap();
/// assert!(path.exists());
/// ```
pub fn figure(
    path: impl AsRef<Path>,
    size: (u32, u32),
    draw: impl FnOnce(&Area) -> Result<()>,
) -> Result<()> {
    let path = path.as_ref();
    prepare(path, size)?;
    let root = BitMapBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE)?;
    draw(&root)?;
    root.present().map_err(|e| cannot_write(path, &e))?;
    Ok(())
}

/// The error of a file that cannot be written.
fn cannot_write(path: &Path, e: &dyn std::fmt::Display) -> String {
    format!("cannot write {}: {e}", path.display())
}

/// Registers the font and creates the directory of `path`; rejects an empty size.
fn prepare(path: &Path, size: (u32, u32)) -> Result<()> {
    if size.0 == 0 || size.1 == 0 {
        return Err(format!("a figure of {}×{} pixels is empty", size.0, size.1).into());
    }
    // GIF sizes are 16-bit, and the bitmap is held in memory.
    if size.0 > 65_535 || size.1 > 65_535 || u64::from(size.0) * u64::from(size.1) > MAX_PIXELS {
        return Err(format!(
            "a figure of {}×{} pixels is too large: at most 65535 on a side and {MAX_PIXELS} pixels",
            size.0, size.1
        )
        .into());
    }
    register_font()?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the directory {}: {e}", dir.display()))?;
    }
    Ok(())
}

/// The largest figure, in pixels (300 MB of bitmap).
const MAX_PIXELS: u64 = 100_000_000;

/// `range` if it can be drawn: finite, not empty, and of a finite length.
fn drawable(range: Range<f64>, axis: &str) -> Result<Range<f64>> {
    if range.start.is_finite()
        && range.end.is_finite()
        && (range.end - range.start).is_finite()
        && range.end > range.start
    {
        Ok(range)
    } else {
        Err(format!(
            "the {axis} range {}..{} cannot be drawn: it must be finite, of finite length and not empty",
            range.start, range.end
        )
        .into())
    }
}

/// `range` if it can be drawn on a logarithmic axis: drawable, positive, and of ends whose
/// ratio is a finite double.
fn logarithmic(range: Range<f64>, axis: &str) -> Result<Range<f64>> {
    let range = drawable(range, axis)?;
    if range.start <= 0.0 {
        return Err(format!("a logarithmic {axis} range must be positive").into());
    }
    if !(range.end / range.start).is_finite() {
        return Err(format!(
            "a logarithmic {axis} range spans at most {MOST_DECADES} decades, not {range:?}"
        )
        .into());
    }
    Ok(range)
}

/// The text of the plots uses DejaVu Sans, shipped with the crate, so that no system font
/// library is needed. It is registered once per process.
fn register_font() -> Result<()> {
    static REGISTERED: OnceLock<std::result::Result<(), &str>> = OnceLock::new();
    let bytes = include_bytes!("../../assets/DejaVuSans.ttf");
    let registered = *REGISTERED.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
            .map_err(|_| "the shipped DejaVuSans.ttf is not a valid font")
    });
    registered.map_err(PlotError::from)
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
    log_x: bool,
    log_y: bool,
    legend: SeriesLabelPosition,
    bands: Vec<Range<f64>>,
}

impl Panel {
    /// An empty panel with a title and the descriptions of its x and y axes.
    #[must_use]
    pub fn new(title: &str, x_desc: &str, y_desc: &str) -> Self {
        Panel {
            title: title.into(),
            x_desc: x_desc.into(),
            y_desc: y_desc.into(),
            series: Vec::new(),
            x_range: None,
            y_range: None,
            log_x: false,
            log_y: false,
            legend: SeriesLabelPosition::UpperRight,
            bands: Vec::new(),
        }
    }

    /// Adds a series drawn as a line.
    #[must_use]
    pub fn line(self, label: &str, points: impl IntoIterator<Item = (f64, f64)>) -> Self {
        self.add(label, points, Style::Line)
    }

    /// Adds a series drawn as dots.
    #[must_use]
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
    #[must_use]
    pub fn x_range(mut self, range: Range<f64>) -> Self {
        self.x_range = Some(range);
        self
    }

    /// Fixes the y range instead of fitting it to the data.
    #[must_use]
    pub fn y_range(mut self, range: Range<f64>) -> Self {
        self.y_range = Some(range);
        self
    }

    /// Shades the vertical band of x in `range` across the whole panel, behind the
    /// series: a range of parameters where something holds (a stable range of speeds, say).
    /// [`draw`](Self::draw) rejects a band whose ends are not finite or not increasing.
    ///
    /// # Example
    /// ```
    /// use lagrange_runtime::plot::{figure, Panel};
    ///
    /// let path = std::env::temp_dir().join("lagrange_band_doctest.png");
    /// let decay = |v: f64| (v, 1.0 - v * v / 4.0);
    /// let panel = || Panel::new("Growth rate", "v [m/s]", "Re λ [1/s]").line("λ", (0..=40).map(|i| decay(0.1 * f64::from(i))));
    /// figure(&path, (600, 400), |area| panel().band(2.0..4.0).draw(area)).unwrap();
    /// assert!(figure(&path, (600, 400), |area| panel().band(3.0..1.0).draw(area)).is_err());
    /// ```
    #[must_use]
    pub fn band(mut self, range: Range<f64>) -> Self {
        self.bands.push(range);
        self
    }

    /// A logarithmic y axis; points with y ≤ 0 are left out. Fitted to the data, it shows
    /// whole decades, at most 308 of them (the highest), reaching down to subnormal values;
    /// a range given with [`y_range`](Panel::y_range) must be positive and span at most 308
    /// decades.
    #[must_use]
    pub fn log_y(mut self) -> Self {
        self.log_y = true;
        self
    }

    /// A logarithmic x axis (frequencies of a Bode plot, say); points with x ≤ 0 are left
    /// out. Fitted to the data, it shows whole decades as [`log_y`](Panel::log_y) does; a
    /// range given with [`x_range`](Panel::x_range) must be positive and span at most 308
    /// decades.
    #[must_use]
    pub fn log_x(mut self) -> Self {
        self.log_x = true;
        self
    }

    /// Where the legend goes (upper right by default).
    #[must_use]
    pub fn legend(mut self, position: SeriesLabelPosition) -> Self {
        self.legend = position;
        self
    }

    /// Draws the panel into `area`. A fitted linear y range leaves room for the legend
    /// above or below the data.
    pub fn draw(mut self, area: &Area) -> Result<()> {
        if let Some(band) = self
            .bands
            .iter()
            .find(|b| !(b.start.is_finite() && b.end.is_finite() && b.start < b.end))
        {
            return Err(format!("a band must have finite, increasing ends, not {band:?}").into());
        }
        for series in &mut self.series {
            let (log_x, log_y) = (self.log_x, self.log_y);
            series
                .points
                .retain(|&(x, y)| (!log_x || x > 0.0) && (!log_y || y > 0.0));
        }
        let all = || self.series.iter().flat_map(|s| s.points.iter());
        let x = self.x_range.clone();
        let x = if self.log_x {
            logarithmic(x.unwrap_or_else(|| decades(all().map(|p| p.0))), "x")?
        } else {
            drawable(
                x.unwrap_or_else(|| span(all().map(|p| p.0), (0.0, 0.0))),
                "x",
            )?
        };
        let mut builder = ChartBuilder::on(area);
        builder
            .caption(&self.title, ("sans-serif", 24))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(78);
        let x_span = x.end - x.start;
        let x_format = move |v: &f64| tick(*v, x_span);
        let log_format = |v: &f64| format!("{v:.0e}");
        // A decade's ticks on a logarithmic x axis: 0.1, 1, 10, … written plainly while
        // short, in powers of ten beyond.
        let log_x_format = |v: &f64| {
            if (1e-3..1e5).contains(&v.abs()) {
                tick(*v, *v)
            } else {
                format!("{v:.0e}")
            }
        };
        let y = if self.log_y {
            let y = self.y_range.clone();
            logarithmic(y.unwrap_or_else(|| decades(all().map(|p| p.1))), "y")?
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
            drawable(y.unwrap_or_else(|| span(all().map(|p| p.1), pad)), "y")?
        };
        let y_span = y.end - y.start;
        let y_format = move |v: &f64| tick(*v, y_span);
        match (self.log_x, self.log_y) {
            (false, false) => {
                let chart = builder.build_cartesian_2d(x, y)?;
                self.fill(chart, &x_format, &y_format)
            }
            (false, true) => {
                let chart = builder.build_cartesian_2d(x, y.log_scale())?;
                self.fill(chart, &x_format, &log_format)
            }
            (true, false) => {
                let chart = builder.build_cartesian_2d(x.log_scale(), y)?;
                self.fill(chart, &log_x_format, &y_format)
            }
            (true, true) => {
                let chart = builder.build_cartesian_2d(x.log_scale(), y.log_scale())?;
                self.fill(chart, &log_x_format, &log_format)
            }
        }
    }

    /// Mesh, series and legend of a chart whose axes are linear or logarithmic.
    fn fill<'a, 'b: 'a, X, Y>(
        &self,
        mut chart: ChartContext<'a, BitMapBackend<'b>, Cartesian2d<X, Y>>,
        x_format: &dyn Fn(&f64) -> String,
        y_format: &dyn Fn(&f64) -> String,
    ) -> Result<()>
    where
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
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
        let (x, y) = (chart.x_range(), chart.y_range());
        for band in &self.bands {
            let (start, end) = (band.start.max(x.start), band.end.min(x.end));
            if start < end {
                let corners = [(start, y.start), (end, y.end)];
                chart.draw_series([Rectangle::new(corners, BAND.filled())])?;
            }
        }
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
            // Only what lies in the chart is drawn: a point far outside a fixed range would
            // overflow plotters' pixel arithmetic (and wrap around to the other edge).
            let region = (x.clone(), y.clone(), self.log_x, self.log_y);
            let drawn = match style {
                Style::Line => {
                    let width = line_width(points.len());
                    let pieces = clip(points, &region);
                    chart.draw_series(
                        pieces
                            .into_iter()
                            .map(|piece| PathElement::new(piece, color.stroke_width(width))),
                    )?
                }
                Style::Points => chart.draw_series(
                    points
                        .iter()
                        .filter(|p| inside(**p, &region))
                        .map(|&p| Circle::new(p, 4, color.filled())),
                )?,
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

/// A chart's region: its x and y ranges, and whether x and y are logarithmic.
type Region = (Range<f64>, Range<f64>, bool, bool);

/// Whether a point lies in the region (its edges included).
fn inside((x, y): (f64, f64), (xr, yr, _, _): &Region) -> bool {
    xr.start <= x && x <= xr.end && yr.start <= y && y <= yr.end
}

/// The parts of a polyline inside the region, each a polyline of its own: every segment
/// cut at the edges (Liang–Barsky, in the chart's own coordinates, so on a logarithmic
/// axis in log y), a non-finite point breaking the line.
fn clip(points: &[(f64, f64)], region: &Region) -> Vec<Vec<(f64, f64)>> {
    let (xr, yr, log_x, log_y) = region;
    let to = |log: bool, v: f64| if log { v.log10() } else { v };
    let from = |log: bool, v: f64| if log { 10f64.powf(v) } else { v };
    let (x0, x1) = (to(*log_x, xr.start), to(*log_x, xr.end));
    let (y0, y1) = (to(*log_y, yr.start), to(*log_y, yr.end));
    let mut pieces: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut open = false;
    for pair in points.windows(2) {
        let a = (to(*log_x, pair[0].0), to(*log_y, pair[0].1));
        let b = (to(*log_x, pair[1].0), to(*log_y, pair[1].1));
        if ![a.0, a.1, b.0, b.1].iter().all(|v| v.is_finite()) {
            open = false;
            continue;
        }
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        let mut visible = true;
        for (p, q) in [
            (-dx, a.0 - x0),
            (dx, x1 - a.0),
            (-dy, a.1 - y0),
            (dy, y1 - a.1),
        ] {
            if p == 0.0 {
                visible &= q >= 0.0;
            } else if p < 0.0 {
                t0 = t0.max(q / p);
            } else {
                t1 = t1.min(q / p);
            }
        }
        if !visible || t0 > t1 {
            open = false;
            continue;
        }
        let at = |t: f64| (from(*log_x, a.0 + t * dx), from(*log_y, a.1 + t * dy));
        let (start, end) = (at(t0), at(t1));
        if !(open && t0 == 0.0) {
            pieces.push(vec![start]);
        }
        if let Some(piece) = pieces.last_mut() {
            piece.push(end);
        }
        open = t1 == 1.0;
    }
    // A single point inside the region is a line of one point.
    if points.len() == 1 && inside(points[0], region) {
        pieces.push(vec![points[0]]);
    }
    pieces
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

/// The whole decades holding the positive `values`: at most [`MOST_DECADES`] of them
/// (the highest kept), from 10^[`LOWEST_DECADE`] or, for values below it, the smallest
/// positive double.
fn decades(values: impl Iterator<Item = f64>) -> Range<f64> {
    let r = span(values.filter(|v| *v > 0.0).map(f64::log10), (0.0, 0.0));
    let lowest = f64::from(LOWEST_DECADE);
    let top = r.end.ceil().max(lowest + 1.0);
    // 10³⁰⁹ overflows: the axis then ends at the largest double.
    let end = 10f64.powf(top).min(f64::MAX);
    let start = r.start.floor().max(top - MOST_DECADES);
    let smallest = f64::from_bits(1);
    let start = if start >= lowest {
        10f64.powf(start)
    } else if (end / smallest).is_finite() {
        smallest
    } else {
        10f64.powf(lowest)
    };
    start..end
}

/// The lowest decade a fitted logarithmic axis reaches: 10⁻³²³ is the smallest power of
/// ten a double holds (a subnormal one); below it the axis ends at the smallest positive
/// double, 4.9 · 10⁻³²⁴.
const LOWEST_DECADE: i32 = -323;

/// The most decades a logarithmic axis spans: the ratio of its ends must be a finite
/// double (plotters divides them to place its ticks, and loops without end on infinity).
const MOST_DECADES: f64 = 308.0;

/// A tick label with as many decimals as an axis spanning `span` needs, without the
/// binary noise of floating point (0.30000000000000004, 1.4e-17 for zero).
fn tick(v: f64, span: f64) -> String {
    let decimals = if span > 0.0 && span.is_finite() {
        (3.0 - span.log10().floor()).clamp(0.0, 17.0) as usize
    } else {
        3
    };
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

/// A quick look at a trajectory, as a PNG of 1200×900 pixels at `path`: the coordinates
/// against time, and the change of the energy function h − h₀ (a conservative,
/// time-independent model keeps it at zero up to the integrator's error). Axes and
/// coordinates are labelled with their units when the model declares them.
///
/// # Errors
/// An empty trajectory, or a file that cannot be written.
///
/// # Example
/// A model with units gets its axes labelled with them (`x [m]`, `h − h₀ [J]`):
/// ```
/// use lagrange_runtime::prelude::*;
/// use lagrange_runtime::plot::quick_look;
/// use lagrange_runtime::simulate::{Rk4, Simulation};
///
/// lagrangian! {
///     struct Oscillator {
///         parameters: m = 1.0 [kg], k = 4.0 [N/m];
///         coordinates: x [m];
///         kinetic = m/2 * dot(x)^2;
///         potential = k/2 * x^2;
///     }
/// }
///
/// let run = Simulation::new(&Oscillator::default(), State::at_rest(SVector::from([1.0])))
///     .run(&Rk4::new(0.01), 5.0)
///     .unwrap();
/// let path = std::env::temp_dir().join("lagrange-plot-doc").join("oscillator.png");
/// quick_look(&run, &path).unwrap();
/// assert!(path.exists());
/// ```
pub fn quick_look<const N: usize, const M: usize>(
    trajectory: &Trajectory<N, M>,
    path: impl AsRef<Path>,
) -> Result<()> {
    if trajectory.is_empty() {
        return Err("an empty trajectory has nothing to plot".into());
    }
    let h0 = trajectory.energies()[0];
    figure(path, (1200, 900), |root| {
        let (top, bottom) = root.split_vertically(560);
        let header = trajectory.header();
        let t = &header[0];
        let mut coordinates = Panel::new("Coordinates", t, "q");
        for (i, label) in header[1..=N].iter().enumerate() {
            coordinates =
                coordinates.line(label, trajectory.states().iter().map(|s| (s.t, s.q[i])));
        }
        coordinates.draw(&top)?;
        let h = match trajectory.column_unit("energy") {
            Some(unit) => format!("h − h₀ [{unit}]"),
            None => "h − h₀".into(),
        };
        Panel::new("Energy function: h − h₀", t, &h)
            .line(
                "",
                trajectory
                    .states()
                    .iter()
                    .zip(trajectory.energies())
                    .map(|(s, h)| (s.t, h - h0)),
            )
            .draw(&bottom)
    })
}

/// The polylines of a mechanism in the plane, each a list of points (x, y).
pub type Lines = Vec<Vec<(f64, f64)>>;

/// How an animation is drawn.
///
/// # Example
/// ```
/// use lagrange_runtime::plot::Animation;
/// // Half speed, a fixed region (x from −1.2 to 1.2, y from −1.2 to 0.2), a caption.
/// let settings = Animation {
///     speed: 0.5,
///     bounds: Some((-1.2..1.2, -1.2..0.2)),
///     title: "Pendulum".into(),
///     ..Animation::default()
/// };
/// assert_eq!((settings.size, settings.fps), ((600, 600), 25));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    /// Width and height in pixels.
    pub size: (u32, u32),
    /// Frames per second of the GIF (of the simulated time).
    pub fps: u32,
    /// Simulated seconds per second of the animation (1 is real time).
    pub speed: f64,
    /// The plotted region in x and y; fitted to every frame's points when `None`, with
    /// equal scales on both axes.
    pub bounds: Option<(Range<f64>, Range<f64>)>,
    /// A caption above the mechanism; the time is appended.
    pub title: String,
}

impl Default for Animation {
    /// 600×600 pixels, 25 frames per second, real time, fitted bounds, no title.
    fn default() -> Self {
        Animation {
            size: (600, 600),
            fps: 25,
            speed: 1.0,
            bounds: None,
            title: String::new(),
        }
    }
}

/// An animated GIF of a planar mechanism (or a projection of a spatial one) along
/// `trajectory`, at `path`. For each frame, `mechanism` gives the state's polylines in the
/// plane: links drawn as lines from point to point, with a dot at each point. Frames are
/// spaced `speed / fps` simulated seconds apart, each state interpolated from the
/// trajectory's samples ([`Trajectory::at`]).
///
/// # Errors
/// An empty trajectory (a single sample gives one frame), invalid settings, non-finite
/// points or bounds, a size beyond 65535 pixels on a side, or a file that cannot be
/// written.
///
/// # Example
/// Any trajectory, here one written by hand: a rod turning once about the origin.
/// ```
/// use lagrange_runtime::plot::{animate, Animation};
/// use lagrange_runtime::simulate::Trajectory;
/// use lagrange_runtime::{State, SVector};
///
/// let mut run = Trajectory::new(&["theta"], &[]);
/// for k in 0..=10 {
///     let t = 0.1 * f64::from(k);
///     let theta = std::f64::consts::TAU * t;
///     run.push(State::new(t, SVector::from([theta]), SVector::from([std::f64::consts::TAU])), SVector::zeros(), 0.0);
/// }
/// let settings = Animation { size: (200, 200), fps: 10, title: "A rod".into(), ..Animation::default() };
/// let path = std::env::temp_dir().join("lagrange-plot-doc").join("rod.gif");
/// animate(&run, &path, &settings, |s| vec![vec![(0.0, 0.0), (s.q[0].cos(), s.q[0].sin())]]).unwrap();
/// assert!(path.exists());
/// ```
pub fn animate<const N: usize, const M: usize>(
    trajectory: &Trajectory<N, M>,
    path: impl AsRef<Path>,
    settings: &Animation,
    mut mechanism: impl FnMut(&State<N>) -> Lines,
) -> Result<()> {
    let path = path.as_ref();
    if !(settings.fps > 0 && settings.speed.is_finite() && settings.speed > 0.0) {
        return Err("an animation needs a positive frame rate and speed".into());
    }
    let (Some(first), Some(last)) = (trajectory.states().first(), trajectory.states().last())
    else {
        return Err("an empty trajectory has nothing to animate".into());
    };
    let dt = settings.speed / f64::from(settings.fps);
    let intervals = ((last.t - first.t) / dt).floor();
    if intervals.is_nan() || intervals >= 100_000.0 {
        return Err(format!(
            "{intervals:e} frames: lower the frame rate or raise the speed (at most 100000)"
        )
        .into());
    }
    let count = intervals as usize + 1;
    let frames: Vec<(f64, Lines)> = (0..count)
        .map(|k| {
            let t = (first.t + k as f64 * dt).min(last.t);
            let s = trajectory.at(t).unwrap_or(*last);
            (t, mechanism(&s))
        })
        .collect();
    let (x, y) = region(settings, frames.iter().map(|(_, lines)| lines))?;
    prepare(path, settings.size)?;
    // Hundredths of a second per frame, as GIF counts (plotters' rounding of 1000 / fps ms).
    let delay = (((1000 / settings.fps).max(1) + 5) / 10) as u16;
    // `prepare` checked that both sides fit in 16 bits.
    let size = (settings.size.0 as u16, settings.size.1 as u16);
    let mut file = GifFile::create(path, size, delay)?;
    let mut rgb = vec![0; 3 * settings.size.0 as usize * settings.size.1 as usize];
    for (t, lines) in &frames {
        {
            let root = BitMapBackend::with_buffer(&mut rgb, settings.size).into_drawing_area();
            draw_frame(&root, *t, lines, (&x, &y), settings)?;
            root.present()?;
        }
        file.push(&rgb)?;
    }
    Ok(())
}

/// One frame of an [`animate`] animation as a PNG at `path`: the mechanism at `state`
/// (for a README or a report; `settings.fps` and `speed` are not used).
///
/// # Errors
/// As [`animate`].
///
/// # Example
/// ```
/// use lagrange_runtime::plot::{snapshot, Animation};
/// use lagrange_runtime::{State, SVector};
///
/// // A pendulum at 0.5 rad: the rod from the pivot to the bob.
/// let s = State::at_rest(SVector::from([0.5]));
/// let path = std::env::temp_dir().join("lagrange-plot-doc").join("pendulum-frame.png");
/// snapshot(&s, &path, &Animation::default(), |s| vec![vec![(0.0, 0.0), (s.q[0].sin(), -s.q[0].cos())]])
///     .unwrap();
/// assert!(path.exists());
/// ```
pub fn snapshot<const N: usize>(
    state: &State<N>,
    path: impl AsRef<Path>,
    settings: &Animation,
    mechanism: impl FnOnce(&State<N>) -> Lines,
) -> Result<()> {
    let lines = mechanism(state);
    let (x, y) = region(settings, [&lines])?;
    figure(path, settings.size, |root| {
        draw_frame(root, state.t, &lines, (&x, &y), settings)
    })
}

/// The mechanism's `lines` at time `t` in the region `bounds`, on a white `area`.
fn draw_frame<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: f64,
    lines: &[Vec<(f64, f64)>],
    bounds: (&Range<f64>, &Range<f64>),
    settings: &Animation,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let caption = if settings.title.is_empty() {
        format!("t = {t:.2}")
    } else {
        format!("{}   t = {t:.2}", settings.title)
    };
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(10)
        .build_cartesian_2d(bounds.0.clone(), bounds.1.clone())?;
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_axes()
        .draw()?;
    let region = (bounds.0.clone(), bounds.1.clone(), false, false);
    for (i, line) in lines.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pieces = clip(line, &region);
        chart.draw_series(
            pieces
                .into_iter()
                .map(|piece| PathElement::new(piece, color.stroke_width(3))),
        )?;
        chart.draw_series(
            line.iter()
                .filter(|p| inside(**p, &region))
                .map(|&p| Circle::new(p, 5, color.filled())),
        )?;
    }
    Ok(())
}

/// The region an animation shows: `settings.bounds`, or the frames' points with a margin
/// and equal scales on both axes. Errors for non-finite points or an undrawable region.
fn region<'l>(
    settings: &Animation,
    frames: impl IntoIterator<Item = &'l Lines> + Clone,
) -> Result<(Range<f64>, Range<f64>)> {
    let points = || frames.clone().into_iter().flatten().flatten();
    if points().any(|(x, y)| !x.is_finite() || !y.is_finite()) {
        return Err("the mechanism has a non-finite point".into());
    }
    let (x, y) = match &settings.bounds {
        Some((x, y)) => (x.clone(), y.clone()),
        None => square(
            span(points().map(|p| p.0), (0.08, 0.08)),
            span(points().map(|p| p.1), (0.08, 0.08)),
            settings.size,
        ),
    };
    Ok((drawable(x, "x")?, drawable(y, "y")?))
}

/// `x` and `y` widened so that one unit has the same length on both axes of `size`.
fn square(x: Range<f64>, y: Range<f64>, size: (u32, u32)) -> (Range<f64>, Range<f64>) {
    let (w, h) = (f64::from(size.0), f64::from(size.1));
    let scale = ((x.end - x.start) / w).max((y.end - y.start) / h);
    let widen = |r: Range<f64>, pixels: f64| {
        let (mid, half) = ((r.start + r.end) / 2.0, scale * pixels / 2.0);
        mid - half..mid + half
    };
    (widen(x, w), widen(y, h))
}

#[cfg(test)]
mod tests;
