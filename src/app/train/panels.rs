//! The Train view's middle column: the toolbar (play/pause/step/reset, epoch, message), the
//! two decision boundaries, the loss/accuracy curves and the per-layer weight histograms.
//! Canvases redraw in effects on the view's `tick`.

use leptos::html::Canvas;
use leptos::prelude::*;

use super::Train;
use super::draw::{self, HI, LO, RES};
use crate::nn::Metrics;

/// Dark when the page's theme (or else the system's) is dark.
fn is_dark() -> bool {
    match document().document_element().and_then(|e| e.get_attribute("data-theme")).as_deref() {
        Some("dark") => true,
        Some("light") => false,
        _ => window().match_media("(prefers-color-scheme: dark)").ok().flatten().is_some_and(|m| m.matches()),
    }
}

fn percent(v: Option<f64>) -> String {
    v.map_or("–".into(), |a| format!("{:.1} %", a * 100.0))
}

#[component]
pub fn Toolbar(train: Train) -> impl IntoView {
    let epoch = move || {
        train.tick.track();
        train.runs.with_value(|r| r.as_ref().map_or(0, |r| r.q.epoch())).to_string()
    };
    let toggle = move |_| train.playing.update(|p| *p = !*p);
    let reset = move |_| {
        train.playing.set(false);
        train.params.with_untracked(|p| train.rebuild(p));
    };
    let rate = move || {
        let r = train.rate.get();
        if train.playing.get() && r > 0.0 { format!("{r:.0} epochs/s") } else { String::new() }
    };
    view! {
        <div class="toolbar train-toolbar">
            <button type="button" class="button primary" data-testid="train-play" on:click=toggle
                aria-pressed=move || train.playing.get().to_string()>
                {move || if train.playing.get() { "❚❚ Pause" } else { "▶ Play" }}
            </button>
            <button type="button" class="button" data-testid="train-step" title="train one epoch"
                on:click=move |_| { train.playing.set(false); train.step() }>"Step"</button>
            <button type="button" class="button" data-testid="train-reset" title="new weights, same seed" on:click=reset>"Reset"</button>
            <span class="readout">"epoch "<strong data-testid="train-epoch">{epoch}</strong></span>
            <span class="muted readout" data-testid="train-rate">{rate}</span>
            <Show when=move || train.message.with(Option::is_some)>
                <span class="error" role="alert" data-testid="train-message">{move || train.message.get().unwrap_or_default()}</span>
            </Show>
        </div>
    }
}

/// The heatmaps of the quantized net and its float twin, with their test metrics.
#[component]
pub fn Boundaries(train: Train) -> impl IntoView {
    let quant = NodeRef::<Canvas>::new();
    let float = NodeRef::<Canvas>::new();
    Effect::new(move |_| {
        train.tick.track();
        let (Some(qc), Some(fc)) = (quant.get(), float.get()) else { return };
        let dark = is_dark();
        train.runs.update_value(|r| {
            let Some(r) = r else { return };
            let data = r.q.dataset().clone();
            let grid = r.q.predict_grid(LO, HI, RES);
            draw::boundary(&qc, &grid, &data.train, &data.test, dark);
            let grid = r.f.predict_grid(LO, HI, RES);
            draw::boundary(&fc, &grid, &data.train, &data.test, dark);
        });
    });
    let metric = move |float: bool, f: fn(&Metrics) -> String| {
        move || {
            train.tick.track();
            train.runs.with_value(|r| r.as_ref().map_or("–".into(), |r| f(&r.latest(float))))
        }
    };
    let loss = |m: &Metrics| format!("{:.4}", m.test_loss);
    let acc = |m: &Metrics| percent(m.test_acc);
    view! {
        <div class="boundaries">
            <figure class="boundary">
                <figcaption>"Quantized net "<span class="muted">{move || train.params.with(|p| if p.wq.is_empty() && p.aq.is_empty() { "(no quantizer set)".to_string() } else { format!("w: {} a: {}", if p.wq.is_empty() { "float" } else { &p.wq }, if p.aq.is_empty() { "float" } else { &p.aq }) })}</span></figcaption>
                <canvas node_ref=quant data-testid="train-boundary" aria-label="decision boundary of the quantized net"></canvas>
                <p class="readout">"test loss "<span data-testid="train-loss-test">{metric(false, loss)}</span>
                    " · test accuracy "<span data-testid="train-acc-test">{metric(false, acc)}</span></p>
            </figure>
            <figure class="boundary">
                <figcaption>"Float twin "<span class="muted">"(same config and seed, no quantizers)"</span></figcaption>
                <canvas node_ref=float data-testid="train-boundary-float" aria-label="decision boundary of the float twin"></canvas>
                <p class="readout">"test loss "<span data-testid="train-loss-test-float">{metric(true, loss)}</span>
                    " · test accuracy "<span data-testid="train-acc-test-float">{metric(true, acc)}</span></p>
            </figure>
        </div>
        <p class="muted small legend">"Blue: class +1, orange: class −1; filled dots train, rings test."</p>
    }
}

/// Loss and accuracy over epochs: quantized (blue) and float twin (vermillion), train solid,
/// test dashed.
#[component]
pub fn Curves(train: Train) -> impl IntoView {
    let loss = NodeRef::<Canvas>::new();
    let acc = NodeRef::<Canvas>::new();
    Effect::new(move |_| {
        train.tick.track();
        let (Some(lc), Some(ac)) = (loss.get(), acc.get()) else { return };
        let dark = is_dark();
        train.runs.with_value(|r| {
            let Some(r) = r else { return };
            let runs = [(r.q.history(), "#0072B2"), (r.f.history(), "#D55E00")];
            draw::curves(&lc, &runs, |m, test| if test { m.test_loss } else { m.train_loss }, dark);
            let a = |m: &Metrics, test: bool| if test { m.test_acc } else { m.train_acc }.unwrap_or(0.0);
            draw::curves(&ac, &runs, a, dark);
        });
    });
    view! {
        <div class="curves">
            <figure><figcaption>"Loss"</figcaption><canvas node_ref=loss data-testid="train-loss-curve"></canvas></figure>
            <figure><figcaption>"Accuracy"</figcaption><canvas node_ref=acc data-testid="train-acc-curve"></canvas></figure>
        </div>
        <p class="muted small legend">"Blue: quantized, vermillion: float twin; solid train, dashed test."</p>
    }
}

/// A weight histogram per hidden layer, latent or quantized, with the flips so far.
#[component]
pub fn Histograms(train: Train) -> impl IntoView {
    let quantized = RwSignal::new(true);
    let layers = Memo::new(move |_| train.params.with(|p| p.hidden.len()));
    view! {
        <div class="histograms-head">
            <strong>"Weights of the quantized net"</strong>
            <label><input type="checkbox" data-testid="train-hist-quantized" prop:checked=move || quantized.get()
                on:change=move |ev| quantized.set(event_target_checked(&ev)) />" quantized (else latent)"</label>
        </div>
        <div class="histograms">
            {move || (0..layers.get()).map(|l| view! { <LayerHistogram train=train layer=l quantized=quantized /> }).collect_view()}
        </div>
    }
}

#[component]
fn LayerHistogram(train: Train, layer: usize, quantized: RwSignal<bool>) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let flips = RwSignal::new(0usize);
    Effect::new(move |_| {
        train.tick.track();
        let q = quantized.get();
        let Some(c) = canvas.get() else { return };
        let dark = is_dark();
        train.runs.with_value(|r| {
            let Some(l) = r.as_ref().and_then(|r| r.q.layers().get(layer)) else { return };
            draw::histogram(&c, if q { l.quantized() } else { l.weights() }, dark);
            flips.set(l.flips());
        });
    });
    view! {
        <figure class="histogram">
            <figcaption>{format!("hidden layer {} ", layer + 1)}<span class="muted">{move || format!("{} flips in the last step", flips.get())}</span></figcaption>
            <canvas node_ref=canvas data-testid="train-histogram"></canvas>
        </figure>
    }
}
