//! The plotters backend every canvas of the explorer draws through: plotters-canvas, with text
//! measured on the canvas. plotters measures a label in the browser by appending a `<span>` to
//! the page and reading its `offsetWidth` — a forced layout of the whole page per label, which
//! cost a slider drag most of its frame. Here a label's width comes from the canvas'
//! `measureText` (white space collapsed, as in the span) and its height from one such span per
//! font (the line box, as before), both remembered for the page's life: a label laid out once is never measured again.

use std::cell::RefCell;
use std::collections::HashMap;

use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::HtmlCanvasElement;

/// A canvas backend measuring text on its canvas.
pub struct Canvas {
    inner: CanvasBackend,
    context: JsValue,
}

type Error = DrawingErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>;

thread_local! {
    /// `(font, text)` → `(width, height)` in pixels; `(font, "")` holds the font's height.
    static MEASURED: RefCell<HashMap<(String, String), (u32, u32)>> = RefCell::new(HashMap::new());
}

impl Canvas {
    /// Draws on `canvas`; `None` when it has no 2D context.
    pub fn new(canvas: &HtmlCanvasElement) -> Option<Canvas> {
        let context = canvas.get_context("2d").ok().flatten()?.into();
        Some(Canvas { inner: CanvasBackend::with_canvas_object(canvas.clone())?, context })
    }

    /// The width of `text` in `font` (a CSS font, as plotters-canvas sets it to draw).
    fn width(&self, font: &str, text: &str) -> Option<u32> {
        let get = |o: &JsValue, k: &str| js_sys::Reflect::get(o, &JsValue::from_str(k)).ok();
        js_sys::Reflect::set(&self.context, &JsValue::from_str("font"), &JsValue::from_str(font)).ok()?;
        let measure: js_sys::Function = get(&self.context, "measureText")?.dyn_into().ok()?;
        let metrics = measure.call1(&self.context, &JsValue::from_str(text)).ok()?;
        Some(get(&metrics, "width")?.as_f64()?.round().max(0.0) as u32)
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

/// Dashes cut by the plot code, as plotters-canvas strokes no patterns.
impl qscope::plot::Dashes for Canvas {}

impl DrawingBackend for Canvas {
    type ErrorType = <CanvasBackend as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), Error> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), Error> {
        self.inner.present()
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Result<(), Error> {
        self.inner.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S) -> Result<(), Error> {
        self.inner.draw_line(a, b, s)
    }
    fn draw_rect<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S, f: bool) -> Result<(), Error> {
        self.inner.draw_rect(a, b, s, f)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, p: I, s: &S) -> Result<(), Error> {
        self.inner.draw_path(p, s)
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, s: &S, f: bool) -> Result<(), Error> {
        self.inner.draw_circle(c, r, s, f)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        p: I,
        s: &S,
    ) -> Result<(), Error> {
        self.inner.fill_polygon(p, s)
    }
    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, s: &S, pos: BackendCoord) -> Result<(), Error> {
        self.inner.draw_text(text, s, pos)
    }
    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, s: &S) -> Result<(u32, u32), Error> {
        match self.measure(text, s) {
            Some(v) => Ok(v),
            None => self.inner.estimate_text_size(text, s),
        }
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Result<(), Error> {
        self.inner.blit_bitmap(pos, size, src)
    }
}
