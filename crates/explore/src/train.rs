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
use crate::hash::{cap_problems, parts, quote};
use qscope_nn::table::Table;
use qscope_nn::{
    Act, Activation, Config, DatasetKind, Feature, Hidden, Init, Loss, Named, OptimizerKind, QuantizedTensor,
};
use qscope_quant::{Quantizer, parse};
use std::sync::Arc;

pub mod boundary;
pub mod bundled;
pub mod confusion;
pub mod csv;
pub mod settings;
pub mod stop;
pub mod sweep;

use settings::{LayerKey, SETTINGS};
use stop::Stop;

pub use qscope_nn::config::{MAX_HIDDEN_LAYERS, MAX_WIDTH};

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

/// What the user chose; the trainers are built from it. Every field is a setting of the table
/// in [`settings`] (the per-layer overrides are its [`LayerKey`]s).
#[derive(Clone, Debug, PartialEq)]
pub struct TrainParams {
    pub dataset: DatasetKind,
    /// A table dataset's rows, once read (a bundled file fetched, the user's CSV): not a setting
    /// (a link names the data, never carries it); None until then, and for generated data.
    pub table: Option<Arc<Table>>,
    /// The CSV's file name (`dataset=csv`): the link's record of which file was trained on.
    pub csv: String,
    /// The CSV's label column ("" : the last).
    pub label: String,
    /// A table's features as they are, not standardized by the training split.
    pub raw: bool,
    /// Points generated, train and test (the CLI's `--samples`; the page keeps 500).
    pub samples: usize,
    pub noise: f32,
    /// Share of the points used for training (the rest test), 0.1 to 0.9.
    pub ratio: f32,
    /// Input features, in [`Feature::ALL`] order.
    pub features: Vec<Feature>,
    pub hidden: Vec<usize>,
    pub activation: HiddenActivation,
    /// Weight initialisation (the CLI's `--init`; the page keeps `auto`).
    pub init: Init,
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
    pub loss: Loss,
    /// L1 and L2 penalties on the weights.
    pub l1: f32,
    pub l2: f32,
    /// Larq's `WeightClip`: the quantized layers' latent weights are clipped to ±this after each
    /// update; 0 is off.
    pub weight_clip: f32,
    /// Batch normalization after every hidden layer's product ([`Config::batchnorm`]).
    pub batchnorm: bool,
    pub lr: f32,
    pub batch: usize,
    pub optimizer: OptimizerKind,
    /// SGD's momentum (the CLI's `--momentum`; the page keeps 0).
    pub momentum: f32,
    /// Bop's threshold τ and adaptivity rate γ (`optimizer=bop`; Larq's defaults 1e-8, 1e-4).
    pub bop_threshold: f32,
    pub bop_gamma: f32,
    pub seed: u64,
    pub play: bool,
    /// Epochs per second of play (`max`: as fast as the page stays smooth).
    pub pace: Pace,
    /// What the Step button takes: the rest of the epoch, or one batch.
    pub stepby: StepBy,
    /// When play stops by itself (the CLI: `--stop-acc`; its `--epochs` is the epoch).
    pub stop: Stop,
}

/// The hidden layers' activation as the view holds it: a function, or a quantizer spec used
/// as one (QKeras' `QActivation`), kept as written for the link and the field.
#[derive(Clone, Debug, PartialEq)]
pub enum HiddenActivation {
    Function(Activation),
    Quantizer(String),
}

impl HiddenActivation {
    /// `tanh`, `relu`, `sigmoid`, `linear` (any case), or else a quantizer spec.
    pub fn parse(text: &str) -> Result<HiddenActivation, String> {
        Ok(match Act::parse(text)? {
            Act::Float(a) => HiddenActivation::Function(a),
            Act::Quantizer(_) => HiddenActivation::Quantizer(text.trim().to_string()),
        })
    }

    /// What the trainer runs.
    pub fn act(&self) -> Result<Act, String> {
        match self {
            HiddenActivation::Function(a) => Ok(Act::Float(*a)),
            HiddenActivation::Quantizer(spec) => Act::parse(spec),
        }
    }
}

impl std::fmt::Display for HiddenActivation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HiddenActivation::Function(a) => f.write_str(a.name()),
            HiddenActivation::Quantizer(spec) => f.write_str(spec),
        }
    }
}

impl TrainParams {
    /// The CLI's defaults: TF Playground's, as [`Config::new`] has them (`circle`, 2 × 4 tanh
    /// units, squared error, plain SGD at 0.03, batches of 10, no quantizer), and the page's
    /// own settings at rest (no twin, paused, pace max, a step is an epoch).
    pub fn playground() -> TrainParams {
        let c = Config::new(DatasetKind::Circle);
        let first = c.hidden.first();
        let spec = |q: Option<&Quantizer>| q.map_or(String::new(), Quantizer::to_string);
        TrainParams {
            dataset: c.dataset,
            table: None,
            csv: String::new(),
            label: String::new(),
            raw: !c.standardize,
            samples: c.samples,
            noise: c.noise,
            ratio: c.train_ratio,
            hidden: c.hidden.iter().map(|h| h.width).collect(),
            activation: match first.map(|h| &h.activation) {
                Some(Act::Quantizer(q)) => HiddenActivation::Quantizer(q.to_string()),
                Some(Act::Float(a)) => HiddenActivation::Function(*a),
                None => HiddenActivation::Function(Activation::Tanh),
            },
            init: c.init,
            wq: spec(first.and_then(|h| h.weights.as_ref())),
            aq: spec(first.and_then(|h| h.output.as_ref())),
            layer_wq: BTreeMap::new(),
            layer_aq: BTreeMap::new(),
            quantize_output: c.output_weights.is_some(),
            twin_wq: String::new(),
            twin_aq: String::new(),
            loss: c.loss,
            l1: c.l1,
            l2: c.l2,
            weight_clip: c.weight_clip.unwrap_or(0.0),
            batchnorm: c.batchnorm,
            lr: c.learning_rate,
            batch: c.batch,
            optimizer: c.optimizer.kind(),
            momentum: match c.optimizer {
                qscope_nn::Optimizer::Sgd { momentum } => momentum,
                _ => 0.0,
            },
            bop_threshold: qscope_nn::Optimizer::BOP_THRESHOLD,
            bop_gamma: qscope_nn::Optimizer::BOP_GAMMA,
            seed: c.seed,
            features: c.features,
            play: false,
            pace: Pace::Max,
            stepby: StepBy::Epoch,
            stop: Stop::default(),
        }
    }
}

impl Default for TrainParams {
    /// The page opens on the classroom demo: 4-bit weights and activations learning `spiral`
    /// (2-16-16-1, Adam at 0.01) beside the float twin; the rest as the CLI's.
    fn default() -> TrainParams {
        TrainParams {
            dataset: DatasetKind::Spiral,
            hidden: vec![16, 16],
            wq: "qkeras.quantized_bits(4,0,1)".into(),
            aq: "qkeras.quantized_tanh(4)".into(),
            lr: 0.01,
            optimizer: OptimizerKind::Adam,
            ..TrainParams::playground()
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
        Ok(w) if w.len() <= MAX_HIDDEN_LAYERS && w.iter().all(|&n| (1..=MAX_WIDTH).contains(&n)) => Ok(w),
        _ => Err(format!("hidden '{}': {}", quote(text), settings::widths())),
    }
}

/// An optional quantizer spec that the trainer accepts: empty is float.
pub fn parse_quantizer(text: &str) -> Result<Option<Quantizer>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let q = parse(text).map_err(|e| e.to_string())?;
    qscope_nn::config::check_quantizer(&q)?;
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
        return Err(format!("expected at least one of {}", settings::feature_names()));
    }
    Ok(features)
}

/// Whether a hash asks for the Train view.
pub fn is_train(hash: &str) -> bool {
    hash.trim_start_matches('#').split('&').any(|p| p == "view=train")
}

/// The spec a network uses where the quantized net has `own`: the STE twin's `twin` when it
/// has one, else `own`.
pub fn for_net<'a>(net: Net, own: &'a str, twin: &'a str) -> &'a str {
    if net == Net::Twin && !twin.trim().is_empty() { twin } else { own }
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
    pub fn set_layer_spec(&mut self, tensor: QuantizedTensor, l: usize, spec: &str) {
        let (global, layers) = self.layer_specs(tensor);
        if spec.trim() == global.trim() {
            layers.remove(&l);
        } else {
            layers.insert(l, spec.trim().to_string());
        }
    }

    /// The per-layer overrides of `tensor`'s quantizer.
    pub fn overrides(&self, tensor: QuantizedTensor) -> &BTreeMap<usize, String> {
        match tensor {
            QuantizedTensor::Weights => &self.layer_wq,
            QuantizedTensor::Activation => &self.layer_aq,
        }
    }

    /// The global spec of `tensor` and its per-layer overrides.
    fn layer_specs(&mut self, tensor: QuantizedTensor) -> (&String, &mut BTreeMap<usize, String>) {
        match tensor {
            QuantizedTensor::Weights => (&self.wq, &mut self.layer_wq),
            QuantizedTensor::Activation => (&self.aq, &mut self.layer_aq),
        }
    }

    /// Sets the override a per-layer key names (as the hash and the CLI give it), once the
    /// layer exists and the trainer accepts the quantizer.
    pub fn set_layer(&mut self, key: LayerKey, spec: &str) -> Result<(), String> {
        if key.layer >= self.hidden.len() {
            return Err(format!("the network has {} hidden layers", self.hidden.len()));
        }
        parse_quantizer(spec)?;
        self.layer_specs(key.tensor).1.insert(key.layer, spec.trim().to_string());
        Ok(())
    }

    /// New widths; overrides of layers that no longer exist are dropped.
    pub fn set_hidden(&mut self, widths: Vec<usize>) {
        let n = widths.len();
        self.layer_wq.retain(|&l, _| l < n);
        self.layer_aq.retain(|&l, _| l < n);
        self.hidden = widths;
    }

    /// Chooses the data. A table whose kind has more than two classes needs softmax, so the
    /// loss becomes softmax (a link may still ask for another after, and is told why not); the
    /// rows already read are dropped when they are another dataset's.
    pub fn set_dataset(&mut self, kind: DatasetKind) {
        if kind != self.dataset {
            self.table = None;
        }
        // A CSV's name means nothing without its rows, which another dataset drops (and the
        // link writes it only for the CSV dataset).
        if kind != DatasetKind::Csv {
            self.csv.clear();
        }
        self.dataset = kind;
        if kind.classes().is_some_and(|k| k > 2) {
            self.loss = Loss::SoftmaxCrossEntropy;
        }
    }

    /// Takes a table's rows (for the chosen table dataset); more than two classes need softmax,
    /// so the loss becomes softmax.
    pub fn use_table(&mut self, table: Arc<Table>) {
        if table.classes.len() > 2 {
            self.loss = Loss::SoftmaxCrossEntropy;
        }
        self.table = Some(table);
    }

    /// Whether the third network (another STE) is on.
    pub fn has_twin(&self) -> bool {
        !(self.twin_wq.trim().is_empty() && self.twin_aq.trim().is_empty())
    }

    /// The settings a change of which needs new trainers (everything but what can change
    /// mid-run: the quantizers, the learning rate, play, pace, what a step takes and when play
    /// stops).
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
            stop: Stop::default(),
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
        c.table = self.table.clone().filter(|_| self.dataset.is_table());
        c.standardize = !self.raw;
        c.samples = self.samples;
        c.noise = self.noise;
        c.train_ratio = self.ratio;
        c.features = self.features.clone();
        c.l1 = self.l1;
        c.l2 = self.l2;
        c.weight_clip = (self.weight_clip > 0.0).then_some(self.weight_clip);
        c.batchnorm = self.batchnorm;
        c.init = self.init;
        let act = self.activation.act()?;
        let mut qs = self.quantizers(net)?;
        c.output_weights = qs.pop().and_then(|(w, _)| w);
        c.hidden = self
            .hidden
            .iter()
            .zip(qs)
            .map(|(&width, (weights, output))| Hidden { width, activation: act.clone(), weights, output })
            .collect();
        c.loss = self.loss;
        c.optimizer = self.optimizer.with_momentum(self.momentum).with_bop(self.bop_threshold, self.bop_gamma);
        c.learning_rate = self.lr;
        c.batch = self.batch;
        c.seed = self.seed;
        c.check()?;
        Ok(c)
    }

    /// The `qscope train` command that trains `net` as this view does, for `epochs` epochs.
    pub fn cli_command(&self, net: Net, epochs: usize) -> String {
        use crate::settings::shell_word;
        use settings::*;
        let mut args = vec!["qscope train".to_string()];
        match self.dataset {
            DatasetKind::Csv => {
                args.push(CSV.cli_arg(self));
                if !self.label.is_empty() {
                    args.push(LABEL.cli_arg(self));
                }
            }
            d if d.is_table() => args.push(DATASET.cli_arg(self)),
            _ => args.extend([&DATASET, &FEATURES].map(|s| s.cli_arg(self))),
        }
        if self.raw && self.dataset.is_table() {
            args.push(RAW.cli_arg(self));
        }
        args.extend([&HIDDEN, &ACTIVATION].map(|s| s.cli_arg(self)));
        if net != Net::Float {
            let wq = for_net(net, &self.wq, &self.twin_wq);
            let aq = for_net(net, &self.aq, &self.twin_aq);
            for (setting, spec) in [(&WQ, wq), (&AQ, aq)].into_iter().filter(|(_, spec)| !spec.is_empty()) {
                args.push(format!("{} {}", setting.flag.unwrap_or_default(), shell_word(spec)));
            }
            // The twin's own quantizer replaces every layer's, overrides included.
            for (tensor, twin) in
                [(QuantizedTensor::Weights, &self.twin_wq), (QuantizedTensor::Activation, &self.twin_aq)]
            {
                if net != Net::Twin || twin.trim().is_empty() {
                    for (&layer, s) in self.overrides(tensor) {
                        args.push(format!("--{} {}", LayerKey { tensor, layer }, shell_word(s)));
                    }
                }
            }
            if self.quantize_output && !wq.is_empty() {
                args.push(QUANTIZE_OUTPUT.cli_arg(self));
            }
        }
        if self.loss != TrainParams::playground().loss {
            args.push(LOSS.cli_arg(self));
        }
        args.extend([&LR, &BATCH, &OPTIMIZER].map(|s| s.cli_arg(self)));
        if self.optimizer == OptimizerKind::Bop {
            args.extend([&BOP_THRESHOLD, &BOP_GAMMA].map(|s| s.cli_arg(self)));
        }
        if self.l1 > 0.0 || self.l2 > 0.0 {
            args.extend([&L1, &L2].map(|s| s.cli_arg(self)));
        }
        if self.weight_clip > 0.0 && net != Net::Float {
            args.push(WEIGHT_CLIP.cli_arg(self));
        }
        if self.batchnorm {
            args.push(BATCHNORM.cli_arg(self));
        }
        if !self.dataset.is_table() {
            args.push(NOISE.cli_arg(self));
        }
        args.extend([&TRAIN_RATIO, &SEED].map(|s| s.cli_arg(self)));
        args.push(format!("--epochs {epochs}"));
        args.join(" ")
    }

    /// Reads a hash (with or without `#`); bad values keep their defaults and are named.
    pub fn parse(hash: &str) -> (TrainParams, Vec<String>) {
        let mut p = TrainParams::default();
        let mut problems = Vec::new();
        let mut overrides = Vec::new();
        for part in parts(hash) {
            let Some(value) = part.value else {
                if part.key != "view" {
                    problems.push(crate::hash::no_value(&part.key));
                }
                continue;
            };
            let result = match LayerKey::parse(&part.key) {
                Some(layer) => {
                    overrides.push((part.key, layer, value));
                    continue;
                }
                None if part.key == "view" => Ok(()),
                None => p.set_key(&part.key, &value),
            };
            if let Err(e) = result {
                problems.push(format!("{}={}: {e}", quote(&part.key), quote(&value)));
            }
        }
        // Per-layer overrides once the widths are known, whatever the order of the keys.
        for (key, layer, value) in overrides {
            if let Err(e) = p.set_layer(layer, &value) {
                problems.push(format!("{key}={}: {e}", quote(&value)));
            }
        }
        cap_problems(&mut problems);
        (p, problems)
    }

    /// Sets the setting a hash key names; the error says what was expected.
    pub fn set_key(&mut self, key: &str, value: &str) -> Result<(), String> {
        let setting = settings::by_key(key).ok_or("unknown key")?;
        let dataset = self.dataset;
        (setting.read)(self, value)?;
        // The page draws decision boundaries: classification only (sine is the CLI's).
        if self.dataset.is_regression() {
            self.dataset = dataset;
            return Err("not a classification dataset".into());
        }
        Ok(())
    }

    /// Sets the setting a `qscope train` option names; the error is worded for the CLI.
    pub fn set_flag(&mut self, flag: &str, value: &str) -> Result<(), String> {
        let setting = settings::by_flag(flag).ok_or_else(|| format!("unknown option '{flag}' for train"))?;
        setting.read_flag(self, value)
    }

    /// The hash: `#view=train`, then every setting of the table that has a key, in its order —
    /// always, or when it differs from the page's default — each global quantizer followed by
    /// its per-layer overrides.
    pub fn to_hash(&self) -> String {
        let page = TrainParams::default();
        let mut h = String::from("#view=train");
        for s in SETTINGS {
            for part in s.parts(self, &page) {
                h += &format!("&{part}");
            }
            if let Some(tensor) = settings::per_layer(s) {
                for (&layer, spec) in self.overrides(tensor) {
                    h += &format!("&{}={}", LayerKey { tensor, layer }, crate::hash::encode(spec));
                }
            }
        }
        h
    }
}
