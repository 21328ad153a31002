//! One backend type for every figure a program draws: [`Erased`] hands each plotters primitive
//! to a backend behind `&mut dyn` [`Primitives`]. The drawing code is generic over the backend,
//! so each backend it is compiled for gets a copy of all of it (panels, legend, mesh, the
//! format comparison, plotters' chart code); drawn through `Erased`, the page's canvases and
//! its SVG export share one copy (the page's wasm was ~45 KB larger with two).
//!
//! Nothing changes on the way: a style arrives as plotters' own [`ShapeStyle`] or
//! [`TextStyle`] with the same colour, width, font, anchor and turn, a path or polygon as the
//! same points, a dashed line as the same points and pattern; errors arrive as their text.

use plotters::style::{FontDesc, RGBAColor, ShapeStyle, TextStyle};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind};

use super::geometry::Px;
use super::stroke::{Area, Dashes};

/// A backend's failure, as its text.
#[derive(Debug)]
pub struct BackendError(pub String);

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BackendError {}

type Res<T = ()> = Result<T, DrawingErrorKind<BackendError>>;

fn erase<E: std::error::Error + Send + Sync>(e: DrawingErrorKind<E>) -> DrawingErrorKind<BackendError> {
    match e {
        DrawingErrorKind::DrawingError(e) => DrawingErrorKind::DrawingError(BackendError(e.to_string())),
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    }
}

/// The primitives of a [`Dashes`] backend with concrete styles: callable through `dyn`.
pub trait Primitives {
    fn size(&self) -> (u32, u32);
    fn prepare(&mut self) -> Res;
    fn present(&mut self) -> Res;
    fn pixel(&mut self, p: BackendCoord, c: BackendColor) -> Res;
    fn line(&mut self, a: BackendCoord, b: BackendCoord, s: &ShapeStyle) -> Res;
    fn rect(&mut self, a: BackendCoord, b: BackendCoord, s: &ShapeStyle, fill: bool) -> Res;
    fn path(&mut self, pts: &[BackendCoord], s: &ShapeStyle) -> Res;
    fn circle(&mut self, c: BackendCoord, r: u32, s: &ShapeStyle, fill: bool) -> Res;
    fn polygon(&mut self, pts: &[BackendCoord], s: &ShapeStyle) -> Res;
    fn text(&mut self, text: &str, s: &TextStyle, pos: BackendCoord) -> Res;
    fn text_size(&self, text: &str, s: &TextStyle) -> Res<(u32, u32)>;
    fn blit(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Res;
    fn dashed(&mut self, pts: &[Px], pattern: &[f64], s: &ShapeStyle, area: Area) -> Res;
}

impl<B: Dashes> Primitives for B {
    fn size(&self) -> (u32, u32) {
        self.get_size()
    }
    fn prepare(&mut self) -> Res {
        self.ensure_prepared().map_err(erase)
    }
    fn present(&mut self) -> Res {
        DrawingBackend::present(self).map_err(erase)
    }
    fn pixel(&mut self, p: BackendCoord, c: BackendColor) -> Res {
        self.draw_pixel(p, c).map_err(erase)
    }
    fn line(&mut self, a: BackendCoord, b: BackendCoord, s: &ShapeStyle) -> Res {
        self.draw_line(a, b, s).map_err(erase)
    }
    fn rect(&mut self, a: BackendCoord, b: BackendCoord, s: &ShapeStyle, fill: bool) -> Res {
        self.draw_rect(a, b, s, fill).map_err(erase)
    }
    fn path(&mut self, pts: &[BackendCoord], s: &ShapeStyle) -> Res {
        self.draw_path(pts.iter().copied(), s).map_err(erase)
    }
    fn circle(&mut self, c: BackendCoord, r: u32, s: &ShapeStyle, fill: bool) -> Res {
        self.draw_circle(c, r, s, fill).map_err(erase)
    }
    fn polygon(&mut self, pts: &[BackendCoord], s: &ShapeStyle) -> Res {
        self.fill_polygon(pts.iter().copied(), s).map_err(erase)
    }
    fn text(&mut self, text: &str, s: &TextStyle, pos: BackendCoord) -> Res {
        self.draw_text(text, s, pos).map_err(erase)
    }
    fn text_size(&self, text: &str, s: &TextStyle) -> Res<(u32, u32)> {
        self.estimate_text_size(text, s).map_err(erase)
    }
    fn blit(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Res {
        self.blit_bitmap(pos, size, src).map_err(erase)
    }
    fn dashed(&mut self, pts: &[Px], pattern: &[f64], s: &ShapeStyle, area: Area) -> Res {
        self.draw_dashed(pts, pattern, s, area).map_err(erase)
    }
}

/// A plotters backend drawing through another one: `Erased(&mut canvas).into_drawing_area()`.
pub struct Erased<'a>(pub &'a mut dyn Primitives);

/// `s` as plotters' own shape style (what a backend reads of it: colour and width).
fn shape<S: BackendStyle>(s: &S) -> ShapeStyle {
    let BackendColor { rgb: (r, g, b), alpha } = s.color();
    ShapeStyle { color: RGBAColor(r, g, b, alpha), filled: false, stroke_width: s.stroke_width() }
}

/// `s` as plotters' own text style: font family, size, style and turn, colour and anchor.
fn text_style<S: BackendTextStyle>(s: &S) -> TextStyle<'_> {
    TextStyle {
        font: FontDesc::new(s.family(), s.size(), s.style()).transform(s.transform()),
        color: s.color(),
        pos: s.anchor(),
    }
}

impl DrawingBackend for Erased<'_> {
    type ErrorType = BackendError;

    fn get_size(&self) -> (u32, u32) {
        self.0.size()
    }
    fn ensure_prepared(&mut self) -> Res {
        self.0.prepare()
    }
    fn present(&mut self) -> Res {
        self.0.present()
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Res {
        self.0.pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S) -> Res {
        self.0.line(a, b, &shape(s))
    }
    fn draw_rect<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S, fill: bool) -> Res {
        self.0.rect(a, b, &shape(s), fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, p: I, s: &S) -> Res {
        self.0.path(&p.into_iter().collect::<Vec<_>>(), &shape(s))
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, s: &S, fill: bool) -> Res {
        self.0.circle(c, r, &shape(s), fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, p: I, s: &S) -> Res {
        self.0.polygon(&p.into_iter().collect::<Vec<_>>(), &shape(s))
    }
    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, s: &S, pos: BackendCoord) -> Res {
        self.0.text(text, &text_style(s), pos)
    }
    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, s: &S) -> Res<(u32, u32)> {
        self.0.text_size(text, &text_style(s))
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Res {
        self.0.blit(pos, size, src)
    }
}

impl Dashes for Erased<'_> {
    fn draw_dashed(&mut self, pts: &[Px], pattern: &[f64], s: &ShapeStyle, area: Area) -> Res {
        self.0.dashed(pts, pattern, s, area)
    }
}
