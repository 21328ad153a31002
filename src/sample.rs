//! `qscope sample`: the explorer's sample tensor — the 1000 values every error figure of the
//! explorer is measured on — printed, or summarized with `--stats`, so that a lesson's author
//! quotes its numbers (its spread, mean |x|, largest |x|) from the command line and never copies
//! them from the screen. Its options are the sample settings table's, as in the explorer's hash.

use qscope_explore::sample::settings::{SETTINGS, Sample};
use qscope_explore::state::{self, State};
use qscope_quant::round::{mean_abs, mean_f32};
use qscope_quant::spec::fmt_f32;

use crate::args::{Command, Opt, setting};

pub(crate) const USAGE: &[(&str, &str)] =
    &[("sample [--sample DIST,SPREAD] [--seed N] [--stats]", "the explorer's sample tensor: its values, or a summary")];

struct SampleOptions {
    sample: Sample,
    seed: u64,
    stats: bool,
}

fn command() -> Command<SampleOptions> {
    let defaults = Sample::default();
    let mut options: Vec<Opt<SampleOptions>> = SETTINGS
        .iter()
        .filter_map(|row| setting(row, &defaults, move |o: &mut SampleOptions, v| row.read_flag(&mut o.sample, v)))
        .collect();
    options.extend(setting(&state::SEED, &State::default(), |o: &mut SampleOptions, v| {
        let mut st = State { seed: o.seed, ..State::default() };
        state::SEED.read_flag(&mut st, v)?;
        o.seed = st.seed;
        Ok(())
    }));
    options.push(Opt::switch(
        "--stats",
        "print a summary (count, mean, spread, mean |x|, extremes) instead of the values",
        |o: &mut SampleOptions| o.stats = true,
    ));
    Command {
        name: "sample",
        about: "\
sample prints the explorer's sample tensor, one value per line (float32, shortest exact text), as the
explorer draws it from the same settings and seed; --stats prints its summary instead: n, mean,
standard deviation, mean |x|, root mean square, min, max and max |x|. The means are float32, as the
libraries take them (K.mean): mean |x| is magnitude_aware_sign's scale, 0.7 of it TWN's threshold."
            .into(),
        options,
        max_free: Some(0),
        extra: "sample takes no free arguments".into(),
    }
}

pub(crate) fn help() -> String {
    command().help()
}

/// `(name, value)` of the summary. The mean and mean |x| are the libraries' float32 `K.mean`
/// (`qscope_quant::round`), the very numbers `magnitude_aware_sign` and TWN's threshold use; the
/// spreads are summed in float64 and rounded to float32 once.
fn stats(values: &[f32]) -> Vec<(&'static str, String)> {
    let n = values.len().max(1) as f64;
    let mean = mean_f32(values.iter().copied());
    let var = values.iter().map(|&v| (f64::from(v) - f64::from(mean)).powi(2)).sum::<f64>() / n;
    let rms = (values.iter().map(|&v| f64::from(v) * f64::from(v)).sum::<f64>() / n).sqrt();
    let (min, max) = values.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let max_abs = values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let f = |v: f64| fmt_f32(v as f32);
    vec![
        ("n", values.len().to_string()),
        ("mean", fmt_f32(mean)),
        ("std", f(var.sqrt())),
        ("mean |x|", fmt_f32(mean_abs(values))),
        ("rms", f(rms)),
        ("min", fmt_f32(min)),
        ("max", fmt_f32(max)),
        ("max |x|", fmt_f32(max_abs)),
    ]
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut o = SampleOptions { sample: Sample::default(), seed: State::default().seed, stats: false };
    command().parse(args, &mut o)?;
    let values = o.sample.spec(o.seed).generate();
    let out: String = if o.stats {
        let head = format!("# {}, seed {}\n", o.sample.describe(|v| fmt_f32(v as f32)), o.seed);
        head + &stats(&values).iter().map(|(k, v)| format!("{k}\t{v}\n")).collect::<String>()
    } else {
        values.iter().map(|v| format!("{}\n", fmt_f32(*v))).collect()
    };
    print!("{out}");
    Ok(())
}
