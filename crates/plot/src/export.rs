//! Figures as PNG files (native only): [`Figure::png`] draws the same figure as
//! [`Figure::svg`] at 2× into a bitmap, with the specs, link and version as PNG `tEXt`
//! chunks `Title`, `Description`, `Software`, `Source` ([`Figure::texts`]). PNG text is rasterised
//! ([`RasterText`]) with an embedded font, `assets/fonts/qscope-sans.ttf` (a subset of DejaVu
//! Sans, ~100 KB), so a PNG looks the same on every machine and needs no font installed.

use plotters::coord::Shift;
use plotters::prelude::*;

pub use super::svg::{Figure, MAX_CURVES, SvgText, software, xml_escape};

use super::formats::{FormatFigure, draw_comparison};
use super::raster::{RasterText, font};
use super::{DrawResult, Style, Theme, draw_figure_with};

impl Figure {
    /// The figure as a PNG at twice its size, with tEXt chunks (see [`png_document`]).
    pub fn png(&self) -> Result<Vec<u8>, String> {
        png_document(self.size, self.theme, &self.texts(), |area: &Raster, style| {
            draw_figure_with(area, &self.curves, &self.view, style)
        })
    }
}

impl FormatFigure {
    /// The comparison as a PNG at twice its size, with its words as text chunks.
    pub fn png(&self) -> Result<Vec<u8>, String> {
        png_document(self.size, self.theme, &self.words.texts(), |area: &Raster, style| {
            draw_comparison(area, &self.comparison, style)
        })
    }
}

/// The drawing area of a PNG.
pub type Raster<'a> = DrawingArea<RasterText<'a>, Shift>;

/// A PNG of `size` layout pixels at twice the pixels, drawn by `draw`, with `texts` as text
/// chunks. plotters' bitmap lines are not anti-aliased: the figure is drawn at 4× and averaged
/// down (2 × 2 pixels to 1) when that buffer stays under [`SUPERSAMPLE_BYTES`].
pub fn png_document(
    size: (u32, u32),
    theme: Theme,
    texts: &[(&str, String)],
    draw: impl FnOnce(&Raster, &Style) -> DrawResult<RasterText<'static>>,
) -> Result<Vec<u8>, String> {
    let font = font()?;
    let (w, h) = (2 * size.0, 2 * size.1);
    let ss: u32 = if 4 * 3 * w as usize * h as usize <= SUPERSAMPLE_BYTES { 2 } else { 1 };
    let (dw, dh) = (ss * w, ss * h);
    let mut rgb = vec![0u8; dw as usize * dh as usize * 3];
    {
        let area = RasterText { inner: BitMapBackend::with_buffer(&mut rgb, (dw, dh)), font }.into_drawing_area();
        let style = Style { theme, scale: 2.0 * ss as f64, ..Style::default() };
        draw(&area, &style).map_err(|e| format!("drawing the PNG: {e}"))?;
    }
    if ss == 2 {
        rgb = halve(&rgb, (dw, dh));
    }
    encode_png(&rgb, (w, h), texts)
}

/// The largest 4× drawing buffer (bytes) a PNG is supersampled from.
pub const SUPERSAMPLE_BYTES: usize = 96 << 20;

/// An RGB image at half its size, each pixel the mean of a 2 × 2 block.
fn halve(rgb: &[u8], (w, h): (u32, u32)) -> Vec<u8> {
    let (w, h) = (w as usize, h as usize);
    let (hw, hh) = (w / 2, h / 2);
    let mut out = vec![0u8; hw * hh * 3];
    for y in 0..hh {
        for x in 0..hw {
            for c in 0..3 {
                let at = |dx: usize, dy: usize| rgb[((2 * y + dy) * w + 2 * x + dx) * 3 + c] as u32;
                out[(y * hw + x) * 3 + c] = ((at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1) + 2) / 4) as u8;
            }
        }
    }
    out
}

/// Encodes 8-bit RGB pixels as PNG with text chunks (tEXt when the text is Latin-1, else iTXt)
/// and a pixel density of 144 dpi (a 2× image shows at its layout size).
pub fn encode_png(rgb: &[u8], (w, h): (u32, u32), texts: &[(&str, String)]) -> Result<Vec<u8>, String> {
    let err = |e: png::EncodingError| format!("encoding the PNG: {e}");
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_pixel_dims(Some(png::PixelDimensions { xppu: 5669, yppu: 5669, unit: png::Unit::Meter }));
    for (key, text) in texts {
        if text.chars().all(|c| (c as u32) < 256) {
            enc.add_text_chunk(key.to_string(), text.clone()).map_err(err)?;
        } else {
            enc.add_itxt_chunk(key.to_string(), text.clone()).map_err(err)?;
        }
    }
    let mut writer = enc.write_header().map_err(err)?;
    writer.write_image_data(rgb).map_err(err)?;
    writer.finish().map_err(err)?;
    Ok(out)
}
