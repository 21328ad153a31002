//! What the panels draw: jumps as gaps with a filled and an open dot, the pass-band shaded and
//! labelled, the true derivative faint and dashed, hidden curves skipped, the x window and the
//! crosshair, the percentile band of random curves, and a bounded amount of work.

use super::super::*;
use super::{CURVE_W, Dot, Log, curve, is_color, record, record_sized};
use qscope_quant::{Ctx, parse};

fn forward(curves: &[Curve], view: &Viewport) -> Log {
    record(|area| {
        draw_panel_with(area, Panel::Forward, curves, view, &Style::default()).unwrap();
    })
}

fn backward(curves: &[Curve], view: &Viewport) -> Log {
    record(|area| {
        draw_panel_with(area, Panel::Backward, curves, view, &Style::default()).unwrap();
    })
}

#[test]
fn a_jump_is_a_gap_between_a_filled_and_an_open_dot() {
    let c = curve("qkeras.quantized_bits(4,0,1)");
    let rec = forward(std::slice::from_ref(&c), &Viewport::default());
    let blue = OKABE_ITO[0];
    let (filled, open) = (rec.dots_in(blue, true), rec.dots_in(blue, false));
    assert_eq!((filled.len(), open.len()), (14, 14), "one of each per jump");
    // Both dots of a jump are on one vertical, each on the end of a flat line.
    let ends: Vec<(i32, i32)> = rec
        .paths_in(blue)
        .into_iter()
        .filter(|p| p.width == CURVE_W && p.length() > 8.0)
        .flat_map(|p| [p.points[0], *p.points.last().unwrap()])
        .collect();
    for d in filled.iter().chain(&open) {
        assert!(ends.contains(&d.center), "dot {:?} is not at the end of a line", d.center);
    }
    let mut pairs: Vec<(i32, i32, i32)> = filled
        .iter()
        .map(|f| {
            let o = open.iter().find(|o| o.center.0 == f.center.0).expect("an open dot above or below");
            (f.center.0, f.center.1, o.center.1)
        })
        .collect();
    pairs.sort();
    // The staircase rises: the filled dot is the upper one exactly where the right side owns
    // the jump (device y grows downwards).
    for (j, (_, filled_y, open_y)) in c.jumps.iter().zip(&pairs) {
        assert_eq!(filled_y < open_y, j.owner == Side::Right, "jump at {}", j.x);
    }
    assert!(rec.has_text("filled: q(x) at a jump"));
}

#[test]
fn crowded_jumps_get_no_dots() {
    // 63 levels over the panel: the steps are still drawn apart, the dots would overlap.
    let c = curve("qkeras.quantized_bits(7,0,1)");
    let rec = forward(std::slice::from_ref(&c), &Viewport::default());
    assert!(rec.dots_in(OKABE_ITO[0], true).is_empty());
    assert!(!rec.has_text("filled: q(x) at a jump"));
}

#[test]
fn the_backward_panel_shades_and_labels_the_pass_band_and_dashes_the_true_derivative() {
    let c = curve("larq.ste_sign");
    let rec = backward(std::slice::from_ref(&c), &Viewport::default());
    let blue = OKABE_ITO[0];
    // Shaded (translucent, never opaque) under the gradient, and named twice: in the band
    // and in the legend.
    let shaded = rec.polygons.iter().filter(|(col, _)| col.rgb == (blue.0, blue.1, blue.2) && col.alpha < 0.5).count();
    assert_eq!(shaded, 1, "one band: |x| ≤ 1");
    assert_eq!(rec.text().iter().filter(|t| **t == "STE pass-band").count(), 2);
    // The true derivative (0 here) is many short faint dashes.
    let dashes: Vec<f64> = rec
        .paths
        .iter()
        .filter(|p| p.color.rgb == (blue.0, blue.1, blue.2) && p.color.alpha < 1.0 && p.color.alpha > 0.3)
        .map(|p| p.length())
        .collect();
    assert!(dashes.len() > 50, "{} dashes", dashes.len());
    assert!(dashes.iter().all(|&l| l <= 4.0), "{dashes:?}");
    assert!(rec.has_text("true derivative"));
    // The estimator itself: solid, 0 then 1 then 0 (longer than the legend's sample).
    assert_eq!(rec.paths_in(blue).iter().filter(|p| p.width == CURVE_W && p.length() > 30.0).count(), 3);
}

#[test]
fn compared_curves_differ_by_colour_and_dash_and_hidden_ones_keep_their_slot() {
    let mut curves = vec![curve("larq.ste_sign"), curve("larq.ApproxSign"), curve("qkeras.binary_tanh")];
    let rec = forward(&curves, &Viewport::default());
    let long = |rec: &Log, i: usize| {
        rec.paths_in(OKABE_ITO[i]).iter().filter(|p| p.width == CURVE_W && p.length() > 8.0).count()
    };
    // The second curve is dashed: many pieces, where the first is two lines and a legend sample.
    assert_eq!(long(&rec, 0), 2 + 1);
    assert!(long(&rec, 1) > 20);
    curves[1].hidden = true;
    let rec = forward(&curves, &Viewport::default());
    assert_eq!(long(&rec, 1), 0);
    assert!(!rec.has_text(&curves[1].label));
    assert!(long(&rec, 2) > 2, "the third curve keeps its colour");
    assert!(rec.has_text(&curves[2].label));
}

#[test]
fn the_x_window_is_the_callers_and_nothing_leaves_the_plot() {
    let c = curve("qkeras.quantized_bits(4,0,1)");
    let view = Viewport { x: Some((0.0, 0.5)), ..Viewport::default() };
    let rec = forward(std::slice::from_ref(&c), &view);
    for t in ["0", "0.1", "0.5"] {
        assert!(rec.has_text(t), "no tick {t} in {:?}", rec.text());
    }
    assert!(!rec.has_text("−1"), "{:?}", rec.text());
    // Every curve point stays between the plot's left and right edges (the y axis and the
    // last tick's pixel).
    let lines: Vec<_> =
        rec.paths_in(OKABE_ITO[0]).into_iter().filter(|p| p.width == CURVE_W && p.points.len() > 1).collect();
    let dots = rec.dots_in(OKABE_ITO[0], true);
    let left = dots.iter().map(|d| d.center.0).min().unwrap();
    // 4 jumps in view (0.0625, 0.1875, 0.3125, 0.4375).
    assert_eq!(dots.len(), 4);
    assert!(lines.iter().flat_map(|p| &p.points).all(|p| p.0 >= left - 200 && p.0 <= 800 - 18));
}

#[test]
fn a_crosshair_marks_every_curve_and_reads_exact_values() {
    let curves = [curve("qkeras.quantized_bits(4,0,1)"), curve("larq.ste_sign")];
    let view = Viewport { crosshair: Some(Crosshair { x: 0.1875 }), ..Viewport::default() };
    let rec = forward(&curves, &view);
    assert!(rec.has_text("x = 0.1875"));
    // One open marker per curve on the line (beside the jump dots).
    let vertical = rec.paths.iter().find(|p| p.points[0].0 == p.points[1].0 && p.color.alpha == 0.55);
    let x = vertical.expect("a vertical line").points[0].0;
    for (i, colour) in OKABE_ITO.iter().take(2).enumerate() {
        assert!(rec.dots_in(*colour, false).iter().any(|d| d.center.0 == x), "no marker for curve {i}");
    }
    let r = read_at(&curves, 0.1875);
    assert_eq!((r[0].y, r[0].dydx, r[1].y, r[1].dydx), (0.25, 1.0, 1.0, 1.0));
}

#[test]
fn a_crosshair_on_a_jump_leaves_its_filled_dot_on_top() {
    // ste_sign jumps at 0 and takes +1 there: the filled dot at (0, 1) is what a class looks for.
    let c = curve("larq.ste_sign");
    let view = Viewport { crosshair: Some(Crosshair { x: 0.0 }), ..Viewport::default() };
    let rec = forward(std::slice::from_ref(&c), &view);
    let blue = OKABE_ITO[0];
    let filled = rec.dots_in(blue, true);
    let top = filled.iter().map(|d| d.center.1).min().expect("the jump's filled dot");
    let at_jump = |d: &&Dot| d.center.1 == top && is_color(d.color, blue);
    let last = rec.dots.iter().rposition(|d| at_jump(&d)).unwrap();
    assert!(rec.dots[last].filled, "the last mark drawn at the jump is the filled dot");
    assert!(rec.dots[..last].iter().any(|d| at_jump(&d) && !d.filled), "the crosshair's ring is under it");
}

#[test]
fn a_crosshair_on_its_own_layer_is_what_the_panel_draws_for_it() {
    let curves = [curve("qkeras.quantized_bits(4,0,1)"), curve("larq.ste_sign")];
    for panel in [Panel::Forward, Panel::Backward] {
        let view = Viewport { crosshair: Some(Crosshair { x: 0.1875 }), ..Viewport::default() };
        let mut frame = None;
        let with =
            record(|area| frame = Some(draw_panel_with(area, panel, &curves, &view, &Style::default()).unwrap()));
        let plain = record(|area| {
            draw_panel_with(area, panel, &curves, &Viewport::default(), &Style::default()).unwrap();
        });
        let frame = frame.unwrap();
        let layer = record(|area| draw_crosshair(area, panel, &curves, &frame, 0.1875, &Style::default()).unwrap());
        // The panel with a crosshair is the panel without one, then the layer's marks.
        let paths = |log: &Log| {
            log.paths.iter().map(|p| (p.color.alpha, p.color.rgb, p.width, p.points.clone())).collect::<Vec<_>>()
        };
        let dots =
            |log: &Log| log.dots.iter().map(|d| (d.center, d.color.alpha, d.color.rgb, d.filled)).collect::<Vec<_>>();
        assert_eq!(paths(&with), [paths(&plain), paths(&layer)].concat());
        assert_eq!(dots(&with), [dots(&plain), dots(&layer)].concat());
        assert_eq!(with.texts, [plain.texts.clone(), layer.texts.clone()].concat());
        assert!(layer.has_text("x = 0.1875") && layer.dots.iter().filter(|d| !d.filled).count() == 2);
    }
}

#[test]
fn the_identity_line_is_optional() {
    let c = curve("qkeras.quantized_bits(2,0,1)");
    assert!(!forward(std::slice::from_ref(&c), &Viewport::default()).has_text("y = x"));
    let rec = forward(std::slice::from_ref(&c), &Viewport { identity: true, ..Viewport::default() });
    assert!(rec.has_text("y = x"));
    let grey = Theme::LIGHT.muted;
    assert!(rec.paths.iter().filter(|p| p.color.rgb == (grey.0, grey.1, grey.2) && p.color.alpha < 1.0).count() > 20);
}

#[test]
fn a_stochastic_curve_is_a_mean_inside_a_translucent_band() {
    let q = parse("qkeras.stochastic_round").unwrap();
    let (c, _) = Curve::evaluate(&q, -2.0, 2.0, SAMPLES, &mut Ctx::training(0));
    let rec = forward(std::slice::from_ref(&c), &Viewport::default());
    assert!(rec.has_text(&format!("10–90 % of {DRAWS} draws")), "{:?}", rec.text());
    assert!(rec.has_text(&format!("{} (mean of {DRAWS} draws)", c.label)));
    let blue = OKABE_ITO[0];
    assert!(rec.polygons.iter().any(|(col, _)| col.rgb == (blue.0, blue.1, blue.2) && col.alpha < 0.5));
    // The mean is one line through the noise, not a scatter of points.
    assert_eq!(rec.paths_in(blue).iter().filter(|p| p.width == CURVE_W && p.length() > 100.0).count(), 1);
    assert!(c.jumps.is_empty());
}

#[test]
fn four_curves_of_2000_points_reach_the_backend_in_bounded_work() {
    // Not a timing: a check that every sample reaches the backend a bounded number of times
    // (flat runs collapse, dashes do not multiply points), at 2× on a 1600 × 1200 device.
    let curves: Vec<Curve> =
        ["qkeras.quantized_bits(4,0,1)", "larq.ApproxSign", "soft_round(alpha=8)", "qkeras.hard_tanh"]
            .iter()
            .map(|s| curve(s))
            .collect();
    assert!(curves.iter().all(|c| c.x.len() == SAMPLES));
    let style = Style { scale: 2.0, ..Style::default() };
    let rec = record_sized((1600, 1200), |area| draw_figure(area, &curves, &style).unwrap());
    let calls = rec.paths.len() + rec.dots.len() + rec.polygons.len() + rec.texts.len();
    assert!(rec.points() < 2 * 4 * SAMPLES, "{} points", rec.points());
    assert!(calls < 2000, "{calls} draw calls");
}

#[test]
fn the_old_entry_points_draw_the_sampled_range() {
    let c = curve("qkeras.quantized_bits(4,0,1)");
    let old = record(|area| draw_panel(area, Panel::Forward, std::slice::from_ref(&c), &Style::default()).unwrap());
    let new = forward(std::slice::from_ref(&c), &Viewport { x: Some((-2.0, 2.0)), ..Viewport::default() });
    assert_eq!(old.text(), new.text());
    assert_eq!(old.paths.len(), new.paths.len());
    assert!(is_color(old.paths_in(OKABE_ITO[0])[0].color, OKABE_ITO[0]));
}
