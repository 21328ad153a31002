//! `qscope`, the native command-line tool: evaluate, list and plot quantizers, train small
//! quantized networks.

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
    qscope train [options] [--json]                    train a small quantized MLP, per-epoch metrics
    qscope train --bench [--arch 2-8-8-1,...]          training throughput as JSON rows
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

train trains an MLP on a generated 2-D dataset (TF Playground's) and prints, per epoch, the
train and test loss and accuracy (evaluation mode); the same options give the same numbers.
  --dataset NAME      circle, xor, gaussian, spiral, moons, checkerboard, sine (default circle)
  --hidden W,W,...    hidden widths (default 4,2; `--hidden ''` for none)
  --activation A      tanh, relu, sigmoid, linear, or a quantizer SPEC (default tanh)
  --wq SPEC           weight quantizer of every hidden layer (one tensor per layer)
  --aq SPEC           activation quantizer after every hidden activation
  --wqN SPEC --aqN SPEC  hidden layer N's (from 1) weight / activation quantizer instead
                      ('' for float), e.g. --wq1 'larq.ste_sign'
  --quantize-output   also quantize the output layer's weights with --wq
  --loss L            mse (tanh output, labels ±1), bce (sigmoid), softmax (default mse)
  --optimizer O       sgd or adam (default sgd); --momentum M for sgd (default 0)
  --lr X --batch N    learning rate (default 0.03) and batch size (default 10)
  --l1 X --l2 X       weight penalties (default 0)
  --init I            auto, glorot or he (default auto: he for relu, else glorot)
  --features F,...    x1, x2, x1sq, x2sq, x1x2, sinx1, sinx2 (default x1,x2)
  --noise X           0 to 0.5 as Playground's 0–50 % (default 0)
  --samples N         points generated (default 500); --train-ratio X (default 0.5)
  --epochs N          (default 100); --seed N (default 0)
  --json              one JSON object per epoch: epoch, train_loss, test_loss, train_acc, test_acc
  --bench             instead, measure training throughput (samples/s) of --arch networks
                      (default 2-8-8-1,2-64-64-64-1) at --batch (default 10) for --seconds
                      (default 1) each; --quantized adds 4-bit rows
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
        Some("train") => train(&args[1..]),
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
        let (name, inline) = split_option(a);
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

/// `--opt=value` → (`--opt`, Some(value)); anything else → (itself, None), its value (if any)
/// being the next argument, which may start with '-' (`--x -2,2`).
fn split_option(a: &str) -> (&str, Option<String>) {
    match a.split_once('=') {
        Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
        _ => (a, None),
    }
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

/// What `qscope train` was asked for.
struct TrainOptions {
    config: qscope::nn::Config,
    epochs: usize,
    json: bool,
    bench: Option<BenchOptions>,
}

/// `qscope train --bench`: architectures, seconds per row, 4-bit rows too.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))] // the benchmark runs natively only
struct BenchOptions {
    archs: Vec<Vec<usize>>,
    seconds: f64,
    quantized: bool,
}

/// A comma-separated list (empty text: none).
fn parse_list<T>(opt: &str, v: &str, f: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| f(s).map_err(|e| format!("{opt} {v}: {e}"))).collect()
}

fn parse_num<T: std::str::FromStr>(opt: &str, v: &str, what: &str) -> Result<T, String> {
    v.trim().parse().map_err(|_| format!("{opt} {v}: expected {what}"))
}

fn train_options(args: &[String]) -> Result<TrainOptions, String> {
    use qscope::nn::{Act, Config, DatasetKind, Feature, Hidden, Init, Loss, Optimizer};
    use qscope::quant::Quantizer;
    let mut dataset = DatasetKind::Circle;
    let (mut hidden, mut activation) = (vec![4, 2], Act::parse("tanh")?);
    let (mut wq, mut aq, mut quantize_output): (Option<Quantizer>, Option<Quantizer>, bool) = (None, None, false);
    let (mut optimizer, mut momentum) = ("sgd".to_string(), 0.0f32);
    let mut features = None;
    let mut c = Config::new(DatasetKind::Circle);
    let (mut epochs, mut json) = (100usize, false);
    let (mut bench, mut archs, mut seconds, mut quantized) = (false, None, 1.0f64, false);
    let mut overrides = Vec::new();
    let spec = |opt: &str, v: &str| qscope::quant::parse(v).map_err(|e| format!("{opt}: {e}"));
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, inline) = split_option(a);
        let mut value = |what: &str| -> Result<String, String> {
            inline.clone().or_else(|| it.next().cloned()).ok_or_else(|| format!("{name} needs a value ({what})"))
        };
        match name {
            "--dataset" => dataset = DatasetKind::parse(&value("a dataset name")?)?,
            "--hidden" => {
                let v = value("widths, e.g. 8,8")?;
                hidden = parse_list("--hidden", &v, |s| parse_num("--hidden", s, "positive widths, e.g. 8,8"))?;
            }
            "--activation" => activation = Act::parse(&value("tanh, relu, sigmoid, linear or a SPEC")?)?,
            "--wq" => wq = Some(spec("--wq", &value("a quantizer SPEC")?)?),
            "--aq" => aq = Some(spec("--aq", &value("a quantizer SPEC")?)?),
            "--quantize-output" => quantize_output = true,
            "--loss" => c.loss = Loss::parse(&value("mse, bce or softmax")?)?,
            "--optimizer" => optimizer = value("sgd or adam")?,
            "--momentum" => momentum = parse_num(name, &value("a number")?, "a number from 0 to 1")?,
            "--lr" => c.learning_rate = parse_num(name, &value("a number")?, "a positive number")?,
            "--batch" => c.batch = parse_num(name, &value("a count")?, "a positive integer")?,
            "--l1" => c.l1 = parse_num(name, &value("a number")?, "a non-negative number")?,
            "--l2" => c.l2 = parse_num(name, &value("a number")?, "a non-negative number")?,
            "--init" => {
                c.init = match value("auto, glorot or he")?.as_str() {
                    "auto" => Init::Auto,
                    "glorot" => Init::Glorot,
                    "he" => Init::He,
                    v => return Err(format!("--init {v}: expected auto, glorot or he")),
                }
            }
            "--features" => features = Some(parse_list(name, &value("e.g. x1,x2,x1x2")?, Feature::parse)?),
            "--noise" => c.noise = parse_num(name, &value("a number")?, "a number from 0 to 0.5")?,
            "--samples" => c.samples = parse_num(name, &value("a count")?, "a positive integer")?,
            "--train-ratio" => c.train_ratio = parse_num(name, &value("a number")?, "a number between 0 and 1")?,
            "--epochs" => epochs = parse_num(name, &value("a count")?, "a non-negative integer")?,
            "--seed" => c.seed = parse_num(name, &value("a non-negative integer")?, "a non-negative integer")?,
            "--json" => json = true,
            "--bench" => bench = true,
            "--arch" => {
                let v = value("e.g. 2-8-8-1,2-64-64-64-1")?;
                archs = Some(parse_list(name, &v, |a| {
                    a.split('-').map(|w| parse_num("--arch", w, "widths joined by '-', e.g. 2-8-8-1")).collect()
                })?);
            }
            "--seconds" => seconds = parse_num(name, &value("a number")?, "a positive number of seconds")?,
            "--quantized" => quantized = true,
            s if layer_option(s).is_some() => {
                let (weights, n) = layer_option(s).unwrap_or_default();
                let v = value("a quantizer SPEC, or '' for float")?;
                let q = if v.trim().is_empty() { None } else { Some(spec(s, &v)?) };
                overrides.push((s.to_string(), weights, n, q));
            }
            s if s.starts_with('-') => return Err(format!("unknown option '{s}' for train")),
            s => return Err(format!("unexpected argument '{s}' for train (options start with --)")),
        }
    }
    c.dataset = dataset;
    c.features = features.unwrap_or_else(|| Config::new(dataset).features);
    c.optimizer = Optimizer::parse(&optimizer, momentum)?;
    if quantize_output && wq.is_none() {
        return Err("--quantize-output needs --wq SPEC (the weight quantizer to use)".into());
    }
    c.output_weights = if quantize_output { wq.clone() } else { None };
    c.hidden = Hidden::uniform(&hidden, activation, wq, aq);
    for (opt, weights, n, q) in overrides {
        let layers = c.hidden.len();
        let h = c.hidden.get_mut(n - 1).ok_or_else(|| format!("{opt}: the network has {layers} hidden layers"))?;
        if weights { h.weights = q } else { h.output = q }
    }
    let bench = bench.then(|| BenchOptions {
        archs: archs.unwrap_or_else(|| vec![vec![2, 8, 8, 1], vec![2, 64, 64, 64, 1]]),
        seconds,
        quantized,
    });
    if let Some(b) = &bench
        && !(b.seconds.is_finite() && b.seconds > 0.0)
    {
        return Err(format!("--seconds {}: expected a positive number of seconds", b.seconds));
    }
    if bench.is_none() {
        c.check()?;
    }
    Ok(TrainOptions { config: c, epochs, json, bench })
}

/// `--wq2` → (weights, layer 2), `--aq1` → (activations, layer 1): one hidden layer's
/// quantizer (layers from 1).
fn layer_option(opt: &str) -> Option<(bool, usize)> {
    let (weights, n) = match opt.get(..4)? {
        "--wq" => (true, &opt[4..]),
        "--aq" => (false, &opt[4..]),
        _ => return None,
    };
    let n: usize = n.parse().ok().filter(|_| n.bytes().all(|b| b.is_ascii_digit()))?;
    (n >= 1).then_some((weights, n))
}

/// A float for output: shortest text that reads back the same, `null` for None.
fn json_num(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x}"),
        _ => "null".into(),
    }
}

fn train(args: &[String]) -> Result<(), String> {
    use qscope::nn::Trainer;
    let o = train_options(args)?;
    if let Some(b) = o.bench {
        return train_bench(&b, o.config.batch);
    }
    let mut t = Trainer::new(o.config)?;
    let mut out = BufWriter::new(io::stdout().lock());
    let w = |e: io::Error| e.to_string();
    if !o.json {
        let c = t.config();
        let arch: Vec<String> = c.widths().iter().map(usize::to_string).collect();
        let feats: Vec<&str> = c.features.iter().map(|f| f.name()).collect();
        writeln!(
            out,
            "# {} {} ({}), {} train / {} test points",
            c.dataset.name(),
            arch.join("-"),
            feats.join(","),
            t.dataset().train.len(),
            t.dataset().test.len()
        )
        .map_err(w)?;
        if let Some(h) = c.hidden.first() {
            let q = |q: &Option<qscope::quant::Quantizer>| q.as_ref().map_or("float".to_string(), |q| q.to_string());
            writeln!(
                out,
                "# activation {}, weights {}, activations {}, output layer {}",
                h.activation,
                q(&h.weights),
                q(&h.output),
                q(&c.output_weights)
            )
            .map_err(w)?;
        }
    }
    for _ in 0..o.epochs {
        let m = match t.step_epoch() {
            Ok(m) => m,
            Err(e) => {
                out.flush().map_err(w)?;
                return Err(e);
            }
        };
        if o.json {
            writeln!(
                out,
                r#"{{"epoch":{},"train_loss":{},"test_loss":{},"train_acc":{},"test_acc":{}}}"#,
                m.epoch,
                json_num(Some(m.train_loss)),
                json_num(Some(m.test_loss)),
                json_num(m.train_acc),
                json_num(m.test_acc)
            )
            .map_err(w)?;
        } else {
            let pct = |a: Option<f64>| a.map_or("-".to_string(), |a| format!("{:.1}%", 100.0 * a));
            writeln!(
                out,
                "epoch {:>4}  train loss {:.6}  test loss {:.6}  train acc {:>6}  test acc {:>6}",
                m.epoch,
                m.train_loss,
                m.test_loss,
                pct(m.train_acc),
                pct(m.test_acc)
            )
            .map_err(w)?;
        }
    }
    out.flush().map_err(w)
}

#[cfg(not(target_arch = "wasm32"))]
fn train_bench(o: &BenchOptions, batch: usize) -> Result<(), String> {
    use qscope::nn::bench::{measure, native_clock, trainer};
    let mut rows = Vec::new();
    for arch in &o.archs {
        let name: Vec<String> = arch.iter().map(usize::to_string).collect();
        for quantized in [false, true].into_iter().filter(|&q| !q || o.quantized) {
            let mut t = trainer(arch, batch, quantized).map_err(|e| format!("--arch {}: {e}", name.join("-")))?;
            measure(&mut t, o.seconds / 10.0, native_clock())?; // warm-up
            let r = measure(&mut t, o.seconds, native_clock())?;
            let kernel = format!("mlp:{}{}", name.join("-"), if quantized { ":q4" } else { "" });
            rows.push(format!(
                r#"{{"kernel":"{kernel}","pass":"train","impl":"native","runtime":"native","n":{},"batch":{batch},"elements_per_s":{:.0}}}"#,
                r.samples,
                r.per_second()
            ));
        }
    }
    println!("[\n{}\n]", rows.join(",\n"));
    Ok(())
}

#[cfg(target_arch = "wasm32")]
fn train_bench(_: &BenchOptions, _: usize) -> Result<(), String> {
    Err("qscope train --bench measures the native build".into())
}
