//! The figure pipeline: every figure is CSV data plus a PNG and an SVG drawn with `plotters`.
//!
//! One colour per accounting, used everywhere: the Bureau's zCDP accounting red, the exact accounting
//! blue, the exact accounting with reduced noise black; other series take the secondary palette.
//! Text uses the bundled DejaVu Sans (assets/fonts, Bitstream Vera licence) through plotters' ab_glyph
//! backend, so no system fontconfig is needed and the output does not depend on the machine.

use crate::err;
use crate::error::Fallible;
use crate::plots::png::write_png;
use crate::record::write_atomic;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

pub const BUREAU: RGBColor = RGBColor(214, 39, 40);
pub const EXACT: RGBColor = RGBColor(31, 119, 180);
pub const REDUCED: RGBColor = RGBColor(0, 0, 0);
pub const OTHER: [RGBColor; 4] = [RGBColor(44, 160, 44), RGBColor(148, 103, 189), RGBColor(255, 127, 14), RGBColor(140, 86, 75)];

static FONT: Once = Once::new();

/// The font with its legacy `kern` table hidden (its tag renamed): plotters' ab_glyph renderer applies
/// the kerning pairs but places every glyph's ink at the pen position, ignoring the glyph's left side
/// bearing, so a strongly kerned pair such as "Tr" printed the r under the bar of the T ("Tract").
/// Without the pairs each glyph advances by its own width and the words read normally.
pub(crate) fn without_kerning(font: &[u8]) -> Vec<u8> {
    let mut b = font.to_vec();
    let n = if b.len() >= 6 { u16::from_be_bytes([b[4], b[5]]) as usize } else { 0 };
    for i in 0..n {
        let o = 12 + 16 * i;
        if o + 4 <= b.len() && &b[o..o + 4] == b"kern" {
            b[o..o + 4].copy_from_slice(b"KERN");
        }
    }
    b
}

pub(crate) fn ensure_font() {
    FONT.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
        let bytes: &'static [u8] = Box::leak(without_kerning(bytes).into_boxed_slice());
        for style in [FontStyle::Normal, FontStyle::Bold, FontStyle::Italic, FontStyle::Oblique] {
            let _ = plotters::style::register_font("sans-serif", style, bytes);
        }
    });
}

/// Grid lines: the major ones light grey, the minor ones not drawn (ten per major interval made a
/// dense hatching behind the curves).
pub(crate) const GRID: RGBColor = RGBColor(225, 225, 225);

#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub color: RGBColor,
    pub dashed: bool,
    /// Draw markers instead of a line.
    pub markers: bool,
    /// Draw an × at each point instead of a line (e.g. tiles where another procedure disagrees).
    pub cross: bool,
    /// Draw each point as a filled unit tile [x − ½, x + ½] × [y − ½, y + ½] (decision maps).
    pub tile: bool,
    /// Draw each point as a bar from 0 to y over [x + offset, x + offset + width] (pmf histograms).
    pub bar: Option<(f64, f64)>,
    /// The legend's text when it differs from `name` (the name stays the series' key in the CSV).
    pub legend: Option<String>,
}

impl Series {
    pub fn line(name: &str, color: RGBColor, points: Vec<(f64, f64)>) -> Series {
        Series { name: name.to_string(), points, color, dashed: false, markers: false, cross: false, tile: false, bar: None, legend: None }
    }
    pub fn cross(mut self) -> Series {
        self.cross = true;
        self
    }
    pub fn tiles(mut self) -> Series {
        self.tile = true;
        self
    }
    pub fn bars(mut self, offset: f64, width: f64) -> Series {
        self.bar = Some((offset, width));
        self
    }
    pub fn dashed(mut self) -> Series {
        self.dashed = true;
        self
    }
    pub fn markers(mut self) -> Series {
        self.markers = true;
        self
    }
    /// Show `text` in the legend instead of the series' name.
    pub fn legend(mut self, text: &str) -> Series {
        self.legend = Some(text.to_string());
        self
    }
    fn legend_text(&self) -> &str {
        self.legend.as_deref().unwrap_or(&self.name)
    }
}

#[derive(Clone, Debug)]
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_log: bool,
    pub y_log: bool,
    pub x_range: Option<(f64, f64)>,
    pub y_range: Option<(f64, f64)>,
    pub series: Vec<Series>,
    /// Put the legend in the lower left corner (where the data leave room) instead of the upper right.
    pub legend_lower_left: bool,
    /// Dashed vertical reference lines (x, legend name, colour), spanning the panel's y range.
    pub vlines: Vec<(f64, String, RGBColor)>,
    /// Dashed horizontal reference lines (y, legend name, colour), spanning the panel's x range.
    pub hlines: Vec<(f64, String, RGBColor)>,
    /// A second x axis along the top: its title and labelled ticks at positions of the bottom axis
    /// (e.g. ρ = 1/(2s) over an s axis).
    pub top_axis: Option<(String, Vec<(f64, String)>)>,
}

impl Panel {
    pub fn new(title: &str, x_label: &str, y_label: &str) -> Panel {
        Panel {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_log: false,
            y_log: false,
            x_range: None,
            y_range: None,
            series: vec![],
            legend_lower_left: false,
            vlines: vec![],
            hlines: vec![],
            top_axis: None,
        }
    }

    fn range(&self, pick: fn(&(f64, f64)) -> f64, log: bool, fixed: Option<(f64, f64)>) -> (f64, f64) {
        if let Some(r) = fixed {
            return r;
        }
        let vals: Vec<f64> =
            self.series.iter().flat_map(|s| s.points.iter().map(pick)).filter(|v| v.is_finite() && (!log || *v > 0.0)).collect();
        let lo = vals.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        if !lo.is_finite() || !hi.is_finite() {
            return (if log { 1e-3 } else { 0.0 }, 1.0);
        }
        if log {
            (lo, hi.max(lo * 10.0))
        } else if hi > lo {
            let pad = 0.03 * (hi - lo);
            (lo - pad, hi + pad)
        } else {
            (lo - 1.0, hi + 1.0)
        }
    }
}

/// A figure: one or more panels in a grid, with a title.
#[derive(Clone, Debug)]
pub struct Figure {
    pub title: String,
    pub panels: Vec<Panel>,
    pub cols: usize,
    pub panel_w: u32,
    pub panel_h: u32,
    /// One legend for the whole figure in a strip below the panels (off the data), instead of a
    /// legend inside each panel: every distinct series / reference-line name once.
    pub legend_below: bool,
}

/// Legend entries per row of the strip below the panels: as many columns as the longest name allows
/// (about 8 px per character at the legend font, plus the key), at most 4.
fn legend_per_row(entries: &[(String, RGBColor, LegendStyle)], w: u32) -> usize {
    let longest = entries.iter().map(|e| e.0.chars().count()).max().unwrap_or(1) as u32;
    let (_, _, char_w) = legend_scale(w);
    ((w.saturating_sub(40)) / (longest * char_w + 50)).clamp(1, 4) as usize
}

/// The figure-level legend's font size, row height and character width (pixels): larger on figures
/// 1,800 pixels wide or more (the four-column grids of Figures 2, 4 and 5), where 15-pixel text was a thin
/// strip under the panels.
fn legend_scale(w: u32) -> (u32, u32, u32) {
    if w >= 1800 {
        (19, 30, 10)
    } else {
        (15, 24, 8)
    }
}

impl Figure {
    pub fn single(title: &str, p: Panel) -> Figure {
        Figure { title: title.into(), panels: vec![p], cols: 1, panel_w: 900, panel_h: 620, legend_below: false }
    }

    pub fn grid(title: &str, panels: Vec<Panel>, cols: usize) -> Figure {
        Figure { title: title.into(), panels, cols, panel_w: 520, panel_h: 400, legend_below: false }
    }

    /// The legend entries of the figure-level legend: (name, colour, style), first occurrence kept.
    fn legend_entries(&self) -> Vec<(String, RGBColor, LegendStyle)> {
        let mut out: Vec<(String, RGBColor, LegendStyle)> = Vec::new();
        let mut add = |n: &str, c: RGBColor, st: LegendStyle| {
            if !n.is_empty() && !out.iter().any(|(m, _, _)| m == n) {
                out.push((n.to_string(), c, st));
            }
        };
        for p in &self.panels {
            for s in &p.series {
                let st = if s.tile || s.bar.is_some() {
                    LegendStyle::Square
                } else if s.cross {
                    LegendStyle::Cross
                } else if s.markers {
                    LegendStyle::Dot
                } else if s.dashed {
                    LegendStyle::Dashed
                } else {
                    LegendStyle::Line
                };
                add(s.legend_text(), s.color, st);
            }
            for (_, n, c) in p.vlines.iter().chain(&p.hlines) {
                add(n, *c, LegendStyle::Dashed);
            }
        }
        out
    }

    fn legend_h(&self) -> u32 {
        if self.legend_below {
            let e = self.legend_entries();
            let w = self.panel_w * self.cols as u32;
            10 + legend_scale(w).1 * e.len().div_ceil(legend_per_row(&e, w)).max(1) as u32
        } else {
            0
        }
    }

    fn size(&self) -> (u32, u32) {
        let rows = self.panels.len().div_ceil(self.cols) as u32;
        (self.panel_w * self.cols as u32, self.panel_h * rows + 50 + self.legend_h())
    }

    /// CSV of all series: panel,series,x,y.
    pub fn csv(&self) -> String {
        self.csv_of(self.panels.len())
    }

    /// CSV of the series of the first `k` panels.
    fn csv_of(&self, k: usize) -> String {
        let mut w = csv::Writer::from_writer(vec![]);
        w.write_record(["panel", "series", "x", "y"]).expect("invariant: writing to memory");
        for p in self.panels.iter().take(k) {
            for s in &p.series {
                for (x, y) in &s.points {
                    w.write_record([p.title.as_str(), s.name.as_str(), &format!("{x:e}"), &format!("{y:e}")])
                        .expect("invariant: writing to memory");
                }
            }
        }
        String::from_utf8(w.into_inner().expect("invariant: CSV of UTF-8 text, written to memory"))
            .expect("invariant: CSV of UTF-8 text, written to memory")
    }

    /// Write `<stem>.csv`, `<stem>.png` and `<stem>.svg`.
    pub fn write(&self, stem: &Path) -> Fallible<Vec<std::path::PathBuf>> {
        let csv_path = stem.with_extension("csv");
        write_atomic(&csv_path, self.csv().as_bytes())?;
        let mut out = vec![csv_path];
        out.extend(self.write_pictures(stem)?);
        Ok(out)
    }

    /// Write `<stem>.csv` with the data of the first `k` panels only, and the pictures of all of them:
    /// the later panels redraw the same data at another scale (a log–log view, a zoom), so their
    /// points are no new data.
    pub fn write_data_of_first(&self, k: usize, stem: &Path) -> Fallible<Vec<std::path::PathBuf>> {
        let csv_path = stem.with_extension("csv");
        write_atomic(&csv_path, self.csv_of(k).as_bytes())?;
        let mut out = vec![csv_path];
        out.extend(self.write_pictures(stem)?);
        Ok(out)
    }

    /// Write only `<stem>.png` and `<stem>.svg` (when the data CSV is written elsewhere, e.g. the
    /// figure-data files of `risk::figures`, which must not be replaced by the plotted series).
    pub fn write_pictures(&self, stem: &Path) -> Fallible<Vec<std::path::PathBuf>> {
        ensure_font();
        let (w, h) = self.size();
        let png_path = stem.with_extension("png");
        let svg_path = stem.with_extension("svg");
        write_png(&png_path, (w, h), |root| self.draw_on(&root))?;
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
            self.draw_on(&root).map_err(|e| e.context(format!("drawing {}", svg_path.display())))?;
            root.present().map_err(|e| err!(Io, "writing {}: {e}", svg_path.display()))?;
        }
        write_atomic(&svg_path, svg.as_bytes())?;
        Ok(vec![png_path, svg_path])
    }

    fn draw_on<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Fallible<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE).map_err(|e| err!(Io, "{e}"))?;
        let (w, _) = self.size();
        // centred by characters (not bytes: ρ, ₁, … are several bytes each), ~11 px per character at 22 pt
        let tx = ((w as i32) / 2 - (self.title.chars().count() as i32) * 11 / 2).max(6);
        root.draw(&Text::new(self.title.clone(), (tx, 12), ("sans-serif", 22).into_font())).map_err(|e| err!(Io, "{e}"))?;
        let lh = self.legend_h();
        let body = root.margin(45, lh, 0, 0);
        let rows = self.panels.len().div_ceil(self.cols);
        let areas = body.split_evenly((rows, self.cols));
        for (p, area) in self.panels.iter().zip(areas.iter()) {
            draw_panel(p, area, !self.legend_below)?;
        }
        if self.legend_below {
            let (_, h) = self.size();
            let entries = self.legend_entries();
            let per_row = legend_per_row(&entries, w);
            let col_w = (w as i32 - 40) / per_row as i32;
            let top = h as i32 - lh as i32 + 4;
            let (font, row_h, _) = legend_scale(w);
            for (i, (name, c, st)) in entries.iter().enumerate() {
                let x = 20 + (i % per_row) as i32 * col_w;
                let y = top + (i / per_row) as i32 * row_h as i32 + 10;
                draw_legend_key(root, *st, *c, x, y)?;
                let text = Text::new(name.clone(), (x + 30, y - font as i32 / 2 - 1), ("sans-serif", font).into_font());
                root.draw(&text).map_err(|e| err!(Io, "{e}"))?;
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LegendStyle {
    Line,
    Dashed,
    Dot,
    Cross,
    Square,
}

fn draw_legend_key<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, st: LegendStyle, c: RGBColor, x: i32, y: i32) -> Fallible<()>
where
    DB::ErrorType: 'static,
{
    let r = match st {
        LegendStyle::Line => root.draw(&PathElement::new(vec![(x, y), (x + 24, y)], c.stroke_width(3))),
        LegendStyle::Dashed => {
            root.draw(&PathElement::new(vec![(x, y), (x + 8, y)], c.stroke_width(2))).map_err(|e| err!(Io, "{e}"))?;
            root.draw(&PathElement::new(vec![(x + 14, y), (x + 24, y)], c.stroke_width(2)))
        }
        LegendStyle::Dot => root.draw(&Circle::new((x + 12, y), 4, c.filled())),
        LegendStyle::Cross => root.draw(&Cross::new((x + 12, y), 5, c.stroke_width(2))),
        LegendStyle::Square => root.draw(&Rectangle::new([(x + 4, y - 8), (x + 20, y + 8)], c.filled())),
    };
    r.map_err(|e| err!(Io, "{e}"))
}

fn draw_panel<DB: DrawingBackend>(p: &Panel, area: &DrawingArea<DB, Shift>, own_legend: bool) -> Fallible<()>
where
    DB::ErrorType: 'static,
{
    // automatic ranges include the reference lines (a dashed baseline outside the data stays visible)
    let mut q = Panel::new("", "", "");
    q.series = p.series.clone();
    let any = p.series.iter().find_map(|s| s.points.iter().find(|(x, y)| x.is_finite() && y.is_finite()).copied());
    if let Some((ax, ay)) = any {
        let refs = p.hlines.iter().map(|h| (ax, h.0)).chain(p.vlines.iter().map(|v| (v.0, ay))).collect();
        q.series.push(Series::line("", BLACK, refs));
    }
    let (x0, x1) = q.range(|t| t.0, p.x_log, p.x_range);
    let (y0, y1) = q.range(|t| t.1, p.y_log, p.y_range);
    macro_rules! body {
        ($chart:expr) => {{
            let mut chart = $chart;
            let xl = p.x_log;
            let yl = p.y_log;
            chart
                .configure_mesh()
                .x_label_formatter(&|v: &f64| tick(*v, xl))
                .y_label_formatter(&|v: &f64| tick(*v, yl))
                .x_desc(p.x_label.clone())
                .y_desc(p.y_label.clone())
                .label_style(("sans-serif", 14))
                .axis_desc_style(("sans-serif", 15))
                .bold_line_style(GRID)
                .light_line_style(TRANSPARENT)
                .draw()
                .map_err(|e| err!(Io, "{e}"))?;
            draw_series_of(&mut chart, p, (x0, x1, y0, y1))?;
            draw_reference_lines(&mut chart, p, (x0, x1, y0, y1))?;
            if let Some((title, ticks)) = &p.top_axis {
                draw_top_axis(&chart, area, title, ticks, (x0, x1, y1))?;
            }
            if own_legend {
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.85))
                    .border_style(RGBColor(180, 180, 180))
                    .label_font(("sans-serif", 13))
                    .position(if p.legend_lower_left { SeriesLabelPosition::LowerLeft } else { SeriesLabelPosition::UpperRight })
                    .draw()
                    .map_err(|e| err!(Io, "{e}"))?;
            }
        }};
    }
    let mut b = ChartBuilder::on(area);
    b.margin(10).x_label_area_size(40).y_label_area_size(62);
    if p.top_axis.is_some() {
        // room above the plotting area for the panel title and the second axis (both drawn by hand: a
        // top label area would repeat the bottom axis' labels there)
        b.margin_top(88);
        let (w, _) = area.dim_in_pixel();
        let tw = p.title.chars().count() as i32 * 8;
        area.draw(&Text::new(p.title.clone(), (w as i32 / 2 - tw / 2, 6), ("sans-serif", 17).into_font())).map_err(|e| err!(Io, "{e}"))?;
    } else {
        b.caption(p.title.clone(), ("sans-serif", 17));
    }
    // plotters' log ticks stop at f64::EPSILON (its `LogCoord::is_inf` drops smaller key points): below it
    // the decades are given (KR Figure 8's s − σ² ran two decades under its last tick)
    let tiny = p.y_log && y0 < f64::EPSILON;
    match (p.x_log, p.y_log) {
        (false, true) if tiny => {
            body!(b.build_cartesian_2d(x0..x1, (y0..y1).log_scale().with_key_points(decade_ticks(y0, y1))).map_err(|e| err!(Io, "{e}"))?)
        }
        (true, true) if tiny => body!(b
            .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale().with_key_points(decade_ticks(y0, y1)))
            .map_err(|e| err!(Io, "{e}"))?),
        (false, false) => body!(b.build_cartesian_2d(x0..x1, y0..y1).map_err(|e| err!(Io, "{e}"))?),
        (false, true) => body!(b.build_cartesian_2d(x0..x1, (y0..y1).log_scale()).map_err(|e| err!(Io, "{e}"))?),
        (true, false) => body!(b.build_cartesian_2d((x0..x1).log_scale(), y0..y1).map_err(|e| err!(Io, "{e}"))?),
        (true, true) => body!(b.build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale()).map_err(|e| err!(Io, "{e}"))?),
    }
    Ok(())
}

/// The panel's series in `chart` (points outside the ranges `(x0, x1, y0, y1)` dropped, but for tiles and
/// bars), each with its legend sample: tiles and bars as boxes, crosses, markers, dashed or solid lines.
fn draw_series_of<'a, DB: DrawingBackend + 'a, X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    p: &Panel,
    (x0, x1, y0, y1): (f64, f64, f64, f64),
) -> Fallible<()>
where
    DB::ErrorType: 'static,
{
    let inside = |x: f64, y: f64| x.is_finite() && y.is_finite() && (!p.x_log || x > 0.0) && (!p.y_log || y > 0.0);
    for s in &p.series {
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .cloned()
            .filter(|(x, y)| inside(*x, *y))
            .filter(|(x, y)| s.tile || s.bar.is_some() || (*x >= x0 && *x <= x1 && *y >= y0 && *y <= y1))
            .collect();
        let color = s.color;
        let drawn = if s.tile {
            chart.draw_series(pts.iter().map(|(x, y)| Rectangle::new([(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)], color.filled())))
        } else if let Some((off, w)) = s.bar {
            chart.draw_series(pts.iter().map(|(x, y)| Rectangle::new([(x + off, y0.max(0.0)), (x + off + w, *y)], color.filled())))
        } else if s.cross {
            chart.draw_series(pts.iter().map(|pt| Cross::new(*pt, 4, color.stroke_width(2))))
        } else if s.markers {
            chart.draw_series(pts.iter().map(|pt| Circle::new(*pt, 3, color.filled())))
        } else if s.dashed {
            chart.draw_series(DashedLineSeries::new(pts, 6, 4, color.stroke_width(2)))
        } else {
            chart.draw_series(LineSeries::new(pts, color.stroke_width(2)))
        };
        let ann = drawn.map_err(|e| err!(Io, "{e}"))?.label(s.legend_text());
        if s.tile || s.bar.is_some() {
            ann.legend(move |(x, y)| Rectangle::new([(x + 2, y - 6), (x + 14, y + 6)], color.filled()));
        } else if s.cross {
            ann.legend(move |(x, y)| Cross::new((x + 10, y), 4, color.stroke_width(2)));
        } else if s.markers {
            ann.legend(move |(x, y)| Circle::new((x + 10, y), 4, color.filled()));
        } else if s.dashed {
            ann.legend(move |at| dashed_sample(at, color));
        } else {
            ann.legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        }
    }
    Ok(())
}

/// A dashed line's legend sample: two dashes, so dashed and solid series (and reference lines) differ.
fn dashed_sample<'b, DB: DrawingBackend + 'b>(at: (i32, i32), color: RGBColor) -> impl IntoDynElement<'b, DB, (i32, i32)> {
    EmptyElement::at(at)
        + PathElement::new(vec![(0, 0), (7, 0)], color.stroke_width(2))
        + PathElement::new(vec![(13, 0), (20, 0)], color.stroke_width(2))
}

/// The panel's reference lines: dashed, across the whole panel, with their legend samples.
fn draw_reference_lines<'a, DB: DrawingBackend + 'a, X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    p: &Panel,
    (x0, x1, y0, y1): (f64, f64, f64, f64),
) -> Fallible<()>
where
    DB::ErrorType: 'static,
{
    let refs: Vec<(Vec<(f64, f64)>, &String, RGBColor)> = p
        .vlines
        .iter()
        .filter(|(x, _, _)| *x >= x0 && *x <= x1)
        .map(|(x, n, c)| (vec![(*x, y0), (*x, y1)], n, *c))
        .chain(p.hlines.iter().filter(|(y, _, _)| *y >= y0 && *y <= y1).map(|(y, n, c)| (vec![(x0, *y), (x1, *y)], n, *c)))
        .collect();
    for (pts, name, color) in refs {
        chart
            .draw_series(DashedLineSeries::new(pts, 8, 5, color.stroke_width(2)))
            .map_err(|e| err!(Io, "{e}"))?
            .label(name.clone())
            .legend(move |at| dashed_sample(at, color));
    }
    Ok(())
}

/// A second axis along the top edge of the plotting area, in the label area reserved above it: its
/// `ticks` inside [x0, x1] and its `title`.
fn draw_top_axis<'a, DB: DrawingBackend + 'a, X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    chart: &ChartContext<'a, DB, Cartesian2d<X, Y>>,
    area: &DrawingArea<DB, Shift>,
    title: &str,
    ticks: &[(f64, String)],
    (x0, x1, y1): (f64, f64, f64),
) -> Fallible<()>
where
    DB::ErrorType: 'static,
{
    let (bx, by) = area.get_base_pixel();
    let font = ("sans-serif", 14).into_font();
    let mut right = 0;
    for (x, label) in ticks {
        if *x < x0 || *x > x1 {
            continue;
        }
        let (px, py) = chart.backend_coord(&(*x, y1));
        let (px, py) = (px - bx, py - by);
        area.draw(&PathElement::new(vec![(px, py), (px, py - 6)], BLACK.stroke_width(1))).map_err(|e| err!(Io, "{e}"))?;
        let tw = label.chars().count() as i32 * 8;
        area.draw(&Text::new(label.clone(), (px - tw / 2, py - 24), font.clone())).map_err(|e| err!(Io, "{e}"))?;
        right = right.max(px);
    }
    let (lx, ly) = chart.backend_coord(&(x0, y1));
    let (rx, _) = chart.backend_coord(&(x1, y1));
    area.draw(&PathElement::new(vec![(lx - bx, ly - by), (rx - bx, ly - by)], BLACK.stroke_width(1))).map_err(|e| err!(Io, "{e}"))?;
    let tw = title.chars().count() as i32 * 8;
    area.draw(&Text::new(title, ((lx + rx) / 2 - bx - tw / 2, ly - by - 46), ("sans-serif", 15).into_font()))
        .map_err(|e| err!(Io, "{e}"))?;
    Ok(())
}

/// Powers of ten in [lo, hi] for a log axis, every k-th decade counted down from the top so that at most
/// about ten are labelled.
fn decade_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log10().ceil() as i32, hi.log10().floor() as i32);
    let k = ((b - a) / 10 + 1).max(1);
    (a..=b).filter(|e| (b - e) % k == 0).map(|e| 10f64.powi(e)).collect()
}

/// Tick label: powers of ten on log axes ("1e-10"), short decimals on linear axes.
fn tick(v: f64, log: bool) -> String {
    if log {
        let e = v.log10().round();
        if (v.log10() - e).abs() < 1e-6 {
            return format!("1e{}", e as i64);
        }
        return format!("{v:.0e}");
    }
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// How a bar chart shows its values.
#[derive(Clone, Debug, Default)]
pub struct BarOpts {
    /// The x axis' title (what the categories are).
    pub x_label: String,
    /// Probabilities in percent on a log axis up to 100 % (values spanning several decades, e.g. a TPR
    /// of 0.2 % next to an advantage of 93 %), instead of a linear axis from 0.
    pub percent_log: bool,
}

/// Width and height of a bar chart: the legend in a strip under the plot, one row per two entries.
/// 1,100 pixels wide, or 120 per category where there are more than nine (the deployments' eleven labels
/// ran together at 1,100).
fn bar_size(groups: &[(String, RGBColor, Vec<f64>)], categories: usize) -> (u32, u32) {
    (1100.max(120 * categories as u32), 560 + 24 * groups.len().div_ceil(2) as u32)
}

/// A bar's value as its label: two decimals, or on a percent axis a percentage with two significant
/// digits ("0.16%", "4.7%", "93%").
fn bar_label(v: f64, percent: bool) -> String {
    if !percent {
        return format!("{v:.2}");
    }
    let p = 100.0 * v;
    if p >= 9.95 {
        format!("{p:.0}%")
    } else if p >= 0.995 {
        format!("{p:.1}%")
    } else {
        format!("{p:.2}%")
    }
}

/// Bar chart with options (see [`BarOpts`]).
pub fn bar_figure_opts(
    title: &str,
    y_label: &str,
    categories: &[String],
    groups: &[(String, RGBColor, Vec<f64>)],
    stem: &Path,
    opts: &BarOpts,
) -> Fallible<Vec<std::path::PathBuf>> {
    ensure_font();
    let mut w = csv::Writer::from_writer(vec![]);
    let mut header = vec!["category".to_string()];
    header.extend(groups.iter().map(|g| g.0.clone()));
    w.write_record(&header).expect("invariant: writing to memory");
    for (i, c) in categories.iter().enumerate() {
        let mut row = vec![c.clone()];
        row.extend(groups.iter().map(|g| format!("{}", g.2[i])));
        w.write_record(&row).expect("invariant: writing to memory");
    }
    let csv_path = stem.with_extension("csv");
    write_atomic(&csv_path, &w.into_inner().expect("invariant: writing to memory"))?;
    let vals = || groups.iter().flat_map(|g| g.2.iter().cloned()).filter(|v| v.is_finite());
    let yrange = if opts.percent_log {
        // from the decade below the smallest positive value to 100 %
        let lo = vals().filter(|v| *v > 0.0).fold(1.0, f64::min);
        (10f64.powf(lo.log10().floor()), 1.0)
    } else {
        // headroom for the vertical value labels above the tallest bar
        (0.0, vals().fold(0.0, f64::max) * 1.16)
    };
    let size = bar_size(groups, categories.len());
    let png_path = stem.with_extension("png");
    write_png(&png_path, size, |root| draw_bars(root, title, y_label, categories, groups, yrange, opts))?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw_bars(root, title, y_label, categories, groups, yrange, opts)?;
    }
    let svg_path = stem.with_extension("svg");
    write_atomic(&svg_path, svg.as_bytes())?;
    Ok(vec![csv_path, png_path, svg_path])
}

fn draw_bars<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    y_label: &str,
    cats: &[String],
    groups: &[(String, RGBColor, Vec<f64>)],
    (y0, y1): (f64, f64),
    opts: &BarOpts,
) -> Fallible<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(|e| err!(Io, "{e}"))?;
    let n = cats.len();
    let (w, h) = root.dim_in_pixel();
    let legend_h = 24 * groups.len().div_ceil(2) as u32;
    let (plot_area, legend_area) = root.split_vertically(h - legend_h - 6);
    let labels: Vec<String> = cats.to_vec();
    let k = groups.len() as f64;
    let bw = 0.8 / k;
    let log = opts.percent_log;
    macro_rules! body {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(n * 2 + 1)
                .x_label_formatter(&|x: &f64| {
                    let i = (*x - 0.5).round();
                    if (x - 0.5 - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                        labels[i as usize].clone()
                    } else {
                        String::new()
                    }
                })
                .y_label_formatter(&|v: &f64| if log { format!("{}%", tick(100.0 * v, false)) } else { tick(*v, false) })
                .x_desc(opts.x_label.clone())
                .y_desc(y_label)
                .label_style(("sans-serif", 13))
                .axis_desc_style(("sans-serif", 15))
                .bold_line_style(GRID)
                .light_line_style(TRANSPARENT)
                .draw()
                .map_err(|e| err!(Io, "{e}"))?;
            // value labels: vertical (reading upwards) just above each bar, so neighbouring labels of
            // narrow bars never overlap; drawn on the whole image, so a label over a bar reaching the top
            // of the axis is not clipped
            let font = ("sans-serif", 11).into_font().transform(FontTransform::Rotate270);
            let (bx, by) = plot_area.get_base_pixel();
            for (gi, (_, color, vals)) in groups.iter().enumerate() {
                let c = *color;
                chart
                    .draw_series(vals.iter().enumerate().filter(|(_, v)| v.is_finite()).map(|(i, v)| {
                        let x0 = i as f64 + 0.1 + gi as f64 * bw;
                        Rectangle::new([(x0, y0), (x0 + bw * 0.95, v.max(y0))], c.filled())
                    }))
                    .map_err(|e| err!(Io, "{e}"))?;
                for (i, v) in vals.iter().enumerate().filter(|(_, v)| v.is_finite()) {
                    let xc = i as f64 + 0.1 + gi as f64 * bw + bw * 0.475;
                    let (px, py) = chart.backend_coord(&(xc, v.max(y0)));
                    plot_area
                        .draw(&Text::new(bar_label(*v, log), (px - bx - 6, py - by - 3), font.clone()))
                        .map_err(|e| err!(Io, "{e}"))?;
                }
            }
        }};
    }
    // the title drawn by hand above the chart, so the value labels over the tallest bars (in the chart's
    // top margin) never run into it
    let tx = ((w as i32) / 2 - (title.chars().count() as i32) * 10 / 2).max(6);
    plot_area.draw(&Text::new(title.to_string(), (tx, 10), ("sans-serif", 20).into_font())).map_err(|e| err!(Io, "{e}"))?;
    let mut b = ChartBuilder::on(&plot_area);
    b.margin(15)
        .margin_top(if log { 80 } else { 45 })
        .x_label_area_size(if opts.x_label.is_empty() { 40 } else { 60 })
        .y_label_area_size(70);
    if log {
        body!(b.build_cartesian_2d(0f64..n as f64, (y0..y1).log_scale()).map_err(|e| err!(Io, "{e}"))?);
    } else {
        body!(b.build_cartesian_2d(0f64..n as f64, y0..y1).map_err(|e| err!(Io, "{e}"))?);
    }
    // the legend in a strip under the plot, two entries a row, off the bars
    let col_w = (w as i32 - 80) / 2;
    for (gi, (name, c, _)) in groups.iter().enumerate() {
        let x = 70 + (gi % 2) as i32 * col_w;
        let y = 4 + (gi / 2) as i32 * 24;
        legend_area.draw(&Rectangle::new([(x, y), (x + 16, y + 14)], c.filled())).map_err(|e| err!(Io, "{e}"))?;
        legend_area.draw(&Text::new(name.clone(), (x + 24, y), ("sans-serif", 14).into_font())).map_err(|e| err!(Io, "{e}"))?;
    }
    root.present().map_err(|e| err!(Io, "{e}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "Tract" printed its r under the T: the renderer applied DejaVu's T–r kerning pair but drew each
    /// glyph's ink at the pen position. With the pairs hidden, a word is as wide as its letters.
    #[test]
    fn text_is_laid_out_without_kerning_pairs() {
        ensure_font();
        let font = ("sans-serif", 60).into_font();
        let w = |t: &str| font.box_size(t).unwrap().0 as i32;
        for (a, b) in [("T", "r"), ("A", "V"), ("T", "a")] {
            assert!((w(&format!("{a}{b}")) - w(a) - w(b)).abs() <= 1, "{a}{b}: {} vs {} + {}", w(&format!("{a}{b}")), w(a), w(b));
        }
        // the bundled font does have the pairs (the test would pass vacuously otherwise)
        let raw = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
        assert!(raw.windows(4).any(|t| t == b"kern"));
        assert!(!without_kerning(raw)[..12 + 16 * 40].windows(4).any(|t| t == b"kern"));
    }

    /// Percent labels of the attack figure: two significant digits, never "0.00" for a TPR of 0.2 %.
    #[test]
    fn bar_labels_in_percent_keep_two_digits() {
        assert_eq!(bar_label(0.00162919449304, true), "0.16%");
        assert_eq!(bar_label(0.0466835515794, true), "4.7%");
        assert_eq!(bar_label(0.93473067, true), "93%");
        assert_eq!(bar_label(0.99919926, true), "100%");
        assert_eq!(bar_label(4.763999999999999, false), "4.76");
    }

    /// A second panel that redraws the same data at another scale adds pictures, not CSV rows.
    #[test]
    fn csv_of_first_panels_leaves_out_the_redrawn_panel() {
        let mut a = Panel::new("a", "x", "y");
        a.series.push(Series::line("s", EXACT, vec![(0.0, 1.0), (1.0, 0.5)]));
        let mut b = Panel::new("b", "x", "y");
        b.series.push(Series::line("s", EXACT, vec![(1e-3, 0.9)]));
        let one = Figure::single("f", a.clone()).csv();
        let two = Figure::grid("f", vec![a, b], 2);
        assert_eq!(two.csv_of(1), one);
        assert_ne!(two.csv(), one);
    }

    /// A legend text replaces the name in the legend only; the CSV keeps the name.
    #[test]
    fn legend_text_does_not_rename_the_series_in_the_csv() {
        let mut a = Panel::new("a", "x", "y");
        a.series.push(Series::line("PEPG", EXACT, vec![(0.0, 1.0)]).legend("PEPG (= TSG)"));
        let f = Figure::single("f", a);
        assert!(f.csv().contains(",PEPG,"));
        assert_eq!(f.legend_entries()[0].0, "PEPG (= TSG)");
    }
}
