//! The explorer's reactive model: one signal holds the whole [`State`] (what a link restores);
//! everything the panels show is derived from it by memos, so each piece recomputes only when
//! its inputs change. A few signals hold what a link does not carry (hover, messages, theme);
//! presenter mode comes in from the app.

use std::sync::Arc;

use leptos::prelude::*;

use super::dom::now_ms;
use super::figure::{Curve, Look};
use qscope_explore::blocks::{self, BlockRow};
use qscope_explore::drawn::run_shaped;
use qscope_explore::figure::{self as evaluation, Evaluated, Selected, Setting};
use qscope_explore::formats::{Row, compare};
use qscope_explore::sample::SampleSpec;
use qscope_explore::state::{Mode, Slot, State};
use qscope_explore::tensor::{Loaded, drawn_channel, sample_shape};
use qscope_quant::Quantizer;
use qscope_quant::shaped::Shape;

/// The selected quantizer on the sample tensor: its outputs and how much they lose.
pub use qscope_explore::drawn::SampleRun;

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
    /// The sample's values: the user's tensor (shared, never copied), or the synthetic sample's.
    pub sample: Memo<Arc<Vec<f32>>>,
    /// The sample's shape and channel axis (the synthetic sample is one channel).
    pub shape: Memo<Shape>,
    /// The channel a per-channel quantizer is drawn for (within the shape's channels).
    pub channel: Memo<usize>,
    pub hide: Memo<Vec<String>>,
    pub evaluated: Memo<Vec<Evaluated>>,
    pub curves: Memo<Vec<Curve>>,
    pub chosen: Memo<Selected>,
    pub sample_run: Memo<SampleRun>,
    /// The sample block block formats are drawn at (`None`: the sweep's own block).
    pub block: Memo<Option<usize>>,
    /// The selected block format's blocks on the sample (empty for any other quantizer).
    pub blocks: Memo<Vec<BlockRow>>,
    /// Every shown quantizer on the sample: bits per element, MSE, SQNR ("which format?").
    pub formats: Memo<Vec<Row>>,
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

        let evaluated = Memo::new(move |prev: Option<&Vec<Evaluated>>| {
            let start = now_ms();
            let (training, seed) = (mode.get().training(), seed.get());
            let setting = Setting {
                x: x.get(),
                training,
                seed,
                sample: sample_spec.get(),
                block: block.get(),
                tensor: tensor.get(),
                shape: shape.get(),
                channel: channel.get(),
            };
            let previous = prev.map_or(&[][..], Vec::as_slice);
            let out =
                slots.with(|slots| sample.with(|values| evaluation::evaluate_all(slots, &setting, values, previous)));
            eval_ms.set(now_ms() - start);
            out
        });
        let curves = Memo::new(move |_| evaluated.with(|ev| slots.with(|slots| evaluation::curves(slots, ev))));
        let chosen = Memo::new(move |_| {
            let i = selected.get();
            evaluated.with(|ev| Selected::of(ev.get(i)))
        });
        let sample_run = Memo::new(move |_| {
            let q = current.get();
            let (training, seed) = (mode.get().training(), seed.get());
            let c = channel.get();
            shape.with(|shape| sample.with(|values| run_shaped(&q, training, seed, values, shape, c)))
        });
        let blocks = Memo::new(move |_| {
            sample_run.with(|run| current.with(|q| sample.with(|values| blocks::rows(q, values, run))))
        });

        let formats = Memo::new(move |_| {
            let (training, seed) = (mode.get().training(), seed.get());
            shape.with(|shape| slots.with(|slots| sample.with(|values| compare(slots, training, seed, values, shape))))
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
            sample,
            shape,
            channel,
            hide,
            evaluated,
            curves,
            chosen,
            sample_run,
            block,
            blocks,
            formats,
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
