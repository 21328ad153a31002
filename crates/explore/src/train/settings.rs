//! Every training setting in one table: its hash key, its `qscope train` flag, what it takes,
//! its help, and how it reads into and shows from [`TrainParams`]. The page's hash
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
use crate::keys::switch;
use crate::pace::{Pace, StepBy};
use qscope_nn::config::{MAX_HIDDEN_LAYERS, MAX_WIDTH};
use qscope_nn::named::or_list;
use qscope_nn::{DatasetKind, Feature, Init, Loss, Named, OptimizerKind, QuantizedTensor};

/// A number from `min` to `max` (both included), called `noun` in messages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds<T> {
    pub noun: &'static str,
    pub min: T,
    pub max: T,
}

impl<T: Copy + PartialOrd + std::str::FromStr + std::fmt::Display> Bounds<T> {
    /// The number, or `expected a batch size from 1 to 250`.
    pub fn parse(&self, text: &str) -> Result<T, String> {
        let v = text.trim().parse::<T>().ok().filter(|v| (self.min..=self.max).contains(v));
        v.ok_or_else(|| format!("expected {} from {}", self.noun, self.describe()))
    }

    /// `1 to 250`.
    pub fn describe(&self) -> String {
        format!("{} to {}", self.min, self.max)
    }
}

pub const NOISE_RANGE: Bounds<f32> = Bounds { noun: "a number", min: 0.0, max: 0.5 };
pub const RATIO_RANGE: Bounds<f32> = Bounds { noun: "a training share", min: 0.1, max: 0.9 };
pub const PENALTY_RANGE: Bounds<f32> = Bounds { noun: "a penalty", min: 0.0, max: 1.0 };
pub const LR_RANGE: Bounds<f32> = Bounds { noun: "a learning rate", min: 1e-5, max: 10.0 };
pub const BATCH_RANGE: Bounds<usize> = Bounds { noun: "a batch size", min: 1, max: 250 };
pub const SAMPLES_RANGE: Bounds<usize> = Bounds { noun: "a number of points", min: 10, max: 100_000 };
/// SGD's momentum; exactly 1 is refused by the trainer's check (it must stay below 1).
pub const MOMENTUM_RANGE: Bounds<f32> = Bounds { noun: "a momentum", min: 0.0, max: 1.0 };

/// What a setting takes: the range `--help` shows, and how the CLI words a bad value (the
/// hash always says `key=value: problem`).
#[derive(Clone, Copy, Debug)]
pub enum Range {
    Real(Bounds<f32>),
    Count(Bounds<usize>),
    /// Any whole number from 0 (the seed).
    Whole,
    /// One of a list of names: what one is called, and the list (`sgd or adam`).
    Choice {
        what: &'static str,
        names: fn() -> String,
    },
    /// A quantizer spec; empty is float.
    Spec,
    /// An activation function's name, or a quantizer spec used as one.
    Activation,
    /// Hidden widths, comma-separated.
    Widths,
    /// Input features, comma-separated.
    Features,
    /// On or off: `1` / `0` in the hash, given or not on the CLI.
    Switch,
    /// Epochs per second of play, or `max`.
    Pace,
    /// What the Step button takes.
    StepBy,
}

impl Range {
    /// What it takes, as `--help` lists it.
    pub fn describe(&self) -> String {
        match self {
            Range::Real(b) => b.describe(),
            Range::Count(b) => b.describe(),
            Range::Whole => "a whole number from 0".into(),
            Range::Choice { names, .. } => names(),
            Range::Spec => "a quantizer SPEC, '' for float".into(),
            Range::Activation => {
                let names: Vec<&str> = qscope_nn::Activation::ALL.iter().map(|a| a.name()).collect();
                format!("{}, or a quantizer SPEC", names.join(", "))
            }
            Range::Widths => format!("widths 1 to {MAX_WIDTH}, comma-separated, at most {MAX_HIDDEN_LAYERS} layers"),
            Range::Features => feature_names(),
            Range::Switch => "1 or 0".into(),
            Range::Pace => format!("1 to {} epochs per second, or max", Pace::MOST),
            Range::StepBy => "epoch or batch".into(),
        }
    }

    /// The CLI's message for `flag value` failing with `e`.
    pub fn cli_error(&self, flag: &str, value: &str, e: &str) -> String {
        let value = crate::state::shorten(value);
        match self {
            Range::Choice { what, .. } => format!("unknown {what} '{value}'; {e}"),
            Range::Spec => format!("{flag}: {e}"),
            // Its message names the activation already.
            Range::Activation => e.to_string(),
            _ => format!("{flag} {value}: {e}"),
        }
    }
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

fn feature_names() -> String {
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

fn shown(on: bool) -> String {
    if on { "1" } else { "0" }.into()
}

fn joined<T>(items: &[T], f: impl Fn(&T) -> String) -> String {
    items.iter().map(f).collect::<Vec<_>>().join(",")
}

/// One training setting.
pub struct Setting {
    /// Its hash key; None: the CLI's only.
    pub key: Option<&'static str>,
    /// Its `qscope train` option; None: the page's only.
    pub flag: Option<&'static str>,
    /// The option's value in `--help` (`X`, `N`, `SPEC`); None for a switch.
    pub arg: Option<&'static str>,
    pub range: Range,
    pub help: &'static str,
    /// Written to the hash even at its default (a link must not depend on the defaults of the
    /// day); else only when it differs from the page's.
    pub always: bool,
    /// A global quantizer that `KEYN` (hash) / `--KEYN` (CLI) overrides for hidden layer N.
    pub per_layer: Option<QuantizedTensor>,
    /// Reads a value; the error says what was expected.
    pub read: fn(&mut TrainParams, &str) -> Result<(), String>,
    /// The value as the hash and the CLI write it.
    pub show: fn(&TrainParams) -> String,
}

impl Setting {
    /// `--flag value` for a shell (a switch: the flag alone when on, else nothing).
    pub fn cli_arg(&self, p: &TrainParams) -> String {
        let (flag, value) = (self.flag.unwrap_or_default(), (self.show)(p));
        match self.range {
            Range::Switch if value == "1" => flag.to_string(),
            Range::Switch => String::new(),
            _ => format!("{flag} {}", shell_word(&value)),
        }
    }
}

/// A quoted word for a POSIX shell: bare when safe, else in single quotes.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.,/=:".contains(&b)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

pub static DATASET: Setting = Setting {
    key: Some("dataset"),
    flag: Some("--dataset"),
    arg: Some("NAME"),
    range: Range::Choice { what: "dataset", names: dataset_names },
    help: "the generated data, TF Playground's and more (sine, a regression: CLI only)",
    always: true,
    per_layer: None,
    read: |p, v| DatasetKind::parse(v).map(|k| p.dataset = k).map_err(|_| format!("expected {}", dataset_names())),
    show: |p| p.dataset.name().into(),
};

pub static SAMPLES: Setting = Setting {
    key: None,
    flag: Some("--samples"),
    arg: Some("N"),
    range: Range::Count(SAMPLES_RANGE),
    help: "points generated, train and test",
    always: false,
    per_layer: None,
    read: |p, v| SAMPLES_RANGE.parse(v).map(|n| p.samples = n),
    show: |p| p.samples.to_string(),
};

pub static HIDDEN: Setting = Setting {
    key: Some("hidden"),
    flag: Some("--hidden"),
    arg: Some("W,W,..."),
    range: Range::Widths,
    help: "hidden layer widths ('' for none)",
    always: true,
    per_layer: None,
    read: |p, v| parse_hidden(v).map(|h| p.set_hidden(h)),
    show: |p| joined(&p.hidden, usize::to_string),
};

pub static ACTIVATION: Setting = Setting {
    key: Some("activation"),
    flag: Some("--activation"),
    arg: Some("A"),
    range: Range::Activation,
    help: "hidden activation; a quantizer is used as one (QKeras' QActivation)",
    always: true,
    per_layer: None,
    read: |p, v| HiddenActivation::parse(v).map(|a| p.activation = a),
    show: |p| p.activation.to_string(),
};

pub static INIT: Setting = Setting {
    key: None,
    flag: Some("--init"),
    arg: Some("I"),
    range: Range::Choice { what: "init", names: names::<Init> },
    help: "weight initialisation; auto: he for relu, else glorot",
    always: false,
    per_layer: None,
    read: |p, v| choice(v).map(|i| p.init = i),
    show: |p| p.init.name().into(),
};

pub static WQ: Setting = Setting {
    key: Some("wq"),
    flag: Some("--wq"),
    arg: Some("SPEC"),
    range: Range::Spec,
    help: "weight quantizer of every hidden layer (one tensor per layer)",
    always: true,
    per_layer: Some(QuantizedTensor::Weights),
    read: |p, v| spec(v).map(|s| p.wq = s),
    show: |p| p.wq.clone(),
};

pub static AQ: Setting = Setting {
    key: Some("aq"),
    flag: Some("--aq"),
    arg: Some("SPEC"),
    range: Range::Spec,
    help: "activation quantizer after every hidden activation",
    always: true,
    per_layer: Some(QuantizedTensor::Activation),
    read: |p, v| spec(v).map(|s| p.aq = s),
    show: |p| p.aq.clone(),
};

pub static QUANTIZE_OUTPUT: Setting = Setting {
    key: Some("qo"),
    flag: Some("--quantize-output"),
    arg: None,
    range: Range::Switch,
    help: "also quantize the output layer's weights with the weight quantizer",
    always: false,
    per_layer: None,
    read: |p, v| switch(v).map(|on| p.quantize_output = on),
    show: |p| shown(p.quantize_output),
};

pub static TWIN_WQ: Setting = Setting {
    key: Some("twin_wq"),
    flag: None,
    arg: Some("SPEC"),
    range: Range::Spec,
    help: "the third network's weight quantizer (empty: as the quantized net's)",
    always: false,
    per_layer: None,
    read: |p, v| spec(v).map(|s| p.twin_wq = s),
    show: |p| p.twin_wq.clone(),
};

pub static TWIN_AQ: Setting = Setting {
    key: Some("twin_aq"),
    flag: None,
    arg: Some("SPEC"),
    range: Range::Spec,
    help: "the third network's activation quantizer (empty: as the quantized net's)",
    always: false,
    per_layer: None,
    read: |p, v| spec(v).map(|s| p.twin_aq = s),
    show: |p| p.twin_aq.clone(),
};

pub static LR: Setting = Setting {
    key: Some("lr"),
    flag: Some("--lr"),
    arg: Some("X"),
    range: Range::Real(LR_RANGE),
    help: "learning rate",
    always: true,
    per_layer: None,
    read: |p, v| LR_RANGE.parse(v).map(|x| p.lr = x),
    show: |p| p.lr.to_string(),
};

pub static BATCH: Setting = Setting {
    key: Some("batch"),
    flag: Some("--batch"),
    arg: Some("N"),
    range: Range::Count(BATCH_RANGE),
    help: "batch size (at most the training points)",
    always: true,
    per_layer: None,
    read: |p, v| BATCH_RANGE.parse(v).map(|n| p.batch = n),
    show: |p| p.batch.to_string(),
};

pub static OPTIMIZER: Setting = Setting {
    key: Some("optimizer"),
    flag: Some("--optimizer"),
    arg: Some("O"),
    range: Range::Choice { what: "optimizer", names: names::<OptimizerKind> },
    help: "optimizer, Keras' update rules (Adam with Keras' defaults)",
    always: true,
    per_layer: None,
    read: |p, v| choice(v).map(|o| p.optimizer = o),
    show: |p| p.optimizer.name().into(),
};

pub static MOMENTUM: Setting = Setting {
    key: None,
    flag: Some("--momentum"),
    arg: Some("M"),
    range: Range::Real(MOMENTUM_RANGE),
    help: "SGD's momentum, below 1",
    always: false,
    per_layer: None,
    read: |p, v| MOMENTUM_RANGE.parse(v).map(|m| p.momentum = m),
    show: |p| p.momentum.to_string(),
};

pub static SEED: Setting = Setting {
    key: Some("seed"),
    flag: Some("--seed"),
    arg: Some("N"),
    range: Range::Whole,
    help: "seeds the data, the initial weights, the shuffling and stochastic quantizers",
    always: true,
    per_layer: None,
    read: |p, v| v.trim().parse().map(|s| p.seed = s).map_err(|_| "expected a whole number".into()),
    show: |p| p.seed.to_string(),
};

pub static NOISE: Setting = Setting {
    key: Some("noise"),
    flag: Some("--noise"),
    arg: Some("X"),
    range: Range::Real(NOISE_RANGE),
    help: "noise, as Playground's 0–50 %",
    always: true,
    per_layer: None,
    read: |p, v| NOISE_RANGE.parse(v).map(|n| p.noise = n),
    show: |p| p.noise.to_string(),
};

pub static LOSS: Setting = Setting {
    key: Some("loss"),
    flag: Some("--loss"),
    arg: Some("L"),
    range: Range::Choice { what: "loss", names: names::<Loss> },
    help: "mse (tanh output, labels ±1, as Playground), bce (sigmoid output), softmax (two outputs)",
    always: false,
    per_layer: None,
    read: |p, v| choice(v).map(|l| p.loss = l),
    show: |p| p.loss.name().into(),
};

pub static FEATURES: Setting = Setting {
    key: Some("features"),
    flag: Some("--features"),
    arg: Some("F,..."),
    range: Range::Features,
    help: "input features (the CLI's default for sine: x1)",
    always: false,
    per_layer: None,
    read: |p, v| parse_features(v).map(|f| p.features = f),
    show: |p| joined(&p.features, |f| f.name().to_string()),
};

pub static TRAIN_RATIO: Setting = Setting {
    key: Some("ratio"),
    flag: Some("--train-ratio"),
    arg: Some("X"),
    range: Range::Real(RATIO_RANGE),
    help: "share of the points used for training, the rest test",
    always: false,
    per_layer: None,
    read: |p, v| RATIO_RANGE.parse(v).map(|r| p.ratio = r),
    show: |p| p.ratio.to_string(),
};

pub static L1: Setting = Setting {
    key: Some("l1"),
    flag: Some("--l1"),
    arg: Some("X"),
    range: Range::Real(PENALTY_RANGE),
    help: "L1 penalty on the weights",
    always: false,
    per_layer: None,
    read: |p, v| PENALTY_RANGE.parse(v).map(|x| p.l1 = x),
    show: |p| p.l1.to_string(),
};

pub static L2: Setting = Setting {
    key: Some("l2"),
    flag: Some("--l2"),
    arg: Some("X"),
    range: Range::Real(PENALTY_RANGE),
    help: "L2 penalty on the weights",
    always: false,
    per_layer: None,
    read: |p, v| PENALTY_RANGE.parse(v).map(|x| p.l2 = x),
    show: |p| p.l2.to_string(),
};

pub static PACE: Setting = Setting {
    key: Some("pace"),
    flag: None,
    arg: Some("P"),
    range: Range::Pace,
    help: "epochs per second of play",
    always: false,
    per_layer: None,
    read: |p, v| Pace::parse(v).map(|x| p.pace = x),
    show: |p| p.pace.name(),
};

pub static STEP_BY: Setting = Setting {
    key: Some("stepby"),
    flag: None,
    arg: Some("S"),
    range: Range::StepBy,
    help: "what the Step button takes",
    always: false,
    per_layer: None,
    read: |p, v| StepBy::parse(v).map(|s| p.stepby = s),
    show: |p| p.stepby.name().into(),
};

pub static PLAY: Setting = Setting {
    key: Some("play"),
    flag: None,
    arg: None,
    range: Range::Switch,
    help: "training runs when the page opens",
    always: false,
    per_layer: None,
    read: |p, v| switch(v).map(|on| p.play = on),
    show: |p| shown(p.play),
};

/// Every setting, in the hash's order.
pub static SETTINGS: [&Setting; 24] = [
    &DATASET,
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
    &SEED,
    &NOISE,
    &LOSS,
    &FEATURES,
    &TRAIN_RATIO,
    &L1,
    &L2,
    &PACE,
    &STEP_BY,
    &PLAY,
];

/// The setting a hash key names.
pub fn by_key(key: &str) -> Option<&'static Setting> {
    SETTINGS.into_iter().find(|s| s.key == Some(key))
}

/// The setting a CLI option names.
pub fn by_flag(flag: &str) -> Option<&'static Setting> {
    SETTINGS.into_iter().find(|s| s.flag == Some(flag))
}

/// The hash's keys (besides `view`, and the per-layer [`LayerKey`]s).
pub fn hash_keys() -> Vec<&'static str> {
    SETTINGS.iter().filter_map(|s| s.key).collect()
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
        SETTINGS.iter().find_map(|s| {
            let n = key.strip_prefix(s.key?)?;
            let tensor = s.per_layer?;
            let n: usize = n.parse().ok().filter(|_| n.bytes().all(|b| b.is_ascii_digit()))?;
            n.checked_sub(1).map(|layer| LayerKey { tensor, layer })
        })
    }
}

impl std::fmt::Display for LayerKey {
    /// `wq2`: the key of the global setting it overrides, and the layer from 1.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let global = SETTINGS.iter().find(|s| s.per_layer == Some(self.tensor)).and_then(|s| s.key);
        write!(f, "{}{}", global.unwrap_or_default(), self.layer + 1)
    }
}
