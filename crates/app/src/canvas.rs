//! The plotters backend every canvas of the explorer draws through: the canvas calls
//! plotters-canvas makes, each drawing state (colours, line width, font, text alignment) set
//! only when it changes, and text measured on the canvas. plotters-canvas sets every state
//! before every path, dash and label — a formatted colour and up to six calls into the browser
//! each, the larger part of a panel's cost with dashed curves cut into hundreds of dashes;
//! the same calls minus the repeated states draw the same pixels. plotters measures a label in
//! the browser by appending a `<span>` to the page and reading its `offsetWidth` — a forced
//! layout of the whole page per label, which cost a slider drag most of its frame. Here a
//! label's width comes from the canvas' `measureText` (white space collapsed, as in the span)
//! and its height from one such span per font (the line box, as before), both remembered for
//! the page's life: a label laid out once is never measured again.

use std::cell::RefCell;
use std::collections::HashMap;

use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind, FontTransform,
};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// A canvas backend setting each state once and measuring text on its canvas.
pub struct Canvas {
    context: CanvasRenderingContext2d,
    /// The canvas' backing size (it does not change while the canvas is drawn on).
    size: (u32, u32),
    /// The states this backend last set on the context (`None`: not set by it yet); a
    /// `RefCell` as measuring text (`&self`) sets the font.
    state: RefCell<Set>,
}

/// Drawing states as set on the context: a colour as `(rgb, alpha)`.
#[derive(Default)]
struct Set {
    stroke: Option<((u8, u8, u8), f64)>,
    fill: Option<((u8, u8, u8), f64)>,
    line_width: Option<u32>,
    font: Option<String>,
    align: Option<&'static str>,
    baseline: Option<&'static str>,
}

/// What failed in the browser (a thrown value, as JSON).
#[derive(Debug)]
pub struct CanvasError(String);

impl std::fmt::Display for CanvasError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "Canvas Error: {}", self.0)
    }
}

impl std::error::Error for CanvasError {}

type Error = DrawingErrorKind<CanvasError>;

fn error(e: JsValue) -> Error {
    let text = js_sys::JSON::stringify(&e).map(String::from).unwrap_or_else(|_| "Unknown".to_string());
    DrawingErrorKind::DrawingError(CanvasError(text))
}

/// A colour as plotters-canvas writes it.
fn css(c: ((u8, u8, u8), f64)) -> String {
    let ((r, g, b), a) = c;
    format!("rgba({r},{g},{b},{a})")
}

/// A horizontal or vertical line moved half a pixel up or left, as plotters-canvas draws it.
fn fine_hor_ver_lines(from: BackendCoord, to: BackendCoord) -> ((f64, f64), (f64, f64)) {
    let (mut from, mut to) = ((from.0 as f64, from.1 as f64), (to.0 as f64, to.1 as f64));
    if from.0 == to.0 {
        from.0 -= 0.5;
        to.0 -= 0.5;
    }
    if from.1 == to.1 {
        from.1 -= 0.5;
        to.1 -= 0.5;
    }
    (from, to)
}

thread_local! {
    /// `(font, text)` → `(width, height)` in pixels; `(font, "")` holds the font's height.
    static MEASURED: RefCell<HashMap<(String, String), (u32, u32)>> = RefCell::new(HashMap::new());
}

impl Canvas {
    /// Draws on `canvas`; `None` when it has no 2D context.
    pub fn new(canvas: &HtmlCanvasElement) -> Option<Canvas> {
        let context = canvas.get_context("2d").ok().flatten()?.dyn_into().ok()?;
        let size = (canvas.width(), canvas.height());
        Some(Canvas { context, size, state: RefCell::new(Set::default()) })
    }

    fn stroke_style(&self, c: BackendColor, width: u32) {
        let colour = (c.rgb, c.alpha);
        let mut state = self.state.borrow_mut();
        if state.stroke != Some(colour) {
            self.context.set_stroke_style_str(&css(colour));
            state.stroke = Some(colour);
        }
        if state.line_width != Some(width) {
            self.context.set_line_width(width as f64);
            state.line_width = Some(width);
        }
    }

    fn fill_style(&self, c: BackendColor) {
        let colour = (c.rgb, c.alpha);
        let mut state = self.state.borrow_mut();
        if state.fill != Some(colour) {
            self.context.set_fill_style_str(&css(colour));
            state.fill = Some(colour);
        }
    }

    fn font(&self, font: &str) {
        let mut state = self.state.borrow_mut();
        if state.font.as_deref() != Some(font) {
            self.context.set_font(font);
            state.font = Some(font.to_string());
        }
    }

    fn text_anchor(&self, align: &'static str, baseline: &'static str) {
        let mut state = self.state.borrow_mut();
        if state.align != Some(align) {
            self.context.set_text_align(align);
            state.align = Some(align);
        }
        if state.baseline != Some(baseline) {
            self.context.set_text_baseline(baseline);
            state.baseline = Some(baseline);
        }
    }

    /// Strokes the polyline `pts` (two points or more make a line).
    fn path(&mut self, pts: &[BackendCoord], c: BackendColor, width: u32) {
        let Some((start, rest)) = pts.split_first() else { return };
        self.context.begin_path();
        self.stroke_style(c, width);
        self.context.move_to(start.0 as f64, start.1 as f64);
        for q in rest {
            self.context.line_to(q.0 as f64, q.1 as f64);
        }
        self.context.stroke();
    }

    /// Fills the polygon `pts`: the same outline with fewer calls, as a point where it already
    /// is adds no edge and a point going on straight along a row or a column of pixels only
    /// moves the corner.
    fn polygon(&mut self, pts: &[BackendCoord], c: BackendColor) {
        let mut corners: Vec<BackendCoord> = Vec::with_capacity(pts.len());
        for &q in pts {
            match corners[..] {
                [.., b] if b == q => {}
                [.., a, b]
                    if (a.1 == b.1 && b.1 == q.1 && (a.0 < b.0) == (b.0 < q.0))
                        || (a.0 == b.0 && b.0 == q.0 && (a.1 < b.1) == (b.1 < q.1)) =>
                {
                    *corners.last_mut().expect("two corners") = q;
                }
                _ => corners.push(q),
            }
        }
        let Some((start, rest)) = corners.split_first() else { return };
        self.context.begin_path();
        self.fill_style(c);
        self.context.move_to(start.0 as f64, start.1 as f64);
        for q in rest {
            self.context.line_to(q.0 as f64, q.1 as f64);
        }
        self.context.close_path();
        self.context.fill();
    }

    /// Draws `text` at `(x, y)` turned by `degrees`, its anchor `(align, baseline)`.
    fn text(
        &mut self,
        text: &str,
        c: BackendColor,
        font: &str,
        degrees: f64,
        anchor: (&'static str, &'static str),
        (x, y): BackendCoord,
    ) -> Result<(), Error> {
        let turned = degrees != 0.0;
        let at = if turned {
            self.context.save();
            self.context.translate(x as f64, y as f64).map_err(error)?;
            self.context.rotate(degrees / 180.0 * std::f64::consts::PI).map_err(error)?;
            (0.0, 0.0)
        } else {
            (x as f64, y as f64)
        };
        self.text_anchor(anchor.0, anchor.1);
        self.fill_style(c);
        self.font(font);
        self.context.fill_text(text, at.0, at.1).map_err(error)?;
        if turned {
            self.context.restore();
            // Back to the states at the save, which need not be the last ones set.
            *self.state.get_mut() = Set::default();
        }
        Ok(())
    }

    /// The width of `text` in `font` (a CSS font, as plotters-canvas sets it to draw).
    fn width(&self, font: &str, text: &str) -> Option<u32> {
        self.font(font);
        let metrics = self.context.measure_text(text).ok()?;
        Some(metrics.width().round().max(0.0) as u32)
    }

    /// The height of a line of `font` at `size` pixels: plotters' own measure (a span's
    /// `offsetHeight`), taken once per font. The span's font is set through CSSOM (the page's
    /// Content Security Policy refuses `style` attributes); style/main.css places it
    /// (`.text-measure`: fixed below the viewport, unwrapped).
    fn height(family: &str, style: &str, size: f64) -> Option<u32> {
        let document = web_sys::window()?.document()?;
        let span: web_sys::HtmlElement = document.create_element("span").ok()?.dyn_into().ok()?;
        span.set_text_content(Some("Xg"));
        span.set_class_name("text-measure");
        let css = span.style();
        css.set_property("font-family", family).ok()?;
        css.set_property("font-style", style).ok()?;
        css.set_property("font-size", &format!("{size}px")).ok()?;
        document.body()?.append_child(&span).ok()?;
        let height = span.offset_height().max(0) as u32;
        span.remove();
        Some(height)
    }

    fn measure<S: BackendTextStyle>(&self, text: &str, s: &S) -> Option<(u32, u32)> {
        let (style, family) = (s.style().as_str().to_string(), s.family().as_str().to_string());
        let font = format!("{style} {}px {family}", s.size());
        let known = |k: &(String, String)| MEASURED.with(|m| m.borrow().get(k).copied());
        let remember = |k: (String, String), v| MEASURED.with(|m| m.borrow_mut().insert(k, v));
        let key = (font, text.to_string());
        if let Some(v) = known(&key) {
            return Some(v);
        }
        let line = (key.0.clone(), String::new());
        let height = match known(&line) {
            Some((_, h)) => h,
            None => {
                let h = Self::height(&family, &style, s.size())?;
                remember(line, (0, h));
                h
            }
        };
        // The span collapsed runs of white space, and labels were laid out by it: so here too.
        let v = (self.width(&key.0, &text.split_whitespace().collect::<Vec<_>>().join(" "))?, height);
        remember(key, v);
        Some(v)
    }
}

/// Dashes cut by the plot code, as the canvas strokes no patterns.
impl qscope_plot::Dashes for Canvas {}

/// The drawing calls of plotters-canvas 0.3.1, in its order, states set only when they change.
impl DrawingBackend for Canvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }
    fn ensure_prepared(&mut self) -> Result<(), Error> {
        Ok(())
    }
    fn present(&mut self) -> Result<(), Error> {
        Ok(())
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Result<(), Error> {
        if c.alpha == 0.0 {
            return Ok(());
        }
        self.fill_style(c);
        self.context.fill_rect(p.0 as f64, p.1 as f64, 1.0, 1.0);
        Ok(())
    }
    fn draw_line<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S) -> Result<(), Error> {
        if s.color().alpha == 0.0 {
            return Ok(());
        }
        let (a, b) = fine_hor_ver_lines(a, b);
        self.stroke_style(s.color(), s.stroke_width());
        self.context.begin_path();
        self.context.move_to(a.0, a.1);
        self.context.line_to(b.0, b.1);
        self.context.stroke();
        Ok(())
    }
    fn draw_rect<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S, fill: bool) -> Result<(), Error> {
        if s.color().alpha == 0.0 {
            return Ok(());
        }
        let (x, y, w, h) = (a.0 as f64, a.1 as f64, (b.0 - a.0) as f64, (b.1 - a.1) as f64);
        if fill {
            self.fill_style(s.color());
            self.context.fill_rect(x, y, w, h);
        } else {
            self.stroke_style(s.color(), s.stroke_width());
            self.context.stroke_rect(x, y, w, h);
        }
        Ok(())
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, p: I, s: &S) -> Result<(), Error> {
        if s.color().alpha != 0.0 {
            self.path(&p.into_iter().collect::<Vec<_>>(), s.color(), s.stroke_width());
        }
        Ok(())
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, s: &S, fill: bool) -> Result<(), Error> {
        if s.color().alpha == 0.0 {
            return Ok(());
        }
        if fill {
            self.fill_style(s.color());
        } else {
            self.stroke_style(s.color(), s.stroke_width());
        }
        self.context.begin_path();
        self.context.arc(c.0 as f64, c.1 as f64, r as f64, 0.0, std::f64::consts::TAU).map_err(error)?;
        if fill {
            self.context.fill();
        } else {
            self.context.stroke();
        }
        Ok(())
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        p: I,
        s: &S,
    ) -> Result<(), Error> {
        if s.color().alpha != 0.0 {
            self.polygon(&p.into_iter().collect::<Vec<_>>(), s.color());
        }
        Ok(())
    }
    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, s: &S, pos: BackendCoord) -> Result<(), Error> {
        if s.color().alpha == 0.0 {
            return Ok(());
        }
        let degrees = match s.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 90.0,
            FontTransform::Rotate180 => 180.0,
            FontTransform::Rotate270 => 270.0,
        };
        let baseline = match s.anchor().v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        };
        let align = match s.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        };
        let font = format!("{} {}px {}", s.style().as_str(), s.size(), s.family().as_str());
        self.text(text, s.color(), &font, degrees, (align, baseline), pos)
    }
    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, s: &S) -> Result<(u32, u32), Error> {
        if let Some(v) = self.measure(text, s) {
            return Ok(v);
        }
        // plotters' own measure (the default of the trait).
        let layout = s.layout_box(text).map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        Ok((((layout.1).0 - (layout.0).0) as u32, ((layout.1).1 - (layout.0).1) as u32))
    }
}
