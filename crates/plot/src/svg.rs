//! Figures as SVG documents, on every target (the browser's "download SVG" and the CLI): the
//! quantizers of some specs drawn by the same code as the canvas, with the specs, the link
//! that reopens the figure and the qscope version embedded (`<title>`, `<desc>` and
//! `<metadata>`). `plot` writes no link itself: the figure's maker (`explore::figure`, the
//! page) hands it the explorer state's own.
//!
//! Documents are written by the compact writer ([`super::svgwriter`]): one `<path>` per curve
//! (dashes as `stroke-dasharray`), every style once in a `<style>` block, coordinates in
//! whole units of the 2× view box (tenths on sloped dashed lines) — 7–22 KB a gallery figure
//! where plotters' SVG took 37–208 KB. plotters' own SVG backend ([`SvgText`]) stays as the
//! reference the render comparison checks the writer against ([`Figure::svg_reference`]).
//!
//! Colours follow the figure's [`Scheme`]: the CLI's figures and the gallery go onto pages
//! whose colour scheme they cannot know, so they follow the reader's (light, and
//! [`Theme::DARK`] under `prefers-color-scheme: dark`); the page's "download SVG" keeps the
//! theme the user exported from (light, dark or high contrast), as the PNG does, because
//! exporting from a theme is choosing it.
//!
//! SVG text is left to the viewer's fonts; text extents are estimated (0.6 em per character)
//! instead of measuring a font.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind};

use super::erased::Erased;
use super::svgwriter::{SvgDoc, SvgWriter};
use super::{Curve, DrawResult, Style, Theme, Viewport, draw_figure_with};

/// How an SVG document's colours answer the reader's colour scheme.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheme {
    /// The figure's theme, whatever the reader prefers: the page's export (the theme on screen)
    /// and the handout (printed).
    #[default]
    Fixed,
    /// The figure's theme, and [`Theme::DARK`]'s colours where the reader prefers a dark scheme
    /// (`@media (prefers-color-scheme: dark)`): the CLI's figures and the gallery. Native only:
    /// in the browser (whose export keeps the theme on screen) it is [`Scheme::Fixed`].
    FollowReader,
}

/// The most curves a figure compares (one per Okabe–Ito colour).
pub const MAX_CURVES: usize = 6;

/// `qscope <version>`.
pub fn software() -> String {
    format!("qscope {}", env!("CARGO_PKG_VERSION"))
}

/// A figure ready to export: the curves and what produced them.
#[derive(Clone, Debug)]
pub struct Figure {
    /// The canonical specs, one per curve.
    pub specs: Vec<String>,
    pub curves: Vec<Curve>,
    /// The x range shown, crosshair and reference lines.
    pub view: Viewport,
    pub infer: bool,
    pub seed: u64,
    /// The link that opens the figure in the explorer: the explorer state's own hash
    /// (`explore::state::State::to_hash`), behind the page's address when the page exports it.
    /// Written by the figure's maker; `plot` only embeds it.
    pub link: String,
    /// Width and height in layout pixels (the PNG has twice as many).
    pub size: (u32, u32),
    pub theme: Theme,
    /// Whether the SVG follows the reader's colour scheme.
    pub scheme: Scheme,
}

impl Figure {
    /// The x range shown.
    pub fn x(&self) -> (f32, f32) {
        self.view.x_range(&self.curves)
    }

    /// A one-line title: the specs.
    pub fn title(&self) -> String {
        self.specs.join("; ")
    }

    /// What the figure shows, in words (ASCII).
    pub fn description(&self) -> String {
        let (lo, hi) = self.x();
        let mode = if self.infer { "inference" } else { "training" };
        format!(
            "Forward y = q(x) and backward dy/dx of {} for x from {lo} to {hi} ({mode}, seed {}). Open in qscope: {}",
            self.title(),
            self.seed,
            self.link
        )
    }

    /// The words the exported files carry: title, description, link and specs.
    pub fn words(&self) -> Words {
        Words {
            title: format!("qscope: {}", self.title()),
            description: self.description(),
            link: self.link.clone(),
            specs: self.specs.clone(),
        }
    }

    /// The text a PNG of the figure carries (`tEXt`/`iTXt` chunks): title, description,
    /// software and, as `Source`, the link — the same words the SVG's metadata holds.
    pub fn texts(&self) -> [(&'static str, String); 4] {
        self.words().texts()
    }

    /// The figure as an SVG document (text measured by estimate, drawn at 2× and viewed at 1×
    /// so curve points keep half-pixel precision).
    pub fn svg(&self) -> Result<String, String> {
        svg_document(self.size, self.theme, self.scheme, &self.words(), |area: &DrawingArea<Erased, Shift>, style| {
            draw_figure_with(area, &self.curves, &self.view, style)
        })
    }

    /// The figure as plotters' own SVG backend writes it (each dash a `<polyline>`, every
    /// element with its style), in the figure's theme: the reference for the render comparison.
    pub fn svg_reference(&self) -> Result<String, String> {
        reference_document(self.size, self.theme, &self.words(), |area: &DrawingArea<SvgText, Shift>, style| {
            draw_figure_with(area, &self.curves, &self.view, style)
        })
    }
}

/// What an exported figure says about itself: the same words in an SVG's `<title>`, `<desc>`
/// and `<metadata>` and in a PNG's text chunks.
#[derive(Clone, Debug, PartialEq)]
pub struct Words {
    /// `qscope: …`.
    pub title: String,
    pub description: String,
    /// The link that reopens the figure in the explorer.
    pub link: String,
    /// The canonical specs drawn.
    pub specs: Vec<String>,
}

impl Words {
    /// The PNG text chunks: `Title`, `Description`, `Software` and, as `Source`, the link.
    pub fn texts(&self) -> [(&'static str, String); 4] {
        [
            ("Title", self.title.clone()),
            ("Description", self.description.clone()),
            ("Software", software()),
            ("Source", self.link.clone()),
        ]
    }
}

/// An SVG document of `size` layout pixels (drawn at 2× and viewed at 1×) by `draw` in
/// `theme`, coloured as `scheme` says, with `words` in its `<title>`, `<desc>` and
/// `<metadata>`. The compact writer is drawn through [`Erased`], the backend the page's
/// canvases draw through too: one copy of the drawing code serves both.
pub fn svg_document(
    (w, h): (u32, u32),
    theme: Theme,
    scheme: Scheme,
    words: &Words,
    draw: impl FnOnce(&DrawingArea<Erased, Shift>, &Style) -> DrawResult<Erased<'static>>,
) -> Result<String, String> {
    let mut doc = SvgDoc::new((2 * w, 2 * h));
    {
        let mut writer = SvgWriter(&mut doc);
        let area = Erased(&mut writer).into_drawing_area();
        let style = Style { theme, scale: 2.0, ..Style::default() };
        draw(&area, &style).map_err(|e| format!("drawing the SVG: {e}"))?;
    }
    let dark = (scheme == Scheme::FollowReader).then_some((&theme, &Theme::DARK));
    Ok(doc.finish((w, h), &head(words), dark))
}

/// The `<title>`, `<desc>` and `<metadata>` of a document carrying `words`.
fn head(words: &Words) -> String {
    format!(
        concat!(
            "\n<title>{title}</title>\n<desc>{desc}</desc>\n<metadata>\n",
            "<qscope:figure xmlns:qscope=\"urn:qscope:figure\" software=\"{sw}\" permalink=\"{link}\">\n",
            "{specs}</qscope:figure>\n</metadata>"
        ),
        title = xml_escape(&words.title),
        desc = xml_escape(&words.description),
        sw = xml_escape(&software()),
        link = xml_escape(&words.link),
        specs =
            words.specs.iter().map(|s| format!("<qscope:spec>{}</qscope:spec>\n", xml_escape(s))).collect::<String>(),
    )
}

/// [`svg_document`] as plotters' SVG backend writes it, in `theme`: the reference.
pub fn reference_document(
    (w, h): (u32, u32),
    theme: Theme,
    words: &Words,
    draw: impl FnOnce(&DrawingArea<SvgText, Shift>, &Style) -> DrawResult<SvgText<'static>>,
) -> Result<String, String> {
    let mut buf = String::new();
    {
        let area = SvgText(SVGBackend::with_string(&mut buf, (2 * w, 2 * h))).into_drawing_area();
        let style = Style { theme, scale: 2.0, ..Style::default() };
        draw(&area, &style).map_err(|e| format!("drawing the SVG: {e}"))?;
    }
    let top = format!(r#"<svg width="{}" height="{}" viewBox="0 0 {} {}""#, 2 * w, 2 * h, 2 * w, 2 * h);
    let Some(end) = buf.find('>').filter(|_| buf.starts_with(&top)) else {
        return Err("unexpected SVG header from plotters".into());
    };
    let meta = head(words);
    let root = format!(
        r#"<svg width="{w}" height="{h}" viewBox="0 0 {} {}" stroke-linejoin="round"{}>{meta}"#,
        2 * w,
        2 * h,
        &buf[top.len()..end],
    );
    Ok(preserve_text_spaces(&(root + &buf[end + 1..])))
}

/// plotters writes `<text …>\nTEXT\n</text>`: the newlines would show as spaces, and SVG collapses
/// runs of spaces. Each text element gets its content alone, with `xml:space="preserve"`.
fn preserve_text_spaces(svg: &str) -> String {
    const CLOSE: &str = "\n</text>";
    let mut out = String::with_capacity(svg.len() + svg.len() / 16);
    let mut rest = svg;
    while let Some(i) = rest.find("<text ") {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let (Some(open), Some(close)) = (rest.find(">\n"), rest.find(CLOSE)) else { break };
        if close < open {
            break;
        }
        out.push_str(&rest[..open]);
        out.push_str(" xml:space=\"preserve\">");
        out.push_str(&rest[open + 2..close]);
        out.push_str("</text>");
        rest = &rest[close + CLOSE.len()..];
    }
    out.push_str(rest);
    out
}

/// `s` with `& < > " '` escaped for XML text and attributes.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// plotters' SVG backend (the reference writer, and the handout's decision boundaries) with
/// text extents estimated (0.6 em per character, 1 em high), so no
/// font file is needed; text is written as `<text>` for the viewer's fonts. Presenting is
/// deferred to the end (dropping the backend closes the document), so several panels can be
/// drawn into one SVG.
pub struct SvgText<'a>(pub SVGBackend<'a>);

impl SvgText<'_> {
    /// The estimated `(width, height)` of `text` at font size `size` (plotters' size; the
    /// SVG em is `size / 1.24`).
    pub fn extent(text: &str, size: f64) -> (u32, u32) {
        let em = size / 1.24;
        ((0.6 * em * text.chars().count() as f64).round() as u32, em.round() as u32)
    }
}

type SvgError = DrawingErrorKind<std::io::Error>;

/// Dashes cut by the plot code, one `<polyline>` each: the reference the compact writer is
/// compared with.
impl super::Dashes for SvgText<'_> {}

impl DrawingBackend for SvgText<'_> {
    type ErrorType = std::io::Error;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), SvgError> {
        self.0.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), SvgError> {
        Ok(())
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Result<(), SvgError> {
        self.0.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S) -> Result<(), SvgError> {
        self.0.draw_line(a, b, s)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Result<(), SvgError> {
        self.0.draw_rect(a, b, s, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        p: I,
        s: &S,
    ) -> Result<(), SvgError> {
        self.0.draw_path(p, s)
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, s: &S, fill: bool) -> Result<(), SvgError> {
        self.0.draw_circle(c, r, s, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        p: I,
        s: &S,
    ) -> Result<(), SvgError> {
        self.0.fill_polygon(p, s)
    }
    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, s: &S, pos: BackendCoord) -> Result<(), SvgError> {
        self.0.draw_text(text, s, pos)
    }
    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, s: &S) -> Result<(u32, u32), SvgError> {
        Ok(Self::extent(text, s.size()))
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, (w, h): (u32, u32), src: &[u8]) -> Result<(), SvgError> {
        self.0.blit_bitmap(pos, (w, h), src)
    }
}
