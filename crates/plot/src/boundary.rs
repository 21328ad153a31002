//! A trained network's decision boundary, generic over the plotters backend (the lesson
//! handout draws it as SVG): the net's answer on a coarse grid of the plane as a heatmap —
//! orange for −1, white at 0, blue for +1, the Train view's colours — with the training points
//! filled and the test points ringed. For the 1-D `sine` regression: the net's output along x1
//! as a line over the points.
//!
//! The figure takes plain numbers: `qscope_explore::train::boundary` reads them off a trainer
//! (`Trainer::predict_grid`, the same call the Train view's heatmaps use).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::svg::SvgText;
use super::{DrawResult, OKABE_ITO, Style, Theme};

/// The plane shown, in data units (the datasets live in ±6), as in the Train view.
pub const LO: f32 = -6.0;
pub const HI: f32 = 6.0;

/// Grid points per axis of a handout's heatmap.
pub const RES: usize = 40;

/// One data point: its features (x2 is unused in 1-D) and its label (±1, or the target in 1-D).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x1: f32,
    pub x2: f32,
    pub label: f32,
}

/// What a boundary figure shows: the net's scores on the grid, and the data.
#[derive(Clone, Debug, PartialEq)]
pub struct Boundary {
    /// Grid points per axis.
    pub res: usize,
    /// `res²` scores in [−1, 1], rows of rising x2 (2-D), or `res` outputs along x1 (1-D).
    pub scores: Vec<f32>,
    pub two_d: bool,
    pub train: Vec<Point>,
    pub test: Vec<Point>,
}

impl Boundary {
    /// The grid coordinate of index `i`.
    fn at(&self, i: usize) -> f32 {
        LO + (HI - LO) * i as f32 / (self.res - 1) as f32
    }
}

/// A score as a colour: white at 0 shading to blue (+1) or orange (−1), 75 % at the ends.
pub fn shade(score: f32) -> RGBColor {
    let t = if score.is_finite() { score.clamp(-1.0, 1.0) } else { 0.0 };
    let end = if t >= 0.0 { OKABE_ITO[0] } else { OKABE_ITO[4] };
    let a = f64::from(t.abs()) * 0.75;
    let mix = |e: u8| (255.0 + (f64::from(e) - 255.0) * a).round() as u8;
    RGBColor(mix(end.0), mix(end.1), mix(end.2))
}

/// The colour of a point's class.
fn class_colour(p: &Point) -> RGBColor {
    if p.label > 0.0 { OKABE_ITO[0] } else { OKABE_ITO[1] }
}

/// Draws the boundary filling `area`.
pub fn draw_boundary<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, b: &Boundary, style: &Style) -> DrawResult<DB> {
    let th = style.theme;
    area.fill(&th.background)?;
    let (y_lo, y_hi) = if b.two_d { (LO, HI) } else { value_range(b) };
    let mut chart = ChartBuilder::on(area)
        .margin(style.px(10.0))
        .x_label_area_size(style.px(34.0))
        .y_label_area_size(style.px(40.0))
        .build_cartesian_2d(LO..HI, y_lo..y_hi)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("x1")
        .y_desc(if b.two_d { "x2" } else { "y" })
        .axis_style(th.axis)
        .label_style(style.text(12.0, th.muted))
        .axis_desc_style(style.text(12.5, th.text))
        .draw()?;
    let r = style.px(3.0);
    if b.two_d {
        let half = (HI - LO) / (b.res - 1) as f32 / 2.0;
        let cells = (0..b.res * b.res).map(|k| {
            let (x, y) = (b.at(k % b.res), b.at(k / b.res));
            let corners = [((x - half).max(LO), (y - half).max(LO)), ((x + half).min(HI), (y + half).min(HI))];
            Rectangle::new(corners, shade(b.scores.get(k).copied().unwrap_or(0.0)).filled())
        });
        chart.draw_series(cells)?;
        let dot = |p: &Point, filled: bool| {
            let c = class_colour(p);
            let s = if filled { c.filled() } else { c.stroke_width(style.px(1.6)) };
            Circle::new((p.x1, p.x2), r, s)
        };
        chart.draw_series(b.train.iter().map(|p| dot(p, true)))?;
        chart.draw_series(b.test.iter().map(|p| dot(p, false)))?;
    } else {
        chart.draw_series(b.train.iter().map(|p| Circle::new((p.x1, p.label), r, th.muted.filled())))?;
        chart.draw_series(b.test.iter().map(|p| Circle::new((p.x1, p.label), r, th.muted.stroke_width(1))))?;
        let line = (0..b.res).map(|i| (b.at(i), b.scores.get(i).copied().unwrap_or(0.0)));
        chart.draw_series(LineSeries::new(line, OKABE_ITO[0].stroke_width(style.px(2.25))))?;
    }
    area.present()?;
    Ok(())
}

/// The y range of a 1-D boundary: the data and the net's finite outputs, padded.
fn value_range(b: &Boundary) -> (f32, f32) {
    let values = b.train.iter().chain(&b.test).map(|p| p.label).chain(b.scores.iter().copied());
    let (lo, hi) = values.filter(|v| v.is_finite()).fold((-1.0f32, 1.0f32), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = 0.05 * (hi - lo);
    (lo - pad, hi + pad)
}

/// The boundary as an SVG document `size` pixels square (text sized by estimate, no font).
pub fn boundary_svg(b: &Boundary, size: u32) -> Result<String, String> {
    let mut buf = String::new();
    {
        let area = SvgText(SVGBackend::with_string(&mut buf, (size, size))).into_drawing_area();
        let style = Style { theme: Theme::LIGHT, ..Style::default() };
        draw_boundary(&area, b, &style).map_err(|e| format!("drawing the boundary: {e}"))?;
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points on a ring, labelled by their half-plane.
    fn points(n: usize) -> Vec<Point> {
        (0..n)
            .map(|i| {
                let t = i as f32 * 0.7;
                Point { x1: 4.0 * t.cos(), x2: 4.0 * t.sin(), label: if t.cos() > 0.0 { 1.0 } else { -1.0 } }
            })
            .collect()
    }

    fn boundary(res: usize, two_d: bool) -> Boundary {
        let cells = if two_d { res * res } else { res };
        let scores = (0..cells).map(|k| ((k as f32) * 0.37).sin()).collect();
        Boundary { res, scores, two_d, train: points(60), test: points(40) }
    }

    #[test]
    fn shades_run_from_orange_through_white_to_blue() {
        assert_eq!(shade(0.0), RGBColor(255, 255, 255));
        assert_eq!(shade(f32::NAN), RGBColor(255, 255, 255));
        let blue = shade(1.0);
        assert!(blue.2 > blue.0, "{blue:?}");
        let orange = shade(-5.0);
        assert!(orange.0 > orange.2, "{orange:?}");
        assert_eq!(orange, shade(-1.0));
    }

    #[test]
    fn a_2d_boundary_is_one_cell_per_grid_point_and_one_dot_per_point() {
        let b = boundary(12, true);
        let svg = boundary_svg(&b, 360).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        // Cells, plus the background; dots for both splits.
        assert_eq!(svg.matches("<rect").count(), 144 + 1);
        assert_eq!(svg.matches("<circle").count(), b.train.len() + b.test.len());
    }

    #[test]
    fn a_1d_boundary_is_a_line_over_the_points() {
        let b = boundary(20, false);
        let svg = boundary_svg(&b, 300).unwrap();
        let curve = svg.split("<polyline").filter(|p| p.split('>').next().unwrap_or("").contains("#0072B2")).count();
        assert_eq!(curve, 1, "one line in the curve's colour");
        assert_eq!(svg.matches("<circle").count(), 100);
    }
}
