//! What to train: dataset, features, architecture with its quantizers, loss, optimizer and
//! seed. [`Config::check`] names the first problem; the trainer refuses a config it fails.

use super::data::{DatasetKind, Feature};
use super::linalg::Activation;
use super::loss::Loss;
use super::named::Named;
use super::optim::Optimizer;
use super::table::Table;
use qscope_quant::{Quantizer, parse};
use std::sync::Arc;

/// Largest hidden layer and deepest network the trainer accepts — the CLI and the page alike
/// (the page draws every neuron and trains live, so its limits are the ones).
pub const MAX_WIDTH: usize = 64;
pub const MAX_HIDDEN_LAYERS: usize = 8;

/// A hidden layer's activation: a float function or any quantizer used as one (QKeras'
/// `QActivation("quantized_relu(4,2)")`), whose STE then is the activation's derivative.
#[derive(Clone, Debug, PartialEq)]
pub enum Act {
    Float(Activation),
    Quantizer(Quantizer),
}

impl Named for Activation {
    const WHAT: &'static str = "activation";
    const ALL: &'static [Activation] = &[Activation::Tanh, Activation::Relu, Activation::Sigmoid, Activation::Linear];

    fn name(self) -> &'static str {
        match self {
            Activation::Tanh => "tanh",
            Activation::Relu => "relu",
            Activation::Sigmoid => "sigmoid",
            Activation::Linear => "linear",
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        if self == Activation::Linear { &["none", "identity"] } else { &[] }
    }
}

impl Act {
    /// `tanh`, `relu`, `sigmoid`, `linear`, or else a quantizer spec.
    pub fn parse(text: &str) -> Result<Act, String> {
        match Activation::parse(text) {
            Ok(a) => Ok(Act::Float(a)),
            Err(_) => parse(text).map(Act::Quantizer).map_err(|e| format!("activation '{text}': {e}")),
        }
    }
}

impl std::fmt::Display for Act {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Act::Float(a) => f.write_str(a.name()),
            Act::Quantizer(q) => write!(f, "{q}"),
        }
    }
}

/// Weight initialisation (biases start at 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Init {
    /// He for ReLU layers, Glorot for the rest.
    Auto,
    /// Glorot uniform: U(±√(6/(fan_in + fan_out))).
    Glorot,
    /// He uniform: U(±√(6/fan_in)).
    He,
}

impl Named for Init {
    const WHAT: &'static str = "init";
    const ALL: &'static [Init] = &[Init::Auto, Init::Glorot, Init::He];

    fn name(self) -> &'static str {
        match self {
            Init::Auto => "auto",
            Init::Glorot => "glorot",
            Init::He => "he",
        }
    }
}

/// One hidden layer: width, activation, and its weight and activation quantizers.
#[derive(Clone, Debug, PartialEq)]
pub struct Hidden {
    pub width: usize,
    pub activation: Act,
    /// Quantizes the layer's weight matrix (one tensor, one channel); None: float weights.
    pub weights: Option<Quantizer>,
    /// Quantizes the activation's output (the next layer's input); None: float.
    pub output: Option<Quantizer>,
}

impl Hidden {
    /// Layers of the given widths, all alike.
    pub fn uniform(
        widths: &[usize],
        activation: Act,
        weights: Option<Quantizer>,
        output: Option<Quantizer>,
    ) -> Vec<Hidden> {
        widths
            .iter()
            .map(|&width| Hidden {
                width,
                activation: activation.clone(),
                weights: weights.clone(),
                output: output.clone(),
            })
            .collect()
    }
}

/// Everything a training run depends on; the same config gives the same numbers, bit for bit.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub dataset: DatasetKind,
    /// A table dataset's rows ([`DatasetKind::is_table`]): the caller reads them (a bundled file,
    /// the user's CSV) and gives them here; None for generated data.
    pub table: Option<Arc<Table>>,
    /// A table's features standardized by the training split's mean and deviation.
    pub standardize: bool,
    /// Points generated (train + test); a table has its own.
    pub samples: usize,
    /// Playground's noise, 0 to 0.5 (see [`super::data`]).
    pub noise: f32,
    /// Share of the points used for training, in (0, 1).
    pub train_ratio: f32,
    pub features: Vec<Feature>,
    pub hidden: Vec<Hidden>,
    /// Quantizes the output layer's weights; None keeps the output layer float.
    pub output_weights: Option<Quantizer>,
    pub loss: Loss,
    pub optimizer: Optimizer,
    pub learning_rate: f32,
    pub batch: usize,
    /// L1 and L2 penalties on the (latent) weights, not on biases.
    pub l1: f32,
    pub l2: f32,
    /// Larq's `WeightClip(c)` on every layer whose weights are quantized: after each update its
    /// latent weights are clipped to [−c, c] (Keras applies a constraint right after the
    /// optimizer's update). None: no clip.
    pub weight_clip: Option<f32>,
    /// Keras' `BatchNormalization()` after every hidden layer's product, before its activation
    /// (see [`super::batchnorm`]); those layers then have no bias.
    pub batchnorm: bool,
    pub init: Init,
    /// Seeds the data, the initial weights, the shuffling and the stochastic quantizers.
    pub seed: u64,
}

impl Config {
    /// TF Playground's defaults: 500 points, half for training, no noise, x1 and x2 (x1 for
    /// `sine`), 2 × 4 tanh units, squared error, plain SGD at 0.03, batches of 10.
    pub fn new(dataset: DatasetKind) -> Config {
        let features = if dataset.dims() == 1 { vec![Feature::X1] } else { vec![Feature::X1, Feature::X2] };
        Config {
            dataset,
            table: None,
            standardize: true,
            samples: 500,
            noise: 0.0,
            train_ratio: 0.5,
            features,
            hidden: Hidden::uniform(&[4, 2], Act::Float(Activation::Tanh), None, None),
            output_weights: None,
            loss: Loss::SquaredError,
            optimizer: Optimizer::Sgd { momentum: 0.0 },
            learning_rate: 0.03,
            batch: 10,
            l1: 0.0,
            l2: 0.0,
            weight_clip: None,
            batchnorm: false,
            init: Init::Auto,
            seed: 0,
        }
    }

    /// Layer widths from input to output, e.g. `[2, 8, 8, 1]` (`[64, 32, 10]` for digits).
    pub fn widths(&self) -> Vec<usize> {
        let inputs = self.table.as_ref().map_or(self.features.len(), |t| t.dims());
        let mut w = vec![inputs];
        w.extend(self.hidden.iter().map(|h| h.width));
        w.push(self.loss.outputs(self.classes()));
        w
    }

    /// Classes: a table's, else two (1 for regression, which has no classes).
    pub fn classes(&self) -> usize {
        match &self.table {
            Some(t) => t.classes.len(),
            None if self.dataset.is_regression() => 1,
            None => 2,
        }
    }

    /// The points: a table's rows, else those generated.
    pub fn points(&self) -> usize {
        self.table.as_ref().map_or(self.samples, |t| t.rows())
    }

    /// The first problem with this config, as a one-line message.
    pub fn check(&self) -> Result<(), String> {
        match (&self.table, self.dataset.is_table()) {
            (None, true) => return Err(format!("the {} data is not loaded", self.dataset.name())),
            (Some(t), false) => {
                return Err(format!("{} is generated, but a table ({}) was given", self.dataset.name(), t.name));
            }
            _ => {}
        }
        if let Some(t) = &self.table
            && t.classes.len() > 2
            && self.loss != Loss::SoftmaxCrossEntropy
        {
            return Err(format!("{} has {} classes: use the softmax loss", t.name, t.classes.len()));
        }
        if self.table.is_none() && self.features.is_empty() {
            return Err("choose at least one input feature".into());
        }
        if self.dataset.dims() == 1
            && let Some(f) = self.features.iter().find(|f| f.uses_x2())
        {
            return Err(format!(
                "feature {} needs x2, but {} is 1-D (use x1, x1sq, sinx1)",
                f.name(),
                self.dataset.name()
            ));
        }
        if self.dataset.is_regression() && self.loss != Loss::SquaredError {
            return Err(format!("{} is a regression: use the mse loss", self.dataset.name()));
        }
        if self.hidden.len() > MAX_HIDDEN_LAYERS {
            return Err(format!("{} hidden layers: at most {MAX_HIDDEN_LAYERS}", self.hidden.len()));
        }
        if let Some(h) = self.hidden.iter().find(|h| h.width == 0 || h.width > MAX_WIDTH) {
            return Err(format!("hidden width {}: expected 1 to {MAX_WIDTH}", h.width));
        }
        if self.table.is_none() && !(10..=100_000).contains(&self.samples) {
            return Err(format!("samples {}: expected 10 to 100000", self.samples));
        }
        if !(0.0..=1.0).contains(&self.noise) {
            return Err(format!("noise {}: expected 0 to 1 (Playground's 0–50 % is 0 to 0.5)", self.noise));
        }
        if !(self.train_ratio > 0.0 && self.train_ratio < 1.0) {
            return Err(format!("train ratio {}: expected a number between 0 and 1", self.train_ratio));
        }
        let train = (self.points() as f64 * self.train_ratio as f64).floor() as usize;
        if train == 0 || train == self.points() {
            return Err(format!("train ratio {}: leaves no training or no test point", self.train_ratio));
        }
        if self.batch == 0 || self.batch > train {
            return Err(format!("batch {}: expected 1 to the {train} training points", self.batch));
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return Err(format!("learning rate {}: expected a positive number", self.learning_rate));
        }
        if !(self.l1.is_finite() && self.l1 >= 0.0 && self.l2.is_finite() && self.l2 >= 0.0) {
            return Err("L1 and L2 penalties must be non-negative numbers".into());
        }
        if let Some(c) = self.weight_clip
            && !(c.is_finite() && c > 0.0)
        {
            return Err(format!("weight clip {c}: expected a positive number (the latent weights' bound)"));
        }
        match self.optimizer {
            Optimizer::Sgd { momentum } if !(0.0..1.0).contains(&momentum) => {
                return Err(format!("momentum {momentum}: expected 0 ≤ momentum < 1"));
            }
            Optimizer::Adam { beta1, beta2, epsilon }
                if !((0.0..1.0).contains(&beta1) && (0.0..1.0).contains(&beta2) && epsilon > 0.0) =>
            {
                return Err("Adam needs 0 ≤ β₁, β₂ < 1 and ε > 0".into());
            }
            Optimizer::Bop { threshold, .. } if !(threshold.is_finite() && threshold >= 0.0) => {
                return Err(format!("Bop threshold {threshold}: expected a number ≥ 0"));
            }
            Optimizer::Bop { gamma, .. } if !(gamma > 0.0 && gamma <= 1.0) => {
                return Err(format!("Bop gamma {gamma}: expected 0 < γ ≤ 1 (the moving average's rate)"));
            }
            _ => {}
        }
        for (i, h) in self.hidden.iter().enumerate() {
            let act = match &h.activation {
                Act::Quantizer(q) => Some(q),
                Act::Float(_) => None,
            };
            for q in [act, h.weights.as_ref(), h.output.as_ref()].into_iter().flatten() {
                check_quantizer(q).map_err(|e| format!("hidden layer {}: {e}", i + 1))?;
            }
        }
        if let Some(q) = &self.output_weights {
            check_quantizer(q).map_err(|e| format!("output layer: {e}"))?;
        }
        Ok(())
    }
}

/// A quantizer the trainer can run: valid, and runnable in training and in inference.
pub fn check_quantizer(q: &Quantizer) -> Result<(), String> {
    q.validate().map_err(|(p, m)| format!("{q}: {p}: {m}"))?;
    match q.unsupported(true).or_else(|| q.unsupported(false)) {
        Some(why) => Err(format!("{q}: {why}")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activations_parse_as_functions_or_quantizers() {
        assert_eq!(Act::parse("ReLU"), Ok(Act::Float(Activation::Relu)));
        let q = Act::parse("quantized_relu(4,2)").unwrap();
        assert!(matches!(q, Act::Quantizer(_)));
        assert_eq!(q.to_string(), "qkeras.quantized_relu(bits=4, integer=2)");
        assert!(Act::parse("tanhh").unwrap_err().starts_with("activation 'tanhh': unknown quantizer"));
    }

    #[test]
    fn checks_name_the_problem() {
        let mut c = Config::new(DatasetKind::Sine);
        assert_eq!(c.widths(), [1, 4, 2, 1]);
        c.check().unwrap();
        c.features.push(Feature::X2);
        assert!(c.check().unwrap_err().contains("needs x2"));
        let mut c = Config::new(DatasetKind::Xor);
        c.batch = 251;
        assert!(c.check().unwrap_err().contains("batch 251"));
        c.batch = 10;
        c.hidden[0].weights = Some(parse("qkeras.stochastic_ternary()").unwrap());
        assert!(c.check().unwrap_err().starts_with("hidden layer 1: qkeras.stochastic_ternary"));
        c.hidden[0].weights = None;
        for (threshold, gamma, what) in [
            (-1e-8, 1e-4, "Bop threshold -0.00000001"),
            (f32::NAN, 1e-4, "Bop threshold NaN"),
        ]
        .into_iter()
        .chain([(1e-8, 0.0, "Bop gamma 0"), (1e-8, 1.5, "Bop gamma 1.5"), (1e-8, f32::NAN, "Bop gamma NaN")])
        {
            c.optimizer = Optimizer::Bop { threshold, gamma };
            assert!(c.check().unwrap_err().starts_with(what), "{:?}", c.check());
        }
        c.optimizer = Optimizer::Bop { threshold: 0.0, gamma: 1.0 };
        c.check().unwrap();
    }
}
