//! The page's own hash keys, around a view's: which lesson and step is open, and the display
//! modes. A view (the explorer's [`State`](super::state::State), the trainer's
//! [`TrainParams`](super::train::TrainParams)) never sees them, so its hash stays a plain link:
//!
//! ```text
//! #lesson=ste&step=3&present=1&view=train&dataset=xor&…
//!  └──────── page ──────────┘ └──────── the view's ─────┘
//! ```
//!
//! The keys are [`SETTINGS`].
//!
//! [`Page::split`] takes them out of a hash and leaves the view's keys in their order;
//! [`Page::compose`] puts them back in front of a view's hash. Bad values are named, as the
//! views do, and take their defaults.

use crate::hash::{cap_problems, parts, switch};
use crate::settings::{Range, Setting, Write, keys, on_off, one, read_hash};

/// The most steps a lesson may have (so `step` has a bound before a lesson is read).
pub const MAX_STEPS: usize = 40;

/// The page keys of a hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// `lesson=` as written (decoded): a built-in name or `~` + packed text.
    pub lesson: Option<String>,
    /// The lesson's step, from 1.
    pub step: usize,
    pub embed: bool,
    pub present: bool,
}

/// Which view a hash opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Explorer,
    Train,
}

impl View {
    /// The view a view's hash asks for (`view=train` opens the trainer).
    pub fn of(view_hash: &str) -> View {
        if super::train::is_train(view_hash) { View::Train } else { View::Explorer }
    }
}

impl Default for Page {
    /// No lesson, step 1, neither embedded nor presenting.
    fn default() -> Page {
        Page { lesson: None, step: 1, embed: false, present: false }
    }
}

pub static LESSON: Setting<Page> = Setting {
    key: Some("lesson"),
    flag: None,
    arg: "NAME",
    range: Range::Words(|| "a built-in lesson's name, or `~` and the lesson's text packed".into()),
    label: "lesson",
    doc: "the lesson open beside the view",
    write: Write::Changed,
    read: |p, v| match v.trim() {
        "" => Err("expected a lesson's name".into()),
        name => {
            p.lesson = Some(name.to_string());
            Ok(())
        }
    },
    show: |p| p.lesson.iter().cloned().collect(),
};

pub static STEP: Setting<Page> = Setting {
    key: Some("step"),
    flag: None,
    arg: "N",
    range: Range::Words(|| format!("1 to {MAX_STEPS}")),
    label: "step",
    doc: "the lesson's step",
    write: Write::Changed,
    read: |p, v| {
        let k = v.trim().parse::<usize>().ok().filter(|k| (1..=MAX_STEPS).contains(k));
        k.map(|k| p.step = k).ok_or_else(|| format!("expected a step number from 1 to {MAX_STEPS}"))
    },
    // Without a lesson, no step.
    show: |p| if p.lesson.is_some() { one(p.step) } else { one(1) },
};

pub static EMBED: Setting<Page> = Setting {
    key: Some("embed"),
    flag: None,
    arg: "",
    range: Range::Switch,
    label: "embed",
    doc: "only the figure, sized to its frame (for an `<iframe>`)",
    write: Write::Changed,
    read: |p, v| switch(v).map(|on| p.embed = on),
    show: |p| on_off(p.embed),
};

pub static PRESENT: Setting<Page> = Setting {
    key: Some("present"),
    flag: None,
    arg: "",
    range: Range::Switch,
    label: "presenter mode",
    doc: "presenter mode: large type, thick lines, high contrast",
    write: Write::Changed,
    read: |p, v| switch(v).map(|on| p.present = on),
    show: |p| on_off(p.present),
};

/// The page's settings, in the hash's order.
pub static SETTINGS: [&Setting<Page>; 4] = [&LESSON, &STEP, &EMBED, &PRESENT];

/// The page's row with hash key `key`.
pub fn setting(key: &str) -> Option<&'static Setting<Page>> {
    crate::settings::by_key(&SETTINGS, key)
}

/// Whether `key` is one of the page's.
pub fn is_page_key(key: &str) -> bool {
    setting(key).is_some()
}

impl Page {
    /// Splits a hash (with or without `#`) into the page keys, the view's own hash (`#…`, its
    /// parts in their order, untouched) and the problems met in the page keys.
    pub fn split(hash: &str) -> (Page, String, Vec<String>) {
        let mut page = Page::default();
        let mut problems = Vec::new();
        let (ours, rest): (Vec<_>, Vec<_>) = parts(hash).partition(|p| is_page_key(&p.key));
        let apply = |page: &mut Page, key: &str, value: &str, problems: &mut Vec<String>| {
            setting(key).into_iter().for_each(|row| row.apply(page, value, problems))
        };
        let names: Vec<&str> = keys(&SETTINGS).collect();
        read_hash(ours, &mut page, is_page_key, apply, &names, &mut problems);
        cap_problems(&mut problems);
        let rest: Vec<&str> = rest.iter().map(|p| p.raw).collect();
        (page, format!("#{}", rest.join("&")), problems)
    }

    /// The page keys that differ from their defaults, then the view's hash: what
    /// [`Page::split`] reads back as `(self, view_hash)`.
    pub fn compose(&self, view_hash: &str) -> String {
        let default = Page::default();
        let mut parts: Vec<String> = SETTINGS.iter().flat_map(|row| row.parts(self, &default)).collect();
        let view = view_hash.trim_start_matches('#');
        if !view.is_empty() {
            parts.push(view.to_string());
        }
        format!("#{}", parts.join("&"))
    }

    /// The same page without its lesson (closing a lesson keeps the view and the modes).
    pub fn without_lesson(&self) -> Page {
        Page { lesson: None, step: 1, ..self.clone() }
    }
}
