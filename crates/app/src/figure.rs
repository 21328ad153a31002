//! The app's only door into [`qscope_plot`]: drawing a panel on a canvas (through
//! [`Erased`], as the SVG export draws: one copy of the drawing code in the page), drawing the whole
//! figure at 2× for export, the figure as an exported document, mapping a pointer to x, the
//! theme every canvas draws with, the format comparison's scatter, and the colours and dash patterns the legend uses (curves
//! are evaluated by [`qscope_explore::figure`]). Everything else in the app goes through these functions, so a
//! change of the plot API is absorbed here.

use plotters::prelude::{IntoDrawingArea, RGBColor};
use web_sys::HtmlCanvasElement;

pub use qscope_plot::formats::{Comparison, FormatFigure};
pub use qscope_plot::svg::{Figure, Scheme};
pub use qscope_plot::{Curve, Panel, Reading, TrainColours, fmt_db, fmt_number};

use super::canvas::Canvas;
use qscope_explore::state::State;
use qscope_plot::sweep::{SweepFigure, SweepPlot};
use qscope_plot::{Erased, PlotFrame, Style, Theme, Viewport};

/// The value and gradient of every visible curve at `x`.
pub fn read_at(curves: &[Curve], x: f32) -> Vec<Reading> {
    qscope_plot::read_at(curves, x)
}

/// How every canvas of the app looks (the explorer's panels, the sample histogram, the format
/// comparison, the Train view) and the colours the page shows beside them: the page's theme and
/// presenter mode, passed in by whoever draws (the app owns both as signals).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Look {
    /// The page's theme is dark.
    pub dark: bool,
    /// Presenter mode: the high-contrast theme and everything drawn larger ([`Look::zoom`]).
    pub presenter: bool,
}

impl Look {
    /// The theme to draw with: high contrast in presenter mode (whose page is always light),
    /// else dark or light as the page.
    pub fn theme(self) -> Theme {
        if self.presenter {
            Theme::HIGH_CONTRAST
        } else if self.dark {
            Theme::DARK
        } else {
            Theme::LIGHT
        }
    }

    /// How much larger than usual a panel draws everything (type, lines, margins): 1, or 1.6 to
    /// 2.25 in presenter mode (by the window's width), so a projector shows curves over 3 px wide.
    fn zoom(self) -> f64 {
        if !self.presenter {
            return 1.0;
        }
        let width = web_sys::window().and_then(|w| w.inner_width().ok()).and_then(|v| v.as_f64()).unwrap_or(1280.0);
        (width / 800.0).clamp(1.6, 2.25)
    }
}

/// What the canvases show besides the curves (the crosshair is on a layer of its own, see
/// [`draw_crosshair`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    pub x: (f32, f32),
    pub look: Look,
    /// The curve a lesson step points at (`highlight=curve:N`, as an index): drawn thicker.
    pub emphasis: Option<usize>,
}

impl Frame {
    fn view(&self) -> Viewport {
        Viewport { x: Some(self.x), emphasis: self.emphasis, ..Viewport::default() }
    }

    fn style(&self, scale: f64) -> Style {
        Style { theme: self.look.theme(), scale, ..Style::default() }
    }
}

fn device_pixel_ratio() -> f64 {
    web_sys::window().map(|w| w.device_pixel_ratio()).filter(|r| r.is_finite() && *r > 0.0).unwrap_or(1.0)
}

/// Where a panel was drawn: what its crosshair layer needs to draw over it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drawn {
    plot: PlotFrame,
    /// Device pixels per layout pixel it was drawn at.
    scale: f64,
    look: Look,
}

/// Sizes the canvas' backing store to its CSS box `css` times devicePixelRatio (crisp on
/// HiDPI screens) and draws `panel` of `curves` on it.
pub fn draw_panel(
    canvas: &HtmlCanvasElement,
    css: (f64, f64),
    panel: Panel,
    curves: &[Curve],
    frame: &Frame,
) -> Result<Drawn, String> {
    let dpr = fit_canvas(canvas, css);
    let mut backend = Canvas::new(canvas).ok_or("the canvas has no 2D context")?;
    let scale = dpr * frame.look.zoom();
    let area = Erased(&mut backend).into_drawing_area();
    let plot = qscope_plot::draw_panel_with(&area, panel, curves, &frame.view(), &frame.style(scale))
        .map_err(|e| format!("drawing the {panel:?} panel failed: {e:?}"))?;
    Ok(Drawn { plot, scale, look: frame.look })
}

/// Clears `layer`, a transparent canvas stacked on the panel `drawn` describes (the same CSS
/// box, `css`), and draws the crosshair at `x` on it, if any: a pointer move repaints this alone.
pub fn draw_crosshair(
    layer: &HtmlCanvasElement,
    css: (f64, f64),
    panel: Panel,
    curves: &[Curve],
    drawn: &Drawn,
    x: Option<f32>,
) -> Result<(), String> {
    use wasm_bindgen::JsCast;
    fit_canvas(layer, css);
    let context: web_sys::CanvasRenderingContext2d = layer
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into().ok())
        .ok_or("the crosshair layer has no 2D context")?;
    context.clear_rect(0.0, 0.0, layer.width() as f64, layer.height() as f64);
    let Some(x) = x else { return Ok(()) };
    let mut backend = Canvas::new(layer).ok_or("the crosshair layer has no 2D context")?;
    let style = Frame { x: drawn.plot.x, look: drawn.look, emphasis: None }.style(drawn.scale);
    qscope_plot::draw_crosshair(&Erased(&mut backend).into_drawing_area(), panel, curves, &drawn.plot, x, &style)
        .map_err(|e| format!("drawing the crosshair failed: {e:?}"))
}

/// Both panels, forward above backward, on a new (detached) canvas of `size` layout pixels
/// drawn at twice the pixels: the figure as exported.
pub fn draw_figure_2x(size: (u32, u32), curves: &[Curve], frame: &Frame) -> Result<HtmlCanvasElement, String> {
    canvas_2x(size, |area| {
        qscope_plot::draw_figure_with(area, curves, &frame.view(), &frame.style(2.0))
            .map_err(|e| format!("drawing the figure failed: {e:?}"))
    })
}

/// Sizes a canvas' backing store to its CSS box `css` (layout pixels, see
/// [`super::dom::observed_size`]) times devicePixelRatio; returns the ratio.
pub fn fit_canvas(canvas: &HtmlCanvasElement, css: (f64, f64)) -> f64 {
    let dpr = device_pixel_ratio();
    let (bw, bh) = ((css.0 * dpr).round() as u32, (css.1 * dpr).round() as u32);
    if canvas.width() != bw {
        canvas.set_width(bw);
    }
    if canvas.height() != bh {
        canvas.set_height(bh);
    }
    dpr
}

/// `canvas` sized to its CSS box `css` (crisp on HiDPI screens), its 2-d context drawing in CSS
/// pixels, cleared to the theme's background: where the sample card's small canvases start.
pub fn cleared(
    canvas: &HtmlCanvasElement,
    (w, h): (f64, f64),
    look: Look,
) -> Option<web_sys::CanvasRenderingContext2d> {
    let dpr = fit_canvas(canvas, (w, h));
    use wasm_bindgen::JsCast;
    let ctx = canvas.get_context("2d").ok().flatten()?.dyn_into::<web_sys::CanvasRenderingContext2d>().ok()?;
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.set_fill_style_str(&css(look.theme().background));
    ctx.fill_rect(0.0, 0.0, w, h);
    Some(ctx)
}

/// Draws the format comparison on `canvas` (sized to its CSS box `css`, crisp on HiDPI screens).
pub fn draw_comparison(
    canvas: &HtmlCanvasElement,
    css: (f64, f64),
    cmp: &Comparison,
    look: Look,
) -> Result<(), String> {
    let dpr = fit_canvas(canvas, css);
    let mut backend = Canvas::new(canvas).ok_or("the canvas has no 2D context")?;
    let style = Style { theme: look.theme(), scale: dpr * look.zoom(), ..Style::default() };
    let area = Erased(&mut backend).into_drawing_area();
    qscope_plot::formats::draw_comparison(&area, cmp, &style)
        .and_then(|_| area.present())
        .map_err(|e| format!("drawing the format comparison failed: {e:?}"))
}

/// Draws accuracy against bits on `canvas` (sized to its CSS box `css`).
pub fn draw_sweep(canvas: &HtmlCanvasElement, css: (f64, f64), plot: &SweepPlot, look: Look) -> Result<(), String> {
    let dpr = fit_canvas(canvas, css);
    let mut backend = Canvas::new(canvas).ok_or("the canvas has no 2D context")?;
    let style = Style { theme: look.theme(), scale: dpr * look.zoom(), ..Style::default() };
    let area = Erased(&mut backend).into_drawing_area();
    qscope_plot::sweep::draw_sweep(&area, plot, &style)
        .and_then(|_| area.present())
        .map_err(|e| format!("drawing accuracy against bits failed: {e:?}"))
}

/// Accuracy against bits as exported, on a new canvas at 2×.
pub fn draw_sweep_2x(fig: &SweepFigure) -> Result<HtmlCanvasElement, String> {
    let style = Style { theme: fig.theme, scale: 2.0, ..Style::default() };
    canvas_2x(fig.size, |area| {
        qscope_plot::sweep::draw_sweep(area, &fig.plot, &style)
            .and_then(|_| area.present())
            .map_err(|e| format!("drawing accuracy against bits failed: {e:?}"))
    })
}

/// A new (detached) canvas of `size` layout pixels at twice the pixels, drawn by `draw`.
fn canvas_2x(
    size: (u32, u32),
    draw: impl FnOnce(&plotters::prelude::DrawingArea<Erased, plotters::coord::Shift>) -> Result<(), String>,
) -> Result<HtmlCanvasElement, String> {
    use wasm_bindgen::JsCast;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let canvas: HtmlCanvasElement = document
        .create_element("canvas")
        .map_err(|_| "cannot create a canvas")?
        .dyn_into()
        .map_err(|_| "not a canvas")?;
    canvas.set_width(2 * size.0.max(1));
    canvas.set_height(2 * size.1.max(1));
    let mut backend = Canvas::new(&canvas).ok_or("the canvas has no 2D context")?;
    draw(&Erased(&mut backend).into_drawing_area())?;
    Ok(canvas)
}

/// The format comparison as exported, on a new canvas at 2×.
pub fn draw_comparison_2x(fig: &FormatFigure) -> Result<HtmlCanvasElement, String> {
    let style = Style { theme: fig.theme, scale: 2.0, ..Style::default() };
    canvas_2x(fig.size, |area| {
        qscope_plot::formats::draw_comparison(area, &fig.comparison, &style)
            .and_then(|_| area.present())
            .map_err(|e| format!("drawing the comparison failed: {e:?}"))
    })
}

/// The plot rectangle's left edge and right margin inside a panel, in layout pixels.
const PLOT_LEFT: f64 = qscope_plot::PLOT_INSET.0;
const PLOT_RIGHT: f64 = qscope_plot::PLOT_INSET.1;

/// The x value under a pointer `px` layout pixels from the left of a panel `width` wide, drawn
/// with `look`.
pub fn x_at(px: f64, width: f64, (lo, hi): (f32, f32), look: Look) -> f32 {
    let z = look.zoom();
    let w = (width - (PLOT_LEFT + PLOT_RIGHT) * z).max(1.0);
    let t = ((px - PLOT_LEFT * z) / w).clamp(0.0, 1.0);
    (lo as f64 + t * (hi as f64 - lo as f64)) as f32
}

/// The x units per layout pixel of a panel `width` wide, drawn with `look`.
pub fn x_per_px(width: f64, (lo, hi): (f32, f32), look: Look) -> f32 {
    ((hi as f64 - lo as f64) / (width - (PLOT_LEFT + PLOT_RIGHT) * look.zoom()).max(1.0)) as f32
}

/// The CSS colour of the `i`-th curve.
pub fn colour(i: usize, look: Look) -> String {
    css(look.theme().curve(i))
}

/// A colour as CSS, `#rrggbb`.
pub fn css(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// The SVG `stroke-dasharray` of the `i`-th curve ("none" for a solid line).
pub fn dasharray(i: usize) -> String {
    let d = qscope_plot::dash(i);
    if d.is_empty() { "none".into() } else { d.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" ") }
}

/// The title of a panel.
pub fn title(panel: Panel) -> &'static str {
    panel.title()
}

/// Both panels, for iteration.
pub const PANELS: [(Panel, &str); 2] = [(Panel::Forward, "plot-forward"), (Panel::Backward, "plot-backward")];

/// The figure of `state` as exported (the SVG, and the PNG's text chunks): `curves` as `frame`
/// shows them without the crosshair, the specs of the shown ones, and `link`, the address
/// that reopens it.
pub fn export(size: (u32, u32), curves: &[Curve], frame: &Frame, state: &State, link: String) -> Figure {
    Figure {
        specs: curves.iter().filter(|c| !c.hidden).map(|c| c.label.clone()).collect(),
        curves: curves.to_vec(),
        view: Viewport { x: Some(frame.x), ..Viewport::default() },
        infer: !state.mode.training(),
        seed: state.seed,
        link,
        size,
        // Exported from a theme: that theme, whatever the reader's colour scheme.
        theme: frame.look.theme(),
        scheme: Scheme::Fixed,
    }
}
