//! `qscope gallery`'s reference: every quantizer has a page and a figure in its illustrative
//! configuration, the pages are well-formed, every link resolves, and the explorer links open
//! the configuration drawn.

use std::collections::HashMap;
use std::process::Command;
use std::sync::OnceLock;

use qscope_explore::page::Page;
use qscope_explore::reference::{DEFAULT_EXPLORER, Options, files, shown};
use qscope_explore::state::{Mode, State};
use qscope_plot::gallery::slug;
use qscope_quant::{ENTRIES, parse};

use crate::common::svg::parse as parse_xml;

const EXPLORER: &str = "https://your.host/qscope/";

/// The reference's files by name (built once for every test).
fn gallery() -> &'static HashMap<String, String> {
    static FILES: OnceLock<HashMap<String, String>> = OnceLock::new();
    FILES.get_or_init(|| {
        let o = Options { explorer: EXPLORER.into(), defaults: false, software: "qscope test".into() };
        files(&o).unwrap().into_iter().collect()
    })
}

/// Every entity in `text` is one the pages write.
fn entities_are_known(text: &str) -> bool {
    text.split('&').skip(1).all(|s| ["amp;", "lt;", "gt;", "quot;", "apos;"].iter().any(|e| s.starts_with(e)))
}

fn page_of(name: &str) -> String {
    format!("{}.html", slug(name))
}

#[test]
fn every_quantizer_has_a_page_and_a_figure_and_the_index_links_them() {
    let g = gallery();
    let index = &g["index.html"];
    for e in ENTRIES {
        let name = e.info.qualified();
        let (page, figure) = (page_of(&name), format!("{}.svg", slug(&name)));
        assert!(g.contains_key(&page) && g.contains_key(&figure), "{name}: {page}, {figure}");
        assert!(index.contains(&format!("href=\"{page}\"")), "the index links {page}");
        assert!(g[&page].contains(&format!("<img src=\"{figure}\" alt=\"")), "{page} shows {figure}");
        assert!(g[&figure].starts_with("<svg") || g[&figure].starts_with("<?xml"), "{figure}");
    }
    let pages = g.keys().filter(|k| k.ends_with(".html")).count();
    assert_eq!(pages, ENTRIES.len() + 1, "a page per quantizer and the index");
    for notable in qscope_explore::reference::notable().unwrap() {
        assert!(index.contains(&format!("src=\"{}\"", notable.file)), "the index shows {}", notable.file);
    }
}

#[test]
fn every_page_is_well_formed_and_every_link_resolves() {
    let g = gallery();
    for (name, text) in g.iter().filter(|(n, _)| n.ends_with(".html")) {
        assert!(text.starts_with("<!doctype html>\n<html lang=\"en\">"), "{name}");
        assert!(entities_are_known(text), "{name}: an unescaped &");
        let elements = parse_xml(text).elements;
        assert!(elements.iter().all(|e| e.name != "script"), "{name}: no script");
        let ids = ids_of(text);
        for el in &elements {
            if el.name == "img" {
                assert!(el.attr("alt").is_some_and(|a| !a.is_empty()), "{name}: <img> without alt");
            }
            for key in ["href", "src"] {
                let Some(link) = el.attr(key).map(str::to_string) else { continue };
                if let Some(hash) = link.strip_prefix(EXPLORER) {
                    let (_, view, mut problems) = Page::split(hash);
                    problems.extend(State::parse(&view).1);
                    assert!(problems.is_empty(), "{name}: {link}: {problems:?}");
                    continue;
                }
                let (file, fragment) = link.split_once('#').unwrap_or((&link, ""));
                let target = if file.is_empty() { name.as_str() } else { file };
                assert!(g.contains_key(target), "{name}: {key}={link} is not a written file");
                if !fragment.is_empty() {
                    let target_tags = if file.is_empty() { ids.clone() } else { ids_of(&g[target]) };
                    assert!(target_tags.iter().any(|i| i == fragment), "{name}: no #{fragment} in {target}");
                }
            }
        }
    }
}

fn ids_of(page: &str) -> Vec<String> {
    parse_xml(page).elements.iter().filter_map(|e| e.attr("id").map(str::to_string)).collect()
}

#[test]
fn a_pages_explorer_and_embed_links_open_the_configuration_it_draws() {
    let g = gallery();
    for e in ENTRIES {
        let page = &g[&page_of(&e.info.qualified())];
        let (q, x, mode) = shown(e, false).unwrap();
        let links: Vec<String> = parse_xml(page)
            .elements
            .iter()
            .filter_map(|e| e.attr("href"))
            .filter(|h| h.starts_with(EXPLORER))
            .map(str::to_string)
            .collect();
        assert_eq!(links.len(), 2, "{}: the live link and the embed link", e.info.qualified());
        for (i, link) in links.iter().enumerate() {
            let (page, view, _) = Page::split(&link[EXPLORER.len()..]);
            assert_eq!(page.embed, i == 1, "{link}");
            let (state, _) = State::parse(&view);
            let shown: Vec<String> = state.slots.iter().map(|s| s.quantizer.to_string()).collect();
            assert_eq!((shown, state.x, state.mode), (vec![q.to_string()], x, mode), "{link}");
        }
        assert!(
            page.contains(&format!("&lt;iframe src=&quot;{}", EXPLORER)),
            "{}: the iframe code",
            e.info.qualified()
        );
    }
}

#[test]
fn a_page_shows_formulas_parameters_levels_and_code() {
    let g = gallery();
    let page = &g["qkeras.quantized_bits.html"];
    for needle in [
        "<dd class=\"formula\">q(x) = α·Δ·clip(round(x/Δ)",
        "<tr><td><code>bits</code></td><td data-label=\"default\"><code>8</code></td><td data-label=\"shown\"><code>3</code></td>",
        "an integer from 1 to 32",
        "8 levels, −1 … 0.75, step 0.25",
        "<li>−0.75</li>",
        "q = quantized_bits(3, alpha=1)",
        "Why this configuration: 3 bits",
    ] {
        assert!(page.contains(needle), "{needle}");
    }
    // A snippet that does not agree bit for bit says how it differs.
    assert!(g["qkeras.stochastic_binary.html"].contains("not the same draws"));
    // A data-dependent quantizer says what its curve is frozen at.
    assert!(g["larq.magnitudeawaresign.html"].contains("explorer&apos;s sample tensor, 1000 × normal (σ 0.5), seed 0"));
}

#[test]
fn every_illustrative_configuration_parses_validates_and_trains() {
    for e in ENTRIES {
        let spec = e.info.figure_spec();
        let q = parse(&spec).unwrap_or_else(|err| panic!("{spec}: {err}"));
        assert_eq!(q.validate(), Ok(()), "{spec}");
        assert_eq!(q.unsupported(true), None, "{spec}: the library trains it");
        let (lo, hi) = e.info.figure.x;
        assert!(lo.is_finite() && hi.is_finite() && lo < hi, "{spec}: x range");
        assert!(e.info.figure.why.len() > 20 && !e.info.figure.why.ends_with('.'), "{spec}: a sentence of why");
        assert_eq!(shown(e, false).unwrap().2, Mode::Train, "{spec}");
    }
}

#[test]
fn quantizers_whose_defaults_draw_a_plain_line_are_illustrated_otherwise() {
    for name in [
        "quantized_bits",
        "quantized_linear",
        "quantized_relu",
        "quantized_tanh",
        "quantized_sigmoid",
        "quantized_po2",
        "quantized_relu_po2",
        "quantized_hswish",
        "quantized_ulaw",
        "pact",
        "lsq",
        "fake_quantize",
        "mx",
    ] {
        let e = ENTRIES.iter().find(|e| e.info.name == name).unwrap();
        let (q, _, _) = shown(e, false).unwrap();
        assert_ne!(q, (e.default)(), "{name}");
        let levels = q.levels(&Default::default()).count().unwrap_or(0);
        assert!((2..=32).contains(&levels), "{name}: {levels} levels");
    }
}

#[test]
fn the_defaults_option_draws_the_library_defaults() {
    for e in ENTRIES {
        let (q, x, mode) = shown(e, true).unwrap();
        assert_eq!((&q, x), (&(e.default)(), (-2.0, 2.0)), "{}", e.info.qualified());
        assert_eq!(mode.training(), q.unsupported(true).is_none());
    }
    let specs: Vec<String> = qscope_plot::gallery::defaults().into_iter().flat_map(|i| i.specs).collect();
    let shown: Vec<String> = ENTRIES.iter().map(|e| shown(e, true).unwrap().0.to_string()).collect();
    assert_eq!(shown, specs, "the same specs as the gallery's defaults");
}

#[test]
fn the_gallery_command_writes_the_reference_with_the_explorer_given() {
    let dir = std::env::temp_dir().join(format!("qscope-reference-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_qscope")).args(args).output().unwrap();
    let o = run(&["gallery", dir.to_str().unwrap(), "--defaults", "--explorer", "https://example.org/q/"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(dir.join("qkeras.quantized_bits.html")).unwrap();
    assert!(page.contains("href=\"https://example.org/q/#q=qkeras.quantized_bits&amp;x=-2,2\""), "{page}");
    assert!(dir.join("style.css").exists() && dir.join("index.html").exists());
    let o = run(&["gallery", dir.to_str().unwrap()]);
    assert!(o.status.success());
    let page = std::fs::read_to_string(dir.join("qkeras.quantized_bits.html")).unwrap();
    assert!(
        page.contains(&format!("href=\"{DEFAULT_EXPLORER}#q=qkeras.quantized_bits(bits=3,alpha=1.0)&amp;x=-1.5,1.5\""))
    );
    let _ = std::fs::remove_dir_all(&dir);
    let o = run(&["gallery", "x", "--explorer", "https://a#b"]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("without a #"));
}

#[test]
fn the_notable_auto_figure_is_frozen_at_the_explorers_sample_tensor() {
    let items = qscope_explore::reference::notable().unwrap();
    let auto = items.iter().find(|i| i.specs[0].contains("alpha='auto'")).expect("the frozen 'auto' figure");
    let values = State::default().sample_spec().generate();
    let tensor = qscope_plot::gallery::Tensor { values: &values, name: "" };
    assert_eq!(auto.specs[0], qscope_plot::gallery::frozen_auto_bits(tensor).unwrap());
    assert!(auto.caption.contains("the explorer's sample tensor (1000 × normal (σ 0.5), seed 0)"), "{}", auto.caption);
}
