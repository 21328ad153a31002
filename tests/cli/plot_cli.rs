//! `qscope plot` and `qscope gallery`: the files they write and how they fail.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::common::svg;

fn qscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qscope")).args(args).output().expect("qscope runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory for one test's files, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn join(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
    fn to_str(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("qscope-plot-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// Renders `args` to `file` in a scratch directory and returns the file's bytes.
fn plot(name: &str, file: &str, args: &[&str]) -> Vec<u8> {
    let dir = scratch(name);
    let out = dir.join(file);
    let mut all = vec!["plot"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", out.to_str().unwrap()]);
    let o = qscope(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read(&out).unwrap()
}

const SPEC: &str = "qkeras.quantized_bits(4,0,1)";
const CANONICAL: &str = "qkeras.quantized_bits(bits=4, symmetric=True)";
const BLUE: &str = "#0072B2";

#[test]
fn an_svg_figure_is_well_formed_and_carries_its_specs_permalink_and_version() {
    let svg = String::from_utf8(plot("svg", "q.svg", &[SPEC, "--x", "-2,2"])).unwrap();
    let root = &svg::parse(&svg).elements[0];
    assert_eq!(root.name, "svg");
    assert_eq!((root.attr("width"), root.attr("height")), (Some("720"), Some("640")));
    let meta = &svg[svg.find("<metadata>").expect("<metadata>")..svg.find("</metadata>").unwrap()];
    assert!(meta.contains(&format!("<qscope:spec>{CANONICAL}</qscope:spec>")), "{meta}");
    assert!(meta.contains(&format!("software=\"qscope {}\"", env!("CARGO_PKG_VERSION"))), "{meta}");
    assert!(meta.contains("permalink=\"#q=qkeras.quantized_bits(bits=4,symmetric=True)&amp;x=-2,2\""), "{meta}");
    assert!(svg.contains(&format!("<title>qscope: {CANONICAL}</title>")));
}

#[test]
fn an_svg_figure_draws_every_step_and_every_jump() {
    let svg = svg::parse(&String::from_utf8(plot("steps", "q.svg", &[SPEC])).unwrap());
    let h = 1280.0;
    // The forward panel (top half of the 2× viewBox): the curve is one path, a flat subpath per
    // level, 15 (and the legend's sample line, a path of its own above the plot).
    let paths = svg.with("path", &[("stroke", BLUE), ("stroke-width", "5")]);
    let runs: Vec<Vec<(f64, f64)>> = paths
        .iter()
        .map(|p| svg::subpaths(p.attr("d").unwrap()))
        .filter(|runs| runs.iter().flatten().all(|q| q.1 < h / 2.0) && runs.len() > 1)
        .flatten()
        .collect();
    assert_eq!(runs.len(), 15, "{runs:?}");
    assert!(runs.iter().all(|r| r.iter().all(|q| q.1 == r[0].1) && r.last().unwrap().0 - r[0].0 > 20.0));
    let mut heights: Vec<f64> = runs.iter().map(|r| r[0].1).collect();
    heights.sort_by(f64::total_cmp);
    heights.dedup();
    assert_eq!(heights.len(), 15, "one height per level");
    // 14 jumps: a filled and an open dot each.
    assert_eq!(svg.with("circle", &[("fill", BLUE)]).len(), 14);
    assert_eq!(svg.with("circle", &[("fill", "none"), ("stroke", BLUE)]).len(), 14);
    let texts: Vec<&str> = svg.elements.iter().filter(|e| e.name == "text").map(|e| e.text.as_str()).collect();
    assert!(texts.contains(&"STE pass-band") && texts.contains(&"true derivative"), "{texts:?}");
}

#[test]
fn compared_specs_share_one_figure() {
    let svg = String::from_utf8(plot("compare", "c.svg", &[SPEC, "larq.ste_sign", "larq.ApproxSign"])).unwrap();
    let parsed = svg::parse(&svg);
    for (spec, colour) in [(CANONICAL, BLUE), ("larq.SteSign", "#D55E00"), ("larq.ApproxSign", "#009E73")] {
        assert!(svg.contains(&format!(">{spec}</text>")), "no legend for {spec}");
        assert!(!parsed.with("path", &[("stroke", colour), ("stroke-width", "5")]).is_empty(), "no {colour} curve");
        assert!(svg.contains(&format!("<qscope:spec>{spec}</qscope:spec>")));
    }
    assert!(svg.contains(
        "#q=qkeras.quantized_bits(bits=4,symmetric=True)&amp;q=larq.SteSign&amp;q=larq.ApproxSign&amp;x=-2,2"
    ));
}

/// The chunks of a PNG after its signature: (type, data), each CRC checked.
fn chunks(png: &[u8]) -> Vec<(String, Vec<u8>)> {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    let mut out = Vec::new();
    let mut at = 8;
    while at < png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let body = &png[at + 4..at + 8 + len];
        let crc = u32::from_be_bytes(png[at + 8 + len..at + 12 + len].try_into().unwrap());
        assert_eq!(crc32(body), crc, "chunk CRC");
        out.push((String::from_utf8_lossy(&body[..4]).into_owned(), body[4..].to_vec()));
        at += 12 + len;
    }
    out
}

/// The `tEXt` chunks of a PNG: (keyword, Latin-1 text).
fn texts(chunks: &[(String, Vec<u8>)]) -> Vec<(String, String)> {
    chunks
        .iter()
        .filter(|(t, _)| t == "tEXt")
        .map(|(_, d)| {
            let nul = d.iter().position(|&b| b == 0).unwrap();
            (String::from_utf8_lossy(&d[..nul]).into_owned(), d[nul + 1..].iter().map(|&b| b as char).collect())
        })
        .collect()
}

/// CRC-32 (IEEE, reflected), as PNG chunks use it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

#[test]
fn a_png_figure_is_twice_the_size_with_text_chunks() {
    let png = plot("png", "q.png", &[SPEC, "larq.ste_sign", "--width", "300", "--height", "240", "--x", "-1.5,1.5"]);
    let chunks = chunks(&png);
    assert_eq!(chunks[0].0, "IHDR");
    let ihdr = &chunks[0].1;
    let (w, h) =
        (u32::from_be_bytes(ihdr[0..4].try_into().unwrap()), u32::from_be_bytes(ihdr[4..8].try_into().unwrap()));
    assert_eq!((w, h), (600, 480));
    assert_eq!(chunks.last().unwrap().0, "IEND");
    let text = texts(&chunks);
    let get =
        |k: &str| text.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str()).unwrap_or_else(|| panic!("no {k}"));
    assert_eq!(get("Title"), format!("qscope: {CANONICAL}; larq.SteSign"));
    assert_eq!(get("Software"), format!("qscope {}", env!("CARGO_PKG_VERSION")));
    assert_eq!(get("Source"), "#q=qkeras.quantized_bits(bits=4,symmetric=True)&q=larq.SteSign&x=-1.5,1.5");
    assert!(get("Description").contains("for x from -1.5 to 1.5"), "{}", get("Description"));
}

#[test]
fn the_svg_and_the_png_of_one_figure_embed_the_same_link_and_it_reopens_the_figure() {
    let args = [SPEC, "larq.ste_sign", "--x", "-1,1.5", "--infer", "--seed", "9"];
    let svg = String::from_utf8(plot("link-svg", "l.svg", &args)).unwrap();
    let parsed = svg::parse(&svg);
    let figure = parsed.elements.iter().find(|e| e.name == "qscope:figure").expect("<qscope:figure>");
    let in_svg = figure.attr("permalink").unwrap().to_string();
    let png = texts(&chunks(&plot("link-png", "l.png", &args)));
    let in_png = &png.iter().find(|(k, _)| k == "Source").expect("a Source chunk").1;
    assert_eq!(&in_svg, in_png);
    let (state, problems) = qscope_explore::state::State::parse(in_png);
    assert!(problems.is_empty(), "{in_png}: {problems:?}");
    let specs: Vec<String> = state.slots.iter().map(|s| s.quantizer.to_string()).collect();
    assert_eq!(specs, [CANONICAL, "larq.SteSign"]);
    assert_eq!((state.x, state.mode.training(), state.seed), ((-1.0, 1.5), false, 9));
}

#[test]
fn a_crosshair_prints_every_curve_at_x() {
    let dir = scratch("crosshair");
    let out = dir.join("x.svg");
    let o = qscope(&["plot", SPEC, "larq.ste_sign", "--crosshair", "0.1875", "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text, format!("x 0.1875\n{CANONICAL} y 0.25 dydx 1\nlarq.SteSign y 1 dydx 1\n"));
    assert!(std::fs::read_to_string(&out).unwrap().contains(">x = 0.1875</text>"));
}

#[test]
fn bad_arguments_fail_with_one_line() {
    let dir = scratch("bad");
    let svg = dir.join("bad.svg");
    let svg = svg.to_str().unwrap();
    for (args, needle) in [
        (vec!["plot", SPEC], "-o FILE"),
        (vec!["plot", "-o", svg], "needs a SPEC"),
        (vec!["plot", SPEC, "-o", "out.pdf"], ".svg or .png"),
        (vec!["plot", "qkeras.quantized_bit", "-o", svg], "did you mean"),
        (vec!["plot", SPEC, "--x", "2,-2", "-o", svg], "--x 2,-2: expected lo < hi"),
        (vec!["plot", SPEC, "--x", "a,b", "-o", svg], "--x a"),
        (vec!["plot", SPEC, "--width", "10", "-o", svg], "200 to 4000"),
        (vec!["plot", SPEC, "--wat", "-o", svg], "unknown option '--wat'"),
        (vec!["plot", "ste", "ste", "ste", "ste", "ste", "ste", "ste", "-o", svg], "at most 6"),
        (vec!["plot", "qkeras.stochastic_ternary", "-o", svg], "stochastic_ternary"),
        (vec!["gallery"], "needs a directory"),
        (vec!["gallery", "a", "b"], "unexpected argument 'b'"),
    ] {
        let o = qscope(&args);
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("qscope: ") && err.contains(needle), "{args:?}: {err}");
    }
    assert!(!std::path::Path::new(svg).exists(), "no file is written on error");
}

#[test]
fn the_gallery_at_the_defaults_writes_a_figure_per_entry_and_an_index() {
    let dir = scratch("gallery");
    let o = qscope(&["gallery", dir.to_str(), "--defaults"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut items = qscope_plot::gallery::defaults();
    items.extend(qscope_explore::reference::notable().unwrap());
    assert!(items.len() > qscope_quant::ENTRIES.len(), "catalogue defaults and notable configurations");
    let svgs: Vec<String> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".svg") && n != "favicon.svg")
        .collect();
    assert_eq!(svgs.len(), items.len(), "a figure per item, beside the pages' icon");
    let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
    svg::parse(&index);
    for it in &items {
        assert!(index.contains(&format!("src=\"{}\"", it.file)), "index shows {}", it.file);
        let svg = std::fs::read_to_string(dir.join(&it.file)).unwrap();
        svg::parse(&svg);
        for spec in &it.specs {
            let escaped = spec.replace('&', "&amp;").replace('\'', "&apos;").replace('"', "&quot;");
            assert!(index.contains(&escaped), "index shows {spec}");
            assert!(svg.contains(&format!("<qscope:spec>{escaped}</qscope:spec>")), "{} embeds {spec}", it.file);
        }
    }
    // The alpha='auto' configuration is frozen at a sample tensor's scale, so its jumps are exact.
    let auto = items.iter().find(|i| i.specs[0].contains("alpha='auto'")).expect("a frozen 'auto' figure");
    assert!(auto.specs[0].contains("post_training_scale="));
    let svg = svg::parse(&std::fs::read_to_string(dir.join(&auto.file)).unwrap());
    assert!(svg.with("circle", &[("fill", BLUE)]).len() >= 10, "jump dots");
}

// `qscope compare`

/// `qscope compare ARGS -o FILE` in a scratch directory: the file's bytes.
fn compare_file(name: &str, args: &[&str], file: &str) -> Vec<u8> {
    let dir = scratch(name);
    let out = dir.join(file);
    let mut all = args.to_vec();
    all.extend_from_slice(&["-o", out.to_str().unwrap()]);
    let o = qscope(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read(&out).unwrap()
}

#[test]
fn compare_writes_the_same_svg_each_time_with_the_specs_and_link() {
    let args = ["compare", "ml_dtypes.float4_e2m1fn", "torchao.float8", "--sample", "student_t,0.5", "--df", "4"];
    let (a, b) = (compare_file("cmp-a", &args, "a.svg"), compare_file("cmp-b", &args, "b.svg"));
    assert_eq!(a, b);
    let svg = String::from_utf8(a).unwrap();
    assert!(svg.contains("<qscope:spec>ml_dtypes.float4_e2m1fn</qscope:spec>"), "{svg}");
    assert!(svg.contains(
        "permalink=\"#q=ml_dtypes.float4_e2m1fn&amp;q=torchao.float8&amp;x=-2,2&amp;sample=student_t,0.5&amp;df=4\""
    ));
}

#[test]
fn compare_prints_bits_mse_and_sqnr_and_compares_the_preset_without_specs() {
    let out = qscope(&["compare", "ml_dtypes.float8_e4m3fn", "--outliers", "0.01", "--sample", "normal,100"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(text.starts_with("# 1000 × normal (σ 100), 1 % outliers, seed 0\nbits\tMSE\tSQNR_dB\tspec\n8\t"), "{text}");
    assert!(text.contains("ml_dtypes.float8_e4m3fn\t# 10 outputs not finite, left out"), "{text}");
    let preset = qscope(&["compare"]);
    assert!(String::from_utf8_lossy(&preset.stdout).lines().nth(2).unwrap().ends_with("\ttorchao.float8"));
}

#[test]
fn compare_names_a_bad_sample_setting() {
    let out = qscope(&["compare", "--df", "0"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--df 0: expected degrees of freedom from 1 to 100"), "{}", stderr(&out));
}
