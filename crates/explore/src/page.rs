//! The page's own hash keys, around a view's: which lesson and step is open, and the display
//! modes. A view (the explorer's [`State`](super::state::State), the trainer's
//! [`TrainParams`](super::train::TrainParams)) never sees them, so its hash stays a plain link:
//!
//! ```text
//! #lesson=ste&step=3&present=1&view=train&dataset=xor&…
//!  └──────── page ──────────┘ └──────── the view's ─────┘
//! ```
//!
//! The keys are [`KEYS`].
//!
//! [`Page::split`] takes them out of a hash and leaves the view's keys in their order;
//! [`Page::compose`] puts them back in front of a view's hash. Bad values are named, as the
//! views do, and take their defaults.

use super::keys::Key;
use super::state::{cap_problems, decode, encode};

/// The most steps a lesson may have (so `step` has a bound before a lesson is read).
pub const MAX_STEPS: usize = 40;

/// The page keys of a hash.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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

/// The page's keys.
pub const KEYS: &[Key] = &[
    Key {
        key: "lesson",
        takes: "a built-in lesson's name, or `~` and the lesson's text packed",
        default: "",
        doc: "the lesson open beside the view",
    },
    Key { key: "step", takes: "1 to 40", default: "1", doc: "the lesson's step" },
    Key { key: "embed", takes: "1 or 0", default: "0", doc: "only the figure, sized to its frame (for an `<iframe>`)" },
    Key {
        key: "present",
        takes: "1 or 0",
        default: "0",
        doc: "presenter mode: large type, thick lines, high contrast",
    },
];

/// Whether `key` is one of the page's.
pub fn is_page_key(key: &str) -> bool {
    KEYS.iter().any(|k| k.key == key)
}

fn flag(key: &str, value: &str, problems: &mut Vec<String>) -> bool {
    super::keys::switch(value).unwrap_or_else(|e| {
        problems.push(format!("{key}={}: {e}", short(value.trim())));
        false
    })
}

fn short(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX { s.to_string() } else { format!("{}…", s.chars().take(MAX).collect::<String>()) }
}

impl Page {
    /// Splits a hash (with or without `#`) into the page keys, the view's own hash (`#…`, its
    /// parts in their order, untouched) and the problems met in the page keys.
    pub fn split(hash: &str) -> (Page, String, Vec<String>) {
        let mut page = Page { step: 1, ..Page::default() };
        let mut problems = Vec::new();
        let mut rest = Vec::new();
        for part in hash.trim_start_matches('#').split('&').filter(|p| !p.is_empty()) {
            let (raw_key, raw_value) = part.split_once('=').unwrap_or((part, ""));
            let key = decode(raw_key).trim().to_ascii_lowercase();
            if !is_page_key(&key) {
                rest.push(part);
                continue;
            }
            let value = decode(raw_value);
            match key.as_str() {
                "lesson" if value.trim().is_empty() => problems.push("lesson= has no value".into()),
                "lesson" => page.lesson = Some(value.trim().to_string()),
                "step" => match value.trim().parse::<usize>() {
                    Ok(k) if (1..=MAX_STEPS).contains(&k) => page.step = k,
                    _ => problems.push(format!("step={}: expected a step number from 1 to {MAX_STEPS}", short(&value))),
                },
                "embed" => page.embed = flag("embed", &value, &mut problems),
                _ => page.present = flag("present", &value, &mut problems),
            }
        }
        cap_problems(&mut problems);
        (page, format!("#{}", rest.join("&")), problems)
    }

    /// The page keys that differ from their defaults, then the view's hash: what
    /// [`Page::split`] reads back as `(self, view_hash)`.
    pub fn compose(&self, view_hash: &str) -> String {
        let mut parts = Vec::new();
        if let Some(lesson) = &self.lesson {
            parts.push(format!("lesson={}", encode(lesson)));
            if self.step != 1 {
                parts.push(format!("step={}", self.step));
            }
        }
        if self.embed {
            parts.push("embed=1".to_string());
        }
        if self.present {
            parts.push("present=1".to_string());
        }
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
