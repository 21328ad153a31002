//! `weight_clip`, Larq's `WeightClip` kernel constraint: after every optimizer update the latent
//! weights are clipped to [−c, c]. The reference vectors (`tests/conformance/training/weight_clip.txt`,
//! written by `weight_clip.py` from Keras' SGD and `larq.constraints.WeightClip`) are replayed
//! through the trainer's own optimizer step and clip, bit for bit; then the trainer itself.

use qscope_nn::optim::{Clock, OptimizerState, clip_weights};
use qscope_nn::{Act, Config, DatasetKind, Hidden, Optimizer, Trainer};

/// One case of the file: clip, learning rate, momentum, starting weights, each step's gradient
/// and the weights Keras left after it.
struct Case {
    name: String,
    clip: f32,
    lr: f32,
    momentum: f32,
    w0: Vec<f32>,
    steps: Vec<(Vec<f32>, Vec<f32>)>,
}

fn numbers(rest: &str) -> Vec<f32> {
    rest.split_whitespace().map(|t| t.parse().unwrap_or_else(|_| panic!("not a float32: {t}"))).collect()
}

fn cases() -> Vec<Case> {
    let text = include_str!("../conformance/training/weight_clip.txt");
    let mut out = Vec::new();
    let mut grad = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "case" => out.push(Case {
                name: rest.into(),
                clip: 0.0,
                lr: 0.0,
                momentum: 0.0,
                w0: Vec::new(),
                steps: Vec::new(),
            }),
            "clip" => out.last_mut().unwrap().clip = numbers(rest)[0],
            "lr" => out.last_mut().unwrap().lr = numbers(rest)[0],
            "momentum" => out.last_mut().unwrap().momentum = numbers(rest)[0],
            "w0" => out.last_mut().unwrap().w0 = numbers(rest),
            "g" => grad = numbers(rest),
            "w" => out.last_mut().unwrap().steps.push((std::mem::take(&mut grad), numbers(rest))),
            "end" => {}
            other => panic!("weight_clip.txt: unknown line {other}"),
        }
    }
    out
}

#[test]
fn weight_clip_after_each_sgd_update_gives_keras_and_larqs_weights_bit_for_bit() {
    let cases = cases();
    assert_eq!(cases.len(), 4, "the file's cases");
    for c in cases {
        let rule = Optimizer::Sgd { momentum: c.momentum };
        let (mut clock, mut state) = (Clock::default(), OptimizerState::new(c.w0.len()));
        let mut w = c.w0.clone();
        for (k, (g, want)) in c.steps.iter().enumerate() {
            clock.tick(rule, c.lr, 0.0, 0.0).apply(&mut w, g, &mut state);
            clip_weights(&mut w, c.clip);
            let bits =
                |v: &[f32]| v.iter().map(|x| if x.is_nan() { u32::MAX } else { x.to_bits() }).collect::<Vec<_>>();
            assert_eq!(bits(&w), bits(want), "{} step {}: {w:?} against {want:?}", c.name, k + 1);
        }
    }
}

#[test]
fn clipping_keeps_every_value_within_the_bounds_and_leaves_those_inside_alone() {
    let mut w = vec![-3.0, -1.0, -0.5, 0.0, 0.25, 1.0, 7.0, f32::INFINITY, f32::NEG_INFINITY];
    clip_weights(&mut w, 1.0);
    assert_eq!(w, [-1.0, -1.0, -0.5, 0.0, 0.25, 1.0, 1.0, 1.0, -1.0]);
}

fn binary_xor(clip: Option<f32>) -> Config {
    let mut c = Config::new(DatasetKind::Xor);
    let sign = qscope_quant::parse("larq.ste_sign").unwrap();
    c.hidden = Hidden::uniform(&[8], Act::parse("tanh").unwrap(), Some(sign), None);
    c.optimizer = Optimizer::ADAM;
    c.learning_rate = 0.1;
    c.weight_clip = clip;
    c
}

#[test]
fn a_trainer_with_weight_clip_keeps_its_quantized_layers_latent_weights_within_the_clip() {
    let mut t = Trainer::new(binary_xor(Some(0.5))).unwrap();
    for _ in 0..20 {
        t.step_epoch().unwrap();
    }
    let hidden = &t.layers()[0];
    assert!(hidden.weights().iter().all(|w| w.abs() <= 0.5), "{:?}", hidden.weights());
    assert!(hidden.weights().iter().any(|w| w.abs() == 0.5), "Adam at 0.1 pushes some to the bound");
    // The output layer has no weight quantizer: no constraint (Larq puts it on quantized kernels).
    let output = t.layers().last().unwrap();
    let unclipped = Trainer::new(binary_xor(None)).map(|mut u| {
        for _ in 0..20 {
            u.step_epoch().unwrap();
        }
        u.layers()[0].weights().iter().fold(0.0f32, |m, w| m.max(w.abs()))
    });
    assert!(unclipped.unwrap() > 0.5, "without the clip the latent weights grow past it");
    assert!(output.weights().iter().any(|w| w.abs() > 0.5), "{:?}", output.weights());
}

#[test]
fn a_weight_clip_that_is_not_a_positive_number_is_refused() {
    for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let e = Trainer::new(binary_xor(Some(bad))).err().unwrap_or_default();
        assert!(e.contains("weight clip"), "{bad}: {e}");
    }
}

#[test]
fn one_batch_shows_a_weight_held_at_the_clip_as_clipped() {
    use qscope_explore::one_batch::{rows, summary};
    use qscope_nn::{OptimizerKind, Pick};
    let mut t = Trainer::new(binary_xor(Some(0.5))).unwrap();
    let traced = (0..2000).find_map(|_| {
        let tr = t.step_traced(Pick::Largest { layer: 0 }).unwrap();
        tr.clipped.then_some(tr)
    });
    let tr = traced.expect("Adam at 0.1 drives the most-pushed weight into the clip");
    assert_eq!(tr.latent_after.abs(), 0.5);
    assert!((tr.latent_before + tr.update).abs() > 0.5, "{tr:?}");
    let after = rows(&tr, OptimizerKind::Adam, 0.1).into_iter().find(|r| r.key == "latent-after").unwrap();
    assert!(after.meaning.contains("clipped back to the weight clip's bound"), "{}", after.meaning);
    assert!(summary(&tr, 2).contains("(held at the weight clip)"), "{}", summary(&tr, 2));
    let free = Trainer::new(binary_xor(None)).unwrap().step_traced(Pick::Largest { layer: 0 }).unwrap();
    assert!(!free.clipped && free.latent_after == free.latent_before + free.update, "{free:?}");
}
