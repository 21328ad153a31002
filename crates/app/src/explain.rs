//! The Explain panel: the selected quantizer's computation at the crosshair's x (or the pinned
//! x, 0.3 until a click on a plot), step by step with the kernels' own numbers.

use leptos::prelude::*;

use super::figure::fmt_number;
use super::model::Model;
use qscope_explore::explain::explain;

/// A number for the field: at most 4 decimals (or 4 significant digits when small).
fn field(v: f32) -> String {
    let v = v as f64;
    let digits = if v == 0.0 || v.abs() >= 1e-3 { 4 } else { (3.0 - v.abs().log10().floor()) as usize };
    let s = format!("{v:.digits$}");
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    if s == "-0" { "0".into() } else { s }
}

#[component]
pub fn ExplainPanel(model: Model) -> impl IntoView {
    let at = model.reading_x();
    let explanation = Memo::new(move |_| {
        let x = at.get();
        model.current.with(|q| {
            model.chosen.with(|c| {
                let e = explain(q, &c.report, x);
                match c.channels {
                    Some(d) => e.for_channel(d.index, d.axis),
                    None => e,
                }
            })
        })
    });
    let probe_text = RwSignal::new(None::<String>);
    let set_probe = move |text: String| match text.trim().replace('−', "-").parse::<f32>() {
        Ok(v) if v.is_finite() => {
            probe_text.set(None);
            model.probe.set(v);
        }
        _ => probe_text.set(Some(format!("'{}' is not a number", text.trim()))),
    };
    view! {
        <section class="card side" aria-labelledby="explain-h" data-testid="explain">
            <h2 id="explain-h">"Explain"</h2>
            <div class="explain-at">
                <label for="probe">"at x ="</label>
                <input
                    id="probe"
                    type="number"
                    step="any"
                    class="num-input"
                    prop:value=move || field(at.get())
                    on:change=move |ev| set_probe(event_target_value(&ev))
                />
                <span class="muted small">{move || if model.hover.get().is_some() { "following the crosshair" } else { "click a plot to pin x" }}</span>
            </div>
            <p class="tool-error" role="alert" class:hidden=move || probe_text.with(Option::is_none)>{move || probe_text.get()}</p>
            <ul class="formula-lines">
                {move || explanation.get().formula.into_iter().map(|f| view! { <li class="formula">{f}</li> }).collect_view()}
            </ul>
            <ol class="steps">
                {move || {
                    explanation
                        .get()
                        .steps
                        .into_iter()
                        .map(|s| view! { <li><span class="what">{s.what}</span><span class="value num">{s.value}</span></li> })
                        .collect_view()
                }}
            </ol>
            <p class="muted small">
                {move || {
                    let e = explanation.get();
                    format!(
                        "y = {}, dy/dx = {} ({} behaviour)",
                        fmt_number(e.y as f64),
                        fmt_number(e.dydx as f64),
                        if e.training { "training" } else { "inference" }
                    )
                }}
            </p>
        </section>
    }
}
