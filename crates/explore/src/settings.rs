//! One table per set of settings, as burn's config structs: each row a [`Setting`] declaring a
//! key once — its hash key, its CLI flag, what it takes, its label and one line of doc, how it
//! reads into its struct and shows from it. The struct's `Default` is the default. The row
//! drives the hash's parsing and printing ([`read_hash`], [`Setting::parts`]), the banners'
//! messages, the page's control labels and limits, the CLI's options and `--help`
//! ([`Setting::cli_help`], [`Setting::cli_error`]), the lesson checks (which parse links with
//! the same tables) and the book's table of keys ([`markdown_table`]).
//!
//! The tables: the page's ([`page::SETTINGS`](crate::page::SETTINGS)), the explorer's
//! ([`state::SETTINGS`](crate::state::SETTINGS)), the sample tensor's
//! ([`sample::settings::SETTINGS`](crate::sample::settings::SETTINGS)) and the trainer's
//! ([`train::settings::SETTINGS`](crate::train::settings::SETTINGS)).

use crate::hash::{Bounds, Part, encode, no_value, quote, unknown_key};

/// What a setting takes: the words `--help` and the book show, how a list is split, and how the
/// CLI words a bad value (a hash always says `key=value: problem`).
#[derive(Clone, Copy, Debug)]
pub enum Range {
    Real(Bounds<f32>),
    Count(Bounds<usize>),
    /// Any whole number from 0 (a seed).
    Whole,
    /// One of a list of names: what one is called, and the list (`sgd or adam`).
    Choice {
        what: &'static str,
        names: fn() -> String,
    },
    /// A quantizer spec; empty is float.
    Spec,
    /// On or off ([`switch`](crate::hash::switch)); on the CLI, given or not.
    Switch,
    /// Anything else, in words (a function: the words may name a limit).
    Words(fn() -> String),
    /// In words, and its parser's messages name the value already (an activation).
    Named(fn() -> String),
    /// Comma-separated items, each read on its own, so a bad one is named alone.
    Items(fn() -> String),
}

impl Range {
    /// What it takes, as `--help` and the book say it.
    pub fn describe(&self) -> String {
        match self {
            Range::Real(b) => b.describe(),
            Range::Count(b) => b.describe(),
            Range::Whole => "a whole number from 0".into(),
            Range::Choice { names, .. } => names(),
            Range::Spec => "a quantizer SPEC, '' for float".into(),
            Range::Switch => "1 or 0".into(),
            Range::Words(words) | Range::Named(words) | Range::Items(words) => words(),
        }
    }
}

/// When the hash writes a setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    /// When it differs from the default.
    Changed,
    /// Always: a link must not depend on the defaults of the day.
    Always,
    /// Never: a key older links used, still read (`infer=1`), not listed in the book.
    Never,
}

/// One setting of a struct `T` (the explorer's `State`, the sample's `Sample`, the trainer's
/// `TrainParams`, the page's `Page`).
pub struct Setting<T: 'static> {
    /// Its hash key; None: the CLI's only.
    pub key: Option<&'static str>,
    /// Its CLI option; None: the page's only.
    pub flag: Option<&'static str>,
    /// The value's name in `--help` (`X`, `N`, `SPEC`); a switch has none.
    pub arg: &'static str,
    pub range: Range,
    /// Its control's label on the page (lower case).
    pub label: &'static str,
    /// One line of meaning.
    pub doc: &'static str,
    pub write: Write,
    /// Reads a value (one item of an [`Range::Items`] list); the error says what was expected.
    pub read: fn(&mut T, &str) -> Result<(), String>,
    /// The values the hash and the CLI write: one for most settings, none when it is unset
    /// (no pin), several for a repeated key (`q`).
    pub show: fn(&T) -> Vec<String>,
}

/// One value to [`Setting::show`].
pub fn one(value: impl ToString) -> Vec<String> {
    vec![value.to_string()]
}

/// A switch's value to [`Setting::show`].
pub fn on_off(on: bool) -> Vec<String> {
    one(if on { "1" } else { "0" })
}

impl<T> Setting<T> {
    /// The key, or "" for the CLI's only.
    pub fn name(&self) -> &'static str {
        self.key.unwrap_or_default()
    }

    /// Its value as one text: the values it shows, joined by commas.
    pub fn value(&self, t: &T) -> String {
        (self.show)(t).join(",")
    }

    /// Reads `value` into `t`, each item of a list on its own; each problem as the hash names it:
    /// `key=value: expected …`.
    pub fn apply(&self, t: &mut T, value: &str, problems: &mut Vec<String>) {
        for v in self.items(value) {
            if let Err(e) = (self.read)(t, v) {
                problems.push(format!("{}={}: {e}", self.name(), quote(v)));
            }
        }
    }

    /// What `read` takes of `value`: each item of an [`Range::Items`] list, else the whole value.
    fn items<'a>(&self, value: &'a str) -> Vec<&'a str> {
        match self.range {
            Range::Items(_) => value.split(',').map(str::trim).filter(|v| !v.is_empty()).collect(),
            _ => vec![value],
        }
    }

    /// Its values as `key=value` parts of a hash (encoded): when it differs from `default`, or
    /// always, or never.
    pub fn parts(&self, t: &T, default: &T) -> Vec<String> {
        let (Some(key), values) = (self.key, (self.show)(t)) else { return Vec::new() };
        let written = match self.write {
            Write::Always => true,
            Write::Changed => values != (self.show)(default),
            Write::Never => false,
        };
        if !written {
            return Vec::new();
        }
        values.iter().map(|v| format!("{key}={}", encode(v))).collect()
    }

    /// Its default as the book and `--help` show it (`none` when unset or empty).
    pub fn shown_default(&self, default: &T) -> String {
        match self.value(default) {
            d if d.is_empty() => "none".into(),
            d => d,
        }
    }

    /// Its `--help` line's text: `learning rate [0.00001 to 10] (default 0.03)`; a switch's
    /// is its doc.
    pub fn cli_help(&self, defaults: &T) -> String {
        match self.range {
            Range::Switch => self.doc.to_string(),
            Range::Spec if self.value(defaults).is_empty() => {
                format!("{} [{}] (default float)", self.doc, self.range.describe())
            }
            _ => format!("{} [{}] (default {})", self.doc, self.range.describe(), self.shown_default(defaults)),
        }
    }

    /// The CLI's message for `flag value` failing with `e`.
    pub fn cli_error(&self, value: &str, e: &str) -> String {
        let (flag, value) = (self.flag.unwrap_or_default(), quote(value));
        match self.range {
            Range::Choice { what, .. } => format!("unknown {what} '{value}'; {e}"),
            Range::Spec => format!("{flag}: {e}"),
            Range::Named(_) => e.to_string(),
            _ => format!("{flag} {value}: {e}"),
        }
    }

    /// Reads a CLI option's value; the error is worded for the CLI.
    pub fn read_flag(&self, t: &mut T, value: &str) -> Result<(), String> {
        self.items(value).into_iter().try_for_each(|v| (self.read)(t, v).map_err(|e| self.cli_error(v, &e)))
    }

    /// `--flag value` for a shell (a switch: the flag alone when on, else nothing).
    pub fn cli_arg(&self, t: &T) -> String {
        let (flag, value) = (self.flag.unwrap_or_default(), self.value(t));
        match self.range {
            Range::Switch if value == "1" => flag.to_string(),
            Range::Switch => String::new(),
            _ => format!("{flag} {}", shell_word(&value)),
        }
    }
}

/// A quoted word for a POSIX shell: bare when safe, else in single quotes.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.,/=:".contains(&b)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The row of `table` with hash key `key`.
pub fn by_key<T>(table: &'static [&'static Setting<T>], key: &str) -> Option<&'static Setting<T>> {
    table.iter().copied().find(|s| s.key == Some(key))
}

/// The row of `table` with CLI option `flag`.
pub fn by_flag<T>(table: &'static [&'static Setting<T>], flag: &str) -> Option<&'static Setting<T>> {
    table.iter().copied().find(|s| s.flag == Some(flag))
}

/// The hash keys of `table` that the book lists (not the CLI's only, not an old link's).
pub fn keys<T>(table: &[&Setting<T>]) -> impl Iterator<Item = &'static str> {
    table.iter().filter(|s| s.write != Write::Never).filter_map(|s| s.key)
}

/// Reads the parts of a hash: `apply` reads a known key's value (`known`); a part without a
/// value or with an unknown key is named, the key list taken from `keys`.
pub fn read_hash<'a, T>(
    parts: impl IntoIterator<Item = Part<'a>>,
    t: &mut T,
    known: impl Fn(&str) -> bool,
    mut apply: impl FnMut(&mut T, &str, &str, &mut Vec<String>),
    keys: &[&str],
    problems: &mut Vec<String>,
) {
    for part in parts {
        match part.value {
            _ if !known(&part.key) => problems.push(unknown_key(&part.key, keys)),
            Some(value) => apply(t, &part.key, &value, problems),
            None => problems.push(no_value(&part.key)),
        }
    }
}

/// The book's table of a settings table: key, what it takes, default, meaning.
pub fn markdown_table<T>(table: &[&Setting<T>], default: &T, note: impl Fn(&Setting<T>) -> String) -> String {
    let cell = |text: &str| text.replace('|', "\\|");
    let mut out = String::from("| key | takes | default | meaning |\n|---|---|---|---|\n");
    for s in table.iter().filter(|s| s.write != Write::Never) {
        let Some(key) = s.key else { continue };
        // Code that may break after a comma (a long spec would widen its column).
        let default = match s.shown_default(default) {
            d if d == "none" => d,
            d => {
                let html = d.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
                format!("<code>{}</code>", cell(&html).replace(',', ",<wbr>"))
            }
        };
        let takes = cell(&s.range.describe());
        out += &format!("| `{key}`{} | {takes} | {default} | {} |\n", note(s), cell(s.doc));
    }
    out
}
