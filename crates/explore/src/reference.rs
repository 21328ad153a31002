//! The gallery as a browsable reference (`qscope gallery DIR`): an index grouped by library and
//! one page per quantizer — its summary, formulas, parameters, the figure of its illustrative
//! configuration ([`Info::figure`](qscope_quant::Info::figure), or the library defaults with
//! `--defaults`), its levels, the copy-as-code snippets and the links that open it live in the
//! explorer or embed it — plus the gallery's notable configurations.
//!
//! Pure functions from the catalogue to file names and contents ([`files`]); the CLI writes
//! them. Each figure is drawn as the explorer draws the state its link opens
//! ([`figure::from_state`]): a data-dependent quantizer frozen at the numbers of the explorer's
//! sample tensor, a block format at the block the x range itself makes. Static pages, no
//! script, one shared style sheet; every text from a spec is escaped.

mod html;

use super::code::{Framework, agreement, snippet};
use super::drawn::readout;
use super::figure::{self, from_specs};
use super::page::Page;
use super::state::{Mode, Slot, State};
use qscope_plot::gallery::{self, Item, Tensor, slug};
use qscope_quant::{ENTRIES, Entry, Family, Levels, Quantizer, parse};

pub use html::{FAVICON, STYLE};

/// The explorer `qscope gallery` links to by default: what `scripts/dev serve` serves.
pub const DEFAULT_EXPLORER: &str = "http://127.0.0.1:8080/";

/// What the reference is built from.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The explorer's address, before the hash (`https://your.host/qscope/`).
    pub explorer: String,
    /// Draw every quantizer at its library defaults over [−2, 2] instead of its illustrative
    /// configuration.
    pub defaults: bool,
    /// The software line written in every page (`qscope 0.1.0`).
    pub software: String,
}

/// The configuration a quantizer's figure shows: its illustrative one, or with `defaults` the
/// library default over [`gallery::X`]; in training mode unless the library refuses it.
pub fn shown(e: &Entry, defaults: bool) -> Result<(Quantizer, (f32, f32), Mode), String> {
    let (q, x) = if defaults {
        ((e.default)(), gallery::X)
    } else {
        let spec = e.info.figure_spec();
        (parse(&spec).map_err(|err| format!("{spec}: {err}"))?, e.info.figure.x)
    };
    if let Err((p, why)) = q.validate() {
        return Err(format!("{q}: {p}: {why}"));
    }
    let mode = Mode::from_training(q.unsupported(true).is_none());
    if let Some(why) = q.unsupported(mode.training()) {
        return Err(format!("{q}: {why}"));
    }
    Ok((q, x, mode))
}

/// The gallery's notable configurations, a data-dependent one frozen at the explorer's sample
/// tensor (the one the quantizer pages are drawn at).
pub fn notable() -> Result<Vec<Item>, String> {
    let state = State::default();
    let values = state.sample_spec().generate();
    let name = format!("the explorer's sample tensor ({})", html::sample_text(&state));
    gallery::notable(Tensor { values: &values, name: &name })
}

/// One quantizer's page.
#[derive(Clone)]
pub struct QuantizerPage {
    pub entry: &'static Entry,
    /// The configuration drawn.
    pub quantizer: Quantizer,
    /// The explorer state showing it (its hash is the figure's link).
    pub state: State,
    /// The page's file name (`qkeras.quantized_bits.html`).
    pub file: String,
    /// The figure's file name (`qkeras.quantized_bits.svg`).
    pub figure: String,
    /// Its levels as drawn (a data-dependent quantizer's at the numbers it is frozen at).
    pub levels: Levels,
    /// What a data-dependent quantizer's curve is frozen at.
    pub frozen: Option<String>,
    /// Why this configuration.
    pub why: String,
}

impl QuantizerPage {
    /// The link that opens the figure live: the explorer's address and the state's hash.
    pub fn explorer_link(&self, explorer: &str) -> String {
        format!("{explorer}{}", self.state.to_hash())
    }

    /// The same state in embed mode (only the figure, for an `<iframe>`).
    pub fn embed_link(&self, explorer: &str) -> String {
        format!("{explorer}{}", Page { embed: true, ..Page::default() }.compose(&self.state.to_hash()))
    }
}

/// A notable figure of the index, with the link that opens it.
#[derive(Clone, Debug)]
pub struct Notable {
    pub item: Item,
    pub link: String,
}

/// The levels in words — `8 levels, −1 … 0.75, step 0.25` — and, when there are at most
/// [`LISTED_LEVELS`](super::drawn::LISTED_LEVELS), each of them: the explorer's readout
/// ([`readout`]).
pub fn levels_text(levels: &Levels) -> (String, Option<Vec<String>>) {
    let r = readout(levels);
    let text = match r.step {
        Some(step) => format!("{}, step {step}", r.text),
        None => r.text,
    };
    (text, r.list)
}

/// The gallery's files, in order, as `(file name, contents)`: `style.css`, `favicon.svg`,
/// The book's catalogue (`qscope docs`): per family, every quantizer with its summary and its
/// forward and backward formulas, each linked to its reference page (served at `/reference/`
/// beside the book at `/docs/`).
pub fn catalogue_markdown() -> String {
    let cell = |t: &str| t.replace('|', "\\|");
    let mut out = String::from("<!-- generated by `qscope docs`: do not edit (CONTRIBUTING.md) -->\n");
    for family in Family::ALL {
        out += &format!(
            "\n### {}\n\n| quantizer | what it does | forward | backward |\n|---|---|---|---|\n",
            family.title()
        );
        for e in ENTRIES.iter().filter(|e| e.info.family == family) {
            let name = e.info.qualified();
            let also = match e.info.aliases {
                [] => String::new(),
                a => format!(" (also {})", a.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ")),
            };
            out += &format!(
                "| [`{name}`](../reference/{}.html){also} | {} | {} | {} |\n",
                slug(&name),
                cell(e.info.summary),
                cell(e.info.forward),
                cell(e.info.backward)
            );
        }
    }
    out
}

/// `index.html`, then per quantizer its page and its SVG figure, then the notable figures.
pub fn files(o: &Options) -> Result<Vec<(String, String)>, String> {
    let mut pages = Vec::with_capacity(ENTRIES.len());
    let mut out = vec![("style.css".to_string(), STYLE.to_string()), ("favicon.svg".to_string(), FAVICON.to_string())];
    let mut figures = Vec::new();
    for e in ENTRIES {
        let (quantizer, x, mode) = shown(e, o.defaults)?;
        let state = State { slots: vec![Slot::new(quantizer.clone())], x, mode, ..State::default() };
        let (fig, evaluated) = figure::from_state(&state).map_err(|err| format!("{quantizer}: {err}"))?;
        let name = slug(&e.info.qualified());
        let why = if o.defaults { "the library defaults.".to_string() } else { format!("{}.", e.info.figure.why) };
        let page = QuantizerPage {
            entry: e,
            quantizer,
            state,
            file: format!("{name}.html"),
            figure: format!("{name}.svg"),
            levels: evaluated[0].levels.clone(),
            frozen: evaluated[0].frozen.clone(),
            why,
        };
        figures.push((page.figure.clone(), fig.svg().map_err(|err| format!("{}: {err}", page.figure))?));
        pages.push(page);
    }
    let mut notables = Vec::new();
    for item in notable()? {
        let fig = from_specs(&item.specs, gallery::X, Mode::from_training(!item.infer), 0)
            .map_err(|err| format!("{}: {err}", item.file))?;
        figures.push((item.file.clone(), fig.svg().map_err(|err| format!("{}: {err}", item.file))?));
        notables.push(Notable { link: format!("{}{}", o.explorer, fig.link), item });
    }
    out.push(("index.html".to_string(), html::index(&pages, &notables, o)));
    for (p, f) in pages.iter().zip(figures.iter()) {
        out.push((p.file.clone(), html::page(p, o)));
        out.push(f.clone());
    }
    out.extend(figures.into_iter().skip(pages.len()));
    Ok(out)
}

/// Every snippet of `q` with how it agrees with qscope, in words (None when bit for bit).
pub fn snippets(q: &Quantizer) -> Vec<(Framework, String, Option<String>)> {
    snippet(q).into_iter().map(|(f, text)| (f, text, agreement(q, f).and_then(|a| a.sentence()))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_read_as_the_explorer_reads_them() {
        let (text, list) = levels_text(&Levels::codes(-4, 3, 0.25));
        assert_eq!(text, "8 levels, −1 … 0.75, step 0.25");
        assert_eq!(list.unwrap()[..3], ["−1", "−0.75", "−0.5"]);
        let (text, list) = levels_text(&Levels::codes(-128, 127, 1.0 / 128.0));
        assert_eq!((text.as_str(), list), ("256 levels, −1 … 0.9922, step 0.0078", None));
    }

    #[test]
    fn every_text_from_a_spec_is_escaped() {
        let e = ENTRIES.iter().find(|e| e.info.name == "quantized_bits").unwrap();
        let quantizer = parse("qkeras.quantized_bits(4, var_name='</code><script>&\\'\"')").unwrap();
        let state = State { slots: vec![Slot::new(quantizer.clone())], ..State::default() };
        let (levels, frozen) = (quantizer.levels(&Default::default()), None);
        let (file, figure, why) = ("a.html".into(), "a.svg".into(), "<why>".into());
        let page = QuantizerPage { entry: e, quantizer, state, file, figure, levels, frozen, why };
        let o = Options { explorer: "https://x/?a=1&b=<2>".into(), defaults: false, software: "q&s".into() };
        let html = html::page(&page, &o);
        assert!(!html.contains("<script") && !html.contains("<why>") && !html.contains("a=1&b"), "{html}");
        assert!(html.contains("&lt;/code&gt;&lt;script&gt;&amp;") && html.contains("q&amp;s"), "{html}");
    }

    #[test]
    fn the_defaults_are_the_libraries_and_the_illustrations_their_own() {
        let bits = ENTRIES.iter().find(|e| e.info.name == "quantized_bits").unwrap();
        let (q, x, mode) = shown(bits, true).unwrap();
        assert_eq!((q, x, mode), ((bits.default)(), (-2.0, 2.0), Mode::Train));
        let (q, x, _) = shown(bits, false).unwrap();
        assert_eq!((q.to_string().as_str(), x), ("qkeras.quantized_bits(bits=3, alpha=1.0)", (-1.5, 1.5)));
    }
}
