//! A panel's header: its title, then the legend — one entry per visible curve (a sample of its
//! line: colour and dash pattern, then its name) and the marks that need explaining (the
//! percentile band, the jump dots, the true derivative, the pass-band shading) — flowing left
//! to right and wrapping. It sits above the plot, so it never hides a curve.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::stroke::{DashedLine, Dashes};
use super::{DrawResult, Style};

/// How an entry's sample is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Swatch {
    /// A line sample: colour, opacity, width and dash pattern in layout pixels.
    Line { color: RGBColor, alpha: f64, width: f64, dash: &'static [f64] },
    /// A translucent filled box (a band or a shaded region).
    Fill { color: RGBColor, alpha: f64 },
    /// A filled and an open dot (the two ends of a jump).
    Dots { color: RGBColor },
}

/// One legend entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub swatch: Swatch,
    pub text: String,
}

const TITLE_SIZE: f64 = 14.0;
const TEXT_SIZE: f64 = 12.0;
const ROW: f64 = 19.0;
const PAD_X: f64 = 12.0;
const SWATCH: f64 = 22.0;
const SWATCH_GAP: f64 = 6.0;
const ENTRY_GAP: f64 = 16.0;

/// Where every piece of the header goes: `(x, row)` of each entry, and the header height.
struct Layout {
    entries: Vec<(f64, usize, String)>,
    height: u32,
}

/// How wide `text` is drawn in `style`, in device pixels.
pub(super) fn width<DB: DrawingBackend, C: CoordTranslate>(
    area: &DrawingArea<DB, C>,
    text: &str,
    style: &TextStyle,
) -> f64 {
    area.estimate_text_size(text, style).map(|(w, _)| w as f64).unwrap_or(0.0)
}

fn text_width<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, text: &str, style: &TextStyle) -> f64 {
    area.estimate_text_size(text, style).map(|(w, _)| w as f64).unwrap_or(0.0)
}

/// `text`, shortened with an ellipsis until it is at most `max` pixels wide.
pub(super) fn fit<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle,
    max: f64,
) -> String {
    if text_width(area, text, style) <= max {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let (mut lo, mut hi) = (0usize, chars.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let s: String = chars[..mid].iter().chain(std::iter::once(&'…')).collect();
        if text_width(area, &s, style) <= max { lo = mid } else { hi = mid - 1 }
    }
    chars[..lo].iter().chain(std::iter::once(&'…')).collect()
}

/// Entries flow left to right in order; an entry that does not fit its row's rest starts a new
/// row. A mark that is not a line (the band, the jump dots, the pass-band) first takes the first
/// earlier row with room for it — the dots beside the title when a long curve name wrapped — so
/// the header keeps as few rows as it can while the curves stay in their order.
fn layout<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str, entries: &[Entry], style: &Style) -> Layout {
    let (w, _) = area.dim_in_pixel();
    let w = w as f64;
    let text_style = style.text(TEXT_SIZE, style.theme.text);
    let pad = style.f(PAD_X);
    // The next free x of each row so far.
    let mut ends =
        vec![pad + text_width(area, title, &style.text(TITLE_SIZE, style.theme.text)) + style.f(ENTRY_GAP) * 1.5];
    let mut out = Vec::with_capacity(entries.len());
    let lead = style.f(SWATCH + SWATCH_GAP);
    for e in entries {
        let text = fit(area, &e.text, &text_style, (w - 2.0 * pad - lead).max(0.0));
        let width = lead + text_width(area, &text, &text_style);
        let fits = |x: f64| x + width <= w - pad || x <= pad;
        let backfill = !matches!(e.swatch, Swatch::Line { .. });
        let last = ends.len() - 1;
        let free = if backfill { ends.iter().position(|&x| fits(x)) } else { fits(ends[last]).then_some(last) };
        let row = match free {
            Some(row) => row,
            None => {
                ends.push(pad);
                ends.len() - 1
            }
        };
        out.push((ends[row], row, text));
        ends[row] += width + style.f(ENTRY_GAP);
    }
    let height = style.f(6.0 + ROW * ends.len() as f64 + 4.0).round() as u32;
    Layout { entries: out, height }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::raster::{RasterText, font};

    fn rows(width: u32, names: &[(&str, bool)]) -> Vec<usize> {
        let mut buf = vec![0u8; (width * 200 * 3) as usize];
        let inner = BitMapBackend::with_buffer(&mut buf, (width, 200));
        let area = RasterText { inner, font: font().unwrap() }.into_drawing_area();
        let style = Style::default();
        let color = RGBColor(0, 0, 0);
        let entries: Vec<Entry> = names
            .iter()
            .map(|&(text, line)| Entry {
                swatch: if line {
                    Swatch::Line { color, alpha: 1.0, width: 2.0, dash: &[] }
                } else {
                    Swatch::Dots { color }
                },
                text: text.into(),
            })
            .collect();
        layout(&area, "Forward  y = q(x)", &entries, &style).entries.iter().map(|(_, row, _)| *row).collect()
    }

    #[test]
    fn the_jump_dots_fill_the_title_row_a_long_curve_name_left() {
        let long = "qkeras.quantized_bits(bits=4, symmetric=True, alpha=0.5, keep_negative=True)";
        assert_eq!(rows(480, &[(long, true), ("filled: q(x) at a jump", false)]), [1, 0]);
    }

    #[test]
    fn curves_keep_their_order_even_where_an_earlier_row_has_room() {
        let long = "qkeras.quantized_bits(bits=4, symmetric=True, alpha=0.5, keep_negative=True)";
        assert_eq!(rows(480, &[(long, true), ("ste", true)]), [1, 2], "ste never jumps ahead to the title row");
    }
}

/// The height the header of `title` and `entries` takes in `area`.
pub fn height<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str, entries: &[Entry], style: &Style) -> u32 {
    layout(area, title, entries, style).height
}

/// Draws the header (title and legend) at the top of `area`.
pub fn draw<DB: Dashes>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    entries: &[Entry],
    style: &Style,
) -> DrawResult<DB> {
    let th = &style.theme;
    let lay = layout(area, title, entries, style);
    let row_y = |row: usize| style.f(6.0 + ROW * (row as f64 + 0.5));
    let left = Pos::new(HPos::Left, VPos::Center);
    let title_style = style.text(TITLE_SIZE, th.text).pos(left);
    area.draw_text(title, &title_style, (style.f(PAD_X) as i32, row_y(0) as i32))?;
    let text_style = style.text(TEXT_SIZE, th.text).pos(left);
    for (e, (x, row, text)) in entries.iter().zip(&lay.entries) {
        let (x, y) = (*x, row_y(*row));
        let (x0, x1) = (x, x + style.f(SWATCH));
        match e.swatch {
            Swatch::Line { color, alpha, width, dash: pattern } => {
                let stroke = color.mix(alpha).stroke_width(style.px(width));
                let pattern: Vec<f64> = pattern.iter().map(|v| style.f(*v)).collect();
                area.draw(&DashedLine { points: &[(x0, y), (x1, y)], pattern: &pattern, style: stroke })?;
            }
            Swatch::Fill { color, alpha } => {
                let h = style.f(5.0);
                let rect = [(x0 as i32, (y - h) as i32), (x1 as i32, (y + h) as i32)];
                area.draw(&Rectangle::new(rect, color.mix(alpha).filled()))?;
            }
            Swatch::Dots { color } => {
                let r = style.px(3.2);
                let w = style.px(1.5);
                area.draw(&Circle::new(((x0 + style.f(5.0)) as i32, y as i32), r, color.filled()))?;
                let open = ((x1 - style.f(5.0)) as i32, y as i32);
                area.draw(&Circle::new(open, r, th.background.filled()))?;
                area.draw(&Circle::new(open, r, color.stroke_width(w)))?;
            }
        }
        area.draw_text(text, &text_style, ((x1 + style.f(SWATCH_GAP)) as i32, y as i32))?;
    }
    Ok(())
}
