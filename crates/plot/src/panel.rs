//! One panel: the header (title and legend), the mesh (plotters' axes, ticks and grid), and the
//! curves, drawn in device pixels through [`Pen`] so every backend gets the same clipping and
//! dashes.

use std::ops::Range;

use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{BoldPoints, Ranged};
use plotters::coord::types::RangedCoordf32;
use plotters::prelude::*;
use plotters::style::FontTransform;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::geometry::{Frame, Px, clip, simplify, to_backend};
use super::legend::{self, Entry, Swatch};
use super::stroke::{DashedLine, Dashes};
use super::{
    BAND_PERCENTILES, Curve, DrawResult, Jump, PLOT_INSET, Panel, Style, TRUE_DERIVATIVE_DASH, Viewport,
    dash as curve_dash, fmt_number, runs,
};

/// Curve line width, in layout pixels.
const LINE_W: f64 = 2.25;
/// The line width of a stochastic quantizer's mean.
const LINE_W_MEAN: f64 = 1.5;
/// The opacity of a stochastic quantizer's percentile band.
const BAND_ALPHA: f64 = 0.2;
/// The opacity of the pass-band shading.
const PASS_ALPHA: f64 = 0.12;
/// Jump dot radius, in layout pixels (smaller where jumps crowd).
const DOT_R: f64 = 3.2;
/// The panel's left margin; the y label area takes the rest of [`PLOT_INSET`]'s left part.
const MARGIN_LEFT: f64 = 6.0;
/// The width of the y label area.
const Y_LABELS: f64 = PLOT_INSET.0 - MARGIN_LEFT;
/// How many labelled ticks the y axis aims at.
const Y_TICKS: usize = 7;
/// The axis' own tick marks, outward, in layout pixels.
const TICK: f64 = 4.0;
/// The length of one curve's level ticks, and the most room all of them take (several curves
/// share it, side by side, the first nearest the axis).
const LEVEL_TICK: f64 = 7.0;
const LEVEL_STRIP: f64 = 21.0;
/// The gap between the level ticks (or the axis' tick marks) and the labels.
const LABEL_GAP: f64 = 5.0;

/// `v` as a tick value on an axis `span` wide: float noise around zero is zero.
fn snap(v: f32, span: f32) -> f64 {
    if (v.abs() as f64) < 1e-6 * span.abs() as f64 { 0.0 } else { v as f64 }
}

/// Index ranges of finite values (a random curve's mean is drawn through its noise).
fn finite_runs(x: &[f32], y: &[f32]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for i in 0..x.len().min(y.len()) {
        match (x[i].is_finite() && y[i].is_finite(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..x.len().min(y.len()));
    }
    out
}

/// How one curve is cut for a panel, and the located jumps at its cuts.
struct Cut<'c> {
    parts: Vec<Range<usize>>,
    /// Jumps at cuts, inside the x window.
    jumps: Vec<&'c Jump>,
    /// The radius of the jump dots in device pixels; None when they would crowd.
    dot_r: Option<f64>,
}

fn cut<'c>(c: &'c Curve, panel: Panel, win: (f32, f32), ys: f32, plot_w: f64, style: &Style) -> Cut<'c> {
    let values = panel.values(c);
    let parts = if c.spread.is_some() { finite_runs(&c.x, values) } else { runs(&c.x, values, win.1 - win.0, ys) };
    let mut jumps = Vec::new();
    if panel == Panel::Forward {
        for w in parts.windows(2).filter(|w| w[0].end == w[1].start) {
            if let Some(j) = c.jump_after(w[0].end - 1).filter(|j| (win.0..=win.1).contains(&j.x)) {
                jumps.push(j);
            }
        }
    }
    // Dots shrink to a third of the narrowest spacing and go when smaller than a pixel or so.
    let px = |x: f32| (x - win.0) as f64 / (win.1 - win.0) as f64 * plot_w;
    let gap = jumps.windows(2).map(|w| px(w[1].x) - px(w[0].x)).fold(f64::INFINITY, f64::min);
    let r = style.f(DOT_R).min(gap / 3.0);
    let dot_r = (!jumps.is_empty() && r >= style.f(1.2)).then_some(r);
    Cut { parts, jumps, dot_r }
}

/// Draws in device pixels relative to the panel's area, inside the plot rectangle.
struct Pen<'a, DB: Dashes> {
    area: &'a DrawingArea<DB, Shift>,
    frame: Frame,
    style: &'a Style,
}

impl<DB: Dashes> Pen<'_, DB> {
    fn at(&self, x: f32, y: f32) -> Px {
        self.frame.map(x, y)
    }

    /// A polyline, clipped to the plot, dashed by `pattern` (layout pixels).
    fn line(&self, pts: &[Px], color: RGBColor, alpha: f64, width: f64, pattern: &[f64]) -> DrawResult<DB> {
        let style = color.mix(alpha).stroke_width(self.style.px(width));
        let pattern: Vec<f64> = pattern.iter().map(|v| self.style.f(*v)).collect();
        for piece in clip(pts, self.frame.rect()) {
            self.area.draw(&DashedLine { points: &simplify(&piece, 0.25), pattern: &pattern, style })?;
        }
        Ok(())
    }

    /// A translucent polygon, its corners clamped into the plot.
    fn fill(&self, pts: &[Px], color: RGBColor, alpha: f64) -> DrawResult<DB> {
        let (l, t, r, b) = self.frame.rect();
        let p: Vec<(i32, i32)> = pts
            .iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .map(|p| (p.0.clamp(l, r).round() as i32, p.1.clamp(t, b).round() as i32))
            .collect();
        if p.len() > 2 {
            self.area.draw(&Polygon::new(p, color.mix(alpha).filled()))?;
        }
        Ok(())
    }

    /// A dot of radius `r` (device pixels): filled, or open (background inside, coloured ring).
    fn dot(&self, p: Px, r: f64, color: RGBColor, filled: bool) -> DrawResult<DB> {
        if !self.frame.contains(p) {
            return Ok(());
        }
        let c = (p.0.round() as i32, p.1.round() as i32);
        let r = r.round().max(1.0) as u32;
        if filled {
            self.area.draw(&Circle::new(c, r, color.filled()))
        } else {
            self.area.draw(&Circle::new(c, r, self.style.theme.background.filled()))?;
            self.area.draw(&Circle::new(c, r, color.stroke_width(self.style.px(1.5))))
        }
    }
}

/// The legend: every visible curve, then the marks this panel uses.
fn entries(panel: Panel, curves: &[Curve], cuts: &[(usize, Cut)], view: &Viewport, style: &Style) -> Vec<Entry> {
    let th = &style.theme;
    let mut out: Vec<Entry> = cuts
        .iter()
        .map(|(i, _)| {
            let c = &curves[*i];
            let text = match &c.spread {
                Some(s) => format!("{} (mean of {} draws)", c.label, s.draws),
                None => c.label.clone(),
            };
            Entry {
                swatch: Swatch::Line { color: th.curve(*i), alpha: 1.0, width: LINE_W, dash: curve_dash(*i) },
                text,
            }
        })
        .collect();
    let shown = || cuts.iter().map(|(i, _)| &curves[*i]);
    match panel {
        Panel::Forward => {
            if let Some((i, s)) = cuts.iter().find_map(|(i, _)| curves[*i].spread.as_ref().map(|s| (*i, s))) {
                let (lo, hi) = BAND_PERCENTILES;
                let text = format!("{:.0}–{:.0} % of {} draws", lo * 100.0, hi * 100.0, s.draws);
                out.push(Entry { swatch: Swatch::Fill { color: th.curve(i), alpha: BAND_ALPHA }, text });
            }
            if cuts.iter().any(|(_, k)| k.dot_r.is_some()) {
                out.push(Entry { swatch: Swatch::Dots { color: th.text }, text: "filled: q(x) at a jump".into() });
            }
            if view.identity {
                let swatch = Swatch::Line { color: th.muted, alpha: 0.7, width: 1.0, dash: &[5.0, 4.0] };
                out.push(Entry { swatch, text: "y = x".into() });
            }
        }
        Panel::Backward => {
            if shown().any(|c| !c.true_dydx.is_empty()) {
                let swatch = Swatch::Line { color: th.text, alpha: 0.6, width: 1.25, dash: TRUE_DERIVATIVE_DASH };
                out.push(Entry { swatch, text: "true derivative".into() });
            }
            if let Some((i, _)) = cuts.iter().find(|(i, _)| passes(&curves[*i])) {
                let swatch = Swatch::Fill { color: th.curve(*i), alpha: 2.0 * PASS_ALPHA };
                out.push(Entry { swatch, text: "STE pass-band".into() });
            }
        }
    }
    out
}

/// Whether a curve's estimator passes any gradient.
fn passes(c: &Curve) -> bool {
    c.dydx.iter().any(|g| g.is_finite() && *g != 0.0)
}

/// The grid, axis, tick and label style every figure's mesh shares.
pub(super) fn themed_mesh<'m, 'a, 'b, X: Ranged, Y: Ranged, DB: DrawingBackend>(
    mesh: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
    style: &Style,
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB> {
    let th = &style.theme;
    mesh.bold_line_style(th.grid.stroke_width(style.px(1.0)))
        .light_line_style(th.grid.mix(0.45).stroke_width(style.px(1.0)))
        .max_light_lines(1)
        .axis_style(th.axis.stroke_width(style.px(1.0)))
        .set_all_tick_mark_size(style.px(4.0))
        .label_style(style.text(12.0, th.muted))
        .axis_desc_style(style.text(12.5, th.text))
}

/// Draws `panel` of `curves` filling `area` (not presented); returns where the plot went.
pub(super) fn draw<DB: Dashes>(
    area: &DrawingArea<DB, Shift>,
    panel: Panel,
    curves: &[Curve],
    view: &Viewport,
    style: &Style,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let th = &style.theme;
    area.fill(&th.background)?;
    let (x_lo, x_hi) = view.x_range(curves);
    let (y_lo, y_hi) = panel.y_range_in(curves, (x_lo, x_hi));
    let plot_w = (area.dim_in_pixel().0 as f64 - style.f(PLOT_INSET.0 + PLOT_INSET.1)).max(1.0);
    let cuts: Vec<(usize, Cut)> = (0..curves.len())
        .filter(|&i| !curves[i].hidden)
        .map(|i| (i, cut(&curves[i], panel, (x_lo, x_hi), y_hi - y_lo, plot_w, style)))
        .collect();
    let legend = entries(panel, curves, &cuts, view, style);
    let (head, plot_area) = area.split_vertically(legend::height(area, panel.title(), &legend, style));
    legend::draw(&head, panel.title(), &legend, style)?;

    let mut chart = ChartBuilder::on(&plot_area)
        .margin_left(style.px(MARGIN_LEFT))
        .margin_right(style.px(PLOT_INSET.1))
        .margin_top(style.px(6.0))
        .margin_bottom(style.px(6.0))
        .x_label_area_size(style.px(38.0))
        .y_label_area_size(style.px(Y_LABELS))
        .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)?;
    // Tick values come from float arithmetic: −5.55e−17 means 0.
    let fmt_x = |v: &f32| fmt_number(snap(*v, x_hi - x_lo));
    let (x_count, y_count) = tick_counts(&chart, &fmt_x, style);
    // The grid and the x axis are plotters'; the y axis is drawn by [`y_axis`], with room for
    // the level ticks between its line and its labels.
    themed_mesh(&mut chart.configure_mesh(), style)
        .x_labels(x_count)
        .y_labels(y_count)
        .disable_y_axis()
        .x_label_formatter(&fmt_x)
        .x_desc("x")
        .draw()?;
    let y_ticks: Vec<f32> = chart.as_coord_spec().y_spec().key_points(BoldPoints(y_count));

    let base = area.get_base_pixel();
    let corner = |x: f32, y: f32| {
        let (px, py) = chart.backend_coord(&(x, y));
        ((px - base.0) as f64, (py - base.1) as f64)
    };
    let (p0, p1) = (corner(x_lo, y_lo), corner(x_hi, y_hi));
    let frame = Frame { px_x: (p0.0, p1.0), px_y: (p0.1, p1.1), x: (x_lo, x_hi), y: (y_lo, y_hi) };
    let pen = Pen { area, frame, style };
    let levels: Vec<(usize, &[f32])> = cuts
        .iter()
        .filter_map(|(i, _)| curves[*i].levels.as_deref().filter(|l| !l.is_empty()).map(|l| (*i, l)))
        .collect();
    // The backward panel keeps the forward panel's room for them, so the two axes line up.
    let shown = if panel == Panel::Forward { levels.as_slice() } else { &[] };
    y_axis(&pen, panel, &y_ticks, levels.len(), shown)?;

    // The axes through the origin, where they are in view.
    if y_lo < 0.0 && y_hi > 0.0 {
        pen.line(&[pen.at(x_lo, 0.0), pen.at(x_hi, 0.0)], th.axis, 0.6, 1.0, &[])?;
    }
    if x_lo < 0.0 && x_hi > 0.0 {
        pen.line(&[pen.at(0.0, y_lo), pen.at(0.0, y_hi)], th.axis, 0.6, 1.0, &[])?;
    }
    match panel {
        Panel::Forward => forward(&pen, curves, &cuts, view)?,
        Panel::Backward => backward(&pen, curves, &cuts, view)?,
    }
    if let Some(ch) = view.crosshair {
        crosshair(area, panel, curves, &frame, ch.x, style)?;
    }
    Ok(frame)
}

/// How many labelled ticks each axis gets: the most (up to 9 on x, [`Y_TICKS`] on y) whose
/// labels fit the plot side by side without touching — on a small or a presented panel (large
/// type) fewer, never labels running into each other.
fn tick_counts<DB: DrawingBackend>(
    chart: &ChartContext<'_, DB, Cartesian2d<RangedCoordf32, RangedCoordf32>>,
    fmt_x: &dyn Fn(&f32) -> String,
    style: &Style,
) -> (usize, usize) {
    let area = chart.plotting_area();
    let (w, h) = area.dim_in_pixel();
    let label = style.text(12.0, style.theme.muted);
    let gap = style.f(10.0);
    let x_fits = |n: usize| {
        let ticks = chart.as_coord_spec().x_spec().key_points(BoldPoints(n));
        let widest = ticks.iter().map(|v| legend::width(area, &fmt_x(v), &label)).fold(0.0, f64::max);
        ticks.len() as f64 * (widest + gap) <= w as f64
    };
    let y_fits = |n: usize| {
        let ticks = chart.as_coord_spec().y_spec().key_points(BoldPoints(n));
        ticks.len() as f64 * style.f(12.0 * 1.5) <= h as f64
    };
    let x = (2..=9).rev().find(|&n| x_fits(n)).unwrap_or(2);
    let y = (2..=Y_TICKS).rev().find(|&n| y_fits(n)).unwrap_or(2);
    (x, y)
}

/// The crosshair at `x` over a panel drawn in `frame`: a vertical line, an open dot on every
/// visible curve and an `x = …` label — on the panel itself, or alone on a transparent layer
/// stacked above it (the browser redraws only that layer while the pointer moves).
pub(super) fn crosshair<DB: Dashes>(
    area: &DrawingArea<DB, Shift>,
    panel: Panel,
    curves: &[Curve],
    frame: &Frame,
    x: f32,
    style: &Style,
) -> DrawResult<DB> {
    let ((x_lo, x_hi), (y_lo, y_hi)) = (frame.x, frame.y);
    if !(x_lo..=x_hi).contains(&x) {
        return Ok(());
    }
    let th = &style.theme;
    let pen = Pen { area, frame: *frame, style };
    pen.line(&[pen.at(x, y_lo), pen.at(x, y_hi)], th.text, 0.55, 1.0, &[])?;
    for (i, c) in curves.iter().enumerate().filter(|(_, c)| !c.hidden) {
        if let Some((y, g)) = c.at(x) {
            let v = if panel == Panel::Forward { y } else { g };
            pen.dot(pen.at(x, v), style.f(4.0), th.curve(i), false)?;
        }
        // At a jump the ring would hide the filled dot that tells which side q(x) takes — the
        // very thing a pinned jump is there to show: it is drawn again inside the ring.
        if panel == Panel::Forward
            && let Some(j) = jump_at(c, x, frame)
        {
            pen.dot(pen.at(j.x, j.value()), style.f(DOT_R).min(style.f(4.0 - 1.5)), th.curve(i), true)?;
        }
    }
    let (px, top) = (frame.map_x(x), frame.rect().1);
    let right_half = px > (frame.rect().0 + frame.rect().2) / 2.0;
    let pos = Pos::new(if right_half { HPos::Right } else { HPos::Left }, VPos::Top);
    let dx = if right_half { -style.f(5.0) } else { style.f(5.0) };
    let label = format!("x = {}", fmt_number(x as f64));
    let text = style.text(12.0, th.text).pos(pos);
    let (tw, tht) = area.estimate_text_size(&label, &text)?;
    let (x0, y0) = ((px + dx) as i32, (top + style.f(4.0)) as i32);
    let (left, pad) = (if right_half { x0 - tw as i32 } else { x0 }, style.px(3.0) as i32);
    let rect = [(left - pad, y0 - pad), (left + tw as i32 + pad, y0 + tht as i32 + pad)];
    area.draw(&Rectangle::new(rect, th.background.mix(0.85).filled()))?;
    area.draw_text(&label, &text, (x0, y0))
}

/// The curve's jump within half a device pixel of `x`, if there is one.
fn jump_at<'c>(c: &'c Curve, x: f32, frame: &Frame) -> Option<&'c Jump> {
    let k = c.x.partition_point(|&v| v <= x).checked_sub(1)?;
    let near = |j: &&Jump| (frame.map_x(j.x) - frame.map_x(x)).abs() <= 0.5;
    [k.checked_sub(1), Some(k)].into_iter().flatten().filter_map(|k| c.jump_after(k)).find(|j| near(j))
}

/// The y axis at the plot's left edge: its line, its tick marks and labels, its name, and
/// (forward panel) each quantizer's output levels as short ticks in its colour, outside the
/// plot, between the line and the labels — so a level never reads as a piece of a curve.
/// `lanes` curves have levels; the labels stand clear of them in both panels alike.
fn y_axis<DB: Dashes>(
    pen: &Pen<DB>,
    panel: Panel,
    ticks: &[f32],
    lanes: usize,
    levels: &[(usize, &[f32])],
) -> DrawResult<DB> {
    let (th, style, frame) = (&pen.style.theme, pen.style, &pen.frame);
    let (left, top, _, bottom) = frame.rect();
    let strip = (lanes as f64 * LEVEL_TICK).min(LEVEL_STRIP);
    let lane = if lanes > 0 { strip / lanes as f64 } else { 0.0 };
    for (k, (i, values)) in levels.iter().enumerate() {
        let stroke = th.curve(*i).stroke_width(style.px(2.0));
        let x1 = left - style.f(k as f64 * lane);
        let x0 = x1 - style.f(lane - 1.0).max(style.f(2.0));
        for &v in values.iter().filter(|v| (frame.y.0..=frame.y.1).contains(*v)) {
            let y = pen.at(frame.x.0, v).1;
            pen.area.draw(&PathElement::new(to_backend(&[(x0, y), (x1, y)]), stroke))?;
        }
    }
    let axis = th.axis.stroke_width(style.px(1.0));
    pen.area.draw(&PathElement::new(to_backend(&[(left, top), (left, bottom)]), axis))?;
    let span = frame.y.1 - frame.y.0;
    let label = style.text(12.0, th.muted).pos(Pos::new(HPos::Right, VPos::Center));
    let label_x = (left - style.f(strip.max(TICK) + LABEL_GAP)).round() as i32;
    for &v in ticks.iter().filter(|v| (frame.y.0..=frame.y.1).contains(*v)) {
        let y = pen.at(frame.x.0, v).1;
        pen.area.draw(&PathElement::new(to_backend(&[(left - style.f(TICK), y), (left, y)]), axis))?;
        pen.area.draw_text(&fmt_number(snap(v, span)), &label, (label_x, y.round() as i32))?;
    }
    let name = style.text(12.5, th.text).transform(FontTransform::Rotate270).pos(Pos::new(HPos::Center, VPos::Top));
    pen.area.draw_text(panel.y_desc(), &name, (style.f(MARGIN_LEFT) as i32, ((top + bottom) / 2.0) as i32))
}

/// The points of `r` with, at each end, the located jump the run stops at.
fn run_points<DB: Dashes>(pen: &Pen<DB>, c: &Curve, values: &[f32], r: &Range<usize>, ends: bool) -> Vec<Px> {
    let mut pts = Vec::with_capacity(r.len() + 2);
    let jump = |i: usize| if ends { c.jump_after(i) } else { None };
    if let Some(j) = r.start.checked_sub(1).and_then(jump) {
        pts.push(pen.at(j.x, j.right));
    }
    pts.extend(r.clone().map(|k| pen.at(c.x[k], values[k])));
    if let Some(j) = (r.end < values.len()).then(|| jump(r.end - 1)).flatten() {
        pts.push(pen.at(j.x, j.left));
    }
    pts
}

/// Whether a run reaches into the x window (with one sample to spare on each side).
fn in_window(c: &Curve, r: &Range<usize>, (lo, hi): (f32, f32)) -> bool {
    let first = c.x[r.start.saturating_sub(1)];
    let last = c.x[r.end.min(c.x.len() - 1)];
    last >= lo && first <= hi
}

/// How much thicker curve `i` is drawn: twice when a lesson points at it.
fn emphasis(view: &Viewport, i: usize) -> f64 {
    if view.emphasis == Some(i) { 2.0 } else { 1.0 }
}

fn forward<DB: Dashes>(pen: &Pen<DB>, curves: &[Curve], cuts: &[(usize, Cut)], view: &Viewport) -> DrawResult<DB> {
    let (th, style, win) = (&pen.style.theme, pen.style, pen.frame.x);
    for (i, _) in cuts {
        let c = &curves[*i];
        if let Some(s) = &c.spread {
            for r in finite_runs(&s.lo, &s.hi).into_iter().filter(|r| r.len() > 1 && in_window(c, r, win)) {
                let mut poly: Vec<Px> = r.clone().map(|k| pen.at(c.x[k], s.hi[k])).collect();
                poly.extend(r.clone().rev().map(|k| pen.at(c.x[k], s.lo[k])));
                pen.fill(&poly, th.curve(*i), BAND_ALPHA)?;
            }
        }
    }
    if view.identity {
        let (lo, hi) = win;
        pen.line(&[pen.at(lo, lo), pen.at(hi, hi)], th.muted, 0.7, 1.0, &[5.0, 4.0])?;
    }
    for (i, k) in cuts {
        let c = &curves[*i];
        let color = th.curve(*i);
        for r in k.parts.iter().filter(|r| in_window(c, r, win)) {
            let pts = run_points(pen, c, &c.y, r, true);
            // A random curve's mean is drawn thinner: its noise is not the message.
            let width = if c.spread.is_some() { LINE_W_MEAN } else { LINE_W } * emphasis(view, *i);
            if pts.len() == 1 {
                pen.dot(pts[0], style.f(1.6), color, true)?;
            } else {
                pen.line(&pts, color, 1.0, width, curve_dash(*i))?;
            }
        }
    }
    // Dots on top of every line: filled on the value q takes at the jump, open on the other.
    for (i, k) in cuts {
        let Some(r) = k.dot_r else { continue };
        for j in &k.jumps {
            pen.dot(pen.at(j.x, j.excluded()), r, th.curve(*i), false)?;
            pen.dot(pen.at(j.x, j.value()), r, th.curve(*i), true)?;
        }
    }
    Ok(())
}

fn backward<DB: Dashes>(pen: &Pen<DB>, curves: &[Curve], cuts: &[(usize, Cut)], view: &Viewport) -> DrawResult<DB> {
    let (th, style, win) = (&pen.style.theme, pen.style, pen.frame.x);
    // The pass-band: the area between the gradient and 0, shaded (lighter when several overlap).
    let alpha = PASS_ALPHA / (cuts.iter().filter(|(i, _)| passes(&curves[*i])).count().max(1) as f64).sqrt();
    for (i, k) in cuts {
        let c = &curves[*i];
        let shaded = |r: &&Range<usize>| r.len() > 1 && c.dydx[(*r).clone()].iter().any(|g| *g != 0.0);
        for r in k.parts.iter().filter(shaded).filter(|r| in_window(c, r, win)) {
            let mut poly = run_points(pen, c, &c.dydx, r, false);
            poly.push(pen.at(c.x[r.end - 1], 0.0));
            poly.push(pen.at(c.x[r.start], 0.0));
            pen.fill(&poly, th.curve(*i), alpha)?;
        }
    }
    // The true derivative of the forward function, faint and dashed, cut at every jump.
    for (i, _) in cuts {
        let c = &curves[*i];
        let mut piece: Vec<Px> = Vec::new();
        for (k, &d) in c.true_dydx.iter().enumerate() {
            if d.is_finite() {
                piece.push(pen.at(c.x[k], d));
            }
            if !d.is_finite() || c.jump_after(k).is_some() || k + 1 == c.true_dydx.len() {
                pen.line(&piece, th.curve(*i), 0.6, 1.25, TRUE_DERIVATIVE_DASH)?;
                piece.clear();
            }
        }
    }
    for (i, k) in cuts {
        let c = &curves[*i];
        for r in k.parts.iter().filter(|r| in_window(c, r, win)) {
            let pts = run_points(pen, c, &c.dydx, r, false);
            if pts.len() == 1 {
                pen.dot(pts[0], style.f(1.6), th.curve(*i), true)?;
            } else {
                pen.line(&pts, th.curve(*i), 1.0, LINE_W * emphasis(view, *i), curve_dash(*i))?;
            }
        }
    }
    pass_band_label(pen, curves, cuts)
}

/// "STE pass-band" inside the widest stretch where the first visible estimator passes gradient,
/// half-way up, when it fits.
fn pass_band_label<DB: Dashes>(pen: &Pen<DB>, curves: &[Curve], cuts: &[(usize, Cut)]) -> DrawResult<DB> {
    let Some(c) = cuts.iter().map(|(i, _)| &curves[*i]).find(|c| passes(c)) else { return Ok(()) };
    let (lo, hi) = pen.frame.x;
    let mut best: Option<(f64, usize, usize)> = None;
    let mut start: Option<usize> = None;
    for k in 0..=c.dydx.len() {
        let on = k < c.dydx.len() && c.dydx[k].is_finite() && c.dydx[k] != 0.0 && (lo..=hi).contains(&c.x[k]);
        match (on, start) {
            (true, None) => start = Some(k),
            (false, Some(s)) => {
                let w = pen.frame.map_x(c.x[k - 1]) - pen.frame.map_x(c.x[s]);
                if best.is_none_or(|b| w > b.0) {
                    best = Some((w, s, k - 1));
                }
                start = None;
            }
            _ => {}
        }
    }
    let Some((w, s, e)) = best else { return Ok(()) };
    let text = "STE pass-band";
    let style = pen.style.text(11.5, pen.style.theme.muted).pos(Pos::new(HPos::Center, VPos::Center));
    let (tw, th) = pen.area.estimate_text_size(text, &style)?;
    let mid = (s + e) / 2;
    let x = (pen.frame.map_x(c.x[s]) + pen.frame.map_x(c.x[e])) / 2.0;
    let (y0, y1) = (pen.at(c.x[mid], 0.0).1, pen.at(c.x[mid], c.dydx[mid]).1);
    let y = ((y0 + y1) / 2.0).clamp(pen.frame.rect().1, pen.frame.rect().3);
    if w >= tw as f64 + pen.style.f(8.0) && (y0 - y1).abs() >= th as f64 + pen.style.f(6.0) {
        pen.area.draw_text(text, &style, (x as i32, y as i32))?;
    }
    Ok(())
}
