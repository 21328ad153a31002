//! `qscope plot` (one figure, SVG or PNG) and `qscope gallery` (one SVG per quantizer and an index).

#[cfg(not(target_arch = "wasm32"))]
use std::io::{self, BufWriter, Write};

#[cfg(not(target_arch = "wasm32"))]
use qscope::quant::spec::fmt_f32;

#[cfg(not(target_arch = "wasm32"))]
use crate::args::{parse_f32, split_option};

/// What `qscope plot` was asked for.
#[cfg(not(target_arch = "wasm32"))]
struct PlotOptions {
    specs: Vec<String>,
    out: String,
    x: (f32, f32),
    size: (u32, u32),
    seed: u64,
    infer: bool,
    crosshair: Option<f32>,
    identity: bool,
    dark: bool,
}

#[cfg(not(target_arch = "wasm32"))]
fn plot_options(args: &[String]) -> Result<PlotOptions, String> {
    let mut o = PlotOptions {
        specs: Vec::new(),
        out: String::new(),
        x: (-2.0, 2.0),
        size: (720, 640),
        seed: 0,
        infer: false,
        crosshair: None,
        identity: false,
        dark: false,
    };
    let mut out = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, inline) = split_option(a);
        let mut value = |what: &str| crate::args::value(name, inline.clone(), &mut it, what);
        match name {
            "-o" | "--output" => out = Some(value("a .svg or .png file")?),
            "--x" => {
                let v = value("LO,HI")?;
                let (lo, hi) = v.split_once(',').ok_or_else(|| format!("--x {v}: expected LO,HI, e.g. -2,2"))?;
                o.x = (parse_f32("--x", lo)?, parse_f32("--x", hi)?);
                if o.x.0 >= o.x.1 {
                    return Err(format!("--x {v}: LO must be less than HI"));
                }
            }
            "--width" | "--height" => {
                let v = value("pixels, 200 to 4000")?;
                let n = v.parse::<u32>().ok().filter(|n| (200..=4000).contains(n));
                let n = n.ok_or_else(|| format!("{name} {v}: expected a whole number of pixels from 200 to 4000"))?;
                if name == "--width" { o.size.0 = n } else { o.size.1 = n }
            }
            "--seed" => {
                let v = value("a non-negative integer")?;
                o.seed = v.parse().map_err(|_| format!("--seed {v}: expected a non-negative integer"))?;
            }
            "--crosshair" => o.crosshair = Some(parse_f32("--crosshair", &value("an x value")?)?),
            "--infer" => o.infer = true,
            "--train" => o.infer = false,
            "--identity" => o.identity = true,
            "--dark" => o.dark = true,
            s if s.starts_with("--") => return Err(format!("unknown option '{s}' for plot")),
            s => o.specs.push(s.to_string()),
        }
    }
    o.out = out.ok_or("plot needs an output file: -o FILE.svg or -o FILE.png")?;
    if o.specs.is_empty() {
        return Err("plot needs a SPEC, e.g. qscope plot 'qkeras.quantized_bits(4,0,1)' -o q.svg".into());
    }
    Ok(o)
}

/// The lower-case extension of a file name.
#[cfg(not(target_arch = "wasm32"))]
fn extension(path: &str) -> String {
    std::path::Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase()
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn plot(args: &[String]) -> Result<(), String> {
    use qscope::explore::figure::from_specs;
    use qscope::explore::state::Mode;
    use qscope::plot::{Crosshair, Theme, read_at};
    let o = plot_options(args)?;
    let ext = extension(&o.out);
    if ext != "svg" && ext != "png" {
        return Err(format!("-o {}: expected a file name ending in .svg or .png", o.out));
    }
    let mut fig = from_specs(&o.specs, o.x, Mode::from_training(!o.infer), o.seed)?;
    fig.size = o.size;
    fig.theme = if o.dark { Theme::DARK } else { Theme::LIGHT };
    fig.view.identity = o.identity;
    fig.view.crosshair = o.crosshair.map(|x| Crosshair { x });
    let bytes = if ext == "svg" { fig.svg()?.into_bytes() } else { fig.png()? };
    std::fs::write(&o.out, bytes).map_err(|e| format!("writing {}: {e}", o.out))?;
    if let Some(x) = o.crosshair {
        let mut out = BufWriter::new(io::stdout().lock());
        let _ = writeln!(out, "x {}", fmt_f32(x));
        for r in read_at(&fig.curves, x) {
            let _ = writeln!(out, "{} y {} dydx {}", fig.specs[r.index], fmt_f32(r.y), fmt_f32(r.dydx));
        }
        out.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn gallery(args: &[String]) -> Result<(), String> {
    use qscope::explore::figure::from_specs;
    use qscope::explore::state::Mode;
    use qscope::plot::export::software;
    use qscope::plot::gallery::{X, index_html, items};
    let dir = match args {
        [] => return Err("gallery needs a directory, e.g. qscope gallery target/gallery".into()),
        [d, ..] if d.starts_with("--") => return Err(format!("unknown option '{d}' for gallery")),
        [d] => std::path::PathBuf::from(d),
        [_, extra, ..] => return Err(format!("unexpected argument '{extra}' (gallery takes one directory)")),
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let items = items()?;
    for it in &items {
        let figure = from_specs(&it.specs, X, Mode::from_training(!it.infer), 0);
        let svg = figure.and_then(|f| f.svg()).map_err(|e| format!("{}: {e}", it.file))?;
        let path = dir.join(&it.file);
        std::fs::write(&path, svg).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    let index = dir.join("index.html");
    std::fs::write(&index, index_html(&items, &software())).map_err(|e| format!("writing {}: {e}", index.display()))?;
    println!("{} figures and index.html in {}", items.len(), dir.display());
    Ok(())
}

// Figures are written natively (SVG/PNG files); this binary is not meant for wasm32, where the
// test harness still compiles it.
#[cfg(target_arch = "wasm32")]
pub(crate) fn plot(_: &[String]) -> Result<(), String> {
    Err("qscope plot writes files: run the native binary".into())
}

#[cfg(target_arch = "wasm32")]
pub(crate) fn gallery(_: &[String]) -> Result<(), String> {
    Err("qscope gallery writes files: run the native binary".into())
}
