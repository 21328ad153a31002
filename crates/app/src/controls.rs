//! Controls generated from the selected quantizer's schema: one labelled row per parameter
//! (axis and name parameters have none), the library default beside it (a click restores it),
//! and a refused value's message under it. Every change goes through `Quantizer::set` and
//! `validate`; a refused one keeps the last good quantizer.

use leptos::prelude::*;

use super::model::Model;
use super::widgets::{Apply, Widget};
use qscope_quant::{ENTRIES, Kind, Literal, ParamDef, Quantizer};

fn has_control(def: &ParamDef) -> bool {
    !matches!(def.kind, Kind::Axis | Kind::Text)
}

/// The library default of every parameter of `q`'s entry.
fn default_of(q: &Quantizer, name: &str) -> Literal {
    ENTRIES.iter().find(|e| std::ptr::eq(e.info, q.info())).and_then(|e| (e.default)().get(name)).unwrap_or_default()
}

#[component]
pub fn Controls(model: Model) -> impl IntoView {
    let apply = Apply::new(model);
    // The rows are rebuilt only when another quantizer is chosen, never while a value changes
    // (a slider being dragged must stay the same element).
    let entry = Memo::new(move |_| model.current.with(|q| q.info().qualified()));
    let rows = move || {
        // Read, not only tracked: a memo computes (and follows its inputs) when read.
        let _entry = entry.get();
        // Parameters with no effect in this configuration are kept under "more".
        let (params, defaults, inert): (Vec<ParamDef>, Vec<Literal>, Vec<&str>) = model.current.with_untracked(|q| {
            let (params, defaults) =
                q.params().iter().filter(|d| has_control(d)).map(|d| (*d, default_of(q, d.name))).unzip();
            (params, defaults, q.inert())
        });
        let row =
            |(def, default): (ParamDef, Literal)| view! { <Row model=model apply=apply def=def default=default /> };
        let (main, more): (Vec<_>, Vec<_>) =
            params.into_iter().zip(defaults).partition(|(d, _)| !inert.contains(&d.name));
        let more_count = more.len();
        let more = (more_count > 0).then(|| {
            view! {
                <details class="more">
                    <summary>{format!("{more_count} parameter{} with no effect here", if more_count == 1 { "" } else { "s" })}</summary>
                    {more.into_iter().map(row).collect_view()}
                </details>
            }
        });
        let empty = main.is_empty() && more_count == 0;
        view! {
            {empty.then(|| view! { <p class="muted small">"No parameters."</p> })}
            {main.into_iter().map(row).collect_view()}
            {more}
        }
    };
    view! { <div class="controls" data-testid="controls">{rows}</div> }
}

#[component]
fn Row(model: Model, apply: Apply, def: ParamDef, default: Literal) -> impl IntoView {
    let name = def.name;
    let id = format!("param-{name}");
    let value = apply.value(name);
    let default_text = format!("default {default}");
    let is_default = {
        let default = default.clone();
        Memo::new(move |_| value.with(|v| *v == default))
    };
    let error = move || model.control_error.with(|e| e.as_ref().filter(|(p, _)| p == name).map(|(_, m)| m.clone()));
    let hidden = model.hides(name);
    let reset = {
        let default = default.clone();
        move |_| apply.now(name, default.clone())
    };
    view! {
        <div class="param" class:hidden=move || hidden.get() class:changed=move || !is_default.get() data-param=name title=def.doc>
            <div class="param-head">
                <label for=id.clone() class="param-name">{name}</label>
                <button
                    type="button"
                    class="default"
                    aria-label=format!("Reset {name} to its {default_text}")
                    title=move || if is_default.get() { "the library default" } else { "click to restore the library default" }
                    prop:disabled=is_default
                    on:click=reset
                >
                    {default_text.clone()}
                </button>
            </div>
            <Widget apply=apply def=def default=default id=id />
            <p class="control-error" role="alert" data-testid="control-error" class:hidden=move || error().is_none()>
                {error}
            </p>
        </div>
    }
}
