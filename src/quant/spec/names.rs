//! Finding a quantizer by the names a user may type (qualified, namespace + alias, bare),
//! and the "did you mean" suggestions for a name or parameter that is not there.

use super::{SpecError, err, short};
use crate::quant::catalogue::{ENTRIES, Entry};
use crate::quant::schema::Family;

/// The entry a name stands for, or an error at `span` that suggests the closest name.
pub(super) fn entry(name: &str, span: (usize, usize)) -> Result<&'static Entry, SpecError> {
    match lookup(name) {
        Some(entry) => Ok(entry),
        None => err(unknown_name_message(name), Some(span)),
    }
}

/// Finds an entry by qualified name, namespace + alias, or bare name.
fn lookup(name: &str) -> Option<&'static Entry> {
    let (ns, bare) = match name.rsplit_once('.') {
        Some((ns, bare)) => (Some(ns), bare),
        None => (None, name),
    };
    let family = match ns {
        Some("lq") => Some(Family::Larq),
        Some(ns) => Family::parse(ns),
        None => None,
    };
    let names = |e: &&Entry| e.info.name == bare || e.info.aliases.contains(&bare);
    match (ns, family) {
        (Some(_), Some(f)) => ENTRIES.iter().filter(|e| e.info.family == f).find(names),
        // A dotted alias such as `torch.fake_quantize`.
        (Some(_), None) => ENTRIES.iter().find(|e| e.info.aliases.contains(&name)),
        // Bare: QKeras first (bare strings come from QKeras configs), then Larq, then beyond.
        (None, _) => ENTRIES.iter().find(names),
    }
}

/// Every name a user may type, for suggestions.
fn all_names() -> Vec<String> {
    let mut v = Vec::new();
    for e in ENTRIES {
        v.push(e.info.qualified());
        v.push(e.info.name.to_string());
        for a in e.info.aliases {
            v.push(a.to_string());
            if !a.contains('.') && e.info.family != Family::Beyond {
                v.push(format!("{}.{a}", e.info.family.namespace()));
            }
        }
    }
    v
}

fn unknown_name_message(name: &str) -> String {
    let names = all_names();
    match did_you_mean(name, names.iter().map(String::as_str)) {
        Some(s) => format!("unknown quantizer '{}'; did you mean '{s}'? (`qscope list` shows them all)", short(name)),
        None => format!("unknown quantizer '{}' (`qscope list` shows them all)", short(name)),
    }
}

pub(super) fn unknown_param_message(entry: &Entry, key: &str) -> String {
    let all: Vec<&str> = entry.params.iter().map(|d| d.name).collect();
    let q = entry.info.qualified();
    if all.is_empty() {
        return format!("{q} takes no parameters, got '{}'", short(key));
    }
    let hint = match did_you_mean(key, all.iter().copied()) {
        Some(s) => format!("; did you mean '{s}'?"),
        None => String::new(),
    };
    format!("{q} has no parameter '{}'{hint} (parameters: {})", short(key), all.join(", "))
}

/// The closest candidate within a small edit distance (case-insensitive).
pub fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let w = word.to_lowercase();
    let chars = w.chars().count();
    let limit = (chars / 3).clamp(1, 3);
    candidates
        .map(|c| {
            let lc = c.to_lowercase();
            // A prefix (`clip` → `clip_value`) counts as close. Lengths further apart than the
            // limit are further apart in edit distance too (a 100 KB word is not compared).
            let d = if w.len() >= 3 && (lc.starts_with(&w) || w.starts_with(&lc)) {
                1
            } else if lc.chars().count().abs_diff(chars) > limit {
                limit + 1
            } else {
                edit_distance(&w, &lc)
            };
            (d, c)
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != *cb) as usize).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
