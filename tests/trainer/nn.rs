//! The MLP trainer as a specification: quality bars (float and quantized), gradients against
//! finite differences, determinism, error states, flips, quantizer swaps, no allocation per
//! step, and `qscope train`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::process::{Command, Output};

use qscope_nn::{
    Act, Activation, Config, DatasetKind, Feature, Hidden, Loss, Metrics, Optimizer, Pick, QuantizedTensor, Site,
    Trainer,
};
use qscope_quant::{Ctx, Quantizer, parse};

/// Counts this thread's allocations (tests run on several threads).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; the counter is a const-initialised thread-local.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn q(spec: &str) -> Quantizer {
    parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// A config: dataset, hidden widths, activation, weight and activation quantizers.
fn config(dataset: DatasetKind, hidden: &[usize], act: &str, wq: Option<&str>, aq: Option<&str>) -> Config {
    let mut c = Config::new(dataset);
    c.hidden = Hidden::uniform(hidden, Act::parse(act).unwrap(), wq.map(q), aq.map(q));
    c
}

fn adam(mut c: Config, lr: f32) -> Config {
    c.optimizer = Optimizer::ADAM;
    c.learning_rate = lr;
    c
}

/// Trains for `epochs` and returns the last metrics.
fn train(c: Config, epochs: usize) -> Metrics {
    let mut t = Trainer::new(c).unwrap();
    for _ in 1..epochs {
        t.step_epoch().unwrap();
    }
    t.step_epoch().unwrap()
}

const W4: &str = "qkeras.quantized_bits(4,0,1)";
const TANH4: &str = "qkeras.quantized_tanh(4)";
const RELU4: &str = "qkeras.quantized_relu(4,2)";

#[test]
fn float_2_8_8_1_tanh_reaches_95_percent_on_circle_xor_and_gaussian() {
    for d in [DatasetKind::Circle, DatasetKind::Xor, DatasetKind::Gaussian] {
        let m = train(config(d, &[8, 8], "tanh", None, None), 100);
        assert!(m.test_acc.unwrap() >= 0.95, "{d:?}: {m:?}");
    }
}

#[test]
fn float_2_16_16_1_reaches_90_percent_on_spiral() {
    // Inputs x1, x2 only; Adam at 0.01, 200 epochs of 250 points.
    let m = train(adam(config(DatasetKind::Spiral, &[16, 16], "tanh", None, None), 0.01), 200);
    assert!(m.test_acc.unwrap() >= 0.90, "{m:?}");
}

#[test]
fn four_bit_weights_and_activations_stay_within_3_points_of_the_float_twin() {
    let cases = [
        (DatasetKind::Circle, &[8, 8][..], "tanh", TANH4, 100, 0.03, false),
        (DatasetKind::Xor, &[8, 8], "tanh", TANH4, 100, 0.03, false),
        (DatasetKind::Gaussian, &[8, 8], "tanh", TANH4, 100, 0.03, false),
        (DatasetKind::Circle, &[8, 8], "relu", RELU4, 100, 0.01, true),
        (DatasetKind::Xor, &[8, 8], "relu", RELU4, 100, 0.01, true),
        (DatasetKind::Gaussian, &[8, 8], "relu", RELU4, 100, 0.01, true),
        (DatasetKind::Spiral, &[16, 16], "tanh", TANH4, 200, 0.01, true),
    ];
    for (d, hidden, act, aq, epochs, lr, use_adam) in cases {
        let run = |wq, aq| {
            let c = config(d, hidden, act, wq, aq);
            let c = if use_adam { adam(c, lr) } else { Config { learning_rate: lr, ..c } };
            train(c, epochs).test_acc.unwrap()
        };
        let (float, quantized) = (run(None, None), run(Some(W4), Some(aq)));
        assert!(quantized >= float - 0.03, "{d:?} {act}/{aq}: float {float}, 4-bit {quantized}");
    }
}

#[test]
fn binary_weights_with_a_float_last_layer_reach_90_percent_on_xor() {
    let c = adam(config(DatasetKind::Xor, &[8, 8], "tanh", Some("larq.ste_sign"), None), 0.1);
    let mut t = Trainer::new(c).unwrap();
    for _ in 0..50 {
        t.step_epoch().unwrap();
    }
    assert!(t.history().last().unwrap().test_acc.unwrap() >= 0.90, "{:?}", t.history().last());
    for layer in &t.layers()[..2] {
        assert!(layer.quantized().iter().all(|w| w.abs() == 1.0));
    }
    assert!(t.layers()[2].quantized().iter().any(|w| w.abs() != 1.0), "the output layer stays float");
}

/// Central differences of the mean loss on `rows` in each latent weight and bias, against the
/// backward pass.
fn check_gradients(t: &mut Trainer, rows: &[usize], what: &str) {
    t.loss_and_gradients(rows).unwrap();
    let grads: Vec<(Vec<f32>, Vec<f32>)> =
        t.layers().iter().map(|l| (l.weight_grad().to_vec(), l.bias_grad().to_vec())).collect();
    let eps = 1e-3f32;
    for (li, (gw, gb)) in grads.iter().enumerate() {
        let (w, b) = (t.layers()[li].weights().to_vec(), t.layers()[li].bias().to_vec());
        for k in 0..w.len() + b.len() {
            let mut at = |delta: f32| {
                let (mut w2, mut b2) = (w.clone(), b.clone());
                if k < w.len() {
                    w2[k] += delta
                } else {
                    b2[k - w.len()] += delta
                }
                t.set_params(li, &w2, &b2).unwrap();
                t.loss_and_gradients(rows).unwrap()
            };
            let numeric = (at(eps) - at(-eps)) / (2.0 * eps as f64);
            let analytic = if k < w.len() { gw[k] } else { gb[k - w.len()] } as f64;
            assert!(
                (numeric - analytic).abs() <= 2e-3 + 0.02 * numeric.abs(),
                "{what}: layer {li} parameter {k}: backward {analytic}, finite differences {numeric}"
            );
        }
        t.set_params(li, &w, &b).unwrap();
    }
}

#[test]
fn float_gradients_match_finite_differences() {
    let rows: Vec<usize> = (0..10).collect();
    for (act, loss) in
        [("tanh", Loss::SquaredError), ("sigmoid", Loss::BinaryCrossEntropy), ("relu", Loss::SoftmaxCrossEntropy)]
    {
        let mut c = config(DatasetKind::Circle, &[5, 4], act, None, None);
        c.loss = loss;
        c.features = vec![Feature::X1, Feature::X2, Feature::X1X2];
        c.seed = 3;
        let mut t = Trainer::new(c).unwrap();
        // Off the initial point, so relu units and the loss are in a generic state.
        t.steps(7).unwrap();
        check_gradients(&mut t, &rows, act);
    }
    let mut c = config(DatasetKind::Sine, &[6], "tanh", None, None);
    c.features = vec![Feature::X1, Feature::SinX1];
    check_gradients(&mut Trainer::new(c).unwrap(), &rows, "sine regression");
}

#[test]
fn learnable_quantizer_gradients_follow_the_chain_rule() {
    // PACT with 24 bits is clip(x, 0, α) up to 2⁻²⁴: its STE gradient in α, 1[x ≥ α], is then
    // the true derivative, so finite differences of the loss check Σ g·∂y/∂α at every site.
    let pact = |a: f32| q(&format!("pact(bits=24, alpha={a})"));
    let rows: Vec<usize> = (0..10).collect();
    for site in [Site::Weights, Site::ActivationFn, Site::Output] {
        let alpha = if site == Site::Weights { 0.3 } else { 0.5 };
        let mut c = config(DatasetKind::Xor, &[6], "tanh", None, None);
        c.seed = 5;
        let mut t = Trainer::new(c).unwrap();
        let set = |t: &mut Trainer, a: f32| match site {
            Site::Weights => t.set_quantizer(0, QuantizedTensor::Weights, Some(pact(a))).unwrap(),
            Site::ActivationFn => t.set_activation(0, Act::Quantizer(pact(a))).unwrap(),
            Site::Output => t.set_quantizer(0, QuantizedTensor::Activation, Some(pact(a))).unwrap(),
        };
        set(&mut t, alpha);
        t.loss_and_gradients(&rows).unwrap();
        let learned = t.layers()[0].learned();
        assert_eq!((learned.len(), learned[0].site, learned[0].name, learned[0].value), (1, site, "alpha", alpha));
        let eps = 2e-3;
        let mut loss_at = |a: f32| {
            set(&mut t, a);
            t.loss_and_gradients(&rows).unwrap()
        };
        let numeric = (loss_at(alpha + eps) - loss_at(alpha - eps)) / (2.0 * eps as f64);
        let analytic = learned[0].grad as f64;
        assert!(
            analytic != 0.0 && (numeric - analytic).abs() <= 1e-3 + 0.02 * numeric.abs(),
            "{site:?}: {analytic} vs {numeric}"
        );
    }
}

#[test]
fn learnable_steps_and_clips_are_trained() {
    let c =
        adam(config(DatasetKind::Circle, &[8, 8], "relu", Some("lsq(bits=4)"), Some("pact(bits=4, alpha=2)")), 0.01);
    let mut t = Trainer::new(c).unwrap();
    let first = t.layers()[0].learned();
    assert_eq!(
        first.iter().map(|l| (l.site, l.name)).collect::<Vec<_>>(),
        [(Site::Weights, "step"), (Site::Output, "alpha")]
    );
    assert!(first[0].value > 0.0, "LSQ's step is initialised from the weights: {first:?}");
    let m = (0..60).map(|_| t.step_epoch().unwrap()).last().unwrap();
    let last = t.layers()[0].learned();
    assert!(last[0].value != first[0].value && last[1].value != first[1].value, "{first:?} → {last:?}");
    assert!(m.test_acc.unwrap() >= 0.95, "{m:?}");
}

#[test]
fn ste_gradients_pass_where_the_estimator_passes() {
    // ste_sign passes the gradient for |w| ≤ 1 only: a latent weight at 1.5 gets none.
    let mut t = Trainer::new(config(DatasetKind::Xor, &[4], "tanh", Some("larq.ste_sign"), None)).unwrap();
    let (mut w, b) = (t.layers()[0].weights().to_vec(), t.layers()[0].bias().to_vec());
    w[0] = 1.5;
    w[1] = 0.5;
    t.set_params(0, &w, &b).unwrap();
    assert_eq!(t.layers()[0].quantized()[..2], [1.0, 1.0]);
    t.loss_and_gradients(&[0, 1, 2, 3]).unwrap();
    let g = t.layers()[0].weight_grad();
    assert_eq!(g[0], 0.0);
    assert_ne!(g[1], 0.0);
}

#[test]
fn the_same_config_gives_the_same_numbers_bit_for_bit() {
    // Stochastic weights and activations: the draws are seeded too.
    let mut c = config(
        DatasetKind::Moons,
        &[8, 8],
        "relu",
        Some("qkeras.stochastic_binary()"),
        Some("qkeras.stochastic_round"),
    );
    c.noise = 0.2;
    let run = |c: Config| {
        let mut t = Trainer::new(c).unwrap();
        t.steps(200).unwrap();
        let grid = t.predict_grid(-6.0, 6.0, 9);
        let weights: Vec<u32> = t.layers().iter().flat_map(|l| l.weights().iter().map(|w| w.to_bits())).collect();
        (t.history().to_vec(), grid, weights)
    };
    let a = run(c.clone());
    assert_eq!(a.0.len(), 8);
    assert_eq!(a, run(c.clone()));
    assert_ne!(a, run(Config { seed: 1, ..c }));
}

#[test]
fn training_never_produces_nan_with_quantized_layers() {
    for (act, wq, aq) in [
        ("tanh", "qkeras.ternary()", "larq.ste_sign"),
        ("relu", "qkeras.quantized_bits(3,0,1,alpha='auto')", "qkeras.quantized_relu(3,1)"),
        ("qkeras.quantized_tanh(2)", "larq.DoReFa(k_bit=2, mode='weights')", "softround"),
        ("sigmoid", "qkeras.quantized_po2(4)", "lsq(bits=3, signed=False)"),
    ] {
        let mut t =
            Trainer::new(adam(config(DatasetKind::Checkerboard, &[16, 8], act, Some(wq), Some(aq)), 0.01)).unwrap();
        for _ in 0..10 {
            let m = t.step_epoch().unwrap_or_else(|e| panic!("{wq}/{aq}: {e}"));
            assert!(m.train_loss.is_finite() && m.test_loss.is_finite(), "{wq}/{aq}: {m:?}");
        }
        assert!(t.predict_grid(-6.0, 6.0, 5).iter().all(|v| v.is_finite()));
    }
}

#[test]
fn a_diverging_run_stops_with_a_clear_error() {
    let mut c = config(DatasetKind::Sine, &[8], "linear", None, None);
    c.learning_rate = 1e4;
    let mut t = Trainer::new(c).unwrap();
    let e = (0..100).find_map(|_| t.step().err()).expect("the run diverges");
    assert!(e.starts_with("training stopped at epoch 1, step ") && e.contains("lower the learning rate"), "{e}");
    assert_eq!(t.error(), Some(e.as_str()));
    assert_eq!(t.step_epoch().unwrap_err(), e, "a stopped run stays stopped");
}

#[test]
fn flips_count_the_quantized_weights_that_changed_level() {
    let mut t = Trainer::new(adam(config(DatasetKind::Circle, &[8, 8], "tanh", Some(W4), None), 0.05)).unwrap();
    let mut total = 0;
    for _ in 0..30 {
        let before: Vec<Vec<f32>> = t.layers().iter().map(|l| l.quantized().to_vec()).collect();
        t.step().unwrap();
        for (l, old) in t.layers()[..2].iter().zip(&before) {
            let changed = l.quantized().iter().zip(old).filter(|(a, b)| a != b).count();
            assert_eq!(l.flips(), changed);
        }
        assert_eq!(t.layers()[2].flips(), 0, "the float output layer never flips");
        total += t.flips();
    }
    assert!(total > 0);
    let mut t =
        Trainer::new(Config { learning_rate: 1e-9, ..config(DatasetKind::Circle, &[8], "tanh", Some(W4), None) })
            .unwrap();
    t.steps(5).unwrap();
    assert_eq!(t.flips(), 0);
}

#[test]
fn the_flip_history_holds_each_layers_flip_ratio_per_epoch() {
    let mut t = Trainer::new(adam(config(DatasetKind::Circle, &[8, 8], "tanh", Some(W4), None), 0.05)).unwrap();
    let steps_per_epoch = t.dataset().train.len().div_ceil(t.config().batch);
    let mut flips = [0usize; 3];
    for _ in 0..steps_per_epoch {
        t.step().unwrap();
        for (f, l) in flips.iter_mut().zip(t.layers()) {
            *f += l.flips();
        }
    }
    assert_eq!(t.flip_history().len(), 1);
    for (l, (&ratio, &f)) in t.flip_history()[0].iter().zip(&flips).enumerate() {
        let weights = t.layers()[l].weights().len();
        assert_eq!(ratio, f as f32 / (steps_per_epoch as f32 * weights as f32), "layer {l}");
    }
    assert!(t.flip_history()[0][0] > 0.0, "4-bit weights flip while Adam moves them");
    assert_eq!(t.flip_history()[0][2], 0.0, "the float output layer never flips");
}

#[test]
fn weight_levels_follow_the_layers_quantizer() {
    let t = Trainer::new(config(DatasetKind::Xor, &[8], "tanh", Some("larq.ste_sign"), None)).unwrap();
    assert_eq!(t.layers()[0].weight_levels().and_then(|l| l.list(8)), Some(vec![-1.0, 1.0]));
    assert_eq!(t.layers()[1].weight_levels(), None, "float weights have no levels");
    let t =
        Trainer::new(config(DatasetKind::Xor, &[8], "tanh", Some("qkeras.quantized_bits(4,0,1,alpha='auto')"), None))
            .unwrap();
    let levels = t.layers()[0].weight_levels().expect("quantized weights have levels");
    assert!(t.layers()[0].quantized().iter().all(|&w| levels.contains(w)), "{levels:?}");
}

#[test]
fn quantizers_can_be_swapped_mid_run() {
    let mut t = Trainer::new(adam(config(DatasetKind::Xor, &[8, 8], "tanh", None, None), 0.05)).unwrap();
    for _ in 0..10 {
        t.step_epoch().unwrap();
    }
    t.set_quantizer(0, QuantizedTensor::Weights, Some(q("larq.ste_sign"))).unwrap();
    t.set_quantizer(1, QuantizedTensor::Activation, Some(q(TANH4))).unwrap();
    assert!(t.layers()[0].quantized().iter().all(|w| w.abs() == 1.0));
    assert_eq!(t.config().hidden[0].weights, Some(q("larq.ste_sign")));
    let m = t.step_epoch().unwrap();
    assert_eq!(m.epoch, 11);
    assert!(t.layers()[1].output(1).iter().all(|a| (a * 8.0).fract() == 0.0), "4-bit tanh levels are multiples of 1/8");
    t.set_quantizer(0, QuantizedTensor::Weights, None).unwrap();
    assert_eq!(t.layers()[0].quantized(), t.layers()[0].weights());
    assert!(t.set_quantizer(3, QuantizedTensor::Weights, None).unwrap_err().contains("0 to 2"));
    assert!(t.set_quantizer(2, QuantizedTensor::Activation, Some(q(TANH4))).unwrap_err().contains("output layer"));
    assert!(t.set_quantizer(0, QuantizedTensor::Weights, Some(q("qkeras.stochastic_ternary(alpha=1)"))).is_err());
    t.set_quantizer(2, QuantizedTensor::Weights, Some(q(W4))).unwrap();
    t.step_epoch().unwrap();
}

#[test]
fn the_decision_surface_covers_the_grid() {
    let mut t = Trainer::new(config(DatasetKind::Circle, &[8, 8], "tanh", None, None)).unwrap();
    for _ in 0..50 {
        t.step_epoch().unwrap();
    }
    let g = t.predict_grid(-6.0, 6.0, 25);
    assert_eq!(g.len(), 625);
    assert!(g.iter().all(|v| (-1.0..=1.0).contains(v)));
    assert!(g[12 * 25 + 12] > 0.5, "inside the circle: {}", g[12 * 25 + 12]);
    assert!(g[0] < -0.5 && g[624] < -0.5, "the corners are outside");
    let mut s = Trainer::new(config(DatasetKind::Sine, &[16], "tanh", None, None)).unwrap();
    assert_eq!(s.predict_grid(-6.0, 6.0, 50).len(), 50);
    assert_eq!(s.step_epoch().unwrap().test_acc, None, "regression has no accuracy");
}

#[test]
fn a_training_step_allocates_nothing() {
    let sign = (Some("larq.ste_sign"), Some("qkeras.stochastic_round"));
    for (wq, aq, optimizer) in [
        (None, None, Optimizer::ADAM),
        (Some(W4), Some(TANH4), Optimizer::ADAM),
        (sign.0, sign.1, Optimizer::ADAM),
        (sign.0, sign.1, Optimizer::BOP),
    ] {
        let mut c = adam(config(DatasetKind::Spiral, &[16, 16], "tanh", wq, aq), 0.01);
        c.optimizer = optimizer;
        let mut t = Trainer::new(c).unwrap();
        t.steps(3).unwrap();
        let before = ALLOCATIONS.with(Cell::get);
        t.steps(20).unwrap(); // within the first epoch (25 steps): no evaluation
        assert_eq!(ALLOCATIONS.with(Cell::get) - before, 0, "{wq:?}/{aq:?}/{optimizer:?}");
    }
}

/// Latent and quantized weights and biases of every layer, as bits.
fn snapshot(t: &Trainer) -> Vec<Vec<u32>> {
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    t.layers().iter().flat_map(|l| [bits(l.weights()), bits(l.quantized()), bits(l.bias())]).collect()
}

#[test]
fn a_traced_step_is_an_ordinary_step() {
    let mut c = adam(config(DatasetKind::Spiral, &[8, 8], "tanh", Some(W4), Some(TANH4)), 0.02);
    c.l2 = 0.001;
    let (mut traced, mut plain) = (Trainer::new(c.clone()).unwrap(), Trainer::new(c).unwrap());
    // 30 steps cross the end of the first epoch (25 batches).
    for k in 0..30 {
        let pick = if k % 2 == 0 { Pick::Largest { layer: k % 3 } } else { Pick::At { layer: 1, index: k } };
        traced.step_traced(pick).unwrap();
        plain.step().unwrap();
        assert_eq!(snapshot(&traced), snapshot(&plain), "after step {}", k + 1);
    }
    assert_eq!(traced.history(), plain.history());
    assert_eq!(traced.batch_in_epoch(), 5);
}

#[test]
fn the_traced_weight_agrees_with_the_trainers_state() {
    let sgd = Optimizer::Sgd { momentum: 0.9 };
    for (optimizer, l1) in [(Optimizer::ADAM, 0.0), (sgd, 0.0), (Optimizer::ADAM, 0.01)] {
        let mut c = config(DatasetKind::Xor, &[8, 8], "tanh", Some(W4), None);
        (c.optimizer, c.learning_rate, c.l1) = (optimizer, 0.05, l1);
        let wq = q(W4);
        let mut t = Trainer::new(c).unwrap();
        let mut flips = 0;
        for _ in 0..150 {
            let before = t.layers()[0].weights().to_vec();
            let q_before = t.layers()[0].quantized().to_vec();
            let w = t.step_traced(Pick::Largest { layer: 0 }).unwrap();
            let layer = &t.layers()[0];
            let i = w.index;
            assert_eq!((w.layer, w.from, w.to, w.quantized), (0, i / 8, i % 8, true));
            assert_eq!((w.latent_before, w.q_before), (before[i], q_before[i]));
            assert_eq!(w.latent_after, layer.weights()[i]);
            assert_eq!(w.latent_before + w.update, w.latent_after, "{optimizer:?}: {w:?}");
            assert_eq!(w.grad_w, w.grad_q * w.ste);
            assert_eq!(w.grad_w, layer.weight_grad()[i]);
            assert!(layer.weight_grad().iter().all(|g| g.abs() <= w.grad_w.abs()), "the largest |∂L/∂w|");
            if l1 == 0.0 {
                assert_eq!(w.grad_total, w.grad_w);
            } else {
                assert_eq!(w.grad_total, w.grad_w + l1 * w.latent_before.signum());
            }
            let mut requantized = vec![0.0; before.len()];
            wq.apply(layer.weights(), &mut requantized, None, &mut Ctx::training(0));
            assert_eq!((w.q_after, layer.quantized()[i]), (requantized[i], requantized[i]));
            assert_eq!(w.flipped, w.q_before != w.q_after);
            flips += usize::from(w.flipped);
        }
        assert!(flips > 0, "{optimizer:?}: the most-pushed weight changes level now and then");
    }
}

#[test]
fn a_float_layer_traces_with_an_identity_quantizer_and_bad_picks_are_refused() {
    let mut t = Trainer::new(config(DatasetKind::Circle, &[4], "tanh", Some(W4), None)).unwrap();
    let w = t.step_traced(Pick::At { layer: 1, index: 3 }).unwrap();
    assert_eq!((w.quantized, w.ste, w.from, w.to), (false, 1.0, 3, 0));
    assert_eq!((w.q_before, w.q_after), (w.latent_before, w.latent_after));
    assert_eq!(w.grad_q, w.grad_w);
    assert!(w.latent_after != w.latent_before && !w.flipped, "float weights move but have no level to flip");
    assert!(t.step_traced(Pick::Largest { layer: 2 }).unwrap_err().contains("0 to 1"));
    assert!(t.step_traced(Pick::At { layer: 0, index: 8 }).unwrap_err().contains("has 8 weights"));
    assert_eq!(t.step_count(), 1, "a refused pick takes no step");
}

#[test]
fn bad_configs_are_refused_with_a_message() {
    let mut c = config(DatasetKind::Circle, &[8], "tanh", None, None);
    c.learning_rate = -1.0;
    assert!(Trainer::new(c).err().unwrap().contains("learning rate -1"));
    let mut c = config(DatasetKind::Sine, &[8], "tanh", None, None);
    c.loss = Loss::BinaryCrossEntropy;
    assert!(Trainer::new(c).err().unwrap().contains("regression"));
    let c = config(DatasetKind::Circle, &[0], "tanh", None, None);
    assert!(Trainer::new(c).err().unwrap().contains("hidden width 0"));
    assert_eq!(Act::parse("relu"), Ok(Act::Float(Activation::Relu)));
}

fn qscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qscope")).args(args).output().expect("qscope runs")
}

#[test]
fn cli_train_prints_the_same_json_lines_twice() {
    let args = [
        "train",
        "--dataset",
        "spiral",
        "--hidden",
        "16,16",
        "--activation",
        "tanh",
        "--wq",
        W4,
        "--aq",
        TANH4,
        "--epochs",
        "5",
        "--seed",
        "3",
        "--optimizer",
        "adam",
        "--lr",
        "0.01",
        "--noise",
        "0.1",
        "--json",
    ];
    let (a, b) = (qscope(&args), qscope(&args));
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    let text = String::from_utf8(a.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5);
    assert!(lines[4].starts_with(r#"{"epoch":5,"train_loss":"#), "{}", lines[4]);
    for key in ["train_loss", "test_loss", "train_acc", "test_acc"] {
        assert!(lines.iter().all(|l| l.contains(&format!(r#""{key}":"#))), "{key}");
    }
    let plain = qscope(&[
        "train",
        "--dataset",
        "xor",
        "--epochs",
        "2",
        "--features",
        "x1,x2,x1*x2",
        "--quantize-output",
        "--wq",
        W4,
    ]);
    let plain = String::from_utf8(plain.stdout).unwrap();
    assert!(plain.starts_with("# xor 3-4-2-1 (x1,x2,x1x2)"), "{plain}");
    assert!(plain.lines().nth(3).unwrap().starts_with("epoch    2  train loss "), "{plain}");
}

#[test]
fn cli_train_refuses_bad_flags_with_one_line() {
    for (args, msg) in [
        (&["train", "--dataset", "spirals"][..], "unknown dataset 'spirals'"),
        (&["train", "--wq", "qkeras.quantized_bit(4)"], "--wq: unknown quantizer"),
        (&["train", "--hidden", "8,x"], "--hidden 8,x: "),
        (&["train", "--optimizer", "rmsprop"], "unknown optimizer 'rmsprop'"),
        (&["train", "--features", "x1,x3"], "unknown feature 'x3'"),
        (&["train", "--frobnicate"], "unknown option '--frobnicate' for train"),
        (&["train", "--lr"], "--lr needs a value"),
        (&["train", "--quantize-output"], "--quantize-output needs --wq"),
        (&["train", "--dataset", "sine", "--features", "x2"], "needs x2"),
    ] {
        let o = qscope(args);
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(!o.status.success() && err.lines().count() == 1 && err.contains(msg), "{args:?}: {err}");
    }
}

#[test]
fn cli_train_bench_prints_mlp_rows() {
    let o = qscope(&["train", "--bench", "--arch", "2-8-8-1", "--seconds", "0.05"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains(r#"{"kernel":"mlp:2-8-8-1","pass":"train","impl":"native","runtime":"native","n":"#),
        "{text}"
    );
    assert!(text.contains(r#","batch":10,"elements_per_s":"#), "{text}");
    assert!(qscope_bench::train::train_throughput(&[2, 8, 8, 1], 10, 0.02) > 0.0);
}
