//! "Show one batch": one training step of the quantized net told from one weight's side — the
//! rows the Train view shows (a label a student reads, the exact number, what it means) and a
//! sentence that sums the step up. The numbers are the trainer's own
//! ([`qscope_nn::Trainer::step_traced`]); this module only names them.

use qscope_nn::{OptimizerKind, WeightTrace};

/// One line of the walkthrough.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Stable: the page's `data-testid` is `train-batch-{key}`.
    pub key: &'static str,
    pub label: String,
    /// The number exactly as the trainer computed it (shortest text that reads back to the
    /// same float32), or `yes` / `no`.
    pub value: String,
    pub meaning: String,
}

/// A float32 as the shortest text that reads back to it: plain, or with an exponent when very
/// small or large.
pub fn exact(v: f32) -> String {
    let a = v.abs();
    if v == 0.0 || (1e-4..1e6).contains(&a) || !v.is_finite() { format!("{v}") } else { format!("{v:e}") }
}

/// A layer's name: `hidden layer 1` … or `output layer` (the last of `layers`).
pub fn layer_name(layer: usize, layers: usize) -> String {
    if layer + 1 >= layers { "output layer".into() } else { format!("hidden layer {}", layer + 1) }
}

/// `weight 2 → 5 of hidden layer 1`: from input (or neuron) 2 to neuron 5, counted from 1.
pub fn weight_name(t: &WeightTrace, layers: usize) -> String {
    format!("weight {} → {} of {}", t.from + 1, t.to + 1, layer_name(t.layer, layers))
}

/// The walkthrough's rows for a step of `optimizer` (the view's setting) at learning rate `lr`.
pub fn rows(t: &WeightTrace, optimizer: OptimizerKind, lr: f32) -> Vec<Row> {
    let row = |key, label: &str, value: String, meaning: &str| Row {
        key,
        label: label.to_string(),
        value,
        meaning: meaning.to_string(),
    };
    let (q, ste) = if t.quantized {
        ("the level the forward pass used", "the straight-through estimator's factor at w: 1 passes, 0 blocks")
    } else {
        ("float weights: q(w) = w", "no quantizer: 1")
    };
    let mut out = vec![
        row("latent-before", "latent w", exact(t.latent_before), "the float the optimizer keeps"),
        row("q-before", "q(w)", exact(t.q_before), q),
        row("grad-q", "∂L/∂q", exact(t.grad_q), "the loss gradient reaching q(w), mean over the batch"),
        row("ste", "STE ∂q/∂w", exact(t.ste), ste),
        row("grad-w", "∂L/∂w", exact(t.grad_w), "∂L/∂q · ∂q/∂w: the gradient on the latent weight"),
    ];
    if t.grad_total.to_bits() != t.grad_w.to_bits() {
        out.push(row("grad-total", "∂L/∂w + penalty", exact(t.grad_total), "with the L1/L2 penalties' gradient"));
    }
    let update = if t.bop {
        let bop = "Bop: w becomes −sign(w) once the moving average m of its gradients has w·m above the threshold, else sign(w)";
        row("update", "Bop update Δw", exact(t.update), bop)
    } else if optimizer == OptimizerKind::Sgd {
        row("update", "SGD update −lr·∂L/∂w", exact(t.update), &format!("lr = {lr}"))
    } else {
        let default = if optimizer == OptimizerKind::Bop { " (Bop trains the binary weights only)" } else { "" };
        let meaning = format!("lr = {lr}, scaled by Adam's running moments{default}");
        row("update", "Adam update Δw", exact(t.update), &meaning)
    };
    out.push(update);
    let after = match (t.bop, t.clipped) {
        (true, false) => "Bop's ±1".to_string(),
        (true, true) => "Bop's ±1, clipped to the weight clip's bound".to_string(),
        (false, true) => {
            format!("w + Δw = {}, clipped back to the weight clip's bound", exact(t.latent_before + t.update))
        }
        (false, false) => "w + Δw".to_string(),
    };
    out.push(row("latent-after", "latent w after", exact(t.latent_after), &after));
    let q_after = if t.quantized { "the level the next step's forward pass uses" } else { "= w" };
    out.push(row("q-after", "q(w) after", exact(t.q_after), q_after));
    let flipped = if t.flipped { "yes" } else { "no" };
    let meaning = match (t.quantized, t.flipped) {
        (false, _) => "float weights have no levels",
        (true, true) => "q(w) moved to another level",
        (true, false) => "q(w) stayed on its level",
    };
    out.push(row("flipped", "flipped level", flipped.into(), meaning));
    out
}

/// One sentence: what the step did to the weight.
pub fn summary(t: &WeightTrace, layers: usize) -> String {
    let name = weight_name(t, layers);
    let clipped = if t.clipped { " (held at the weight clip)" } else { "" };
    let moved = if t.update == 0.0 || t.latent_after == t.latent_before {
        format!("w stayed at {}{clipped}", exact(t.latent_before))
    } else {
        format!("w moved from {} to {}{clipped}", exact(t.latent_before), exact(t.latent_after))
    };
    let blocked = if t.quantized && t.ste == 0.0 && t.grad_q != 0.0 {
        " (the STE blocked its gradient: ∂q/∂w = 0)"
    } else {
        ""
    };
    let level = match (t.quantized, t.flipped) {
        (false, _) => "float weights, no level".to_string(),
        (true, true) => format!("q(w) flipped from {} to {}", exact(t.q_before), exact(t.q_after)),
        (true, false) => format!("q(w) stayed at {}", exact(t.q_after)),
    };
    format!("{name}: {moved}{blocked}; {level}.")
}
