//! The Selected panel: what the selected quantizer is (summary, canonical spec, formulas), its
//! output levels, the scale and threshold in use, its hardware type and code table, and the
//! configurations that surprise users.

use leptos::prelude::*;

use super::figure;
use super::model::Model;
use qscope_explore::analysis::selected_rows;
use qscope_explore::drawn::readout;
use qscope_explore::hardware::{FixedPoint, fixed_point, warnings};
use qscope_explore::layout::{Field, layout};
use qscope_quant::Levels;

fn n(v: f32) -> String {
    figure::fmt_number(v as f64)
}

#[component]
pub fn SelectedPanel(model: Model) -> impl IntoView {
    let info = move || model.current.with(|q| q.info());
    let canonical = Memo::new(move |_| model.current.with(|q| q.to_string()));
    let levels = Memo::new(move |_| model.chosen.with(|c| c.levels.clone()));
    let numbers = Memo::new(move |_| model.chosen.with(|c| model.run.with(|r| selected_rows(&c.report, &r.report))));
    let frozen = move || model.chosen.with(|c| c.frozen.clone());
    let colour = move || figure::colour(model.selected.get(), model.look());
    view! {
        <section class="card side selected" aria-labelledby="selected-h">
            <h2 id="selected-h">
                <span class="dot" style:background=colour></span>
                "Selected"
            </h2>
            <p class="summary">{move || info().summary}</p>
            <dl class="facts">
                <dt>"spec"</dt>
                <dd><code data-testid="canonical">{move || canonical.get()}</code></dd>
                <dt>"forward"</dt>
                <dd class="formula" data-testid="formula-forward">{move || info().forward}</dd>
                <dt>"backward"</dt>
                <dd class="formula" data-testid="formula-backward">{move || info().backward}</dd>
                <dt>"levels"</dt>
                <dd data-testid="levels"><LevelsView levels=levels /></dd>
                {move || {
                    numbers
                        .get()
                        .into_iter()
                        .map(|r| view! { <dt>{r.label}</dt><dd class="num">{r.shown}</dd> })
                        .collect_view()
                }}
            </dl>
            {move || frozen().map(|f| {
                let at_block = model.chosen.with(|c| c.block.zip(c.report.blocks.first().copied()));
                let basis = if let Some((k, b)) = at_block {
                    format!("Drawn at sample block {k} (scale {}): ", super::blocks::scale_text(&b))
                } else if model.current.with(|q| q.block_size().is_some()) {
                    let (lo, hi) = model.x.get();
                    format!("Drawn at the sweep's own block (the quantizer on [{}, {}]): ", n(lo), n(hi))
                } else if let Some(c) = model.chosen.with(|c| c.channels) {
                    format!("Drawn for channel {} of {} (axis {}) of the sample tensor: ", c.index, c.count, c.axis)
                } else {
                    "Drawn for the sample tensor's numbers: ".to_string()
                };
                view! { <p class="note small" data-testid="frozen-note">{basis} <code>{f}</code></p> }
            })}
            <BitLayout model=model />
            <Hardware model=model />
        </section>
    }
}

#[component]
fn LevelsView(levels: Memo<Levels>) -> impl IntoView {
    let shown = Memo::new(move |_| levels.with(readout));
    view! {
        <span class="num">{move || shown.with(|r| r.text.clone())}</span>
        {move || shown.with(|r| r.step.clone()).map(|s| view! { <span class="muted num">{format!(", step {s}")}</span> })}
        {move || shown.with(|r| r.list.clone()).map(|l| view! {
            <span class="chips" aria-label="the levels">
                {l.into_iter().map(|v| view! { <span class="chip num">{v}</span> }).collect_view()}
            </span>
        })}
    }
}

/// The element format's bits as coloured cells (`S|EEEE|MMM`) and its edge values and special
/// codes, for every quantizer that stores elements in a small float format.
#[component]
fn BitLayout(model: Model) -> impl IntoView {
    let layout = Memo::new(move |_| model.current.with(|q| q.element_format()).map(layout));
    move || {
        layout.get().map(|l| {
            let cells = l.fields.iter().flat_map(|&(field, n)| (0..n).map(move |_| field));
            let class = |field: Field| match field {
                Field::Sign => "bit sign",
                Field::Exponent => "bit exponent",
                Field::Mantissa => "bit mantissa",
            };
            let title: Vec<String> = l.fields.iter().map(|(f, n)| format!("{n} {}", f.name())).collect();
            view! {
                <h3>"Bit layout " <code class="muted">{l.name}</code></h3>
                <div class="bits" data-testid="bit-layout" role="img" aria-label=title.join(", ")>
                    {cells.map(|f| view! { <span class=class(f)>{f.letter().to_string()}</span> }).collect_view()}
                </div>
                <table class="layout-table" data-testid="layout-table">
                    <tbody>
                        {l.rows.into_iter().map(|(k, v)| view! { <tr><th scope="row">{k}</th><td class="num">{v}</td></tr> }).collect_view()}
                    </tbody>
                </table>
            }
        })
    }
}

#[component]
fn Hardware(model: Model) -> impl IntoView {
    let fixed = Memo::new(move |_| model.current.with(|q| model.chosen.with(|c| fixed_point(q, &c.report))));
    let warns = Memo::new(move |_| model.current.with(warnings));
    view! {
        <h3>"Hardware"</h3>
        <div data-testid="hardware">
            {move || match fixed.get() {
                Ok(fp) => view! { <FixedView fp=fp /> }.into_any(),
                Err(why) => view! { <p class="muted small">{why}</p> }.into_any(),
            }}
        </div>
        {move || {
            let w = warns.get();
            (!w.is_empty()).then(|| view! {
                <ul class="warnings" data-testid="warnings">
                    {w.into_iter().map(|m| view! { <li>{m}</li> }).collect_view()}
                </ul>
            })
        }}
    }
}

#[component]
fn FixedView(fp: FixedPoint) -> impl IntoView {
    let codes = fp.codes.clone();
    let count = codes.len();
    let scale = if fp.power_of_two {
        format!("step {} (a power of two)", n(fp.scale))
    } else {
        format!("value = code × {} (needs a multiplier)", n(fp.scale))
    };
    view! {
        <dl class="facts">
            <dt>"HLS"</dt>
            <dd><code>{fp.ap_fixed.clone()}</code></dd>
            <dt>"Catapult"</dt>
            <dd><code>{fp.ac_fixed.clone()}</code></dd>
            <dt>"codes"</dt>
            <dd class="num">
                {format!("{} … {} ({} bits{})", fp.code_range.0, fp.code_range.1, fp.word_bits, if fp.signed { ", signed" } else { "" })}
            </dd>
            <dt>"scale"</dt>
            <dd class="num">{scale}</dd>
        </dl>
        {(count > 0).then(|| {
            // The table's rows (up to 256) exist only while it is open: a slider drag rebuilds
            // this view on every change.
            let open = RwSignal::new(false);
            let codes = StoredValue::new(codes);
            view! {
                <details class="codes" on:toggle=move |ev| open.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open())>
                    <summary>{format!("code table ({count} codes)")}</summary>
                    <table class="code-table">
                        <thead><tr><th scope="col">"code"</th><th scope="col">"value"</th></tr></thead>
                        <tbody>
                            {move || open.get().then(|| codes.with_value(|codes| {
                                codes.iter().map(|&(c, v)| view! { <tr><td class="num">{c}</td><td class="num">{n(v)}</td></tr> }).collect_view()
                            }))}
                        </tbody>
                    </table>
                </details>
            }
        })}
    }
}
