//! Exporting the figure as the canvases show it: PNG at 2× (an offscreen canvas drawn at twice
//! the pixels, its `toDataURL` bytes with the specs, link and version added as PNG text chunks and
//! a 144 dpi density) and vector SVG (plotters' SVG backend through the same drawing code;
//! `<title>`, `<desc>` and `<metadata>` carry the specs, link and version). Both come from one
//! [`Figure`], so they embed the same words and the same link. The format comparison exports
//! the same way, from its [`FormatFigure`].

use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

use qscope_explore::formats;

use super::dom::download;
use super::figure::{self, Figure, FormatFigure, Frame};
use super::hash;
use super::model::Model;

/// The figure as exported, with the link that reopens it: the page's address and the
/// explorer state's own hash (the page keys — lesson, presenter, embed — are not the figure's).
/// Also the frame it is drawn in.
fn figure(model: Model) -> (Figure, Frame) {
    let frame = Frame { x: model.x.get_untracked(), look: model.look_untracked(), emphasis: None };
    let fig = model.state.with_untracked(|state| {
        let link = hash::link_to(&state.to_hash());
        model.curves.with_untracked(|c| figure::export(figure_size(), c, &frame, state, link))
    });
    (fig, frame)
}

/// A file name from the first shown quantizer's name.
fn file_name(model: Model, ext: &str) -> String {
    let (first, more) = model.slots.with_untracked(|s| {
        let shown: Vec<&str> = s.iter().filter(|s| !s.hidden).map(|s| s.quantizer.info().name).collect();
        (shown.first().map_or("figure", |n| n.trim_start_matches('_')).to_lowercase(), shown.len().saturating_sub(1))
    });
    if more > 0 { format!("qscope-{first}-and-{more}-more.{ext}") } else { format!("qscope-{first}.{ext}") }
}

/// The layout size of the element with `data-testid` `id`.
fn size_of(id: &str) -> Option<(u32, u32)> {
    let e = document().query_selector(&format!("[data-testid=\"{id}\"]")).ok().flatten()?;
    let size = (e.client_width().max(0) as u32, e.client_height().max(0) as u32);
    (size.0 > 0 && size.1 > 0).then_some(size)
}

/// The figure's size in layout pixels: the forward canvas' width, both canvases' height.
fn figure_size() -> (u32, u32) {
    match (size_of("plot-forward"), size_of("plot-backward")) {
        (Some((w, h1)), Some((_, h2))) if w > 0 && h1 + h2 > 0 => (w, h1 + h2),
        _ => (720, 640),
    }
}

/// The PNG bytes of `canvas` (drawn at 2×), with `texts` and the density added.
///
/// `toDataURL` encodes at once, on this thread: `toBlob` may wait for the browser to be idle
/// (Chromium deferred it by up to 6.7 s on a page that had been used).
fn render_png(
    canvas: Result<HtmlCanvasElement, String>,
    texts: [(&'static str, String); 4],
) -> Result<Vec<u8>, String> {
    let url = canvas?.to_data_url_with_type("image/png").map_err(|_| "the browser made no PNG".to_string())?;
    let base64 = url.strip_prefix("data:image/png;base64,").ok_or("the browser made no PNG")?;
    // atob gives one character per byte (code points 0–255).
    let binary = window().atob(base64).map_err(|_| "the browser could not read the PNG".to_string())?;
    with_metadata(&binary.chars().map(|c| c as u8).collect::<Vec<u8>>(), &texts)
}

/// Saves `canvas` as the PNG file `name` with `texts`, saying how it went in `status`.
fn save_canvas(
    canvas: Result<HtmlCanvasElement, String>,
    texts: [(&'static str, String); 4],
    name: String,
    status: RwSignal<String>,
) {
    // Encoding takes a moment: the status says so first (and changes twice per export).
    status.set("rendering PNG…".into());
    set_timeout(
        move || {
            let result = render_png(canvas, texts).and_then(|bytes| download(&bytes, "image/png", &name));
            status.set(match result {
                Ok(()) => "PNG saved".into(),
                Err(e) => format!("PNG export failed: {e}"),
            });
        },
        std::time::Duration::ZERO,
    );
}

/// Saves `svg` as the file `name`, saying how it went in `status`.
fn save_svg_text(svg: Result<String, String>, name: &str, status: RwSignal<String>) {
    let result = svg.and_then(|svg| download(svg.as_bytes(), "image/svg+xml", name));
    status.set(match result {
        Ok(()) => "SVG saved".into(),
        Err(e) => format!("SVG export failed: {e}"),
    });
}

/// Saves the figure as a PNG at 2×.
pub fn save_png(model: Model, status: RwSignal<String>) {
    let (fig, frame) = figure(model);
    save_canvas(figure::draw_figure_2x(fig.size, &fig.curves, &frame), fig.texts(), file_name(model, "png"), status);
}

/// Saves the figure as a vector SVG document (drawn by the same code as the canvases, with the
/// specs, link and version in its `<title>`, `<desc>` and `<metadata>`).
pub fn save_svg(model: Model, status: RwSignal<String>) {
    save_svg_text(figure(model).0.svg(), &file_name(model, "svg"), status);
}

/// The format comparison as exported: the shown quantizers on the sample, at the size of its
/// canvas, with the link that reopens the explorer on them.
fn format_figure(model: Model) -> FormatFigure {
    let size = size_of("formats-plot").unwrap_or((720, 440));
    let theme = model.look_untracked().theme();
    let tensor = model.tensor.get_untracked().and_then(|_| model.loaded.get_untracked());
    // The page's own comparison (its worker's, for a large tensor): nothing is quantized again.
    model.formats.with_untracked(|compared| {
        model.state.with_untracked(|state| {
            formats::figure_of(state, tensor.as_ref(), compared, hash::link_to(&state.to_hash()), size, theme)
        })
    })
}

/// Saves the format comparison as a PNG at 2×.
pub fn save_formats_png(model: Model, status: RwSignal<String>) {
    let fig = format_figure(model);
    save_canvas(figure::draw_comparison_2x(&fig), fig.words.texts(), "qscope-formats.png".into(), status);
}

/// Saves the format comparison as an SVG document.
pub fn save_formats_svg(model: Model, status: RwSignal<String>) {
    save_svg_text(format_figure(model).svg(), "qscope-formats.svg", status);
}

/// Saves accuracy against bits as a PNG at 2×.
pub fn save_sweep_png(fig: &qscope_plot::sweep::SweepFigure, status: RwSignal<String>) {
    save_canvas(figure::draw_sweep_2x(fig), fig.words.texts(), "qscope-accuracy-bits.png".into(), status);
}

/// Saves accuracy against bits as an SVG document.
pub fn save_sweep_svg(fig: &qscope_plot::sweep::SweepFigure, status: RwSignal<String>) {
    save_svg_text(fig.svg(), "qscope-accuracy-bits.svg", status);
}

/// CRC-32 (ISO 3309, as PNG uses it) of `data`.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { 0xEDB8_8320 ^ (crc >> 1) } else { crc >> 1 };
        }
    }
    !crc
}

/// One PNG chunk: length, type, data, CRC of type and data.
fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 12);
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc_input = kind.to_vec();
    crc_input.extend_from_slice(data);
    out.extend_from_slice(&crc32(&crc_input).to_be_bytes());
    out
}

/// A text chunk: `tEXt` when the text is Latin-1, else `iTXt` (UTF-8, uncompressed).
fn text_chunk(key: &str, text: &str) -> Vec<u8> {
    let mut data = key.as_bytes().to_vec();
    data.push(0);
    if text.chars().all(|c| (c as u32) < 256) {
        data.extend(text.chars().map(|c| c as u8));
        chunk(b"tEXt", &data)
    } else {
        // Compression flag and method, empty language tag and translated keyword.
        data.extend_from_slice(&[0, 0, 0, 0]);
        data.extend_from_slice(text.as_bytes());
        chunk(b"iTXt", &data)
    }
}

/// `png` with a 144 dpi density (a 2× image shows at its layout size) and the text chunks
/// inserted right after the header chunk.
fn with_metadata(png: &[u8], texts: &[(&str, String)]) -> Result<Vec<u8>, String> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    const IHDR_END: usize = 8 + 4 + 4 + 13 + 4;
    if png.len() < IHDR_END || &png[..8] != SIGNATURE || &png[12..16] != b"IHDR" {
        return Err("the browser's PNG has an unexpected layout".into());
    }
    let mut out = png[..IHDR_END].to_vec();
    // 5669 pixels per metre = 144 dpi.
    let mut phys = Vec::with_capacity(9);
    phys.extend_from_slice(&5669u32.to_be_bytes());
    phys.extend_from_slice(&5669u32.to_be_bytes());
    phys.push(1);
    out.extend(chunk(b"pHYs", &phys));
    for (key, text) in texts {
        out.extend(text_chunk(key, text));
    }
    // Chromium writes no pHYs of its own; drop one if a browser does.
    let mut rest = &png[IHDR_END..];
    while rest.len() >= 12 {
        let len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let end = (12 + len).min(rest.len());
        if &rest[4..8] != b"pHYs" {
            out.extend_from_slice(&rest[..end]);
        }
        rest = &rest[end..];
    }
    Ok(out)
}
