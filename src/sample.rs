//! `qscope sample`: the explorer's sample tensor — the 1000 values every error figure of the
//! explorer is measured on — printed, or summarized with `--stats`, or, given a quantizer, the
//! panels' numbers for it on the sample (the error panel: SQNR, MSE, levels used, clipped; the
//! Selected panel: scale, threshold, the learned parameters' gradients), so that a lesson's
//! author quotes them from the command line and never copies them from the screen. Its options
//! are the sample settings table's and the explorer's seed and mode, as in the explorer's hash.

use qscope_explore::analysis::{self, error_rows, selected_rows};
use qscope_explore::figure::{Inputs, Setting, drawn_on, evaluate};
use qscope_explore::lesson::task::{Measure, explorer_value};
use qscope_explore::sample::settings::{SETTINGS, Sample};
use qscope_explore::state::{Mode, Slot, State};
use qscope_quant::round::{mean_abs, mean_f32};
use qscope_quant::spec::fmt_f32;

use crate::args::{Command, Opt, evaluation, finite, list, setting};

pub(crate) const USAGE: &[(&str, &str)] = &[
    ("sample [--sample DIST,SPREAD] [--seed N] [--stats]", "the explorer's sample tensor: its values, or a summary"),
    (
        "sample SPEC [--sample DIST,SPREAD] [--seed N] [--infer] [--at X,...]",
        "the explorer's panels for SPEC on the sample",
    ),
];

struct SampleOptions {
    sample: Sample,
    seed: u64,
    infer: bool,
    stats: bool,
    at: Vec<f32>,
}

fn command() -> Command<SampleOptions> {
    let defaults = Sample::default();
    let mut options: Vec<Opt<SampleOptions>> = SETTINGS
        .iter()
        .filter_map(|row| setting(row, &defaults, move |o: &mut SampleOptions, v| row.read_flag(&mut o.sample, v)))
        .collect();
    options.extend(evaluation(|o: &mut SampleOptions| &mut o.seed, |o| &mut o.infer));
    options.push(Opt::switch(
        "--stats",
        "print a summary (count, mean, spread, mean |x|, extremes) instead of the values",
        |o: &mut SampleOptions| o.stats = true,
    ));
    options.push(Opt::value(
        "--at",
        "X,...",
        "also print y(X) and dydx(X) as the explorer's pinned readout and a lesson's task read them \
         (a stochastic quantizer: the mean of its draws)",
        |o: &mut SampleOptions, v| {
            o.at = list("--at", v, |x| finite("--at", x))?;
            Ok(())
        },
    ));
    Command {
        name: "sample",
        about: "\
sample prints the explorer's sample tensor, one value per line (float32, shortest exact text), as the
explorer draws it from the same settings and seed; --stats prints its summary instead: n, mean,
standard deviation, mean |x|, root mean square, min, max and max |x|. The means are float32, as the
libraries take them (K.mean): mean |x| is magnitude_aware_sign's scale, 0.7 of it TWN's threshold.
Given a SPEC, sample prints what the explorer's panels show for that quantizer on the sample, as
they show it: the error panel (SQNR, MSE, levels used, clipped) and the Selected panel's scale,
threshold and learned parameters' gradients (∂Σy/∂θ over the sample), in training mode unless
--infer; --at adds the value and the gradient at each X as the figure draws them."
            .into(),
        options,
        max_free: Some(1),
        extra: "quote the spec: qscope sample 'SPEC'".into(),
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
    let mut o = SampleOptions {
        sample: Sample::default(),
        seed: State::default().seed,
        infer: false,
        stats: false,
        at: Vec::new(),
    };
    let free = command().parse(args, &mut o)?;
    let values = o.sample.spec(o.seed).generate();
    let out: String = if let Some(spec) = free.first() {
        if o.stats {
            return Err("--stats summarizes the sample alone: give a SPEC or --stats, not both".into());
        }
        panels(spec, &o, &values)?
    } else if o.stats {
        let head = format!("# {}, seed {}\n", o.sample.describe(|v| fmt_f32(v as f32)), o.seed);
        head + &stats(&values).iter().map(|(k, v)| format!("{k}\t{v}\n")).collect::<String>()
    } else {
        values.iter().map(|v| format!("{}\n", fmt_f32(*v))).collect()
    };
    print!("{out}");
    Ok(())
}

/// The explorer's panels for `spec` on the sample `values`, one `label<TAB>as shown<TAB>exact`
/// line each: the error panel's rows, then the Selected panel's numbers (the explorer's default
/// view: no tensor, no channel axis, the default x range).
fn panels(spec: &str, o: &SampleOptions, values: &[f32]) -> Result<String, String> {
    let q = qscope_quant::parse(spec).map_err(|e| e.to_string())?;
    let training = !o.infer;
    if let Some(why) = q.unsupported(training) {
        return Err(why);
    }
    let state = State { sample: o.sample, seed: o.seed, mode: Mode::from_training(training), ..State::default() };
    let setting = Setting::of(&state);
    let run = analysis::run(&q, training, o.seed, values, &setting.shape, setting.channel);
    // The Selected panel's scale and threshold: the figure's, as the curve is drawn.
    let selected = evaluate(Inputs::new(&q, &setting), &drawn_on(&q, &setting.shape, setting.channel, values));
    let mode = if training { "training" } else { "inference" };
    let mut out = format!(
        "# {q} on {}, seed {}, {mode}: label, as the panel shows it, exact\n",
        o.sample.describe(|v| fmt_f32(v as f32)),
        o.seed
    );
    for row in error_rows(&run).into_iter().chain(selected_rows(&selected.report, &run.report)) {
        out += &format!("{}\t{}\t{}\n", row.label, row.shown, row.exact);
    }
    let state = State { slots: vec![Slot::new(q)], ..state };
    for &x in &o.at {
        for m in [Measure::Y(x), Measure::Dydx(x)] {
            let v = explorer_value(m, &state)? as f32;
            out += &format!("{m}\t{}\t{}\n", fmt_f32(v), fmt_f32(v));
        }
    }
    Ok(out)
}
