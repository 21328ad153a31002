//! `qscope`, the native command-line tool: evaluate, list and plot quantizers.

use std::io::{self, BufWriter, Read, Write};
use std::process::ExitCode;

use qscope::quant::spec::fmt_f32;
use qscope::quant::{Ctx, ENTRIES, Family, Levels, parse};

const USAGE: &str = "\
qscope — what a quantizer really computes, forward and backward

USAGE:
    qscope eval SPEC [--seed N] [--infer] [--report]   numbers on stdin → `x y dydx` lines
    qscope list [FAMILY]                               every quantizer, parameters, defaults
    qscope plot SPEC... -o FILE.svg|FILE.png [options] forward + backward figure, up to 6 specs
    qscope gallery DIR                                 one SVG per quantizer, and an index.html
    qscope bench [--n 1000000,4000000] [--reps 15]     native throughput as JSON rows
    qscope help | --help | --version

SPEC examples:
    'qkeras.quantized_bits(4,0,1,alpha=1)'   'larq.SteTern(threshold_value=0.1)'
    'larq.ste_sign'   'softround'   'lsq(bits=4, step=0.1)'
    'quantized_bits(4,0,1)'   '{\"class_name\": \"quantized_bits\", \"config\": {\"bits\": 4}}'

eval reads whitespace-separated numbers (nan, inf, -inf accepted) as one tensor and prints
one line per input: x, y = q(x), and dydx = ∂(Σy)/∂x as the library's autodiff gives it.
  --seed N   seed of the random stream of stochastic quantizers (default 0)
  --infer    inference behaviour (Keras learning phase 0); training is the default
  --report   print data-dependent numbers (scale, threshold, parameter gradients) to stderr

plot draws the forward panel y = q(x) above the backward panel dy/dx, the specs compared in
one figure (Okabe–Ito colours and dash patterns), as SVG or as PNG at 2×; the specs, the
permalink and the version are embedded in the file.
  -o FILE           output file, .svg or .png (required)
  --x LO,HI         x range (default -2,2)
  --width W         figure width in pixels (default 720; the PNG has 2×)
  --height H        figure height in pixels (default 640)
  --crosshair X     draw a vertical line at X and print every curve's y and dy/dx there
  --identity        draw y = x faintly in the forward panel
  --dark            dark theme
  --seed N, --infer as for eval
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("qscope: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("eval") => eval(&args[1..]),
        Some("list") => list(args.get(1).map(String::as_str)),
        Some("plot") => plot(&args[1..]),
        Some("gallery") => gallery(&args[1..]),
        Some("bench") => bench(&args[1..]),
        Some("help" | "--help" | "-h") | None => {
            print!("{USAGE}");
            Ok(())
        }
        Some("--version" | "-V") => {
            println!("qscope {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Some(other) => Err(format!("unknown command '{other}' (try `qscope --help`)")),
    }
}

struct EvalOptions {
    spec: String,
    seed: u64,
    infer: bool,
    report: bool,
}

fn eval_options(args: &[String]) -> Result<EvalOptions, String> {
    let mut spec = None;
    let mut o = EvalOptions { spec: String::new(), seed: 0, infer: false, report: false };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seed" => {
                let v = it.next().ok_or("--seed needs a value (a non-negative integer)")?;
                o.seed = v.parse().map_err(|_| format!("--seed {v}: expected a non-negative integer"))?;
            }
            "--infer" => o.infer = true,
            "--train" => o.infer = false,
            "--report" => o.report = true,
            s if s.starts_with("--") => return Err(format!("unknown option '{s}' for eval")),
            s if spec.is_none() => spec = Some(s.to_string()),
            s => {
                return Err(format!("unexpected argument '{s}' (quote the spec: qscope eval 'SPEC')"));
            }
        }
    }
    o.spec = spec.ok_or("eval needs a SPEC, e.g. qscope eval 'qkeras.quantized_bits(4,0,1)'")?;
    Ok(o)
}

/// Parses one input token as an f32 (nan, inf, -inf and +inf accepted).
fn parse_number(tok: &str, index: usize) -> Result<f32, String> {
    let t = tok.to_ascii_lowercase();
    let t = t.strip_prefix('+').unwrap_or(&t);
    match t {
        "nan" | "-nan" => return Ok(f32::NAN),
        "inf" | "infinity" => return Ok(f32::INFINITY),
        "-inf" | "-infinity" => return Ok(f32::NEG_INFINITY),
        _ => {}
    }
    t.parse::<f32>().map_err(|_| format!("input value {} ('{tok}') is not a number", index + 1))
}

fn eval(args: &[String]) -> Result<(), String> {
    let o = eval_options(args)?;
    let q = parse(&o.spec).map_err(|e| e.to_string())?;
    if let Some(why) = q.unsupported(!o.infer) {
        return Err(why);
    }
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).map_err(|e| format!("reading stdin: {e}"))?;
    let x = input.split_whitespace().enumerate().map(|(i, t)| parse_number(t, i)).collect::<Result<Vec<f32>, _>>()?;
    let mut ctx = if o.infer { Ctx::inference(o.seed) } else { Ctx::new(o.seed) };
    let (y, g, report) = q.eval(&x, &mut ctx);
    let mut out = BufWriter::new(io::stdout().lock());
    for i in 0..x.len() {
        writeln!(out, "{} {} {}", fmt_f32(x[i]), fmt_f32(y[i]), fmt_f32(g[i])).map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())?;
    if o.report {
        eprintln!("# spec {q}");
        if let Some(s) = report.scale {
            eprintln!("# scale {}", fmt_f32(s));
        }
        if let Some(t) = report.threshold {
            eprintln!("# threshold {}", fmt_f32(t));
        }
        for (name, v) in &report.param_grads {
            eprintln!("# d(sum y)/d{name} {}", fmt_f32(*v));
        }
        match q.levels(&report) {
            Levels::Continuous => eprintln!("# levels continuous"),
            Levels::Grid { step } => eprintln!("# levels every multiple of {}", fmt_f32(step)),
            l => eprintln!("# levels {} from {:?}", l.count().unwrap_or(0), l.bounds()),
        }
    }
    Ok(())
}

fn list(family: Option<&str>) -> Result<(), String> {
    let filter = match family.map(str::to_ascii_lowercase).as_deref() {
        None => None,
        Some("qkeras") => Some(Family::QKeras),
        Some("larq") => Some(Family::Larq),
        Some("beyond") => Some(Family::Beyond),
        Some(f) => {
            return Err(format!("unknown family '{f}'; expected qkeras, larq or beyond"));
        }
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let mut current = None;
    for e in ENTRIES.iter().filter(|e| filter.is_none_or(|f| f == e.info.family)) {
        if current != Some(e.info.family) {
            current = Some(e.info.family);
            let _ = writeln!(out, "\n{}", e.info.family.title());
        }
        let default = (e.default)();
        let aliases =
            if e.info.aliases.is_empty() { String::new() } else { format!("  (also: {})", e.info.aliases.join(", ")) };
        let _ = writeln!(out, "  {}{aliases}\n      {}", e.info.qualified(), e.info.summary);
        let _ = writeln!(out, "      forward:  {}\n      backward: {}", e.info.forward, e.info.backward);
        for p in e.params {
            let d = default.get(p.name).map(|l| l.to_string()).unwrap_or_default();
            let _ = writeln!(out, "      {:<26} = {:<10} {} [{}]", p.name, d, p.doc, p.kind.describe());
        }
    }
    out.flush().map_err(|e| e.to_string())
}

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

/// A finite number for option `opt`.
#[cfg(not(target_arch = "wasm32"))]
fn parse_f32(opt: &str, v: &str) -> Result<f32, String> {
    v.trim().parse::<f32>().ok().filter(|x| x.is_finite()).ok_or_else(|| format!("{opt} {v}: expected a finite number"))
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
        // `--opt=value` or `--opt value` (a value may start with '-': `--x -2,2`).
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = |what: &str| -> Result<String, String> {
            inline.clone().or_else(|| it.next().cloned()).ok_or_else(|| format!("{name} needs a value ({what})"))
        };
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
fn plot(args: &[String]) -> Result<(), String> {
    use qscope::plot::export::Figure;
    use qscope::plot::{Crosshair, Theme, read_at};
    let o = plot_options(args)?;
    let ext = extension(&o.out);
    if ext != "svg" && ext != "png" {
        return Err(format!("-o {}: expected a file name ending in .svg or .png", o.out));
    }
    let mut fig = Figure::from_specs(&o.specs, o.x, o.infer, o.seed)?;
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
fn gallery(args: &[String]) -> Result<(), String> {
    use qscope::plot::export::software;
    use qscope::plot::gallery::{figure, index_html, items};
    let dir = match args {
        [] => return Err("gallery needs a directory, e.g. qscope gallery target/gallery".into()),
        [d, ..] if d.starts_with("--") => return Err(format!("unknown option '{d}' for gallery")),
        [d] => std::path::PathBuf::from(d),
        [_, extra, ..] => return Err(format!("unexpected argument '{extra}' (gallery takes one directory)")),
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let items = items()?;
    for it in &items {
        let svg = figure(it).and_then(|f| f.svg()).map_err(|e| format!("{}: {e}", it.file))?;
        let path = dir.join(&it.file);
        std::fs::write(&path, svg).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    let index = dir.join("index.html");
    std::fs::write(&index, index_html(&items, &software())).map_err(|e| format!("writing {}: {e}", index.display()))?;
    println!("{} figures and index.html in {}", items.len(), dir.display());
    Ok(())
}

/// Native throughput of the benchmark kernels and of a plain copy, as JSON rows
/// (the format of target/bench.json).
/// Figures are written natively (SVG/PNG files); this binary is not meant for wasm32, where the
/// test harness still compiles it.
#[cfg(target_arch = "wasm32")]
fn plot(_: &[String]) -> Result<(), String> {
    Err("qscope plot writes files: run the native binary".into())
}

#[cfg(target_arch = "wasm32")]
fn gallery(_: &[String]) -> Result<(), String> {
    Err("qscope gallery writes files: run the native binary".into())
}

fn bench(args: &[String]) -> Result<(), String> {
    use qscope::bench::{KERNELS, Workload, median};
    use std::time::Instant;
    let mut sizes = vec![1_000_000usize, 4_000_000];
    let mut reps = 15usize;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
        match a.as_str() {
            "--n" => {
                sizes = v
                    .split(',')
                    .map(|s| s.trim().parse().map_err(|_| format!("--n {v}: expected sizes")))
                    .collect::<Result<_, _>>()?
            }
            "--reps" => reps = v.parse().map_err(|_| format!("--reps {v}: expected a count"))?,
            _ => return Err(format!("unknown option '{a}' for bench")),
        }
    }
    let mut rows = Vec::new();
    let mut sink = 0.0;
    for &n in &sizes {
        let mut time = |w: &mut Workload, f: &dyn Fn(&mut Workload)| {
            f(w);
            f(w); // warm-up
            let t: Vec<f64> = (0..reps)
                .map(|_| {
                    let s = Instant::now();
                    f(w);
                    n as f64 / s.elapsed().as_secs_f64()
                })
                .collect();
            sink += w.checksum();
            median(t)
        };
        let mut w = Workload::new(KERNELS[0], n)?;
        let copy = time(&mut w, &|w| w.copy());
        rows.push(format!(r#"{{"kernel":"copy","pass":"forward","impl":"copy","runtime":"native","n":{n},"elements_per_s":{copy:.0}}}"#));
        for spec in KERNELS {
            let mut w = Workload::new(spec, n)?;
            for (pass, f) in [
                ("forward", &(|w: &mut Workload| w.forward()) as &dyn Fn(&mut Workload)),
                ("forward_backward", &|w: &mut Workload| w.forward_backward()),
            ] {
                let eps = time(&mut w, f);
                rows.push(format!(r#"{{"kernel":"{spec}","pass":"{pass}","impl":"native","runtime":"native","n":{n},"elements_per_s":{eps:.0}}}"#));
            }
        }
    }
    println!("[\n{}\n]", rows.join(",\n"));
    if sink.is_nan() {
        eprintln!("(checksum {sink})");
    }
    Ok(())
}
