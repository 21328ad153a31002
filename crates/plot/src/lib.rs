//! Drawing quantizer curves with plotters, generic over the backend: the browser draws on a
//! canvas (the app's plotters backend on its 2D context), the command line writes SVG and PNG
//! ([`export`]) through the same code.
//!
//! A figure has two panels over the same x range: the forward panel `y = q(x)` and the
//! backward panel `dy/dx`, one Okabe–Ito colour and dash pattern per quantizer, a legend
//! naming both. A staircase is drawn as flat runs ([`runs`]); a jump between them is a vertical
//! gap located to the float ([`find_jumps`]) with a filled dot on the value `q` takes there
//! and an open dot on the other. The backward panel shades where the estimator passes gradient
//! ("STE pass-band") and draws the true derivative of the forward function faint and dashed.
//! Stochastic quantizers show the mean of their draws and a translucent percentile band.
//!
//! [`formats`] draws the format comparison: SQNR (and MSE) against bits per element.

pub mod boundary;
mod curves;
pub mod erased;
pub mod formats;
mod geometry;
mod jumps;
mod legend;
mod panel;
mod readout;
pub mod stroke;
mod theme;

#[cfg(not(target_arch = "wasm32"))]
pub mod export;
#[cfg(not(target_arch = "wasm32"))]
pub mod gallery;
#[cfg(not(target_arch = "wasm32"))]
mod raster;
pub mod svg;
pub mod svgwriter;
pub mod sweep;

pub use curves::{
    BAND_PERCENTILES, Curve, DRAWS, ISOLATED, SAMPLES, STEEP, Spread, describe_levels, finite_bounds, fmt_db,
    fmt_number, is_pointwise, linspace, padded_range, runs,
};
pub use erased::Erased;
pub use geometry::Frame as PlotFrame;
pub use jumps::{Jump, Side, find_jumps, from_key, key, significant_bits, true_derivative};
pub use readout::{Crosshair, Reading, read_at};
pub use stroke::Dashes;
pub use theme::{OKABE_ITO, OKABE_ITO_ON_DARK, Theme, TrainColours};

use plotters::coord::Shift;
use plotters::prelude::*;

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

    /// A length in layout pixels, in (fractional) device pixels.
    fn f(&self, v: f64) -> f64 {
        v * self.scale
    }

    fn text(&self, size: f64, color: RGBColor) -> TextStyle<'static> {
        TextStyle { color: color.to_backend_color(), ..TextStyle::from((self.font, size * self.scale).into_font()) }
    }
}

/// The dash pattern of the `i`-th curve (drawn and skipped lengths in layout pixels; the first
/// is solid), so curves differ by more than colour.
pub const DASHES: [&[f64]; 6] =
    [&[], &[9.0, 4.0], &[9.0, 3.0, 2.5, 3.0], &[16.0, 5.0], &[2.5, 3.0], &[9.0, 3.0, 2.5, 3.0, 2.5, 3.0]];

/// How far the plot rectangle of a panel lies inside its left and right edges, in layout
/// pixels (margin and y labels on the left, margin on the right): what maps a pointer's
/// position to x.
pub const PLOT_INSET: (f64, f64) = (6.0 + 70.0, 18.0);

/// The dash pattern of the true derivative (faint, thin).
pub const TRUE_DERIVATIVE_DASH: &[f64] = &[3.0, 3.0];

/// The dash pattern of `i`-th curve.
pub fn dash(i: usize) -> &'static [f64] {
    DASHES[i % DASHES.len()]
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

    /// The y axis range for the visible `curves` over their whole x range.
    #[cfg(test)]
    pub fn y_range(self, curves: &[Curve]) -> (f32, f32) {
        self.y_range_in(curves, (f32::NEG_INFINITY, f32::INFINITY))
    }

    /// The y axis range for the visible `curves` where `x` lies in `lo..=hi`: the data (and a
    /// stochastic curve's band) with a margin; the backward panel always shows 0 and 1 (no
    /// gradient, the identity's gradient) so estimators compare at a glance.
    pub fn y_range_in(self, curves: &[Curve], (lo, hi): (f32, f32)) -> (f32, f32) {
        let inside = |c: &Curve| {
            let a = c.x.partition_point(|&v| v < lo);
            let b = c.x.partition_point(|&v| v <= hi);
            a..b.max(a)
        };
        let mut series: Vec<&[f32]> = Vec::new();
        for c in curves.iter().filter(|c| !c.hidden) {
            let r = inside(c);
            let v = self.values(c);
            series.push(&v[r.start.min(v.len())..r.end.min(v.len())]);
            if let (Panel::Forward, Some(s)) = (self, &c.spread) {
                series.push(&s.lo[r.start.min(s.lo.len())..r.end.min(s.lo.len())]);
                series.push(&s.hi[r.start.min(s.hi.len())..r.end.min(s.hi.len())]);
            }
        }
        let bounds = finite_bounds(series);
        match self {
            Panel::Forward => padded_range(bounds, &[], 0.08),
            Panel::Backward => padded_range(bounds, &[0.0, 1.0], 0.08),
        }
    }
}

/// The x range the visible curves were sampled over.
pub fn x_range(curves: &[Curve]) -> (f32, f32) {
    match finite_bounds(curves.iter().filter(|c| !c.hidden).map(|c| c.x.as_slice())) {
        Some((lo, hi)) if hi > lo => (lo, hi),
        Some((lo, _)) => (lo - 1.0, lo + 1.0),
        None => (-1.0, 1.0),
    }
}

/// What a figure shows besides the curves: the x window, a crosshair, reference lines.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Viewport {
    /// The x range shown (zoom and pan are the caller's); None: the curves' sampled range.
    pub x: Option<(f32, f32)>,
    /// A vertical line with every curve's value marked (see [`read_at`] for the numbers).
    pub crosshair: Option<Crosshair>,
    /// The identity `y = x`, faint, in the forward panel.
    pub identity: bool,
    /// The curve a lesson points at (its index): drawn twice as thick.
    pub emphasis: Option<usize>,
}

impl Viewport {
    /// The x range drawn: [`Viewport::x`] when it is a finite, non-empty range, else [`x_range`].
    pub fn x_range(&self, curves: &[Curve]) -> (f32, f32) {
        match self.x {
            Some((lo, hi)) if lo.is_finite() && hi.is_finite() && hi > lo => (lo, hi),
            _ => x_range(curves),
        }
    }
}

/// What drawing returns: plotters' error for the backend in use.
pub type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Draws one panel (title, legend, axes, grid, every visible curve) filling `area`, over the
/// curves' own x range.
#[cfg(test)]
pub fn draw_panel<DB: Dashes>(
    area: &DrawingArea<DB, Shift>,
    panel: Panel,
    curves: &[Curve],
    style: &Style,
) -> DrawResult<DB> {
    draw_panel_with(area, panel, curves, &Viewport::default(), style).map(|_| ())
}

/// Draws one panel (title, legend, axes, grid, every visible curve) filling `area`, with the
/// x range, crosshair and reference lines of `view`; returns where the plot rectangle went and
/// what it maps (for [`draw_crosshair`] on a layer above).
pub fn draw_panel_with<DB: Dashes>(
    area: &DrawingArea<DB, Shift>,
    panel: Panel,
    curves: &[Curve],
    view: &Viewport,
    style: &Style,
) -> Result<PlotFrame, DrawingAreaErrorKind<DB::ErrorType>> {
    let frame = panel::draw(area, panel, curves, view, style)?;
    area.present()?;
    Ok(frame)
}

/// The crosshair at `x` alone — line, a dot on every visible curve, the `x = …` label —, as
/// [`draw_panel_with`] draws it over the panel `frame` came from, on `area` (a transparent
/// layer of the panel's size stacked above it): a pointer move redraws this, not the panel.
pub fn draw_crosshair<DB: Dashes>(
    area: &DrawingArea<DB, Shift>,
    panel: Panel,
    curves: &[Curve],
    frame: &PlotFrame,
    x: f32,
    style: &Style,
) -> DrawResult<DB> {
    panel::crosshair(area, panel, curves, frame, x, style)?;
    area.present()?;
    Ok(())
}

/// Both panels, forward above backward, filling `area` (for one-image exports).
#[cfg(test)]
pub fn draw_figure<DB: Dashes>(area: &DrawingArea<DB, Shift>, curves: &[Curve], style: &Style) -> DrawResult<DB> {
    draw_figure_with(area, curves, &Viewport::default(), style)
}

/// Both panels, forward above backward, filling `area` (for one-image exports), with the x
/// range, crosshair and reference lines of `view`.
pub fn draw_figure_with<DB: Dashes>(
    area: &DrawingArea<DB, Shift>,
    curves: &[Curve],
    view: &Viewport,
    style: &Style,
) -> DrawResult<DB> {
    let (_, h) = area.dim_in_pixel();
    let (top, bottom) = area.split_vertically(h / 2);
    panel::draw(&top, Panel::Forward, curves, view, style)?;
    panel::draw(&bottom, Panel::Backward, curves, view, style)?;
    area.present()?;
    Ok(())
}

#[cfg(test)]
mod tests;
