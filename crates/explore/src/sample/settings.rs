//! The sample tensor's settings, one [`Setting`] each: hash key, CLI flag, what it takes, label
//! and doc, and how it reads into and shows from [`Sample`]. The explorer's hash
//! ([`State::parse`](crate::state::State::parse), [`State::to_hash`](crate::state::State::to_hash)),
//! the sample panel's fields and the options and `--help` of `qscope compare` all come from it.
//!
//! A hash written before a row existed keeps its meaning: every row takes its default when its
//! key is absent, and a row is written only when it differs from its default.

use super::{Dist, MAX_SPREAD, SAMPLE_N, SampleSpec};
use crate::hash::{Bounds, number, quote};
use crate::settings::{Range, Setting, Write, one};
use qscope_nn::named::or_list;
use qscope_quant::spec::did_you_mean;

/// Student-t's degrees of freedom: 1 (Cauchy) to 100 (nearly Gaussian).
pub const DF_RANGE: Bounds<f32> = Bounds { noun: "degrees of freedom", min: 1.0, max: 100.0 };

/// The share of the sample made outliers.
pub const OUTLIERS_RANGE: Bounds<f32> = Bounds { noun: "a share", min: 0.0, max: 0.5 };

/// The sample tensor's shape (its size is [`SAMPLE_N`], its seed the explorer's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub dist: Dist,
    /// σ, half-width, Laplace or Student-t scale: finite, `0 < spread ≤ MAX_SPREAD`.
    pub spread: f32,
    /// Student-t's degrees of freedom, within [`DF_RANGE`].
    pub df: f32,
    /// The share of elements replaced by outliers, within [`OUTLIERS_RANGE`].
    pub outliers: f32,
}

impl Default for Sample {
    fn default() -> Self {
        let d = SampleSpec::default();
        Sample { dist: d.dist, spread: d.spread, df: d.df, outliers: d.outliers }
    }
}

impl Sample {
    /// The tensor of this shape drawn with `seed`.
    pub fn spec(&self, seed: u64) -> SampleSpec {
        let Sample { dist, spread, df, outliers } = *self;
        SampleSpec { dist, spread, df, outliers, n: SAMPLE_N, seed }
    }

    /// In words: `1000 × student_t (scale s 0.5, ν 3), 1 % outliers`.
    pub fn describe(&self, fmt: impl Fn(f64) -> String) -> String {
        let mut text =
            format!("{SAMPLE_N} × {} ({} {}", self.dist.name(), self.dist.spread_name(), fmt(self.spread as f64));
        if self.dist == Dist::StudentT {
            text += &format!(", ν {}", fmt(self.df as f64));
        }
        text.push(')');
        if self.outliers > 0.0 {
            text += &format!(", {} % outliers", fmt((self.outliers * 100.0) as f64));
        }
        text
    }
}

pub static SAMPLE: Setting<Sample> = Setting {
    key: Some("sample"),
    flag: Some("--sample"),
    arg: "DIST,SPREAD",
    range: Range::Words(|| {
        let names: Vec<&str> = Dist::ALL.iter().map(|d| d.name()).collect();
        format!("`dist,spread`: {}, then its σ, half-width or scale (above 0, at most {MAX_SPREAD})", or_list(&names))
    }),
    label: "distribution",
    doc: "the sample tensor: its distribution and spread",
    write: Write::Changed,
    read: read_sample,
    show: |s| one(format!("{},{}", s.dist.name(), s.spread)),
};

pub static DF: Setting<Sample> = Setting {
    key: Some("df"),
    flag: Some("--df"),
    arg: "NU",
    range: Range::Real(DF_RANGE),
    label: "degrees of freedom ν",
    doc: "Student-t's degrees of freedom (1 is Cauchy)",
    write: Write::Changed,
    read: |s, v| DF_RANGE.parse(v).map(|df| s.df = df),
    show: |s| one(s.df),
};

pub static OUTLIERS: Setting<Sample> = Setting {
    key: Some("outliers"),
    flag: Some("--outliers"),
    arg: "P",
    range: Range::Real(OUTLIERS_RANGE),
    label: "outliers (share)",
    doc: "the share of the sample replaced by outliers at ±10 to 20 spreads",
    write: Write::Changed,
    read: |s, v| OUTLIERS_RANGE.parse(v).map(|p| s.outliers = p),
    show: |s| one(s.outliers),
};

/// Every sample setting, in the hash's order.
pub static SETTINGS: [&Setting<Sample>; 3] = [&SAMPLE, &DF, &OUTLIERS];

/// The row with hash key `key`.
pub fn setting(key: &str) -> Option<&'static Setting<Sample>> {
    crate::settings::by_key(&SETTINGS, key)
}

/// `dist` or `dist,spread` (the spread keeps its default when left out).
fn read_sample(sample: &mut Sample, s: &str) -> Result<(), String> {
    let (name, spread) = match s.split_once(',') {
        Some((n, v)) => (n.trim(), Some(v)),
        None => (s.trim(), None),
    };
    let alias = |d: Dist| d.name().eq_ignore_ascii_case(name) || (d == Dist::StudentT && name == "t");
    let dist = Dist::ALL.into_iter().find(|&d| alias(d)).ok_or_else(|| {
        let names: Vec<&str> = Dist::ALL.iter().map(|d| d.name()).collect();
        let hint =
            did_you_mean(name, names.iter().copied()).map(|d| format!(" (did you mean '{d}'?)")).unwrap_or_default();
        format!("unknown distribution '{}'{hint}; expected {} then a spread", quote(name), names.join(", "))
    })?;
    let spread = match spread {
        None => Sample::default().spread,
        Some(v) => match number(v) {
            Some(v) if v.is_finite() && v > 0.0 && v <= MAX_SPREAD => v,
            _ => return Err(format!("spread '{}': expected a number above 0, at most {MAX_SPREAD}", quote(v))),
        },
    };
    sample.dist = dist;
    sample.spread = spread;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(key: &str, value: &str) -> Result<Sample, String> {
        let mut s = Sample::default();
        (setting(key).unwrap().read)(&mut s, value).map(|()| s)
    }

    #[test]
    fn each_setting_reads_back_what_it_shows() {
        let s = Sample { dist: Dist::StudentT, spread: 0.25, df: 4.5, outliers: 0.02 };
        let mut back = Sample::default();
        for row in SETTINGS {
            (row.read)(&mut back, &(row.show)(&s)[0]).unwrap();
        }
        assert_eq!(back, s);
    }

    #[test]
    fn only_what_differs_from_the_default_is_written() {
        let d = Sample::default();
        assert!(SETTINGS.iter().all(|row| row.parts(&d, &d).is_empty()));
        assert_eq!(DF.parts(&Sample { df: 5.0, ..d }, &d), ["df=5"]);
    }

    #[test]
    fn student_t_is_also_called_t_and_bad_values_are_named() {
        assert_eq!(read("sample", "t,2").unwrap().dist, Dist::StudentT);
        assert_eq!(read("df", "0.5").unwrap_err(), "expected degrees of freedom from 1 to 100");
        assert_eq!(read("outliers", "0.6").unwrap_err(), "expected a share from 0 to 0.5");
        assert!(read("sample", "studentt").unwrap_err().contains("did you mean 'student_t'"));
    }

    #[test]
    fn the_description_names_what_differs_from_a_plain_draw() {
        let fmt = |v: f64| v.to_string();
        assert_eq!(Sample::default().describe(fmt), "1000 × normal (σ 0.5)");
        let t = Sample { dist: Dist::StudentT, df: 3.0, outliers: 0.01, ..Sample::default() };
        assert_eq!(t.describe(fmt), "1000 × student_t (scale s 0.5, ν 3), 1 % outliers");
    }
}
