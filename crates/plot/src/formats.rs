//! The format comparison ("which format?"): one labelled dot per quantizer, its SQNR on a
//! sample tensor against the bits it stores per element (block and group scales included),
//! in its curve's colour. Higher and further left is better. The right axis reads the same
//! heights as MSE: on one sample `MSE = mean(x²)·10^(−SQNR/10)`, so MSE needs no second panel.
//!
//! Labels go beside their dots, moved up or down (with a leader line) until they overlap no
//! other label, so formats at the same bits (NVFP4 and NF4 at 4.5) stay readable.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontTransform;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::erased::Erased;
use super::geometry::to_backend;
use super::legend::fit;
use super::panel::themed_mesh;
use super::svg::{Scheme, Words, svg_document};
use super::{DrawResult, Style, Theme, fmt_number};

/// One format on the figure.
#[derive(Clone, Debug, PartialEq)]
pub struct FormatPoint {
    pub label: String,
    /// The palette index of its colour (its curve's).
    pub colour: usize,
    /// Bits per element, scales included.
    pub bits: f32,
    pub sqnr_db: f64,
}

/// What the figure shows: the points and the sample's mean square (for the MSE axis).
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub points: Vec<FormatPoint>,
    /// `mean(x²)` of the sample tensor.
    pub signal: f64,
    /// A line under the title: what the sample is.
    pub subtitle: String,
}

const TITLE: &str = "Which format? SQNR against bits per element";
const DOT_R: f64 = 5.0;
const LABEL_GAP: f64 = 8.0;
const LABEL_SIZE: f64 = 12.0;
/// The room right of the plot for the MSE axis.
const MSE_AXIS: f64 = 76.0;

impl Comparison {
    /// The points that can be placed: finite bits and SQNR.
    fn placed(&self) -> impl Iterator<Item = &FormatPoint> {
        self.points.iter().filter(|p| p.bits.is_finite() && p.sqnr_db.is_finite())
    }

    /// The x range: the bits, half a bit either side, at least 4 bits wide, from 0 up.
    pub fn x_range(&self) -> (f32, f32) {
        let (lo, hi) =
            self.placed().fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), p| (a.min(p.bits), b.max(p.bits)));
        if lo > hi {
            return (0.0, 9.0);
        }
        let (lo, hi) = ((lo - 0.5).max(0.0), hi + 0.5);
        let widen = (4.0 - (hi - lo)).max(0.0) / 2.0;
        ((lo - widen).max(0.0), hi + widen + (widen - lo).max(0.0))
    }

    /// The y range: the SQNRs with 8 % margins, at least 10 dB tall.
    pub fn y_range(&self) -> (f64, f64) {
        let (lo, hi) =
            self.placed().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.sqnr_db), b.max(p.sqnr_db)));
        if lo > hi {
            return (0.0, 40.0);
        }
        let pad = ((hi - lo) * 0.08).max(1.0);
        let (lo, hi) = (lo - pad, hi + pad);
        let widen = (10.0 - (hi - lo)).max(0.0) / 2.0;
        (lo - widen, hi + widen)
    }
}

/// Draws the comparison filling `area` (not presented).
pub fn draw_comparison<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    cmp: &Comparison,
    style: &Style,
) -> DrawResult<DB> {
    let th = &style.theme;
    area.fill(&th.background)?;
    let title = style.text(14.0, th.text).pos(Pos::new(HPos::Left, VPos::Top));
    let room = area.dim_in_pixel().0 as f64 - style.f(24.0);
    area.draw_text(&fit(area, TITLE, &title, room), &title, (style.px(12.0) as i32, style.px(8.0) as i32))?;
    let sub = style.text(12.0, th.muted).pos(Pos::new(HPos::Left, VPos::Top));
    area.draw_text(&fit(area, &cmp.subtitle, &sub, room), &sub, (style.px(12.0) as i32, style.px(28.0) as i32))?;
    let (_, plot_area) = area.split_vertically(style.px(48.0));
    let (x_lo, x_hi) = cmp.x_range();
    let (y_lo, y_hi) = cmp.y_range();
    let mut chart = ChartBuilder::on(&plot_area)
        .margin_left(style.px(6.0))
        .margin_right(style.px(MSE_AXIS))
        .margin_top(style.px(6.0))
        .margin_bottom(style.px(6.0))
        .x_label_area_size(style.px(40.0))
        .y_label_area_size(style.px(58.0))
        .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)?;
    let fmt_x = |v: &f32| fmt_number(*v as f64);
    let fmt_y = |v: &f64| fmt_number(*v);
    themed_mesh(&mut chart.configure_mesh(), style)
        .x_labels(10)
        .y_labels(8)
        .x_label_formatter(&fmt_x)
        .y_label_formatter(&fmt_y)
        .x_desc("bits per element (scales included)")
        .y_desc("SQNR (dB)")
        .draw()?;
    let base = area.get_base_pixel();
    let at = |x: f32, y: f64| {
        let (px, py) = chart.backend_coord(&(x, y));
        ((px - base.0) as f64, (py - base.1) as f64)
    };
    mse_axis(area, cmp.signal, (y_lo, y_hi), at(x_hi, y_lo), at, style)?;
    if cmp.placed().next().is_none() {
        let note = style.text(12.0, th.muted).pos(Pos::new(HPos::Center, VPos::Center));
        let (a, b) = (at(x_lo, y_lo), at(x_hi, y_hi));
        let centre = (((a.0 + b.0) / 2.0) as i32, ((a.1 + b.1) / 2.0) as i32);
        return area.draw_text("no format with a finite SQNR and bit count", &note, centre);
    }
    let label_style = style.text(LABEL_SIZE, th.text);
    let (left, right) = (at(x_lo, y_lo).0, at(x_hi, y_lo).0);
    let mid = (left + right) / 2.0;
    let mut placed: Vec<(f64, f64, f64, f64)> = Vec::new();
    let mut order: Vec<&FormatPoint> = cmp.placed().collect();
    order.sort_by(|a, b| b.sqnr_db.total_cmp(&a.sqnr_db));
    for p in order {
        let (px, py) = at(p.bits, p.sqnr_db);
        let colour = th.curve(p.colour);
        area.draw(&Circle::new((px as i32, py as i32), style.px(DOT_R), colour.filled()))?;
        area.draw(&Circle::new((px as i32, py as i32), style.px(DOT_R), th.background.stroke_width(style.px(1.0))))?;
        // At most half the plot wide, beside the dot on the side towards the middle, inside.
        let text = fit(area, &p.label, &label_style, (right - left) / 2.0);
        let (w, h) = area.estimate_text_size(&text, &label_style).map(|(w, h)| (w as f64, h as f64))?;
        let on_right = px < mid;
        let x0 = if on_right { px + style.f(LABEL_GAP) } else { px - style.f(LABEL_GAP) - w };
        let x0 = x0.clamp(left + style.f(2.0), (right - w - style.f(2.0)).max(left));
        let y = free_row(&placed, x0, w, py, h * 1.25);
        placed.push((x0, y - h / 2.0, x0 + w, y + h / 2.0));
        if (y - py).abs() > 0.5 {
            let end = if on_right { x0 - style.f(2.0) } else { x0 + w + style.f(2.0) };
            let leader = th.muted.stroke_width(style.px(1.0));
            area.draw(&PathElement::new(to_backend(&[(px, py), (end, y)]), leader))?;
        }
        let anchor = label_style.pos(Pos::new(HPos::Left, VPos::Center));
        area.draw_text(&text, &anchor, (x0.round() as i32, y.round() as i32))?;
    }
    Ok(())
}

/// The height nearest `y` (tried at `y`, then a row up or down, further each time) where a
/// label `w` wide and `row` tall starting at `x0` overlaps none of `placed`.
fn free_row(placed: &[(f64, f64, f64, f64)], x0: f64, w: f64, y: f64, row: f64) -> f64 {
    let clear = |y: f64| {
        !placed.iter().any(|&(a, top, b, bottom)| x0 < b && x0 + w > a && y - row / 2.0 < bottom && y + row / 2.0 > top)
    };
    (0..40)
        .map(|k| y + row * if k % 2 == 0 { (k / 2) as f64 } else { -((k + 1) / 2) as f64 })
        .find(|&y| clear(y))
        .unwrap_or(y)
}

/// The right axis: MSE at each power of ten whose SQNR lies in `y`, `MSE = signal·10^(−SQNR/10)`.
fn mse_axis<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    signal: f64,
    (y_lo, y_hi): (f64, f64),
    corner: (f64, f64),
    at: impl Fn(f32, f64) -> (f64, f64),
    style: &Style,
) -> DrawResult<DB> {
    if !(signal.is_finite() && signal > 0.0) {
        return Ok(());
    }
    let th = &style.theme;
    let x = corner.0;
    let top = at(0.0, y_hi).1;
    let axis = th.axis.stroke_width(style.px(1.0));
    area.draw(&PathElement::new(to_backend(&[(x, corner.1), (x, top)]), axis))?;
    let label = style.text(12.0, th.muted).pos(Pos::new(HPos::Left, VPos::Center));
    let (k_lo, k_hi) = ((signal.log10() - y_hi / 10.0).ceil() as i32, (signal.log10() - y_lo / 10.0).floor() as i32);
    let step = ((k_hi - k_lo) / 8 + 1).max(1) as usize;
    for k in (k_lo..=k_hi).step_by(step) {
        let y = at(0.0, 10.0 * (signal.log10() - k as f64)).1;
        area.draw(&PathElement::new(to_backend(&[(x, y), (x + style.f(4.0), y)]), axis))?;
        area.draw_text(&fmt_number(10f64.powi(k)), &label, ((x + style.f(7.0)) as i32, y.round() as i32))?;
    }
    let name = style.text(12.5, th.text).transform(FontTransform::Rotate90).pos(Pos::new(HPos::Center, VPos::Top));
    let right = area.dim_in_pixel().0 as f64 - style.f(4.0);
    area.draw_text("MSE", &name, (right as i32, ((corner.1 + top) / 2.0) as i32))
}

/// The comparison as an exported figure: the drawing and the words it carries.
#[derive(Clone, Debug)]
pub struct FormatFigure {
    pub comparison: Comparison,
    pub words: Words,
    /// Width and height in layout pixels (the PNG has twice as many).
    pub size: (u32, u32),
    pub theme: Theme,
    /// Whether the SVG follows the reader's colour scheme.
    pub scheme: Scheme,
}

impl FormatFigure {
    /// The figure as an SVG document with its words in the metadata.
    pub fn svg(&self) -> Result<String, String> {
        svg_document(self.size, self.theme, self.scheme, &self.words, |area: &DrawingArea<Erased, Shift>, style| {
            draw_comparison(area, &self.comparison, style)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(bits: f32, sqnr_db: f64) -> FormatPoint {
        FormatPoint { label: format!("{bits} bits"), colour: 0, bits, sqnr_db }
    }

    fn comparison(points: Vec<FormatPoint>) -> Comparison {
        Comparison { points, signal: 0.25, subtitle: "1000 × normal".into() }
    }

    #[test]
    fn the_axes_hold_every_point_with_room() {
        let c = comparison(vec![point(4.25, 18.0), point(8.0, 31.0), point(f32::NAN, 5.0), point(4.0, f64::INFINITY)]);
        assert_eq!(c.x_range(), (3.75, 8.5));
        let (lo, hi) = c.y_range();
        assert!(lo < 18.0 && hi > 31.0 && hi - lo < 20.0, "{lo} {hi}");
    }

    #[test]
    fn a_single_point_gets_four_bits_and_ten_decibels_around_it() {
        let c = comparison(vec![point(4.5, 20.0)]);
        assert_eq!(c.x_range(), (2.5, 6.5));
        assert_eq!(c.y_range(), (15.0, 25.0));
        assert_eq!(comparison(vec![point(1.0, 3.0)]).x_range(), (0.0, 4.0));
    }

    #[test]
    fn a_label_moves_off_the_one_it_would_cover() {
        let placed = [(10.0, 45.0, 90.0, 55.0)];
        assert_eq!(free_row(&placed, 20.0, 50.0, 50.0, 12.0), 38.0);
        assert_eq!(free_row(&placed, 100.0, 50.0, 50.0, 12.0), 50.0);
    }

    #[test]
    fn the_figure_is_an_svg_with_its_words_and_every_label() {
        let fig = FormatFigure {
            comparison: comparison(vec![point(4.25, 18.0), point(8.0, 31.0)]),
            words: Words {
                title: "qscope: formats".into(),
                description: "d".into(),
                link: "#q=x".into(),
                specs: vec!["a".into()],
            },
            size: (640, 400),
            theme: Theme::LIGHT,
            scheme: Scheme::Fixed,
        };
        let svg = fig.svg().unwrap();
        assert!(svg.contains("<title>qscope: formats</title>") && svg.contains("4.25 bits") && svg.contains("8 bits"));
        assert!(svg.contains("SQNR (dB)") && svg.contains(">MSE<"));
    }
}
