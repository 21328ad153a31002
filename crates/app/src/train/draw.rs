//! Drawing the Train view's canvases by hand: the decision boundary (an ImageData heatmap in
//! a diverging blue/orange, with the points on top) and the loss/accuracy curves, in the
//! theme's [`TrainColours`]. The weights' drawings are in [`super::draw_weights`].

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::figure::{TrainColours, css};
use qscope_explore::runs::Mark;
use qscope_nn::{Metrics, Point};
/// The plane shown, in data units: the same as the handout's boundary figure.
pub use qscope_plot::boundary::{HI, LO};

/// Grid cells per axis of the heatmap.
pub const RES: usize = 100;

pub fn context(canvas: &HtmlCanvasElement, w: u32, h: u32) -> Option<CanvasRenderingContext2d> {
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    canvas.get_context("2d").ok().flatten()?.dyn_into().ok()
}

/// A score in [−1, 1] as an RGBA pixel: from the neutral colour at 0 three quarters of the
/// way to the negative end at −1 or to the positive end at +1.
fn shade(s: f32, colours: &TrainColours) -> [u8; 4] {
    let t = if s.is_finite() { s.clamp(-1.0, 1.0) } else { 0.0 };
    let end = if t >= 0.0 { colours.positive } else { colours.negative };
    let (end, base) = ([end.0, end.1, end.2], colours.neutral);
    let base = [base.0, base.1, base.2];
    let a = t.abs() * 0.75;
    let c = |i: usize| (base[i] as f32 + (end[i] as f32 - base[i] as f32) * a) as u8;
    [c(0), c(1), c(2), 255]
}

/// Writes RGBA `pixels` (`w × h`) into the context through `ImageData` (looked up on the
/// global object, so no extra web-sys feature is needed).
fn put_pixels(ctx: &CanvasRenderingContext2d, pixels: &[u8], w: u32, h: u32) -> Option<()> {
    let global = js_sys::global();
    let ctor: js_sys::Function = js_sys::Reflect::get(&global, &"ImageData".into()).ok()?.dyn_into().ok()?;
    let data = js_sys::Uint8ClampedArray::from(pixels);
    let args = js_sys::Array::of3(&data, &JsValue::from(w), &JsValue::from(h));
    let image = js_sys::Reflect::construct(&ctor, &args).ok()?;
    let put: js_sys::Function = js_sys::Reflect::get(ctx, &"putImageData".into()).ok()?.dyn_into().ok()?;
    put.call3(ctx, &image, &JsValue::from(0), &JsValue::from(0)).ok()?;
    Some(())
}

/// Canvas pixels per side of a boundary (3 × 3 pixels a grid cell).
pub const SIZE: u32 = (RES * 3) as u32;

/// The heatmap of `scores` (`RES²`, rows of rising x2).
pub fn heatmap(canvas: &HtmlCanvasElement, scores: &[f32], colours: &TrainColours) {
    let Some(ctx) = context(canvas, SIZE, SIZE) else { return };
    if scores.len() != RES * RES {
        return;
    }
    let size = SIZE as usize;
    let mut px = vec![0u8; size * size * 4];
    for (y, row) in px.chunks_exact_mut(size * 4).enumerate() {
        let j = RES - 1 - y / 3;
        for (i, cell) in row.chunks_exact_mut(12).enumerate() {
            let rgba = shade(scores[j * RES + i], colours);
            for p in cell.chunks_exact_mut(4) {
                p.copy_from_slice(&rgba);
            }
        }
    }
    put_pixels(&ctx, &px, SIZE, SIZE);
}

/// The data over a heatmap, on its own transparent canvas (drawn once per dataset): train
/// points filled (in a ring), test points ringed in their class' colour.
pub fn points(canvas: &HtmlCanvasElement, train: &[Point], test: &[Point], colours: &TrainColours) {
    let Some(ctx) = context(canvas, SIZE, SIZE) else { return };
    ctx.clear_rect(0.0, 0.0, SIZE as f64, SIZE as f64);
    let to_px = |v: f32| ((v - LO) / (HI - LO) * SIZE as f32) as f64;
    let ([positive, negative], ring) = (colours.classes.map(css), css(colours.ring));
    for (points, filled) in [(train, true), (test, false)] {
        for p in points {
            let (x, y) = (to_px(p.x1), SIZE as f64 - to_px(p.x2));
            let colour = if p.label > 0.0 { &positive } else { &negative };
            ctx.begin_path();
            let _ = ctx.arc(x, y, 3.5, 0.0, std::f64::consts::TAU);
            if filled {
                ctx.set_fill_style_str(colour);
                ctx.fill();
                ctx.set_stroke_style_str(&ring);
            } else {
                ctx.set_stroke_style_str(colour);
                ctx.set_line_width(1.8);
            }
            ctx.stroke();
            ctx.set_line_width(1.0);
        }
    }
}

/// A line chart's frame over epochs: the plot area, its scales and labels. Shared by the
/// loss/accuracy curves and the flip-ratio chart.
pub struct Axes {
    left: f64,
    w: f64,
    h: f64,
    /// Points along x (at least 2) and the value at the top of the y axis.
    n: usize,
    top: f64,
}

impl Axes {
    const RIGHT: f64 = 8.0;
    const TOP: f64 = 8.0;
    const BOTTOM: f64 = 18.0;

    /// Clears `w × h`, draws the frame with `top_label` at the top of the y axis, `0` at its
    /// foot and `last_label` under the x axis' end; leaves the label colour as the fill and
    /// the frame colour as the stroke (the swap markers take them).
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        ctx: &CanvasRenderingContext2d,
        (w, h): (u32, u32),
        left: f64,
        n: usize,
        top: f64,
        top_label: &str,
        last_label: &str,
        colours: &TrainColours,
    ) -> Axes {
        let a = Axes { left, w: w as f64, h: h as f64, n: n.max(2), top };
        ctx.clear_rect(0.0, 0.0, a.w, a.h);
        ctx.set_fill_style_str(&css(colours.label));
        ctx.set_font("11px system-ui, sans-serif");
        let _ = ctx.fill_text(top_label, 2.0, Self::TOP + 8.0);
        let _ = ctx.fill_text("0", 2.0, a.h - Self::BOTTOM);
        let _ = ctx.fill_text(last_label, a.w - 70.0, a.h - 4.0);
        ctx.set_stroke_style_str(&css(colours.frame));
        ctx.stroke_rect(left, Self::TOP, a.w - left - Self::RIGHT, a.h - Self::TOP - Self::BOTTOM);
        a
    }

    pub fn x(&self, i: usize) -> f64 {
        self.left + (self.w - self.left - Self::RIGHT) * i as f64 / (self.n - 1) as f64
    }

    pub fn y(&self, v: f64) -> f64 {
        Self::TOP + (self.h - Self::TOP - Self::BOTTOM) * (1.0 - (v / self.top).clamp(0.0, 1.0))
    }

    /// A vertical line at point `i`, labelled `label` (if given).
    fn marker(&self, ctx: &CanvasRenderingContext2d, i: usize, label: Option<&str>) {
        let x = self.x(i.min(self.n - 1));
        ctx.begin_path();
        ctx.move_to(x, Self::TOP);
        ctx.line_to(x, self.h - Self::BOTTOM);
        ctx.stroke();
        if let Some(label) = label {
            let _ = ctx.fill_text(label, (x + 3.0).min(self.w - 150.0).max(self.left + 2.0), Self::TOP + 20.0);
        }
    }

    /// The line through the points `at(0..len)` (each a point along x and a value) in the
    /// current stroke style, at most one point per pixel column (and the last).
    pub fn polyline(&self, ctx: &CanvasRenderingContext2d, len: usize, at: impl Fn(usize) -> (usize, f64)) {
        let stride = len.div_ceil((self.w - self.left - Self::RIGHT) as usize).max(1);
        let last = len.saturating_sub(1);
        ctx.begin_path();
        for (k, i) in (0..len).filter(|i| i % stride == 0 || *i == last).enumerate() {
            let (x, v) = at(i);
            let (x, y) = (self.x(x), self.y(v));
            if k == 0 { ctx.move_to(x, y) } else { ctx.line_to(x, y) }
        }
        ctx.stroke();
    }
}

/// Curves of a metric over epochs: for each run (its history and colour) train solid, test
/// dashed; `marks` as vertical lines in the frame's colour, the last one labelled; thicker in
/// `presenter` mode.
pub fn curves(
    canvas: &HtmlCanvasElement,
    runs: &[(&[Metrics], &str)],
    marks: &[Mark],
    metric: impl Fn(&Metrics, bool) -> f64,
    colours: &TrainColours,
    presenter: bool,
) {
    let size = (360u32, 160u32);
    let Some(ctx) = context(canvas, size.0, size.1) else { return };
    let values = runs.iter().flat_map(|(m, _)| m.iter().flat_map(|r| [metric(r, false), metric(r, true)]));
    let top = values.filter(|v| v.is_finite()).fold(0.0f64, f64::max).max(1e-9);
    // Points along x are epochs (a long run's history is thinned: each entry names its epoch).
    let n = runs.iter().filter_map(|(m, _)| m.last().map(|l| l.epoch)).max().unwrap_or(0).max(2);
    let axes = Axes::draw(&ctx, size, 36.0, n, top, &format!("{top:.2}"), &format!("epoch {}", n - 1), colours);
    set_dash(&ctx, &[2.0, 2.0]);
    for (k, m) in marks.iter().enumerate() {
        // Epoch e's metrics sit at index e − 1 (the history starts after epoch 1).
        let label = (k + 1 == marks.len()).then_some(m.label.as_str());
        axes.marker(&ctx, m.epoch.saturating_sub(1), label);
    }
    // Projected (presenter mode), the curves must stay over 3 px wide at any canvas scale.
    ctx.set_line_width(if presenter { 3.4 } else { 1.6 });
    for (history, colour) in runs {
        for test in [false, true] {
            set_dash(&ctx, if test { &[4.0, 3.0] } else { &[] });
            ctx.set_stroke_style_str(colour);
            axes.polyline(&ctx, history.len(), |i| (history[i].epoch.saturating_sub(1), metric(&history[i], test)));
        }
    }
    set_dash(&ctx, &[]);
}

/// Sets the context's line dash (empty: solid).
pub fn set_dash(ctx: &CanvasRenderingContext2d, dash: &[f64]) {
    let a = js_sys::Array::new();
    for &d in dash {
        a.push(&JsValue::from(d));
    }
    let _ = ctx.set_line_dash(&a);
}
