//! Every training setting in one table of [`Setting`]s: its hash key, its `qscope train` flag,
//! what it takes, its label and doc, and how it reads into and shows from [`TrainParams`]. The page's hash
//! ([`TrainParams::parse`], [`TrainParams::to_hash`]), the CLI's options and `--help`, the
//! `qscope train` command the page shows and the page's control limits all come from it, as
//! one burn `Config` drives its CLI and its file. Defaults live in the struct:
//! [`TrainParams::playground`] (the CLI's: TF Playground's, as `nn::Config::new`) and
//! [`TrainParams::default`] (the page's classroom demo).
//!
//! Rows are in the hash's order; a row without a key is the CLI's only (the page keeps its
//! default), a row without a flag the page's only. The ranges bound what both accept; the
//! architecture's limits are the trainer's own ([`MAX_WIDTH`], [`MAX_HIDDEN_LAYERS`]).

use super::{HiddenActivation, TrainParams, parse_features, parse_hidden, parse_quantizer};
use crate::hash::{Bounds, switch};
use crate::pace::{Pace, StepBy};
use crate::settings::{Range, Setting, Write, on_off, one};
use qscope_nn::config::{MAX_HIDDEN_LAYERS, MAX_WIDTH};
use qscope_nn::named::or_list;
use qscope_nn::{DatasetKind, Feature, Init, Loss, Named, OptimizerKind, QuantizedTensor};

pub const NOISE_RANGE: Bounds<f32> = Bounds { noun: "a number", min: 0.0, max: 0.5 };
pub const RATIO_RANGE: Bounds<f32> = Bounds { noun: "a training share", min: 0.1, max: 0.9 };
pub const PENALTY_RANGE: Bounds<f32> = Bounds { noun: "a penalty", min: 0.0, max: 1.0 };
pub const LR_RANGE: Bounds<f32> = Bounds { noun: "a learning rate", min: 1e-5, max: 10.0 };
pub const BATCH_RANGE: Bounds<usize> = Bounds { noun: "a batch size", min: 1, max: 250 };
pub const SAMPLES_RANGE: Bounds<usize> = Bounds { noun: "a number of points", min: 10, max: 100_000 };
/// Larq's `WeightClip` bound on the latent weights; 0 is off.
pub const WEIGHT_CLIP_RANGE: Bounds<f32> = Bounds { noun: "a bound (0: off)", min: 0.0, max: 100.0 };
/// SGD's momentum; exactly 1 is refused by the trainer's check (it must stay below 1).
pub const MOMENTUM_RANGE: Bounds<f32> = Bounds { noun: "a momentum", min: 0.0, max: 1.0 };
/// Bop's threshold τ on `w·m` (Larq's default 1e-8).
pub const BOP_THRESHOLD_RANGE: Bounds<f32> = Bounds { noun: "a threshold", min: 0.0, max: 1.0 };
/// Bop's adaptivity rate γ, the moving average's weight on each new gradient (Larq's default 1e-4).
pub const BOP_GAMMA_RANGE: Bounds<f32> = Bounds { noun: "a rate", min: 1e-6, max: 1.0 };
/// The epoch training stops at; 0 is off.
pub const STOP_EPOCH_RANGE: Bounds<usize> = Bounds { noun: "an epoch (0: off)", min: 0, max: 100_000 };
/// The test accuracy, in percent, training stops at; 0 is off.
pub const STOP_ACC_RANGE: Bounds<f32> = Bounds { noun: "a percentage (0: off)", min: 0.0, max: 100.0 };

/// What `hidden` takes, in words.
pub fn widths() -> String {
    format!("widths 1 to {MAX_WIDTH}, comma-separated, at most {MAX_HIDDEN_LAYERS} layers")
}

fn activations() -> String {
    let names: Vec<&str> = qscope_nn::Activation::ALL.iter().map(|a| a.name()).collect();
    format!("{}, or a quantizer SPEC", names.join(", "))
}

fn paces() -> String {
    format!("1 to {} epochs per second, or max", Pace::MOST)
}

/// `mse, bce or softmax`.
fn names<T: Named>() -> String {
    let names: Vec<&str> = T::ALL.iter().map(|v| v.name()).collect();
    or_list(&names)
}

fn dataset_names() -> String {
    let names: Vec<&str> = DatasetKind::ALL.iter().map(|k| k.name()).collect();
    or_list(&names)
}

/// `x1, x2, …`: the input features, for `--help` and the hash's messages.
pub fn feature_names() -> String {
    let names: Vec<&str> = Feature::ALL.iter().map(|f| f.name()).collect();
    names.join(", ")
}

/// A [`Named`] value, or `expected sgd or adam`.
fn choice<T: Named>(text: &str) -> Result<T, String> {
    T::parse(text).map_err(|_| T::expected())
}

/// A quantizer spec as written (trimmed), once the trainer accepts it.
fn spec(text: &str) -> Result<String, String> {
    parse_quantizer(text).map(|_| text.trim().to_string())
}

fn joined<T>(items: &[T], f: impl Fn(&T) -> String) -> String {
    items.iter().map(f).collect::<Vec<_>>().join(",")
}

pub static DATASET: Setting<TrainParams> = Setting {
    key: Some("dataset"),
    flag: Some("--dataset"),
    arg: "NAME",
    range: Range::Choice { what: "dataset", names: dataset_names },
    label: "dataset",
    doc: "the data: generated (TF Playground's and more; sine, a regression: CLI only), a bundled real dataset (digits, iris, wine, breast_cancer), or csv (--data)",
    write: Write::Always,
    read: |p, v| DatasetKind::parse(v).map(|k| p.set_dataset(k)).map_err(|_| format!("expected {}", dataset_names())),
    show: |p| one(p.dataset.name()),
};

pub static CSV: Setting<TrainParams> = Setting {
    key: Some("csv"),
    flag: Some("--data"),
    arg: "FILE.csv",
    range: Range::Words(|| "a CSV file: a header row, numeric feature columns and a label column".into()),
    label: "CSV file",
    doc: "train on your own CSV (a header row, numeric features, one label column; the link keeps only its name)",
    write: Write::Changed,
    read: |p, v| {
        p.csv = v.trim().to_string();
        if !p.csv.is_empty() {
            p.set_dataset(DatasetKind::Csv);
        }
        Ok(())
    },
    show: |p| if p.dataset == DatasetKind::Csv { one(p.csv.clone()) } else { Vec::new() },
};

pub static LABEL: Setting<TrainParams> = Setting {
    key: Some("label"),
    flag: Some("--label"),
    arg: "COLUMN",
    range: Range::Words(|| "a column name of the CSV's header".into()),
    label: "label column",
    doc: "the CSV's label column, integers or strings (default: the last column)",
    write: Write::Changed,
    read: |p, v| {
        p.label = v.trim().to_string();
        Ok(())
    },
    show: |p| one(p.label.clone()),
};

pub static RAW: Setting<TrainParams> = Setting {
    key: Some("raw"),
    flag: Some("--raw"),
    arg: "",
    range: Range::Switch,
    label: "raw features",
    doc: "a table's features as they are (default: standardized by the training split's mean and deviation)",
    write: Write::Changed,
    read: |p, v| switch(v).map(|on| p.raw = on),
    show: |p| on_off(p.raw),
};

pub static SAMPLES: Setting<TrainParams> = Setting {
    key: None,
    flag: Some("--samples"),
    arg: "N",
    range: Range::Count(SAMPLES_RANGE),
    label: "points",
    doc: "points generated, train and test",
    write: Write::Changed,
    read: |p, v| SAMPLES_RANGE.parse(v).map(|n| p.samples = n),
    show: |p| one(p.samples),
};

pub static HIDDEN: Setting<TrainParams> = Setting {
    key: Some("hidden"),
    flag: Some("--hidden"),
    arg: "W,W,...",
    range: Range::Words(widths),
    label: "hidden",
    doc: "hidden layer widths ('' for none)",
    write: Write::Always,
    read: |p, v| parse_hidden(v).map(|h| p.set_hidden(h)),
    show: |p| one(joined(&p.hidden, usize::to_string)),
};

pub static ACTIVATION: Setting<TrainParams> = Setting {
    key: Some("activation"),
    flag: Some("--activation"),
    arg: "A",
    range: Range::Named(activations),
    label: "activation",
    doc: "hidden activation; a quantizer is used as one (QKeras' QActivation)",
    write: Write::Always,
    read: |p, v| HiddenActivation::parse(v).map(|a| p.activation = a),
    show: |p| one(&p.activation),
};

pub static INIT: Setting<TrainParams> = Setting {
    key: None,
    flag: Some("--init"),
    arg: "I",
    range: Range::Choice { what: "init", names: names::<Init> },
    label: "init",
    doc: "weight initialisation; auto: he for relu, else glorot",
    write: Write::Changed,
    read: |p, v| choice(v).map(|i| p.init = i),
    show: |p| one(p.init.name()),
};

pub static WQ: Setting<TrainParams> = Setting {
    key: Some("wq"),
    flag: Some("--wq"),
    arg: "SPEC",
    range: Range::Spec,
    label: "weights",
    doc: "weight quantizer of every hidden layer (one tensor per layer)",
    write: Write::Always,
    read: |p, v| spec(v).map(|s| p.wq = s),
    show: |p| one(p.wq.clone()),
};

pub static AQ: Setting<TrainParams> = Setting {
    key: Some("aq"),
    flag: Some("--aq"),
    arg: "SPEC",
    range: Range::Spec,
    label: "activations",
    doc: "activation quantizer after every hidden activation",
    write: Write::Always,
    read: |p, v| spec(v).map(|s| p.aq = s),
    show: |p| one(p.aq.clone()),
};

pub static QUANTIZE_OUTPUT: Setting<TrainParams> = Setting {
    key: Some("qo"),
    flag: Some("--quantize-output"),
    arg: "",
    range: Range::Switch,
    label: "quantize the output layer's weights too",
    doc: "also quantize the output layer's weights with the weight quantizer",
    write: Write::Changed,
    read: |p, v| switch(v).map(|on| p.quantize_output = on),
    show: |p| on_off(p.quantize_output),
};

pub static TWIN_WQ: Setting<TrainParams> = Setting {
    key: Some("twin_wq"),
    flag: Some("--twin-wq"),
    arg: "SPEC",
    range: Range::Words(|| "a quantizer SPEC; '' for the quantized net's".into()),
    label: "weights",
    doc: "the STE twin's weight quantizer: given, a third net trains beside the other two",
    write: Write::Changed,
    read: |p, v| spec(v).map(|s| p.twin_wq = s),
    show: |p| one(p.twin_wq.clone()),
};

pub static TWIN_AQ: Setting<TrainParams> = Setting {
    key: Some("twin_aq"),
    flag: Some("--twin-aq"),
    arg: "SPEC",
    range: Range::Words(|| "a quantizer SPEC; '' for the quantized net's".into()),
    label: "activations",
    doc: "the STE twin's activation quantizer: given, a third net trains beside the other two",
    write: Write::Changed,
    read: |p, v| spec(v).map(|s| p.twin_aq = s),
    show: |p| one(p.twin_aq.clone()),
};

pub static LR: Setting<TrainParams> = Setting {
    key: Some("lr"),
    flag: Some("--lr"),
    arg: "X",
    range: Range::Real(LR_RANGE),
    label: "learning rate",
    doc: "learning rate",
    write: Write::Always,
    read: |p, v| LR_RANGE.parse(v).map(|x| p.lr = x),
    show: |p| one(p.lr),
};

pub static BATCH: Setting<TrainParams> = Setting {
    key: Some("batch"),
    flag: Some("--batch"),
    arg: "N",
    range: Range::Count(BATCH_RANGE),
    label: "batch",
    doc: "batch size (at most the training points)",
    write: Write::Always,
    read: |p, v| BATCH_RANGE.parse(v).map(|n| p.batch = n),
    show: |p| one(p.batch),
};

pub static OPTIMIZER: Setting<TrainParams> = Setting {
    key: Some("optimizer"),
    flag: Some("--optimizer"),
    arg: "O",
    range: Range::Choice { what: "optimizer", names: names::<OptimizerKind> },
    label: "optimizer",
    doc: "optimizer, Keras' update rules (Adam with Keras' defaults); bop: Larq's Bop on the binary layers' weights, Adam on the rest",
    write: Write::Always,
    read: |p, v| choice(v).map(|o| p.optimizer = o),
    show: |p| one(p.optimizer.name()),
};

pub static MOMENTUM: Setting<TrainParams> = Setting {
    key: None,
    flag: Some("--momentum"),
    arg: "M",
    range: Range::Real(MOMENTUM_RANGE),
    label: "momentum",
    doc: "SGD's momentum, below 1",
    write: Write::Changed,
    read: |p, v| MOMENTUM_RANGE.parse(v).map(|m| p.momentum = m),
    show: |p| one(p.momentum),
};

pub static BOP_THRESHOLD: Setting<TrainParams> = Setting {
    key: Some("bop_threshold"),
    flag: Some("--bop-threshold"),
    arg: "T",
    range: Range::Real(BOP_THRESHOLD_RANGE),
    label: "Bop threshold",
    doc: "Bop: a binary weight w flips to −sign(w) once w·m > T, m its gradients' moving average (Larq's default 1e-8)",
    write: Write::Changed,
    read: |p, v| BOP_THRESHOLD_RANGE.parse(v).map(|x| p.bop_threshold = x),
    show: |p| one(p.bop_threshold),
};

pub static BOP_GAMMA: Setting<TrainParams> = Setting {
    key: Some("bop_gamma"),
    flag: Some("--bop-gamma"),
    arg: "G",
    range: Range::Real(BOP_GAMMA_RANGE),
    label: "Bop γ",
    doc: "Bop's adaptivity rate: m ← m + G·(g − m) for each gradient g (Larq's default 1e-4)",
    write: Write::Changed,
    read: |p, v| BOP_GAMMA_RANGE.parse(v).map(|x| p.bop_gamma = x),
    show: |p| one(p.bop_gamma),
};

pub static SEED: Setting<TrainParams> = Setting {
    key: Some("seed"),
    flag: Some("--seed"),
    arg: "N",
    range: Range::Whole,
    label: "seed",
    doc: "seeds the data, the initial weights, the shuffling and stochastic quantizers",
    write: Write::Always,
    read: |p, v| v.trim().parse().map(|s| p.seed = s).map_err(|_| "expected a whole number".into()),
    show: |p| one(p.seed),
};

pub static NOISE: Setting<TrainParams> = Setting {
    key: Some("noise"),
    flag: Some("--noise"),
    arg: "X",
    range: Range::Real(NOISE_RANGE),
    label: "noise",
    doc: "noise, as Playground's 0–50 %",
    write: Write::Always,
    read: |p, v| NOISE_RANGE.parse(v).map(|n| p.noise = n),
    show: |p| one(p.noise),
};

pub static LOSS: Setting<TrainParams> = Setting {
    key: Some("loss"),
    flag: Some("--loss"),
    arg: "L",
    range: Range::Choice { what: "loss", names: names::<Loss> },
    label: "loss",
    doc: "mse (tanh output, labels ±1, as Playground), bce (sigmoid output), softmax (one output per class; the one for more than two)",
    write: Write::Changed,
    read: |p, v| choice(v).map(|l| p.loss = l),
    show: |p| one(p.loss.name()),
};

pub static FEATURES: Setting<TrainParams> = Setting {
    key: Some("features"),
    flag: Some("--features"),
    arg: "F,...",
    range: Range::Words(feature_names),
    label: "features",
    doc: "input features (the CLI's default for sine: x1)",
    write: Write::Changed,
    read: |p, v| parse_features(v).map(|f| p.features = f),
    show: |p| one(joined(&p.features, |f| f.name().to_string())),
};

pub static TRAIN_RATIO: Setting<TrainParams> = Setting {
    key: Some("ratio"),
    flag: Some("--train-ratio"),
    arg: "X",
    range: Range::Real(RATIO_RANGE),
    label: "training share",
    doc: "share of the points used for training, the rest test",
    write: Write::Changed,
    read: |p, v| RATIO_RANGE.parse(v).map(|r| p.ratio = r),
    show: |p| one(p.ratio),
};

pub static L1: Setting<TrainParams> = Setting {
    key: Some("l1"),
    flag: Some("--l1"),
    arg: "X",
    range: Range::Real(PENALTY_RANGE),
    label: "L1",
    doc: "L1 penalty on the weights",
    write: Write::Changed,
    read: |p, v| PENALTY_RANGE.parse(v).map(|x| p.l1 = x),
    show: |p| one(p.l1),
};

pub static L2: Setting<TrainParams> = Setting {
    key: Some("l2"),
    flag: Some("--l2"),
    arg: "X",
    range: Range::Real(PENALTY_RANGE),
    label: "L2",
    doc: "L2 penalty on the weights",
    write: Write::Changed,
    read: |p, v| PENALTY_RANGE.parse(v).map(|x| p.l2 = x),
    show: |p| one(p.l2),
};

pub static WEIGHT_CLIP: Setting<TrainParams> = Setting {
    key: Some("weight_clip"),
    flag: Some("--weight-clip"),
    arg: "C",
    range: Range::Real(WEIGHT_CLIP_RANGE),
    label: "weight clip",
    doc: "Larq's WeightClip: after each update the quantized layers' latent weights are clipped to [−C, C] (0: off)",
    write: Write::Changed,
    read: |p, v| WEIGHT_CLIP_RANGE.parse(v).map(|x| p.weight_clip = x),
    show: |p| one(p.weight_clip),
};

pub static BATCHNORM: Setting<TrainParams> = Setting {
    key: Some("batchnorm"),
    flag: Some("--batchnorm"),
    arg: "",
    range: Range::Switch,
    label: "batch norm",
    doc: "Keras' BatchNormalization after every hidden layer's product, before its activation (then no bias); evaluation uses its moving statistics",
    write: Write::Changed,
    read: |p, v| switch(v).map(|on| p.batchnorm = on),
    show: |p| on_off(p.batchnorm),
};

pub static PACE: Setting<TrainParams> = Setting {
    key: Some("pace"),
    flag: None,
    arg: "P",
    range: Range::Words(paces),
    label: "pace",
    doc: "epochs per second of play",
    write: Write::Changed,
    read: |p, v| Pace::parse(v).map(|x| p.pace = x),
    show: |p| one(p.pace.name()),
};

pub static STEP_BY: Setting<TrainParams> = Setting {
    key: Some("stepby"),
    flag: None,
    arg: "S",
    range: Range::Words(|| "epoch or batch".into()),
    label: "step by",
    doc: "what the Step button takes",
    write: Write::Changed,
    read: |p, v| StepBy::parse(v).map(|s| p.stepby = s),
    show: |p| one(p.stepby.name()),
};

pub static STOP_EPOCH: Setting<TrainParams> = Setting {
    key: Some("stop"),
    flag: None,
    arg: "N",
    range: Range::Count(STOP_EPOCH_RANGE),
    label: "stop at epoch",
    doc: "play pauses when epoch N ends (0: off; the CLI's --epochs)",
    write: Write::Changed,
    read: |p, v| STOP_EPOCH_RANGE.parse(v).map(|n| p.stop.epoch = n),
    show: |p| one(p.stop.epoch),
};

pub static STOP_ACC: Setting<TrainParams> = Setting {
    key: Some("stop_acc"),
    flag: Some("--stop-acc"),
    arg: "X",
    range: Range::Real(STOP_ACC_RANGE),
    label: "stop at test accuracy %",
    doc: "training stops at the end of the epoch where the quantized net's test accuracy reaches X % (0: off)",
    write: Write::Changed,
    read: |p, v| STOP_ACC_RANGE.parse(v).map(|x| p.stop.accuracy = x),
    show: |p| one(p.stop.accuracy),
};

pub static PLAY: Setting<TrainParams> = Setting {
    key: Some("play"),
    flag: None,
    arg: "",
    range: Range::Switch,
    label: "play",
    doc: "training runs when the page opens",
    write: Write::Changed,
    read: |p, v| switch(v).map(|on| p.play = on),
    show: |p| on_off(p.play),
};

/// Every setting, in the hash's order.
pub static SETTINGS: [&Setting<TrainParams>; 33] = [
    &DATASET,
    &CSV,
    &LABEL,
    &RAW,
    &SAMPLES,
    &HIDDEN,
    &ACTIVATION,
    &INIT,
    &WQ,
    &AQ,
    &QUANTIZE_OUTPUT,
    &TWIN_WQ,
    &TWIN_AQ,
    &LR,
    &BATCH,
    &OPTIMIZER,
    &MOMENTUM,
    &BOP_THRESHOLD,
    &BOP_GAMMA,
    &SEED,
    &NOISE,
    &LOSS,
    &FEATURES,
    &TRAIN_RATIO,
    &L1,
    &L2,
    &WEIGHT_CLIP,
    &BATCHNORM,
    &PACE,
    &STEP_BY,
    &STOP_EPOCH,
    &STOP_ACC,
    &PLAY,
];

/// The setting a hash key names.
pub fn by_key(key: &str) -> Option<&'static Setting<TrainParams>> {
    crate::settings::by_key(&SETTINGS, key)
}

/// The setting a CLI option names.
pub fn by_flag(flag: &str) -> Option<&'static Setting<TrainParams>> {
    crate::settings::by_flag(&SETTINGS, flag)
}

/// The hash's keys (besides `view`, and the per-layer [`LayerKey`]s).
pub fn hash_keys() -> Vec<&'static str> {
    crate::settings::keys(&SETTINGS).collect()
}

/// The global quantizers that `KEYN` (hash) / `--KEYN` (CLI) override for hidden layer N.
pub static PER_LAYER: [(&Setting<TrainParams>, QuantizedTensor); 2] =
    [(&WQ, QuantizedTensor::Weights), (&AQ, QuantizedTensor::Activation)];

/// The tensor whose per-layer overrides follow `s` in a hash, if any.
pub fn per_layer(s: &Setting<TrainParams>) -> Option<QuantizedTensor> {
    PER_LAYER.iter().find(|(g, _)| std::ptr::eq(*g, s)).map(|&(_, t)| t)
}

/// One hidden layer's quantizer: `wq2` in the hash, `--wq2` on the CLI (layers from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerKey {
    pub tensor: QuantizedTensor,
    /// From 0.
    pub layer: usize,
}

impl LayerKey {
    /// `wq2` → hidden layer 2's (index 1) weight quantizer; `aq10` → layer 10's activation
    /// quantizer; anything else (`wq0`, `wq`, `wqx`) → None.
    pub fn parse(key: &str) -> Option<LayerKey> {
        PER_LAYER.iter().find_map(|&(s, tensor)| {
            let n = key.strip_prefix(s.key?)?;
            let n: usize = n.parse().ok().filter(|_| n.bytes().all(|b| b.is_ascii_digit()))?;
            n.checked_sub(1).map(|layer| LayerKey { tensor, layer })
        })
    }
}

impl std::fmt::Display for LayerKey {
    /// `wq2`: the key of the global setting it overrides, and the layer from 1.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let global = PER_LAYER.iter().find(|(_, t)| *t == self.tensor).and_then(|(s, _)| s.key);
        write!(f, "{}{}", global.unwrap_or_default(), self.layer + 1)
    }
}
