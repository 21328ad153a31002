//! `qscope train --sweep bits=1,2,4 --wq 'qkeras.quantized_bits({bits},0,1)'`: accuracy against
//! bits — the same net trained once per width and once float, a row each (or a JSON object).

use std::io::{self, BufWriter, Write};

use qscope_explore::train::TrainParams;
use qscope_explore::train::settings::{AQ, LayerKey, WQ};
use qscope_explore::train::sweep::{BITS, Outcome, Sweep, SweepRun};

/// `args` with every value holding `{bits}` given a width (so the options' checks read a spec),
/// and those values as written, with their flags.
pub(super) fn hold_templates(args: &[String]) -> (Vec<String>, Vec<(String, String)>) {
    let mut out = args.to_vec();
    let mut held = Vec::new();
    for i in 1..out.len() {
        if out[i].contains(BITS) && out[i - 1].starts_with("--") {
            held.push((out[i - 1].clone(), out[i].clone()));
            out[i] = out[i].replace(BITS, "4");
        }
    }
    (out, held)
}

/// Puts the templates back into the settings their flags name.
pub(super) fn restore_templates(p: &mut TrainParams, held: &[(String, String)]) {
    for (flag, raw) in held {
        match flag.as_str() {
            f if Some(f) == WQ.flag => p.wq = raw.clone(),
            f if Some(f) == AQ.flag => p.aq = raw.clone(),
            f => {
                if let Some(key) = f.strip_prefix("--").and_then(LayerKey::parse) {
                    let layers = match key.tensor {
                        qscope_nn::QuantizedTensor::Weights => &mut p.layer_wq,
                        qscope_nn::QuantizedTensor::Activation => &mut p.layer_aq,
                    };
                    layers.insert(key.layer, raw.clone());
                }
            }
        }
    }
}

fn pct(a: Option<f64>) -> String {
    a.map_or("-".into(), |a| format!("{:.1}%", 100.0 * a))
}

fn json_row(o: &Outcome) -> String {
    let num = |v: Option<f64>| v.filter(|v| v.is_finite()).map_or("null".into(), |v| v.to_string());
    let bits = o.bits.map_or("null".into(), |b| b.to_string());
    let error =
        o.error.as_ref().map_or("null".into(), |e| format!("\"{}\"", e.replace('\\', "\\\\").replace('"', "\\\"")));
    format!(
        r#"{{"bits":{bits},"spec":"{}","test_acc":{},"test_loss":{},"error":{error}}}"#,
        o.spec.replace('"', "\\\""),
        num(o.test_acc),
        num(Some(o.test_loss))
    )
}

/// Trains the sweep and prints it.
pub(super) fn run(p: &TrainParams, widths: &[u32], epochs: usize, json: bool) -> Result<(), String> {
    let sweep = Sweep::from_template(p, widths, epochs)?;
    let labels: Vec<String> = sweep.points.iter().map(|x| x.label.clone()).collect();
    let outcomes = SweepRun::run(sweep);
    let mut out = BufWriter::new(io::stdout().lock());
    let w = |e: io::Error| e.to_string();
    if json {
        for o in &outcomes {
            writeln!(out, "{}", json_row(o)).map_err(w)?;
        }
        return out.flush().map_err(w);
    }
    writeln!(out, "# accuracy against bits: {} after {epochs} epochs each (seed {})", labels.join(", "), p.seed)
        .map_err(w)?;
    writeln!(out, "bits\ttest acc\ttest loss\tfirst layer's quantizer").map_err(w)?;
    for o in &outcomes {
        let acc = o.error.as_ref().map_or(pct(o.test_acc), |e| format!("stopped: {e}"));
        writeln!(out, "{}\t{acc}\t{:.6}\t{}", o.label, o.test_loss, o.spec).map_err(w)?;
    }
    out.flush().map_err(w)
}
