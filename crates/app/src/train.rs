//! The Train view: a small MLP with quantized weights and activations trained live beside its
//! float twin (same config and seed, no quantizers) and, optionally, a third twin with another
//! STE ([`Runs`], UI-free in `explore::runs`), in slices of a few milliseconds per animation
//! frame.
//!
//! State flows as in the explorer: the URL hash ⇄ one [`TrainParams`] signal → the trainers
//! (rebuilt when the architecture changes; quantizers and learning rate are swapped into the
//! running trainers, and the swap is marked on the curves) → a `tick` bumped after every slice
//! → the panels' drawing effects. [`controls`] is the left column, [`panels`] and [`weights`]
//! the middle, [`draw`] and [`draw_weights`] the canvases; [`pace`] trains at a chosen number of
//! epochs per second, [`batch`] walks one batch of training from one weight's side.
//!
//! The view knows nothing of what is around it: the shell passes presenter mode in and shows a
//! lesson's task what the trainer measures ([`Train::observer`]).

mod batch;
mod confusion;
mod controls;
mod csv_input;
mod data;
mod draw;
mod draw_weights;
mod pace;
mod panels;
mod sweep;
mod weights;

use leptos::prelude::*;

use super::dom::listen_while_mounted;
use super::hash::{self, HashBanner};
use qscope_explore::lesson::task::{TrainObservation, weight_levels};
use qscope_explore::pace::{Pace, PaceClock, StepBy};
use qscope_explore::runs::Runs;
use qscope_explore::train::{TrainParams, is_train};

/// Everything the Train view shares, all `Copy`.
#[derive(Clone, Copy)]
pub struct Train {
    pub params: RwSignal<TrainParams>,
    pub runs: StoredValue<Option<Runs>, LocalStorage>,
    /// Bumped after every change to the trainers: the panels redraw on it.
    pub tick: RwSignal<u64>,
    pub playing: RwSignal<bool>,
    pub message: RwSignal<Option<String>>,
    /// Why play stopped by itself (the stop settings), until it plays again.
    pub stopped: RwSignal<Option<String>>,
    /// Loading a table's rows, or why they could not be read.
    pub data: RwSignal<data::DataStatus>,
    pub notices: RwSignal<Vec<String>>,
    /// Show latent (float) weights instead of the quantized ones, on the diagram and histograms.
    pub latent: RwSignal<bool>,
    /// Bumped when the networks (and so the data) are built anew.
    pub built: RwSignal<u64>,
    /// Animation frames trained so far (the heatmaps take turns by it).
    pub frame: StoredValue<u64>,
    looping: StoredValue<bool>,
    /// Epochs per second and frames per second over the last second of play.
    pub rate: RwSignal<(f64, f64)>,
    rate_mark: StoredValue<(f64, usize, u32)>,
    /// Presenter mode (the app's): the canvases draw in its theme and line widths.
    pub presenter: Signal<bool>,
}

fn now() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or(0.0)
}

fn reduced_motion() -> bool {
    window().match_media("(prefers-reduced-motion: reduce)").ok().flatten().is_some_and(|m| m.matches())
}

impl Train {
    fn rebuild(self, p: &TrainParams) {
        self.stopped.set(None);
        if data::wants_rows(p) {
            // The rows are on their way (or the CSV is to be chosen): the data panel says so.
            self.runs.set_value(None);
            self.playing.set(false);
            self.message.set(None);
            self.built.update(|b| *b += 1);
            self.tick.update(|t| *t += 1);
            return;
        }
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
        self.built.update(|b| *b += 1);
        self.tick.update(|t| *t += 1);
    }

    /// Swaps quantizers / learning rate into the running trainers.
    fn apply_live(self, p: &TrainParams) {
        let result = self.runs.try_update_value(|r| r.as_mut().map_or(Ok(()), |r| r.apply_live(p)));
        if let Some(Err(e)) = result {
            self.stop(format!("cannot apply: {e}"));
        }
        self.tick.update(|t| *t += 1);
    }

    /// Ends the epoch's evaluation under way, if any: paused, the page shows the epoch's
    /// numbers (and they are the command's).
    fn settle(self) {
        let evaluating = self.runs.with_value(|r| r.as_ref().is_some_and(|r| r.q.is_evaluating()));
        if evaluating {
            if let Some(Some(Err(e))) = self.runs.try_update_value(|r| r.as_mut().map(Runs::settle)) {
                self.message.set(Some(format!("paused — {e}")));
            }
            self.tick.update(|t| *t += 1);
        }
    }

    fn stop(self, why: String) {
        self.playing.set(false);
        self.message.set(Some(why));
    }

    /// Every network to the end of the epoch, or one batch (as the `stepby` setting says).
    pub fn step(self) {
        let by = self.params.with_untracked(|p| p.stepby);
        let step = move |r: &mut Runs| if by == StepBy::Batch { r.steps(1) } else { r.epoch() };
        let result = self.runs.try_update_value(|r| r.as_mut().map_or(Ok(()), step));
        if let Some(Err(e)) = result {
            self.stop(format!("paused — {e}"));
        }
        self.tick.update(|t| *t += 1);
    }

    /// Trains for about `budget` ms, a few steps at a time.
    fn slice(self, budget: f64) {
        let start = now();
        let stop = self.params.with_untracked(|p| p.stop);
        let result = self.runs.try_update_value(|r| -> Result<Option<String>, String> {
            let Some(r) = r else { return Ok(None) };
            let chunk = r.chunk();
            while now() - start < budget {
                if let (_, Some(why)) = r.work(chunk, &stop)? {
                    return Ok(Some(why));
                }
            }
            Ok(None)
        });
        self.trained(result);
    }

    /// After a frame's training: a pause on an error or a stop setting reached, the turn of
    /// the heatmaps, the redraw.
    fn trained(self, result: Option<Result<Option<String>, String>>) {
        match result {
            Some(Err(e)) => self.stop(format!("paused — {e}")),
            Some(Ok(Some(why))) => {
                self.playing.set(false);
                self.stopped.set(Some(why));
            }
            _ => {}
        }
        self.frame.update_value(|f| *f += 1);
        self.tick.update(|t| *t += 1);
        self.count_rate();
    }

    /// Updates the epochs/s (counted in batches, so fractions count) and frames/s readout once
    /// a second.
    fn count_rate(self) {
        let per_epoch = |r: &Runs| r.q.batches_per_epoch().max(1) as f64;
        let (batches, per_epoch) =
            self.runs.with_value(|r| r.as_ref().map_or((0, 1.0), |r| (r.q.step_count() as usize, per_epoch(r))));
        let (t0, b0, frames) = self.rate_mark.get_value();
        let t = now();
        if t - t0 >= 1000.0 {
            if t0 > 0.0 && batches >= b0 {
                let secs = (t - t0) / 1000.0;
                self.rate.set(((batches - b0) as f64 / per_epoch / secs, frames as f64 / secs));
            }
            self.rate_mark.set_value((t, batches, 1));
        } else {
            self.rate_mark.set_value((t0, b0, frames + 1));
        }
    }

    /// The animation-frame loop: one slice per frame while playing (a single loop at most).
    /// At pace `max` the training budget adapts so that training plus drawing stays within
    /// ~30 ms a frame; at a number of epochs per second, `clock` says how many batches are due.
    fn frame(self, last: f64, budget: f64, mut clock: PaceClock) {
        // A view that went away (its signals disposed) ends the loop.
        if !self.playing.try_get_untracked().unwrap_or(false) {
            self.looping.try_set_value(false);
            return;
        }
        let t = now();
        let gap = t - last;
        let budget = match self.params.with_untracked(|p| p.pace) {
            Pace::Max => {
                let budget = if gap > 34.0 { (budget * 0.8).max(2.0) } else { (budget * 1.05).min(14.0) };
                self.slice(budget);
                budget
            }
            Pace::PerSecond(n) => {
                self.paced(&mut clock, gap, n);
                budget
            }
        };
        request_animation_frame(move || self.frame(t, budget, clock));
    }

    fn start_loop(self) {
        if !self.looping.get_value() {
            self.looping.set_value(true);
            self.rate_mark.set_value((0.0, 0, 0));
            let t = now();
            request_animation_frame(move || self.frame(t, 8.0, PaceClock::default()));
        }
    }
}

/// Pauses when the tab is hidden (while the view is mounted).
fn pause_when_hidden(train: Train) {
    listen_while_mounted(&document(), "visibilitychange", move |_| {
        if document().hidden() && train.playing.get_untracked() {
            train.stop("paused while the tab was hidden".into());
        }
    });
}

/// Reads a hand-edited link while the view is mounted (another view's link: the route mounts it).
fn follow_hash_edits(train: Train) {
    let handle = window_event_listener(leptos::ev::hashchange, move |_| {
        let hash = hash::view_hash();
        if is_train(&hash) && train.params.with_untracked(TrainParams::to_hash) != hash {
            let (params, problems) = TrainParams::parse(&hash);
            let play = params.play && !reduced_motion();
            train.playing.set(false);
            train.notices.set(problems);
            train.params.set(TrainParams { play, ..params });
            train.playing.set(play);
        }
    });
    on_cleanup(move || handle.remove());
}

impl Train {
    /// What the trainer shows as a lesson's task measures it (the latest epoch's metrics): a
    /// closure that tracks every tick and the settings, for whoever watches the trainer.
    pub fn observer(self) -> impl Fn() -> TrainObservation + Copy + 'static {
        let levels = Memo::new(move |_| self.params.with(weight_levels));
        move || {
            self.tick.track();
            self.observe(levels.get())
        }
    }

    /// The latest metrics as the task language measures them.
    fn observe(self, weight_levels: f64) -> TrainObservation {
        self.runs.with_value(|runs| TrainObservation::of(runs.as_ref(), weight_levels))
    }
}

/// The Train view: the trainers read from the hash (playing at once when the link says so), their
/// loop, the hash kept in step and its edits followed while it is mounted. `presenter` is the
/// app's presenter mode; `mounted` is handed the view's [`Train`] once it is made (the shell
/// shows a lesson's task its [`Train::observer`]).
#[component]
pub fn TrainView(presenter: Signal<bool>, mounted: impl FnOnce(Train) + 'static) -> impl IntoView {
    let (initial, train_problems) = TrainParams::parse(&hash::view_hash());
    let problems = [hash::page_problems(), train_problems].concat();
    let autoplay = initial.play && !reduced_motion();
    let train = Train {
        params: RwSignal::new(TrainParams { play: autoplay, ..initial }),
        runs: StoredValue::new_local(None),
        tick: RwSignal::new(0),
        playing: RwSignal::new(false),
        message: RwSignal::new(None),
        stopped: RwSignal::new(None),
        data: RwSignal::new(data::DataStatus::Idle),
        notices: RwSignal::new(problems),
        latent: RwSignal::new(false),
        built: RwSignal::new(0),
        frame: StoredValue::new(0),
        looping: StoredValue::new(false),
        rate: RwSignal::new((0.0, 0.0)),
        rate_mark: StoredValue::new((0.0, 0, 0)),
        presenter,
    };
    // A change of architecture rebuilds the trainers; quantizers and learning rate go into the
    // running ones.
    let arch = Memo::new(move |_| train.params.with(TrainParams::rebuild_key));
    // (Reading the memo, not just tracking it: a memo never read never subscribes to params.)
    Effect::new(move |_| arch.with(|_| train.params.with_untracked(|p| train.rebuild(p))));
    Effect::new(move |_| train.params.with(|p| train.apply_live(p)));
    Effect::new(move |_| {
        let playing = train.playing.get();
        train.params.update(|p| p.play = playing);
        if playing {
            train.message.set(None);
            train.stopped.set(None);
            train.start_loop();
        } else {
            train.settle();
        }
    });
    Effect::new(move |_| hash::write_view(&train.params.with(TrainParams::to_hash)));
    if autoplay {
        train.playing.set(true);
    }
    follow_hash_edits(train);
    pause_when_hidden(train);
    data::fetch_bundled(train);
    mounted(train);
    view! {
        <HashBanner notices=train.notices />
        <main class="explorer train-view">
            <div class="column left">
                <controls::TrainControls train=train />
            </div>
            <div class="column middle train-middle card">
                <panels::Toolbar train=train />
                <panels::Boundaries train=train />
                <panels::Curves train=train />
                <sweep::SweepPanel train=train />
                <weights::Weights train=train />
                <batch::OneBatch train=train />
                <panels::Command train=train />
            </div>
        </main>
    }
}
