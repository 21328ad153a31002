//! `qscope train`: train a small quantized MLP and print per-epoch metrics, or measure
//! training throughput (`--bench`).

use std::io::{self, BufWriter, Write};

use crate::args::{parse_list, parse_num, split_option};

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
        let mut value = |what: &str| crate::args::value(name, inline.clone(), &mut it, what);
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

pub(crate) fn train(args: &[String]) -> Result<(), String> {
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
