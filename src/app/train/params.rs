//! The Train view's settings and their URL hash, `#view=train&dataset=xor&hidden=8,8&…`. Every
//! bad value falls back to its default and is named in the list of problems.

use crate::nn::{Act, Config, DatasetKind, Hidden, Optimizer};
use crate::quant::{Quantizer, parse};

/// What the user chose; the trainers are built from it.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    pub dataset: DatasetKind,
    pub noise: f32,
    pub hidden: Vec<usize>,
    pub activation: String,
    pub wq: String,
    pub aq: String,
    pub lr: f32,
    pub batch: usize,
    pub optimizer: String,
    pub seed: u64,
    pub play: bool,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            dataset: DatasetKind::Xor,
            noise: 0.0,
            hidden: vec![8, 8],
            activation: "tanh".into(),
            wq: "qkeras.quantized_bits(4,0,1)".into(),
            aq: String::new(),
            lr: 0.03,
            batch: 10,
            optimizer: "sgd".into(),
            seed: 0,
            play: false,
        }
    }
}

pub const DATASETS: [&str; 6] = ["circle", "xor", "gaussian", "spiral", "moons", "checkerboard"];
pub const ACTIVATIONS: [&str; 4] = ["tanh", "relu", "sigmoid", "linear"];

/// `"8,8"` → `[8, 8]`; empty is no hidden layer.
pub fn parse_hidden(text: &str) -> Result<Vec<usize>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let widths: Result<Vec<usize>, _> = text.split(',').map(|w| w.trim().parse::<usize>()).collect();
    match widths {
        Ok(w) if w.len() <= 6 && w.iter().all(|&n| (1..=32).contains(&n)) => Ok(w),
        _ => Err(format!("hidden '{text}': widths 1 to 32, comma-separated, at most 6 layers")),
    }
}

/// An optional quantizer spec: empty is float.
pub fn parse_quantizer(text: &str) -> Result<Option<Quantizer>, String> {
    if text.trim().is_empty() { Ok(None) } else { parse(text).map(Some).map_err(|e| e.to_string()) }
}

fn decode(text: &str) -> String {
    js_sys::decode_uri_component(text).ok().and_then(|s| s.as_string()).unwrap_or_else(|| text.to_string())
}

fn encode(text: &str) -> String {
    // Keep specs readable: only what breaks a hash pair is escaped.
    text.replace('%', "%25").replace('&', "%26").replace('#', "%23").replace(' ', "%20")
}

/// Whether a hash asks for the Train view.
pub fn is_train(hash: &str) -> bool {
    hash.trim_start_matches('#').split('&').any(|p| p == "view=train")
}

impl Params {
    pub fn parse(hash: &str) -> (Params, Vec<String>) {
        let mut p = Params::default();
        let mut problems = Vec::new();
        for pair in hash.trim_start_matches('#').split('&').filter(|s| !s.is_empty()) {
            let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode(raw);
            let bad = |what: &str| format!("{key}={value}: {what}");
            let result: Result<(), String> = match key {
                "view" => Ok(()),
                "dataset" => match DatasetKind::parse(&value) {
                    Ok(k) if k != DatasetKind::Sine => {
                        p.dataset = k;
                        Ok(())
                    }
                    Ok(_) => Err(bad("not a classification dataset")),
                    Err(e) => Err(e),
                },
                "noise" => match value.parse::<f32>() {
                    Ok(n) if (0.0..=0.5).contains(&n) => {
                        p.noise = n;
                        Ok(())
                    }
                    _ => Err(bad("expected a number from 0 to 0.5")),
                },
                "hidden" => parse_hidden(&value).map(|h| p.hidden = h),
                "activation" => match ACTIVATIONS.contains(&value.as_str()) {
                    true => {
                        p.activation = value.clone();
                        Ok(())
                    }
                    false => Err(bad("expected tanh, relu, sigmoid or linear")),
                },
                "wq" => parse_quantizer(&value).map(|_| p.wq = value.clone()).map_err(|e| bad(&e)),
                "aq" => parse_quantizer(&value).map(|_| p.aq = value.clone()).map_err(|e| bad(&e)),
                "lr" => match value.parse::<f32>() {
                    Ok(v) if (1e-5..=10.0).contains(&v) => {
                        p.lr = v;
                        Ok(())
                    }
                    _ => Err(bad("expected a learning rate from 0.00001 to 10")),
                },
                "batch" => match value.parse::<usize>() {
                    Ok(v) if (1..=250).contains(&v) => {
                        p.batch = v;
                        Ok(())
                    }
                    _ => Err(bad("expected a batch size from 1 to 250")),
                },
                "optimizer" => match value.as_str() {
                    "sgd" | "adam" => {
                        p.optimizer = value.clone();
                        Ok(())
                    }
                    _ => Err(bad("expected sgd or adam")),
                },
                "seed" => value.parse::<u64>().map(|s| p.seed = s).map_err(|_| bad("expected a whole number")),
                "play" => {
                    p.play = value == "1";
                    Ok(())
                }
                _ => Err(format!("unknown key '{key}'")),
            };
            if let Err(e) = result {
                problems.push(e);
            }
        }
        (p, problems)
    }

    pub fn to_hash(&self) -> String {
        let hidden: Vec<String> = self.hidden.iter().map(usize::to_string).collect();
        let mut h = format!(
            "#view=train&dataset={}&hidden={}&activation={}&wq={}",
            self.dataset.name(),
            hidden.join(","),
            self.activation,
            encode(&self.wq)
        );
        if !self.aq.trim().is_empty() {
            h += &format!("&aq={}", encode(&self.aq));
        }
        h += &format!(
            "&lr={}&batch={}&optimizer={}&seed={}&noise={}",
            self.lr, self.batch, self.optimizer, self.seed, self.noise
        );
        if self.play {
            h += "&play=1";
        }
        h
    }

    /// The config of the quantized net, or of its float twin (no quantizers).
    pub fn config(&self, quantized: bool) -> Result<Config, String> {
        let mut c = Config::new(self.dataset);
        c.noise = self.noise;
        let act = Act::parse(&self.activation)?;
        let (wq, aq) = if quantized { (parse_quantizer(&self.wq)?, parse_quantizer(&self.aq)?) } else { (None, None) };
        c.hidden = Hidden::uniform(&self.hidden, act, wq.clone(), aq);
        c.output_weights = wq;
        c.optimizer = if self.optimizer == "adam" { Optimizer::ADAM } else { Optimizer::Sgd { momentum: 0.0 } };
        c.learning_rate = self.lr;
        c.batch = self.batch;
        c.seed = self.seed;
        c.check()?;
        Ok(c)
    }
}
