//! Sliders for numbers, without the widgets: the range a slider spans (the schema's, or a
//! window around the default when that is too wide to drag), where a value sits on it and
//! back — linearly in round steps, or on a log scale to three significant digits — and the
//! text a number field shows. The parameter controls and the sample tensor's spread slider
//! use the same mapping.

use qscope_quant::Literal;

/// A number as a literal's value, if it is one.
pub fn number(lit: &Literal) -> Option<f64> {
    match lit {
        Literal::Int(v) => Some(*v as f64),
        Literal::Float(v) => Some(*v),
        _ => None,
    }
}

/// A number as typed in a field: short, exact enough to read back.
pub fn show(v: f64) -> String {
    if v != 0.0 && !(1e-4..1e6).contains(&v.abs()) { format!("{v:e}") } else { format!("{v}") }
}

/// What a field shows for a literal (empty for None or a string).
pub fn field_text(lit: &Literal) -> String {
    number(lit).map(show).unwrap_or_default()
}

/// `v` rounded to 3 significant digits (log sliders give round numbers).
pub fn significant(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let p = 10f64.powi(2 - v.abs().log10().floor() as i32);
    (v * p).round() / p
}

/// A slider step of about a 200th of `span`: 1, 2 or 5 times a power of ten.
pub fn nice_step(span: f64) -> f64 {
    let raw = (span / 200.0).max(1e-9);
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * p).find(|s| *s >= raw).unwrap_or(10.0 * p)
}

/// The slider's range for an integer: the schema's when it is short, else 64 values around
/// the default.
pub fn int_window(min: i64, max: i64, default: i64) -> (i64, i64) {
    if max - min <= 64 {
        return (min, max);
    }
    let lo = (default - 32).max(min);
    (lo, (lo + 64).min(max))
}

/// The slider's range for a float: the schema's when it is short, else a window around the
/// default (three decades each way on a log scale).
pub fn float_window(min: f64, max: f64, log: bool, default: f64) -> (f64, f64) {
    if log {
        let d = if default > 0.0 { default } else { 1.0 };
        return ((d / 1e3).max(min), (d * 1e3).min(max));
    }
    if max - min <= 16.0 {
        return (min, max);
    }
    let w = (4.0 * default.abs()).max(4.0);
    (min.max(-w), max.min(w))
}

/// A float slider: the window it spans, its scale, and the limits a value keeps to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    /// The window the slider spans (a value outside it widens the slider to reach it).
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
    /// The step of a linear slider (unused on a log scale).
    pub step: f64,
    /// The values allowed.
    pub min: f64,
    pub max: f64,
}

impl Scale {
    /// The slider of a parameter from `min` to `max` with library default `default`.
    pub fn new(min: f64, max: f64, log: bool, default: f64) -> Scale {
        let (lo, hi) = float_window(min, max, log, default);
        Scale { lo, hi, log, step: nice_step(hi - lo), min, max }
    }

    /// A slider over exactly `lo..hi` on a log scale (values kept to it).
    pub const fn log(lo: f64, hi: f64) -> Scale {
        Scale { lo, hi, log: true, step: 0.0, min: lo, max: hi }
    }

    /// Where `v` sits on the slider: `log10 v` on a log scale, else `v`.
    pub fn position(&self, v: f64) -> f64 {
        if self.log { v.max(f64::MIN_POSITIVE).log10() } else { v }
    }

    /// The value at slider position `p`: three significant digits on a log scale, else a
    /// whole number of steps; within the limits.
    pub fn value(&self, p: f64) -> f64 {
        let v = if self.log { significant(10f64.powf(p)) } else { (p / self.step).round() * self.step };
        v.clamp(self.min, self.max)
    }

    /// The slider's ends when it shows `current`: the window, widened to reach `current`.
    pub fn ends(&self, current: f64) -> (f64, f64) {
        (self.position(self.lo.min(current)), self.position(self.hi.max(current)))
    }

    /// The `step` attribute: any position on a log scale, else the step.
    pub fn step_attr(&self) -> String {
        if self.log { "any".to_string() } else { self.step.to_string() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_shows_plain_numbers_plainly_and_extreme_ones_with_an_exponent() {
        assert_eq!(show(0.25), "0.25");
        assert_eq!(show(0.0), "0");
        assert_eq!(show(1e-5), "1e-5");
        assert_eq!(show(2.5e6), "2.5e6");
        assert_eq!(field_text(&Literal::Int(4)), "4");
        assert_eq!(field_text(&Literal::None), "");
        assert_eq!(field_text(&Literal::Str("auto".into())), "");
    }

    #[test]
    fn log_values_round_to_three_significant_digits() {
        assert_eq!(significant(0.012345), 0.0123);
        assert_eq!(significant(123456.0), 123000.0);
        assert_eq!(significant(-2.468), -2.47);
        assert_eq!(significant(0.0), 0.0);
    }

    #[test]
    fn steps_are_one_two_or_five_times_a_power_of_ten() {
        assert_eq!(nice_step(4.0), 0.02);
        assert_eq!(nice_step(16.0), 0.1);
        assert_eq!(nice_step(200.0), 1.0);
        assert_eq!(nice_step(700.0), 5.0);
    }

    #[test]
    fn a_wide_integer_range_gives_64_values_around_the_default() {
        assert_eq!(int_window(1, 32, 4), (1, 32));
        assert_eq!(int_window(0, 1000, 100), (68, 132));
        assert_eq!(int_window(0, 1000, 10), (0, 64));
        assert_eq!(int_window(0, 1000, 990), (958, 1000));
    }

    #[test]
    fn a_wide_float_range_gives_a_window_around_the_default() {
        assert_eq!(float_window(0.0, 8.0, false, 1.0), (0.0, 8.0));
        assert_eq!(float_window(-100.0, 100.0, false, 0.5), (-4.0, 4.0));
        assert_eq!(float_window(-100.0, 100.0, false, 10.0), (-40.0, 40.0));
        assert_eq!(float_window(1e-9, 1e9, true, 1.0), (1e-3, 1e3));
        assert_eq!(float_window(0.5, 1e9, true, 0.0), (0.5, 1e3));
    }

    #[test]
    fn a_linear_slider_moves_in_whole_steps_within_the_limits() {
        let s = Scale::new(0.0, 8.0, false, 1.0);
        assert_eq!((s.step, s.step_attr()), (0.05, "0.05".to_string()));
        assert_eq!(s.position(1.5), 1.5);
        assert_eq!(s.value(1.537), 1.55);
        assert_eq!(s.value(9.0), 8.0);
        assert_eq!(s.ends(12.0), (0.0, 12.0), "a value beyond the window widens the slider");
    }

    #[test]
    fn a_log_slider_places_decades_evenly_and_reads_round_values() {
        let s = Scale::new(1e-9, 1e9, true, 1.0);
        assert_eq!(s.step_attr(), "any");
        assert_eq!(s.position(100.0), 2.0);
        assert_eq!(s.value(2.0), 100.0);
        assert_eq!(s.value(0.5), 3.16);
        assert_eq!(s.ends(1.0), (-3.0, 3.0));
        let spread = Scale::log(0.01, 10.0);
        assert_eq!(spread.value(-3.0), 0.01, "kept to the slider's own range");
    }
}
