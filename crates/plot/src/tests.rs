//! Native tests of the drawing code: the pure sampling/segmenting logic, and whole panels
//! drawn on a backend that records what it is asked to draw. Submodules: exact jumps
//! (`jumps`), drawing (`draw`), crosshair readouts and stochastic curves (`readout`), pixel
//! geometry (`geometry`).

mod draw;
mod geometry;
mod jumps;
mod readout;

use std::cell::RefCell;
use std::convert::Infallible;
use std::rc::Rc;

use plotters::prelude::*;
pub(super) use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};

use super::*;
use qscope_quant::{Ctx, parse};

pub(super) fn curve(spec: &str) -> Curve {
    let q = parse(spec).expect("spec parses");
    Curve::evaluate(&q, -2.0, 2.0, SAMPLES, &mut Ctx::training(0)).0
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
    assert_eq!(describe_levels(&qscope_quant::Levels::codes(-7, 7, 0.125)), "15 levels, −0.875 … 0.875");
    assert_eq!(describe_levels(&qscope_quant::Levels::Continuous), "continuous (no levels)");
}

#[test]
fn decibels_have_one_decimal() {
    let shown = [23.449, -3.06, 0.04, 120.0, f64::INFINITY, f64::NEG_INFINITY].map(fmt_db);
    assert_eq!(shown, ["23.4", "−3.1", "0", "120", "∞", "−∞"]);
}

/// A path the recorder saw: colour, stroke width, points.
#[derive(Clone)]
pub(super) struct Path {
    pub color: BackendColor,
    pub width: u32,
    pub points: Vec<BackendCoord>,
}

impl Path {
    /// The length of the polyline in pixels.
    pub fn length(&self) -> f64 {
        self.points.windows(2).map(|w| ((w[1].0 - w[0].0) as f64).hypot((w[1].1 - w[0].1) as f64)).sum()
    }
}

/// A circle the recorder saw.
#[derive(Clone)]
pub(super) struct Dot {
    pub center: BackendCoord,
    pub color: BackendColor,
    pub filled: bool,
}

/// What a [`Recorder`] was asked to draw.
#[derive(Default)]
pub(super) struct Log {
    pub paths: Vec<Path>,
    pub dots: Vec<Dot>,
    pub polygons: Vec<(BackendColor, Vec<BackendCoord>)>,
    pub texts: Vec<(String, BackendCoord)>,
    pub presented: bool,
}

impl Log {
    /// Every text drawn.
    pub fn text(&self) -> Vec<&str> {
        self.texts.iter().map(|(t, _)| t.as_str()).collect()
    }

    pub fn has_text(&self, t: &str) -> bool {
        self.texts.iter().any(|(s, _)| s == t)
    }

    /// Paths in opaque `rgb`.
    pub fn paths_in(&self, rgb: RGBColor) -> Vec<&Path> {
        self.paths.iter().filter(|p| is_color(p.color, rgb)).collect()
    }

    /// Dots in opaque `rgb`, filled or open.
    pub fn dots_in(&self, rgb: RGBColor, filled: bool) -> Vec<&Dot> {
        self.dots.iter().filter(|d| is_color(d.color, rgb) && d.filled == filled).collect()
    }

    /// How many points reached the backend in all.
    pub fn points(&self) -> usize {
        self.paths.iter().map(|p| p.points.len()).sum::<usize>()
            + self.polygons.iter().map(|p| p.1.len()).sum::<usize>()
    }
}

/// A backend that records paths, circles, polygons and texts instead of drawing them.
pub(super) struct Recorder(Rc<RefCell<Log>>, (u32, u32));

/// Draws with `f` on a fresh 800 × 400 recorder and returns what it recorded.
pub(super) fn record(f: impl FnOnce(&DrawingArea<Recorder, plotters::coord::Shift>)) -> Log {
    record_sized((800, 400), f)
}

/// Draws with `f` on a fresh recorder of `size` and returns what it recorded.
pub(super) fn record_sized(size: (u32, u32), f: impl FnOnce(&DrawingArea<Recorder, plotters::coord::Shift>)) -> Log {
    let log = Rc::new(RefCell::new(Log::default()));
    f(&Recorder(log.clone(), size).into_drawing_area());
    Rc::try_unwrap(log).ok().expect("the area is dropped").into_inner()
}

type Res = Result<(), DrawingErrorKind<Infallible>>;

impl super::Dashes for Recorder {}

impl DrawingBackend for Recorder {
    type ErrorType = Infallible;
    fn get_size(&self) -> (u32, u32) {
        self.1
    }
    fn ensure_prepared(&mut self) -> Res {
        Ok(())
    }
    fn present(&mut self) -> Res {
        self.0.borrow_mut().presented = true;
        Ok(())
    }
    fn draw_pixel(&mut self, _: BackendCoord, _: BackendColor) -> Res {
        Ok(())
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Res {
        let p = Path { color: style.color(), width: style.stroke_width(), points: path.into_iter().collect() };
        self.0.borrow_mut().paths.push(p);
        Ok(())
    }
    fn draw_circle<S: BackendStyle>(&mut self, center: BackendCoord, _: u32, style: &S, filled: bool) -> Res {
        self.0.borrow_mut().dots.push(Dot { center, color: style.color(), filled });
        Ok(())
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Res {
        self.0.borrow_mut().polygons.push((style.color(), path.into_iter().collect()));
        Ok(())
    }
    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, _: &T, pos: BackendCoord) -> Res {
        self.0.borrow_mut().texts.push((text.to_string(), pos));
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

pub(super) fn is_color(c: BackendColor, rgb: RGBColor) -> bool {
    c.rgb == (rgb.0, rgb.1, rgb.2) && c.alpha == 1.0
}

/// The stroke width of curve lines on a 1× device.
pub(super) const CURVE_W: u32 = 2;

#[test]
fn tick_labels_near_zero_read_zero() {
    let c = curve("qkeras.quantized_bits(2,0,1)");
    let rec = record(|area| draw_panel(area, Panel::Forward, std::slice::from_ref(&c), &Style::default()).unwrap());
    let numbers: Vec<&str> =
        rec.text().into_iter().filter(|t| t.starts_with(|c: char| c.is_ascii_digit() || c == '−')).collect();
    assert!(numbers.contains(&"0"), "{numbers:?}");
    assert!(!numbers.iter().any(|t| t.contains('e')), "{numbers:?}");
}

#[test]
fn a_forward_panel_draws_flat_steps_with_axes_and_labels() {
    let c = curve("qkeras.quantized_bits(4,0,1)");
    let rec = record(|area| draw_panel(area, Panel::Forward, std::slice::from_ref(&c), &Style::default()).unwrap());
    assert!(rec.presented);
    for t in ["Forward  y = q(x)", "x", "y", "−1", "0", "1", "qkeras.quantized_bits(bits=4, symmetric=True)"] {
        assert!(rec.has_text(t), "no text {t:?} in {:?}", rec.text());
    }
    let blue = OKABE_ITO[0];
    let (ticks, lines): (Vec<&Path>, Vec<&Path>) = rec.paths_in(blue).into_iter().partition(|p| p.length() <= 8.0);
    // One flat polyline per level, and the legend's sample line.
    assert_eq!(lines.len(), 15 + 1, "one polyline per level");
    for p in &lines {
        assert!(p.points.windows(2).all(|w| w[0].1 == w[1].1), "a sloped segment {:?} joins two levels", p.points);
    }
    // The 15 level ticks on the y axis: short, horizontal, one above the other, outside the
    // plot (left of the axis line at the plot's left edge), so none reads as a piece of curve.
    assert_eq!(ticks.len(), 15);
    assert!(ticks.iter().all(|t| t.points.len() == 2 && t.points[0].1 == t.points[1].1));
    assert!(ticks.iter().all(|t| t.points[0].0 == ticks[0].points[0].0));
    let axis = PLOT_INSET.0 as i32;
    assert!(ticks.iter().flat_map(|t| &t.points).all(|p| p.0 <= axis), "{:?}", ticks[0].points);
    assert!(ticks.iter().flat_map(|t| &t.points).any(|p| p.0 == axis), "the ticks touch the axis");
}

#[test]
fn level_ticks_of_several_curves_stand_side_by_side_left_of_the_axis() {
    let curves = [curve("qkeras.quantized_bits(4,0,1)"), curve("larq.ste_sign")];
    let rec = record(|area| draw_panel(area, Panel::Forward, &curves, &Style::default()).unwrap());
    let axis = PLOT_INSET.0 as i32;
    let outside = |rgb: RGBColor| -> Vec<i32> {
        let left = rec.paths_in(rgb).into_iter().filter(|p| p.points.iter().all(|q| q.0 <= axis));
        left.flat_map(|p| p.points.iter().map(|q| q.0)).collect()
    };
    let (blue, orange) = (outside(OKABE_ITO[0]), outside(OKABE_ITO[1]));
    // 15 levels of quantized_bits nearest the axis, ste_sign's ±1 further out.
    assert_eq!((blue.len(), orange.len()), (2 * 15, 2 * 2));
    assert!(orange.iter().max() < blue.iter().min(), "{orange:?} {blue:?}");
}

/// The WCAG contrast ratio of two colours.
fn contrast(a: RGBColor, b: RGBColor) -> f64 {
    let lum = |c: RGBColor| {
        let ch = |v: u8| {
            let v = v as f64 / 255.0;
            if v <= 0.03928 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
        };
        0.2126 * ch(c.0) + 0.7152 * ch(c.1) + 0.0722 * ch(c.2)
    };
    let (x, y) = (lum(a), lum(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

#[test]
fn the_high_contrast_theme_keeps_the_okabe_ito_order_and_reads_from_afar() {
    let th = Theme::HIGH_CONTRAST;
    assert_eq!(th.palette, OKABE_ITO);
    assert!(contrast(th.text, th.background) >= 20.0);
    assert!(contrast(th.muted, th.background) >= 15.0, "labels");
    assert!(contrast(th.axis, th.background) > contrast(Theme::LIGHT.axis, Theme::LIGHT.background));
    assert!(contrast(th.grid, th.background) > contrast(Theme::LIGHT.grid, Theme::LIGHT.background));
}

#[test]
fn several_curves_take_okabe_ito_colours_and_get_a_legend() {
    let curves = [curve("qkeras.quantized_bits(2,0,1)"), curve("larq.ApproxSign")];
    let dark = Style { theme: Theme::DARK, ..Style::default() };
    let rec = record(|area| draw_figure(area, &curves, &dark).unwrap());
    for (i, c) in curves.iter().enumerate() {
        assert!(!rec.paths_in(Theme::DARK.curve(i)).is_empty(), "curve {i} not drawn in its colour");
        assert!(rec.has_text(&c.label), "no legend for {}", c.label);
    }
    assert!(rec.has_text("Backward  dy/dx"));
}
