//! Drawing the weights of the quantized net: a weight histogram per layer with the
//! quantizer's levels, the network diagram (edges coloured by sign, thickness by magnitude —
//! latent or quantized), and the flip ratio per layer over epochs, in the theme's
//! [`TrainColours`].

use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::draw::{Axes, context, set_dash};
use crate::figure::{TrainColours, css};
use qscope_explore::sample::{self, largest_magnitude};

/// A histogram of `values` in 32 bins over ±span (span covering the values and the levels),
/// the quantizer's `levels` as ticks under the axis.
pub fn histogram(canvas: &HtmlCanvasElement, values: &[f32], levels: Option<&[f32]>, colours: &TrainColours) {
    let (w, h) = (220u32, 96u32);
    let Some(ctx) = context(canvas, w, h) else { return };
    ctx.clear_rect(0.0, 0.0, w as f64, h as f64);
    let span = largest_magnitude(values).max(largest_magnitude(levels.unwrap_or(&[]))).max(1e-6) * 1.05;
    const BINS: usize = 32;
    let counts = sample::histogram(values, -span, span, BINS).counts;
    let most = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let (bw, base) = (w as f64 / BINS as f64, h as f64 - 20.0);
    let (positive, negative, label) = (css(colours.positive), css(colours.negative), css(colours.label));
    for (i, &c) in counts.iter().enumerate() {
        let centre = -span + (i as f32 + 0.5) * 2.0 * span / BINS as f32;
        ctx.set_fill_style_str(if centre >= 0.0 { &positive } else { &negative });
        let bh = (base - 4.0) * c as f64 / most;
        ctx.fill_rect(i as f64 * bw + 0.5, base - bh, bw - 1.0, bh);
    }
    let x = |v: f32| ((v + span) / (2.0 * span)) as f64 * w as f64;
    ctx.set_stroke_style_str(&label);
    ctx.begin_path();
    ctx.move_to(0.0, base + 0.5);
    ctx.line_to(w as f64, base + 0.5);
    ctx.stroke();
    for &l in levels.unwrap_or(&[]) {
        ctx.begin_path();
        ctx.move_to(x(l), base + 1.0);
        ctx.line_to(x(l), base + 6.0);
        ctx.stroke();
    }
    ctx.set_fill_style_str(&label);
    ctx.set_font("10px system-ui, sans-serif");
    let _ = ctx.fill_text(&format!("−{span:.2}"), 0.0, h as f64 - 2.0);
    let _ = ctx.fill_text(&format!("{span:.2}"), w as f64 - 28.0, h as f64 - 2.0);
}

/// The network as TensorFlow Playground draws it: a column of nodes per layer, an edge per
/// weight, blue positive / orange negative, thicker and darker with |w| (relative to the
/// largest in its layer). `layers` are `(n_in, n_out, weights n_in × n_out)`.
pub fn diagram(canvas: &HtmlCanvasElement, layers: &[(usize, usize, &[f32])], colours: &TrainColours) {
    let (w, h) = (360u32, 200u32);
    let Some(ctx) = context(canvas, w, h) else { return };
    ctx.clear_rect(0.0, 0.0, w as f64, h as f64);
    let Some(&(inputs, _, _)) = layers.first() else { return };
    let mut columns = vec![inputs];
    columns.extend(layers.iter().map(|l| l.1));
    let cx = |c: usize| 14.0 + (w as f64 - 28.0) * c as f64 / (columns.len() - 1).max(1) as f64;
    let cy = |c: usize, i: usize| {
        let n = columns[c];
        let gap = ((h as f64 - 16.0) / n as f64).min(22.0);
        h as f64 / 2.0 + (i as f64 - (n as f64 - 1.0) / 2.0) * gap
    };
    let signs = [css(colours.positive), css(colours.negative)];
    for (c, &(n_in, n_out, weights)) in layers.iter().enumerate() {
        let top = weights.iter().filter(|v| v.is_finite()).fold(0.0f32, |m, v| m.max(v.abs())).max(1e-9);
        for i in 0..n_in {
            for j in 0..n_out {
                let v = weights[i * n_out + j];
                let t = if v.is_finite() { (v.abs() / top) as f64 } else { 0.0 };
                let colour = if v >= 0.0 { &signs[0] } else { &signs[1] };
                edge(&ctx, (cx(c), cy(c, i)), (cx(c + 1), cy(c + 1, j)), colour, t);
            }
        }
    }
    ctx.set_global_alpha(1.0);
    ctx.set_fill_style_str(&css(colours.node));
    for (c, &n) in columns.iter().enumerate() {
        for i in 0..n {
            ctx.begin_path();
            let _ = ctx.arc(cx(c), cy(c, i), 3.5, 0.0, std::f64::consts::TAU);
            ctx.fill();
        }
    }
}

/// One weight's edge in its sign's `colour`, width and opacity by `t` = |w| / max |w| ∈ [0, 1].
fn edge(ctx: &CanvasRenderingContext2d, (x0, y0): (f64, f64), (x1, y1): (f64, f64), colour: &str, t: f64) {
    if t < 0.02 {
        return;
    }
    ctx.set_global_alpha(0.15 + 0.85 * t);
    ctx.set_line_width(0.4 + 2.6 * t);
    ctx.set_stroke_style_str(colour);
    ctx.begin_path();
    ctx.move_to(x0, y0);
    ctx.line_to(x1, y1);
    ctx.stroke();
}

/// The share of each layer's weights that changed level per step, per epoch (`history[e][l]`
/// for the epoch `epochs[e]`), one line per layer in `shown`, with its `names`.
pub fn flips(
    canvas: &HtmlCanvasElement,
    (history, epochs): (&[Vec<f32>], &[usize]),
    shown: &[usize],
    names: &[String],
    colours: &TrainColours,
) {
    let size = (360u32, 140u32);
    let Some(ctx) = context(canvas, size.0, size.1) else { return };
    let values = history.iter().flat_map(|row| shown.iter().filter_map(|&i| row.get(i).copied()));
    let top = values.filter(|v| v.is_finite()).fold(0.0f32, f32::max).max(1e-4) as f64;
    let last = epochs.last().copied().unwrap_or(0);
    let (top_label, last_label) = (format!("{:.1} %", top * 100.0), format!("epoch {last}"));
    let axes = Axes::draw(&ctx, size, 40.0, last, top, &top_label, &last_label, colours);
    set_dash(&ctx, &[]);
    ctx.set_line_width(1.4);
    for (k, (&layer, name)) in shown.iter().zip(names).enumerate() {
        let colour = css(colours.layers[k % colours.layers.len()]);
        ctx.set_stroke_style_str(&colour);
        axes.polyline(&ctx, history.len(), |i| {
            (epochs[i].saturating_sub(1), history[i].get(layer).copied().unwrap_or(0.0) as f64)
        });
        ctx.set_fill_style_str(&colour);
        let _ = ctx.fill_text(name, axes.x(0) + 6.0 + 54.0 * k as f64, 20.0);
    }
}
