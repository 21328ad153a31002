//! The app shell and its components. Components take signals; derived values are memos;
//! effects only draw the canvases.

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

use super::canvas;
use crate::plot::{Curve, Panel, SAMPLES, Theme, describe_levels, fmt_number};
use crate::quant::{Ctx, Quantizer, Report, parse};

/// The spec shown when the page opens.
pub const DEFAULT_SPEC: &str = "qkeras.quantized_bits(4,0,1)";
/// The x sweep every curve is evaluated over (one tensor, so data-dependent scales see it all).
const X_LO: f32 = -2.0;
const X_HI: f32 = 2.0;
/// The seed of stochastic quantizers' random stream.
const SEED: u64 = 0;
/// Specs offered as one-click examples.
const EXAMPLES: &[&str] = &[
    "qkeras.quantized_bits(4,0,1)",
    "qkeras.quantized_relu(3,1)",
    "qkeras.quantized_po2(4)",
    "larq.ste_sign",
    "larq.ApproxSign",
    "softround",
    "lsq(bits=3, step=0.25)",
];

#[component]
pub fn App() -> impl IntoView {
    // The committed spec text: what the user last applied (Enter, blur or an example).
    let spec = RwSignal::new(DEFAULT_SPEC.to_string());
    let parsed = Memo::new(move |_| spec.with(|s| parse(s).map_err(|e| e.message)));
    let error = Memo::new(move |_| parsed.with(|p| p.as_ref().err().cloned()));
    // The last quantizer that parsed: a bad spec keeps the last good figure on screen.
    let quantizer = Memo::new(move |prev: Option<&Quantizer>| match parsed.get() {
        Ok(q) => q,
        Err(_) => prev.cloned().unwrap_or_else(default_quantizer),
    });
    let evaluation =
        Memo::new(move |_| quantizer.with(|q| Curve::evaluate(q, X_LO, X_HI, SAMPLES, &mut Ctx::new(SEED))));
    let curves = Memo::new(move |_| evaluation.with(|(c, _)| vec![c.clone()]));
    let report = Memo::new(move |_| evaluation.with(|(_, r)| r.clone()));

    let dark = prefers_dark();
    let theme = Signal::derive(move || if dark.get() { Theme::DARK } else { Theme::LIGHT });
    let resized = resize_ticks();

    view! {
        <header class="bar">
            <span class="brand">"qscope"</span>
            <nav class="views" aria-label="Views">
                <span class="view current" aria-current="page">"Explorer"</span>
            </nav>
            <span class="tagline">"what a quantizer computes, forward and backward"</span>
        </header>
        <main class="explorer">
            <section class="card quantizer" aria-labelledby="quantizer-h">
                <h2 id="quantizer-h">"Quantizer"</h2>
                <SpecField spec=spec error=error.into() />
                <Examples spec=spec />
            </section>
            <section class="plots" aria-label="Curves">
                <PlotCanvas
                    panel=Panel::Forward
                    testid="plot-forward"
                    curves=curves
                    theme=theme
                    resized=resized
                />
                <PlotCanvas
                    panel=Panel::Backward
                    testid="plot-backward"
                    curves=curves
                    theme=theme
                    resized=resized
                />
                <p class="sweep">
                    {format!(
                        "x from {} to {}, {} points, evaluated as one tensor (training mode, seed {}).",
                        fmt_number(X_LO as f64),
                        fmt_number(X_HI as f64),
                        SAMPLES,
                        SEED,
                    )}
                </p>
            </section>
            <Readout quantizer=quantizer report=report />
        </main>
    }
}

fn default_quantizer() -> Quantizer {
    parse(DEFAULT_SPEC).expect("the default spec parses")
}

/// The spec text field: applies on Enter or when it loses focus; a parse error shows beside it.
#[component]
fn SpecField(spec: RwSignal<String>, error: Signal<Option<String>>) -> impl IntoView {
    let commit = move |text: String| {
        if spec.with_untracked(|s| *s != text) {
            spec.set(text);
        }
    };
    let invalid = move || error.with(Option::is_some);
    view! {
        <label class="field-label" for="spec">
            "spec "
            <span class="muted">"(Enter to apply)"</span>
        </label>
        <input
            id="spec"
            class="spec"
            class:invalid=invalid
            type="text"
            data-testid="spec-input"
            spellcheck="false"
            autocomplete="off"
            autocapitalize="off"
            aria-describedby="spec-error"
            aria-invalid=move || if invalid() { "true" } else { "false" }
            prop:value=move || spec.get()
            on:keydown=move |ev: ev::KeyboardEvent| {
                if ev.key() == "Enter" {
                    commit(event_target_value(&ev));
                }
            }
            on:blur=move |ev: ev::FocusEvent| commit(event_target_value(&ev))
        />
        <p id="spec-error" class="spec-error" data-testid="spec-error" aria-live="polite">
            {move || error.get()}
        </p>
        <p class="kept" class:shown=invalid>
            "Still showing the last spec that parsed."
        </p>
    }
}

/// One-click example specs.
#[component]
fn Examples(spec: RwSignal<String>) -> impl IntoView {
    view! {
        <p class="field-label examples-label">"examples"</p>
        <ul class="examples">
            {EXAMPLES
                .iter()
                .map(|&s| {
                    view! {
                        <li>
                            <button type="button" class="example" on:click=move |_| spec.set(s.to_string())>
                                <code>{s}</code>
                            </button>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}

/// One panel on a canvas; redrawn when the curves, the theme or the window size change.
#[component]
fn PlotCanvas(
    panel: Panel,
    testid: &'static str,
    curves: Memo<Vec<Curve>>,
    theme: Signal<Theme>,
    resized: ReadSignal<u32>,
) -> impl IntoView {
    let node = NodeRef::<leptos::html::Canvas>::new();
    Effect::new(move |_| {
        resized.track();
        let theme = theme.get();
        let Some(el) = node.get() else { return };
        curves.with(|c| {
            if let Err(e) = canvas::draw(&el, panel, c, theme) {
                web_sys::console::error_1(&e.into());
            }
        });
    });
    let label = move || {
        curves.with(|c| {
            let names: Vec<&str> = c.iter().map(|c| c.label.as_str()).collect();
            format!("{} of {}", panel.title(), names.join(", "))
        })
    };
    view! {
        <figure class="card plot">
            <canvas node_ref=node data-testid=testid role="img" aria-label=label></canvas>
        </figure>
    }
}

/// What a practitioner needs at a glance: canonical spec, levels, formulas.
#[component]
fn Readout(quantizer: Memo<Quantizer>, report: Memo<Report>) -> impl IntoView {
    let canonical = Memo::new(move |_| quantizer.with(|q| q.to_string()));
    let info = move || quantizer.with(|q| q.info());
    let levels = Memo::new(move |_| quantizer.with(|q| report.with(|r| describe_levels(&q.levels(r)))));
    let number = |label: &'static str, v: Option<f32>| {
        v.map(|v| {
            view! {
                <dt>{label}</dt>
                <dd class="num">{fmt_number(v as f64)}</dd>
            }
        })
    };
    view! {
        <aside class="card readout" aria-labelledby="selected-h">
            <h2 id="selected-h">"Selected"</h2>
            <p class="summary">{move || info().summary}</p>
            <dl>
                <dt>"spec"</dt>
                <dd>
                    <code data-testid="canonical">{canonical}</code>
                </dd>
                <dt>"levels"</dt>
                <dd class="num" data-testid="levels">{levels}</dd>
                {move || report.with(|r| number("scale", r.scale))}
                {move || report.with(|r| number("threshold", r.threshold))}
                {move || {
                    report
                        .with(|r| r.stochastic)
                        .then(|| {
                            view! {
                                <dt>"random"</dt>
                                <dd>{format!("draws from seed {SEED}")}</dd>
                            }
                        })
                }}
                <dt>"forward"</dt>
                <dd class="formula" data-testid="formula-forward">{move || info().forward}</dd>
                <dt>"backward"</dt>
                <dd class="formula" data-testid="formula-backward">{move || info().backward}</dd>
            </dl>
        </aside>
    }
}

/// Whether the system asks for a dark theme, following changes.
fn prefers_dark() -> ReadSignal<bool> {
    let query = window().match_media("(prefers-color-scheme: dark)").ok().flatten();
    let (dark, set_dark) = signal(query.as_ref().is_some_and(|q| q.matches()));
    if let Some(query) = query {
        let on_change = Closure::<dyn Fn(web_sys::MediaQueryListEvent)>::new(move |e: web_sys::MediaQueryListEvent| {
            set_dark.set(e.matches())
        });
        let _ = query.add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
        // The page lives as long as the listener: leak it on purpose.
        on_change.forget();
    }
    dark
}

/// A counter bumped at most once per animation frame while the window is resized.
fn resize_ticks() -> ReadSignal<u32> {
    let (ticks, set_ticks) = signal(0u32);
    let pending = StoredValue::new(false);
    let handle = window_event_listener(ev::resize, move |_| {
        if !pending.get_value() {
            pending.set_value(true);
            request_animation_frame(move || {
                pending.set_value(false);
                set_ticks.update(|n| *n = n.wrapping_add(1));
            });
        }
    });
    // The listener lives as long as the page.
    std::mem::forget(handle);
    ticks
}
