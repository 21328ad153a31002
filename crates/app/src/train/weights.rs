//! The weights of the quantized net: latent or quantized (one toggle for the diagram and the
//! histograms — "why are my weights not binary?": the optimizer updates the latent floats, the
//! forward pass sees their quantization), per-layer histograms with the quantizer's levels and
//! the flips of the last step, and the flip ratio per layer over epochs. Redrawn at most ten
//! times a second while training.

use leptos::html::Canvas;
use leptos::prelude::*;

use super::panels::colours;
use super::{Train, draw_weights, now};
use crate::route::Router;
use crate::tensor::Handoff;
use qscope_explore::learned::learned_rows;
use qscope_explore::state::{Slot, State, default_quantizer};
use qscope_explore::tensor::trained_layer;
use qscope_nn::{Layer, QuantizedTensor};

/// Redraw interval while playing, in ms.
const INTERVAL: f64 = 100.0;

/// A redraw effect on the view's tick, at most every [`INTERVAL`] while playing.
fn throttled(train: Train, draw: impl Fn() + 'static) {
    let last = StoredValue::new(f64::NEG_INFINITY);
    Effect::new(move |_| {
        train.tick.track();
        let playing = train.playing.get();
        let t = now();
        if playing && t - last.get_value() < INTERVAL {
            return;
        }
        last.set_value(t);
        draw();
    });
}

fn layer_name(l: usize, count: usize) -> String {
    if l + 1 == count { "output".into() } else { format!("hidden {}", l + 1) }
}

fn shown_weights(layer: &Layer, latent: bool) -> &[f32] {
    if latent { layer.weights() } else { layer.quantized() }
}

/// "Inspect weights": the chosen layer's latent weights as the explorer's sample, its weight
/// quantizer selected — what would 2 bits do to the weights this net just learned?
#[component]
fn Inspect(train: Train, layers: Memo<usize>) -> impl IntoView {
    let chosen = RwSignal::new(0usize);
    let (handoff, router) = (use_context::<Handoff>(), use_context::<Router>());
    let inspect = move |_| {
        let (Some(handoff), Some(router)) = (handoff, router) else { return };
        let (l, count) = (chosen.get_untracked(), layers.get_untracked());
        let picked = train.runs.with_value(|r| {
            let layer = r.as_ref()?.q.layers().get(l)?;
            let (n_in, n_out) = layer.shape();
            let q = layer.quantizer(QuantizedTensor::Weights).cloned();
            Some((trained_layer(&layer_name(l, count), n_in, n_out, layer.weights()), q))
        });
        let Some((tensor, q)) = picked else { return };
        let state = State {
            slots: vec![Slot::new(q.unwrap_or_else(default_quantizer))],
            file: Some(tensor.file.clone()),
            tensor: Some(tensor.name.clone()),
            ..State::default()
        };
        handoff.0.set(Some(tensor));
        router.go(router.page_untracked(), &state.to_hash());
    };
    view! {
        <div class="inspect-row">
            <select class="select" aria-label="the layer to inspect" data-testid="train-inspect-layer"
                on:change=move |ev| chosen.set(event_target_value(&ev).parse().unwrap_or(0))>
                {move || { let n = layers.get(); (0..n).map(|l| view! {
                    <option value=l.to_string() selected=move || chosen.get() == l>{layer_name(l, n)}</option>
                }).collect_view() }}
            </select>
            <button type="button" class="button" data-testid="train-inspect"
                title="open the explorer with this layer's latent weights as the sample tensor and its weight quantizer selected"
                on:click=inspect>"Inspect weights"</button>
        </div>
    }
}

#[component]
pub fn Weights(train: Train) -> impl IntoView {
    let latent = train.latent;
    let layers = Memo::new(move |_| train.params.with(|p| p.hidden.len() + 1));
    view! {
        <div class="histograms-head">
            <strong>"Weights of the quantized net"</strong>
            <div class="segmented" role="group" aria-label="weights shown">
                <button type="button" class="button" data-testid="train-show-quantized" aria-pressed=move || (!latent.get()).to_string()
                    on:click=move |_| latent.set(false)>"quantized"</button>
                <button type="button" class="button" data-testid="train-show-latent" aria-pressed=move || latent.get().to_string()
                    on:click=move |_| latent.set(true)>"latent"</button>
            </div>
        </div>
        <p class="muted small">{move || if latent.get() {
            "Latent: the float weights the optimizer updates (they drift between levels)."
        } else {
            "Quantized: what the forward pass uses — only the quantizer's levels (ticks under each histogram)."
        }}</p>
        <Inspect train=train layers=layers />
        <Diagram train=train />
        <div class="histograms">
            {move || { let n = layers.get(); (0..n).map(|l| view! { <LayerHistogram train=train layer=l count=n /> }).collect_view() }}
        </div>
        <FlipChart train=train />
    }
}

#[component]
fn Diagram(train: Train) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    throttled(train, move || {
        let latent = train.latent.get();
        let Some(c) = canvas.get() else { return };
        let colours = colours(train);
        train.runs.with_value(|r| {
            let Some(r) = r else { return };
            let layers: Vec<(usize, usize, &[f32])> =
                r.q.layers()
                    .iter()
                    .map(|l| {
                        let (i, o) = l.shape();
                        (i, o, shown_weights(l, latent))
                    })
                    .collect();
            draw_weights::diagram(&c, &layers, &colours);
        });
    });
    view! {
        <figure class="diagram">
            <canvas node_ref=canvas data-testid="train-diagram" aria-label="the quantized network: edges are weights, blue positive, orange negative"></canvas>
        </figure>
    }
}

#[component]
fn LayerHistogram(train: Train, layer: usize, count: usize) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let flips = RwSignal::new(None::<(usize, usize)>);
    let learned = RwSignal::new(String::new());
    throttled(train, move || {
        let latent = train.latent.get();
        let Some(c) = canvas.get() else { return };
        let colours = colours(train);
        train.runs.with_value(|r| {
            let Some(l) = r.as_ref().and_then(|r| r.q.layers().get(layer)) else { return };
            let levels = l.weight_levels().and_then(|lv| lv.list(64));
            draw_weights::histogram(&c, shown_weights(l, latent), levels.as_deref(), &colours);
            flips.set(l.weight_levels().map(|_| (l.flips(), l.weights().len())));
            let rows = learned_rows(r.as_ref().map_or(&[], |r| r.q.layers()));
            let shown: Vec<String> = rows.iter().filter(|p| p.layer == layer).map(|p| p.caption()).collect();
            learned.set(if shown.is_empty() { String::new() } else { format!(" · learned {}", shown.join(", ")) });
        });
    });
    let caption = move || match flips.get() {
        Some((f, n)) => format!("{f} of {n} flipped in the last step"),
        None => "float weights".into(),
    };
    view! {
        <figure class="histogram">
            <figcaption>{layer_name(layer, count)}" "<span class="muted" data-testid="train-flips">{caption}</span>
                <span class="muted" data-testid="train-learned">{move || learned.get()}</span></figcaption>
            <canvas node_ref=canvas data-testid="train-histogram"></canvas>
        </figure>
    }
}

#[component]
fn FlipChart(train: Train) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    throttled(train, move || {
        let Some(c) = canvas.get() else { return };
        let colours = colours(train);
        train.runs.with_value(|r| {
            let Some(r) = r else { return };
            let layers = r.q.layers();
            let shown: Vec<usize> = (0..layers.len()).filter(|&l| layers[l].weight_levels().is_some()).collect();
            let names: Vec<String> = shown.iter().map(|&l| layer_name(l, layers.len())).collect();
            draw_weights::flips(&c, (r.q.flip_history(), r.q.flip_epochs()), &shown, &names, &colours);
        });
    });
    view! {
        <figure class="flip-chart">
            <figcaption>"Flip ratio per layer: share of the quantized weights that change level per step, per epoch"</figcaption>
            <canvas node_ref=canvas data-testid="train-flip-chart"></canvas>
        </figure>
    }
}
