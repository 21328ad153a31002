//! The Train view: a small MLP with quantized weights and activations trained live beside its
//! float twin (same config and seed, no quantizers), in slices of a few milliseconds per
//! animation frame.
//!
//! State flows as in the explorer: the URL hash ⇄ one [`Params`] signal → the trainers (rebuilt
//! when the architecture changes) → a `tick` bumped after every slice → the panels' drawing
//! effects. [`controls`] is the left column, [`panels`] the middle, [`draw`] the canvases.

mod controls;
mod draw;
mod panels;
pub mod params;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::Closure;

use super::hash::{self, HashBanner};
use crate::nn::{Metrics, Trainer};
pub use params::{Params, is_train};

/// The quantized net and its float twin, trained in lockstep.
pub struct Runs {
    pub q: Trainer,
    pub f: Trainer,
    /// Metrics before the first epoch.
    pub start: (Metrics, Metrics),
}

impl Runs {
    fn new(p: &Params) -> Result<Runs, String> {
        let mut q = Trainer::new(p.config(true)?)?;
        let mut f = Trainer::new(p.config(false)?)?;
        let start = (q.evaluate(), f.evaluate());
        Ok(Runs { q, f, start })
    }

    /// The latest metrics of the quantized net (`float` false) or of the twin.
    pub fn latest(&self, float: bool) -> Metrics {
        let (t, s) = if float { (&self.f, self.start.1) } else { (&self.q, self.start.0) };
        t.history().last().copied().unwrap_or(s)
    }
}

/// Everything the Train view shares, all `Copy`.
#[derive(Clone, Copy)]
pub struct Train {
    pub params: RwSignal<Params>,
    pub runs: StoredValue<Option<Runs>, LocalStorage>,
    /// Bumped after every change to the trainers: the panels redraw on it.
    pub tick: RwSignal<u64>,
    pub playing: RwSignal<bool>,
    pub message: RwSignal<Option<String>>,
    pub notices: RwSignal<Vec<String>>,
    looping: StoredValue<bool>,
    /// Epochs per second of the last second of play.
    pub rate: RwSignal<f64>,
    rate_mark: StoredValue<(f64, usize)>,
}

fn now() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or(0.0)
}

fn reduced_motion() -> bool {
    window().match_media("(prefers-reduced-motion: reduce)").ok().flatten().is_some_and(|m| m.matches())
}

impl Train {
    fn rebuild(self, p: &Params) {
        match Runs::new(p) {
            Ok(r) => {
                self.runs.set_value(Some(r));
                self.message.set(None);
            }
            Err(e) => {
                self.runs.set_value(None);
                self.playing.set(false);
                self.message.set(Some(format!("cannot train: {e}")));
            }
        }
        self.tick.update(|t| *t += 1);
    }

    fn stop(self, why: String) {
        self.playing.set(false);
        self.message.set(Some(why));
    }

    /// One epoch of both nets.
    pub fn step(self) {
        let result = self.runs.try_update_value(|r| match r {
            Some(r) => r.q.step_epoch().and(r.f.step_epoch()).map(|_| ()),
            None => Ok(()),
        });
        if let Some(Err(e)) = result {
            self.stop(format!("paused: {e}"));
        }
        self.tick.update(|t| *t += 1);
    }

    /// Trains for about `budget` ms, a few steps at a time.
    fn slice(self, budget: f64) {
        let start = now();
        let result = self.runs.try_update_value(|r| -> Result<(), String> {
            let Some(r) = r else { return Ok(()) };
            let chunk = r.q.config().batch.clamp(1, 250).max(1);
            let chunk = (250 / chunk).clamp(1, 25);
            loop {
                r.q.steps(chunk)?;
                r.f.steps(chunk)?;
                if now() - start > budget {
                    return Ok(());
                }
            }
        });
        if let Some(Err(e)) = result {
            self.stop(format!("paused — the quantized net or its twin diverged: {e}"));
        }
        self.tick.update(|t| *t += 1);
        let epoch = self.runs.with_value(|r| r.as_ref().map_or(0, |r| r.q.epoch()));
        let (t0, e0) = self.rate_mark.get_value();
        let t = now();
        if t - t0 >= 1000.0 {
            if t0 > 0.0 && epoch >= e0 {
                self.rate.set((epoch - e0) as f64 * 1000.0 / (t - t0));
            }
            self.rate_mark.set_value((t, epoch));
        }
    }

    /// The animation-frame loop: one slice per frame while playing (a single loop at most).
    fn frame(self, last: f64) {
        if !self.playing.get_untracked() {
            self.looping.set_value(false);
            return;
        }
        // ~10 ms of training leaves room for drawing within a 30 fps frame; less if frames are slow.
        let gap = now() - last;
        let budget = if gap > 40.0 { 6.0 } else { 10.0 };
        let t = now();
        self.slice(budget);
        request_animation_frame(move || self.frame(t));
    }

    fn start_loop(self) {
        if !self.looping.get_value() {
            self.looping.set_value(true);
            self.rate_mark.set_value((0.0, 0));
            let t = now();
            request_animation_frame(move || self.frame(t));
        }
    }
}

/// Pauses when the tab is hidden.
fn pause_when_hidden(train: Train) {
    let on_change = Closure::<dyn Fn()>::new(move || {
        if document().hidden() && train.playing.get_untracked() {
            train.stop("paused while the tab was hidden".into());
        }
    });
    let _ = document().add_event_listener_with_callback("visibilitychange", on_change.as_ref().unchecked_ref());
    // The listener lives as long as the page.
    on_change.forget();
}

#[component]
pub fn TrainView() -> impl IntoView {
    let (initial, problems) = Params::parse(&hash::current());
    let autoplay = initial.play && !reduced_motion();
    let train = Train {
        params: RwSignal::new(Params { play: autoplay, ..initial }),
        runs: StoredValue::new_local(None),
        tick: RwSignal::new(0),
        playing: RwSignal::new(false),
        message: RwSignal::new(None),
        notices: RwSignal::new(problems),
        looping: StoredValue::new(false),
        rate: RwSignal::new(0.0),
        rate_mark: StoredValue::new((0.0, 0)),
    };
    // The architecture: everything but `play`; a change rebuilds both trainers.
    let arch = Memo::new(move |_| Params { play: false, ..train.params.get() });
    Effect::new(move |_| arch.with(|p| train.rebuild(p)));
    Effect::new(move |_| {
        let playing = train.playing.get();
        train.params.update(|p| p.play = playing);
        if playing {
            train.message.set(None);
            train.start_loop();
        }
    });
    Effect::new(move |_| {
        let hash = train.params.with(Params::to_hash);
        if hash::current() != hash
            && let Ok(history) = window().history()
        {
            let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&hash));
        }
    });
    if autoplay {
        train.playing.set(true);
    }
    // A hand-edited link: the Train view reads it, any other view reloads the page.
    let handle = window_event_listener(leptos::ev::hashchange, move |_| {
        let hash = hash::current();
        if !is_train(&hash) {
            let _ = window().location().reload();
        } else if train.params.with_untracked(Params::to_hash) != hash {
            let (params, problems) = Params::parse(&hash);
            let play = params.play && !reduced_motion();
            train.playing.set(false);
            train.notices.set(problems);
            train.params.set(Params { play, ..params });
            train.playing.set(play);
        }
    });
    // The listener lives as long as the page.
    std::mem::forget(handle);
    pause_when_hidden(train);
    view! {
        <HashBanner notices=train.notices />
        <main class="explorer train-view">
            <div class="column left">
                <controls::Controls train=train />
            </div>
            <div class="column middle train-middle card">
                <panels::Toolbar train=train />
                <panels::Boundaries train=train />
                <panels::Curves train=train />
                <panels::Histograms train=train />
            </div>
        </main>
    }
}
