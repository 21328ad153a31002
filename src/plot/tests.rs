//! Native tests of the drawing code: the pure sampling/segmenting logic, and a whole panel
//! drawn on a backend that records what it is asked to draw.

use std::cell::RefCell;
use std::convert::Infallible;
use std::rc::Rc;

use plotters::prelude::*;
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};

use super::*;
use crate::quant::{Ctx, parse};

fn curve(spec: &str) -> Curve {
    let q = parse(spec).expect("spec parses");
    Curve::evaluate(&q, -2.0, 2.0, SAMPLES, &mut Ctx::new(0)).0
}

fn panel_runs(c: &Curve, panel: Panel) -> Vec<std::ops::Range<usize>> {
    let (xl, xh) = x_range(std::slice::from_ref(c));
    let (yl, yh) = panel.y_range(std::slice::from_ref(c));
    runs(&c.x, panel.values(c), xh - xl, yh - yl)
}

#[test]
fn linspace_has_exact_ends_and_even_steps() {
    let x = linspace(-2.0, 2.0, SAMPLES);
    assert_eq!(x.len(), SAMPLES);
    assert_eq!((x[0], x[SAMPLES - 1]), (-2.0, 2.0));
    assert_eq!(x[1000], 0.0);
    assert!(x.windows(2).all(|w| (w[1] - w[0] - 0.002).abs() < 1e-6));
    assert!(linspace(0.0, 1.0, 0).is_empty());
    assert_eq!(linspace(3.0, 4.0, 1), vec![3.0]);
}

#[test]
fn a_staircase_is_cut_at_every_jump_and_nowhere_else() {
    let c = curve("qkeras.quantized_bits(4,0,1)");
    let parts = panel_runs(&c, Panel::Forward);
    // Every run is flat: no sloped segment joins two levels.
    for r in &parts {
        let y0 = c.y[r.start];
        assert!(c.y[r.clone()].iter().all(|&v| v == y0), "run {r:?} is not flat");
    }
    // One run per level, and the runs cover every sample in order.
    assert_eq!(parts.len(), 15);
    assert_eq!(parts[0].start, 0);
    assert_eq!(parts.last().unwrap().end, SAMPLES);
    assert!(parts.windows(2).all(|w| w[0].end == w[1].start));
}

#[test]
fn a_smooth_curve_is_one_run_even_where_steep() {
    let x = linspace(-2.0, 2.0, SAMPLES);
    for k in [1.0f32, 10.0, 40.0] {
        let y: Vec<f32> = x.iter().map(|&v| (k * v).tanh()).collect();
        assert_eq!(runs(&x, &y, 4.0, 2.2), vec![0..SAMPLES], "tanh({k}x)");
    }
    // A fine staircase (more levels than the panel can show) is drawn as a line too.
    let y: Vec<f32> = x.iter().map(|&v| (v * 128.0).round() / 128.0).collect();
    assert_eq!(runs(&x, &y, 4.0, 4.4).len(), 1);
}

#[test]
fn gradients_with_a_pass_band_are_cut_at_its_edges() {
    // Larq's ste_sign passes the gradient for |x| ≤ 1: 0, then 1, then 0.
    let c = curve("larq.ste_sign");
    let parts = panel_runs(&c, Panel::Backward);
    assert_eq!(parts.len(), 3, "{parts:?}");
    assert_eq!(c.dydx[parts[1].start], 1.0);
    assert_eq!(c.dydx[parts[0].start], 0.0);
}

#[test]
fn non_finite_samples_split_runs_and_are_not_drawn() {
    let x = linspace(0.0, 1.0, 7);
    let y = [0.0, 0.1, f32::NAN, 0.3, 0.4, f32::INFINITY, 0.6];
    assert_eq!(runs(&x, &y, 1.0, 1.0), vec![0..2, 3..5, 6..7]);
}

#[test]
fn adjacent_jumps_leave_a_single_point() {
    // Seven samples of a panel 1 wide: steps of 0.5 over 0.001 are jumps.
    let x = linspace(0.0, 0.006, 7);
    let y = [0.0, 0.0, 0.0, 0.5, 1.0, 1.0, 1.0];
    assert_eq!(runs(&x, &y, 1.0, 1.0), vec![0..3, 3..4, 4..7]);
}

#[test]
fn random_draws_are_points_not_vertical_strokes() {
    // A stochastic quantizer flips between levels from one sample to the next.
    let x = linspace(0.0, 0.008, 9);
    let y = [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0];
    assert_eq!(runs(&x, &y, 1.0, 1.0), vec![0..2, 2..3, 3..4, 4..6, 6..7, 7..9]);
    let c = curve("qkeras.stochastic_ternary()");
    for r in panel_runs(&c, Panel::Forward) {
        let y0 = c.y[r.start];
        assert!(c.y[r.clone()].iter().all(|&v| v == y0), "run {r:?} joins two levels");
    }
}

#[test]
fn ranges_pad_and_include() {
    assert_eq!(padded_range(Some((0.0, 1.0)), &[], 0.1), (-0.1, 1.1));
    assert_eq!(padded_range(Some((0.5, 0.5)), &[], 0.1), (0.0, 1.0));
    assert_eq!(padded_range(None, &[], 0.1), (-1.0, 1.0));
    let (lo, hi) = padded_range(Some((1.0, 1.0)), &[0.0, 1.0], 0.5);
    assert_eq!((lo, hi), (-0.5, 1.5));
    let c = curve("qkeras.quantized_bits(4,0,1)");
    let (lo, hi) = Panel::Forward.y_range(std::slice::from_ref(&c));
    assert!(lo < -0.875 && hi > 0.875 && lo > -1.1 && hi < 1.1, "{lo} {hi}");
}

#[test]
fn numbers_read_well() {
    assert_eq!(fmt_number(-0.875), "−0.875");
    assert_eq!(fmt_number(2.0), "2");
    assert_eq!(fmt_number(-0.0), "0");
    assert_eq!(fmt_number(0.1 + 0.2), "0.3");
    assert_eq!(fmt_number(1e-7), "1.00e−7");
    assert_eq!(describe_levels(&crate::quant::Levels::codes(-7, 7, 0.125)), "15 levels, −0.875 … 0.875");
    assert_eq!(describe_levels(&crate::quant::Levels::Continuous), "continuous (no levels)");
}

/// What a [`Recorder`] was asked to draw.
#[derive(Default)]
struct Log {
    paths: Vec<(BackendColor, Vec<BackendCoord>)>,
    texts: Vec<String>,
    presented: bool,
}

/// A backend that records paths and texts instead of drawing them.
#[derive(Default)]
struct Recorder(Rc<RefCell<Log>>);

/// Draws with `f` on a fresh recorder and returns what it recorded.
fn record(f: impl FnOnce(&DrawingArea<Recorder, plotters::coord::Shift>)) -> Log {
    let log = Rc::new(RefCell::new(Log::default()));
    f(&Recorder(log.clone()).into_drawing_area());
    Rc::try_unwrap(log).ok().expect("the area is dropped").into_inner()
}

impl DrawingBackend for Recorder {
    type ErrorType = Infallible;
    fn get_size(&self) -> (u32, u32) {
        (800, 400)
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Infallible>> {
        Ok(())
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<Infallible>> {
        self.0.borrow_mut().presented = true;
        Ok(())
    }
    fn draw_pixel(&mut self, _: BackendCoord, _: BackendColor) -> Result<(), DrawingErrorKind<Infallible>> {
        Ok(())
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Infallible>> {
        self.0.borrow_mut().paths.push((style.color(), path.into_iter().collect()));
        Ok(())
    }
    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        _: &T,
        _: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Infallible>> {
        self.0.borrow_mut().texts.push(text.to_string());
        Ok(())
    }
    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        _: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<Infallible>> {
        Ok((7 * text.chars().count() as u32, 12))
    }
}

fn is_color(c: BackendColor, rgb: RGBColor) -> bool {
    c.rgb == (rgb.0, rgb.1, rgb.2) && c.alpha == 1.0
}

#[test]
fn ticks_near_zero_read_zero() {
    let c = curve("qkeras.quantized_bits(2,0,1)");
    let rec = record(|area| draw_panel(area, Panel::Forward, std::slice::from_ref(&c), &Style::default()).unwrap());
    assert!(rec.texts.iter().any(|t| t == "0"), "{:?}", rec.texts);
    assert!(!rec.texts.iter().any(|t| t.contains('e')), "{:?}", rec.texts);
}

#[test]
fn a_forward_panel_draws_flat_steps_with_axes_and_labels() {
    let c = curve("qkeras.quantized_bits(4,0,1)");
    let rec = record(|area| draw_panel(area, Panel::Forward, std::slice::from_ref(&c), &Style::default()).unwrap());
    assert!(rec.presented);
    for t in ["Forward  y = q(x)", "x", "y", "−1", "0", "1"] {
        assert!(rec.texts.iter().any(|s| s == t), "no text {t:?} in {:?}", rec.texts);
    }
    let blue = OKABE_ITO[0];
    let lines: Vec<&Vec<BackendCoord>> =
        rec.paths.iter().filter(|(col, p)| is_color(*col, blue) && p.len() > 2).map(|(_, p)| p).collect();
    assert_eq!(lines.len(), 15, "one polyline per level");
    for p in &lines {
        for w in p.windows(2) {
            assert!((w[1].1 - w[0].1).abs() <= 1, "a sloped segment {:?} → {:?} joins two levels", w[0], w[1]);
        }
    }
    // The 15 level ticks on the y axis.
    let ticks = rec.paths.iter().filter(|(col, p)| is_color(*col, blue) && p.len() == 2 && p[0].1 == p[1].1).count();
    assert_eq!(ticks, 15);
}

#[test]
fn several_curves_take_okabe_ito_colours_and_get_a_legend() {
    let curves = [curve("qkeras.quantized_bits(2,0,1)"), curve("larq.ApproxSign")];
    let dark = Style { theme: Theme::DARK, ..Style::default() };
    let rec = record(|area| draw_figure(area, &curves, &dark).unwrap());
    for (i, c) in curves.iter().enumerate() {
        assert!(
            rec.paths.iter().any(|(col, p)| is_color(*col, Theme::DARK.curve(i)) && p.len() > 100),
            "curve {i} not drawn in its colour"
        );
        assert!(rec.texts.contains(&c.label), "no legend for {}", c.label);
    }
    assert!(rec.texts.iter().any(|t| t == "Backward  dy/dx"));
}
