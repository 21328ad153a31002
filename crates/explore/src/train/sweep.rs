//! Accuracy against bits: the same net (same seed, data and epochs) trained once per bit width
//! of its weights, its activations, both, or one layer's weights, and once without quantizers —
//! the curve every QAT paper draws. The command line writes the widths into specs as `{bits}`
//! (`qscope train --sweep 'bits=1,2,4' --wq 'qkeras.quantized_bits({bits},0,1)'`); the page picks
//! what to vary and sets the quantizers' `bits` parameter. Both give a [`Sweep`]: the configs to
//! train, which [`SweepRun`] trains a few steps at a time, so a page can run it between frames.

use std::collections::BTreeMap;

use super::{Net, TrainParams};
use qscope_nn::{Config, Trainer};
use qscope_plot::sweep::SweepPlot;
use qscope_quant::schema::Literal;
use qscope_quant::{Quantizer, parse};

/// The placeholder of a bit width in a spec.
pub const BITS: &str = "{bits}";

/// What the page's sweep varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vary {
    Weights,
    Activations,
    Both,
    /// One hidden layer's weights (from 0), the others as they are.
    Layer(usize),
}

impl Vary {
    /// `weights`, `activations`, `both`, `layer2` (layers from 1, as the hash's `wq2`).
    pub fn name(self) -> String {
        match self {
            Vary::Weights => "weights".into(),
            Vary::Activations => "activations".into(),
            Vary::Both => "both".into(),
            Vary::Layer(l) => format!("layer{}", l + 1),
        }
    }

    pub fn parse(text: &str) -> Result<Vary, String> {
        match text.trim() {
            "weights" => Ok(Vary::Weights),
            "activations" => Ok(Vary::Activations),
            "both" => Ok(Vary::Both),
            t => t
                .strip_prefix("layer")
                .and_then(|n| n.parse::<usize>().ok())
                .and_then(|n| n.checked_sub(1))
                .map(Vary::Layer)
                .ok_or_else(|| format!("'{t}': expected weights, activations, both or layerN")),
        }
    }
}

/// One point of a sweep: its label (`4`, or `float`), the bit width (None for float) and the
/// config to train.
#[derive(Clone, Debug)]
pub struct Point {
    pub label: String,
    pub bits: Option<u32>,
    pub config: Config,
}

/// The points to train, in order: one per width, then float.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub points: Vec<Point>,
    pub epochs: usize,
}

/// `1,2,4` → the widths, each 1 to 32, at most 16 of them.
pub fn parse_widths(text: &str) -> Result<Vec<u32>, String> {
    let widths: Result<Vec<u32>, _> = text.split(',').map(|w| w.trim().parse::<u32>()).collect();
    match widths {
        Ok(w) if !w.is_empty() && w.len() <= 16 && w.iter().all(|b| (1..=32).contains(b)) => Ok(w),
        _ => Err(format!("'{text}': expected bit widths from 1 to 32, comma-separated, at most 16")),
    }
}

/// `spec` with its `bits` parameter set to `bits`, printed canonically; an error names a
/// quantizer without one, or a width it refuses.
pub fn with_bits(spec: &str, bits: u32) -> Result<String, String> {
    let mut q: Quantizer = parse(spec).map_err(|e| e.to_string())?;
    if q.get("bits").is_none() {
        return Err(format!("{q} has no bits parameter to vary"));
    }
    q.set("bits", &Literal::Int(i64::from(bits))).map_err(|e| format!("{q}: bits={bits}: {e}"))?;
    q.validate().map_err(|(p, m)| format!("{q}: {p}: {m}"))?;
    Ok(q.to_string())
}

/// `p` with every `{bits}` in its quantizer specs replaced by `bits`.
fn substituted(p: &TrainParams, bits: u32) -> TrainParams {
    let put = |s: &String| s.replace(BITS, &bits.to_string());
    let mut q = p.clone();
    q.wq = put(&p.wq);
    q.aq = put(&p.aq);
    q.layer_wq = p.layer_wq.iter().map(|(&l, s)| (l, put(s))).collect();
    q.layer_aq = p.layer_aq.iter().map(|(&l, s)| (l, put(s))).collect();
    q
}

/// Whether some quantizer spec of `p` holds `{bits}`.
pub fn has_placeholder(p: &TrainParams) -> bool {
    [&p.wq, &p.aq].into_iter().chain(p.layer_wq.values()).chain(p.layer_aq.values()).any(|s| s.contains(BITS))
}

impl Sweep {
    /// The command line's sweep: `p`'s specs with `{bits}` written as each width in turn.
    pub fn from_template(p: &TrainParams, widths: &[u32], epochs: usize) -> Result<Sweep, String> {
        if !has_placeholder(p) {
            return Err(format!(
                "--sweep needs {BITS} in a quantizer spec, e.g. --wq 'qkeras.quantized_bits({BITS},0,1)'"
            ));
        }
        let points = widths.iter().map(|&b| (b, substituted(p, b))).collect::<Vec<_>>();
        Sweep::of(p, points, epochs)
    }

    /// The page's sweep: the quantizers `vary` names with their `bits` set to each width.
    pub fn varying(p: &TrainParams, vary: Vary, widths: &[u32], epochs: usize) -> Result<Sweep, String> {
        let mut points = Vec::new();
        for &b in widths {
            let mut q = p.clone();
            let set = |s: &str, what: &str| with_bits(s, b).map_err(|e| format!("{what}: {e}"));
            match vary {
                Vary::Weights | Vary::Both if p.wq.trim().is_empty() => {
                    return Err("the weights are float: choose a weight quantizer to vary".into());
                }
                Vary::Activations | Vary::Both if p.aq.trim().is_empty() => {
                    return Err("the activations are float: choose an activation quantizer to vary".into());
                }
                _ => {}
            }
            // Every hidden layer's spec of a tensor: the global one and the overrides (float stays).
            let every = |global: &str, layers: &BTreeMap<usize, String>, what: &str| -> Result<_, String> {
                let layers = layers
                    .iter()
                    .map(|(&l, s)| Ok((l, if s.is_empty() { s.clone() } else { set(s, what)? })))
                    .collect::<Result<_, String>>()?;
                Ok((set(global, what)?, layers))
            };
            if matches!(vary, Vary::Weights | Vary::Both) {
                (q.wq, q.layer_wq) = every(&p.wq, &p.layer_wq, "weights")?;
            }
            if matches!(vary, Vary::Activations | Vary::Both) {
                (q.aq, q.layer_aq) = every(&p.aq, &p.layer_aq, "activations")?;
            }
            if let Vary::Layer(l) = vary {
                if l >= p.hidden.len() {
                    return Err(format!("the network has {} hidden layers", p.hidden.len()));
                }
                let spec = p.weight_spec(l).to_string();
                if spec.trim().is_empty() {
                    return Err(format!("hidden layer {}'s weights are float: choose a quantizer to vary", l + 1));
                }
                q.layer_wq.insert(l, set(&spec, &format!("hidden layer {} weights", l + 1))?);
            }
            points.push((b, q));
        }
        Sweep::of(p, points, epochs)
    }

    fn of(p: &TrainParams, widths: Vec<(u32, TrainParams)>, epochs: usize) -> Result<Sweep, String> {
        let mut points = Vec::with_capacity(widths.len() + 1);
        for (b, q) in widths {
            let config = q.config(Net::Quantized).map_err(|e| format!("{b} bits: {e}"))?;
            points.push(Point { label: b.to_string(), bits: Some(b), config });
        }
        points.push(Point { label: "float".into(), bits: None, config: p.config(Net::Float)? });
        Ok(Sweep { points, epochs })
    }
}

/// One trained point: its test accuracy and loss after the sweep's epochs (None where training
/// stopped, with why).
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub label: String,
    pub bits: Option<u32>,
    pub spec: String,
    pub test_acc: Option<f64>,
    pub test_loss: f64,
    pub error: Option<String>,
}

/// A sweep in progress: the point being trained and those done.
pub struct SweepRun {
    sweep: Sweep,
    current: Option<Trainer>,
    pub done: Vec<Outcome>,
}

impl SweepRun {
    pub fn new(sweep: Sweep) -> SweepRun {
        SweepRun { sweep, current: None, done: Vec::new() }
    }

    /// Epochs trained of all the sweep's, and all (for a progress bar).
    pub fn progress(&self) -> (usize, usize) {
        let e = self.sweep.epochs;
        (self.done.len() * e + self.current.as_ref().map_or(0, Trainer::epoch), self.sweep.points.len() * e)
    }

    pub fn finished(&self) -> bool {
        self.done.len() == self.sweep.points.len()
    }

    /// Up to `steps` training steps; whether the sweep is finished.
    pub fn advance(&mut self, steps: usize) -> bool {
        for _ in 0..steps {
            if self.finished() {
                break;
            }
            let point = &self.sweep.points[self.done.len()];
            let mut t = match self.current.take() {
                Some(t) => t,
                None => match Trainer::new(point.config.clone()) {
                    Ok(t) => t,
                    Err(e) => {
                        self.done.push(outcome(point, None, Some(e)));
                        continue;
                    }
                },
            };
            // A point ends the step its last epoch does (or training stops).
            let stopped = if t.epoch() < self.sweep.epochs { t.step().err() } else { None };
            if stopped.is_some() || t.epoch() >= self.sweep.epochs {
                self.done.push(outcome(point, t.history().last(), stopped));
            } else {
                self.current = Some(t);
            }
        }
        self.finished()
    }

    /// The whole sweep at once (the command line).
    pub fn run(sweep: Sweep) -> Vec<Outcome> {
        let mut r = SweepRun::new(sweep);
        while !r.advance(1 << 16) {}
        r.done
    }
}

/// The figure of a finished (or partly finished) sweep: each width that trained, and float.
pub fn plot_of(outcomes: &[Outcome], subtitle: String) -> SweepPlot {
    let points = outcomes.iter().filter_map(|o| Some((o.bits?, o.test_acc?))).collect();
    let float = outcomes.iter().find(|o| o.bits.is_none()).and_then(|o| o.test_acc);
    SweepPlot { points, float, subtitle }
}

/// What the figure's subtitle says: the data and net, what varied, from which quantizer, for how
/// long: `digits 64-16-16-10 · weights' bits of qkeras.quantized_bits · 30 epochs each, seed 0`.
pub fn subtitle(p: &TrainParams, vary: Vary, epochs: usize) -> String {
    let data = p.table.as_ref().map_or(p.dataset.name().to_string(), |t| t.name.clone());
    let widths = p.config(Net::Float).map(|c| c.widths()).unwrap_or_default();
    let arch: Vec<String> = widths.iter().map(usize::to_string).collect();
    let name =
        |spec: &str| parse(spec).map(|q| q.to_string()).ok().and_then(|s| s.split('(').next().map(str::to_string));
    let (what, spec) = match vary {
        Vary::Weights => ("weights'".to_string(), name(&p.wq)),
        Vary::Activations => ("activations'".to_string(), name(&p.aq)),
        Vary::Both => ("weights' and activations'".to_string(), name(&p.wq)),
        Vary::Layer(l) => (format!("hidden layer {}'s weights'", l + 1), name(p.weight_spec(l))),
    };
    let of = spec.map_or(String::new(), |s| format!(" of {s}"));
    format!("{data} {} · {what} bits{of} · {epochs} epochs each, seed {}", arch.join("-"), p.seed)
}

fn outcome(point: &Point, m: Option<&qscope_nn::Metrics>, error: Option<String>) -> Outcome {
    let spec = point
        .config
        .hidden
        .first()
        .and_then(|h| h.weights.as_ref().or(h.output.as_ref()))
        .map_or("float".into(), Quantizer::to_string);
    Outcome {
        label: point.label.clone(),
        bits: point.bits,
        spec,
        test_acc: if error.is_some() { None } else { m.and_then(|m| m.test_acc) },
        test_loss: m.map_or(f64::NAN, |m| m.test_loss),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(hash: &str) -> TrainParams {
        let (p, problems) = TrainParams::parse(hash);
        assert!(problems.is_empty(), "{problems:?}");
        p
    }

    #[test]
    fn widths_are_read_and_bad_ones_named() {
        assert_eq!(parse_widths("1, 2,4"), Ok(vec![1, 2, 4]));
        assert!(parse_widths("0,2").unwrap_err().contains("from 1 to 32"));
        assert!(parse_widths("").is_err());
    }

    #[test]
    fn a_quantizers_bits_are_set_and_one_without_bits_is_named() {
        assert_eq!(
            with_bits("qkeras.quantized_bits(4,0,1)", 2).unwrap(),
            parse("qkeras.quantized_bits(2,0,1)").unwrap().to_string()
        );
        assert_eq!(with_bits("larq.ste_sign", 2).unwrap_err(), "larq.SteSign has no bits parameter to vary");
        assert_eq!(Vary::parse("layer2"), Ok(Vary::Layer(1)));
        assert_eq!(Vary::Layer(1).name(), "layer2");
        assert!(Vary::parse("layer0").is_err());
    }

    #[test]
    fn the_template_and_the_varied_sweep_train_the_same_configs() {
        let mut p = params("#view=train&dataset=xor&hidden=4&wq=qkeras.quantized_bits(4,0,1)&aq=");
        let varied = Sweep::varying(&p, Vary::Weights, &[1, 3], 2).unwrap();
        p.wq = "qkeras.quantized_bits({bits},0,1)".into();
        let templated = Sweep::from_template(&p, &[1, 3], 2).unwrap();
        let labels: Vec<&str> = templated.points.iter().map(|x| x.label.as_str()).collect();
        assert_eq!(labels, ["1", "3", "float"]);
        for (a, b) in varied.points.iter().zip(&templated.points) {
            assert_eq!(a.config, b.config, "{}", a.label);
        }
        assert!(templated.points[2].config.hidden[0].weights.is_none());
        let p2 = params("#view=train&dataset=xor&hidden=4&wq=larq.ste_sign");
        assert!(Sweep::from_template(&p2, &[1], 1).unwrap_err().contains("needs {bits}"));
        assert!(Sweep::varying(&p2, Vary::Weights, &[1], 1).unwrap_err().contains("no bits parameter"));
    }

    #[test]
    fn one_layer_varies_and_the_others_keep_their_quantizer() {
        let p = params("#view=train&dataset=xor&hidden=4,4&wq=qkeras.quantized_bits(8,0,1)&aq=");
        let s = Sweep::varying(&p, Vary::Layer(1), &[2], 1).unwrap();
        let h = &s.points[0].config.hidden;
        assert_eq!(h[0].weights, Some(parse("qkeras.quantized_bits(8,0,1)").unwrap()));
        assert_eq!(h[1].weights, Some(parse("qkeras.quantized_bits(2,0,1)").unwrap()));
    }

    #[test]
    fn a_run_trains_each_point_for_the_epochs_and_counts_its_progress() {
        let p = params("#view=train&dataset=xor&hidden=4&wq=qkeras.quantized_bits(4,0,1)&aq=");
        let sweep = Sweep::varying(&p, Vary::Weights, &[1, 4], 3).unwrap();
        let direct = {
            let mut t = Trainer::new(sweep.points[1].config.clone()).unwrap();
            (0..3).map(|_| t.step_epoch().unwrap()).last().unwrap()
        };
        let mut run = SweepRun::new(sweep);
        assert_eq!(run.progress(), (0, 9));
        let mut slices = 0;
        while !run.advance(7) {
            slices += 1;
            let (done, of) = run.progress();
            assert!(done <= of);
        }
        assert!(slices > 3, "trained in slices");
        assert_eq!(run.done.len(), 3);
        assert_eq!(run.done[1].test_acc, direct.test_acc);
        assert_eq!(run.done[1].test_loss, direct.test_loss);
        assert_eq!(run.done[2].label, "float");
        assert_eq!(run.progress(), (9, 9));
    }
}
