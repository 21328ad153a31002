//! Drawing a panel on a canvas element at the device's pixel density.

use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

use crate::plot::{self, Curve, Panel, Style, Theme};

/// Sizes the canvas' backing store to its CSS box times devicePixelRatio (crisp on HiDPI
/// screens) and draws `panel` of `curves` on it. A canvas not laid out yet is left alone.
pub fn draw(canvas: &HtmlCanvasElement, panel: Panel, curves: &[Curve], theme: Theme) -> Result<(), String> {
    let dpr = web_sys::window().map(|w| w.device_pixel_ratio()).filter(|r| r.is_finite() && *r > 0.0).unwrap_or(1.0);
    let (w, h) = (canvas.client_width(), canvas.client_height());
    if w <= 0 || h <= 0 {
        return Ok(());
    }
    let (bw, bh) = ((w as f64 * dpr).round() as u32, (h as f64 * dpr).round() as u32);
    if canvas.width() != bw {
        canvas.set_width(bw);
    }
    if canvas.height() != bh {
        canvas.set_height(bh);
    }
    let backend =
        CanvasBackend::with_canvas_object(canvas.clone()).ok_or_else(|| "the canvas has no 2D context".to_string())?;
    let style = Style { theme, scale: dpr, ..Style::default() };
    plot::draw_panel(&backend.into_drawing_area(), panel, curves, &style)
        .map_err(|e| format!("drawing the {panel:?} panel failed: {e:?}"))
}
