//! The Train view's settings as plain Rust: what the user chose, its URL hash
//! (`#view=train&dataset=xor&hidden=8,8&wq=…`), the configs of the three networks built from it
//! and the `qscope train` command that reproduces them. Every bad value in a hash falls back to
//! its default and is named in the list of problems.
//!
//! Quantizers: `wq` / `aq` apply to every hidden layer; `wqN` / `aqN` (N from 1) override one
//! layer (an empty value there means float); `qo=1` quantizes the output layer's weights with
//! `wq` too (as `qscope train --quantize-output`; QAT practice keeps it float). `twin_wq` /
//! `twin_aq` add a third network, the quantized one with another weight / activation
//! quantizer — typically the same forward with another STE (`larq.ste_sign` beside
//! `larq.approx_sign`).

use std::collections::BTreeMap;

use super::pace::{Pace, StepBy};
use super::state::{decode, encode};
use crate::nn::{Act, Config, DatasetKind, Feature, Hidden, Loss, Optimizer, Slot};
use crate::quant::{Quantizer, parse};

/// Limits of the Train view's architecture.
pub const MAX_LAYERS: usize = 8;
pub const MAX_WIDTH: usize = 64;

pub const DATASETS: [&str; 6] = ["circle", "xor", "gaussian", "spiral", "moons", "checkerboard"];
pub const ACTIVATIONS: [&str; 4] = ["tanh", "relu", "sigmoid", "linear"];
pub const OPTIMIZERS: [&str; 2] = ["sgd", "adam"];
pub const LOSSES: [&str; 3] = ["mse", "bce", "softmax"];

/// The networks of the view: trained in lockstep from the same seed and data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Net {
    /// With the chosen quantizers.
    Quantized,
    /// The float twin: no quantizer anywhere.
    Float,
    /// The quantized net with `twin_wq` / `twin_aq` in place of its quantizers.
    Twin,
}

/// A layer's weight and activation quantizers (None: float).
pub type LayerQuantizers = (Option<Quantizer>, Option<Quantizer>);

/// What the user chose; the trainers are built from it. The defaults open on the classroom
/// demo: 4-bit weights and activations learning `spiral` (2-16-16-1, Adam) beside the float twin.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainParams {
    pub dataset: DatasetKind,
    pub noise: f32,
    /// Share of the 500 points used for training (the rest test), 0.1 to 0.9.
    pub ratio: f32,
    /// Input features, in [`Feature::ALL`] order.
    pub features: Vec<Feature>,
    pub hidden: Vec<usize>,
    pub activation: String,
    /// Weight and activation quantizer of every hidden layer ("" is float)…
    pub wq: String,
    pub aq: String,
    /// …unless overridden for one layer (0-based; "" is float).
    pub layer_wq: BTreeMap<usize, String>,
    pub layer_aq: BTreeMap<usize, String>,
    /// Quantize the output layer's weights with `wq`.
    pub quantize_output: bool,
    /// The third network's weight / activation quantizer ("" : as the quantized net's).
    pub twin_wq: String,
    pub twin_aq: String,
    /// `mse` (tanh output, as Playground), `bce` or `softmax`.
    pub loss: String,
    /// L1 and L2 penalties on the weights.
    pub l1: f32,
    pub l2: f32,
    pub lr: f32,
    pub batch: usize,
    pub optimizer: String,
    pub seed: u64,
    pub play: bool,
    /// Epochs per second of play (`max`: as fast as the page stays smooth).
    pub pace: Pace,
    /// What the Step button takes: the rest of the epoch, or one batch.
    pub stepby: StepBy,
}

impl Default for TrainParams {
    fn default() -> TrainParams {
        TrainParams {
            dataset: DatasetKind::Spiral,
            noise: 0.0,
            ratio: 0.5,
            features: vec![Feature::X1, Feature::X2],
            hidden: vec![16, 16],
            activation: "tanh".into(),
            wq: "qkeras.quantized_bits(4,0,1)".into(),
            aq: "qkeras.quantized_tanh(4)".into(),
            layer_wq: BTreeMap::new(),
            layer_aq: BTreeMap::new(),
            quantize_output: false,
            twin_wq: String::new(),
            twin_aq: String::new(),
            loss: "mse".into(),
            l1: 0.0,
            l2: 0.0,
            lr: 0.01,
            batch: 10,
            optimizer: "adam".into(),
            seed: 0,
            play: false,
            pace: Pace::Max,
            stepby: StepBy::Epoch,
        }
    }
}

/// `"8,8"` → `[8, 8]`; empty is no hidden layer.
pub fn parse_hidden(text: &str) -> Result<Vec<usize>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let widths: Result<Vec<usize>, _> = text.split(',').map(|w| w.trim().parse::<usize>()).collect();
    match widths {
        Ok(w) if w.len() <= MAX_LAYERS && w.iter().all(|&n| (1..=MAX_WIDTH).contains(&n)) => Ok(w),
        _ => Err(format!("hidden '{text}': widths 1 to {MAX_WIDTH}, comma-separated, at most {MAX_LAYERS} layers")),
    }
}

/// An optional quantizer spec that the trainer accepts: empty is float.
pub fn parse_quantizer(text: &str) -> Result<Option<Quantizer>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let q = parse(text).map_err(|e| e.to_string())?;
    crate::nn::config::check_quantizer(&q)?;
    Ok(Some(q))
}

/// `x1,x2,x1x2` → the features, in [`Feature::ALL`] order, at least one.
pub fn parse_features(text: &str) -> Result<Vec<Feature>, String> {
    let mut chosen = Vec::new();
    for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        chosen.push(Feature::parse(name)?);
    }
    let features: Vec<Feature> = Feature::ALL.iter().copied().filter(|f| chosen.contains(f)).collect();
    if features.is_empty() {
        return Err("expected at least one of x1, x2, x1sq, x2sq, x1x2, sinx1, sinx2".into());
    }
    Ok(features)
}

/// Whether a hash asks for the Train view.
pub fn is_train(hash: &str) -> bool {
    hash.trim_start_matches('#').split('&').any(|p| p == "view=train")
}

/// `wq2` → (Weights, layer 1); `aq10` → (Activation, layer 9).
fn layer_key(key: &str) -> Option<(Slot, usize)> {
    let (slot, n) = match key.get(..2)? {
        "wq" => (Slot::Weights, &key[2..]),
        "aq" => (Slot::Activation, &key[2..]),
        _ => return None,
    };
    let n: usize = n.parse().ok().filter(|_| n.bytes().all(|b| b.is_ascii_digit()))?;
    (n >= 1).then_some((slot, n - 1))
}

/// The spec a network uses where the quantized net has `own`: the STE twin's `twin` when it
/// has one, else `own`.
pub fn for_net<'a>(net: Net, own: &'a str, twin: &'a str) -> &'a str {
    if net == Net::Twin && !twin.trim().is_empty() { twin } else { own }
}

/// A quoted word for a POSIX shell: bare when safe, else in single quotes.
fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.,/=:".contains(&b)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

impl TrainParams {
    /// The weight quantizer spec of hidden layer `l` ("" is float).
    pub fn weight_spec(&self, l: usize) -> &str {
        self.layer_wq.get(&l).unwrap_or(&self.wq)
    }

    /// The activation quantizer spec of hidden layer `l` ("" is float).
    pub fn act_spec(&self, l: usize) -> &str {
        self.layer_aq.get(&l).unwrap_or(&self.aq)
    }

    /// Sets hidden layer `l`'s quantizer: an override, dropped when it equals the global one.
    pub fn set_layer_spec(&mut self, slot: Slot, l: usize, spec: &str) {
        let (global, layers) = match slot {
            Slot::Weights => (&self.wq, &mut self.layer_wq),
            Slot::Activation => (&self.aq, &mut self.layer_aq),
        };
        if spec.trim() == global.trim() {
            layers.remove(&l);
        } else {
            layers.insert(l, spec.trim().to_string());
        }
    }

    /// New widths; overrides of layers that no longer exist are dropped.
    pub fn set_hidden(&mut self, widths: Vec<usize>) {
        let n = widths.len();
        self.layer_wq.retain(|&l, _| l < n);
        self.layer_aq.retain(|&l, _| l < n);
        self.hidden = widths;
    }

    /// Whether the third network (another STE) is on.
    pub fn has_twin(&self) -> bool {
        !(self.twin_wq.trim().is_empty() && self.twin_aq.trim().is_empty())
    }

    /// The settings a change of which needs new trainers (everything but what can change
    /// mid-run: the quantizers, the learning rate, play, pace and what a step takes).
    pub fn rebuild_key(&self) -> TrainParams {
        TrainParams {
            wq: String::new(),
            aq: String::new(),
            layer_wq: BTreeMap::new(),
            layer_aq: BTreeMap::new(),
            quantize_output: false,
            twin_wq: if self.has_twin() { "on".into() } else { String::new() },
            twin_aq: String::new(),
            lr: 0.0,
            play: false,
            pace: Pace::Max,
            stepby: StepBy::Epoch,
            ..self.clone()
        }
    }

    /// Each layer's (weight, activation) quantizer of a network, hidden layers then the
    /// output layer (whose activation slot is always None).
    pub fn quantizers(&self, net: Net) -> Result<Vec<LayerQuantizers>, String> {
        let mut out = Vec::with_capacity(self.hidden.len() + 1);
        for l in 0..self.hidden.len() {
            if net == Net::Float {
                out.push((None, None));
                continue;
            }
            let w = for_net(net, self.weight_spec(l), &self.twin_wq);
            let a = for_net(net, self.act_spec(l), &self.twin_aq);
            let w = parse_quantizer(w).map_err(|e| format!("hidden layer {} weights: {e}", l + 1))?;
            let a = parse_quantizer(a).map_err(|e| format!("hidden layer {} activations: {e}", l + 1))?;
            out.push((w, a));
        }
        let output = match net {
            Net::Float => None,
            _ if !self.quantize_output => None,
            _ => parse_quantizer(for_net(net, &self.wq, &self.twin_wq))
                .map_err(|e| format!("output layer weights: {e}"))?,
        };
        out.push((output, None));
        Ok(out)
    }

    /// The config of one of the networks.
    pub fn config(&self, net: Net) -> Result<Config, String> {
        let mut c = Config::new(self.dataset);
        c.noise = self.noise;
        c.train_ratio = self.ratio;
        c.features = self.features.clone();
        c.l1 = self.l1;
        c.l2 = self.l2;
        let act = Act::parse(&self.activation)?;
        let mut qs = self.quantizers(net)?;
        c.output_weights = qs.pop().and_then(|(w, _)| w);
        c.hidden = self
            .hidden
            .iter()
            .zip(qs)
            .map(|(&width, (weights, output))| Hidden { width, activation: act.clone(), weights, output })
            .collect();
        c.loss = Loss::parse(&self.loss)?;
        c.optimizer = Optimizer::parse(&self.optimizer, 0.0)?;
        c.learning_rate = self.lr;
        c.batch = self.batch;
        c.seed = self.seed;
        c.check()?;
        Ok(c)
    }

    /// The `qscope train` command that trains `net` as this view does, for `epochs` epochs.
    pub fn cli_command(&self, net: Net, epochs: usize) -> String {
        let hidden: Vec<String> = self.hidden.iter().map(usize::to_string).collect();
        let features: Vec<&str> = self.features.iter().map(|f| f.name()).collect();
        let mut args = vec![
            "qscope train".to_string(),
            format!("--dataset {}", self.dataset.name()),
            format!("--features {}", features.join(",")),
            format!("--hidden {}", shell_word(&hidden.join(","))),
            format!("--activation {}", shell_word(&self.activation)),
        ];
        if net != Net::Float {
            let wq = for_net(net, &self.wq, &self.twin_wq);
            let aq = for_net(net, &self.aq, &self.twin_aq);
            if !wq.is_empty() {
                args.push(format!("--wq {}", shell_word(wq)));
            }
            if !aq.is_empty() {
                args.push(format!("--aq {}", shell_word(aq)));
            }
            // The twin's own quantizer replaces every layer's, overrides included.
            if net != Net::Twin || self.twin_wq.trim().is_empty() {
                for (l, s) in &self.layer_wq {
                    args.push(format!("--wq{} {}", l + 1, shell_word(s)));
                }
            }
            if net != Net::Twin || self.twin_aq.trim().is_empty() {
                for (l, s) in &self.layer_aq {
                    args.push(format!("--aq{} {}", l + 1, shell_word(s)));
                }
            }
            if self.quantize_output && !wq.is_empty() {
                args.push("--quantize-output".into());
            }
        }
        if self.loss != "mse" {
            args.push(format!("--loss {}", self.loss));
        }
        args.push(format!("--lr {} --batch {} --optimizer {}", self.lr, self.batch, self.optimizer));
        if self.l1 > 0.0 || self.l2 > 0.0 {
            args.push(format!("--l1 {} --l2 {}", self.l1, self.l2));
        }
        args.push(format!(
            "--noise {} --train-ratio {} --seed {} --epochs {epochs}",
            self.noise, self.ratio, self.seed
        ));
        args.join(" ")
    }

    /// Reads a hash (with or without `#`); bad values keep their defaults and are named.
    pub fn parse(hash: &str) -> (TrainParams, Vec<String>) {
        let mut p = TrainParams::default();
        let mut problems = Vec::new();
        let mut overrides = Vec::new();
        for pair in hash.trim_start_matches('#').split('&').filter(|s| !s.is_empty()) {
            let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
            let (key, value) = (decode(key), decode(raw));
            if let Some((slot, l)) = layer_key(&key) {
                overrides.push((key, slot, l, value));
                continue;
            }
            if let Err(e) = p.set(&key, &value) {
                problems.push(format!("{key}={value}: {e}"));
            }
        }
        // Per-layer overrides once the widths are known, whatever the order of the keys.
        for (key, slot, l, value) in overrides {
            let result = if l >= p.hidden.len() {
                Err(format!("the network has {} hidden layers", p.hidden.len()))
            } else {
                parse_quantizer(&value).map(|_| match slot {
                    Slot::Weights => p.layer_wq.insert(l, value.trim().to_string()),
                    Slot::Activation => p.layer_aq.insert(l, value.trim().to_string()),
                })
            };
            if let Err(e) = result {
                problems.push(format!("{key}={value}: {e}"));
            }
        }
        (p, problems)
    }

    /// Sets one hash key; the error says what was expected.
    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        fn number<E>(what: &'static str) -> impl Fn(E) -> String {
            move |_| format!("expected {what}")
        }
        match key {
            "view" => {}
            "dataset" => match DatasetKind::parse(value)? {
                DatasetKind::Sine => return Err("not a classification dataset".into()),
                k => self.dataset = k,
            },
            "noise" => {
                let n: f32 = value.parse().map_err(number("a number from 0 to 0.5"))?;
                if !(0.0..=0.5).contains(&n) {
                    return Err("expected a number from 0 to 0.5".into());
                }
                self.noise = n;
            }
            "ratio" => {
                let r: f32 = value.parse().map_err(number("a training share from 0.1 to 0.9"))?;
                if !(0.1..=0.9).contains(&r) {
                    return Err("expected a training share from 0.1 to 0.9".into());
                }
                self.ratio = r;
            }
            "features" => self.features = parse_features(value)?,
            "l1" | "l2" => {
                let v: f32 = value.parse().map_err(number("a penalty from 0 to 1"))?;
                if !(0.0..=1.0).contains(&v) {
                    return Err("expected a penalty from 0 to 1".into());
                }
                if key == "l1" { self.l1 = v } else { self.l2 = v }
            }
            "hidden" => self.set_hidden(parse_hidden(value)?),
            "activation" => {
                Act::parse(value)?;
                self.activation = value.trim().to_string();
            }
            "wq" | "aq" | "twin_wq" | "twin_aq" => {
                parse_quantizer(value)?;
                let v = value.trim().to_string();
                match key {
                    "wq" => self.wq = v,
                    "aq" => self.aq = v,
                    "twin_wq" => self.twin_wq = v,
                    _ => self.twin_aq = v,
                }
            }
            "qo" => self.quantize_output = flag(value)?,
            "lr" => {
                let v: f32 = value.parse().map_err(number("a learning rate from 0.00001 to 10"))?;
                if !(1e-5..=10.0).contains(&v) {
                    return Err("expected a learning rate from 0.00001 to 10".into());
                }
                self.lr = v;
            }
            "batch" => {
                let v: usize = value.parse().map_err(number("a batch size from 1 to 250"))?;
                if !(1..=250).contains(&v) {
                    return Err("expected a batch size from 1 to 250".into());
                }
                self.batch = v;
            }
            "loss" if LOSSES.contains(&value) => self.loss = value.to_string(),
            "loss" => return Err("expected mse, bce or softmax".into()),
            "optimizer" if OPTIMIZERS.contains(&value) => self.optimizer = value.to_string(),
            "optimizer" => return Err("expected sgd or adam".into()),
            "seed" => self.seed = value.parse().map_err(number("a whole number"))?,
            "play" => self.play = flag(value)?,
            "pace" => self.pace = Pace::parse(value)?,
            "stepby" => self.stepby = StepBy::parse(value)?,
            _ => return Err("unknown key".into()),
        }
        Ok(())
    }

    pub fn to_hash(&self) -> String {
        let hidden: Vec<String> = self.hidden.iter().map(usize::to_string).collect();
        let mut h = format!(
            "#view=train&dataset={}&hidden={}&activation={}&wq={}",
            self.dataset.name(),
            hidden.join(","),
            encode(&self.activation),
            encode(&self.wq)
        );
        let mut push = |key: &str, value: &str| h += &format!("&{key}={}", encode(value));
        // Always written, empty or not: a link must not depend on the defaults of the day.
        push("aq", &self.aq);
        for (l, s) in &self.layer_wq {
            push(&format!("wq{}", l + 1), s);
        }
        for (l, s) in &self.layer_aq {
            push(&format!("aq{}", l + 1), s);
        }
        if self.quantize_output {
            push("qo", "1");
        }
        if !self.twin_wq.is_empty() {
            push("twin_wq", &self.twin_wq);
        }
        if !self.twin_aq.is_empty() {
            push("twin_aq", &self.twin_aq);
        }
        h += &format!(
            "&lr={}&batch={}&optimizer={}&seed={}&noise={}",
            self.lr, self.batch, self.optimizer, self.seed, self.noise
        );
        if self.loss != "mse" {
            h += &format!("&loss={}", self.loss);
        }
        if self.features != [Feature::X1, Feature::X2] {
            let f: Vec<&str> = self.features.iter().map(|f| f.name()).collect();
            h += &format!("&features={}", f.join(","));
        }
        if self.ratio != 0.5 {
            h += &format!("&ratio={}", self.ratio);
        }
        if self.l1 > 0.0 {
            h += &format!("&l1={}", self.l1);
        }
        if self.l2 > 0.0 {
            h += &format!("&l2={}", self.l2);
        }
        if self.pace != Pace::Max {
            h += &format!("&pace={}", self.pace.name());
        }
        if self.stepby != StepBy::Epoch {
            h += &format!("&stepby={}", self.stepby.name());
        }
        if self.play {
            h += "&play=1";
        }
        h
    }
}

fn flag(value: &str) -> Result<bool, String> {
    match value {
        "1" | "true" => Ok(true),
        "0" | "false" | "" => Ok(false),
        _ => Err("expected 1 or 0".into()),
    }
}
