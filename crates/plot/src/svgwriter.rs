//! The compact SVG writer: a plotters backend that writes each style once, as a class in a
//! `<style>` block, and each curve as one `<path>`.
//!
//! - Consecutive strokes (or fills) of one style are one `<path>` of several subpaths: a
//!   staircase's runs, a curve's dashes (a dashed line arrives whole through [`Dashes`] and is
//!   stroked with `stroke-dasharray`, which starts afresh at each subpath, as the plot code's
//!   own dashes do), the grid's lines.
//! - Path data is relative and uses `h`/`v` for flat runs; repeated and collinear points go.
//!   Coordinates are whole units of the 2× view box (half a layout pixel, where plotters' SVG
//!   had them); widths and dash lengths have at most one decimal, font sizes two, opacities
//!   three.
//! - Colours: fixed, or those of one theme with a `@media (prefers-color-scheme: dark)` rule
//!   giving each the colour it has in another (matched by role: [`Theme::slots`]).
//! - Every rule is scoped to the document's own id (a hash of its content), so several
//!   figures inlined in one HTML page keep their own styles.

use plotters::style::{Color, ShapeStyle};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind, FontStyle,
    FontTransform,
};
use std::fmt::Write as _;

use super::Theme;
use super::geometry::Px;
use super::stroke::{Area, Dashes};
use super::svg::{SvgText, xml_escape};

type Rgb = (u8, u8, u8);

/// A class: its CSS declarations (what identifies it), and its colour with the property that
/// carries it (`stroke` or `fill`), for the dark scheme's rule.
#[derive(Clone, Debug, PartialEq)]
struct Paint {
    css: String,
    rgb: Rgb,
    property: &'static str,
}

/// `;opacity:…` unless opaque.
fn opacity(c: BackendColor) -> String {
    let a = (c.alpha.clamp(0.0, 1.0) * 1000.0).round() as u32;
    if a == 1000 { String::new() } else { format!(";opacity:{}", decimal(a, 3)) }
}

/// A stroke of colour `c`, `width` units wide, dashed by `dash` (units; empty: solid).
fn stroke(c: BackendColor, width: u32, dash: &[f64]) -> Option<Paint> {
    if c.alpha <= 0.0 || width == 0 {
        return None;
    }
    let mut css = format!("fill:none;stroke:{};stroke-width:{width}{}", hex(c.rgb), opacity(c));
    for (k, v) in dash.iter().enumerate() {
        css.push_str(if k == 0 { ";stroke-dasharray:" } else { " " });
        css.push_str(&decimal((v * 10.0).round() as u32, 1));
    }
    Some(Paint { css, rgb: c.rgb, property: "stroke" })
}

/// A fill of colour `c`.
fn fill(c: BackendColor) -> Option<Paint> {
    (c.alpha > 0.0).then(|| Paint { css: format!("fill:{}{}", hex(c.rgb), opacity(c)), rgb: c.rgb, property: "fill" })
}

/// `v` / `10^places` with at most `places` decimals, without trailing zeros or a leading zero.
fn decimal(v: u32, places: u32) -> String {
    let unit = 10u32.pow(places);
    let (whole, mut frac) = (v / unit, v % unit);
    let mut s = if whole == 0 && frac != 0 { String::new() } else { whole.to_string() };
    if frac != 0 {
        s.push('.');
        let mut digit = unit / 10;
        while frac != 0 {
            s.push(char::from(b'0' + (frac / digit) as u8));
            frac %= digit;
            digit /= 10;
        }
    }
    s
}

fn hex((r, g, b): Rgb) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// A class name for index `i`: `a` … `z`, `aa`, `ab` …
fn class_name(i: usize) -> String {
    let letter = |k: usize| char::from(b'a' + (k % 26) as u8);
    let mut s = if i >= 26 { class_name(i / 26 - 1) } else { String::new() };
    s.push(letter(i));
    s
}

/// `n` tenths of a unit: `12`, `12.5`, `-.5`.
fn push_tenths(d: &mut String, n: i32) {
    if n < 0 {
        d.push('-');
    }
    let (whole, frac) = (n.unsigned_abs() / 10, n.unsigned_abs() % 10);
    match (whole, frac) {
        (w, 0) => {
            let _ = write!(d, "{w}");
        }
        (0, f) => {
            let _ = write!(d, ".{f}");
        }
        (w, f) => {
            let _ = write!(d, "{w}.{f}");
        }
    }
}

/// Points in tenths of a unit.
type Tenths = (i32, i32);

fn tenths(pts: &[BackendCoord]) -> Vec<Tenths> {
    pts.iter().map(|p| (10 * p.0, 10 * p.1)).collect()
}

/// Relative path data in tenths of a unit: appends points to a `d` attribute, `h`/`v` for
/// flat runs, the command letter only when it changes.
#[derive(Default)]
struct PathData {
    d: String,
    /// The pen's position (absolute), after the last point written.
    at: Option<Tenths>,
    last_cmd: u8,
}

impl PathData {
    fn cmd(&mut self, c: u8, nums: &[i32]) {
        if c != self.last_cmd {
            self.d.push(c as char);
        } else if nums.first().is_some_and(|n| *n >= 0) {
            self.d.push(' ');
        }
        for (k, n) in nums.iter().enumerate() {
            if k > 0 && *n >= 0 {
                self.d.push(' ');
            }
            push_tenths(&mut self.d, *n);
        }
        // After a moveto, repeated pairs are linetos (absolute after `M`).
        self.last_cmd = match c {
            b'm' => b'l',
            b'M' => b'L',
            c => c,
        };
    }

    /// A subpath through `pts` (repeated and collinear points dropped), closed if `close`.
    fn subpath(&mut self, pts: &[Tenths], close: bool) {
        let pts = essential(pts);
        if pts.len() < 2 {
            return;
        }
        let first = pts[0];
        match self.at {
            None => self.cmd(b'M', &[first.0, first.1]),
            Some(a) => self.cmd(b'm', &[first.0 - a.0, first.1 - a.1]),
        }
        let mut at = first;
        for &p in &pts[1..] {
            let (dx, dy) = (p.0 - at.0, p.1 - at.1);
            match (dx, dy) {
                (_, 0) => self.cmd(b'h', &[dx]),
                (0, _) => self.cmd(b'v', &[dy]),
                _ => self.cmd(b'l', &[dx, dy]),
            }
            at = p;
        }
        if close {
            self.d.push('z');
            self.last_cmd = b'z';
            at = first;
        }
        self.at = Some(at);
    }
}

/// `pts` without repeated points and without the inner points of straight stretches.
fn essential(pts: &[Tenths]) -> Vec<Tenths> {
    let mut out: Vec<Tenths> = Vec::with_capacity(pts.len());
    for &p in pts {
        if out.last() == Some(&p) {
            continue;
        }
        if let [.., a, b] = out[..] {
            let (u, v) = ((b.0 - a.0) as i64, (b.1 - a.1) as i64);
            let (s, t) = ((p.0 - b.0) as i64, (p.1 - b.1) as i64);
            if u * t == v * s && u * s + v * t > 0 {
                *out.last_mut().expect("two points") = p;
                continue;
            }
        }
        out.push(p);
    }
    out
}

/// A document being written: its elements, the classes they use, and the path still open for
/// more subpaths of its class.
#[derive(Default)]
pub struct SvgDoc {
    size: (u32, u32),
    body: String,
    classes: Vec<Paint>,
    open: Option<(usize, PathData)>,
    /// The font family of the document's text (the first text's: a figure has one).
    font: Option<String>,
}

impl SvgDoc {
    /// An empty document of `size` device pixels.
    pub fn new(size: (u32, u32)) -> SvgDoc {
        SvgDoc { size, ..SvgDoc::default() }
    }

    fn class(&mut self, paint: Paint) -> usize {
        match self.classes.iter().position(|c| c.css == paint.css) {
            Some(i) => i,
            None => {
                self.classes.push(paint);
                self.classes.len() - 1
            }
        }
    }

    fn close_path(&mut self) {
        if let Some((class, data)) = self.open.take() {
            let _ = writeln!(self.body, "<path class=\"{}\" d=\"{}\"/>", class_name(class), data.d);
        }
    }

    /// A subpath in `paint` (points in tenths of a unit), joining the open path when it has
    /// the same class.
    fn path(&mut self, paint: Option<Paint>, pts: &[Tenths], close: bool) {
        let Some(paint) = paint.filter(|_| pts.len() > 1) else { return };
        let class = self.class(paint);
        if self.open.as_ref().is_none_or(|(c, _)| *c != class) {
            self.close_path();
            self.open = Some((class, PathData::default()));
        }
        if let Some((_, data)) = self.open.as_mut() {
            data.subpath(pts, close);
        }
    }

    /// A whole element (not a path): closes the open path first.
    fn element(&mut self, paint: Option<Paint>, tag: &str, attrs: &str, content: Option<&str>) {
        let Some(paint) = paint else { return };
        self.close_path();
        let class = class_name(self.class(paint));
        let _ = match content {
            Some(text) => writeln!(self.body, "<{tag} class=\"{class}\"{attrs}>{text}</{tag}>"),
            None => writeln!(self.body, "<{tag} class=\"{class}\"{attrs}/>"),
        };
    }

    /// The finished document of `layout` size: the root with `head` inside it first (title,
    /// description, metadata), the style block, then the drawing. With `dark` = (the theme it
    /// was drawn in, another), each colour of the first takes the second's colour of the same
    /// role where the reader prefers a dark scheme; without, the colours are fixed.
    pub fn finish(mut self, layout: (u32, u32), head: &str, dark: Option<(&Theme, &Theme)>) -> String {
        self.close_path();
        let id = format!("q{:08x}", fnv1a(self.body.as_bytes()) ^ fnv1a(head.as_bytes()));
        let mut css = String::new();
        if let Some(f) = &self.font {
            let _ = writeln!(css, "#{id}{{font-family:{f}}}");
        }
        for (i, c) in self.classes.iter().enumerate() {
            for part in ["#", &id, " .", &class_name(i), "{", &c.css, "}\n"] {
                css.push_str(part);
            }
        }
        // The page exports in the theme on screen: only native figures follow the reader.
        #[cfg(target_arch = "wasm32")]
        let dark: Option<(&Theme, &Theme)> = dark.and(None);
        if let Some((from, to)) = dark {
            let pairs: Vec<(Rgb, Rgb)> =
                from.slots().iter().zip(to.slots()).map(|(a, b)| ((a.0, a.1, a.2), (b.0, b.1, b.2))).collect();
            let mut rules = String::new();
            for (i, c) in self.classes.iter().enumerate() {
                if let Some((_, to)) = pairs.iter().find(|(a, b)| *a == c.rgb && a != b) {
                    let _ = writeln!(rules, "#{id} .{}{{{}:{}}}", class_name(i), c.property, hex(*to));
                }
            }
            if !rules.is_empty() {
                let _ = write!(css, "@media (prefers-color-scheme:dark){{\n{rules}}}\n");
            }
        }
        let (w, h) = self.size;
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"{id}\" role=\"img\" width=\"{}\" height=\"{}\" \
             viewBox=\"0 0 {w} {h}\" stroke-linejoin=\"round\">",
            layout.0, layout.1
        );
        for part in [head, "\n<style>\n", &css, "</style>\n", &self.body, "</svg>\n"] {
            out.push_str(part);
        }
        out
    }
}

/// FNV-1a, 32 bits.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, b| (h ^ *b as u32).wrapping_mul(0x0100_0193))
}

/// The compact writer as a plotters backend, writing into an [`SvgDoc`]; text extents are
/// estimated as [`SvgText`] does.
pub struct SvgWriter<'a>(pub &'a mut SvgDoc);

type Res = Result<(), DrawingErrorKind<std::io::Error>>;

impl Dashes for SvgWriter<'_> {
    fn draw_dashed(&mut self, pts: &[Px], pattern: &[f64], style: &ShapeStyle, area: Area) -> Res {
        // A sloped line keeps a tenth of a unit: its dashes are measured along it, and a line
        // of whole units is longer (its zigzags), so the dashes would drift from the plot
        // code's own (cut along the exact line). A flat or upright stretch keeps whole units
        // across it, as the other backends draw it (its length does not change).
        let paint = stroke(style.color.to_backend_color(), style.stroke_width, pattern);
        let ((x0, y0), (w, h)) = (area.origin, area.size);
        let pts: Vec<Px> = pts.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
        let place = |v: f64, lo: i32, len: u32, whole: bool| {
            let v = (v + lo as f64).clamp(lo as f64, (lo + len as i32) as f64);
            if whole { 10 * v.round() as i32 } else { (v * 10.0).round() as i32 }
        };
        let along = |i: usize, same: &dyn Fn(Px, Px) -> bool| {
            (i > 0 && same(pts[i - 1], pts[i])) || (i + 1 < pts.len() && same(pts[i], pts[i + 1]))
        };
        let placed: Vec<Tenths> = (0..pts.len())
            .map(|i| {
                let (flat, upright) = (along(i, &|a, b| a.1 == b.1), along(i, &|a, b| a.0 == b.0));
                (place(pts[i].0, x0, w, upright), place(pts[i].1, y0, h, flat))
            })
            .collect();
        self.0.path(paint, &placed, false);
        Ok(())
    }
}

impl DrawingBackend for SvgWriter<'_> {
    type ErrorType = std::io::Error;

    fn get_size(&self) -> (u32, u32) {
        self.0.size
    }
    fn ensure_prepared(&mut self) -> Res {
        Ok(())
    }
    fn present(&mut self) -> Res {
        Ok(())
    }
    fn draw_pixel(&mut self, (x, y): BackendCoord, c: BackendColor) -> Res {
        self.0.element(fill(c), "rect", &format!(" x=\"{x}\" y=\"{y}\" width=\"1\" height=\"1\""), None);
        Ok(())
    }
    fn draw_line<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S) -> Res {
        self.0.path(stroke(s.color(), s.stroke_width(), &[]), &tenths(&[a, b]), false);
        Ok(())
    }
    fn draw_rect<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S, filled: bool) -> Res {
        let paint = if filled { fill(s.color()) } else { stroke(s.color(), s.stroke_width(), &[]) };
        let attrs = format!(" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"", a.0, a.1, b.0 - a.0, b.1 - a.1);
        self.0.element(paint, "rect", &attrs, None);
        Ok(())
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, p: I, s: &S) -> Res {
        let pts: Vec<BackendCoord> = p.into_iter().collect();
        self.0.path(stroke(s.color(), s.stroke_width(), &[]), &tenths(&pts), false);
        Ok(())
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, s: &S, filled: bool) -> Res {
        let paint = if filled { fill(s.color()) } else { stroke(s.color(), s.stroke_width(), &[]) };
        self.0.element(paint, "circle", &format!(" cx=\"{}\" cy=\"{}\" r=\"{r}\"", c.0, c.1), None);
        Ok(())
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, p: I, s: &S) -> Res {
        let pts: Vec<BackendCoord> = p.into_iter().collect();
        self.0.path(fill(s.color()), &tenths(&pts), true);
        Ok(())
    }
    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, s: &S, (x, y): BackendCoord) -> Res {
        let anchor = match s.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "middle",
        };
        let dy = match s.anchor().v_pos {
            VPos::Top => ".76em",
            VPos::Center => ".5ex",
            VPos::Bottom => "-.5ex",
        };
        let c = s.color();
        if c.alpha <= 0.0 {
            return Ok(());
        }
        let family = xml_escape(s.family().as_str());
        let size = ((s.size() / 1.24) * 100.0).round() as u32;
        let mut css = format!("fill:{};font-size:{}px{}", hex(c.rgb), decimal(size, 2), opacity(c));
        if anchor != "start" {
            let _ = write!(css, ";text-anchor:{anchor}");
        }
        match s.style() {
            FontStyle::Normal => {}
            FontStyle::Bold => css.push_str(";font-weight:bold"),
            other => {
                css.push_str(";font-style:");
                css.push_str(other.as_str());
            }
        }
        if self.0.font.get_or_insert_with(|| family.clone()) != &family {
            let _ = write!(css, ";font-family:{family}");
        }
        let paint = Some(Paint { css, rgb: c.rgb, property: "fill" });
        let mut attrs = format!(" x=\"{x}\" y=\"{y}\" dy=\"{dy}\"");
        let turn = match s.transform() {
            FontTransform::Rotate90 => 90,
            FontTransform::Rotate180 => 180,
            FontTransform::Rotate270 => 270,
            FontTransform::None => 0,
        };
        if turn != 0 {
            let _ = write!(attrs, " transform=\"rotate({turn} {x} {y})\"");
        }
        // SVG collapses runs of spaces ("Forward  y = q(x)") unless told not to.
        if text.contains("  ") || text.trim() != text {
            attrs.push_str(" xml:space=\"preserve\"");
        }
        self.0.element(paint, "text", &attrs, Some(&xml_escape(text)));
        Ok(())
    }
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        s: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<std::io::Error>> {
        Ok(SvgText::extent(text, s.size()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_short() {
        assert_eq!(decimal(194, 1), "19.4");
        assert_eq!(decimal(50, 1), "5");
        assert_eq!(decimal(600, 3), ".6");
        assert_eq!(decimal(85, 3), ".085");
        assert_eq!(decimal(1000, 3), "1");
    }

    #[test]
    fn class_names_are_letters_and_unique() {
        let names: Vec<String> = (0..800).map(class_name).collect();
        assert_eq!((names[0].as_str(), names[25].as_str(), names[26].as_str()), ("a", "z", "aa"));
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        assert!(names.iter().all(|n| n.bytes().all(|b| b.is_ascii_lowercase())));
    }

    #[test]
    fn path_data_is_relative_with_flat_runs_and_no_straight_inner_points() {
        let mut d = PathData::default();
        d.subpath(&tenths(&[(10, 20), (15, 20), (30, 20), (30, 10), (31, 11), (32, 12), (32, 12), (40, 9)]), false);
        d.subpath(&tenths(&[(50, 9), (60, 9)]), false);
        assert_eq!(d.d, "M10 20h20v-10l2 2 8-3m10 0h10");
        let mut l = PathData::default();
        l.subpath(&tenths(&[(1, 1), (3, 4), (4, 6)]), false);
        l.subpath(&tenths(&[(9, 9), (10, 12)]), false);
        assert_eq!(l.d, "M1 1l2 3 1 2m5 3 1 3", "after M a pair is absolute: the l is written");
        let mut z = PathData::default();
        z.subpath(&tenths(&[(0, 0), (4, 0), (4, 4)]), true);
        assert_eq!(z.d, "M0 0h4v4z");
        let mut t = PathData::default();
        t.subpath(&[(125, 30), (120, 35), (140, 41)], false);
        assert_eq!(t.d, "M12.5 3l-.5 .5 2 .6", "tenths where a dashed line keeps them");
    }
}
