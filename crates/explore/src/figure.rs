//! The explorer's figure before it is drawn: each compared quantizer evaluated into a curve
//! over the x range — a data-dependent one frozen at the numbers the sample tensor gives it
//! (see [`drawn::frozen_on`](super::drawn::frozen_on)), any other over the sweep as one
//! tensor — with unchanged quantizers not evaluated again, and figures ready to export.
//!
//! The page, the lesson handout and `qscope plot`/`gallery` build their curves here, and every
//! exported figure carries the link its state writes ([`State::to_hash`]): one writer of the
//! explorer's link, which [`State::parse`] reads back as the same state.

use super::blocks::frozen_at_block;
use super::drawn::{basis, context, frozen_on};
use super::sample::SampleSpec;
use super::state::{Mode, Slot, State};
use qscope_plot::svg::{Figure, MAX_CURVES, Scheme};
use qscope_plot::{Curve, DRAWS, SAMPLES, Theme, Viewport};
use qscope_quant::shaped::Shape;
use qscope_quant::{Layout, Levels, Quantizer, Report, parse};
use std::borrow::Cow;

/// What every curve of a figure shares: the x range, the mode, the seed and the sample tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    pub x: (f32, f32),
    pub training: bool,
    pub seed: u64,
    pub sample: SampleSpec,
    /// The sample block (from 1) block formats are drawn at; `None`: the sweep's own block.
    pub block: Option<usize>,
    /// The user's tensor that is the sample instead of `sample`
    /// ([`Loaded::serial`](crate::tensor::Loaded::serial)).
    pub tensor: Option<u64>,
    /// The sample's shape and channel axis (a synthetic sample is 1-D: one channel).
    pub shape: Shape,
    /// The channel a per-channel quantizer is drawn for ([`crate::tensor::drawn_channel`]).
    pub channel: usize,
}

impl Setting {
    /// The setting of `state`'s figure.
    pub fn of(state: &State) -> Setting {
        Setting {
            x: state.x,
            training: state.mode.training(),
            seed: state.seed,
            sample: state.sample_spec(),
            block: state.drawn_block(),
            tensor: None,
            shape: crate::tensor::sample_shape(state, None),
            channel: 0,
        }
    }
}

/// What a curve was evaluated from: the same inputs give the same curve, so an unchanged
/// quantizer is not evaluated again when another one changes.
#[derive(Clone, Debug, PartialEq)]
pub struct Inputs {
    pub quantizer: Quantizer,
    pub x: (f32, f32),
    pub training: bool,
    pub seed: u64,
    /// The sample tensor, for a data-dependent quantizer other than a block format (which is
    /// frozen on the sweep's own block, see [`basis`]) and for a block format drawn at a
    /// sample block; None otherwise.
    pub sample: Option<SampleSpec>,
    /// The user's tensor in place of `sample`, when it counts (see [`Setting::tensor`]).
    pub tensor: Option<u64>,
    /// The tensor's shape and channel axis, when the sample counts.
    pub shape: Option<Shape>,
    /// For a block format, the sample block it is drawn at (see [`Setting::block`]).
    pub block: Option<usize>,
    /// For a per-channel quantizer on a shaped tensor, the channel it is drawn for.
    pub channel: Option<usize>,
}

impl Inputs {
    /// `q` in `setting`: the sample tensor counts only when `q` depends on it.
    pub fn new(q: &Quantizer, setting: &Setting) -> Inputs {
        let block = setting.block.filter(|_| q.block_size().is_some());
        let counts = q.is_data_dependent() && (q.block_size().is_none() || block.is_some());
        let per_channel = counts && q.layout() == Layout::Channels && setting.shape.channels() > 1;
        Inputs {
            quantizer: q.clone(),
            x: setting.x,
            training: setting.training,
            seed: setting.seed,
            sample: counts.then_some(setting.sample),
            tensor: setting.tensor.filter(|_| counts),
            shape: counts.then(|| setting.shape.clone()),
            block,
            channel: per_channel.then_some(setting.channel),
        }
    }
}

/// One compared quantizer, evaluated.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluated {
    pub inputs: Inputs,
    pub curve: Curve,
    /// The data-dependent numbers: from the sample tensor for a data-dependent quantizer (the
    /// curve is drawn for them), else from the x sweep.
    pub report: Report,
    pub levels: Levels,
    /// Why the library refuses this configuration in the current mode (the curve then shows
    /// the inference behaviour).
    pub unsupported: Option<String>,
    /// For a data-dependent quantizer: what the curve is frozen at.
    pub frozen: Option<String>,
    /// For a block format drawn at a sample block: that block (from 1); its numbers are
    /// `report.blocks[0]`.
    pub block: Option<usize>,
    /// For a per-channel quantizer on a shaped tensor: the channel the curve is drawn for
    /// ([`drawn_on`]).
    pub channels: Option<DrawnChannel>,
}

/// The channel a per-channel quantizer's curve is drawn for, of how many along which axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawnChannel {
    pub index: usize,
    pub count: usize,
    pub axis: usize,
}

/// Evaluates `inputs` over its x range: a data-dependent quantizer takes its scale or threshold
/// from the sample tensor `values` (which `inputs.sample` generates), a block format from the
/// sweep's own block ([`basis`]) or the sample block `inputs.block` (when the sample has it),
/// and is drawn frozen at it;
/// any other quantizer is evaluated over the sweep as one tensor.
pub fn evaluate(inputs: Inputs, values: &[f32]) -> Evaluated {
    let frozen = inputs.quantizer.is_data_dependent().then(|| frozen_report(&inputs, values));
    evaluate_frozen(inputs, frozen)
}

/// The half of [`evaluate`] that reads the tensor, for a data-dependent quantizer: the report
/// its curve is frozen at, and the sample block it is drawn at (when `inputs.block` names one
/// the tensor has). The page's worker computes this for a large tensor.
pub fn frozen_report(inputs: &Inputs, values: &[f32]) -> (Report, Option<usize>) {
    let q = &inputs.quantizer;
    let at_block =
        inputs.block.and_then(|k| frozen_at_block(q, inputs.training, inputs.seed, values, k).map(|(_, r)| (r, k)));
    match at_block {
        Some((report, k)) => (report, Some(k)),
        None => (frozen_on(q, inputs.training, inputs.seed, &basis(q, inputs.x, values)).1, None),
    }
}

/// The other half of [`evaluate`]: the curve of `inputs`, frozen at `frozen` (from
/// [`frozen_report`]) for a data-dependent quantizer.
pub fn evaluate_frozen(inputs: Inputs, frozen: Option<(Report, Option<usize>)>) -> Evaluated {
    let q = &inputs.quantizer;
    let (lo, hi) = inputs.x;
    let unsupported = q.unsupported(inputs.training);
    let mut ctx = context(inputs.training, inputs.seed);
    if let Some((report, block)) = frozen.filter(|_| q.is_data_dependent()) {
        let frozen = q.freeze(&report);
        let label = q.to_string();
        let mut point = |x: &[f32]| frozen.eval(x, &mut ctx);
        let curve = if q.is_stochastic(inputs.training) || !frozen.is_frozen() {
            Curve::sample_draws(label, lo, hi, SAMPLES, DRAWS, point)
        } else {
            Curve::sample(label, lo, hi, SAMPLES, &mut point)
        };
        let levels = frozen.levels(&report);
        let curve = curve.with_levels(levels.list(64));
        let channels = inputs.channel.zip(inputs.shape.as_ref()).map(|(index, s)| DrawnChannel {
            index,
            count: s.channels(),
            axis: s.axis,
        });
        let frozen = Some(frozen.describe());
        return Evaluated { inputs, curve, report, levels, unsupported, frozen, block, channels };
    }
    let (curve, report) = Curve::evaluate(q, lo, hi, SAMPLES, &mut ctx);
    let levels = q.levels(&report);
    Evaluated { inputs, curve, report, levels, unsupported, frozen: None, block: None, channels: None }
}

/// A data-dependent curve whose numbers are still being computed (by the page's worker): its
/// label and no points — no curve is better than one drawn for the wrong scale.
pub fn pending(inputs: Inputs) -> Evaluated {
    let curve = Curve {
        label: inputs.quantizer.to_string(),
        x: Vec::new(),
        y: Vec::new(),
        dydx: Vec::new(),
        levels: None,
        jumps: Vec::new(),
        true_dydx: Vec::new(),
        spread: None,
        hidden: false,
    };
    let unsupported = inputs.quantizer.unsupported(inputs.training);
    let (report, levels) = (Report::default(), Levels::Continuous);
    Evaluated { inputs, curve, report, levels, unsupported, frozen: None, block: None, channels: None }
}

/// Every slot evaluated in `setting` on the sample tensor `values` (generated from
/// `setting.sample`), in order; an evaluation in `previous` with the same inputs is reused.
pub fn evaluate_all(slots: &[Slot], setting: &Setting, values: &[f32], previous: &[Evaluated]) -> Vec<Evaluated> {
    slots
        .iter()
        .map(|s| {
            let inputs = Inputs::new(&s.quantizer, setting);
            match previous.iter().find(|e| e.inputs == inputs) {
                Some(e) => e.clone(),
                None => evaluate(inputs, &drawn_on(&s.quantizer, &setting.shape, setting.channel, values)),
            }
        })
        .collect()
}

/// The part of the sample a quantizer's curve is frozen on: a per-channel quantizer's channel
/// `channel` (its library's statistic is per channel), else the whole sample.
pub fn drawn_on<'a>(q: &Quantizer, shape: &Shape, channel: usize, values: &'a [f32]) -> Cow<'a, [f32]> {
    if q.layout() == Layout::Channels && shape.channels() > 1 {
        let channel = channel.min(shape.channels() - 1);
        Cow::Owned(shape.channel_indices(values.len(), channel).map(|i| values[i]).collect())
    } else {
        Cow::Borrowed(values)
    }
}

/// The curves of `evaluated`, each hidden as its slot is (a hidden curve keeps its place).
pub fn curves(slots: &[Slot], evaluated: &[Evaluated]) -> Vec<Curve> {
    evaluated.iter().zip(slots).map(|(e, s)| Curve { hidden: s.hidden, ..e.curve.clone() }).collect()
}

/// What the Selected panel shows about the selected quantizer's curve.
#[derive(Clone, Debug, PartialEq)]
pub struct Selected {
    pub report: Report,
    pub levels: Levels,
    pub unsupported: Option<String>,
    pub frozen: Option<String>,
    /// The sample block a block format is drawn at (see [`Evaluated::block`]).
    pub block: Option<usize>,
    /// See [`Evaluated::channels`].
    pub channels: Option<DrawnChannel>,
}

impl Selected {
    /// The numbers of `e`; continuous and empty when nothing is evaluated.
    pub fn of(e: Option<&Evaluated>) -> Selected {
        match e {
            Some(e) => Selected {
                report: e.report.clone(),
                levels: e.levels.clone(),
                unsupported: e.unsupported.clone(),
                frozen: e.frozen.clone(),
                block: e.block,
                channels: e.channels,
            },
            None => Selected {
                report: Report::default(),
                levels: Levels::Continuous,
                unsupported: None,
                frozen: None,
                block: None,
                channels: None,
            },
        }
    }
}

/// The figure `qscope plot` and the gallery write: `specs` (1 to [`MAX_CURVES`]) parsed and
/// evaluated over `x` with [`Curve::evaluate`] (the scale of a data-dependent spec comes from
/// the sweep, as in `qscope eval`), each from its own random stream seeded with `seed`, in
/// `mode`; a curve in inference mode says so in its label. Its link is the hash of the explorer
/// state comparing those quantizers over `x` in that mode and seed.
pub fn from_specs(specs: &[String], x: (f32, f32), mode: Mode, seed: u64) -> Result<Figure, String> {
    if specs.is_empty() {
        return Err("no spec to plot".into());
    }
    if specs.len() > MAX_CURVES {
        return Err(format!("{} specs: a figure compares at most {MAX_CURVES}", specs.len()));
    }
    if !(x.0.is_finite() && x.1.is_finite() && x.0 < x.1) {
        return Err(format!("x range {},{}: expected two finite numbers lo < hi", x.0, x.1));
    }
    let training = mode.training();
    let mut slots = Vec::with_capacity(specs.len());
    let mut curves = Vec::with_capacity(specs.len());
    for s in specs {
        let q = parse(s).map_err(|e| e.to_string())?;
        if let Some(why) = q.unsupported(training) {
            return Err(why);
        }
        let (mut c, _) = Curve::evaluate(&q, x.0, x.1, SAMPLES, &mut context(training, seed));
        if !training {
            c.label.push_str("  (inference)");
        }
        slots.push(Slot::new(q));
        curves.push(c);
    }
    let specs = slots.iter().map(|s| s.quantizer.to_string()).collect();
    let link = State { slots, x, mode, seed, ..State::default() }.to_hash();
    let view = Viewport { x: Some(x), ..Viewport::default() };
    // Written to a file for any page: light, or dark where the reader prefers it.
    let (size, theme, scheme) = ((720, 640), Theme::LIGHT, Scheme::FollowReader);
    Ok(Figure { specs, curves, view, infer: !training, seed, link, size, theme, scheme })
}

/// The figure the explorer shows for `state`: every slot evaluated as the page evaluates it
/// ([`evaluate_all`]: a data-dependent quantizer frozen at the numbers of the state's sample
/// tensor, a block format at the sweep's own block), hidden slots hidden, its link the state's
/// hash; with the evaluations (levels, what each curve is frozen at). The gallery's reference
/// pages draw with it, so a figure and the link beside it show the same curves.
pub fn from_state(state: &State) -> Result<(Figure, Vec<Evaluated>), String> {
    let specs: Vec<String> = state.slots.iter().map(|s| s.quantizer.to_string()).collect();
    let mut figure = from_specs(&specs, state.x, state.mode, state.seed)?;
    let setting = Setting::of(state);
    let evaluated = evaluate_all(&state.slots, &setting, &setting.sample.generate(), &[]);
    figure.curves = curves(&state.slots, &evaluated);
    if !setting.training {
        figure.curves.iter_mut().for_each(|c| c.label.push_str("  (inference)"));
    }
    figure.link = state.to_hash();
    Ok((figure, evaluated))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_with_a_pending_curve_draws_the_others_and_names_it() {
        let specs =
            ["qkeras.quantized_bits(4,0,1)".to_string(), "qkeras.quantized_bits(4,0,1,alpha='auto')".to_string()];
        let mut figure = from_specs(&specs, (-2.0, 2.0), Mode::Train, 0).unwrap();
        let auto = parse(&specs[1]).unwrap();
        let state = State { slots: vec![Slot::new(auto.clone())], ..State::default() };
        figure.curves[1] = pending(Inputs::new(&auto, &Setting::of(&state))).curve;
        let svg = figure.svg().unwrap();
        assert!(
            svg.contains("quantized_bits(bits=4, symmetric=True, alpha=&apos;auto&apos;)")
                || svg.contains("alpha='auto'"),
            "the legend names it"
        );
        assert!(figure.curves[1].at(0.5).is_none(), "no value read off a pending curve");
    }

    #[test]
    fn a_per_channel_quantizer_on_a_weight_is_drawn_for_its_first_channel() {
        let q = parse("qkeras.quantized_bits(4,0,1,alpha='auto')").unwrap();
        let state = State { slots: vec![Slot::new(q.clone())], ..State::default() };
        // 8 rows of 4 output channels, channel c spread (1 + c).
        let values: Vec<f32> = (0..32).map(|i| ((i * 5 % 7) as f32 - 3.0) * 0.2 * (1 + i % 4) as f32).collect();
        let setting = Setting { shape: Shape::new(vec![8, 4]), tensor: Some(1), ..Setting::of(&state) };
        let e = &evaluate_all(&state.slots, &setting, &values, &[])[0];
        assert_eq!(e.channels, Some(DrawnChannel { index: 0, count: 4, axis: 1 }));
        let first: Vec<f32> = (0..8).map(|r| values[r * 4]).collect();
        assert_eq!(e.report.scale, q.eval(&first, &mut qscope_quant::Ctx::training(0)).2.scale);
        let whole = &evaluate_all(&state.slots, &Setting::of(&state), &values, &[])[0];
        assert_eq!(whole.channels, None);
        assert_ne!(whole.report.scale, e.report.scale, "the whole tensor's scale is another");
    }

    #[test]
    fn a_per_channel_quantizer_is_drawn_for_the_chosen_channel_and_re_evaluated_when_it_changes() {
        let q = parse("qkeras.quantized_bits(4,0,1,alpha='auto')").unwrap();
        let state = State { slots: vec![Slot::new(q.clone())], ..State::default() };
        let values: Vec<f32> = (0..32).map(|i| ((i * 5 % 7) as f32 - 3.0) * 0.2 * (1 + i % 4) as f32).collect();
        let first = Setting { shape: Shape::new(vec![8, 4]), tensor: Some(1), ..Setting::of(&state) };
        let before = evaluate_all(&state.slots, &first, &values, &[]);
        let third = Setting { channel: 2, ..first };
        let e = &evaluate_all(&state.slots, &third, &values, &before)[0];
        assert_eq!(e.channels, Some(DrawnChannel { index: 2, count: 4, axis: 1 }));
        let column: Vec<f32> = (0..8).map(|r| values[r * 4 + 2]).collect();
        assert_eq!(e.report.scale, q.eval(&column, &mut qscope_quant::Ctx::training(0)).2.scale);
        assert_ne!(e.report.scale, before[0].report.scale);
    }

    #[test]
    fn the_channel_does_not_touch_a_quantizer_with_one_scale_for_the_tensor() {
        let q = parse("torchao.float8").unwrap();
        let state = State { slots: vec![Slot::new(q)], ..State::default() };
        let shaped = Setting { shape: Shape::new(vec![8, 4]), tensor: Some(1), channel: 3, ..Setting::of(&state) };
        assert_eq!(Inputs::new(&state.slots[0].quantizer, &shaped).channel, None);
    }

    fn specs(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_plotted_figure_links_to_the_state_that_shows_it() {
        let both = specs(&["qkeras.quantized_bits(4,0,1)", "larq.ste_sign"]);
        let fig = from_specs(&both, (-2.0, 2.0), Mode::Train, 0).unwrap();
        assert_eq!(fig.link, "#q=qkeras.quantized_bits(bits=4,symmetric=True)&q=larq.SteSign&x=-2,2");
        let fig = from_specs(&both[1..], (-0.5, 1.25), Mode::Infer, 7).unwrap();
        assert_eq!(fig.link, "#q=larq.SteSign&x=-0.5,1.25&mode=infer&seed=7");
    }

    #[test]
    fn the_link_reads_back_as_the_figures_state() {
        let fig = from_specs(&specs(&["quantized_relu(3,1)", "ste"]), (-1.5, 3.0), Mode::Infer, 11).unwrap();
        let (state, problems) = State::parse(&fig.link);
        assert!(problems.is_empty(), "{}: {problems:?}", fig.link);
        let shown: Vec<String> = state.slots.iter().map(|s| s.quantizer.to_string()).collect();
        assert_eq!(shown, fig.specs);
        assert_eq!((state.x, state.mode, state.seed), ((-1.5, 3.0), Mode::Infer, 11));
    }

    #[test]
    fn an_unchanged_quantizer_is_not_evaluated_again() {
        let mut state = State::default();
        state.add(parse("larq.ste_sign").unwrap()).unwrap();
        let setting = Setting::of(&state);
        let values = setting.sample.generate();
        let mut first = evaluate_all(&state.slots, &setting, &values, &[]);
        // A marker only a reused evaluation carries.
        first[0].frozen = Some("reused".into());
        state.set_selected(parse("larq.approx_sign").unwrap());
        let again = evaluate_all(&state.slots, &setting, &values, &first);
        assert_eq!(again[0].frozen.as_deref(), Some("reused"));
        assert_eq!((again.len(), again[1].curve.label.as_str()), (2, "larq.ApproxSign"));
        let moved = Setting { x: (-1.0, 1.0), ..setting };
        assert!(evaluate_all(&state.slots, &moved, &values, &first).iter().all(|e| e.frozen.is_none()));
    }

    #[test]
    fn the_sample_tensor_counts_only_for_a_data_dependent_quantizer() {
        let setting = Setting::of(&State::default());
        let plain = Inputs::new(&parse("qkeras.quantized_bits(4,0,1)").unwrap(), &setting);
        let auto = Inputs::new(&parse("qkeras.quantized_bits(4,0,1,alpha='auto')").unwrap(), &setting);
        assert_eq!((plain.sample, auto.sample), (None, Some(setting.sample)));
        let values = setting.sample.generate();
        let frozen = evaluate(auto, &values);
        assert!(frozen.frozen.is_some() && frozen.report.scale.is_some());
        assert!(evaluate(plain, &values).frozen.is_none());
    }

    #[test]
    fn a_block_format_is_drawn_at_the_sweeps_own_block_whatever_the_sample() {
        let mut state = State { slots: vec![Slot::new(parse("torchao.nvfp4").unwrap())], ..State::default() };
        let setting = Setting::of(&state);
        let first = evaluate(Inputs::new(&state.slots[0].quantizer, &setting), &setting.sample.generate());
        assert_eq!(first.inputs.sample, None);
        assert_eq!((first.report.blocks.len(), first.report.blocks[0].amax), (1, 2.0));
        state.sample.spread = 3.0;
        let setting = Setting::of(&state);
        let again = evaluate(Inputs::new(&state.slots[0].quantizer, &setting), &setting.sample.generate());
        assert_eq!(again.curve, first.curve);
    }

    #[test]
    fn a_block_format_at_a_sample_block_is_drawn_at_that_blocks_scale() {
        let state =
            State { slots: vec![Slot::new(parse("torchao.nvfp4").unwrap())], block: Some(3), ..State::default() };
        let setting = Setting::of(&state);
        let values = setting.sample.generate();
        let e = evaluate(Inputs::new(&state.slots[0].quantizer, &setting), &values);
        let run = state.slots[0].quantizer.eval(&values, &mut context(true, 0)).2;
        assert_eq!(
            (e.block, e.inputs.sample, e.report.blocks.clone()),
            (Some(3), Some(setting.sample), vec![run.blocks[2]])
        );
        let plain = Inputs::new(&parse("qkeras.quantized_bits(4,0,1)").unwrap(), &setting);
        assert_eq!((plain.block, plain.sample), (None, None));
    }

    #[test]
    fn a_hidden_slot_keeps_its_curve_and_place() {
        let mut state = State::default();
        state.add(parse("larq.ste_sign").unwrap()).unwrap();
        state.toggle_hidden(0);
        let setting = Setting::of(&state);
        let evaluated = evaluate_all(&state.slots, &setting, &setting.sample.generate(), &[]);
        let drawn = curves(&state.slots, &evaluated);
        assert_eq!(drawn.iter().map(|c| c.hidden).collect::<Vec<_>>(), vec![true, false]);
        assert_eq!(drawn[1].label, "larq.SteSign");
    }

    #[test]
    fn a_figure_from_a_state_draws_what_its_link_opens() {
        let mut state = State { slots: vec![Slot::new(parse("larq.MagnitudeAwareSign").unwrap())], ..State::default() };
        state.x = (-1.0, 3.0);
        let (fig, evaluated) = from_state(&state).unwrap();
        assert_eq!(fig.link, state.to_hash());
        let page = evaluate_all(&state.slots, &Setting::of(&state), &state.sample_spec().generate(), &[]);
        assert_eq!((fig.curves[0].clone(), evaluated), (page[0].curve.clone(), page));
    }

    #[test]
    fn nothing_selected_reads_as_continuous_and_empty() {
        assert_eq!(Selected::of(None).levels, Levels::Continuous);
        assert!(Selected::of(None).frozen.is_none());
    }

    #[test]
    fn a_figure_is_refused_without_specs_with_too_many_or_with_a_bad_range() {
        assert!(from_specs(&[], (-2.0, 2.0), Mode::Train, 0).is_err());
        assert!(from_specs(&vec!["ste".to_string(); MAX_CURVES + 1], (-2.0, 2.0), Mode::Train, 0).is_err());
        assert!(from_specs(&specs(&["ste"]), (1.0, -1.0), Mode::Train, 0).is_err());
    }
}
