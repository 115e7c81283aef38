//! SVG and PNG plots of a meta-evaluation.
//!
//! * **Scatter** (FactPICO Figure 2 style), one panel per metric: with a
//!   system column, one point per system (mean metric score vs mean human
//!   score, labelled); without one, one point per item with a small seeded
//!   vertical jitter (human averages are discrete), at most
//!   [`MAX_SCATTER_POINTS`] of them (a seeded random sample above that, said
//!   in the panel caption). Metric values are on the
//!   metric's own scale; the x-axis label says which direction is better.
//! * **Distribution** (FactPICO Appendix G style), one panel per metric:
//!   histograms (as densities) of the min–max normalised human and metric
//!   scores with their fitted normal curves, and the KL divergence of the
//!   two fits in the panel title — the same normalisation and fits as
//!   [`crate::KlCell`].
//!
//! Text is drawn with DejaVu Sans embedded in the binary (registered with
//! plotters' `ab_glyph` font table on first use), so no system font library
//! is needed. SVG files name the `sans-serif` family and are laid out with
//! DejaVu Sans metrics. Files are written atomically (temporary file, then
//! rename).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::direction::Direction;
use crate::error::{Error, Result};
use crate::evaluate::MetaEvalResult;
use crate::join::Joined;
use crate::render::{f3, write_atomic};
use factpico_stats::Level;

/// The embedded font (DejaVu Sans 2.37, Bitstream Vera licence; see
/// `assets/DejaVuSans-LICENSE.txt` and THIRD_PARTY.md).
static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
const FAMILY: &str = "sans-serif";

/// Registers the embedded font once; false if it could not be parsed.
fn ensure_font() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    *OK.get_or_init(|| plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_ok())
}

/// An image format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlotFormat {
    /// Scalable vector graphics.
    Svg,
    /// PNG bitmap.
    Png,
}

impl PlotFormat {
    /// File extension.
    pub fn extension(self) -> &'static str {
        match self {
            PlotFormat::Svg => "svg",
            PlotFormat::Png => "png",
        }
    }
}

/// Which plots to draw, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotOptions {
    /// Output directory (created if needed).
    pub dir: PathBuf,
    /// Formats (default: SVG and PNG).
    pub formats: Vec<PlotFormat>,
    /// Aspects to plot (default `None`: every evaluated aspect).
    pub aspects: Option<Vec<String>>,
    /// Seed of the item-level jitter.
    pub seed: u64,
}

impl PlotOptions {
    /// SVG and PNG of every aspect into `dir`, jitter seed 0.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        PlotOptions { dir: dir.into(), formats: vec![PlotFormat::Svg, PlotFormat::Png], aspects: None, seed: 0 }
    }
}

/// Most item-level points a scatter panel draws: above it, a uniform random sample of this
/// many (seeded by the plot seed, [`factpico_stats::calibration_sample`]), and the caption
/// says "k of n points drawn", so that an SVG of a million-row evaluation stays small.
pub const MAX_SCATTER_POINTS: usize = 5_000;

/// Vertical jitter half-width of item-level scatter points, in human-score units.
pub const JITTER: f64 = 0.06;

const PANEL_W: u32 = 470;
const PANEL_H: u32 = 400;
const TITLE_H: u32 = 48;
const HUMAN: RGBColor = RGBColor(31, 119, 180);
const METRIC: RGBColor = RGBColor(230, 115, 0);

struct ScatterPanel {
    caption: String,
    x_desc: String,
    y_desc: String,
    points: Vec<(f64, f64)>,
    labels: Vec<String>,
}

struct DistPanel {
    caption: String,
    human_label: String,
    metric_label: String,
    human: Vec<f64>,
    metric: Vec<f64>,
    human_fit: Option<(f64, f64)>,
    metric_fit: Option<(f64, f64)>,
}

struct Figure<P> {
    title: String,
    panels: Vec<P>,
}

fn direction_word(result: &MetaEvalResult, metric: &str) -> Direction {
    result.directions.iter().find(|d| d.metric == metric).map_or(Direction::HigherIsBetter, |d| d.direction)
}

fn scatter_figure(joined: &Joined, result: &MetaEvalResult, aspect: &str, seed: u64) -> Figure<ScatterPanel> {
    let by_system = joined.systems.is_some();
    let mut panels = Vec::new();
    for metric in &result.metrics {
        let dir = direction_word(result, metric);
        let x_desc = format!("{metric} ({} is better)", dir.word());
        let (points, labels, caption): (Vec<(f64, f64)>, Vec<String>, String);
        if by_system {
            let means = result.system_means.iter().find(|m| &m.metric == metric && m.aspect == aspect);
            let ms = means.map(|m| m.means.as_slice()).unwrap_or_default();
            points = ms.iter().map(|s| (s.metric_mean, s.human_mean)).collect();
            labels = ms.iter().map(|s| s.system.clone()).collect();
            let cell = result.cell(Level::System, metric, aspect);
            caption = match cell.and_then(|c| c.stats) {
                Some(st) => format!("{metric}: system τ_b = {} ({} systems)", f3(st.kendall_tau_b.statistic), ms.len()),
                None => format!("{metric}: {} systems, no system τ_b", ms.len()),
            };
        } else {
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            let xs = joined.metrics.get(metric).map(Vec::as_slice).unwrap_or_default();
            let ys = joined.aspects.get(aspect).map(Vec::as_slice).unwrap_or_default();
            let all: Vec<(f64, f64)> = xs
                .iter()
                .zip(ys)
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .map(|(&x, &y)| (x, y + rng.random_range(-JITTER..JITTER)))
                .collect();
            let n_all = all.len();
            points = if n_all > MAX_SCATTER_POINTS {
                let positions: Vec<usize> = (0..n_all).collect();
                factpico_stats::calibration_sample(&positions, MAX_SCATTER_POINTS, seed).into_iter().map(|i| all[i]).collect()
            } else {
                all
            };
            let drawn = if n_all > points.len() { format!(" ({} of {n_all} points drawn)", points.len()) } else { String::new() };
            labels = Vec::new();
            let cell = result.cell(Level::Instance, metric, aspect);
            caption = match cell.and_then(|c| c.stats) {
                Some(st) => format!(
                    "{metric}: τ_b = {}, n = {}{drawn}",
                    f3(st.kendall_tau_b.statistic),
                    st.kendall_tau_b.n
                ),
                None => format!("{metric}: n = {n_all}{drawn}"),
            };
        }
        let low = crate::evaluate::aspect_direction(&result.options, aspect) == Direction::LowerIsBetter;
        let better = if low { "; lower is better" } else { "" };
        let y_desc = if by_system { format!("{aspect} (human mean{better})") } else { format!("{aspect} (human{better})") };
        panels.push(ScatterPanel { caption, x_desc, y_desc, points, labels });
    }
    let title = if by_system {
        format!("Metric vs human {aspect}: per-system means")
    } else {
        format!("Metric vs human {aspect}: one point per summary (no systems; vertical jitter ±{JITTER})")
    };
    Figure { title, panels }
}

fn normalise(v: &[f64], range: Option<(f64, f64)>) -> Vec<f64> {
    let (lo, hi) = range.unwrap_or_else(|| {
        (v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(f64::NEG_INFINITY, f64::max))
    });
    if hi > lo {
        v.iter().map(|x| (x - lo) / (hi - lo)).collect()
    } else {
        Vec::new()
    }
}

fn dist_figure(joined: &Joined, result: &MetaEvalResult, aspect: &str) -> Figure<DistPanel> {
    let mut panels = Vec::new();
    let h_dir = crate::evaluate::aspect_direction(&result.options, aspect);
    for metric in &result.metrics {
        let dir = direction_word(result, metric);
        let xs = joined.metrics.get(metric).map(Vec::as_slice).unwrap_or_default();
        let ys = joined.aspects.get(aspect).map(Vec::as_slice).unwrap_or_default();
        let (m, h): (Vec<f64>, Vec<f64>) = xs
            .iter()
            .zip(ys)
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|(&x, &y)| (x * dir.sign(), y * h_dir.sign()))
            .unzip();
        let kl = result.kl.iter().find(|k| &k.metric == metric && k.aspect == aspect);
        let caption = match kl.and_then(|k| k.kl.kl) {
            Some(v) => format!("{metric}: KL(human ‖ metric) = {}", f3(Some(v))),
            None => format!("{metric}: KL undefined"),
        };
        let metric_label = match dir {
            Direction::HigherIsBetter => metric.clone(),
            Direction::LowerIsBetter => format!("−{metric} (negated)"),
        };
        panels.push(DistPanel {
            caption,
            human_label: match h_dir {
                Direction::HigherIsBetter => format!("human {aspect}"),
                Direction::LowerIsBetter => format!("human −{aspect} (negated)"),
            },
            metric_label,
            human: normalise(&h, crate::evaluate::human_range_for(&result.options, aspect)),
            metric: normalise(&m, None),
            human_fit: kl.and_then(|k| k.kl.human_fit).map(|f| (f.mean, f.sd)),
            metric_fit: kl.and_then(|k| k.kl.metric_fit).map(|f| (f.mean, f.sd)),
        });
    }
    let range = match result.options.human_range {
        Some((lo, hi)) => format!("human scale [{lo}, {hi}]"),
        None => "observed ranges".into(),
    };
    Figure {
        title: format!("Score distributions vs human {aspect}: min–max normalised ({range}), normal fits"),
        panels,
    }
}

fn padded(lo: f64, hi: f64) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    if hi <= lo {
        return (lo - 0.5, hi + 0.5);
    }
    let pad = (hi - lo) * 0.06;
    (lo - pad, hi + pad)
}

fn grid(n: usize) -> (usize, usize) {
    let cols = if n == 4 { 2 } else { n.clamp(1, 3) };
    (n.div_ceil(cols).max(1), cols)
}

fn font(size: f64) -> TextStyle<'static> {
    (FAMILY, size).into_font().color(&BLACK)
}

type DrawResult<DB> = std::result::Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn draw_scatter<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, fig: &Figure<ScatterPanel>) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let body = root.titled(&fig.title, font(20.0))?;
    let (rows, cols) = grid(fig.panels.len());
    for (area, p) in body.split_evenly((rows, cols)).iter().zip(&fig.panels) {
        let (x0, x1) = padded(
            p.points.iter().map(|q| q.0).fold(f64::INFINITY, f64::min),
            p.points.iter().map(|q| q.0).fold(f64::NEG_INFINITY, f64::max),
        );
        let (y0, mut y1) = padded(
            p.points.iter().map(|q| q.1).fold(f64::INFINITY, f64::min),
            p.points.iter().map(|q| q.1).fold(f64::NEG_INFINITY, f64::max),
        );
        if !p.labels.is_empty() {
            y1 += (y1 - y0) * 0.08; // room for the label of the highest point
        }
        let mut chart = ChartBuilder::on(area)
            .caption(&p.caption, font(16.0))
            .margin(12)
            .x_label_area_size(46)
            .y_label_area_size(58)
            .build_cartesian_2d(x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc(&p.x_desc)
            .y_desc(&p.y_desc)
            .axis_desc_style(font(14.0))
            .label_style(font(12.0))
            .x_labels(6)
            .y_labels(6)
            .max_light_lines(1)
            .light_line_style(RGBColor(240, 240, 240))
            .bold_line_style(RGBColor(220, 220, 220))
            .draw()?;
        if p.labels.is_empty() {
            chart.draw_series(p.points.iter().map(|&(x, y)| Circle::new((x, y), 3, HUMAN.mix(0.55).filled())))?;
        } else {
            // labels of points in the right third go to their left, so they stay inside the panel
            let right = x0 + (x1 - x0) * 0.66;
            chart.draw_series(p.points.iter().zip(&p.labels).map(|(&(x, y), name)| {
                let width = i32::try_from(name.chars().count()).unwrap_or(40) * 7;
                let dx = if x > right { -width - 8 } else { 8 };
                EmptyElement::at((x, y))
                    + Circle::new((0, 0), 5, HUMAN.filled())
                    + Text::new(name.clone(), (dx, -16), font(12.0))
            }))?;
        }
    }
    root.present()?;
    Ok(())
}

fn histogram(v: &[f64], bins: usize) -> Vec<(f64, f64, f64)> {
    if v.is_empty() {
        return Vec::new();
    }
    let mut counts = vec![0usize; bins];
    for &x in v {
        let b = ((x * bins as f64).floor() as isize).clamp(0, bins as isize - 1) as usize;
        counts[b] += 1;
    }
    let w = 1.0 / bins as f64;
    counts.iter().enumerate().map(|(i, &c)| (i as f64 * w, (i + 1) as f64 * w, c as f64 / (v.len() as f64 * w))).collect()
}

fn normal_pdf(x: f64, mu: f64, sd: f64) -> f64 {
    (-(x - mu).powi(2) / (2.0 * sd * sd)).exp() / (sd * (2.0 * std::f64::consts::PI).sqrt())
}

const BINS: usize = 12;

fn draw_dist<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, fig: &Figure<DistPanel>) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let body = root.titled(&fig.title, font(20.0))?;
    let (rows, cols) = grid(fig.panels.len());
    for (area, p) in body.split_evenly((rows, cols)).iter().zip(&fig.panels) {
        let hh = histogram(&p.human, BINS);
        let mh = histogram(&p.metric, BINS);
        let peak = |f: Option<(f64, f64)>| f.map_or(0.0, |(m, s)| normal_pdf(m, m, s));
        let y_max = hh
            .iter()
            .chain(&mh)
            .map(|b| b.2)
            .fold(peak(p.human_fit).max(peak(p.metric_fit)), f64::max)
            .max(0.5)
            * 1.7;
        let mut chart = ChartBuilder::on(area)
            .caption(&p.caption, font(16.0))
            .margin(12)
            .x_label_area_size(46)
            .y_label_area_size(52)
            .build_cartesian_2d(-0.08f64..1.08f64, 0f64..y_max)?;
        chart
            .configure_mesh()
            .x_desc("normalised score (0 = worst observed, 1 = best)")
            .y_desc("density")
            .axis_desc_style(font(14.0))
            .label_style(font(12.0))
            .x_labels(6)
            .y_labels(6)
            .max_light_lines(1)
            .light_line_style(RGBColor(240, 240, 240))
            .bold_line_style(RGBColor(220, 220, 220))
            .draw()?;
        for (bins, color, label) in [(&hh, HUMAN, &p.human_label), (&mh, METRIC, &p.metric_label)] {
            chart
                .draw_series(bins.iter().map(|&(a, b, d)| Rectangle::new([(a, 0.0), (b, d)], color.mix(0.30).filled())))?
                .label(label.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 16, y + 6)], color.mix(0.45).filled()));
        }
        for (color, fit) in [(HUMAN, p.human_fit), (METRIC, p.metric_fit)] {
            if let Some((mu, sd)) = fit {
                let curve = (0..=240).map(|i| {
                    let x = -0.08 + 1.16 * f64::from(i) / 240.0;
                    (x, normal_pdf(x, mu, sd))
                });
                chart
                    .draw_series(LineSeries::new(curve, color.stroke_width(2)))?
                    .label(if color == HUMAN { "normal fit (human)" } else { "normal fit (metric)" })
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(font(13.0))
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(160, 160, 160))
            .draw()?;
    }
    root.present()?;
    Ok(())
}

fn size(panels: usize) -> (u32, u32) {
    let (rows, cols) = grid(panels);
    (PANEL_W * cols as u32, PANEL_H * rows as u32 + TITLE_H)
}

fn plot_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Plot { path: path.to_owned(), message: e.to_string() }
}

/// Draws a figure into an SVG document held in memory (`path` only names it in errors).
macro_rules! svg_string {
    ($path:expr, $dims:expr, $draw:ident, $fig:expr) => {{
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, $dims).into_drawing_area();
            $draw(&root, $fig).map_err(|e| plot_err($path, e))?;
        }
        svg
    }};
}

macro_rules! render_both {
    ($path:expr, $format:expr, $dims:expr, $draw:ident, $fig:expr) => {{
        let path: &Path = $path;
        if !ensure_font() {
            return Err(plot_err(path, "the embedded font could not be loaded"));
        }
        match $format {
            PlotFormat::Svg => {
                let svg = svg_string!(path, $dims, $draw, $fig);
                write_atomic(path, svg.as_bytes())?;
            }
            PlotFormat::Png => {
                // The PNG encoder writes to a path: our fresh, exclusive temporary file.
                let tmp = factpico_io::AtomicFile::create(path)?;
                {
                    let root = BitMapBackend::new(tmp.temp_path(), $dims).into_drawing_area();
                    $draw(&root, $fig).map_err(|e| plot_err(path, e))?;
                }
                tmp.commit()?;
            }
        }
        Ok(())
    }};
}

/// Draws the scatter figure of `aspect` (one panel per metric) to `path`.
///
/// # Errors
/// [`Error::Plot`], [`Error::Io`].
pub fn scatter(joined: &Joined, result: &MetaEvalResult, aspect: &str, path: &Path, format: PlotFormat, seed: u64) -> Result<()> {
    let fig = scatter_figure(joined, result, aspect, seed);
    render_both!(path, format, size(fig.panels.len()), draw_scatter, &fig)
}

/// Draws the distribution figure of `aspect` (one panel per metric) to `path`.
///
/// # Errors
/// [`Error::Plot`], [`Error::Io`].
pub fn distribution(joined: &Joined, result: &MetaEvalResult, aspect: &str, path: &Path, format: PlotFormat) -> Result<()> {
    let fig = dist_figure(joined, result, aspect);
    render_both!(path, format, size(fig.panels.len()), draw_dist, &fig)
}

/// The scatter figure of `aspect` as an SVG document in memory: the same drawing that
/// [`scatter`] writes as a `.svg` file (for pages that embed it, e.g. `factpico report`).
/// Text is escaped by the SVG backend and set in the `sans-serif` family.
///
/// # Errors
/// [`Error::Plot`].
pub fn scatter_svg(joined: &Joined, result: &MetaEvalResult, aspect: &str, seed: u64) -> Result<String> {
    let fig = scatter_figure(joined, result, aspect, seed);
    let path = Path::new(aspect);
    if !ensure_font() {
        return Err(plot_err(path, "the embedded font could not be loaded"));
    }
    Ok(svg_string!(path, size(fig.panels.len()), draw_scatter, &fig))
}

/// The distribution figure of `aspect` as an SVG document in memory (what [`distribution`]
/// writes as a `.svg` file).
///
/// # Errors
/// [`Error::Plot`].
pub fn distribution_svg(joined: &Joined, result: &MetaEvalResult, aspect: &str) -> Result<String> {
    let fig = dist_figure(joined, result, aspect);
    let path = Path::new(aspect);
    if !ensure_font() {
        return Err(plot_err(path, "the embedded font could not be loaded"));
    }
    Ok(svg_string!(path, size(fig.panels.len()), draw_dist, &fig))
}

/// The files [`draw_all`] would write (to check them before anything is written).
///
/// # Errors
/// As [`draw_all`], before drawing.
pub fn planned_files(result: &MetaEvalResult, opts: &PlotOptions) -> Result<Vec<PathBuf>> {
    let aspects = opts.aspects.clone().unwrap_or_else(|| result.aspects.clone());
    let stems = file_stems(&aspects)?;
    let mut out = Vec::new();
    for stem in &stems {
        for &f in &opts.formats {
            out.push(opts.dir.join(format!("scatter_{stem}.{}", f.extension())));
            out.push(opts.dir.join(format!("distribution_{stem}.{}", f.extension())));
        }
    }
    Ok(out)
}

/// The file-name stem of each aspect's plots: the aspect itself when it is made of ASCII
/// letters, digits, `-` and `_`; otherwise those characters kept, the others replaced by
/// `_`, and `-` plus 8 hex digits of the aspect's FNV-1a hash appended, so that different
/// aspects (`a/b`, `a_b`) never share a file. Stems that still collide (also ignoring case,
/// for case-insensitive filesystems) are an error rather than an overwrite.
///
/// # Errors
/// [`Error::InvalidOption`] naming the two aspects.
pub fn file_stems(aspects: &[String]) -> Result<Vec<String>> {
    let fnv = |s: &str| s.bytes().fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    let stems: Vec<String> = aspects
        .iter()
        .map(|a| {
            let safe: String =
                a.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
            if safe == *a && !safe.is_empty() {
                safe
            } else {
                format!("{safe}-{:08x}", fnv(a))
            }
        })
        .collect();
    let mut seen: std::collections::HashMap<String, &String> = std::collections::HashMap::new();
    for (a, stem) in aspects.iter().zip(&stems) {
        if let Some(other) = seen.insert(stem.to_lowercase(), a) {
            if other != a {
                return Err(Error::InvalidOption {
                    option: "plots.aspects",
                    message: format!("the plots of aspects `{other}` and `{a}` would have the same file name ({stem}); rename one"),
                });
            }
        }
    }
    Ok(stems)
}

/// Draws `scatter_<aspect>` and `distribution_<aspect>` in every format of
/// `opts` for every plotted aspect; returns the files written.
///
/// # Errors
/// [`Error::InvalidOption`] for an aspect that was not evaluated;
/// [`Error::Plot`], [`Error::Io`].
pub fn draw_all(joined: &Joined, result: &MetaEvalResult, opts: &PlotOptions) -> Result<Vec<PathBuf>> {
    let aspects = opts.aspects.clone().unwrap_or_else(|| result.aspects.clone());
    for aspect in &aspects {
        if !result.aspects.contains(aspect) {
            return Err(Error::InvalidOption {
                option: "plots.aspects",
                message: format!("`{aspect}` is not one of the evaluated aspects ({})", result.aspects.join(", ")),
            });
        }
    }
    let stems = file_stems(&aspects)?;
    let mut written = Vec::new();
    for (aspect, safe) in aspects.iter().zip(&stems) {
        for &f in &opts.formats {
            let p = opts.dir.join(format!("scatter_{safe}.{}", f.extension()));
            scatter(joined, result, aspect, &p, f, opts.seed)?;
            written.push(p);
            let p = opts.dir.join(format!("distribution_{safe}.{}", f.extension()));
            distribution(joined, result, aspect, &p, f)?;
            written.push(p);
        }
    }
    Ok(written)
}
