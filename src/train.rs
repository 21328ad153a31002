//! `qscope train`: train a small quantized MLP and print per-epoch metrics, or measure
//! training throughput (`--bench`).

use std::io::{self, BufWriter, Write};

use qscope_explore::learned::learned_rows;
use qscope_explore::runs::Runs;
use qscope_explore::settings::Setting;
use qscope_explore::train::bundled;
use qscope_explore::train::confusion::Confusion;
use qscope_explore::train::csv::parse_csv;
use qscope_explore::train::settings::{LayerKey, PER_LAYER, SETTINGS, per_layer};
use qscope_explore::train::sweep::parse_widths;
use qscope_explore::train::{Net, TrainParams};
use qscope_nn::table::Table;
use qscope_nn::{Config, DatasetKind, Metrics};
use std::sync::Arc;

use crate::args::{Command, Opt, list, number, setting};

mod sweep;

pub(crate) const USAGE: &[(&str, &str)] = &[
    ("train [options] [--json]", "train a small quantized MLP, per-epoch metrics"),
    ("train --bench [--arch 2-8-8-1,...]", "training throughput as JSON rows"),
];

/// What `qscope train` was asked for.
struct TrainOptions {
    params: TrainParams,
    /// The settings' flags given (a default may depend on whether one was).
    given: Vec<&'static str>,
    /// Per-layer quantizers as given (`--wq2`), set once the widths are known.
    layers: Vec<(String, LayerKey, String)>,
    epochs: usize,
    json: bool,
    /// `--bench`: architectures, seconds per row, 4-bit rows too.
    bench: bool,
    archs: Vec<Vec<usize>>,
    seconds: f64,
    quantized: bool,
    /// `--sweep bits=…`: the bit widths to write into the specs' `{bits}`.
    sweep: Option<Vec<u32>>,
}

/// A setting's option: `--lr X   learning rate [0.00001 to 10] (default 0.03)`.
fn setting_option(s: &'static Setting<TrainParams>, defaults: &TrainParams) -> Option<Opt<TrainOptions>> {
    let flag = s.flag?;
    setting(s, defaults, move |o: &mut TrainOptions, v: &str| {
        o.given.push(flag);
        o.params.set_flag(flag, v)
    })
}

/// `--wqN` / `--aqN`: one hidden layer's quantizer, named by [`LayerKey`] as the hash does.
fn layer_option() -> Opt<TrainOptions> {
    let flags: Vec<String> = PER_LAYER.iter().filter_map(|(s, _)| s.flag).map(|f| format!("{f}N")).collect();
    let mut opt = Opt::value(
        &flags.join(", "),
        "SPEC",
        "hidden layer N's (from 1) quantizer instead of the global one, '' for float, e.g. --wq1 'larq.ste_sign'",
        |_: &mut TrainOptions, _| Ok(()),
    );
    opt.family = Some(|name| name.strip_prefix("--").and_then(LayerKey::parse).is_some());
    opt.apply = Box::new(|o, name, v| {
        if let Some(key) = name.strip_prefix("--").and_then(LayerKey::parse) {
            o.layers.push((name.to_string(), key, v.to_string()));
        }
        Ok(())
    });
    opt
}

fn command() -> Command<TrainOptions> {
    let defaults = TrainParams::playground();
    let last_global = SETTINGS.iter().rposition(|s| per_layer(s).is_some());
    let mut options = Vec::new();
    for (i, s) in SETTINGS.iter().enumerate() {
        options.extend(setting_option(s, &defaults));
        if Some(i) == last_global {
            options.push(layer_option());
        }
    }
    options.extend([
        Opt::value("--epochs", "N", "epochs to train (default 100)", |o: &mut TrainOptions, v| {
            o.epochs = number("--epochs", v, "a non-negative integer")?;
            Ok(())
        }),
        Opt::switch(
            "--json",
            "one JSON object per epoch: epoch, train_loss, test_loss, train_acc, test_acc",
            |o: &mut TrainOptions| o.json = true,
        ),
        Opt::switch(
            "--bench",
            "instead, measure training throughput (samples/s) of --arch networks at --batch for --seconds each",
            |o: &mut TrainOptions| o.bench = true,
        ),
        Opt::value(
            "--arch",
            "A-B-...,...",
            "--bench's networks (default 2-8-8-1,2-64-64-64-1)",
            |o: &mut TrainOptions, v| {
                o.archs = list("--arch", v, |a| {
                    a.split('-').map(|w| number("--arch", w, "widths joined by '-', e.g. 2-8-8-1")).collect()
                })?;
                Ok(())
            },
        ),
        Opt::value("--seconds", "S", "--bench's time per row (default 1)", |o: &mut TrainOptions, v| {
            o.seconds = number::<f64>("--seconds", v, "a positive number of seconds")?;
            if !(o.seconds.is_finite() && o.seconds > 0.0) {
                return Err(format!("--seconds {v}: expected a positive number of seconds"));
            }
            Ok(())
        }),
        Opt::switch("--quantized", "--bench adds 4-bit rows", |o: &mut TrainOptions| o.quantized = true),
        Opt::value(
            "--sweep",
            "bits=W,...",
            "accuracy against bits: train once per width, written into the specs' {bits} (e.g. --wq 'qkeras.quantized_bits({bits},0,1)'), and once float; prints a row each",
            |o: &mut TrainOptions, v| {
                let widths = v.trim().strip_prefix("bits=").ok_or_else(|| format!("--sweep '{v}': expected bits=W,…, e.g. bits=1,2,4,8"))?;
                o.sweep = Some(parse_widths(widths).map_err(|e| format!("--sweep: {e}"))?);
                Ok(())
            },
        ),
    ]);
    Command {
        name: "train",
        about: "\
train trains an MLP on a generated 2-D dataset (TF Playground's), a bundled real one (digits,
iris, wine, breast_cancer) or a CSV (--data FILE.csv --label COLUMN) and prints, per epoch, the
train and test loss and accuracy (evaluation mode), then for a table the test confusion matrix;
the same options give the same numbers.
The settings are the Train view's: its hash keys and its `qscope train` command name them. With
--twin-wq or --twin-aq (the STE twin's quantizers), the view's three nets train in lockstep, as on
the page: each epoch adds the float twin's and the STE twin's test loss and accuracy."
            .into(),
        options,
        max_free: Some(0),
        extra: "train takes options only, which start with --".into(),
    }
}

pub(crate) fn help() -> String {
    command().help()
}

/// The options, the per-layer quantizers set and the config checked (but for `--bench`, which
/// builds its own networks).
fn train_options(args: &[String]) -> Result<TrainOptions, String> {
    let mut o = TrainOptions {
        params: TrainParams::playground(),
        given: Vec::new(),
        layers: Vec::new(),
        epochs: 100,
        json: false,
        bench: false,
        archs: vec![vec![2, 8, 8, 1], vec![2, 64, 64, 64, 1]],
        seconds: 1.0,
        quantized: false,
        sweep: None,
    };
    // A spec holding `{bits}` (a sweep's template) is checked with a width written in, and kept
    // as written for the sweep.
    let (args, templates) = sweep::hold_templates(args);
    command().parse(&args, &mut o)?;
    let p = &mut o.params;
    if !o.given.contains(&"--features") {
        p.features = Config::new(p.dataset).features;
    }
    if o.given.contains(&"--label") && p.dataset != DatasetKind::Csv {
        return Err("--label names a column of --data FILE.csv".into());
    }
    p.table = load_table(p)?;
    if p.quantize_output && p.wq.trim().is_empty() {
        return Err("--quantize-output needs --wq SPEC (the weight quantizer to use)".into());
    }
    for (name, key, spec) in std::mem::take(&mut o.layers) {
        p.set_layer(key, &spec).map_err(|e| format!("{name}: {e}"))?;
    }
    sweep::restore_templates(p, &templates);
    if o.sweep.is_none() && !templates.is_empty() {
        return Err("{bits} in a spec needs --sweep bits=W,… (the widths to write there)".into());
    }
    Ok(o)
}

/// A table dataset's rows: a bundled dataset's built-in copy, or the `--data` CSV read whole
/// (the trainer holds its rows; at most 100,000 of them).
fn load_table(p: &TrainParams) -> Result<Option<Arc<Table>>, String> {
    match p.dataset {
        DatasetKind::Csv => {
            if p.csv.is_empty() {
                return Err("--dataset csv needs --data FILE.csv".into());
            }
            let bytes = std::fs::read(&p.csv).map_err(|e| format!("--data {}: {e}", p.csv))?;
            let label = (!p.label.is_empty()).then_some(p.label.as_str());
            // Named by the file's name, as the page names the file chosen there.
            let name = std::path::Path::new(&p.csv).file_name().map_or(p.csv.clone(), |n| n.to_string_lossy().into());
            parse_csv(&name, &bytes, label).map(|t| Some(Arc::new(t)))
        }
        d if d.is_table() => bundled::load(d).map(|t| Some(Arc::new(t))),
        _ => Ok(None),
    }
}

/// A table's test confusion matrix as comment lines (none for generated data).
fn confusion_lines(t: &qscope_nn::Trainer) -> Vec<String> {
    Confusion::of(t).map_or_else(Vec::new, |c| c.text_lines())
}

/// A table's test confusion matrix as JSON rows, for `--json`; None for generated data (its
/// lines stay as they were) and regression.
fn json_confusion(t: &qscope_nn::Trainer) -> Option<Vec<String>> {
    Confusion::of(t).map(|c| c.json_rows())
}

/// A float for output: shortest text that reads back the same, `null` for None.
fn json_num(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x}"),
        _ => "null".into(),
    }
}

/// The quantized net alone, or (with an STE twin, `--twin-wq`/`--twin-aq`) the Train view's three
/// nets in lockstep: quantized, float twin, STE twin.
enum Nets {
    One(Box<qscope_nn::Trainer>),
    Three(Box<Runs>),
}

impl Nets {
    fn new(p: &TrainParams) -> Result<Nets, String> {
        Ok(if p.has_twin() {
            Nets::Three(Box::new(Runs::new(p)?))
        } else {
            Nets::One(Box::new(qscope_nn::Trainer::new(p.config(Net::Quantized)?)?))
        })
    }

    fn quantized(&self) -> &qscope_nn::Trainer {
        match self {
            Nets::One(t) => t,
            Nets::Three(r) => &r.q,
        }
    }

    /// The quantized net's test accuracy before any training.
    fn start_accuracy(&mut self) -> Option<f64> {
        match self {
            Nets::One(t) => t.evaluate().test_acc,
            Nets::Three(r) => r.latest(Net::Quantized).and_then(|m| m.test_acc),
        }
    }

    /// One epoch of every net: the quantized net's metrics, then the float twin's and the STE
    /// twin's when they train.
    fn epoch(&mut self) -> Result<(Metrics, Option<(Metrics, Metrics)>), String> {
        match self {
            Nets::One(t) => Ok((t.step_epoch()?, None)),
            Nets::Three(r) => {
                r.epoch()?;
                let latest = |net| r.latest(net).ok_or_else(|| format!("no {net:?} net"));
                Ok((latest(Net::Quantized)?, Some((latest(Net::Float)?, latest(Net::Twin)?))))
            }
        }
    }
}

/// A percentage, or `-` where there is no accuracy (a regression).
fn pct(a: Option<f64>) -> String {
    a.map_or("-".to_string(), |a| format!("{:.1}%", 100.0 * a))
}

/// One epoch as text: the quantized net, then `| float …` and `| twin …`, then the quantized
/// net's learned quantizer parameters (`| learned hidden1_weights_step 0.2312 …`).
fn text_line(m: &Metrics, twins: Option<&(Metrics, Metrics)>, learned: &[(String, f32)]) -> String {
    let mut line = format!(
        "epoch {:>4}  train loss {:.6}  test loss {:.6}  train acc {:>6}  test acc {:>6}",
        m.epoch,
        m.train_loss,
        m.test_loss,
        pct(m.train_acc),
        pct(m.test_acc)
    );
    if let Some((f, t)) = twins {
        line += &format!(
            "  | float test loss {:.6}  test acc {:>6}  | twin test loss {:.6}  test acc {:>6}",
            f.test_loss,
            pct(f.test_acc),
            t.test_loss,
            pct(t.test_acc)
        );
    }
    if !learned.is_empty() {
        line += "  | learned";
        for (key, v) in learned {
            line += &format!(" {key} {v}");
        }
    }
    line
}

/// One epoch as a JSON object; with the twins, their numbers under the lesson tasks' names
/// (`float_test_acc`, `twin_test_acc`…), and `learned`: the quantized net's learned quantizer
/// parameters by [`LearnedRow::key`](qscope_explore::learned::LearnedRow::key).
fn json_line(
    m: &Metrics,
    twins: Option<&(Metrics, Metrics)>,
    learned: &[(String, f32)],
    confusion: Option<Vec<String>>,
) -> String {
    let fields = |prefix: &str, m: &Metrics| {
        format!(
            r#""{prefix}train_loss":{},"{prefix}test_loss":{},"{prefix}train_acc":{},"{prefix}test_acc":{}"#,
            json_num(Some(m.train_loss)),
            json_num(Some(m.test_loss)),
            json_num(m.train_acc),
            json_num(m.test_acc)
        )
    };
    let mut line = format!(r#"{{"epoch":{},{}"#, m.epoch, fields("", m));
    if let Some(rows) = confusion {
        line += &format!(r#","test_confusion":[{}]"#, rows.join(","));
    }
    if let Some((f, t)) = twins {
        line += &format!(",{},{}", fields("float_", f), fields("twin_", t));
    }
    if !learned.is_empty() {
        let pairs: Vec<String> = learned
            .iter()
            .map(|(k, v)| format!(r#""{k}":{}"#, if v.is_finite() { v.to_string() } else { "null".into() }))
            .collect();
        line += &format!(r#","learned":{{{}}}"#, pairs.join(","));
    }
    line + "}"
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let o = train_options(args)?;
    if o.bench {
        return bench(&o);
    }
    if let Some(widths) = &o.sweep {
        return sweep::run(&o.params, widths, o.epochs, o.json);
    }
    let mut nets = Nets::new(&o.params)?;
    let mut out = BufWriter::new(io::stdout().lock());
    let w = |e: io::Error| e.to_string();
    if !o.json {
        let t = nets.quantized();
        let c = t.config();
        let arch: Vec<String> = c.widths().iter().map(usize::to_string).collect();
        let (name, feats) = match &c.table {
            Some(table) => (
                table.name.clone(),
                format!(
                    "{} features{}, {} classes",
                    table.dims(),
                    if c.standardize { " standardized" } else { "" },
                    table.classes.len()
                ),
            ),
            None => (c.dataset.name().to_string(), c.features.iter().map(|f| f.name()).collect::<Vec<_>>().join(",")),
        };
        let (train, test) = t.split_sizes();
        writeln!(out, "# {name} {} ({feats}), {train} train / {test} test points", arch.join("-")).map_err(w)?;
        let q = |q: &Option<qscope_quant::Quantizer>| q.as_ref().map_or("float".to_string(), |q| q.to_string());
        if let Some(h) = c.hidden.first() {
            writeln!(
                out,
                "# activation {}, weights {}, activations {}, output layer {}{}",
                h.activation,
                q(&h.weights),
                q(&h.output),
                q(&c.output_weights),
                if c.batchnorm { ", batch norm after each hidden layer" } else { "" }
            )
            .map_err(w)?;
        }
        let layers = t.layers();
        let start: Vec<String> =
            learned_rows(layers).iter().map(|r| format!("{} {}", r.key(layers.len()), r.value)).collect();
        if !start.is_empty() {
            writeln!(out, "# learned at the start: {}", start.join(" ")).map_err(w)?;
        }
        if let Nets::Three(r) = &nets
            && let (Some(t), Some(h)) = (&r.t, r.t.as_ref().and_then(|t| t.config().hidden.first()))
        {
            let output = q(&t.config().output_weights);
            writeln!(
                out,
                "# beside it: the float twin, and the STE twin with weights {}, activations {}, output layer {output}",
                q(&h.weights),
                q(&h.output)
            )
            .map_err(w)?;
        }
    }
    // `--stop-acc`: the accuracy before the first epoch is the untrained net's, as on the page.
    let stop = o.params.stop;
    let mut before = (stop.accuracy > 0.0).then(|| nets.start_accuracy()).flatten();
    for _ in 0..o.epochs {
        let (m, twins) = match nets.epoch() {
            Ok(m) => m,
            Err(e) => {
                out.flush().map_err(w)?;
                return Err(e);
            }
        };
        let layers = nets.quantized().layers();
        let learned: Vec<(String, f32)> = learned_rows(layers).iter().map(|r| (r.key(layers.len()), r.value)).collect();
        let line = if o.json {
            json_line(&m, twins.as_ref(), &learned, json_confusion(nets.quantized()))
        } else {
            text_line(&m, twins.as_ref(), &learned)
        };
        writeln!(out, "{line}").map_err(w)?;
        if let Some(why) = stop.reached(before, &m) {
            if !o.json {
                writeln!(out, "# {why}").map_err(w)?;
            }
            break;
        }
        before = m.test_acc;
    }
    if !o.json && o.epochs > 0 {
        for line in confusion_lines(nets.quantized()) {
            writeln!(out, "{line}").map_err(w)?;
        }
    }
    out.flush().map_err(w)
}

/// `--bench`: samples per second of each `--arch` network, float (and 4-bit with `--quantized`).
fn bench(o: &TrainOptions) -> Result<(), String> {
    use qscope_bench::train::{measure, native_clock, trainer};
    let batch = o.params.batch;
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
