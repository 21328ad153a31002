//! A quantizer as the explorer's figure draws it, without the figure: the form evaluated over
//! x (a data-dependent quantizer frozen at the numbers the sample tensor gives it, see
//! [`Quantizer::freeze`]), its value and gradient at one x, and its run on the sample tensor
//! (the Quality panel's figures). The page and a lesson's task conditions both go through here, so a task
//! such as "the gradient at 1.5 is 0" is judged on the numbers the page shows.

use std::borrow::Cow;

use super::metrics::{Quality, measure};
use qscope_plot::{describe_levels, fmt_number};
use qscope_quant::shaped::Shape;
use qscope_quant::{Ctx, Frozen, Levels, Quantizer, Report};

/// How many draws a stochastic quantizer's curve averages (the figure's mean curve).
pub const DRAWS: usize = qscope_plot::DRAWS;

/// The random stream and mode of an evaluation: training (seeded) or inference.
pub fn context(training: bool, seed: u64) -> Ctx {
    if training { Ctx::training(seed) } else { Ctx::inference(seed) }
}

/// The tensor `q`'s curve is frozen on: for a block format (MX, NVFP4, int-k groups…), the
/// sweep's own block — `q` run on the ends of the x range `[lo, hi]`, one block whose scale is
/// the one a sweep from lo to hi gets, since its amax (and min and max) are the ends'; for any
/// other quantizer, the sample tensor.
pub fn basis<'a>(q: &Quantizer, (lo, hi): (f32, f32), sample: &'a [f32]) -> Cow<'a, [f32]> {
    if q.block_size().is_some() { Cow::Owned(vec![lo, hi]) } else { Cow::Borrowed(sample) }
}

/// The form of `q` the figure evaluates over x, with the numbers in use: a data-dependent
/// quantizer frozen at its run on `sample` (in the given mode and seed); any other quantizer
/// as it is, with the report of that run.
pub fn frozen_on(q: &Quantizer, training: bool, seed: u64, sample: &[f32]) -> (Frozen, Report) {
    let report = q.eval(sample, &mut context(training, seed)).2;
    let form = q.freeze(&report);
    (form, report)
}

/// Levels listed one by one up to this many (the Selected panel, the gallery's pages).
pub const LISTED_LEVELS: usize = 32;

/// Levels as the explorer reads them out.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelsReadout {
    /// In words: `8 levels, −1 … 0.75`, `unbounded grid, step 1`, `continuous (no levels)`.
    pub text: String,
    /// The step of uniform levels (more than one).
    pub step: Option<String>,
    /// Each level, when there are at most [`LISTED_LEVELS`].
    pub list: Option<Vec<String>>,
}

/// `levels` read out as the Selected panel and the gallery's pages show them.
pub fn readout(levels: &Levels) -> LevelsReadout {
    let step = match levels {
        Levels::Uniform { step, count, .. } if *count > 1 => Some(fmt_number(*step as f64)),
        _ => None,
    };
    let list = levels.list(LISTED_LEVELS).map(|l| l.into_iter().map(|v| fmt_number(v as f64)).collect());
    LevelsReadout { text: describe_levels(levels), step, list }
}

/// The output levels of `q` as the figure marks them (see [`frozen_on`]).
pub fn levels(q: &Quantizer, training: bool, seed: u64, sample: &[f32]) -> Levels {
    let (form, report) = frozen_on(q, training, seed, sample);
    form.levels(&report)
}

/// `(y, dy/dx)` of `q` at `x` as the figure draws it: the frozen form (see [`frozen_on`])
/// evaluated at `x` alone; when that form draws random values, the mean of [`DRAWS`] draws
/// (as the figure's mean curve; from the state's seed, not the figure's own draws). A form
/// that still takes statistics from its tensor ([`Frozen::Live`]) sees `x` at the end of the
/// sample tensor (the figure's sweep would give it the sweep's statistics instead).
pub fn at(q: &Quantizer, training: bool, seed: u64, sample: &[f32], x: f32) -> (f32, f32) {
    let (form, _) = frozen_on(q, training, seed, sample);
    let mut ctx = context(training, seed);
    let tensor: Vec<f32> = if form.is_frozen() { vec![x] } else { sample.iter().copied().chain([x]).collect() };
    let last = tensor.len() - 1;
    if !q.is_stochastic(training) && form.is_frozen() {
        let (y, g) = form.eval(&tensor, &mut ctx);
        return (y[last], g[last]);
    }
    let (mut sum_y, mut sum_g) = (0.0f64, 0.0f64);
    for _ in 0..DRAWS {
        let (y, g) = form.eval(&tensor, &mut ctx);
        sum_y += f64::from(y[last]);
        sum_g += f64::from(g[last]);
    }
    ((sum_y / DRAWS as f64) as f32, (sum_g / DRAWS as f64) as f32)
}

/// A quantizer on the sample tensor: its outputs and how much they lose.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleRun {
    pub y: Vec<f32>,
    /// The report (of the drawn channel, for a per-channel quantizer on a shaped tensor).
    pub report: Report,
    /// A per-channel quantizer's report of each channel, in order (empty otherwise); then
    /// `metrics.levels_used` is the most any channel uses and `levels` are the drawn channel's.
    pub channels: Vec<Report>,
    pub levels: Levels,
    pub metrics: Quality,
}

/// `q` run on the sample tensor `values` (in the given mode and seed), measured against it.
pub fn run_on_sample(q: &Quantizer, training: bool, seed: u64, values: &[f32]) -> SampleRun {
    run_shaped(q, training, seed, values, &Shape::new(vec![values.len()]), 0)
}

/// `q` run on a tensor of `shape` as its library sees a weight of that shape
/// ([`Quantizer::apply_shaped`]), measured against it; a per-channel quantizer's report and
/// levels are those of `channel` (the last channel when beyond). A quantizer with learned
/// parameters also runs backward once, for their gradients over the tensor.
pub fn run_shaped(
    q: &Quantizer,
    training: bool,
    seed: u64,
    values: &[f32],
    shape: &Shape,
    channel: usize,
) -> SampleRun {
    let mut y = vec![0.0; values.len()];
    let mut reports = q.apply_shaped(values, shape, &mut y, None, &mut context(training, seed));
    let drawn = channel.min(reports.len().saturating_sub(1));
    let mut report = reports.get(drawn).cloned().unwrap_or_default();
    if !q.learnable().is_empty() {
        // A learned parameter's gradient (LSQ's step, PACT's clip) is the backward pass's: the
        // tensor's own d(Σy)/dθ, as training takes it.
        report.param_grads = q.eval(values, &mut context(training, seed)).2.param_grads;
    }
    let channels = if reports.len() > 1 { std::mem::take(&mut reports) } else { Vec::new() };
    let levels = q.levels(&report);
    let mut metrics = measure(values, &y, &levels);
    if !channels.is_empty() {
        // Each channel has its own levels: levels used and clipping are counted channel by
        // channel, in one row-major pass with a table per channel.
        let bounds: Vec<Option<(f32, f32)>> = channels.iter().map(|r| q.levels(r).bounds()).collect();
        let (_, _, inner) = q.seen_shape(shape).split(values.len());
        let (most, clipped) = qscope_tensors::stats::channel_used(values, &y, inner, &bounds);
        metrics.levels_used = most;
        metrics.clip_fraction = if metrics.count == 0 { 0.0 } else { clipped as f64 / metrics.count as f64 };
    }
    SampleRun { y, report, channels, levels, metrics }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::SampleSpec;
    use qscope_quant::parse;

    fn q(spec: &str) -> Quantizer {
        parse(spec).unwrap()
    }

    #[test]
    fn a_per_channel_run_counts_levels_and_clipping_channel_by_channel() {
        let q = q("qkeras.quantized_bits(3,0,1,alpha='auto')");
        let values: Vec<f32> = (0..64).map(|i| ((i * 11 % 13) as f32 - 6.0) * 0.1 * (1 + i % 4) as f32).collect();
        let run = run_shaped(&q, true, 0, &values, &Shape::new(vec![16, 4]), 0);
        assert_eq!(run.channels.len(), 4);
        let most = run.levels.count().unwrap();
        assert!(run.metrics.levels_used as u64 <= most, "{} of {most}", run.metrics.levels_used);
        let flat = run_on_sample(&q, true, 0, &values);
        assert!(flat.channels.is_empty());
        assert_ne!(flat.y, run.y, "four scales are not the one of the whole tensor");
    }

    #[test]
    fn a_per_channel_run_reports_the_drawn_channels_scale_and_levels() {
        let q = q("qkeras.quantized_bits(3,0,1,alpha='auto')");
        let values: Vec<f32> = (0..64).map(|i| ((i * 11 % 13) as f32 - 6.0) * 0.1 * (1 + i % 4) as f32).collect();
        let shape = Shape::new(vec![16, 4]);
        let third = run_shaped(&q, true, 0, &values, &shape, 2);
        assert_eq!(third.report, third.channels[2]);
        assert_eq!(third.levels, q.levels(&third.channels[2]));
        assert_ne!(third.report.scale, third.channels[0].scale);
        let beyond = run_shaped(&q, true, 0, &values, &shape, 99);
        assert_eq!(beyond.report, beyond.channels[3], "beyond the last channel reads as the last");
    }

    #[test]
    fn a_data_dependent_quantizer_at_a_sample_value_gives_its_output_in_the_sample_run() {
        let sample = SampleSpec::default().generate();
        let quantizer = q("qkeras.quantized_bits(4,0,1,alpha='auto')");
        let run = run_on_sample(&quantizer, true, 0, &sample);
        for i in [0, 17, 500, 999] {
            assert_eq!(at(&quantizer, true, 0, &sample, sample[i]).0, run.y[i], "sample[{i}] = {}", sample[i]);
        }
    }

    #[test]
    fn a_block_format_is_frozen_on_the_sweeps_own_block_and_others_on_the_sample() {
        let sample = SampleSpec::default().generate();
        let mx = q("torchao.mx(elem_dtype='fp4_e2m1')");
        assert_eq!(&*basis(&mx, (-2.0, 3.0), &sample), &[-2.0, 3.0]);
        let (_, report) = frozen_on(&mx, true, 0, &basis(&mx, (-2.0, 3.0), &sample));
        assert_eq!((report.blocks.len(), report.blocks[0].amax), (1, 3.0));
        let auto = q("qkeras.quantized_bits(4,0,1,alpha='auto')");
        assert_eq!(basis(&auto, (-2.0, 3.0), &sample).len(), sample.len());
    }

    #[test]
    fn a_plain_quantizer_at_x_is_its_value_alone() {
        let quantizer = q("qkeras.quantized_bits(4,0,1)");
        assert_eq!(at(&quantizer, true, 0, &[], 0.1875), (0.25, 1.0));
    }

    #[test]
    fn a_form_still_depending_on_its_tensor_takes_the_samples_statistics() {
        // stochastic_binary(alpha='auto') in training outputs ±mean|x| of its tensor: 2 alone
        // would give ±2; among the sample, far above its spread, it is +mean|sample| (≈ 0.4).
        let sample = SampleSpec::default().generate();
        let quantizer = q("qkeras.stochastic_binary(alpha='auto')");
        let (form, report) = frozen_on(&quantizer, true, 0, &sample);
        assert!(!form.is_frozen());
        let scale = report.scale.unwrap();
        let (y, _) = at(&quantizer, true, 0, &sample, 2.0);
        assert!((y - scale).abs() < 0.05 * scale && scale < 0.5, "y {y}, scale {scale}");
    }

    #[test]
    fn a_stochastic_quantizer_at_x_is_the_mean_of_its_draws() {
        // Stochastic rounding of 0.25 on a grid of 1 (scaled): the mean sits between the levels.
        let quantizer = q("qkeras.quantized_bits(2,1,1,use_stochastic_rounding=True)");
        let (y, _) = at(&quantizer, true, 0, &[], 0.25);
        assert!(y > 0.0 && y < 1.0, "{y}");
    }
}
