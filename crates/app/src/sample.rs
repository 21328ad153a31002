//! The sample tensor: the weight-like values a data-dependent quantizer (`alpha='auto'`, TWN,
//! magnitude-aware signs, DoReFa weights, LSQ's initial step…) takes its scale or threshold
//! from, with its distribution and spread, the numbers the selected quantizer computed from it,
//! and a histogram of the values before and after quantization.

use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

use super::channels::ChannelStrip;
use super::dom::observed_size;
use super::figure::{self, Look, fmt_number};
use super::model::Model;
use super::scan::TensorScan;
use super::tensor::{Opened, Status, TensorSource};
use qscope_explore::analysis::{BINS, Picture};
use qscope_explore::sample::settings::{DF, OUTLIERS, SAMPLE, Sample};
use qscope_explore::sample::{Dist, MAX_SPREAD, Outputs};
use qscope_explore::settings::{Range, Setting};
use qscope_explore::slider::Scale;

/// The spread slider: 0.01 to 10 on a log scale.
const SPREAD_SCALE: Scale = Scale::log(0.01, 10.0);

#[component]
pub fn SamplePanel(model: Model, resized: ReadSignal<u32>) -> impl IntoView {
    // The open tensor file and what reading it said: the source controls and the scan share them.
    let opened = RwSignal::new_local(None::<Opened>);
    let status = RwSignal::new(Status::Idle);
    let dependent = Memo::new(move |_| model.current.with(|q| q.is_data_dependent()));
    let block = Memo::new(move |_| model.current.with(|q| q.block_size().is_some()));
    let spread = Memo::new(move |_| model.sample_spec.get().spread);
    let dist = Memo::new(move |_| model.sample_spec.get().dist);
    let spread_error = RwSignal::new(None::<String>);
    let set_spread = move |v: f32| {
        if v.is_finite() && v > 0.0 && v <= MAX_SPREAD {
            spread_error.set(None);
            model.update(|s| s.sample.spread = v);
        } else {
            spread_error.set(Some(format!("spread: expected a number above 0, at most {MAX_SPREAD}")));
        }
    };
    let numbers = move || {
        model.run.with(|r| {
            let mut parts = Vec::new();
            if let Some(s) = r.report.scale {
                parts.push(format!("scale {}", fmt_number(s as f64)));
            }
            if let Some(t) = r.report.threshold {
                parts.push(format!("threshold {}", fmt_number(t as f64)));
            }
            parts.join(" · ")
        })
    };
    view! {
        <section class="card sample" aria-labelledby="sample-h" data-testid="sample-panel">
            <div class="sample-controls">
                <h2 id="sample-h">"Sample tensor"</h2>
                <TensorSource model=model opened=opened status=status />
                <p class="small">
                    {move || if block.get() {
                        "The selected block format's curve is drawn at the block chosen under Blocks of the sample; the sample feeds the error figures and the block view."
                    } else if dependent.get() {
                        "The selected quantizer takes its scale or threshold from this tensor; the curves are drawn for it."
                    } else {
                        "The selected quantizer does not depend on the tensor; the sample feeds the error figures."
                    }}
                </p>
                <div class="synthetic" class:hidden=move || model.tensor.get().is_some()>
                <label class="field-label" for="dist" title=SAMPLE.doc>{SAMPLE.label}</label>
                <select id="dist" class="select" data-testid="sample-dist" on:change=move |ev| {
                    let v = event_target_value(&ev);
                    if let Some(d) = Dist::ALL.into_iter().find(|d| d.name() == v) {
                        model.update(|s| s.sample.dist = d);
                    }
                }>
                    {Dist::ALL.into_iter().map(|d| view! {
                        <option value=d.name() prop:selected=move || dist.get() == d>{d.name()}</option>
                    }).collect_view()}
                </select>
                <label class="field-label" for="spread">{move || format!("spread ({})", dist.get().spread_name())}</label>
                <div class="slider-row">
                    <input
                        id="spread"
                        type="range"
                        min=SPREAD_SCALE.position(SPREAD_SCALE.lo).to_string()
                        max=SPREAD_SCALE.position(SPREAD_SCALE.hi).to_string()
                        step=SPREAD_SCALE.step_attr()
                        data-testid="sample-spread"
                        prop:value=move || {
                            SPREAD_SCALE.position((spread.get() as f64).clamp(SPREAD_SCALE.lo, SPREAD_SCALE.hi)).to_string()
                        }
                        aria-valuetext=move || format!("{} = {} (log scale)", dist.get().spread_name(), fmt_number(spread.get() as f64))
                        on:input=move |ev| {
                            if let Ok(p) = event_target_value(&ev).parse::<f64>() {
                                set_spread(SPREAD_SCALE.value(p) as f32);
                            }
                        }
                    />
                    <input
                        type="number"
                        class="num-input"
                        step="any"
                        aria-label="spread, exact value"
                        prop:value=move || spread.get().to_string()
                        on:change=move |ev| set_spread(event_target_value(&ev).trim().parse::<f32>().unwrap_or(f32::NAN))
                    />
                </div>
                <div class="sample-extra">
                    <SampleField model=model row=&DF step="any"
                        hidden=Signal::derive(move || dist.get() != Dist::StudentT) error=spread_error />
                    <SampleField model=model row=&OUTLIERS step="0.005"
                        hidden=Signal::derive(|| false) error=spread_error />
                </div>
                <p class="tool-error" role="alert" class:hidden=move || spread_error.with(Option::is_none)>{move || spread_error.get()}</p>
                </div>
                <p class="num" data-testid="sample-numbers" class:stale=model.run_pending>{numbers}</p>
            </div>
            <div class="sample-figures">
                <Histogram model=model resized=resized />
                <ChannelStrip model=model resized=resized />
                <TensorScan model=model opened=opened status=status />
            </div>
        </section>
    }
}

/// A number field of a row of the sample settings table: its label, doc and limits are the
/// row's; the row reads what is typed (or `error` says what it expected) and shows the value.
#[component]
fn SampleField(
    model: Model,
    row: &'static Setting<Sample>,
    step: &'static str,
    hidden: Signal<bool>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let set = move |text: String| {
        let mut sample = model.state.with_untracked(|s| s.sample);
        match (row.read)(&mut sample, &text) {
            Ok(()) => {
                error.set(None);
                model.update(|s| s.sample = sample);
            }
            Err(e) => error.set(Some(format!("{}: {e}", row.name()))),
        }
    };
    let (min, max) = match row.range {
        Range::Real(b) => (b.min.to_string(), b.max.to_string()),
        _ => (String::new(), String::new()),
    };
    view! {
        <label class="field-label" class:hidden=move || hidden.get() title=row.doc>
            {format!("{} ", row.label)}
            <input
                type="number"
                class="num-input"
                data-testid=format!("sample-{}", row.name())
                min=min
                max=max
                step=step
                prop:value=move || model.state.with(|s| row.value(&s.sample))
                on:change=move |ev| set(event_target_value(&ev))
            />
        </label>
    }
}

/// The histogram canvas: input bins as light bars, outputs as stems (one per level) in the
/// selected curve's colour, each scaled to its own tallest bar, the threshold as dashed lines.
#[component]
fn Histogram(model: Model, resized: ReadSignal<u32>) -> impl IntoView {
    let node = NodeRef::<leptos::html::Canvas>::new();
    let size = observed_size(node);
    Effect::new(move |_| {
        resized.track();
        let look = model.look();
        let colour = figure::colour(model.selected.get(), look);
        let (Some(canvas), Some(css)) = (node.get(), size.get()) else { return };
        // The user's tensor: log counts (its tails are a few elements among millions) and the
        // selected quantizer's levels (of the drawn channel, for a per-channel one) as ticks.
        let tensor = model.tensor.get().is_some();
        model.run.with(|run| {
            let ticks = if tensor { run.levels.list(64) } else { None };
            let marks = Marks { threshold: run.report.threshold, ticks: ticks.as_deref(), log: tensor };
            draw(&canvas, css, &run.picture, marks, &colour, look)
        });
    });
    let ticks_text = move || {
        let per_channel = model.run.with(|r| !r.channels.is_empty());
        let listed = model.run.with(|r| r.levels.list(64).is_some());
        match (listed, per_channel) {
            (false, _) => "more than 64 levels: no ticks".to_string(),
            (true, true) => format!("ticks: the levels of channel {}", model.channel.get()),
            (true, false) => "ticks: the levels".to_string(),
        }
    };
    view! {
        <figure class="histogram" class:stale=model.run_pending>
            <canvas
                node_ref=node
                data-testid="histogram"
                role="img"
                aria-label="Histogram of the sample tensor before quantization (light bars) and after (stems at the output levels)"
            ></canvas>
            <figcaption class="legend small">
                <span><span class="key input"></span>{move || if model.tensor.get().is_some() { "before (log counts)" } else { "before" }}</span>
                <span>
                    <span class="key" style:background=move || figure::colour(model.selected.get(), model.look())></span>
                    "after (per output value)"
                </span>
                <span class:hidden=move || model.tensor.get().is_none() data-testid="histogram-ticks">{ticks_text}</span>
            </figcaption>
        </figure>
    }
}

/// What the histogram marks besides the counts.
struct Marks<'a> {
    threshold: Option<f32>,
    /// Output levels drawn as ticks on the axis.
    ticks: Option<&'a [f32]>,
    /// Counts on a log scale, `ln(1 + count)`.
    log: bool,
}

fn draw(canvas: &HtmlCanvasElement, (w, h): (f64, f64), picture: &Picture, marks: Marks, colour: &str, look: Look) {
    let threshold = marks.threshold;
    let Some(ctx) = figure::cleared(canvas, (w, h), look) else { return };
    let theme = look.theme();
    let (ink, muted, bars) = (figure::css(theme.text), figure::css(theme.muted), figure::css(theme.bars));
    let m = picture.m;
    let (left, right, top, bottom) = (8.0, w - 8.0, 8.0, h - 22.0);
    let px = |v: f32| left + (v + m) as f64 / (2.0 * m) as f64 * (right - left);
    let ht = |c: u32, max: u32| {
        let (c, max) = (c as f64, max.max(1) as f64);
        (bottom - top) * if marks.log { c.ln_1p() / max.ln_1p() } else { c / max }
    };

    // Before: the input in equal bins.
    let hist = &picture.input;
    let max_in = hist.counts.iter().copied().max().unwrap_or(1);
    let edges = hist.edges();
    ctx.set_fill_style_str(&bars);
    for (i, &c) in hist.counts.iter().enumerate() {
        let (a, b) = (px(edges[i]), px(edges[i + 1]));
        ctx.fill_rect(a + 0.5, bottom - ht(c, max_in), (b - a - 1.0).max(0.5), ht(c, max_in));
    }
    // After: one stem per distinct output, or bins when the output is nearly continuous.
    ctx.set_stroke_style_str(colour);
    ctx.set_fill_style_str(colour);
    match &picture.output {
        Outputs::Stems(stems) => {
            let max_out = stems.iter().map(|s| s.1).max().unwrap_or(1);
            ctx.set_line_width(2.0);
            for (v, c) in stems.iter() {
                let (sx, sy) = (px(*v), bottom - ht(*c, max_out));
                ctx.begin_path();
                ctx.move_to(sx, bottom);
                ctx.line_to(sx, sy);
                ctx.stroke();
                ctx.begin_path();
                let _ = ctx.arc(sx, sy, 3.0, 0.0, std::f64::consts::TAU);
                ctx.fill();
            }
        }
        Outputs::Bins(out) => {
            let max_out = out.counts.iter().copied().max().unwrap_or(1);
            ctx.set_line_width(1.5);
            ctx.begin_path();
            ctx.move_to(px(edges[0]), bottom);
            for (i, &c) in out.counts.iter().enumerate() {
                ctx.line_to(px(edges[i]), bottom - ht(c, max_out));
                ctx.line_to(px(edges[i + 1]), bottom - ht(c, max_out));
            }
            ctx.line_to(px(edges[BINS]), bottom);
            ctx.stroke();
        }
    }
    // The threshold, dashed, and the axis.
    ctx.set_stroke_style_str(&muted);
    ctx.set_line_width(1.0);
    if let Some(t) = threshold.filter(|t| t.is_finite() && t.abs() < m) {
        let dash = js_sys::Array::of2(&4.0.into(), &3.0.into());
        let _ = ctx.set_line_dash(&dash);
        for v in [-t, t] {
            ctx.begin_path();
            ctx.move_to(px(v), top);
            ctx.line_to(px(v), bottom);
            ctx.stroke();
        }
        let _ = ctx.set_line_dash(&js_sys::Array::new());
    }
    if let Some(ticks) = marks.ticks {
        ctx.set_stroke_style_str(colour);
        ctx.set_line_width(1.5);
        for &v in ticks.iter().filter(|v| v.abs() <= m) {
            ctx.begin_path();
            ctx.move_to(px(v), bottom + 0.5);
            ctx.line_to(px(v), bottom + 5.0);
            ctx.stroke();
        }
        ctx.set_line_width(1.0);
    }
    ctx.set_stroke_style_str(&ink);
    ctx.begin_path();
    ctx.move_to(left, bottom + 0.5);
    ctx.line_to(right, bottom + 0.5);
    ctx.stroke();
    ctx.set_fill_style_str(&muted);
    ctx.set_font("11px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif");
    ctx.set_text_baseline("top");
    for (v, align) in [(-m, "left"), (0.0, "center"), (m, "right")] {
        ctx.set_text_align(align);
        let _ = ctx.fill_text(&fmt_number(v as f64), px(v), bottom + 5.0);
    }
}
