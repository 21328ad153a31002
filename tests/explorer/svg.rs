//! The SVG figures as files: light (per figure and for the whole gallery), well-formed, one
//! `<path>` per curve with its dash pattern, coordinates in whole units (tenths on sloped
//! dashed lines), colours that follow the
//! reader's scheme (or keep the exported theme); and the pairs of figures the render comparison
//! (tests/e2e/svg.mjs) rasterizes: the compact writer's and plotters' own (the reference).

use std::path::PathBuf;
use std::process::Command;

use crate::common::svg::{El, Svg, parse, subpaths};
use qscope_explore::figure::{from_specs, from_state};
use qscope_explore::reference::notable;
use qscope_explore::reference::shown;
use qscope_explore::state::{Mode, Slot, State};
use qscope_plot::gallery::{X, slug};
use qscope_plot::svg::{Figure, Scheme};
use qscope_plot::{OKABE_ITO, Theme};
use qscope_quant::ENTRIES;

/// A colour as the SVG writes it.
macro_rules! hex {
    ($c:expr) => {{
        let c = $c;
        format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
    }};
}

/// The most one figure may weigh, and the whole gallery.
const FIGURE_MAX: usize = 30_000;
const GALLERY_MAX: usize = 1_500_000;

fn specs(s: &[&str]) -> Vec<String> {
    s.iter().map(|s| s.to_string()).collect()
}

fn figure(s: &[&str], x: (f32, f32)) -> Figure {
    from_specs(&specs(s), x, Mode::Train, 0).unwrap()
}

/// Every figure of `qscope gallery` (with `defaults`: `--defaults`), as it draws them: each
/// quantizer's (its illustrative configuration, or its library defaults), then the notable ones.
fn gallery(defaults: bool) -> Vec<(String, Figure)> {
    let mut out = Vec::new();
    for e in ENTRIES {
        let (quantizer, x, mode) = shown(e, defaults).unwrap();
        let state = State { slots: vec![Slot::new(quantizer)], x, mode, ..State::default() };
        let suffix = if defaults { "-defaults" } else { "" };
        out.push((format!("{}{suffix}", slug(&e.info.qualified())), from_state(&state).unwrap().0));
    }
    if !defaults {
        for it in notable().unwrap() {
            let fig = from_specs(&it.specs, X, Mode::from_training(!it.infer), 0).unwrap();
            out.push((it.file.trim_end_matches(".svg").to_string(), fig));
        }
    }
    out
}

/// The figures README shows, as its commands draw them.
fn readme() -> Vec<(String, Figure)> {
    vec![
        (
            "readme-signs".into(),
            figure(&["qkeras.quantized_bits(4,0,1)", "larq.ste_sign", "larq.approx_sign"], (-1.5, 1.5)),
        ),
        ("readme-soft".into(), figure(&["softround", "soft_round(alpha=4.0)"], (-2.0, 2.0))),
        ("readme-po2".into(), figure(&["qkeras.quantized_po2(4)", "qkeras.quantized_relu(3,1)"], (-3.0, 3.0))),
    ]
}

fn stats(sizes: &mut [usize]) -> String {
    sizes.sort_unstable();
    let total: usize = sizes.iter().sum();
    format!("min {} median {} max {} total {total}", sizes[0], sizes[sizes.len() / 2], sizes[sizes.len() - 1])
}

#[test]
fn the_gallery_is_light_every_figure_and_all_together() {
    for args in [&[][..], &["--defaults"][..]] {
        let dir = std::env::temp_dir().join(format!("qscope-svg-gallery-{}-{}", std::process::id(), args.len()));
        let _ = std::fs::remove_dir_all(&dir);
        let o = Command::new(env!("CARGO_BIN_EXE_qscope")).arg("gallery").arg(&dir).args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut sizes = Vec::new();
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "svg") {
                let n = std::fs::metadata(&path).unwrap().len() as usize;
                assert!(n <= FIGURE_MAX, "{}: {n} bytes, over {FIGURE_MAX}", path.display());
                sizes.push(n);
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        assert!(sizes.len() >= ENTRIES.len(), "{args:?}: {} figures written", sizes.len());
        let total: usize = sizes.iter().sum();
        println!("gallery {args:?}: {} figures, {}", sizes.len(), stats(&mut sizes));
        assert!(total <= GALLERY_MAX, "{args:?}: the gallery's figures weigh {total} bytes, over {GALLERY_MAX}");
    }
}

#[test]
fn every_figure_is_well_formed_with_its_title_description_and_metadata() {
    for (name, fig) in gallery(false).into_iter().chain(gallery(true)).chain(readme()) {
        let svg = parse(&fig.svg().unwrap());
        let root = &svg.elements[0];
        assert_eq!((root.name.as_str(), root.attr("xmlns")), ("svg", Some("http://www.w3.org/2000/svg")), "{name}");
        let text = |tag: &str| svg.elements.iter().find(|e| e.name == tag).map(|e| e.text.clone());
        assert_eq!(text("title"), Some(format!("qscope: {}", fig.title())), "{name}");
        let desc = text("desc").unwrap();
        assert!(
            desc.starts_with("Forward y = q(x) and backward dy/dx of ") && desc.contains(&fig.link),
            "{name}: {desc}"
        );
        let specs: Vec<String> =
            svg.elements.iter().filter(|e| e.name == "qscope:spec").map(|e| e.text.clone()).collect();
        assert_eq!(specs, fig.specs, "{name}");
        assert!(svg.elements.iter().all(|e| e.name != "polyline" && e.name != "polygon" && e.name != "line"), "{name}");
    }
}

/// The paths of curve `i`'s class at full width (its legend samples and its lines).
fn curve_paths(svg: &Svg, i: usize) -> Vec<&El> {
    svg.with("path", &[("stroke", &hex!(OKABE_ITO[i])), ("stroke-width", "5")])
}

#[test]
fn a_dashed_curve_is_one_path_per_panel_with_its_dasharray() {
    let fig = figure(
        &["qkeras.quantized_bits(4,0,1)", "larq.ste_sign", "larq.approx_sign", "soft_round(alpha=4)"],
        (-2.0, 2.0),
    );
    let svg = parse(&fig.svg().unwrap());
    let height = 2.0 * fig.size.1 as f64;
    for (i, dash) in [(0, None), (1, Some("18 8")), (2, Some("18 6 5 6")), (3, Some("32 10"))] {
        let paths = curve_paths(&svg, i);
        // The legend's sample and the curve, in each panel.
        assert_eq!(paths.len(), 4, "curve {i}: {} paths", paths.len());
        for p in &paths {
            assert_eq!(svg.style(p, "stroke-dasharray"), dash, "curve {i}");
        }
        let in_forward = |p: &&&El| subpaths(p.attr("d").unwrap()).iter().flatten().all(|q| q.1 < height / 2.0);
        assert_eq!(paths.iter().filter(in_forward).count(), 2, "curve {i}: legend and curve in the forward panel");
    }
    // quantized_bits' 15 levels: one path, 15 flat runs (and the legend's sample apart).
    let forward = subpaths(curve_paths(&svg, 0)[1].attr("d").unwrap());
    assert_eq!(forward.len(), 15, "{forward:?}");
    assert!(forward.iter().all(|run| run.iter().all(|p| p.1 == run[0].1)));
}

#[test]
fn coordinates_are_whole_units_and_styles_are_written_once() {
    for (name, fig) in [readme().remove(0), gallery(false).remove(0)] {
        let text = fig.svg().unwrap();
        let svg = parse(&text);
        for e in &svg.elements {
            for (k, v) in &e.attrs {
                if ["x", "y", "cx", "cy", "r", "width", "height"].contains(&k.as_str()) && e.name != "svg" {
                    assert!(v.parse::<i64>().is_ok(), "{name}: {k}=\"{v}\" is not a whole unit");
                }
            }
            // Path data: tenths of a unit at most (a sloped dashed line keeps them).
            if let Some(d) = e.attr("d") {
                assert!(d.chars().all(|c| c.is_ascii_alphanumeric() || " -.".contains(c)), "{d}");
                let numbers = d.split(|c: char| c.is_ascii_alphabetic() || c == ' ' || c == '-');
                assert!(numbers.filter_map(|n| n.split_once('.')).all(|(_, f)| f.len() == 1), "{name}: {d}");
            }
            for k in ["stroke", "fill", "opacity", "stroke-width", "font-family", "font-size", "style"] {
                assert!(e.name == "svg" || e.attr(k).is_none(), "{name}: <{}> repeats its style ({k})", e.name);
            }
            if !["svg", "title", "desc", "metadata", "style"].contains(&e.name.as_str())
                && !e.name.starts_with("qscope:")
            {
                assert!(
                    e.attr("class").is_some_and(|c| svg.classes.contains_key(c)),
                    "{name}: <{}> has no class",
                    e.name
                );
            }
        }
        // Numbers in the style block: at most one decimal (font sizes two, opacities three).
        for decls in svg.classes.values() {
            for (k, v) in decls {
                let places = match k.as_str() {
                    "opacity" => 3,
                    "font-size" => 2,
                    _ => 1,
                };
                for n in v.split([' ', ',']).map(|n| n.trim_end_matches("px")).filter(|n| n.parse::<f64>().is_ok()) {
                    assert!(n.split('.').nth(1).is_none_or(|f| f.len() <= places), "{name}: {k}:{v}");
                }
            }
        }
        let mut bodies: Vec<&Vec<(String, String)>> = svg.classes.values().collect();
        let n = bodies.len();
        bodies.sort();
        bodies.dedup();
        assert_eq!(bodies.len(), n, "{name}: two classes with one style");
    }
}

#[test]
fn a_figure_for_any_page_follows_the_readers_scheme_and_an_export_keeps_its_theme() {
    let mut fig = figure(&["qkeras.quantized_bits(4,0,1)"], (-2.0, 2.0));
    assert_eq!(fig.scheme, Scheme::FollowReader);
    let svg = parse(&fig.svg().unwrap());
    assert!(svg.css.contains("@media (prefers-color-scheme:dark)"));
    let background = &svg.elements.iter().find(|e| e.name == "rect").unwrap();
    let class = background.attr("class").unwrap();
    assert_eq!(svg.style(background, "fill"), Some(hex!(Theme::LIGHT.background).as_str()));
    assert_eq!(svg.dark[class], [("fill".to_string(), hex!(Theme::DARK.background))]);
    let blue = svg.with("path", &[("stroke", &hex!(OKABE_ITO[0]))]);
    assert!(blue.iter().all(|p| svg.dark[p.attr("class").unwrap()][0].1 == hex!(Theme::DARK.palette[0])));
    for theme in [Theme::DARK, Theme::HIGH_CONTRAST] {
        (fig.theme, fig.scheme) = (theme, Scheme::Fixed);
        let svg = parse(&fig.svg().unwrap());
        assert!(!svg.css.contains("@media"), "an exported figure keeps its theme");
        let background = svg.elements.iter().find(|e| e.name == "rect").unwrap();
        assert_eq!(svg.style(background, "fill"), Some(hex!(theme.background).as_str()));
    }
}

#[test]
fn figures_inlined_in_one_page_keep_their_own_styles() {
    let a = figure(&["qkeras.quantized_bits(4,0,1)"], (-2.0, 2.0)).svg().unwrap();
    let b = figure(&["larq.ste_sign"], (-2.0, 2.0)).svg().unwrap();
    let (a, b) = (parse(&a), parse(&b));
    let id = |s: &Svg| s.elements[0].attr("id").unwrap().to_string();
    assert_ne!(id(&a), id(&b));
    for s in [&a, &b] {
        let rules = s.css.lines().filter(|l| l.contains('{') && !l.starts_with("@media"));
        for rule in rules {
            assert!(rule.starts_with(&format!("#{} ", id(s))) || rule.starts_with(&format!("#{}{{", id(s))), "{rule}");
        }
    }
}

/// Where the render comparison's pairs go: `QSCOPE_SVG_PAIRS`, else target/tmp/svg-render.
fn pairs_dir() -> PathBuf {
    match std::env::var_os("QSCOPE_SVG_PAIRS") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("svg-render"),
    }
}

#[test]
fn writes_the_render_comparison_pairs() {
    let dir = pairs_dir();
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut names = Vec::new();
    let mut figures = gallery(false);
    figures.extend(gallery(true));
    figures.extend(readme());
    // An export from the page's dark and high-contrast themes keeps them.
    let mut dark = figure(&["qkeras.quantized_bits(4,0,1)", "larq.ste_sign"], (-2.0, 2.0));
    (dark.theme, dark.scheme) = (Theme::DARK, Scheme::Fixed);
    let mut contrast = dark.clone();
    contrast.theme = Theme::HIGH_CONTRAST;
    figures.push(("export-dark".into(), dark));
    figures.push(("export-high-contrast".into(), contrast));
    for (name, fig) in &figures {
        let write = |suffix: &str, text: String| std::fs::write(dir.join(format!("{name}{suffix}.svg")), text).unwrap();
        write("", fig.svg().unwrap());
        write(".ref", fig.svg_reference().unwrap());
        if fig.scheme == Scheme::FollowReader {
            write(".ref-dark", Figure { theme: Theme::DARK, ..fig.clone() }.svg_reference().unwrap());
        }
        names.push(format!("{{\"name\":\"{name}\",\"dark\":{}}}", fig.scheme == Scheme::FollowReader));
    }
    std::fs::write(dir.join("pairs.json"), format!("[\n{}\n]\n", names.join(",\n"))).unwrap();
    println!("{} pairs in {}", figures.len(), dir.display());
}
