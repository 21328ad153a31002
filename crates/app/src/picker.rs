//! The catalogue picker: every quantizer, grouped by family, with its one-line summary and a
//! search box. Choosing an entry puts its library defaults in the selected slot; "+" adds it
//! to the comparison instead.

use leptos::prelude::*;

use super::model::Model;
use qscope_explore::state::MAX_QUANTIZERS;
use qscope_quant::{ENTRIES, Entry, Family};

/// Whether an entry matches every word of a search (name, aliases, summary; any case).
fn matches(e: &Entry, query: &str) -> bool {
    let hay =
        format!("{} {} {} {}", e.info.qualified(), e.info.aliases.join(" "), e.info.summary, e.info.family.title())
            .to_lowercase();
    query.split_whitespace().all(|w| hay.contains(&w.to_lowercase()))
}

#[component]
pub fn Picker(model: Model) -> impl IntoView {
    let query = RwSignal::new(String::new());
    // Which entry is the selected quantizer's: a memo, so moving one of its sliders (a new
    // quantizer of the same entry) touches none of the rows.
    let current = Memo::new(move |_| model.current.with(|q| q.info().qualified()));
    let full = Memo::new(move |_| model.slots.with(|s| s.len() >= MAX_QUANTIZERS));
    let searching = move || query.with(|q| !q.trim().is_empty());
    let groups = Family::ALL
        .into_iter()
        .map(|family| {
            let entries: Vec<&'static Entry> = ENTRIES.iter().filter(|e| e.info.family == family).collect();
            let count = entries.len();
            let visible = Memo::new(move |_| {
                query.with(|q| ENTRIES.iter().filter(|e| e.info.family == family && matches(e, q)).count())
            });
            let rows = entries.into_iter().map(|e| view! { <PickerRow model=model entry=e query=query current=current full=full /> }).collect_view();
            view! {
                <details class="family" prop:open=searching class:empty=move || visible.get() == 0>
                    <summary>
                        <span>{family.title()}</span>
                        <span class="count">
                            {move || if searching() { format!("{} of {count}", visible.get()) } else { count.to_string() }}
                        </span>
                    </summary>
                    <ul class="entries">{rows}</ul>
                </details>
            }
        })
        .collect_view();
    let none = Memo::new(move |_| query.with(|q| !ENTRIES.iter().any(|e| matches(e, q))));
    view! {
        <section class="card picker" aria-labelledby="picker-h" data-testid="picker">
            <h2 id="picker-h">"Quantizers"</h2>
            <input
                type="search"
                class="search"
                placeholder="search: ternary, sign, relu…"
                aria-label="Search the catalogue"
                data-testid="picker-search"
                prop:value=move || query.get()
                on:input=move |ev| query.set(event_target_value(&ev))
            />
            <div class="families">{groups}</div>
            <p class="muted small" class:hidden=move || !none.get()>"No quantizer matches."</p>
        </section>
    }
}

#[component]
fn PickerRow(
    model: Model,
    entry: &'static Entry,
    query: RwSignal<String>,
    current: Memo<String>,
    full: Memo<bool>,
) -> impl IntoView {
    let name = entry.info.qualified();
    let shown = move || query.with(|q| matches(entry, q));
    let is_current = Memo::new({
        let name = name.clone();
        move |_| current.with(|c| *c == name)
    });
    let choose = move |_| model.set_current((entry.default)());
    let add = move |_| {
        model.control_error.set(None);
        model.spec_error.set(None);
        model.update(|s| {
            // Refused only when full, and the button is disabled then.
            let _ = s.add((entry.default)());
        });
    };
    let add_label = format!("Add {name} to the comparison");
    view! {
        <li class="entry" class:hidden=move || !shown() class:current=is_current>
            <button
                type="button"
                class="entry-choose"
                data-testid="picker-entry"
                data-name=name.clone()
                aria-current=move || if is_current.get() { "true" } else { "false" }
                on:click=choose
            >
                <code class="entry-name">{name.clone()}</code>
                <span class="entry-summary">{entry.info.summary}</span>
            </button>
            <button
                type="button"
                class="icon-button entry-add"
                aria-label=add_label.clone()
                title=add_label
                prop:disabled=full
                on:click=add
            >
                "+"
            </button>
        </li>
    }
}
