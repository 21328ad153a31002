//! `optimizer=bop`: Larq's Bop on the binary layers' weights, Adam with Keras' defaults on the
//! rest, as Larq's `CaseOptimizer((Bop.is_binary_variable, Bop(τ, γ)), default_optimizer=Adam(lr))`.
//! The reference vectors (`tests/conformance/training/bop.txt`, written by `bop.py` from Keras
//! and Larq) are replayed twice: Keras' own gradients through `qscope_nn`'s optimizer, then
//! Keras' batches through the trainer.
//!
//! Bit for bit: Bop's moving average `m` and the binary weights at every step from Keras'
//! gradients (the same float32 operations in the same order), and the binary weights (every
//! flip) when the trainer computes its own gradients. Not bit for bit: Adam, from the second
//! step on. Keras' legacy Adam (TensorFlow's `ResourceApplyAdam`) computes `m += (g − m)·(1 − β₁)`,
//! `v += (g² − v)·(1 − β₂)`, `w −= m·α/(√v + ε)` with `α = lr·√(1 − β₂ᵗ)/(1 − β₁ᵗ)` from `tf.pow`
//! — [`keras_adam`] here, which gives Keras' values bit for bit —, qscope `m = β₁·m + (1 − β₁)·g`
//! (`v` likewise) with `β₁ᵗ`, `β₂ᵗ` as running products (its choice, the same on every
//! platform), which differ in the last bits; `1 − β₂ᵗ` cancels and magnifies that. So the
//! Adam-trained values (biases, a float layer's weights) agree to [`adam_tolerance`]; in the
//! trainer those differences also reach the gradients (whose matrix sums also run in another
//! order than TensorFlow's), so there Bop's `m` differs in its last bits too — but no flip.

use qscope_explore::one_batch::rows;
use qscope_explore::train::{Net, TrainParams};
use qscope_nn::optim::{Clock, OptimizerState};
use qscope_nn::{Act, Config, DatasetKind, Hidden, Optimizer, OptimizerKind, Pick, Trainer};

/// One layer's kernel (row-major inputs × outputs) and bias.
type Params = (Vec<f32>, Vec<f32>);

/// One step of the file: the batch, its loss before the step, Keras' gradients, the values
/// after the step and Bop's `m` of each binary kernel.
#[derive(Default)]
struct Step {
    x: Vec<f32>,
    t: Vec<f32>,
    loss: f32,
    g: Vec<Params>,
    v: Vec<Params>,
    m: Vec<Vec<f32>>,
}

#[derive(Default)]
struct Case {
    name: String,
    threshold: f32,
    gamma: f32,
    lr: f32,
    widths: Vec<usize>,
    binary: Vec<bool>,
    init: Vec<Params>,
    steps: Vec<Step>,
}

fn numbers(rest: &str) -> Vec<f32> {
    rest.split_whitespace().map(|t| t.parse().unwrap_or_else(|_| panic!("not a float32: {t}"))).collect()
}

/// `<layer> <w|b> <values>` into the layer's kernel or bias.
fn set(params: &mut Vec<Params>, rest: &str) {
    let mut it = rest.splitn(3, ' ');
    let (layer, which, values) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap_or(""));
    let layer: usize = layer.parse().unwrap();
    params.resize(params.len().max(layer + 1), Default::default());
    *(if which == "w" { &mut params[layer].0 } else { &mut params[layer].1 }) = numbers(values);
}

fn cases() -> Vec<Case> {
    let text = include_str!("../conformance/training/bop.txt");
    let mut out: Vec<Case> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        if key == "case" {
            out.push(Case { name: rest.into(), ..Case::default() });
            continue;
        }
        let c = out.last_mut().expect("a case first");
        match key {
            "threshold" => c.threshold = numbers(rest)[0],
            "gamma" => c.gamma = numbers(rest)[0],
            "lr" => c.lr = numbers(rest)[0],
            "widths" => c.widths = rest.split(' ').map(|w| w.parse().unwrap()).collect(),
            "binary" => c.binary = rest.split(' ').map(|b| b == "1").collect(),
            "init" => set(&mut c.init, rest),
            "step" => c.steps.push(Step::default()),
            "end" => {}
            _ => {
                let s = c.steps.last_mut().expect("a step first");
                match key {
                    "x" => s.x = numbers(rest),
                    "t" => s.t = numbers(rest),
                    "loss" => s.loss = numbers(rest)[0],
                    "g" => set(&mut s.g, rest),
                    "v" => set(&mut s.v, rest),
                    "m" => s.m.push(numbers(rest.split_once(' ').unwrap().1)),
                    other => panic!("bop.txt: unknown line {other}"),
                }
            }
        }
    }
    out
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The largest `|a − b|`.
fn gap(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// Keras' legacy Adam as TensorFlow's `ResourceApplyAdam` kernel computes it (Keras' defaults,
/// `β^t` as `tf.pow` gives it: correctly rounded for these steps), on `w` with slots `m`, `v`.
fn keras_adam(w: &mut [f32], g: &[f32], (m, v): &mut (Vec<f32>, Vec<f32>), lr: f32, t: i32) {
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-7f32);
    let (b1t, b2t) = (f64::from(b1).powi(t) as f32, f64::from(b2).powi(t) as f32);
    let alpha = lr * (1.0 - b2t).sqrt() / (1.0 - b1t);
    for i in 0..w.len() {
        m[i] += (g[i] - m[i]) * (1.0 - b1);
        v[i] += (g[i] * g[i] - v[i]) * (1.0 - b2);
        w[i] -= m[i] * alpha / (v[i].sqrt() + eps);
    }
}

/// How far qscope's Adam may be from Keras' after `steps` steps at `lr`: Adam's rates
/// `lr·√(1 − β₂ᵗ)/(1 − β₁ᵗ)` differ by less than 10⁻⁵ relatively for t ≤ 30 (running products
/// against `tf.pow`), the moments by a rounding or two, and a step is at most
/// `(1 − β₁)/√(1 − β₂) ≈ 3.2` times the rate: 4·10⁻⁵·lr per step bounds it (the largest gap
/// measured is 6·10⁻⁷ at lr 0.05 after 20 steps, against this bound's 4·10⁻⁵).
fn adam_tolerance(lr: f32, steps: usize) -> f32 {
    4e-5 * lr * steps as f32
}

#[test]
fn keras_gradients_through_qscopes_bop_give_larqs_weights_and_moving_averages_bit_for_bit() {
    let cases = cases();
    assert_eq!(cases.len(), 3, "the file's cases");
    for c in cases {
        let rule = Optimizer::Bop { threshold: c.threshold, gamma: c.gamma };
        let mut clock = Clock::default();
        let mut params = c.init.clone();
        let new = |p: &Params| (OptimizerState::new(p.0.len()), OptimizerState::new(p.1.len()));
        let mut states: Vec<_> = params.iter().map(new).collect();
        // Keras' Adam, emulated: the kernels' and the biases' values and slots.
        let slots = |v: &[f32]| (v.to_vec(), (vec![0.0; v.len()], vec![0.0; v.len()]));
        let mut keras: Vec<_> = c.init.iter().map(|(w, b)| (slots(w), slots(b))).collect();
        for (k, s) in c.steps.iter().enumerate() {
            let update = clock.tick(rule, c.lr, 0.0, 0.0);
            let mut bop = s.m.iter();
            for (l, ((w, b), (sw, sb))) in params.iter_mut().zip(&mut states).enumerate() {
                let at = format!("{} step {} layer {l}", c.name, k + 1);
                let tolerance = adam_tolerance(c.lr, k + 1);
                if c.binary[l] {
                    update.apply_binary(w, &s.g[l].0, sw);
                    assert_eq!(bits(w), bits(&s.v[l].0), "{at}: Bop's weights");
                    assert_eq!(bits(sw.first()), bits(bop.next().unwrap()), "{at}: Bop's m");
                } else {
                    update.apply(w, &s.g[l].0, sw);
                    assert!(gap(w, &s.v[l].0) <= tolerance, "{at}: Adam's weights {w:?} against {:?}", s.v[l].0);
                    let (kw, slots) = &mut keras[l].0;
                    keras_adam(kw, &s.g[l].0, slots, c.lr, k as i32 + 1);
                    assert_eq!(bits(kw), bits(&s.v[l].0), "{at}: Keras' Adam on the weights");
                }
                update.apply(b, &s.g[l].1, sb);
                assert!(gap(b, &s.v[l].1) <= tolerance, "{at}: Adam's biases {b:?} against {:?}", s.v[l].1);
                let (kb, slots) = &mut keras[l].1;
                keras_adam(kb, &s.g[l].1, slots, c.lr, k as i32 + 1);
                assert_eq!(bits(kb), bits(&s.v[l].1), "{at}: Keras' Adam on the biases");
            }
        }
    }
}

/// The trainer of a case: its widths, `ste_sign` weights on the binary layers and as the hidden
/// activation, squared error after tanh, Bop with the case's τ and γ, its initial weights.
fn trainer(c: &Case) -> Trainer {
    let sign = qscope_quant::parse("larq.ste_sign").unwrap();
    let last = c.widths.len() - 2;
    let mut config = Config::new(DatasetKind::Xor);
    config.hidden = (1..=last)
        .map(|l| Hidden {
            width: c.widths[l],
            activation: Act::Quantizer(sign.clone()),
            weights: c.binary[l - 1].then(|| sign.clone()),
            output: None,
        })
        .collect();
    config.output_weights = c.binary[last].then(|| sign.clone());
    config.optimizer = Optimizer::Bop { threshold: c.threshold, gamma: c.gamma };
    config.learning_rate = c.lr;
    config.batch = c.steps[0].t.len();
    let mut t = Trainer::new(config).unwrap();
    for (l, (w, b)) in c.init.iter().enumerate() {
        t.set_params(l, w, b).unwrap();
    }
    t
}

#[test]
fn the_trainer_replaying_larqs_batches_flips_the_same_weights_and_nears_the_rest() {
    for c in cases() {
        let mut t = trainer(&c);
        for (k, s) in c.steps.iter().enumerate() {
            let at = format!("{} step {}", c.name, k + 1);
            let tolerance = adam_tolerance(c.lr, k + 1);
            let loss = t.step_batch(&s.x, &s.t).unwrap() as f32;
            assert!((loss - s.loss).abs() <= 1e-5 * s.loss, "{at}: loss {loss} against {}", s.loss);
            for (l, layer) in t.layers().iter().enumerate() {
                if c.binary[l] {
                    assert_eq!(bits(layer.weights()), bits(&s.v[l].0), "{at} layer {l}: Bop's weights");
                } else {
                    assert!(gap(layer.weights(), &s.v[l].0) <= tolerance, "{at} layer {l}: Adam's weights");
                }
                assert!(gap(layer.bias(), &s.v[l].1) <= tolerance, "{at} layer {l}: Adam's biases");
            }
        }
    }
}

/// The `qscope train` example of the issue, as the page's settings: 2-8-8-1 on xor, `ste_sign`
/// weights and activations, Bop with Larq's defaults and Adam at the CLI's 0.03.
fn binary_xor(extra: &str) -> TrainParams {
    let mut p = TrainParams::playground();
    for (flag, value) in [
        ("--optimizer", "bop"),
        ("--wq", "larq.ste_sign"),
        ("--activation", "larq.ste_sign"),
        ("--dataset", "xor"),
        ("--hidden", "8,8"),
    ] {
        p.set_flag(flag, value).unwrap();
    }
    for kv in extra.split_whitespace() {
        let (flag, value) = kv.split_once('=').unwrap();
        p.set_flag(flag, value).unwrap();
    }
    p
}

#[test]
fn bop_with_larqs_defaults_learns_xor_with_binary_weights() {
    let mut t = Trainer::new(binary_xor("").config(Net::Quantized).unwrap()).unwrap();
    let best = (0..50).map(|_| t.step_epoch().unwrap().test_acc.unwrap()).fold(0.0, f64::max);
    assert!(best >= 0.9, "best test accuracy {best}");
    for hidden in &t.layers()[..2] {
        assert!(hidden.weights().iter().all(|w| w.abs() == 1.0), "{:?}", hidden.weights());
    }
    let output = t.layers().last().unwrap();
    assert!(output.weights().iter().all(|w| w.abs() != 1.0), "Adam trains the float output layer");
}

#[test]
fn bops_settings_read_from_the_hash_and_the_cli_and_bad_values_are_named() {
    let p = binary_xor("--bop-threshold=1e-6 --bop-gamma=0.001");
    assert_eq!(p.config(Net::Quantized).unwrap().optimizer, Optimizer::Bop { threshold: 1e-6, gamma: 1e-3 });
    let hash = p.to_hash();
    assert!(hash.contains("&optimizer=bop&bop_threshold=0.000001&bop_gamma=0.001&"), "{hash}");
    assert_eq!(TrainParams::parse(&hash), (p.clone(), Vec::new()));
    let (_, problems) = TrainParams::parse("#view=train&optimizer=bop&bop_gamma=0&bop_threshold=-1");
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].starts_with("bop_gamma=0: expected a rate from"), "{problems:?}");
    assert!(problems[1].starts_with("bop_threshold=-1: expected a threshold from 0"), "{problems:?}");
    let e = binary_xor("").set_flag("--bop-gamma", "2").unwrap_err();
    assert!(e.contains("--bop-gamma 2"), "{e}");
    let mut c = p.config(Net::Quantized).unwrap();
    c.optimizer = Optimizer::Bop { threshold: 1e-8, gamma: 0.0 };
    assert!(Trainer::new(c).err().unwrap_or_default().contains("Bop gamma 0"));
}

#[test]
fn a_net_without_binary_weights_trains_under_bop_as_under_adam() {
    // The page's float twin (Larq's CaseOptimizer would refuse a Bop that claims nothing).
    let p = binary_xor("");
    let mut bop = Trainer::new(p.config(Net::Float).unwrap()).unwrap();
    let mut adam = p.config(Net::Float).unwrap();
    adam.optimizer = Optimizer::ADAM;
    let mut adam = Trainer::new(adam).unwrap();
    for _ in 0..3 {
        assert_eq!(bop.step_epoch().unwrap(), adam.step_epoch().unwrap());
    }
    // A multi-bit weight quantizer is not binary either: Adam trains its latent weights.
    let p = binary_xor("--wq=qkeras.quantized_bits(4,0,1)");
    let mut t = Trainer::new(p.config(Net::Quantized).unwrap()).unwrap();
    t.step_epoch().unwrap();
    assert!(t.layers()[0].weights().iter().any(|w| w.abs() != 1.0));
}

#[test]
fn one_batch_tells_a_bop_step_from_an_adam_step_and_the_clip_keeps_bops_sign() {
    let mut t = Trainer::new(binary_xor("--weight-clip=0.5").config(Net::Quantized).unwrap()).unwrap();
    t.step_epoch().unwrap();
    assert!(t.layers()[0].weights().iter().all(|w| w.abs() == 0.5), "Bop's ±1, clipped");
    let tr = t.step_traced(Pick::Largest { layer: 0 }).unwrap();
    assert!(tr.bop && tr.clipped && tr.latent_after.abs() == 0.5, "{tr:?}");
    assert_eq!(tr.update, 1f32.copysign(tr.latent_after) - tr.latent_before);
    let shown = rows(&tr, OptimizerKind::Bop, 0.03);
    let row = |key: &str| shown.iter().find(|r| r.key == key).unwrap().clone();
    assert_eq!(row("update").label, "Bop update Δw");
    assert_eq!(row("latent-after").meaning, "Bop's ±1, clipped to the weight clip's bound");
    let mut t = Trainer::new(binary_xor("").config(Net::Quantized).unwrap()).unwrap();
    let tr = t.step_traced(Pick::Largest { layer: 0 }).unwrap();
    assert!(tr.bop && !tr.clipped && tr.latent_after.abs() == 1.0, "{tr:?}");
    let out = t.step_traced(Pick::Largest { layer: 2 }).unwrap();
    assert!(!out.bop && !out.clipped && out.latent_after == out.latent_before + out.update, "{out:?}");
    let update = rows(&out, OptimizerKind::Bop, 0.03).into_iter().find(|r| r.key == "update").unwrap();
    assert!(update.label == "Adam update Δw" && update.meaning.ends_with("(Bop trains the binary weights only)"));
}
