//! "Show one batch": one training step of every net (they stay in lockstep), told from the side
//! of one weight of the quantized net — its latent value and level, the gradient reaching the
//! level, the STE's factor, the gradient on the latent weight, the optimizer's update, and
//! whether the level flipped. The numbers come from [`qscope_nn::Trainer::step_traced`], the
//! words from [`qscope_explore::one_batch`]; this panel only shows them.

use leptos::prelude::*;

use super::Train;
use qscope_explore::one_batch::{layer_name, rows, summary};
use qscope_nn::{Pick, WeightTrace};

/// The display form of exact numbers: true minus signs.
fn shown(value: &str) -> String {
    value.replace('-', "−")
}

#[component]
pub fn OneBatch(train: Train) -> impl IntoView {
    let trace = RwSignal::new(None::<WeightTrace>);
    let layer = RwSignal::new(0usize);
    let keep = RwSignal::new(false);
    let layers = Memo::new(move |_| train.params.with(|p| p.hidden.len() + 1));
    // New networks: the last walk is gone, and the layer must exist.
    Effect::new(move |_| {
        train.built.track();
        trace.set(None);
        keep.set(false);
        if layer.get_untracked() >= layers.get_untracked() {
            layer.set(0);
        }
    });
    let step = move |_| {
        train.playing.set(false);
        let l = layer.get_untracked();
        let pick = match trace.get_untracked() {
            Some(t) if keep.get_untracked() && t.layer == l => Pick::At { layer: l, index: t.index },
            _ => Pick::Largest { layer: l },
        };
        match train.runs.try_update_value(|r| r.as_mut().map(|r| r.walk(pick))).flatten() {
            Some(Ok(t)) => trace.set(Some(t)),
            Some(Err(e)) => train.stop(format!("paused — {e}")),
            None => {}
        }
        train.tick.update(|t| *t += 1);
    };
    let choose_layer = move |ev| {
        if let Ok(l) = event_target_value(&ev).parse::<usize>() {
            layer.set(l);
            keep.set(false);
        }
    };
    let layer_options = move || {
        let n = layers.get();
        (0..n)
            .map(
                |l| view! { <option value=l.to_string() selected=move || layer.get() == l>{layer_name(l, n)}</option> },
            )
            .collect_view()
    };
    let which = move || match (trace.get(), keep.get()) {
        (Some(_), true) => "the same weight as last time",
        _ => "the weight with the largest |∂L/∂w| in the batch",
    };
    let table = move || {
        let t = trace.get()?;
        let (optimizer, lr) = train.params.with_untracked(|p| (p.optimizer, p.lr));
        let lines = rows(&t, optimizer, lr).into_iter().map(|r| {
            view! {
                <tr data-testid=format!("train-batch-{}", r.key) data-exact=r.value.clone()>
                    <th scope="row">{r.label}<span class="muted small meaning">{r.meaning}</span></th>
                    <td class="num">{shown(&r.value)}</td>
                </tr>
            }
        });
        Some(view! {
            <p class="batch-summary" data-testid="train-batch-summary">{shown(&summary(&t, layers.get_untracked()))}</p>
            <table class="batch-table"><tbody>{lines.collect_view()}</tbody></table>
        })
    };
    view! {
        <section class="train-batch" data-testid="train-batch" aria-labelledby="train-batch-title">
            <strong id="train-batch-title">"One batch, one weight"</strong>
            <p class="muted small">
                "One training step of every net, followed for one weight of the quantized net: the forward pass uses its level q(w); "
                "the loss gradient reaches q(w); the STE passes it to the latent w; the optimizer moves w; w is quantized again."
            </p>
            <div class="batch-controls">
                <label>"layer "
                    <select class="select" data-testid="train-batch-layer" on:change=choose_layer>{layer_options}</select>
                </label>
                <label class="check" title="follow the weight of the last step instead of the one with the largest gradient">
                    <input type="checkbox" data-testid="train-batch-keep" prop:checked=move || keep.get()
                        prop:disabled=move || trace.with(Option::is_none)
                        on:change=move |ev| keep.set(event_target_checked(&ev)) />
                    " keep this weight"
                </label>
                <button type="button" class="button" data-testid="train-batch-step" on:click=step>"Show one batch"</button>
            </div>
            <p class="muted small">{move || format!("Follows {}.", which())}</p>
            {table}
        </section>
    }
}
