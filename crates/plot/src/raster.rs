//! PNG drawing (native only): plotters' bitmap backend with two things of its own: text
//! rasterised by ab_glyph from the embedded font, each glyph placed at its own bearing
//! (plotters' ab_glyph text drops the bearing, which jumbles letter spacing), in the SVG
//! backend's sizes (em = size / 1.24) and anchors so PNG and SVG lay out alike; and wide lines
//! stroked with round joins (see [`RasterText::stroke`]).

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use plotters::prelude::BitMapBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind};

/// The embedded font: a subset of DejaVu Sans (see `assets/fonts/LICENSE-DejaVu.txt`).
static FONT: &[u8] = include_bytes!("../../../assets/fonts/qscope-sans.ttf");

/// The embedded font, parsed.
pub fn font() -> Result<FontRef<'static>, String> {
    FontRef::try_from_slice(FONT).map_err(|e| format!("the embedded font assets/fonts/qscope-sans.ttf: {e}"))
}

/// A bitmap backend that draws text with `font`.
pub struct RasterText<'a> {
    pub inner: BitMapBackend<'a>,
    pub font: FontRef<'static>,
}

type Error<'a> = DrawingErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>;

impl RasterText<'_> {
    /// The glyph scale for plotters' font `size` (1 em = size / 1.24 pixels).
    fn scale(&self, size: f64) -> PxScale {
        let em = size as f32 / 1.24;
        let upem = self.font.units_per_em().unwrap_or(2048.0);
        PxScale::from(em * self.font.height_unscaled() / upem)
    }

    /// The advance width of `text` and its em, in pixels.
    fn measure(&self, text: &str, size: f64) -> (f32, f32) {
        let f = self.font.as_scaled(self.scale(size));
        let mut w = 0.0;
        let mut prev = None;
        for c in text.chars() {
            let g = f.glyph_id(c);
            if let Some(p) = prev {
                w += f.kern(p, g);
            }
            w += f.h_advance(g);
            prev = Some(g);
        }
        (w, size as f32 / 1.24)
    }
}

impl<'a> RasterText<'a> {
    /// A wide polyline with round joins and caps: discs stamped along it into a mask, then each
    /// covered pixel blended once. (plotters fills a wide polyline as one outline polygon, whose
    /// miter joins spike and whose self-intersections leave holes where a line zigzags.)
    fn stroke(&mut self, pts: &[BackendCoord], width: u32, color: BackendColor) -> Result<(), Error<'a>> {
        let (iw, ih) = self.inner.get_size();
        let r = width as f64 / 2.0;
        let ri = r.ceil() as i32;
        let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        for &(x, y) in pts {
            (x0, y0, x1, y1) = (x0.min(x - ri), y0.min(y - ri), x1.max(x + ri), y1.max(y + ri));
        }
        let (x0, y0, x1, y1) = (x0.max(0), y0.max(0), x1.min(iw as i32 - 1), y1.min(ih as i32 - 1));
        if pts.is_empty() || x0 > x1 || y0 > y1 {
            return Ok(());
        }
        let (bw, bh) = ((x1 - x0 + 1) as usize, (y1 - y0 + 1) as usize);
        let mut mask = vec![false; bw * bh];
        let disc: Vec<(i32, i32)> = (-ri..=ri)
            .flat_map(|dy| (-ri..=ri).map(move |dx| (dx, dy)))
            .filter(|&(dx, dy)| ((dx * dx + dy * dy) as f64) <= r * r)
            .collect();
        let mut stamp = |cx: f64, cy: f64| {
            let (cx, cy) = (cx.round() as i32 - x0, cy.round() as i32 - y0);
            for &(dx, dy) in &disc {
                let (x, y) = (cx + dx, cy + dy);
                if x >= 0 && y >= 0 && (x as usize) < bw && (y as usize) < bh {
                    mask[y as usize * bw + x as usize] = true;
                }
            }
        };
        stamp(pts[0].0 as f64, pts[0].1 as f64);
        for w in pts.windows(2) {
            let (a, b) = ((w[0].0 as f64, w[0].1 as f64), (w[1].0 as f64, w[1].1 as f64));
            let steps = ((b.0 - a.0).hypot(b.1 - a.1) * 2.0).ceil().max(1.0) as usize;
            for k in 1..=steps {
                let t = k as f64 / steps as f64;
                stamp(a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1));
            }
        }
        for (i, _) in mask.iter().enumerate().filter(|(_, m)| **m) {
            self.inner.draw_pixel((x0 + (i % bw) as i32, y0 + (i / bw) as i32), color)?;
        }
        Ok(())
    }
}

/// Dashes cut by the plot code, as plotters' bitmap backend knows none.
impl super::Dashes for RasterText<'_> {}

impl<'a> DrawingBackend for RasterText<'a> {
    type ErrorType = <BitMapBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), Error<'a>> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), Error<'a>> {
        self.inner.present()
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Result<(), Error<'a>> {
        self.inner.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S) -> Result<(), Error<'a>> {
        self.inner.draw_line(a, b, s)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_rect(a, b, s, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        p: I,
        s: &S,
    ) -> Result<(), Error<'a>> {
        if s.stroke_width() <= 1 || s.color().alpha == 0.0 {
            return self.inner.draw_path(p, s);
        }
        let pts: Vec<BackendCoord> = p.into_iter().collect();
        self.stroke(&pts, s.stroke_width(), s.color())
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, s: &S, fill: bool) -> Result<(), Error<'a>> {
        self.inner.draw_circle(c, r, s, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        p: I,
        s: &S,
    ) -> Result<(), Error<'a>> {
        self.inner.fill_polygon(p, s)
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, (w, h): (u32, u32), src: &[u8]) -> Result<(), Error<'a>> {
        self.inner.blit_bitmap(pos, (w, h), src)
    }

    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, s: &S) -> Result<(u32, u32), Error<'a>> {
        let (w, em) = self.measure(text, s.size());
        Ok((w.ceil() as u32, em.ceil() as u32))
    }

    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, s: &S, pos: BackendCoord) -> Result<(), Error<'a>> {
        let color = s.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let (w, em) = self.measure(text, s.size());
        let anchor = s.anchor();
        let dx = match anchor.h_pos {
            HPos::Left => 0.0,
            HPos::Center => -w / 2.0,
            HPos::Right => -w,
        };
        // The baseline below the anchor point, as the SVG backend places it.
        let baseline = match anchor.v_pos {
            VPos::Top => 0.76 * em,
            VPos::Center => 0.36 * em,
            VPos::Bottom => -0.27 * em,
        };
        let transform = s.transform();
        let scale = self.scale(s.size());
        let f = self.font.as_scaled(scale);
        let mut pen = dx;
        let mut prev = None;
        let mut pixels: Vec<(i32, i32, f32)> = Vec::new();
        for c in text.chars() {
            let id = f.glyph_id(c);
            if let Some(p) = prev {
                pen += f.kern(p, id);
            }
            prev = Some(id);
            if let Some(outline) = f.outline_glyph(id.with_scale_and_position(scale, point(pen, baseline))) {
                let b = outline.px_bounds();
                outline.draw(|x, y, cov| pixels.push((b.min.x as i32 + x as i32, b.min.y as i32 + y as i32, cov)));
            }
            pen += f.h_advance(id);
        }
        for (x, y, cov) in pixels {
            let (tx, ty) = transform.transform(x, y);
            let c = BackendColor { alpha: color.alpha * cov.clamp(0.0, 1.0) as f64, rgb: color.rgb };
            self.inner.draw_pixel((pos.0 + tx, pos.1 + ty), c)?;
        }
        Ok(())
    }
}
