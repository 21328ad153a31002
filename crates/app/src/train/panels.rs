//! The Train view's middle column: the toolbar (play/pause/step/reset, pace, what a step
//! takes, epoch and batch, rate, message),
//! the decision boundaries, the loss/accuracy curves with the mid-run swaps marked, and the
//! `qscope train` command that reproduces the run. Canvases redraw in effects on `tick`.

use leptos::html::Canvas;
use leptos::prelude::*;

use super::Train;
use super::confusion::{ConfusionMatrix, Misclassified};
use super::draw::{self, HI, LO, RES};
use super::pace::{PaceSelect, StepBySelect};
use crate::figure::{Look, TrainColours, css};
use qscope_explore::pace::StepBy;
use qscope_explore::train::{Net, for_net};
use qscope_nn::Metrics;

/// The Train view's colours: the theme every canvas draws with ([`Look::theme`]), dark when
/// the page's theme (or else the system's) is dark, high contrast in presenter mode.
pub fn colours(train: Train) -> TrainColours {
    Look { dark: is_dark(), presenter: train.presenter.get_untracked() }.theme().train
}

/// Whether the page's theme (or else the system's) is dark.
pub fn is_dark() -> bool {
    match document().document_element().and_then(|e| e.get_attribute("data-theme")).as_deref() {
        Some("dark") => true,
        Some("light") => false,
        _ => window().match_media("(prefers-color-scheme: dark)").ok().flatten().is_some_and(|m| m.matches()),
    }
}

fn percent(v: Option<f64>) -> String {
    v.map_or("–".into(), |a| format!("{:.1} %", a * 100.0))
}

#[component]
pub fn Toolbar(train: Train) -> impl IntoView {
    let epoch = move || {
        train.tick.track();
        train.runs.with_value(|r| r.as_ref().map_or(0, |r| r.q.epoch())).to_string()
    };
    let toggle = move |_| train.playing.update(|p| *p = !*p);
    let reset = move |_| {
        train.playing.set(false);
        train.params.with_untracked(|p| train.rebuild(p));
    };
    // The batch within the epoch, and every batch so far (a test reads fractions of epochs).
    let batches = move || {
        train.tick.track();
        train.runs.with_value(|r| {
            r.as_ref().map_or((0, 0, 1), |r| (r.q.step_count(), r.q.batch_in_epoch(), r.q.batches_per_epoch()))
        })
    };
    let step_title = move || match train.params.with(|p| p.stepby) {
        StepBy::Epoch => "train to the end of the epoch",
        StepBy::Batch => "train one batch",
    };
    let rate = move || {
        let (epochs, fps) = train.rate.get();
        if train.playing.get() && epochs > 0.0 {
            let digits = if epochs < 10.0 { 1 } else { 0 };
            format!("{epochs:.digits$} epochs/s · {fps:.0} fps")
        } else {
            String::new()
        }
    };
    view! {
        <div class="toolbar train-toolbar">
            <button type="button" class="button primary" data-testid="train-play" on:click=toggle
                aria-pressed=move || train.playing.get().to_string()>
                {move || if train.playing.get() { "❚❚ Pause" } else { "▶ Play" }}
            </button>
            <button type="button" class="button" data-testid="train-step" title=step_title
                on:click=move |_| { train.playing.set(false); train.step() }>"Step"</button>
            <button type="button" class="button" data-testid="train-reset" title="new weights, same seed" on:click=reset>"Reset"</button>
            <PaceSelect train=train />
            <StepBySelect train=train />
            <span class="readout">"epoch "<strong data-testid="train-epoch">{epoch}</strong></span>
            <span class="muted readout" title="batches into the current epoch">"batch "
                <span data-testid="train-batches" data-steps=move || batches().0.to_string() data-per-epoch=move || batches().2.to_string()>
                    {move || { let (_, k, n) = batches(); format!("{k}/{n}") }}</span></span>
            <span class="muted readout" data-testid="train-rate">{rate}</span>
            <Show when=move || train.stopped.with(Option::is_some)>
                <span class="readout" role="status" data-testid="train-stopped">{move || train.stopped.get().unwrap_or_default()}</span>
            </Show>
            <Show when=move || train.message.with(Option::is_some)>
                <span class="error" role="alert" data-testid="train-message">{move || train.message.get().unwrap_or_default()}</span>
            </Show>
        </div>
    }
}

/// What a boundary's caption says about its network.
fn describe(train: Train, net: Net) -> String {
    train.params.with(|p| {
        let f = |s: &str| if s.trim().is_empty() { "float".to_string() } else { s.to_string() };
        let per_layer = if p.layer_wq.is_empty() && p.layer_aq.is_empty() { "" } else { " (+ per layer)" };
        match net {
            Net::Float => "same seed and data, no quantizers".to_string(),
            Net::Quantized => format!("w: {} · a: {}{per_layer}", f(&p.wq), f(&p.aq)),
            Net::Twin => {
                let (w, a) = (for_net(net, &p.wq, &p.twin_wq), for_net(net, &p.aq, &p.twin_aq));
                format!("w: {} · a: {}", f(w), f(a))
            }
        }
    })
}

/// A network's latest metric as text, redrawn on every tick.
fn readout(train: Train, net: Net, f: impl Fn(&Metrics) -> String + Copy + 'static) -> impl Fn() -> String + Copy {
    move || {
        train.tick.track();
        train.runs.with_value(|r| r.as_ref().and_then(|r| r.latest(net)).map_or("–".into(), |m| f(&m)))
    }
}

/// One network's heatmap and its test metrics; `suffix` distinguishes the test ids.
#[component]
fn Boundary(train: Train, net: Net, title: &'static str, suffix: &'static str) -> impl IntoView {
    let heat = NodeRef::<Canvas>::new();
    let dots = NodeRef::<Canvas>::new();
    // While playing, the heatmaps take turns, one per frame: each still updates 10–15 times
    // a second, and no frame pays for all of them.
    Effect::new(move |_| {
        train.tick.track();
        let (playing, twin) = (train.playing.get(), train.params.with(|p| p.has_twin()));
        if train.params.with(|p| p.dataset.is_table()) {
            return; // no plane to draw: the confusion matrix instead
        }
        let Some(c) = heat.get() else { return };
        if playing && train.frame.get_value() % if twin { 3 } else { 2 } != net as u64 {
            return;
        }
        let colours = colours(train);
        train.runs.update_value(|r| {
            if let Some(t) = r.as_mut().and_then(|r| r.get_mut(net)) {
                draw::heatmap(&c, &t.predict_grid(LO, HI, RES), &colours);
            }
        });
    });
    Effect::new(move |_| {
        train.built.track();
        let Some(c) = dots.get() else { return };
        let colours = colours(train);
        train.runs.with_value(|r| {
            if let Some(r) = r {
                draw::points(&c, &r.q.dataset().train, &r.q.dataset().test, &colours);
            }
        });
    });
    let metric = move |f: fn(&Metrics) -> String| readout(train, net, f);
    // The unrounded numbers, as `qscope train --json` prints them (tests compare the two).
    let exact = move |f: fn(&Metrics) -> Option<f64>| {
        readout(train, net, move |m| f(m).map_or("null".into(), |v| format!("{v}")))
    };
    let table = Memo::new(move |_| train.params.with(|p| p.dataset.is_table()));
    view! {
        <figure class="boundary" class:table=move || table.get()>
            <figcaption><span class="swatch" style:background=css(colours(train).nets[net as usize])></span>{title}" "
                <span class="muted">{move || describe(train, net)}</span></figcaption>
            <div class="boundary-stack" class:hidden=move || table.get()>
                <canvas node_ref=heat data-testid=format!("train-boundary{suffix}") aria-label=format!("decision boundary: {title}")></canvas>
                <canvas node_ref=dots class="points" aria-hidden="true"></canvas>
            </div>
            <Show when=move || table.get()>
                <ConfusionMatrix train=train net=net suffix=suffix />
            </Show>
            <p class="readout">"test loss "
                <span data-testid=format!("train-loss-test{suffix}") data-exact=exact(|m| Some(m.test_loss))>{metric(|m| format!("{:.4}", m.test_loss))}</span>
                " · test accuracy "
                <span data-testid=format!("train-acc-test{suffix}") data-exact=exact(|m| m.test_acc)>{metric(|m| percent(m.test_acc))}</span></p>
        </figure>
    }
}

/// The heatmaps of the quantized net, its float twin and, when on, the STE twin.
#[component]
pub fn Boundaries(train: Train) -> impl IntoView {
    let twin = Memo::new(move |_| train.params.with(|p| p.has_twin()));
    view! {
        <div class="boundaries" class:three=move || twin.get()>
            <Boundary train=train net=Net::Quantized title="Quantized net" suffix="" />
            <Boundary train=train net=Net::Float title="Float twin" suffix="-float" />
            <Show when=move || twin.get()>
                <Boundary train=train net=Net::Twin title="STE twin" suffix="-twin" />
            </Show>
        </div>
        <Show when=move || !train.params.with(|p| p.dataset.is_table())>
            <p class="muted small legend">"Blue: class +1, orange: class −1; filled dots train, rings test."</p>
        </Show>
        <Misclassified train=train />
    }
}

/// Loss and accuracy over epochs: one colour per network, train solid, test dashed; mid-run
/// quantizer swaps as labelled vertical lines.
#[component]
pub fn Curves(train: Train) -> impl IntoView {
    let loss = NodeRef::<Canvas>::new();
    let acc = NodeRef::<Canvas>::new();
    Effect::new(move |_| {
        train.tick.track();
        let (Some(lc), Some(ac)) = (loss.get(), acc.get()) else { return };
        let colours = colours(train);
        train.runs.with_value(|r| {
            let Some(r) = r else { return };
            let [q, f, t] = colours.nets.map(css);
            let mut runs = vec![(r.q.history(), q.as_str()), (r.f.history(), f.as_str())];
            if let Some(twin) = &r.t {
                runs.push((twin.history(), t.as_str()));
            }
            let presenter = train.presenter.get_untracked();
            let l = |m: &Metrics, test: bool| if test { m.test_loss } else { m.train_loss };
            draw::curves(&lc, &runs, &r.marks, l, &colours, presenter);
            let a = |m: &Metrics, test: bool| if test { m.test_acc } else { m.train_acc }.unwrap_or(0.0);
            draw::curves(&ac, &runs, &r.marks, a, &colours, presenter);
        });
    });
    let marks = move || {
        train.tick.track();
        train.runs.with_value(|r| r.as_ref().map_or(0, |r| r.marks.len()))
    };
    view! {
        <div class="curves">
            <figure><figcaption>"Loss"</figcaption><canvas node_ref=loss data-testid="train-loss-curve"></canvas></figure>
            <figure><figcaption>"Accuracy"</figcaption><canvas node_ref=acc data-testid="train-acc-curve"></canvas></figure>
        </div>
        <p class="muted small legend" data-testid="train-marks" data-count=move || marks().to_string()>
            "Blue: quantized, vermillion: float twin, green: STE twin; solid train, dashed test; grey lines: quantizers swapped mid-run."
        </p>
    }
}

/// The `qscope train` command that reproduces the quantized net's run so far.
#[component]
pub fn Command(train: Train) -> impl IntoView {
    let command = move || {
        train.tick.track();
        let epochs = train.runs.with_value(|r| r.as_ref().map_or(0, |r| r.q.epoch()));
        train.params.with(|p| p.cli_command(Net::Quantized, epochs.max(1)))
    };
    let swapped = move || {
        train.tick.track();
        train.runs.with_value(|r| r.as_ref().is_some_and(|r| !r.marks.is_empty()))
    };
    view! {
        <div class="train-command">
            <strong>"The same run from the command line"</strong>
            <pre tabindex="0"><code data-testid="train-command">{command}</code></pre>
            <p class="muted small" class:hidden=move || !swapped()>
                "This run swapped quantizers mid-way; the command trains with the current ones from the start."
            </p>
        </div>
    }
}
