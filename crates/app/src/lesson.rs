//! The lesson player: a lesson (see [`qscope_explore::lesson`]) steps the explorer or the
//! trainer through its states, with a text beside the figure, one highlighted element and a
//! "try it" task ticked live.
//!
//! The open lesson and its step are page keys of the hash (`#lesson=NAME&step=K&…`), held by
//! the app's [`Router`]; the view's own keys follow them. Next and Back write the step's own
//! state and mount the view afresh on it; a reload keeps what the user changed (the hash's view
//! keys win, [`settle`] fills them in only when there are none). Closing drops `lesson` and
//! `step` and leaves the view as it is.
//!
//! - [`Player`] — the context the pieces share: the lesson read from the hash, the step, the
//!   problems to show, what the mounted view shows ([`Seen`]) and the task's tick.
//! - [`bar`] — the lesson bar (title, `K / N`, Back, Next, presenter, close) and the errors;
//! - [`panel`] — the stage: the step's text beside the figure, the task, swipes;
//! - [`open`] — the Lessons menu, opening a file (button or drop), copying the lesson link;
//! - [`highlight`] — the step's outlined element;
//! - [`fit`] — display formulas set smaller until they fit the text column.

mod bar;
mod fit;
mod highlight;
mod open;
mod panel;

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

pub use bar::{LessonBar, LessonErrors};
pub use open::{LessonDrop, LessonMenu};
pub use panel::LessonStage;

use super::route::Router;
use qscope_explore::lesson::task::TrainObservation;
use qscope_explore::lesson::{self, Highlight, Lesson, Step, link};
use qscope_explore::page::Page;
use qscope_explore::state::State;
use qscope_quant::text::shorten;

/// What the mounted view shows, for the task's condition.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Seen {
    #[default]
    Nothing,
    Explorer(State),
    Train(TrainObservation),
}

/// Fills in a lesson step's own state when the hash has no view keys, or when the lesson's
/// place just `moved` (a link to another step); any other hash is shown as it is.
pub fn settle(hash: &str, moved: bool) -> String {
    let (page, view_hash, _) = Page::split(hash);
    let Some(value) = &page.lesson else { return hash.to_string() };
    if !moved && !view_hash.trim_start_matches('#').trim().is_empty() {
        return hash.to_string();
    }
    match lesson::load(value) {
        Ok(l) => {
            let k = page.step.clamp(1, l.steps.len());
            Page { step: k, ..page }.compose(&l.steps[k - 1].hash())
        }
        Err(_) => hash.to_string(),
    }
}

/// The lesson player's state, shared by its pieces (`Copy`, provided as context by the app).
#[derive(Clone, Copy)]
pub struct Player {
    pub router: Router,
    /// The `lesson=` value of the hash.
    value: Memo<Option<String>>,
    /// The lesson it names, or why it cannot be opened (each problem on its own line).
    lesson: Memo<Option<Result<Lesson, Vec<String>>>>,
    /// Problems of a lesson file that did not open: its name and the lines.
    file_errors: RwSignal<Option<(String, Vec<String>)>>,
    /// What the mounted view shows.
    pub seen: RwSignal<Seen>,
    /// Whether the current step's task is met (None: no task).
    pub done: Memo<Option<bool>>,
}

impl Player {
    /// The player of the route's lesson, following ←/→/Esc while the app lives.
    pub fn new(router: Router) -> Player {
        let value = Memo::new(move |_| router.page().lesson);
        let lesson = Memo::new(move |_| {
            value.with(|v| v.as_ref().map(|v| lesson::load(v).map_err(|es| es.iter().map(|e| e.to_string()).collect())))
        });
        let seen = RwSignal::new(Seen::Nothing);
        let step = Memo::new(move |_| {
            let k = router.page().step;
            lesson.with(|l| match l {
                Some(Ok(l)) => l.steps.get(k.clamp(1, l.steps.len()) - 1).cloned(),
                _ => None,
            })
        });
        let done = Memo::new(move |_| {
            step.with(|s| {
                let task = s.as_ref()?.settings.task.as_ref()?;
                Some(seen.with(|seen| match seen {
                    Seen::Explorer(state) => task.done.observe(state).unwrap_or(false),
                    Seen::Train(obs) => task.done.holds(obs),
                    Seen::Nothing => false,
                }))
            })
        });
        let player = Player { router, value, lesson, file_errors: RwSignal::new(None), seen, done };
        // Another lesson in the hash: a file's old problems are no longer the point.
        Effect::new(move |_| {
            value.track();
            player.file_errors.set(None);
        });
        player.follow_keys();
        player
    }

    /// ← Back, → Next, Esc closes (not while typing, nor when a focused element took the key).
    fn follow_keys(self) {
        let handle = window_event_listener(ev::keydown, move |e| {
            if e.default_prevented()
                || e.alt_key()
                || e.ctrl_key()
                || e.meta_key()
                || typing(&e)
                || !self.is_open_untracked()
            {
                return;
            }
            match e.key().as_str() {
                "ArrowRight" => self.next(),
                "ArrowLeft" => self.prev(),
                "Escape" => self.close(),
                _ => return,
            }
            e.prevent_default();
        });
        on_cleanup(move || handle.remove());
    }

    /// Runs `f` on the open lesson (tracked).
    pub fn with<R>(self, f: impl FnOnce(Option<&Lesson>) -> R) -> R {
        self.lesson.with(|l| f(l.as_ref().and_then(|l| l.as_ref().ok())))
    }

    fn with_untracked<R>(self, f: impl FnOnce(Option<&Lesson>) -> R) -> R {
        self.lesson.with_untracked(|l| f(l.as_ref().and_then(|l| l.as_ref().ok())))
    }

    /// Whether a lesson is open (tracked).
    pub fn is_open(self) -> bool {
        self.with(|l| l.is_some())
    }

    fn is_open_untracked(self) -> bool {
        self.with_untracked(|l| l.is_some())
    }

    /// How many steps the open lesson has (0: none open).
    pub fn count(self) -> usize {
        self.with(|l| l.map_or(0, |l| l.steps.len()))
    }

    /// The step shown, from 1 (tracked).
    pub fn step(self) -> usize {
        let k = self.router.page().step;
        k.clamp(1, self.count().max(1))
    }

    /// Runs `f` on the step shown (tracked).
    pub fn with_step<R>(self, f: impl FnOnce(Option<&Step>) -> R) -> R {
        let k = self.step();
        self.with(|l| f(l.and_then(|l| l.steps.get(k - 1))))
    }

    /// The curve the step points at (`highlight=curve:N`), as an index (tracked).
    pub fn emphasis(self) -> Option<usize> {
        self.with_step(|s| match s?.settings.highlight {
            Some(Highlight::Curve(n)) => n.checked_sub(1),
            _ => None,
        })
    }

    /// Shows step `k` (from 1) on its own state.
    pub fn go(self, k: usize) {
        let page = self.router.page_untracked();
        let hash = self.with_untracked(|l| l.and_then(|l| l.steps.get(k.wrapping_sub(1))).map(Step::hash));
        if let Some(hash) = hash {
            self.router.go(Page { step: k, ..page }, &hash);
        }
    }

    pub fn next(self) {
        let k = self.router.page_untracked().step;
        if k < self.with_untracked(|l| l.map_or(0, |l| l.steps.len())) {
            self.go(k + 1);
        }
    }

    pub fn prev(self) {
        let k = self.router.page_untracked().step;
        if k > 1 {
            self.go(k - 1);
        }
    }

    /// Closes the lesson: the view stays as it is, without `lesson` and `step`.
    pub fn close(self) {
        self.router.set_page(self.router.page_untracked().without_lesson());
    }

    /// Opens a lesson's text (a teacher's file): at its first step, the hash carrying the
    /// whole text; or its problems, named after `name`, with the view left as it is.
    pub fn open_text(self, name: &str, text: &str) {
        match Lesson::parse(text) {
            Ok(l) => {
                self.file_errors.set(None);
                let page = Page { lesson: Some(link::encode(text)), step: 1, ..self.router.page_untracked() };
                self.router.go(page, &l.steps[0].hash());
            }
            Err(errors) => {
                self.file_errors.set(Some((name.to_string(), errors.iter().map(|e| e.to_string()).collect())))
            }
        }
    }

    /// Opens a built-in lesson at its first step.
    pub fn open_builtin(self, name: &str) {
        if let Ok(l) = lesson::load(name) {
            self.file_errors.set(None);
            let page = Page { lesson: Some(name.to_string()), step: 1, ..self.router.page_untracked() };
            self.router.go(page, &l.steps[0].hash());
        }
    }

    /// Says why a file could not be read.
    pub fn file_problem(self, name: &str, message: String) {
        self.file_errors.set(Some((name.to_string(), vec![message])));
    }

    /// The problems to show: a file's, then the hash's lesson's. Each is `(what, lines)`.
    pub fn problems(self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = self.file_errors.get().into_iter().collect();
        if let Some(Err(lines)) = self.lesson.get() {
            let what = match self.value.get() {
                Some(v) if link::is_packed(&v) => "The lesson in this link cannot be opened".to_string(),
                Some(v) => format!("The lesson '{}' cannot be opened", shorten(&v, 40)),
                None => String::new(),
            };
            out.push((what, lines));
        }
        out
    }

    /// Hides the problems shown (a link's lesson that cannot open leaves the hash; the view stays).
    pub fn dismiss(self) {
        self.file_errors.set(None);
        if self.lesson.with_untracked(|l| matches!(l, Some(Err(_)))) {
            self.close();
        }
    }

    /// The link that opens the lesson at its first step (the page's address with `#lesson=…`).
    pub fn lesson_link(self) -> Option<String> {
        let value = self.value.get_untracked()?;
        let href = window().location().href().unwrap_or_default();
        let base = href.split('#').next().unwrap_or_default().to_string();
        Some(format!("{base}{}", Page { lesson: Some(value), ..Page::default() }.compose("")))
    }

    /// The explorer's state, shown to the task while the explorer is mounted.
    pub fn watch_explorer(self, state: RwSignal<State>) {
        let wanted = self.wants_seen();
        Effect::new(move |_| {
            if wanted.get() {
                self.seen.set(Seen::Explorer(state.get()));
            }
        });
        on_cleanup(move || {
            self.seen.try_set(Seen::Nothing);
        });
    }

    /// The trainer's latest epoch, shown to the task while the trainer is mounted: `observe`
    /// reads it, tracking what changes it (the trainer's tick).
    pub fn watch_train(self, observe: impl Fn() -> TrainObservation + 'static) {
        let wanted = self.wants_seen();
        Effect::new(move |_| {
            if wanted.get() {
                self.seen.set(Seen::Train(observe()));
            }
        });
        on_cleanup(move || {
            self.seen.try_set(Seen::Nothing);
        });
    }

    /// Whether the current step has a task to tick.
    fn wants_seen(self) -> Memo<bool> {
        Memo::new(move |_| self.with_step(|s| s.is_some_and(|s| s.settings.task.is_some())))
    }
}

/// Whether a key event comes from a field the user types in.
fn typing(e: &web_sys::KeyboardEvent) -> bool {
    let Some(el) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) else { return false };
    matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT") || el.is_content_editable()
}

/// The player of the app (provided by the app before any view mounts).
pub fn player() -> Option<Player> {
    use_context::<Player>()
}
