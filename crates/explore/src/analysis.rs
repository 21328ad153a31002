//! What the page computes on the sample tensor, as questions with answers: the report a
//! data-dependent curve is frozen at ([`Ask::Freeze`]), the selected quantizer's run as every
//! view shows it ([`Ask::Run`]) and "which format?" ([`Ask::Compare`]). A small sample is
//! answered on the spot; a large user's tensor (at least [`OFF_PAGE`] elements) in the page's
//! worker, so the page stays responsive while millions of elements are quantized. Questions
//! and answers cross as bytes ([`crate::wire`]); both sides call [`answer`], so the numbers are
//! the same wherever they were computed.

use super::blocks::{self, BlockRow};
use super::channels::{ChannelStat, stats};
use super::drawn::{SampleRun, run_shaped};
use super::figure::{Inputs, drawn_on, frozen_report};
use super::formats::{Compared, compare_with};
use super::metrics::Quality;
use super::sample::{Histogram, Outputs, histogram, largest_magnitude, outputs};
use super::state::Slot;
use super::wire::{Reader, Wire, WireError, Writer};
use crate::wire_struct;
use qscope_quant::shaped::Shape;
use qscope_quant::{Levels, Quantizer, Report, parse};

/// Elements from which the user's tensor is quantized in the worker rather than the page (a
/// smaller tensor takes a few milliseconds per quantizer).
pub const OFF_PAGE: usize = 1 << 20;

/// Bins of the Sample panel's input histogram.
pub const BINS: usize = 60;
/// Distinct outputs drawn as one stem each; more are binned like the input.
pub const STEMS: usize = 64;

/// A question about the sample tensor.
#[derive(Clone, Debug, PartialEq)]
pub enum Ask {
    /// The report a data-dependent quantizer's curve is frozen at ([`frozen_report`]).
    Freeze {
        spec: String,
        x: (f32, f32),
        training: bool,
        seed: u64,
        block: Option<usize>,
        axis: Option<usize>,
        channel: usize,
    },
    /// The selected quantizer on the tensor ([`run`]).
    Run { spec: String, training: bool, seed: u64, axis: Option<usize>, channel: usize },
    /// Every shown quantizer's error ("which format?"): each slot's spec and whether it is hidden.
    Compare { slots: Vec<(String, bool)>, training: bool, seed: u64, axis: Option<usize> },
}

/// The answer to an [`Ask`], of the same kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Freeze(Report, Option<usize>),
    Run(Box<Run>),
    Compare(Compared),
}

/// The histogram the Sample panel draws: symmetric about 0 out to `m`, the inputs in [`BINS`]
/// bins, the outputs as stems (at most [`STEMS`]) or bins.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    pub m: f32,
    pub input: Histogram,
    pub output: Outputs,
}

/// The histogram of inputs `x` and outputs `y`.
pub fn picture(x: &[f32], y: &[f32]) -> Picture {
    let m = largest_magnitude(x).max(largest_magnitude(y));
    let m = if m > 0.0 { m * 1.05 } else { 1.0 };
    Picture { m, input: histogram(x, -m, m, BINS), output: outputs(y, STEMS, -m, m, BINS) }
}

/// The selected quantizer on the sample tensor, as the Quality, Sample, channel and block
/// views show it (its outputs themselves stay where they were computed).
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The report (of the drawn channel, for a per-channel quantizer on a shaped tensor).
    pub report: Report,
    /// A per-channel quantizer's report of each channel (empty otherwise).
    pub channels: Vec<Report>,
    pub levels: Levels,
    pub metrics: Quality,
    pub picture: Picture,
    /// Each channel's SQNR, amax and scale, for a tensor of two or more dimensions.
    pub channel_stats: Vec<ChannelStat>,
    /// A block format's first blocks, at most [`BLOCK_ROWS`] (a table of every block of a large
    /// tensor would be hundreds of thousands of rows).
    pub blocks: Vec<BlockRow>,
    /// How many blocks there are.
    pub block_total: usize,
    /// Over every block: the median of the codes used and the levels a block has
    /// ([`blocks::median_codes`]).
    pub block_median: Option<(usize, Option<u64>)>,
    /// Over every block: the largest finite MSE (what the table's bars are scaled to).
    pub block_worst: f64,
}

/// Blocks listed in the block view.
pub const BLOCK_ROWS: usize = 256;

impl Default for Run {
    /// Nothing run yet: no outputs, no error.
    fn default() -> Run {
        Run {
            report: Report::default(),
            channels: Vec::new(),
            levels: Levels::Continuous,
            metrics: super::metrics::measure(&[], &[], &Levels::Continuous),
            picture: picture(&[], &[]),
            channel_stats: Vec::new(),
            blocks: Vec::new(),
            block_total: 0,
            block_median: None,
            block_worst: 0.0,
        }
    }
}

impl Run {
    /// Every view's numbers of `run` (of `q` on `values` of `shape`).
    pub fn of(q: &Quantizer, values: &[f32], shape: &Shape, run: &SampleRun) -> Run {
        let channel_stats =
            if shape.dims.len() >= 2 { stats(values, &run.y, shape, &run.channels) } else { Vec::new() };
        let mut rows = blocks::rows(q, values, run);
        let block_worst = rows.iter().map(|r| r.quality.mse).filter(|m| m.is_finite()).fold(0.0, f64::max);
        let (block_total, block_median) = (rows.len(), blocks::median_codes(&rows));
        rows.truncate(BLOCK_ROWS);
        Run {
            report: run.report.clone(),
            channels: run.channels.clone(),
            levels: run.levels.clone(),
            metrics: run.metrics.clone(),
            picture: picture(values, &run.y),
            channel_stats,
            blocks: rows,
            block_total,
            block_median,
            block_worst,
        }
    }
}

/// A number of a panel: its label, its text as the panel shows it (rounded for reading), and its
/// exact value (float32 values as the shortest text that reads back the same).
#[derive(Clone, Debug, PartialEq)]
pub struct PanelRow {
    pub label: String,
    pub shown: String,
    pub exact: String,
}

impl PanelRow {
    fn new(label: impl Into<String>, shown: String, exact: String) -> PanelRow {
        PanelRow { label: label.into(), shown, exact }
    }
}

/// The error panel's rows ("Error on the sample"): SQNR, MSE, the levels used (for a block format
/// the median of the codes each block uses, for a per-channel quantizer the most any channel
/// uses) and the share of inputs clipped.
pub fn error_rows(run: &Run) -> Vec<PanelRow> {
    use qscope_plot::{fmt_db, fmt_number};
    let m = &run.metrics;
    let sqnr =
        if m.sqnr_db == f64::INFINITY { "∞ dB (lossless)".to_string() } else { format!("{} dB", fmt_db(m.sqnr_db)) };
    let used_label = match (run.block_median, run.channels.is_empty()) {
        (Some(_), _) => "codes used per block",
        (None, false) => "levels used in a channel (most)",
        (None, true) => "levels used",
    };
    let used = match (run.block_median, run.levels.count()) {
        (Some((median, Some(of))), _) => format!("median {median} of {of}"),
        (Some((median, None)), _) => format!("median {median}"),
        (None, Some(t)) => format!("{} of {t}", m.levels_used),
        (None, None) => m.levels_used.to_string(),
    };
    vec![
        PanelRow::new("SQNR", sqnr, format!("{}", m.sqnr_db)),
        PanelRow::new("MSE", fmt_number(m.mse), format!("{}", m.mse)),
        PanelRow::new(used_label, used.clone(), used),
        PanelRow::new("clipped", format!("{} %", fmt_number(m.clip_fraction * 100.0)), format!("{}", m.clip_fraction)),
    ]
}

/// The Selected panel's numbers: the scale and threshold in use where the curve is drawn
/// (`drawn`: the figure's report, e.g. a block format's drawn block), and d(Σy)/dθ of each
/// learned parameter θ over the whole sample tensor (`run`: [`Run::report`]).
pub fn selected_rows(drawn: &Report, run: &Report) -> Vec<PanelRow> {
    use qscope_quant::spec::fmt_f32;
    let row = |label: String, v: f32| PanelRow::new(label, qscope_plot::fmt_number(f64::from(v)), fmt_f32(v));
    let mut rows = Vec::new();
    rows.extend(drawn.scale.map(|s| row("scale".into(), s)));
    rows.extend(drawn.threshold.map(|t| row("threshold".into(), t)));
    rows.extend(run.param_grads.iter().map(|(p, g)| row(format!("∂Σy/∂{p}"), *g)));
    rows
}

/// `q` run on `values` (of `shape`) in the given mode and seed, as every view shows it.
pub fn run(q: &Quantizer, training: bool, seed: u64, values: &[f32], shape: &Shape, channel: usize) -> Run {
    Run::of(q, values, shape, &run_shaped(q, training, seed, values, shape, channel))
}

/// The tensor's shape as the state sets its channel axis (the dims' last axis without one).
pub fn shape_of(dims: &[usize], axis: Option<usize>) -> Shape {
    let shape = Shape::new(dims.to_vec());
    axis.and_then(|a| shape.clone().with_axis(a).ok()).unwrap_or(shape)
}

fn quantizer(spec: &str) -> Result<Quantizer, String> {
    parse(spec).map_err(|e| format!("{spec}: {e}"))
}

/// The answer to `ask` about the tensor `values` of dimensions `dims`; `progress(done, total)`
/// hears of each step (a comparison's quantizers).
pub fn answer(
    ask: &Ask,
    dims: &[usize],
    values: &[f32],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Answer, String> {
    Ok(match ask {
        Ask::Freeze { spec, x, training, seed, block, axis, channel } => {
            let q = quantizer(spec)?;
            let shape = shape_of(dims, *axis);
            let inputs = Inputs {
                quantizer: q.clone(),
                x: *x,
                training: *training,
                seed: *seed,
                sample: None,
                tensor: None,
                shape: None,
                block: *block,
                channel: None,
            };
            let (report, block) = frozen_report(&inputs, &drawn_on(&q, &shape, *channel, values));
            progress(1, 1);
            Answer::Freeze(report, block)
        }
        Ask::Run { spec, training, seed, axis, channel } => {
            let q = quantizer(spec)?;
            let r = run(&q, *training, *seed, values, &shape_of(dims, *axis), *channel);
            progress(1, 1);
            Answer::Run(Box::new(r))
        }
        Ask::Compare { slots, training, seed, axis } => {
            let slots = slots
                .iter()
                .map(|(spec, hidden)| Ok(Slot { quantizer: quantizer(spec)?, hidden: *hidden }))
                .collect::<Result<Vec<_>, String>>()?;
            let total = slots.iter().filter(|s| !s.hidden).count();
            let shape = shape_of(dims, *axis);
            let mut scratch = Vec::new();
            let mut done = 0;
            Answer::Compare(compare_with(&slots, *training, *seed, values, &shape, &mut scratch, &mut || {
                done += 1;
                progress(done, total);
            }))
        }
    })
}

wire_struct!(Picture { m, input, output });
wire_struct!(Run {
    report,
    channels,
    levels,
    metrics,
    picture,
    channel_stats,
    blocks,
    block_total,
    block_median,
    block_worst
});

impl Wire for Ask {
    fn put(&self, w: &mut Writer) {
        match self {
            Ask::Freeze { spec, x, training, seed, block, axis, channel } => {
                0u8.put(w);
                (spec.clone(), *x).put(w);
                (*training, *seed, *block, (*axis, *channel)).put(w);
            }
            Ask::Run { spec, training, seed, axis, channel } => {
                1u8.put(w);
                (spec.clone(), *training, *seed, (*axis, *channel)).put(w);
            }
            Ask::Compare { slots, training, seed, axis } => {
                2u8.put(w);
                (slots.clone(), *training, *seed, *axis).put(w);
            }
        }
    }
    fn get(r: &mut Reader) -> Result<Self, WireError> {
        Ok(match u8::get(r)? {
            0 => {
                let (spec, x) = r.read()?;
                let (training, seed, block, (axis, channel)) = r.read()?;
                Ask::Freeze { spec, x, training, seed, block, axis, channel }
            }
            1 => {
                let (spec, training, seed, (axis, channel)) = r.read()?;
                Ask::Run { spec, training, seed, axis, channel }
            }
            2 => {
                let (slots, training, seed, axis) = r.read()?;
                Ask::Compare { slots, training, seed, axis }
            }
            k => return Err(format!("{k} is not a kind of question")),
        })
    }
}

impl Wire for Answer {
    fn put(&self, w: &mut Writer) {
        match self {
            Answer::Freeze(report, block) => {
                0u8.put(w);
                report.put(w);
                block.put(w);
            }
            Answer::Run(run) => {
                1u8.put(w);
                run.put(w);
            }
            Answer::Compare(c) => {
                2u8.put(w);
                c.put(w);
            }
        }
    }
    fn get(r: &mut Reader) -> Result<Self, WireError> {
        Ok(match u8::get(r)? {
            0 => Answer::Freeze(r.read()?, r.read()?),
            1 => Answer::Run(Box::new(r.read()?)),
            2 => Answer::Compare(r.read()?),
            k => return Err(format!("{k} is not a kind of answer")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figure::evaluate;
    use crate::formats::compare;
    use crate::wire::{decode, encode};

    fn weights() -> (Vec<usize>, Vec<f32>) {
        let values = (0..48 * 40).map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.01 * (1 + i % 5) as f32).collect();
        (vec![48, 40], values)
    }

    fn asked(ask: &Ask) -> Answer {
        let (dims, values) = weights();
        let a = answer(&decode(&encode(ask)).unwrap(), &dims, &values, &mut |_, _| {}).unwrap();
        decode(&encode(&a)).unwrap()
    }

    fn inputs(spec: &str, block: Option<usize>, channel: usize) -> Inputs {
        let (dims, _) = weights();
        Inputs {
            quantizer: parse(spec).unwrap(),
            x: (-2.0, 2.0),
            training: true,
            seed: 3,
            sample: None,
            tensor: Some(1),
            shape: Some(shape_of(&dims, Some(0))),
            block,
            channel: Some(channel),
        }
    }

    #[test]
    fn a_curve_frozen_at_the_answer_is_the_curve_evaluated_on_the_tensor() {
        let (dims, values) = weights();
        let cases = [
            ("qkeras.quantized_bits(4,0,1,alpha='auto')", None, 7),
            ("larq.MagnitudeAwareSign", None, 0),
            ("torchao.mx(elem_dtype='fp4_e2m1')", Some(5), 0),
            ("torchao.mx(elem_dtype='fp4_e2m1')", Some(100_000), 0),
        ];
        for (spec, block, channel) in cases {
            let ask = Ask::Freeze {
                spec: spec.into(),
                x: (-2.0, 2.0),
                training: true,
                seed: 3,
                block,
                axis: Some(0),
                channel,
            };
            let Answer::Freeze(report, at) = asked(&ask) else { panic!("{spec}: not a freeze") };
            let drawn = drawn_on(&parse(spec).unwrap(), &shape_of(&dims, Some(0)), channel, &values);
            let whole = evaluate(inputs(spec, block, channel), &drawn);
            let halves = crate::figure::evaluate_frozen(inputs(spec, block, channel), Some((report, at)));
            assert_eq!(halves, whole, "{spec} at block {block:?}");
        }
    }

    #[test]
    fn a_run_answered_is_the_run_on_the_tensor() {
        let (dims, values) = weights();
        for spec in ["qkeras.quantized_bits(3,0,1,alpha='auto')", "torchao.nvfp4", "ml_dtypes.float8_e4m3fn"] {
            let ask = Ask::Run { spec: spec.into(), training: false, seed: 0, axis: None, channel: 2 };
            let Answer::Run(got) = asked(&ask) else { panic!("{spec}: not a run") };
            let q = parse(spec).unwrap();
            let direct = run_shaped(&q, false, 0, &values, &shape_of(&dims, None), 2);
            assert_eq!(
                (&got.report, &got.metrics, &got.levels),
                (&direct.report, &direct.metrics, &direct.levels),
                "{spec}"
            );
            assert_eq!(got.channel_stats.len(), 40, "one per channel of a 48 × 40 weight");
            assert_eq!(got.block_total, direct.report.blocks.len(), "{spec}");
            assert_eq!(got.blocks.len(), got.block_total.min(BLOCK_ROWS), "{spec}");
            assert_eq!(got.picture, picture(&values, &direct.y));
        }
    }

    #[test]
    fn a_comparison_answered_is_the_comparison_and_counts_its_shown_quantizers() {
        let (dims, values) = weights();
        let specs = ["torchao.float8", "bnb.nf4", "qkeras.quantized_bits(4,0,1,alpha='auto')"];
        let slots: Vec<(String, bool)> = specs.iter().enumerate().map(|(i, s)| (s.to_string(), i == 1)).collect();
        let ask = Ask::Compare { slots: slots.clone(), training: false, seed: 0, axis: None };
        let mut steps = Vec::new();
        let a = answer(&ask, &dims, &values, &mut |d, t| steps.push((d, t))).unwrap();
        let Answer::Compare(c) = decode(&encode(&a)).unwrap() else { panic!("not a comparison") };
        let slots: Vec<Slot> = slots.iter().map(|(s, h)| Slot { quantizer: parse(s).unwrap(), hidden: *h }).collect();
        assert_eq!(c.rows, compare(&slots, false, 0, &values, &shape_of(&dims, None)));
        assert_eq!(steps, [(1, 2), (2, 2)]);
    }

    #[test]
    fn a_spec_that_does_not_parse_is_an_error_naming_it() {
        let ask = Ask::Run { spec: "qkeras.nope".into(), training: false, seed: 0, axis: None, channel: 0 };
        let e = answer(&ask, &[4], &[0.0; 4], &mut |_, _| {}).unwrap_err();
        assert!(e.starts_with("qkeras.nope: "), "{e}");
    }

    #[test]
    fn a_tensor_of_many_blocks_lists_the_first_and_sums_up_them_all() {
        let values: Vec<f32> =
            (0..32 * 1000).map(|i| ((i * 7919 % 1013) as f32 - 506.0) * 1e-3 * (1 + i / 3200) as f32).collect();
        let q = parse("torchao.mx(elem_dtype='fp4_e2m1')").unwrap();
        let r = run(&q, false, 0, &values, &Shape::new(vec![values.len()]), 0);
        let all = blocks::rows(&q, &values, &run_shaped(&q, false, 0, &values, &Shape::new(vec![values.len()]), 0));
        assert_eq!((r.block_total, r.blocks.len()), (1000, BLOCK_ROWS));
        assert_eq!(r.blocks[..], all[..BLOCK_ROWS]);
        assert_eq!(r.block_median, blocks::median_codes(&all));
        let worst = all.iter().map(|b| b.quality.mse).fold(0.0, f64::max);
        assert_eq!(r.block_worst, worst);
        assert!(all[BLOCK_ROWS..].iter().any(|b| b.quality.mse == worst), "the worst block is past the listed ones");
    }

    #[test]
    fn an_axis_the_tensor_lacks_is_its_last() {
        assert_eq!(shape_of(&[3, 4], Some(5)).axis, 1);
        assert_eq!(shape_of(&[3, 4], Some(0)).axis, 0);
    }
}
