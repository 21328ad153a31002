//! The explorer's reactive model: one signal holds the whole [`State`] (what a link restores);
//! everything the panels show is derived from it by memos, so each piece recomputes only when
//! its inputs change. A few signals hold what a link does not carry (hover, messages, theme);
//! presenter mode comes in from the app.

use std::sync::Arc;

use leptos::prelude::*;

use super::dom::now_ms;
use super::figure::{Curve, Look};
use super::offpage::Offload;
use qscope_explore::analysis::{self, Answer, Ask, OFF_PAGE, Run};
use qscope_explore::figure::{self as evaluation, Evaluated, Inputs, Selected, Setting};
use qscope_explore::formats::{Compared, compare_in};
use qscope_explore::sample::SampleSpec;
use qscope_explore::state::{Mode, Slot, State};
use qscope_explore::tensor::{Loaded, drawn_channel, sample_shape};
use qscope_quant::shaped::Shape;
use qscope_quant::{Layout, Quantizer};

/// Where the Explain panel looks when the pointer is not over a plot.
pub const DEFAULT_PROBE: f32 = 0.3;

/// Light, dark, or whatever the system prefers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThemeChoice {
    System,
    Light,
    Dark,
}

/// Every signal and memo of the explorer (cheap to copy into components).
#[derive(Clone, Copy)]
pub struct Model {
    pub state: RwSignal<State>,
    pub slots: Memo<Vec<Slot>>,
    pub selected: Memo<usize>,
    pub current: Memo<Quantizer>,
    pub x: Memo<(f32, f32)>,
    pub mode: Memo<Mode>,
    pub seed: Memo<u64>,
    pub sample_spec: Memo<SampleSpec>,
    /// The tensor last read from the user's file (kept while the synthetic sample is shown, so
    /// a link naming it again finds it).
    pub loaded: RwSignal<Option<Loaded>, LocalStorage>,
    /// [`Loaded::serial`] of the loaded tensor while it is the sample: the state names its file
    /// and tensor.
    pub tensor: Memo<Option<u64>>,
    /// The sample's shape and channel axis (the synthetic sample is one channel).
    pub shape: Memo<Shape>,
    /// The channel a per-channel quantizer is drawn for (within the shape's channels).
    pub channel: Memo<usize>,
    pub hide: Memo<Vec<String>>,
    pub evaluated: Memo<Vec<Evaluated>>,
    pub curves: Memo<Vec<Curve>>,
    pub chosen: Memo<Selected>,
    /// The selected quantizer on the sample: its error, histogram, channels and blocks.
    pub run: Memo<Run>,
    /// The sample block block formats are drawn at (`None`: the sweep's own block).
    pub block: Memo<Option<usize>>,
    /// Every shown quantizer on the sample: bits per element, MSE, SQNR ("which format?").
    pub formats: Memo<Compared>,
    /// [`Loaded::serial`] of the user's tensor while it is the sample and large enough to be
    /// quantized in the page's worker ([`OFF_PAGE`] elements or more).
    pub off_page: Memo<Option<u64>>,
    /// The page's worker and its answers.
    pub offload: Offload,
    /// The selected quantizer's run on a large tensor is still being computed: the panels that
    /// show it are marked stale.
    pub run_pending: Memo<bool>,
    /// Likewise the comparison.
    pub formats_pending: Memo<bool>,
    /// The x under the pointer while it is over a plot.
    pub hover: RwSignal<Option<f32>>,
    /// The x the Explain panel and the readout use when nothing is hovered (a click pins it).
    pub probe: RwSignal<f32>,
    pub theme: RwSignal<ThemeChoice>,
    /// The page's theme is dark: chosen so, or the system's when none is chosen.
    pub dark: Signal<bool>,
    /// Presenter mode (the app's): the canvases draw in its theme and line widths.
    pub presenter: Signal<bool>,
    /// Problems found in the URL hash, shown in a dismissable banner.
    pub notices: RwSignal<Vec<String>>,
    /// `(parameter, message)` of the last control change that was refused.
    pub control_error: RwSignal<Option<(String, String)>>,
    /// The parser's message for the last spec typed, while it does not parse.
    pub spec_error: RwSignal<Option<String>>,
    /// Milliseconds the last evaluation of all curves took.
    pub eval_ms: RwSignal<f64>,
    /// Milliseconds the last drawing of a panel took.
    pub draw_ms: RwSignal<f64>,
}

impl Model {
    /// The model of `initial`, following the system's dark theme and presenter mode (signals
    /// the app owns).
    pub fn new(initial: State, system_dark: Signal<bool>, presenter: Signal<bool>) -> Model {
        let state = RwSignal::new(initial);
        let slots = Memo::new(move |_| state.with(|s| s.slots.clone()));
        let selected = Memo::new(move |_| state.with(State::selected_index));
        let current = Memo::new(move |_| state.with(|s| s.selected_slot().quantizer.clone()));
        let x = Memo::new(move |_| state.with(|s| s.x));
        let mode = Memo::new(move |_| state.with(|s| s.mode));
        let seed = Memo::new(move |_| state.with(|s| s.seed));
        let sample_spec = Memo::new(move |_| state.with(State::sample_spec));
        let loaded = RwSignal::new_local(None::<Loaded>);
        let tensor = Memo::new(move |_| {
            let (file, name) = state.with(|s| (s.file.clone(), s.tensor.clone()));
            loaded.with(|l| l.as_ref().filter(|l| l.is(file.as_deref(), name.as_deref())).map(|l| l.serial))
        });
        let sample = Memo::new(move |_| match tensor.get() {
            Some(_) => loaded.with(|l| l.as_ref().map(|l| Arc::clone(&l.values)).unwrap_or_default()),
            None => Arc::new(sample_spec.get().generate()),
        });
        let shape = Memo::new(move |_| {
            let active = tensor.get().and_then(|_| loaded.get());
            state.with(|s| sample_shape(s, active.as_ref()))
        });
        let channel = Memo::new(move |_| shape.with(|shape| state.with(|s| drawn_channel(s, shape))));
        let hide = Memo::new(move |_| state.with(|s| s.hide.clone()));
        let block = Memo::new(move |_| state.with(State::drawn_block));
        let eval_ms = RwSignal::new(0.0);

        let off_page = Memo::new(move |_| {
            tensor.get().filter(|_| loaded.with(|l| l.as_ref().is_some_and(|l| l.values.len() >= OFF_PAGE)))
        });
        let offload = Offload::new();
        let setting = Memo::new(move |_| Setting {
            x: x.get(),
            training: mode.get().training(),
            seed: seed.get(),
            sample: sample_spec.get(),
            block: block.get(),
            tensor: tensor.get(),
            shape: shape.get(),
            channel: channel.get(),
        });
        // The questions the panels need answered about a large tensor, in the order they are
        // shown: each data-dependent curve's numbers, the selected quantizer's run, the comparison.
        let asks = Memo::new(move |_| {
            if off_page.get().is_none() {
                return Vec::new();
            }
            let setting = setting.get();
            let mut asks: Vec<Ask> = slots.with(|slots| {
                slots.iter().filter_map(|s| freeze_ask(&Inputs::new(&s.quantizer, &setting), &setting)).collect()
            });
            asks.push(run_ask(&current.get(), &setting));
            asks.push(slots.with(|slots| compare_ask(slots, &setting)));
            asks
        });
        Effect::new(move |_| {
            offload.stopped.track();
            offload.again.track();
            let asks = asks.get();
            if let Some(t) = off_page.get().and_then(|_| loaded.get()) {
                offload.want(&t, asks);
            }
        });

        let evaluated = Memo::new(move |prev: Option<&Vec<Evaluated>>| {
            let start = now_ms();
            let setting = setting.get();
            let previous = prev.map_or(&[][..], Vec::as_slice);
            let out = match off_page.get() {
                None => slots
                    .with(|slots| sample.with(|values| evaluation::evaluate_all(slots, &setting, values, previous))),
                // A large tensor: each data-dependent curve is frozen at the worker's numbers, and
                // not drawn until they come.
                Some(serial) => slots.with(|slots| {
                    slots
                        .iter()
                        .map(|s| {
                            let inputs = Inputs::new(&s.quantizer, &setting);
                            let ask = freeze_ask(&inputs, &setting);
                            // Not evaluated again: one that does not read the tensor, or one frozen
                            // at the answer to the same question (when another slot's answer comes).
                            let done = ask.is_none();
                            if let Some(e) =
                                previous.iter().find(|e| e.inputs == inputs && (done || e.frozen.is_some()))
                            {
                                return e.clone();
                            }
                            let Some(ask) = ask else { return evaluation::evaluate(inputs, &[]) };
                            let frozen = offload.with_answer(serial, &ask, |a| match a {
                                Answer::Freeze(r, b) => Some((r.clone(), *b)),
                                _ => None,
                            });
                            match frozen.flatten() {
                                Some(f) => evaluation::evaluate_frozen(inputs, Some(f)),
                                None => evaluation::pending(inputs),
                            }
                        })
                        .collect()
                }),
            };
            eval_ms.set(now_ms() - start);
            out
        });
        let curves = Memo::new(move |_| evaluated.with(|ev| slots.with(|slots| evaluation::curves(slots, ev))));
        let chosen = Memo::new(move |_| {
            let i = selected.get();
            evaluated.with(|ev| Selected::of(ev.get(i)))
        });
        // The selected quantizer's run: on the page for the synthetic sample or a small tensor;
        // the worker's for a large one (the last run stays shown until it comes).
        let run = Memo::new(move |prev: Option<&Run>| match off_page.get() {
            None => {
                let q = current.get();
                let (training, seed, c) = (mode.get().training(), seed.get(), channel.get());
                shape.with(|shape| sample.with(|values| analysis::run(&q, training, seed, values, shape, c)))
            }
            Some(serial) => {
                let ask = run_ask(&current.get(), &setting.get());
                let got = offload.with_answer(serial, &ask, |a| match a {
                    Answer::Run(r) => Some((**r).clone()),
                    _ => None,
                });
                got.flatten().unwrap_or_else(|| prev.cloned().unwrap_or_default())
            }
        });
        let formats = Memo::new(move |prev: Option<&Compared>| match off_page.get() {
            None => {
                let (training, seed) = (mode.get().training(), seed.get());
                shape.with(|shape| {
                    slots.with(|slots| {
                        sample.with(|values| compare_in(slots, training, seed, values, shape, &mut Vec::new()))
                    })
                })
            }
            Some(serial) => {
                let ask = slots.with(|slots| compare_ask(slots, &setting.get()));
                let got = offload.with_answer(serial, &ask, |a| match a {
                    Answer::Compare(c) => Some(c.clone()),
                    _ => None,
                });
                got.flatten()
                    .unwrap_or_else(|| prev.cloned().unwrap_or(Compared { rows: Vec::new(), signal: 0.0, finite: 0 }))
            }
        });

        let run_pending = Memo::new(move |_| {
            off_page.get().is_some_and(|serial| {
                let ask = run_ask(&current.get(), &setting.get());
                offload.with_answer(serial, &ask, |_| ()).is_none()
            })
        });
        let formats_pending = Memo::new(move |_| {
            off_page.get().is_some_and(|serial| {
                let ask = slots.with(|slots| compare_ask(slots, &setting.get()));
                offload.with_answer(serial, &ask, |_| ()).is_none()
            })
        });

        let theme = RwSignal::new(ThemeChoice::System);
        let dark = Signal::derive(move || match theme.get() {
            ThemeChoice::System => system_dark.get(),
            ThemeChoice::Light => false,
            ThemeChoice::Dark => true,
        });
        Model {
            state,
            slots,
            selected,
            current,
            x,
            mode,
            seed,
            sample_spec,
            loaded,
            tensor,
            shape,
            channel,
            hide,
            evaluated,
            curves,
            chosen,
            run,
            block,
            formats,
            off_page,
            offload,
            run_pending,
            formats_pending,
            hover: RwSignal::new(None),
            probe: RwSignal::new(DEFAULT_PROBE),
            theme,
            dark,
            presenter,
            notices: RwSignal::new(Vec::new()),
            control_error: RwSignal::new(None),
            spec_error: RwSignal::new(None),
            eval_ms,
            draw_ms: RwSignal::new(0.0),
        }
    }

    /// How the canvases and colour swatches look now. Tracks the theme only: a presenter toggle
    /// relays the page out (a window `resize`), which redraws every canvas.
    pub fn look(self) -> Look {
        Look { dark: self.dark.get(), presenter: self.presenter.get_untracked() }
    }

    /// [`Model::look`] without tracking anything (for an event handler or an export).
    pub fn look_untracked(self) -> Look {
        Look { dark: self.dark.get_untracked(), presenter: self.presenter.get_untracked() }
    }

    /// The user's tensor while it is the sample.
    pub fn active_tensor(&self) -> Option<Loaded> {
        self.tensor.get().and_then(|_| self.loaded.get())
    }

    /// What the sample is, in words: the user's tensor (file, name, shape, dtype), or the
    /// synthetic sample and its seed.
    pub fn sample_about(&self) -> String {
        match self.active_tensor() {
            Some(t) => t.describe(),
            None => self.state.with(|s| format!("{}, seed {}", s.sample.describe(super::figure::fmt_number), s.seed)),
        }
    }

    /// Changes the state (one notification, however much changes).
    pub fn update(&self, f: impl FnOnce(&mut State)) {
        self.state.update(f);
    }

    /// Replaces the selected quantizer, clearing the messages about the last refused edit.
    pub fn set_current(&self, q: Quantizer) {
        self.control_error.set(None);
        self.spec_error.set(None);
        if self.current.with_untracked(|c| *c != q) {
            self.update(|s| s.set_selected(q));
        }
    }

    /// Selects slot `i`, clearing messages that were about the previous one.
    pub fn select(&self, i: usize) {
        self.control_error.set(None);
        self.spec_error.set(None);
        if self.selected.get_untracked() != i {
            self.update(|s| s.select(i));
        }
    }

    /// Whether a link hides the control or section `name`.
    pub fn hides(&self, name: &'static str) -> Signal<bool> {
        let hide = self.hide;
        Signal::derive(move || hide.with(|h| h.iter().any(|n| n == name)))
    }

    /// The x the readout and the Explain panel use: the hovered one, else the pinned probe.
    pub fn reading_x(&self) -> Signal<f32> {
        let (hover, probe) = (self.hover, self.probe);
        Signal::derive(move || hover.get().unwrap_or_else(|| probe.get()))
    }
}

/// The question whose answer freezes the curve of `inputs`, when it reads the tensor.
fn freeze_ask(inputs: &Inputs, setting: &Setting) -> Option<Ask> {
    inputs.shape.as_ref()?;
    Some(Ask::Freeze {
        spec: inputs.quantizer.to_string(),
        // Only a block format falls back to the sweep's own block (when the tensor lacks the
        // chosen one); any other's numbers do not depend on x.
        x: if inputs.quantizer.block_size().is_some() { inputs.x } else { (0.0, 0.0) },
        training: inputs.training,
        seed: inputs.seed,
        block: inputs.block,
        axis: Some(setting.shape.axis),
        channel: inputs.channel.unwrap_or(0),
    })
}

/// The question whose answer is `q`'s run on the tensor.
fn run_ask(q: &Quantizer, setting: &Setting) -> Ask {
    let per_channel = q.layout() == Layout::Channels && setting.shape.channels() > 1;
    Ask::Run {
        spec: q.to_string(),
        training: setting.training,
        seed: setting.seed,
        axis: Some(setting.shape.axis),
        channel: if per_channel { setting.channel } else { 0 },
    }
}

/// The question whose answer is the comparison of `slots`.
fn compare_ask(slots: &[Slot], setting: &Setting) -> Ask {
    Ask::Compare {
        slots: slots.iter().map(|s| (s.quantizer.to_string(), s.hidden)).collect(),
        training: setting.training,
        seed: setting.seed,
        axis: Some(setting.shape.axis),
    }
}
