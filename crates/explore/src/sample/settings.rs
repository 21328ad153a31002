//! The sample tensor's settings in one table: each row's hash key, CLI flag, what it takes, its
//! help, and how it reads into and shows from [`Sample`]. The explorer's hash
//! ([`State::parse`](crate::state::State::parse) and
//! [`State::to_hash`](crate::state::State::to_hash)) and the options and `--help` of
//! `qscope compare` all come from it, as the training settings come from
//! [`train::settings`](crate::train::settings).
//!
//! A hash written before a row existed keeps its meaning: every row takes its default when its
//! key is absent, and a row is written only when it differs from its default.

use super::{Dist, SampleSpec};
use crate::state::{MAX_SPREAD, SAMPLE_N, number, shorten};
use crate::train::settings::Bounds;
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

/// One setting of the sample tensor.
pub struct SampleSetting {
    /// Its hash key.
    pub key: &'static str,
    /// Its CLI option.
    pub flag: &'static str,
    /// The option's value in `--help`.
    pub arg: &'static str,
    pub help: &'static str,
    /// Reads a value; the error says what was expected.
    pub read: fn(&mut Sample, &str) -> Result<(), String>,
    /// The value as the hash and the CLI write it.
    pub show: fn(&Sample) -> String,
}

impl SampleSetting {
    /// Whether `s` holds this setting's default (the hash then leaves it out).
    pub fn is_default(&self, s: &Sample) -> bool {
        (self.show)(s) == (self.show)(&Sample::default())
    }
}

/// Every sample setting, in the hash's order.
pub static SETTINGS: [SampleSetting; 3] = [
    SampleSetting {
        key: "sample",
        flag: "--sample",
        arg: "DIST,SPREAD",
        help: "the sample tensor: normal, uniform, laplace or student_t, and its σ, half-width or scale \
               (default normal,0.5)",
        read: read_sample,
        show: |s| format!("{},{}", s.dist.name(), s.spread),
    },
    SampleSetting {
        key: "df",
        flag: "--df",
        arg: "NU",
        help: "Student-t's degrees of freedom, 1 (Cauchy) to 100 (default 3)",
        read: |s, v| DF_RANGE.parse(v).map(|df| s.df = df),
        show: |s| s.df.to_string(),
    },
    SampleSetting {
        key: "outliers",
        flag: "--outliers",
        arg: "P",
        help: "the share of the sample replaced by outliers at ±10 to 20 spreads, 0 to 0.5 (default 0)",
        read: |s, v| OUTLIERS_RANGE.parse(v).map(|p| s.outliers = p),
        show: |s| s.outliers.to_string(),
    },
];

/// The row with hash key `key`.
pub fn setting(key: &str) -> Option<&'static SampleSetting> {
    SETTINGS.iter().find(|s| s.key == key)
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
        format!("unknown distribution '{}'{hint}; expected {} then a spread", shorten(name), names.join(", "))
    })?;
    let spread = match spread {
        None => Sample::default().spread,
        Some(v) => match number(v) {
            Some(v) if v.is_finite() && v > 0.0 && v <= MAX_SPREAD => v,
            _ => return Err(format!("spread '{}': expected a number above 0, at most {MAX_SPREAD}", shorten(v))),
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
        for row in &SETTINGS {
            (row.read)(&mut back, &(row.show)(&s)).unwrap();
        }
        assert_eq!(back, s);
    }

    #[test]
    fn the_defaults_are_default() {
        assert!(SETTINGS.iter().all(|row| row.is_default(&Sample::default())));
        assert!(!setting("df").unwrap().is_default(&Sample { df: 5.0, ..Sample::default() }));
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
