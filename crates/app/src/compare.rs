//! The compare list: up to six quantizers, each with its colour and dash pattern (as in the
//! legend), a show/hide toggle and a remove button; the selected one opens its controls.

use leptos::prelude::*;

use super::controls::Controls;
use super::figure;
use super::model::Model;
use super::spec_field::SpecField;
use qscope_explore::state::MAX_QUANTIZERS;

#[component]
pub fn CompareList(model: Model) -> impl IntoView {
    let count = Memo::new(move |_| model.slots.with(Vec::len));
    let full = move || count.get() >= MAX_QUANTIZERS;
    let add = move |_| {
        let q = model.current.get_untracked();
        model.control_error.set(None);
        model.spec_error.set(None);
        model.update(|s| {
            // Refused only when full, and the button is disabled then.
            let _ = s.add(q);
        });
    };
    view! {
        <section class="card compare" aria-labelledby="compare-h">
            <h2 id="compare-h">"Compare " <span class="muted">{move || format!("{} of {MAX_QUANTIZERS}", count.get())}</span></h2>
            <ul class="slots" data-testid="compare-list">
                <For each=move || 0..count.get() key=|i| *i let:i>
                    <SlotRow model=model index=i />
                </For>
            </ul>
            <button type="button" class="add" data-testid="add-compare" prop:disabled=full on:click=add>
                "+ add to compare"
            </button>
            <p class="muted small">
                {move || if full() { "Six is the most: remove one to add another." } else { "Adds a copy of the selected quantizer; pick another above to change it." }}
            </p>
            <SpecField model=model />
        </section>
    }
}

#[component]
fn SlotRow(model: Model, index: usize) -> impl IntoView {
    let slot = Memo::new(move |_| model.slots.with(|s| s.get(index).cloned()));
    let spec = Memo::new(move |_| slot.with(|s| s.as_ref().map(|s| s.quantizer.to_string()).unwrap_or_default()));
    let name = Memo::new(move |_| slot.with(|s| s.as_ref().map(|s| s.quantizer.info().name).unwrap_or_default()));
    let args = Memo::new(move |_| {
        spec.with(|s| s.find('(').map(|i| s[i..].to_string()).unwrap_or_else(|| "library defaults".into()))
    });
    let hidden = move || slot.with(|s| s.as_ref().is_some_and(|s| s.hidden));
    let selected = move || model.selected.get() == index;
    let only = move || model.slots.with(|s| s.len() <= 1);
    let colour = move || figure::colour(index, model.look());
    let unsupported = move || model.evaluated.with(|e| e.get(index).and_then(|e| e.unsupported.clone()));
    view! {
        <li class="slot" class:selected=selected class:off=hidden data-testid="compare-item">
            <div class="slot-row">
                <svg class="swatch" width="26" height="12" viewBox="0 0 26 12" aria-hidden="true">
                    <line x1="1" y1="6" x2="25" y2="6" stroke=colour stroke-width="2.5" stroke-dasharray=figure::dasharray(index) />
                </svg>
                <button
                    type="button"
                    class="slot-name"
                    aria-current=move || if selected() { "true" } else { "false" }
                    title=move || spec.get()
                    on:click=move |_| model.select(index)
                >
                    <span class="slot-title">{move || name.get()}</span>
                    <code class="slot-args">{move || args.get()}</code>
                </button>
                <button
                    type="button"
                    class="icon-button"
                    data-testid="toggle-visible"
                    aria-pressed=move || if hidden() { "false" } else { "true" }
                    aria-label=move || format!("{} curve {} ({})", if hidden() { "Show" } else { "Hide" }, index + 1, name.get())
                    title=move || if hidden() { "show this curve" } else { "hide this curve" }
                    on:click=move |_| model.update(|s| s.toggle_hidden(index))
                >
                    <Eye open=Signal::derive(move || !hidden()) />
                </button>
                <button
                    type="button"
                    class="icon-button"
                    data-testid="remove-compare"
                    aria-label=move || format!("Remove curve {} ({})", index + 1, name.get())
                    title="remove"
                    prop:disabled=only
                    on:click=move |_| {
                        model.control_error.set(None);
                        model.spec_error.set(None);
                        model.update(|s| s.remove(index));
                    }
                >
                    "✕"
                </button>
            </div>
            {move || unsupported().map(|m| view! { <p class="note warn small">{m}</p> })}
            <Show when=selected>
                <Controls model=model />
            </Show>
        </li>
    }
}

/// An eye (the curve is shown) or a struck-through eye (hidden).
#[component]
fn Eye(open: Signal<bool>) -> impl IntoView {
    view! {
        <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="1.4">
            <path d="M1.5 8c1.6-3 3.9-4.5 6.5-4.5S12.9 5 14.5 8c-1.6 3-3.9 4.5-6.5 4.5S3.1 11 1.5 8z" />
            <circle cx="8" cy="8" r="2" />
            <line x1="2.5" y1="13.5" x2="13.5" y2="2.5" class:hidden=move || open.get() />
        </svg>
    }
}
