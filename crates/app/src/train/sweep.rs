//! The Train view's "Accuracy against bits": the same net trained at each chosen bit width of
//! its weights, activations, both or one layer, and float, a few steps per animation frame
//! (the page stays smooth) with a progress bar and Cancel; then the figure, exportable as PNG
//! and SVG. The sweep itself is `qscope_explore::train::sweep`, as `qscope train --sweep` runs it.

use leptos::html::Canvas;
use leptos::prelude::*;

use super::{Train, now};
use crate::dom::observed_size;
use crate::export::{save_sweep_png, save_sweep_svg};
use crate::figure::{self, Look};
use crate::hash;
use qscope_explore::train::sweep::{Outcome, Sweep, SweepRun, Vary, parse_widths, plot_of, subtitle};
use qscope_plot::svg::Words;
use qscope_plot::sweep::SweepFigure;

/// Milliseconds of training per animation frame.
const BUDGET_MS: f64 = 12.0;

/// The panel's state, all `Copy`.
#[derive(Clone, Copy)]
struct Panel {
    train: Train,
    vary: RwSignal<Vary>,
    widths: RwSignal<String>,
    epochs: RwSignal<usize>,
    run: StoredValue<Option<SweepRun>, LocalStorage>,
    progress: RwSignal<Option<(usize, usize)>>,
    outcomes: RwSignal<Vec<Outcome>>,
    subtitle: RwSignal<String>,
    problem: RwSignal<Option<String>>,
}

impl Panel {
    fn start(self) {
        let widths = match parse_widths(&self.widths.get_untracked()) {
            Ok(w) => w,
            Err(e) => return self.problem.set(Some(e)),
        };
        let (vary, epochs) = (self.vary.get_untracked(), self.epochs.get_untracked());
        let sweep = self.train.params.with_untracked(|p| {
            self.subtitle.set(subtitle(p, vary, epochs));
            Sweep::varying(p, vary, &widths, epochs)
        });
        match sweep {
            Ok(s) => {
                self.problem.set(None);
                self.train.playing.set(false);
                self.outcomes.set(Vec::new());
                self.run.set_value(Some(SweepRun::new(s)));
                self.frame();
            }
            Err(e) => self.problem.set(Some(e)),
        }
    }

    /// Trains for about [`BUDGET_MS`], then asks for the next frame until the sweep is done.
    fn frame(self) {
        let start = now();
        let mut finished = true;
        self.run.update_value(|r| {
            if let Some(r) = r {
                finished = r.advance(1);
                while !finished && now() - start < BUDGET_MS {
                    finished = r.advance(4);
                }
                self.progress.set(Some(r.progress()));
                if r.done.len() != self.outcomes.with_untracked(Vec::len) {
                    self.outcomes.set(r.done.clone());
                }
            }
        });
        if self.run.with_value(Option::is_none) {
            return;
        }
        if finished {
            self.run.set_value(None);
            self.progress.set(None);
        } else {
            request_animation_frame(move || self.frame());
        }
    }

    fn cancel(self) {
        self.run.set_value(None);
        self.progress.set(None);
        self.problem.set(Some("cancelled; the widths trained so far are drawn".into()));
    }

    fn figure(self, size: (u32, u32)) -> SweepFigure {
        let look = Look { dark: false, presenter: false };
        let plot = plot_of(&self.outcomes.get_untracked(), self.subtitle.get_untracked());
        let link = self.train.params.with_untracked(|p| hash::link_to(&p.to_hash()));
        let description =
            plot.points.iter().map(|(b, a)| format!("{b} bits: {:.1} %", a * 100.0)).collect::<Vec<_>>().join(", ");
        let words = Words {
            title: format!("qscope: accuracy against bits — {}", plot.subtitle),
            description,
            link,
            specs: Vec::new(),
        };
        SweepFigure { plot, words, size, theme: look.theme() }
    }
}

/// The panel: what to vary, the widths and epochs, Run / Cancel with progress, the figure.
#[component]
pub fn SweepPanel(train: Train) -> impl IntoView {
    let panel = Panel {
        train,
        vary: RwSignal::new(Vary::Weights),
        widths: RwSignal::new("1,2,3,4,6,8".into()),
        epochs: RwSignal::new(30),
        run: StoredValue::new_local(None),
        progress: RwSignal::new(None),
        outcomes: RwSignal::new(Vec::new()),
        subtitle: RwSignal::new(String::new()),
        problem: RwSignal::new(None),
    };
    on_cleanup(move || panel.run.set_value(None));
    let canvas = NodeRef::<Canvas>::new();
    let size = observed_size(canvas);
    let status = RwSignal::new(String::new());
    Effect::new(move |_| {
        let (Some(c), Some(css)) = (canvas.get(), size.get()) else { return };
        let plot = plot_of(&panel.outcomes.get(), panel.subtitle.get());
        let look = Look { dark: super::panels::is_dark(), presenter: train.presenter.get() };
        if let Err(e) = figure::draw_sweep(&c, css, &plot, look) {
            web_sys::console::error_1(&e.into());
        }
    });
    let layers = move || train.params.with(|p| p.hidden.len());
    let choose = move |ev| {
        if let Ok(v) = Vary::parse(&event_target_value(&ev)) {
            panel.vary.set(v);
        }
    };
    let size_px = move || size.get().map_or((640, 360), |(w, h)| (w.round() as u32, h.round() as u32));
    view! {
        <section class="train-sweep" aria-labelledby="train-sweep-h">
            <h3 id="train-sweep-h">"Accuracy against bits"</h3>
            <p class="muted small">"The same net — same seed, data and epochs — trained at each width, and float: what each bit costs."</p>
            <div class="row sweep-controls">
                <label>"vary "
                    <select class="select" data-testid="train-sweep-vary" on:change=choose>
                        <option value="weights" selected=move || panel.vary.get() == Vary::Weights>"the weights"</option>
                        <option value="activations" selected=move || panel.vary.get() == Vary::Activations>"the activations"</option>
                        <option value="both" selected=move || panel.vary.get() == Vary::Both>"both"</option>
                        {move || (0..layers()).map(|l| view! {
                            <option value=Vary::Layer(l).name() selected=move || panel.vary.get() == Vary::Layer(l)>{format!("hidden layer {}'s weights", l + 1)}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>" bits "
                    <input class="num" type="text" size="12" data-testid="train-sweep-widths" prop:value=move || panel.widths.get()
                        on:change=move |ev| panel.widths.set(event_target_value(&ev)) />
                </label>
                <label>" epochs "
                    <input class="num" type="number" min="1" max="1000" data-testid="train-sweep-epochs" prop:value=move || panel.epochs.get().to_string()
                        on:change=move |ev| { if let Ok(e) = event_target_value(&ev).parse::<usize>() { panel.epochs.set(e.clamp(1, 1000)) } } />
                </label>
                <button type="button" class="button primary" data-testid="train-sweep-run" disabled=move || panel.progress.get().is_some()
                    on:click=move |_| panel.start()>"Run"</button>
                <button type="button" class="button" data-testid="train-sweep-cancel" class:hidden=move || panel.progress.get().is_none()
                    on:click=move |_| panel.cancel()>"Cancel"</button>
            </div>
            {move || panel.progress.get().map(|(done, of)| view! {
                <progress data-testid="train-sweep-progress" max=of.to_string() value=done.to_string()></progress>
                <span class="muted small">{format!(" {done} of {of} epochs")}</span>
            })}
            {move || panel.problem.get().map(|e| view! { <p class="error small" role="alert" data-testid="train-sweep-problem">{e}</p> })}
            <canvas node_ref=canvas class="sweep-plot" data-testid="train-sweep"
                data-points=move || panel.outcomes.with(|o| o.iter().map(|o| format!("{}:{}", o.label, o.test_acc.map_or("null".into(), |a| a.to_string()))).collect::<Vec<_>>().join(" "))
                aria-label=move || panel.outcomes.with(|o| o.iter().map(|o| format!("{} {}", o.label, o.test_acc.map_or("stopped".into(), |a| format!("{:.1} %", a * 100.0)))).collect::<Vec<_>>().join(", "))></canvas>
            <div class="row">
                <button type="button" class="button" data-testid="train-sweep-png" disabled=move || panel.outcomes.with(Vec::is_empty)
                    on:click=move |_| save_sweep_png(&panel.figure(size_px()), status)>"PNG"</button>
                <button type="button" class="button" data-testid="train-sweep-svg" disabled=move || panel.outcomes.with(Vec::is_empty)
                    on:click=move |_| save_sweep_svg(&panel.figure(size_px()), status)>"SVG"</button>
                <span class="muted small" role="status">{move || status.get()}</span>
            </div>
        </section>
    }
}
