//! The Train view's left column: data, architecture, quantizers and optimizer. Text fields
//! apply on Enter or blur and show the parser's error instead of applying a bad value.

use leptos::prelude::*;

use super::Train;
use super::params::{ACTIVATIONS, DATASETS, Params, parse_hidden, parse_quantizer};
use crate::nn::DatasetKind;

#[component]
pub fn Controls(train: Train) -> impl IntoView {
    let params = train.params;
    let set = move |f: Box<dyn FnOnce(&mut Params)>| {
        train.playing.set(false);
        params.update(f);
    };
    let hidden_text = move || {
        let h: Vec<String> = params.with(|p| p.hidden.iter().map(usize::to_string).collect());
        h.join(",")
    };
    let add_layer = move |_| {
        set(Box::new(|p| {
            if p.hidden.len() < 6 {
                let w = p.hidden.last().copied().unwrap_or(8);
                p.hidden.push(w);
            }
        }))
    };
    let remove_layer = move |_| {
        set(Box::new(|p| {
            p.hidden.pop();
        }))
    };
    let lr_log = move || params.with(|p| p.lr.log10());
    view! {
        <section class="card train-controls" aria-label="Training settings">
            <h2>"Data"</h2>
            <label class="row">"dataset "
                <select class="select" data-testid="train-dataset" on:change=move |ev| {
                    if let Ok(k) = DatasetKind::parse(&event_target_value(&ev)) { set(Box::new(move |p| p.dataset = k)) }
                }>
                    {DATASETS.iter().map(|&d| view! {
                        <option value=d selected=move || params.with(|p| p.dataset.name() == d)>{d}</option>
                    }).collect_view()}
                </select>
            </label>
            <label class="row">{move || format!("noise {:.2} ", params.with(|p| p.noise))}
                <input type="range" min="0" max="0.5" step="0.05" prop:value=move || params.with(|p| p.noise.to_string())
                    on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f32>() { set(Box::new(move |p| p.noise = v)) } } />
            </label>
            <h2>"Network"</h2>
            <TextSetting label="hidden" testid="train-hidden" placeholder="8,8" value=Signal::derive(hidden_text)
                apply=move |text: String| parse_hidden(&text).map(|h| set(Box::new(move |p| p.hidden = h))) />
            <div class="row">
                <button type="button" class="button" data-testid="train-add-layer" on:click=add_layer title="add a hidden layer">"+ layer"</button>
                <button type="button" class="button" data-testid="train-remove-layer" on:click=remove_layer title="remove the last hidden layer">"− layer"</button>
            </div>
            <label class="row">"activation "
                <select class="select" data-testid="train-activation" on:change=move |ev| {
                    let a = event_target_value(&ev);
                    set(Box::new(move |p| p.activation = a))
                }>
                    {ACTIVATIONS.iter().map(|&a| view! {
                        <option value=a selected=move || params.with(|p| p.activation == a)>{a}</option>
                    }).collect_view()}
                </select>
            </label>
            <h2>"Quantizers"</h2>
            <TextSetting label="weights" testid="train-wq" placeholder="float" value=Signal::derive(move || params.with(|p| p.wq.clone()))
                apply=move |text: String| parse_quantizer(&text).map(|_| set(Box::new(move |p| p.wq = text.trim().to_string()))) />
            <TextSetting label="activations" testid="train-aq" placeholder="float" value=Signal::derive(move || params.with(|p| p.aq.clone()))
                apply=move |text: String| parse_quantizer(&text).map(|_| set(Box::new(move |p| p.aq = text.trim().to_string()))) />
            <p class="muted small">"Empty is float. The twin on the right never quantizes."</p>
            <h2>"Optimizer"</h2>
            <label class="row">{move || format!("learning rate {} ", params.with(|p| p.lr))}
                <input type="range" min="-4" max="0.5" step="0.1" data-testid="train-lr" prop:value=move || lr_log().to_string()
                    on:change=move |ev| {
                        if let Ok(v) = event_target_value(&ev).parse::<f32>() {
                            let lr = (10f32.powf(v) * 1e4).round() / 1e4;
                            set(Box::new(move |p| p.lr = lr.max(1e-4)))
                        }
                    } />
            </label>
            <label class="row">"batch "
                <input type="number" min="1" max="250" class="num-input" prop:value=move || params.with(|p| p.batch.to_string())
                    on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<usize>() { set(Box::new(move |p| p.batch = v.clamp(1, 250))) } } />
            </label>
            <label class="row">"optimizer "
                <select class="select" on:change=move |ev| { let o = event_target_value(&ev); set(Box::new(move |p| p.optimizer = o)) }>
                    {["sgd", "adam"].map(|o| view! { <option value=o selected=move || params.with(|p| p.optimizer == o)>{o}</option> }).collect_view()}
                </select>
            </label>
            <label class="row">"seed "
                <input type="number" min="0" class="num-input" prop:value=move || params.with(|p| p.seed.to_string())
                    on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<u64>() { set(Box::new(move |p| p.seed = v)) } } />
            </label>
        </section>
    }
}

/// A text setting: applies on Enter or blur; a parse error shows under it and keeps the
/// previous value.
#[component]
fn TextSetting(
    label: &'static str,
    testid: &'static str,
    placeholder: &'static str,
    value: Signal<String>,
    apply: impl Fn(String) -> Result<(), String> + Copy + 'static,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let commit = move |text: String| match apply(text) {
        Ok(()) => error.set(None),
        Err(e) => error.set(Some(e)),
    };
    view! {
        <label class="row text-setting">{label}" "
            <input type="text" class="spec" spellcheck="false" data-testid=testid placeholder=placeholder
                prop:value=move || value.get()
                on:change=move |ev| commit(event_target_value(&ev)) />
        </label>
        <Show when=move || error.with(Option::is_some)>
            <p class="control-error" role="alert" data-testid=format!("{testid}-error")>{move || error.get().unwrap_or_default()}</p>
        </Show>
    }
}
