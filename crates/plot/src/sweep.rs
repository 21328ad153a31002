//! Accuracy against bits: the test accuracy of the same net trained at each bit width (a dot
//! each, joined in order of bits) and of the float net (a dashed line across), as every QAT
//! paper draws it. The Train view draws it on its canvas and exports it as PNG and SVG.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::erased::Erased;
use super::geometry::{dash, to_backend};
use super::panel::themed_mesh;
use super::svg::{Scheme, Words, svg_document};
use super::{DrawResult, Style, Theme};

/// What the figure shows.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepPlot {
    /// (bits, test accuracy in [0, 1]) of each trained width, in any order; a width whose
    /// training stopped is left out.
    pub points: Vec<(u32, f64)>,
    /// The float net's test accuracy.
    pub float: Option<f64>,
    /// A line under the title: what was varied, on what.
    pub subtitle: String,
}

const TITLE: &str = "Accuracy against bits";

impl SweepPlot {
    /// The bits axis: from 0 to one past the widest width (at least 8).
    fn x_range(&self) -> (f64, f64) {
        let hi = self.points.iter().map(|p| p.0).max().unwrap_or(8).max(8);
        (0.0, f64::from(hi) + 1.0)
    }

    /// The accuracy axis in percent: from a round number below the lowest point (or float) to 100.
    fn y_range(&self) -> (f64, f64) {
        let lo = self.points.iter().map(|p| p.1).chain(self.float).fold(1.0f64, f64::min) * 100.0;
        (((lo - 5.0) / 10.0).floor().clamp(0.0, 9.0) * 10.0, 100.0)
    }
}

/// Draws `plot` on `area` in `style`.
pub fn draw_sweep<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    plot: &SweepPlot,
    style: &Style,
) -> DrawResult<DB> {
    let th = &style.theme;
    area.fill(&th.background)?;
    let title = style.text(14.0, th.text).pos(Pos::new(HPos::Left, VPos::Top));
    area.draw_text(TITLE, &title, (style.px(12.0) as i32, style.px(8.0) as i32))?;
    let sub = style.text(12.0, th.muted).pos(Pos::new(HPos::Left, VPos::Top));
    area.draw_text(&plot.subtitle, &sub, (style.px(12.0) as i32, style.px(28.0) as i32))?;
    let (_, plot_area) = area.split_vertically(style.px(48.0));
    let ((x_lo, x_hi), (y_lo, y_hi)) = (plot.x_range(), plot.y_range());
    let mut chart = ChartBuilder::on(&plot_area)
        .margin_left(style.px(6.0))
        .margin_right(style.px(16.0))
        .margin_top(style.px(6.0))
        .margin_bottom(style.px(6.0))
        .x_label_area_size(style.px(40.0))
        .y_label_area_size(style.px(52.0))
        .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)?;
    let fmt_x = |v: &f64| if v.fract() == 0.0 && *v > 0.0 { format!("{v}") } else { String::new() };
    let fmt_y = |v: &f64| format!("{v:.0}");
    themed_mesh(&mut chart.configure_mesh(), style)
        .x_labels((x_hi - x_lo) as usize + 1)
        .y_labels(6)
        .x_label_formatter(&fmt_x)
        .y_label_formatter(&fmt_y)
        .x_desc("bits")
        .y_desc("test accuracy (%)")
        .draw()?;
    // The quantized net's colour and the float twin's, as on the Train view's curves.
    let [colour, float_colour, _] = th.train.nets;
    let base = area.get_base_pixel();
    let at = |x: f64, y: f64| {
        let (px, py) = chart.backend_coord(&(x, y));
        ((px - base.0) as f64, (py - base.1) as f64)
    };
    if let Some(f) = plot.float {
        let line = [at(x_lo, f * 100.0), at(x_hi, f * 100.0)];
        let stroke = float_colour.stroke_width(style.px(1.5));
        for piece in dash(&line, &[style.f(6.0), style.f(4.0)]) {
            area.draw(&PathElement::new(to_backend(&piece), stroke))?;
        }
        // At the left end, where no width's dot is (the axis starts at 0 bits).
        let label = style.text(12.0, th.muted).pos(Pos::new(HPos::Left, VPos::Bottom));
        let (x, y) = at(x_lo, f * 100.0);
        area.draw_text(
            &format!("float {:.1} %", f * 100.0),
            &label,
            ((x + style.f(4.0)) as i32, (y - style.f(3.0)) as i32),
        )?;
    }
    let mut points = plot.points.clone();
    points.sort_by_key(|p| p.0);
    let line: Vec<(f64, f64)> = points.iter().map(|&(b, a)| at(f64::from(b), a * 100.0)).collect();
    area.draw(&PathElement::new(to_backend(&line), colour.stroke_width(style.px(2.0))))?;
    let label = style.text(11.0, th.text).pos(Pos::new(HPos::Center, VPos::Bottom));
    for (&(px, py), &(_, a)) in line.iter().zip(&points) {
        area.draw(&Circle::new((px as i32, py as i32), style.px(4.5), colour.filled()))?;
        area.draw_text(&format!("{:.1}", a * 100.0), &label, (px as i32, (py - style.f(7.0)) as i32))?;
    }
    Ok(())
}

/// The sweep as an exported figure: the drawing and the words it carries.
#[derive(Clone, Debug)]
pub struct SweepFigure {
    pub plot: SweepPlot,
    pub words: Words,
    /// Width and height in layout pixels (the PNG has twice as many).
    pub size: (u32, u32),
    pub theme: Theme,
}

impl SweepFigure {
    /// The figure as an SVG document with its words in the metadata.
    pub fn svg(&self) -> Result<String, String> {
        svg_document(self.size, self.theme, Scheme::Fixed, &self.words, |area: &DrawingArea<Erased, Shift>, style| {
            draw_sweep(area, &self.plot, style)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plot() -> SweepPlot {
        SweepPlot { points: vec![(4, 0.956), (1, 0.917), (2, 0.953)], float: Some(0.967), subtitle: "digits".into() }
    }

    #[test]
    fn the_axes_hold_every_point_and_the_float_line() {
        assert_eq!(plot().x_range(), (0.0, 9.0));
        assert_eq!(plot().y_range(), (80.0, 100.0));
        let wide = SweepPlot { points: vec![(16, 0.3)], float: None, subtitle: String::new() };
        assert_eq!((wide.x_range(), wide.y_range()), ((0.0, 17.0), (20.0, 100.0)));
    }

    #[test]
    fn the_svg_carries_each_point_and_the_float_accuracy() {
        let words = Words {
            title: "qscope: accuracy against bits".into(),
            description: String::new(),
            link: String::new(),
            specs: Vec::new(),
        };
        let fig = SweepFigure { plot: plot(), words, size: (640, 360), theme: Theme::LIGHT };
        let svg = fig.svg().unwrap();
        assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"), "{}", &svg[..60]);
        for text in ["Accuracy against bits", "91.7", "95.3", "95.6", "float 96.7 %", "test accuracy (%)"] {
            assert!(svg.contains(text), "{text}");
        }
    }
}
