//! Drawing quantizer curves with plotters, generic over the backend: the browser draws on a
//! canvas (plotters-canvas), the command line will write SVG/PNG through the same code.
//!
//! A figure has two panels over the same x range: the forward panel `y = q(x)` and the
//! backward panel `dy/dx`, one Okabe–Ito colour per quantizer. A staircase is drawn as flat
//! runs: a jump between two samples is a gap, never a steep sloped segment (see [`runs`]).

mod sample;

pub use sample::{
    Curve, ISOLATED, SAMPLES, STEEP, describe_levels, finite_bounds, fmt_number, linspace, padded_range, runs,
};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The Okabe–Ito categorical colours (colour-blind safe), in the order curves take them.
pub const OKABE_ITO: [RGBColor; 6] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
];

/// The same colours for dark backgrounds: Okabe–Ito's blue is too dark to read on them, so the
/// first curve takes a lighter blue (still well apart from the sky blue of the sixth).
pub const OKABE_ITO_ON_DARK: [RGBColor; 6] =
    [RGBColor(0x3D, 0x9A, 0xDB), OKABE_ITO[1], OKABE_ITO[2], OKABE_ITO[3], OKABE_ITO[4], OKABE_ITO[5]];

/// Colours of everything that is not a curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Theme {
    pub background: RGBColor,
    pub text: RGBColor,
    pub muted: RGBColor,
    pub axis: RGBColor,
    pub grid: RGBColor,
    pub palette: [RGBColor; 6],
}

impl Theme {
    pub const LIGHT: Theme = Theme {
        background: RGBColor(0xFF, 0xFF, 0xFF),
        text: RGBColor(0x1F, 0x23, 0x28),
        muted: RGBColor(0x5C, 0x63, 0x6E),
        axis: RGBColor(0x8C, 0x93, 0x9D),
        grid: RGBColor(0xE6, 0xE8, 0xEB),
        palette: OKABE_ITO,
    };
    pub const DARK: Theme = Theme {
        background: RGBColor(0x1A, 0x1D, 0x22),
        text: RGBColor(0xE6, 0xE8, 0xEB),
        muted: RGBColor(0xA4, 0xAB, 0xB5),
        axis: RGBColor(0x6E, 0x76, 0x81),
        grid: RGBColor(0x2E, 0x33, 0x3A),
        palette: OKABE_ITO_ON_DARK,
    };

    /// The colour of the `i`-th curve.
    pub fn curve(&self, i: usize) -> RGBColor {
        self.palette[i % self.palette.len()]
    }
}

/// How a figure is drawn on a given device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Style {
    pub theme: Theme,
    /// Device pixels per layout pixel (the browser's devicePixelRatio, 2 for a 2× PNG):
    /// every size below is in layout pixels and multiplied by it.
    pub scale: f64,
    /// A CSS font-family list (the browser) or a family name (SVG).
    pub font: &'static str,
}

impl Default for Style {
    fn default() -> Self {
        Style { theme: Theme::LIGHT, scale: 1.0, font: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" }
    }
}

impl Style {
    /// A length in layout pixels, in device pixels (at least 1).
    fn px(&self, v: f64) -> u32 {
        (v * self.scale).round().max(1.0) as u32
    }

    fn text(&self, size: f64, color: RGBColor) -> TextStyle<'static> {
        TextStyle { color: color.to_backend_color(), ..TextStyle::from((self.font, size * self.scale).into_font()) }
    }
}

/// Which function of a [`Curve`] a panel shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    /// `y = q(x)`.
    Forward,
    /// `dy/dx`, the gradient the library sends back.
    Backward,
}

impl Panel {
    pub fn title(self) -> &'static str {
        match self {
            Panel::Forward => "Forward  y = q(x)",
            Panel::Backward => "Backward  dy/dx",
        }
    }

    fn y_desc(self) -> &'static str {
        match self {
            Panel::Forward => "y",
            Panel::Backward => "dy/dx",
        }
    }

    /// The values of `c` this panel draws.
    pub fn values(self, c: &Curve) -> &[f32] {
        match self {
            Panel::Forward => &c.y,
            Panel::Backward => &c.dydx,
        }
    }

    /// The y axis range for `curves`: the data with a margin; the backward panel always shows
    /// 0 and 1 (no gradient, the identity's gradient) so estimators compare at a glance.
    pub fn y_range(self, curves: &[Curve]) -> (f32, f32) {
        let bounds = finite_bounds(curves.iter().map(|c| self.values(c)));
        match self {
            Panel::Forward => padded_range(bounds, &[], 0.08),
            Panel::Backward => padded_range(bounds, &[0.0, 1.0], 0.08),
        }
    }
}

/// The x range the curves were sampled over.
pub fn x_range(curves: &[Curve]) -> (f32, f32) {
    match finite_bounds(curves.iter().map(|c| c.x.as_slice())) {
        Some((lo, hi)) if hi > lo => (lo, hi),
        Some((lo, _)) => (lo - 1.0, lo + 1.0),
        None => (-1.0, 1.0),
    }
}

/// `v` as a tick value on an axis `span` wide: float noise around zero is zero.
fn snap(v: f32, span: f32) -> f64 {
    if (v.abs() as f64) < 1e-6 * span.abs() as f64 { 0.0 } else { v as f64 }
}

/// What drawing returns: plotters' error for the backend in use.
pub type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Draws one panel (title, axes, grid, every curve) filling `area`.
pub fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: Panel,
    curves: &[Curve],
    style: &Style,
) -> DrawResult<DB> {
    let th = &style.theme;
    area.fill(&th.background)?;

    let (title_area, plot_area) = area.split_vertically(style.px(28.0));
    let title_style = style.text(14.0, th.text).pos(Pos::new(HPos::Left, VPos::Center));
    title_area.draw_text(panel.title(), &title_style, (style.px(12.0) as i32, style.px(16.0) as i32))?;

    let (x_lo, x_hi) = x_range(curves);
    let (y_lo, y_hi) = panel.y_range(curves);
    let mut chart = ChartBuilder::on(&plot_area)
        .margin_left(style.px(6.0))
        .margin_right(style.px(18.0))
        .margin_top(style.px(6.0))
        .margin_bottom(style.px(6.0))
        .x_label_area_size(style.px(38.0))
        .y_label_area_size(style.px(58.0))
        .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)?;

    // Tick values come from float arithmetic: −5.55e−17 means 0.
    let fmt_x = |v: &f32| fmt_number(snap(*v, x_hi - x_lo));
    let fmt_y = |v: &f32| fmt_number(snap(*v, y_hi - y_lo));
    chart
        .configure_mesh()
        .bold_line_style(th.grid.stroke_width(style.px(1.0)))
        .light_line_style(th.grid.mix(0.45).stroke_width(style.px(1.0)))
        .max_light_lines(1)
        .axis_style(th.axis.stroke_width(style.px(1.0)))
        .set_all_tick_mark_size(style.px(4.0))
        .x_labels(9)
        .y_labels(7)
        .x_label_formatter(&fmt_x)
        .y_label_formatter(&fmt_y)
        .label_style(style.text(12.0, th.muted))
        .axis_desc_style(style.text(12.5, th.text))
        .x_desc("x")
        .y_desc(panel.y_desc())
        .draw()?;

    // The axes through the origin, where they are in view.
    let origin = th.axis.mix(0.6).stroke_width(style.px(1.0));
    if y_lo < 0.0 && y_hi > 0.0 {
        chart.draw_series(std::iter::once(PathElement::new(vec![(x_lo, 0.0), (x_hi, 0.0)], origin)))?;
    }
    if x_lo < 0.0 && x_hi > 0.0 {
        chart.draw_series(std::iter::once(PathElement::new(vec![(0.0, y_lo), (0.0, y_hi)], origin)))?;
    }

    let (x_span, y_span) = (x_hi - x_lo, y_hi - y_lo);
    let line_w = style.px(2.25);
    for (i, c) in curves.iter().enumerate() {
        let color = th.curve(i);
        let values = panel.values(c);
        let parts = runs(&c.x, values, x_span, y_span);
        let points =
            |r: &std::ops::Range<usize>| -> Vec<(f32, f32)> { r.clone().map(|k| (c.x[k], values[k])).collect() };

        if panel == Panel::Backward {
            // The pass-band: the area under the gradient, shaded.
            let fill = color.mix(0.12).filled();
            chart.draw_series(parts.iter().filter(|r| r.len() > 1).map(|r| {
                let mut poly = points(r);
                poly.push((c.x[r.end - 1], 0.0));
                poly.push((c.x[r.start], 0.0));
                Polygon::new(poly, fill)
            }))?;
        }

        if panel == Panel::Forward
            && let Some(levels) = &c.levels
        {
            // Level ticks just inside the y axis, in the curve's colour.
            let tick = color.stroke_width(style.px(2.0));
            let len = style.px(8.0) as i32;
            let off = (i as i32) * len;
            chart.draw_series(
                levels
                    .iter()
                    .filter(|v| (y_lo..=y_hi).contains(*v))
                    .map(|&v| EmptyElement::at((x_lo, v)) + PathElement::new(vec![(off, 0), (off + len, 0)], tick)),
            )?;
        }

        let line = color.stroke_width(line_w);
        let anno =
            chart.draw_series(parts.iter().filter(|r| r.len() > 1).map(|r| PathElement::new(points(r), line)))?;
        if curves.len() > 1 {
            let legend_len = style.px(18.0) as i32;
            anno.label(c.label.clone()).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + legend_len, y)], line));
        }
        let dot = color.filled();
        let r = style.px(1.6);
        chart.draw_series(
            parts.iter().filter(|r| r.len() == 1).map(|p| Circle::new((c.x[p.start], values[p.start]), r, dot)),
        )?;
    }

    if curves.len() > 1 {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(th.background.mix(0.85))
            .border_style(th.grid)
            .label_font(style.text(12.0, th.text))
            .draw()?;
    }
    area.present()?;
    Ok(())
}

/// Both panels, forward above backward, filling `area` (for one-image exports).
pub fn draw_figure<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    curves: &[Curve],
    style: &Style,
) -> DrawResult<DB> {
    let (_, h) = area.dim_in_pixel();
    let (top, bottom) = area.split_vertically(h / 2);
    draw_panel(&top, Panel::Forward, curves, style)?;
    draw_panel(&bottom, Panel::Backward, curves, style)
}

#[cfg(test)]
mod tests;
