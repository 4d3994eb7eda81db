//! Grouped bar charts in a grid of panels, with error whiskers and point markers, for the accuracy figures
//! on real data ([SSW24, Figures 6], 8, 9). Same conventions as `plot`: CSV of the
//! plotted values + PNG + SVG, bundled font, the house colours. The legend is drawn once, in a strip
//! under the title, so it never covers data.

use crate::err;
use crate::error::Fallible;
use crate::plots::plot::ensure_font;
use crate::plots::png::write_png;
use crate::record::write_atomic;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SeriesKind {
    Bar,
    /// a point, drawn over the bar of series `at` (or the category centre), shifted by `dx` categories
    Marker {
        at: Option<usize>,
        dx: f64,
    },
}

#[derive(Clone, Debug)]
pub struct BarSeries {
    pub name: String,
    pub color: RGBColor,
    pub kind: SeriesKind,
    /// one value per category (None: nothing drawn)
    pub values: Vec<Option<f64>>,
    /// optional whisker [lo, hi] per category
    pub err: Vec<Option<(f64, f64)>>,
}

impl BarSeries {
    pub fn bars(name: &str, color: RGBColor, values: Vec<f64>) -> BarSeries {
        let n = values.len();
        BarSeries { name: name.into(), color, kind: SeriesKind::Bar, values: values.into_iter().map(Some).collect(), err: vec![None; n] }
    }
    pub fn markers(name: &str, color: RGBColor, at: Option<usize>, values: Vec<Option<f64>>) -> BarSeries {
        let n = values.len();
        BarSeries { name: name.into(), color, kind: SeriesKind::Marker { at, dx: 0.0 }, values, err: vec![None; n] }
    }
    /// Shift a marker series sideways by `dx` (in category widths), to keep markers apart.
    pub fn shift(mut self, dx: f64) -> BarSeries {
        if let SeriesKind::Marker { at, .. } = self.kind {
            self.kind = SeriesKind::Marker { at, dx };
        }
        self
    }
    pub fn with_err(mut self, err: Vec<Option<(f64, f64)>>) -> BarSeries {
        self.err = err;
        self
    }
}

#[derive(Clone, Debug)]
pub struct BarPanel {
    pub title: String,
    pub y_label: String,
    pub categories: Vec<String>,
    pub series: Vec<BarSeries>,
    pub log_y: bool,
}

impl BarPanel {
    fn y_range(&self) -> (f64, f64) {
        let mut vals: Vec<f64> = Vec::new();
        for s in &self.series {
            vals.extend(s.values.iter().flatten());
            for (lo, hi) in s.err.iter().flatten() {
                vals.push(*lo);
                vals.push(*hi);
            }
        }
        vals.retain(|v| v.is_finite() && (!self.log_y || *v > 0.0));
        let lo = vals.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        if !lo.is_finite() {
            return if self.log_y { (0.1, 10.0) } else { (0.0, 1.0) };
        }
        if self.log_y {
            let (a, b) = (lo.log10().floor(), hi.log10().ceil().max(lo.log10().floor() + 1.0));
            (10f64.powf(a), 10f64.powf(b))
        } else {
            let top = if hi > 0.0 { hi * 1.08 } else { 0.0 };
            let bottom = if lo < 0.0 { lo * 1.08 } else { 0.0 };
            if top > bottom {
                (bottom, top)
            } else {
                (bottom - 1.0, top + 1.0)
            }
        }
    }
}

/// Write `<stem>.csv` (panel, category, series, value, err_lo, err_hi), `<stem>.png`, `<stem>.svg`; panels
/// of `panel` = (width, height) pixels, `cols` per row.
pub fn write_bar_grid(title: &str, panels: &[BarPanel], cols: usize, panel: (u32, u32), stem: &Path) -> Fallible<Vec<PathBuf>> {
    let (panel_w, panel_h) = panel;
    ensure_font();
    let mut w = csv::Writer::from_writer(vec![]);
    w.write_record(["panel", "category", "series", "value", "err_lo", "err_hi"]).expect("invariant: writing to memory");
    for p in panels {
        for s in &p.series {
            for (i, c) in p.categories.iter().enumerate() {
                let Some(v) = s.values.get(i).copied().flatten() else { continue };
                let (lo, hi) = match s.err.get(i).copied().flatten() {
                    Some((a, b)) => (format!("{a:e}"), format!("{b:e}")),
                    None => (String::new(), String::new()),
                };
                w.write_record([p.title.as_str(), c.as_str(), s.name.as_str(), &format!("{v:e}"), &lo, &hi])
                    .expect("invariant: writing to memory");
            }
        }
    }
    let csv_path = stem.with_extension("csv");
    write_atomic(&csv_path, &w.into_inner().expect("invariant: writing to memory"))?;
    let cols = cols.max(1);
    let rows = panels.len().div_ceil(cols) as u32;
    let legend = legend_entries(panels);
    let legend_rows = legend_layout(&legend, panel_w * cols as u32).len() as u32;
    let header = 44 + title_extra(title) + 26 * legend_rows;
    let size = (panel_w * cols as u32, panel_h * rows + header);
    let png_path = stem.with_extension("png");
    write_png(&png_path, size, |root| draw(&root, title, panels, cols, &legend, header))?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw(&root, title, panels, cols, &legend, header)?;
        root.present().map_err(|e| err!(Io, "{e}"))?;
    }
    let svg_path = stem.with_extension("svg");
    write_atomic(&svg_path, svg.as_bytes())?;
    Ok(vec![csv_path, png_path, svg_path])
}

/// A title "main — source" is drawn on two lines: the second, smaller, names the data.
fn split_title(title: &str) -> (&str, Option<&str>) {
    match title.split_once(" — ") {
        Some((a, b)) => (a, Some(b)),
        None => (title, None),
    }
}

fn title_extra(title: &str) -> u32 {
    if split_title(title).1.is_some() {
        22
    } else {
        0
    }
}

fn legend_entries(panels: &[BarPanel]) -> Vec<(String, RGBColor, SeriesKind)> {
    let mut out: Vec<(String, RGBColor, SeriesKind)> = Vec::new();
    for p in panels {
        for s in &p.series {
            let k = match s.kind {
                SeriesKind::Bar => SeriesKind::Bar,
                SeriesKind::Marker { .. } => SeriesKind::Marker { at: None, dx: 0.0 },
            };
            if !out.iter().any(|(n, _, _)| *n == s.name) {
                out.push((s.name.clone(), s.color, k));
            }
        }
    }
    out
}

/// Entries per legend row (estimated text widths).
fn legend_layout(entries: &[(String, RGBColor, SeriesKind)], width: u32) -> Vec<Vec<usize>> {
    let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
    let mut x = 20u32;
    for (i, (name, _, _)) in entries.iter().enumerate() {
        let wi = 34 + 8 * name.chars().count() as u32 + 24;
        if x + wi > width && !rows.last().expect("invariant: rows starts with one row").is_empty() {
            rows.push(Vec::new());
            x = 20;
        }
        rows.last_mut().expect("invariant: rows starts with one row").push(i);
        x += wi;
    }
    rows
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    panels: &[BarPanel],
    cols: usize,
    legend: &[(String, RGBColor, SeriesKind)],
    header: u32,
) -> Fallible<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(|e| err!(Io, "{e}"))?;
    let (w, _) = root.dim_in_pixel();
    let centre = Pos::new(HPos::Center, VPos::Top);
    let (main, sub) = split_title(title);
    root.draw(&Text::new(main.to_string(), (w as i32 / 2, 10), TextStyle::from(("sans-serif", 21).into_font()).pos(centre)))
        .map_err(|e| err!(Io, "{e}"))?;
    if let Some(sub) = sub {
        root.draw(&Text::new(format!("data: {sub}"), (w as i32 / 2, 38), TextStyle::from(("sans-serif", 16).into_font()).pos(centre)))
            .map_err(|e| err!(Io, "{e}"))?;
    }
    for (r, row) in legend_layout(legend, w).iter().enumerate() {
        let y = 44 + title_extra(title) as i32 + 26 * r as i32 + 8;
        let mut x = 20i32;
        for &i in row {
            let (name, color, kind) = &legend[i];
            match kind {
                SeriesKind::Bar => root.draw(&Rectangle::new([(x, y - 7), (x + 22, y + 7)], color.filled())),
                SeriesKind::Marker { .. } => root
                    .draw(&PathElement::new(vec![(x + 11, y - 8), (x + 11, y + 8)], color.stroke_width(2)))
                    .and_then(|_| root.draw(&Circle::new((x + 11, y), 5, color.filled()))),
            }
            .map_err(|e| err!(Io, "{e}"))?;
            root.draw(&Text::new(name.clone(), (x + 30, y - 8), ("sans-serif", 15).into_font())).map_err(|e| err!(Io, "{e}"))?;
            x += 34 + 8 * name.chars().count() as i32 + 24;
        }
    }
    let body = root.margin(header, 0, 0, 0);
    let rows = panels.len().div_ceil(cols);
    let areas = body.split_evenly((rows, cols));
    for (p, area) in panels.iter().zip(areas.iter()) {
        if p.log_y {
            draw_panel(p, area, true)?;
        } else {
            draw_panel(p, area, false)?;
        }
    }
    Ok(())
}

fn tick(v: f64, log: bool) -> String {
    if log {
        let e = v.log10();
        if (e - e.round()).abs() < 1e-6 {
            let e = e.round() as i32;
            return if (-3..=4).contains(&e) { format!("{}", 10f64.powi(e)) } else { format!("1e{e}") };
        }
        return String::new();
    }
    let s = if v.abs() >= 1000.0 { format!("{v:.0}") } else { format!("{v:.3}") };
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

fn draw_panel<DB: DrawingBackend>(p: &BarPanel, area: &DrawingArea<DB, Shift>, log: bool) -> Fallible<()>
where
    DB::ErrorType: 'static,
{
    let (y0, y1) = p.y_range();
    let n = p.categories.len().max(1);
    let cats = p.categories.clone();
    let mut b = ChartBuilder::on(area);
    b.caption(p.title.clone(), ("sans-serif", 16)).margin(12).x_label_area_size(34).y_label_area_size(70);
    macro_rules! body {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(2 * n + 1)
                .x_label_formatter(&|x: &f64| {
                    let i = (*x - 0.5).round();
                    if (x - 0.5 - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < cats.len() {
                        cats[i as usize].clone()
                    } else {
                        String::new()
                    }
                })
                .y_label_formatter(&|v: &f64| tick(*v, log))
                .y_desc(p.y_label.clone())
                .label_style(("sans-serif", 13))
                .axis_desc_style(("sans-serif", 14))
                .bold_line_style(crate::plots::plot::GRID)
                .light_line_style(TRANSPARENT)
                .draw()
                .map_err(|e| err!(Io, "{e}"))?;
            let nbars = p.series.iter().filter(|s| s.kind == SeriesKind::Bar).count().max(1);
            let bw = 0.8 / nbars as f64;
            let base = if log { y0 } else { 0f64.max(y0) };
            // bar centres by series index
            let mut centre: Vec<Option<f64>> = Vec::new();
            let mut bi = 0;
            for s in &p.series {
                if s.kind == SeriesKind::Bar {
                    centre.push(Some(0.1 + bw * (bi as f64 + 0.5)));
                    bi += 1;
                } else {
                    centre.push(None);
                }
            }
            for (si, s) in p.series.iter().enumerate() {
                let c = s.color;
                let off = match s.kind {
                    SeriesKind::Bar => centre[si].unwrap(),
                    SeriesKind::Marker { at, dx } => at.and_then(|a| centre.get(a).copied().flatten()).unwrap_or(0.5) + dx,
                };
                for (i, v) in s.values.iter().enumerate() {
                    let Some(v) = v else { continue };
                    if !v.is_finite() || (log && *v <= 0.0) {
                        continue;
                    }
                    let x = i as f64 + off;
                    match s.kind {
                        SeriesKind::Bar => {
                            let rect = Rectangle::new([(x - bw * 0.46, base), (x + bw * 0.46, v.clamp(y0, y1))], c.filled());
                            chart.draw_series(std::iter::once(rect)).map_err(|e| err!(Io, "{e}"))?;
                        }
                        SeriesKind::Marker { .. } => {
                            chart.draw_series(std::iter::once(Circle::new((x, *v), 4, c.filled()))).map_err(|e| err!(Io, "{e}"))?;
                        }
                    }
                    if let Some((lo, hi)) = s.err.get(i).copied().flatten() {
                        let lo = if log { lo.max(y0) } else { lo };
                        // a bar's whisker is dark grey, light grey on a dark bar (it vanished on the black ones)
                        let luminance = 0.299 * f64::from(c.0) + 0.587 * f64::from(c.1) + 0.114 * f64::from(c.2);
                        let dark = luminance < 60.0;
                        let ec = match (s.kind == SeriesKind::Bar, dark) {
                            (true, true) => RGBColor(190, 190, 190),
                            (true, false) => RGBColor(90, 90, 90),
                            (false, _) => c,
                        };
                        let cap = bw * 0.15;
                        let lines = vec![
                            PathElement::new(vec![(x, lo), (x, hi)], ec.stroke_width(2)),
                            PathElement::new(vec![(x - cap, lo), (x + cap, lo)], ec.stroke_width(2)),
                            PathElement::new(vec![(x - cap, hi), (x + cap, hi)], ec.stroke_width(2)),
                        ];
                        chart.draw_series(lines).map_err(|e| err!(Io, "{e}"))?;
                    }
                }
            }
        }};
    }
    if log {
        body!(b.build_cartesian_2d(0f64..n as f64, (y0..y1).log_scale()).map_err(|e| err!(Io, "{e}"))?);
    } else {
        body!(b.build_cartesian_2d(0f64..n as f64, y0..y1).map_err(|e| err!(Io, "{e}"))?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_csv_png_svg() {
        let d = tempfile::tempdir().unwrap();
        let p = BarPanel {
            title: "t".into(),
            y_label: "mean squared error (persons²)".into(),
            categories: vec!["a".into(), "b".into()],
            series: vec![
                BarSeries::bars("Bureau", RGBColor(214, 39, 40), vec![4.0, 5.0]),
                BarSeries::bars("reduced", RGBColor(0, 0, 0), vec![3.0, 4.5]).with_err(vec![Some((2.9, 3.1)), None]),
                BarSeries::markers("simulation", RGBColor(120, 120, 120), Some(0), vec![Some(4.1), None]),
            ],
            log_y: false,
        };
        let mut q = p.clone();
        q.log_y = true;
        let files = write_bar_grid("title", &[p, q], 2, (560, 400), &d.path().join("x")).unwrap();
        assert_eq!(files.len(), 3);
        let csv = std::fs::read_to_string(&files[0]).unwrap();
        assert_eq!(csv.lines().count(), 1 + 2 * 5);
        assert!(csv.contains("t,a,reduced,3e0,2.9e0,3.1e0"));
        assert!(std::fs::metadata(&files[1]).unwrap().len() > 1000);
    }
}
