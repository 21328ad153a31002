//! The middle column: the x range, mode and seed; the forward and backward canvases (drag to
//! pan, wheel to zoom, double-click to reset, hover for a crosshair, click to pin the Explain
//! panel's x; focused, ← → move the pin, +/− zoom, Escape clears the pin); the crosshair
//! readout, which is the figures' text alternative (the canvases point at its table), and a
//! polite live region that reads out the values at the pinned x when it moves.

use leptos::prelude::*;

use super::dom::{NextFrame, mark_once, now_ms, observed_size};
use super::figure::{self, Drawn, Frame, Panel};
use super::interact;
use super::model::Model;
use qscope_explore::state::{DEFAULT_X, Mode, check_x};

/// The performance mark set once the first panel has been drawn with curves (benchmarks read it).
pub const FIRST_PLOT: &str = "qscope:first-plot";

#[component]
pub fn Plots(model: Model, resized: ReadSignal<u32>) -> impl IntoView {
    let notes = Memo::new(move |_| {
        model.evaluated.with(|ev| {
            ev.iter()
                .enumerate()
                .filter_map(|(i, e)| e.unsupported.as_ref().map(|m| (i, e.curve.label.clone(), m.clone())))
                .collect::<Vec<_>>()
        })
    });
    let mode_word = move || if model.mode.get().training() { "training" } else { "inference" };
    view! {
        <section class="plots" aria-label="Curves">
            <Toolbar model=model />
            <div class="notes" data-testid="unsupported">
                {move || {
                    notes
                        .get()
                        .into_iter()
                        .map(|(i, label, m)| {
                            view! {
                                <p class="note warn" role="status">
                                    <span class="dot" style:background=move || figure::colour(i, model.look())></span>
                                    <code>{label}</code>
                                    {format!(" in {}: {m} The curve shows the inference behaviour.", mode_word())}
                                </p>
                            }
                        })
                        .collect_view()
                }}
            </div>
            {figure::PANELS
                .into_iter()
                .map(|(panel, testid)| view! { <PlotCanvas model=model panel=panel testid=testid resized=resized /> })
                .collect_view()}
            <Readout model=model />
        </section>
    }
}

#[component]
fn Toolbar(model: Model) -> impl IntoView {
    let x_error = RwSignal::new(None::<String>);
    let set_end = move |end: usize, text: String| {
        let Ok(v) = text.trim().replace('−', "-").parse::<f32>() else {
            x_error.set(Some(format!("'{}' is not a number", text.trim())));
            return;
        };
        let mut x = model.x.get_untracked();
        if end == 0 {
            x.0 = v
        } else {
            x.1 = v
        }
        match check_x(x) {
            Ok(x) => {
                x_error.set(None);
                model.update(|s| s.x = x);
            }
            Err(e) => x_error.set(Some(format!("x range: {e}"))),
        }
    };
    let field = move |end: usize, label: &'static str, testid: &'static str| {
        view! {
            <input
                type="number"
                class="num-input"
                step="any"
                aria-label=label
                data-testid=testid
                prop:value=move || { let x = model.x.get(); (if end == 0 { x.0 } else { x.1 }).to_string() }
                on:change=move |ev| set_end(end, event_target_value(&ev))
            />
        }
    };
    let mode_button = move |m: Mode, text: &'static str, testid: &'static str| {
        view! {
            <button
                type="button"
                class="seg"
                data-testid=testid
                aria-pressed=move || if model.mode.get() == m { "true" } else { "false" }
                on:click=move |_| model.update(|s| s.mode = m)
            >
                {text}
            </button>
        }
    };
    let seed_error = RwSignal::new(false);
    let set_seed = move |text: String| match text.trim().parse::<u64>() {
        Ok(seed) => {
            seed_error.set(false);
            model.update(|s| s.seed = seed);
        }
        Err(_) => seed_error.set(true),
    };
    view! {
        <div class="card toolbar" role="group" aria-label="What the curves show">
            <span class="tool">
                <span class="tool-label">"x from"</span>
                {field(0, "x range, low end", "x-lo")}
                <span class="tool-label">"to"</span>
                {field(1, "x range, high end", "x-hi")}
                <button
                    type="button"
                    class="small-button"
                    title="back to −2 … 2"
                    on:click=move |_| {
                        x_error.set(None);
                        model.update(|s| s.x = DEFAULT_X);
                    }
                >
                    "reset"
                </button>
            </span>
            <span class="tool segmented" role="group" aria-label="Mode">
                {mode_button(Mode::Train, "training", "mode-train")}
                {mode_button(Mode::Infer, "inference", "mode-infer")}
            </span>
            <span class="tool">
                <label class="tool-label" for="seed">"seed"</label>
                <input
                    id="seed"
                    type="number"
                    class="num-input seed"
                    min="0"
                    step="1"
                    class:invalid=move || seed_error.get()
                    data-testid="seed"
                    prop:value=move || model.seed.get().to_string()
                    on:change=move |ev| set_seed(event_target_value(&ev))
                />
            </span>
            <span class="hint muted">"drag to pan · wheel to zoom · double-click resets · on a focused plot ← → move the pin, +/− zoom"</span>
            <p class="tool-error" role="alert" class:hidden=move || x_error.with(Option::is_none)>{move || x_error.get()}</p>
        </div>
    }
}

/// One panel on a canvas, redrawn when the curves, the view, the theme or the window size
/// change (state changes arrive at most once per animation frame), and the crosshair on a
/// transparent canvas stacked on it, redrawn alone while the pointer moves.
#[component]
fn PlotCanvas(model: Model, panel: Panel, testid: &'static str, resized: ReadSignal<u32>) -> impl IntoView {
    let node = NodeRef::<leptos::html::Canvas>::new();
    let layer = NodeRef::<leptos::html::Canvas>::new();
    let drawn = RwSignal::new(None::<Drawn>);
    let size = observed_size(node);
    let lesson = super::lesson::player();
    // Drawn on the next animation frame, once however many changes come in this one: a change
    // that also rebuilds panels (the preset, a worker's answers) is not one long task.
    let next = NextFrame::new();
    Effect::new(move |_| {
        resized.track();
        model.curves.track();
        let emphasis = lesson.and_then(|p| p.emphasis());
        let frame = Frame { x: model.x.get(), look: model.look(), emphasis };
        let (Some(el), Some(css)) = (node.get(), size.get()) else { return };
        next.schedule(move || {
            let start = now_ms();
            model.curves.try_with_untracked(|c| match figure::draw_panel(&el, css, panel, c, &frame) {
                Ok(d) => {
                    if c.iter().any(|c| !c.hidden) {
                        mark_once(FIRST_PLOT);
                    }
                    drawn.try_set(Some(d));
                }
                Err(e) => web_sys::console::error_1(&e.into()),
            });
            model.draw_ms.try_set(now_ms() - start);
        });
    });
    Effect::new(move |_| {
        // With a pinned x (`pin=`) the crosshair stays at the probe while the pointer is away.
        let pinned = model.state.with(|s| s.pin.is_some());
        let x = model.hover.get().or_else(|| pinned.then(|| model.probe.get()));
        let (Some(el), Some(d), Some(css)) = (layer.get(), drawn.get(), size.get()) else { return };
        if let Err(e) = model.curves.with(|c| figure::draw_crosshair(&el, css, panel, c, &d, x)) {
            web_sys::console::error_1(&e.into());
        }
    });
    interact::attach(model, node, NextFrame::new());
    let label = move || {
        model.curves.with(|c| {
            let names: Vec<&str> = c.iter().filter(|c| !c.hidden).map(|c| c.label.as_str()).collect();
            format!(
                "{} of {}. Left and right arrows move the pinned x, plus and minus zoom, 0 resets the range, Escape clears the pin.",
                figure::title(panel),
                names.join(", ")
            )
        })
    };
    view! {
        <figure class="card plot">
            <canvas node_ref=node data-testid=testid role="img" tabindex="0" aria-label=label aria-describedby="readings"></canvas>
            <canvas node_ref=layer class="crosshair" data-testid=format!("{testid}-crosshair") aria-hidden="true"></canvas>
        </figure>
    }
}

/// x, y and dy/dx of every visible curve at the crosshair (or the pinned x).
#[component]
fn Readout(model: Model) -> impl IntoView {
    let at = model.reading_x();
    let rows = Memo::new(move |_| {
        let x = at.get();
        model.curves.with(|c| figure::read_at(c, x))
    });
    let n = |v: f32| figure::fmt_number(v as f64);
    // What a screen reader hears when the pinned x moves (not while the pointer hovers).
    let spoken = Memo::new(move |_| {
        let x = model.probe.get();
        let rows = model.curves.with(|c| figure::read_at(c, x));
        let values: Vec<String> =
            rows.into_iter().map(|r| format!("{} y = {}, dy/dx = {}", r.label, n(r.y), n(r.dydx))).collect();
        format!("At x = {}: {}.", n(x), values.join("; "))
    });
    view! {
        <div class="card readout-bar" data-testid="readout">
            <div class="readout-x">
                <span class="muted">{move || if model.hover.get().is_some() { "crosshair" } else { "pinned" }}</span>
                <span class="num">{move || format!("x = {}", n(at.get()))}</span>
            </div>
            <p class="sr-only" aria-live="polite" data-testid="readout-live">{move || spoken.get()}</p>
            <table class="readings" id="readings" aria-label="Values at the crosshair or the pinned x">
                <thead>
                    <tr>
                        <th scope="col"><span class="sr-only">"curve"</span></th>
                        <th scope="col" class="num">"y"</th>
                        <th scope="col" class="num">"dy/dx"</th>
                    </tr>
                </thead>
                <tbody>
                    {move || {
                        rows.get()
                            .into_iter()
                            .map(|r| {
                                // A fixed colour per rebuild (the rows follow the theme as a whole).
                                let colour = figure::colour(r.index, model.look());
                                view! {
                                    <tr>
                                        <th scope="row">
                                            <span class="dot" style:background=colour></span>
                                            <code>{r.label}</code>
                                        </th>
                                        <td class="num">{n(r.y)}</td>
                                        <td class="num">{n(r.dydx)}</td>
                                    </tr>
                                }
                            })
                            .collect_view()
                    }}
                </tbody>
            </table>
            <p class="timing muted" data-testid="timing">
                {move || format!("evaluated in {:.1} ms · panel drawn in {:.1} ms", model.eval_ms.get(), model.draw_ms.get())}
            </p>
        </div>
    }
}
