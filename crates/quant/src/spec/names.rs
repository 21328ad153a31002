//! Finding a quantizer by the names a user may type (qualified, namespace + alias, bare),
//! and the "did you mean" suggestions for a name or parameter that is not there.

use std::sync::OnceLock;

use super::{SpecError, err};
use crate::catalogue::{ENTRIES, Entry};
use crate::schema::Family;
use crate::text::shorten;

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

/// Every name a user may type, for suggestions (gathered at the first unknown name).
fn all_names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
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
    })
}

fn unknown_name_message(name: &str) -> String {
    match did_you_mean(name, all_names().iter().map(String::as_str)) {
        Some(s) => {
            format!("unknown quantizer '{}'; did you mean '{s}'? (`qscope list` shows them all)", shorten(name, 60))
        }
        None => format!("unknown quantizer '{}' (`qscope list` shows them all)", shorten(name, 60)),
    }
}

pub(super) fn unknown_param_message(entry: &Entry, key: &str) -> String {
    let all: Vec<&str> = entry.params.iter().map(|d| d.name).collect();
    let q = entry.info.qualified();
    if all.is_empty() {
        return format!("{q} takes no parameters, got '{}'", shorten(key, 60));
    }
    let hint = match did_you_mean(key, all.iter().copied()) {
        Some(s) => format!("; did you mean '{s}'?"),
        None => String::new(),
    };
    format!("{q} has no parameter '{}'{hint} (parameters: {})", shorten(key, 60), all.join(", "))
}

/// The closest candidate within a small edit distance (case-insensitive).
pub fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let w = word.to_lowercase();
    let wc: Vec<char> = w.chars().collect();
    let limit = (wc.len() / 3).clamp(1, 3);
    let mut scratch = Scratch::default();
    candidates
        .map(|c| {
            let lc = lowercase(c);
            scratch.b.clear();
            scratch.b.extend(lc.chars());
            // A prefix (`clip` → `clip_value`) counts as close. Lengths further apart than the
            // limit are further apart in edit distance too (a 100 KB word is not compared).
            let d = if w.len() >= 3 && (lc.starts_with(&w) || w.starts_with(&*lc)) {
                1
            } else if scratch.b.len().abs_diff(wc.len()) > limit {
                limit + 1
            } else {
                scratch.distance_within(&wc, limit)
            };
            (d, c)
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// `s.to_lowercase()`, borrowed when it changes nothing (the catalogue's names mostly).
fn lowercase(s: &str) -> std::borrow::Cow<'_, str> {
    if s.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) { s.into() } else { s.to_lowercase().into() }
}

/// A candidate's characters and two rows of the distance table, reused from one candidate to
/// the next (a "did you mean" compares a word with hundreds of names).
#[derive(Default)]
struct Scratch {
    b: Vec<char>,
    prev: Vec<usize>,
    cur: Vec<usize>,
}

impl Scratch {
    /// The edit distance of `a` and `self.b` when it is at most `limit`, else `limit + 1`. Only
    /// the cells within `limit` of the diagonal are computed (a cell further off is further
    /// than `limit` apart), each capped at `limit + 1`, and the count stops at the first row
    /// above the limit everywhere (a row's least value never falls).
    fn distance_within(&mut self, a: &[char], limit: usize) -> usize {
        let (b, prev, cur) = (&self.b, &mut self.prev, &mut self.cur);
        let (m, big) = (b.len(), limit + 1);
        if m == 0 {
            return a.len().min(big);
        }
        prev.clear();
        prev.extend((0..=m).map(|j| j.min(big)));
        cur.clear();
        cur.resize(m + 1, big);
        for (i, &ca) in a.iter().enumerate().map(|(i, c)| (i + 1, c)) {
            let (lo, hi) = (i.saturating_sub(limit).max(1), (i + limit).min(m));
            if lo > hi {
                return big;
            }
            cur[lo - 1] = if lo == 1 { i.min(big) } else { big };
            let mut least = cur[lo - 1];
            for j in lo..=hi {
                let d = (prev[j - 1] + (ca != b[j - 1]) as usize).min(prev[j] + 1).min(cur[j - 1] + 1).min(big);
                cur[j] = d;
                least = least.min(d);
            }
            if hi < m {
                cur[hi + 1] = big;
            }
            if least > limit {
                return big;
            }
            std::mem::swap(prev, cur);
        }
        prev[m]
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::did_you_mean;

    /// The definition: every candidate's full edit distance, lowercased.
    fn did_you_mean_by_full_distances<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
        let w = word.to_lowercase();
        let chars = w.chars().count();
        let limit = (chars / 3).clamp(1, 3);
        candidates
            .iter()
            .map(|&c| {
                let lc = c.to_lowercase();
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn did_you_mean_picks_what_full_edit_distances_pick(
            word in "[a-dA-DÄäß_]{0,12}",
            candidates in proptest::collection::vec("[a-dA-DÄäß_]{0,12}", 0..12),
        ) {
            let c: Vec<&str> = candidates.iter().map(String::as_str).collect();
            prop_assert_eq!(did_you_mean(&word, c.iter().copied()), did_you_mean_by_full_distances(&word, &c));
        }

        #[test]
        fn did_you_mean_picks_what_full_edit_distances_pick_among_the_catalogue(word in "[a-z_0-9.]{0,14}") {
            let names: Vec<&str> = crate::ENTRIES.iter().flat_map(|e| e.params.iter().map(|p| p.name)).collect();
            prop_assert_eq!(did_you_mean(&word, names.iter().copied()), did_you_mean_by_full_distances(&word, &names));
        }
    }
}
