//! A whole dashed line, handed to the backend in one piece. plotters' backends know no dash
//! patterns, so the plot code cuts dashes itself (`geometry::dash`); a backend that can stroke a
//! pattern natively (the SVG writer: one `<path>` with `stroke-dasharray`) gets the undashed line
//! with its pattern instead. [`Dashes`] is the hook; [`DashedLine`] the plotters element that
//! reaches it through a drawing area (which shifts it to the area's place on the backend).

use plotters::element::{Drawable, PointCollection};
use plotters::style::ShapeStyle;
use plotters_backend::{BackendCoord, DrawingBackend, DrawingErrorKind};

use super::geometry::{Px, dash, to_backend};

/// A backend that strokes whole dashed lines. The default cuts the dashes (`geometry::dash`)
/// and draws each as a path rounded to whole pixels, as the canvas and the PNG want; a backend
/// with dash patterns of its own overrides [`Dashes::draw_dashed`].
pub trait Dashes: DrawingBackend {
    /// Strokes the polyline `pts` with `style`, dashed by `pattern` (drawn and skipped lengths
    /// alternating from a drawn one, starting afresh at `pts[0]`; empty: solid). `pts` and
    /// `pattern` are device pixels relative to `area`'s top-left corner; every point, rounded
    /// to whole pixels, stays inside `area` (as plotters keeps an element's points inside its
    /// drawing area).
    fn draw_dashed(
        &mut self,
        pts: &[Px],
        pattern: &[f64],
        style: &ShapeStyle,
        area: Area,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        for d in dash(pts, pattern) {
            let p = area.place(to_backend(&d));
            if p.len() > 1 {
                self.draw_path(p, style)?;
            }
        }
        Ok(())
    }
}

/// Where a drawing area lies on its backend: its top-left corner and size in device pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Area {
    pub origin: BackendCoord,
    pub size: (u32, u32),
}

impl Area {
    /// Points relative to the area, on the backend: shifted to its corner, kept inside it.
    pub fn place(&self, mut pts: Vec<BackendCoord>) -> Vec<BackendCoord> {
        let (x0, y0) = self.origin;
        let (x1, y1) = (x0 + self.size.0 as i32, y0 + self.size.1 as i32);
        for p in &mut pts {
            *p = ((p.0 + x0).clamp(x0, x1), (p.1 + y0).clamp(y0, y1));
        }
        pts
    }
}

/// A polyline in device pixels relative to the drawing area it is drawn on, its stroke and
/// dash pattern: drawn through [`Dashes::draw_dashed`].
pub struct DashedLine<'a> {
    pub points: &'a [Px],
    pub pattern: &'a [f64],
    pub style: ShapeStyle,
}

/// The area's own origin, the one point plotters maps (to the area's corner on the backend):
/// the line's points stay unrounded until the backend has them.
const ORIGIN: [BackendCoord; 1] = [(0, 0)];

impl<'a> PointCollection<'a, BackendCoord> for &'a DashedLine<'_> {
    type Point = &'a BackendCoord;
    type IntoIter = &'a [BackendCoord];
    fn point_iter(self) -> &'a [BackendCoord] {
        &ORIGIN
    }
}

impl<DB: Dashes> Drawable<DB> for DashedLine<'_> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut pos: I,
        backend: &mut DB,
        size: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let Some(origin) = pos.next() else { return Ok(()) };
        backend.draw_dashed(self.points, self.pattern, &self.style, Area { origin, size })
    }
}
