//! Batch normalization as Keras' `BatchNormalization()`: the reference vectors
//! (`tests/conformance/training/batchnorm.txt`, written by `batchnorm.py` from the real Keras
//! layer) replayed through `qscope_nn::batchnorm::BatchNorm` — training-mode output, the
//! gradients through the batch statistics, the moving statistics after the step, and
//! evaluation mode from them — to a few float32 ulps (TF sums its reductions in its own order);
//! then the trainer with it on.

use std::collections::BTreeMap;
use std::sync::Arc;

use qscope_explore::train::{Net, TrainParams, bundled};
use qscope_nn::Trainer;
use qscope_nn::batchnorm::BatchNorm;

/// One case of the file: its name, shape, and every named row of numbers.
struct Case {
    name: String,
    rows: usize,
    units: usize,
    v: BTreeMap<String, Vec<f32>>,
}

impl Case {
    fn get(&self, key: &str) -> &[f32] {
        self.v.get(key).unwrap_or_else(|| panic!("{}: no {key}", self.name))
    }
}

fn cases() -> Vec<Case> {
    let text = include_str!("../conformance/training/batchnorm.txt");
    let mut out: Vec<Case> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "case" => out.push(Case { name: rest.into(), rows: 0, units: 0, v: BTreeMap::new() }),
            "shape" => {
                let n: Vec<usize> = rest.split_whitespace().map(|t| t.parse().unwrap()).collect();
                let c = out.last_mut().unwrap();
                (c.rows, c.units) = (n[0], n[1]);
            }
            "end" => {}
            _ => {
                let values = rest.split_whitespace().map(|t| t.parse().expect("a float32")).collect();
                out.last_mut().unwrap().v.insert(key.into(), values);
            }
        }
    }
    out
}

/// Within `ulps` float32 steps of the larger magnitude, or `abs` of zero (a sum that cancels).
fn close(name: &str, got: &[f32], want: &[f32], ulps: f32, abs: f32) {
    assert_eq!(got.len(), want.len(), "{name}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let tol = (ulps * f32::EPSILON * g.abs().max(w.abs())).max(abs);
        assert!((g - w).abs() <= tol, "{name}[{i}]: {g} against Keras' {w} (±{tol})");
    }
}

#[test]
fn training_mode_gives_keras_outputs_gradients_and_moving_statistics() {
    let cases = cases();
    assert_eq!(cases.len(), 4, "the file's cases");
    for c in &cases {
        let (m, n, name) = (c.rows, c.units, c.name.as_str());
        let mut bn = BatchNorm::new(n, m);
        bn.set(c.get("gamma"), c.get("beta"), c.get("mean"), c.get("var"));
        let mut y = c.get("z").to_vec();
        bn.forward(&mut y, m, true);
        close(&format!("{name} y"), &y, c.get("y"), 4.0, 1e-7);
        close(&format!("{name} moving mean"), bn.moving_mean(), c.get("moving_mean"), 4.0, 1e-7);
        close(&format!("{name} moving variance"), bn.moving_variance(), c.get("moving_var"), 4.0, 1e-7);
        let mut g = c.get("c").to_vec();
        bn.backward(&mut g, m);
        // ∂L/∂z is a difference of sums of the batch's size: it cancels to near 0 at m = 1.
        close(&format!("{name} dz"), &g, c.get("dz"), 64.0, 1e-5);
        let (dgamma, dbeta) = bn.grads();
        close(&format!("{name} dgamma"), dgamma, c.get("dgamma"), 32.0, 1e-5);
        close(&format!("{name} dbeta"), dbeta, c.get("dbeta"), 16.0, 1e-6);
    }
}

#[test]
fn evaluation_mode_normalizes_by_the_moving_statistics_as_keras() {
    for c in &cases() {
        let (m, n) = (c.rows, c.units);
        let mut bn = BatchNorm::new(n, m.max(3));
        bn.set(c.get("gamma"), c.get("beta"), c.get("mean"), c.get("var"));
        bn.forward(&mut c.get("z").to_vec(), m, true);
        let mut y2 = c.get("z2").to_vec();
        bn.forward(&mut y2, 3, false);
        close(&format!("{} y2", c.name), &y2, c.get("y2"), 16.0, 1e-6);
        close(&format!("{} statistics kept", c.name), bn.moving_mean(), c.get("moving_mean"), 4.0, 1e-7);
    }
}

#[test]
fn an_update_moves_gamma_and_beta_by_their_gradients() {
    let c = &cases()[0];
    let mut bn = BatchNorm::new(c.units, c.rows);
    bn.forward(&mut c.get("z").to_vec(), c.rows, true);
    bn.backward(&mut c.get("c").to_vec(), c.rows);
    let (dgamma, dbeta) = (bn.grads().0.to_vec(), bn.grads().1.to_vec());
    let sgd = qscope_nn::optim::Clock::default().tick(qscope_nn::Optimizer::Sgd { momentum: 0.0 }, 0.1, 0.0, 0.0);
    bn.update(&sgd);
    let want = |start: f32, g: &[f32]| g.iter().map(|g| start - 0.1 * g).collect::<Vec<f32>>();
    assert_eq!(bn.gamma(), want(1.0, &dgamma));
    assert_eq!(bn.beta(), want(0.0, &dbeta));
}

fn digits(hash: &str) -> TrainParams {
    let base = "#view=train&dataset=digits&hidden=32&optimizer=adam&lr=0.01&batch=32&ratio=0.8&seed=0";
    let (mut p, problems) = TrainParams::parse(&format!("{base}&{hash}"));
    assert!(problems.is_empty(), "{problems:?}");
    p.table = Some(Arc::new(bundled::load(p.dataset).unwrap()));
    p
}

#[test]
fn hidden_layers_with_batch_norm_have_it_and_no_bias_the_output_layer_neither() {
    let mut t = Trainer::new(digits("batchnorm=1&wq=&aq=").config(Net::Quantized).unwrap()).unwrap();
    t.step_epoch().unwrap();
    let layers = t.layers();
    let bn = layers[0].batch_norm().expect("hidden layer 1 normalizes");
    assert!(bn.gamma().iter().any(|&g| g != 1.0) && bn.moving_mean().iter().any(|&v| v != 0.0), "trained");
    assert!(layers[0].bias().iter().all(|&b| b == 0.0), "the shift is β's");
    assert!(layers[1].batch_norm().is_none());
    assert!(layers[1].bias().iter().any(|&b| b != 0.0));
}

#[test]
fn binary_digits_with_batch_norm_reach_90_percent_and_93_percent_sooner() {
    // The book's binary digits: ste_sign weights and ste_sign as the activation (Larq's stack).
    let spec = "wq=larq.ste_sign&activation=larq.ste_sign&aq=";
    let accuracies = |hash: &str| {
        let mut t = Trainer::new(digits(hash).config(Net::Quantized).unwrap()).unwrap();
        (0..30).map(|_| t.step_epoch().unwrap().test_acc.unwrap()).collect::<Vec<f64>>()
    };
    let (plain, normalized) = (accuracies(spec), accuracies(&format!("{spec}&batchnorm=1")));
    let first = |a: &[f64]| a.iter().position(|&x| x >= 0.93).map_or(31, |e| e + 1);
    assert!(normalized[29] >= 0.9, "binary digits with batch norm: {}", normalized[29]);
    assert!(first(&normalized) < first(&plain), "93 % at epoch {} with, {} without", first(&normalized), first(&plain));
    eprintln!("binary digits: 93 % at epoch {} with batch norm, {} without", first(&normalized), first(&plain));
}
