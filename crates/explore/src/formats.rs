//! The format comparison, "which format?": every compared quantizer run on the sample tensor,
//! its MSE and SQNR against the bits it stores per element, scale overhead included
//! ([`Quantizer::bits_per_element`]: MXFP4 4.25, NVFP4 and NF4 4.5, int4 in groups of 32 with
//! a float16 scale and zero point 5), as a table and as a scatter ([`qscope_plot::formats`]).
//! Everything is generic over the catalogue: a block format takes part as soon as it is in it.
//!
//! [`PRESET`] is a useful default set, looked up by spec: a spec the catalogue does not parse
//! (a format not built into this qscope) is skipped, so the preset never breaks.

use super::drawn::context;
use super::metrics::{Sums, error_of, sums};
use super::sample::settings::Sample;
use super::state::{MAX_QUANTIZERS, Mode, Slot, State, compact};
use super::tensor::Loaded;
use qscope_plot::Theme;
use qscope_plot::formats::{Comparison, FormatFigure, FormatPoint};
use qscope_plot::svg::{Scheme, Words};
use qscope_quant::shaped::{Pieces, Shape};
use qscope_quant::{Ctx, Quantizer, Report, parse};

/// One quantizer of the comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Its slot (and so its colour).
    pub slot: usize,
    /// The canonical spec.
    pub spec: String,
    /// The short name on the figure (see [`labels`]).
    pub label: String,
    /// Bits per element, scales included; `None` for continuous outputs.
    pub bits: Option<f32>,
    pub mse: f64,
    pub sqnr_db: f64,
    /// Elements whose output is NaN or ±inf (an overflow to NaN): left out of MSE and SQNR.
    pub not_finite: usize,
}

/// Every shown slot run on `values` (the sample tensor, of `shape`) in the given mode and seed,
/// in order; hidden slots are left out, as the figure leaves out their curves.
pub fn compare(slots: &[Slot], training: bool, seed: u64, values: &[f32], shape: &Shape) -> Vec<Row> {
    compare_in(slots, training, seed, values, shape, &mut Vec::new()).rows
}

/// A comparison with the tensor's own sums: what a scan pools over tensors.
#[derive(Clone, Debug, PartialEq)]
pub struct Compared {
    pub rows: Vec<Row>,
    /// Σx² over the finite elements.
    pub signal: f64,
    /// The finite elements.
    pub finite: usize,
}

/// Elements quantized and measured at a time where a quantizer allows it
/// ([`Quantizer::apply_pieces`]): inputs and outputs of a piece (128 KB) stay in the cache
/// between the quantizer and the sums, instead of a tensor's outputs going to memory and back.
const PIECE: usize = 1 << 14;

/// [`compare`] with the outputs written to `scratch` (resized as needed): a scan comparing tensor
/// after tensor keeps one buffer.
pub fn compare_in(
    slots: &[Slot],
    training: bool,
    seed: u64,
    values: &[f32],
    shape: &Shape,
    scratch: &mut Vec<f32>,
) -> Compared {
    compare_with(slots, training, seed, values, shape, scratch, &mut || {})
}

/// [`compare_in`], calling `done` after each shown quantizer (a progress bar's steps).
pub fn compare_with(
    slots: &[Slot],
    training: bool,
    seed: u64,
    values: &[f32],
    shape: &Shape,
    scratch: &mut Vec<f32>,
    done: &mut dyn FnMut(),
) -> Compared {
    // The tensor's own Σx² and finite count, summed beside the first quantizer's error while each
    // piece is in the cache (the same lanes and order as one pass, so the same bits).
    let mut own: Option<Sums> = None;
    let rows = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.hidden)
        .map(|(slot, s)| {
            let q = &s.quantizer;
            // Only the error is needed: no sort for the levels used (a checkpoint's tensors are big).
            let (mut acc, mut tensor) = (Sums::default(), own.is_none().then(Sums::default));
            let reports = q.apply_pieces(values, shape, &mut context(training, seed), PIECE, scratch, |x, y| {
                match tensor.as_mut() {
                    Some(t) => acc.add_and_own(x, y, t),
                    None => acc.add(x, Some(y)),
                }
            });
            own = own.or(tensor);
            done();
            (slot, q, reports.into_iter().next().unwrap_or_default(), acc)
        })
        .collect::<Vec<_>>();
    let own = own.map_or_else(|| sums(values, None), |s| s.total());
    compared(slots, rows, own)
}

/// The comparison's rows from each shown slot's quantizer, first report and sums, and the
/// tensor's own sums.
fn compared(
    slots: &[Slot],
    rows: Vec<(usize, &Quantizer, Report, Sums)>,
    (signal, _, finite): (f64, f64, usize),
) -> Compared {
    let shown: Vec<String> = slots.iter().filter(|s| !s.hidden).map(|s| s.quantizer.to_string()).collect();
    let mut names = labels(&shown).into_iter();
    let rows = rows
        .into_iter()
        .map(|(slot, q, report, acc)| {
            let (mse, sqnr_db, count) = error_of(acc.total());
            Row {
                slot,
                label: names.next().unwrap_or_default(),
                spec: q.to_string(),
                bits: q.bits_per_element(&report),
                mse,
                sqnr_db,
                not_finite: finite - count,
            }
        })
        .collect();
    Compared { rows, signal, finite }
}

/// [`compare_in`] fed the tensor piece by piece as it is read ([`Streamed::feed`]): each piece
/// goes through every shown quantizer while it is in the cache, and the tensor is never held
/// whole. The same numbers as [`compare_in`], bit for bit; only where every shown quantizer can
/// be cut into pieces ([`Quantizer::pieces`]) and the tensor is longer than one piece.
pub struct Streamed<'a> {
    slots: &'a [Slot],
    /// Per shown slot: its index, how it is cut, its context (kept from piece to piece), its
    /// first report and its sums.
    each: Vec<(usize, Pieces, Ctx, Option<Report>, Sums)>,
    own: Sums,
}

/// The longest piece a [`Streamed`] comparison is fed (the least common multiple of the
/// quantizers' pieces): 4 MB of float32.
const STREAMED_MAX: usize = 1 << 20;

impl<'a> Streamed<'a> {
    /// The comparison of a tensor of `shape`, and the length of the pieces to feed it; `None`
    /// where it must see the whole tensor ([`compare_in`]).
    pub fn new(slots: &'a [Slot], training: bool, seed: u64, shape: &Shape) -> Option<(Streamed<'a>, usize)> {
        let elements: usize = shape.dims.iter().product();
        let mut len = 1usize;
        let mut each = Vec::new();
        for (slot, s) in slots.iter().enumerate().filter(|(_, s)| !s.hidden) {
            let pieces = s.quantizer.pieces(shape, training, PIECE)?;
            len = lcm(len, pieces.len).filter(|&l| l <= STREAMED_MAX)?;
            each.push((slot, pieces, context(training, seed), None, Sums::default()));
        }
        (elements > PIECE && !each.is_empty()).then_some((Streamed { slots, each, own: Sums::default() }, len))
    }

    /// The next piece of the tensor, in order: [`Streamed::new`]'s length (the last may be
    /// shorter).
    pub fn feed(&mut self, x: &[f32], scratch: &mut Vec<f32>) {
        let Streamed { slots, each, own } = self;
        for (k, (slot, pieces, ctx, first, acc)) in each.iter_mut().enumerate() {
            let q = &slots[*slot].quantizer;
            scratch.resize(pieces.len.min(x.len()), 0.0);
            for xp in x.chunks(pieces.len) {
                let yp = &mut scratch[..xp.len()];
                let report = q.apply_piece(pieces, xp, yp, ctx);
                first.get_or_insert(report);
                // The tensor's own sums beside the first quantizer's, as in [`compare_in`].
                if k == 0 { acc.add_and_own(xp, yp, own) } else { acc.add(xp, Some(yp)) }
            }
        }
    }

    /// The comparison of every piece fed.
    pub fn finish(self) -> Compared {
        let rows = self
            .each
            .into_iter()
            .map(|(slot, _, _, first, acc)| (slot, &self.slots[slot].quantizer, first.unwrap_or_default(), acc))
            .collect();
        compared(self.slots, rows, self.own.total())
    }
}

/// The least common multiple, `None` when it overflows.
fn lcm(a: usize, b: usize) -> Option<usize> {
    let gcd = |mut a: usize, mut b: usize| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    (a / gcd(a, b)).checked_mul(b)
}

/// Short names for `specs` on the figure: each spec without its namespace and spaces, and,
/// where several share a name, without the arguments they all share
/// (`quantized_bits(bits=4,alpha='auto')` beside `quantized_bits(alpha='auto')` is
/// `quantized_bits(bits=4)` beside `quantized_bits`).
pub fn labels(specs: &[String]) -> Vec<String> {
    let parts: Vec<(String, Vec<String>)> = specs.iter().map(|s| split(&compact(s))).collect();
    parts
        .iter()
        .map(|(name, args)| {
            let same: Vec<&Vec<String>> = parts.iter().filter(|(n, _)| n == name).map(|(_, a)| a).collect();
            let kept: Vec<&str> = match same.len() {
                1 => args.iter().map(String::as_str).collect(),
                _ => args.iter().filter(|a| !same.iter().all(|o| o.contains(a))).map(String::as_str).collect(),
            };
            if kept.is_empty() { name.clone() } else { format!("{name}({})", kept.join(",")) }
        })
        .collect()
}

/// `torchao.mx(elem_dtype='fp4_e2m1',block_size=16)` → `mx` and its arguments.
fn split(spec: &str) -> (String, Vec<String>) {
    let open = spec.find('(').unwrap_or(spec.len());
    let name = spec[..open].rsplit('.').next().unwrap_or_default().to_string();
    let inner = spec[open..].strip_prefix('(').and_then(|r| r.strip_suffix(')')).unwrap_or_default();
    let (mut args, mut depth, mut quote, mut start) = (Vec::new(), 0i32, None, 0);
    for (i, c) in inner.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                args.push(inner[start..i].to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !inner.is_empty() {
        args.push(inner[start..].to_string());
    }
    (name, args)
}

/// The preset "compare formats", in order of preference: FP8 with a tensor scale, int8, the
/// block formats (MXFP4, NVFP4, NF4, int4 in groups of 32), then int4, FP8 E5M2 and the plain
/// FP4 and FP8 casts. [`preset`] takes the first [`MAX_QUANTIZERS`] the catalogue parses.
pub const PRESET: [&str; 10] = [
    "torchao.float8",
    "qkeras.quantized_bits(8,0,1,alpha='auto')",
    "torchao.mx(elem_dtype='fp4_e2m1')",
    "torchao.nvfp4",
    "bnb.nf4",
    "torchao.affine(mapping_type='asymmetric',group_size=32)",
    "qkeras.quantized_bits(4,0,1,alpha='auto')",
    "torchao.float8(float8_dtype='float8_e5m2')",
    "ml_dtypes.float4_e2m1fn",
    "ml_dtypes.float8_e4m3fn",
];

/// The preset's quantizers: [`PRESET`]'s specs that parse, at most [`MAX_QUANTIZERS`].
pub fn preset() -> Vec<Quantizer> {
    PRESET.iter().filter_map(|s| parse(s).ok()).take(MAX_QUANTIZERS).collect()
}

/// `state` comparing the preset (its first format selected), everything else kept.
pub fn with_preset(state: &State) -> State {
    let slots = preset().into_iter().map(Slot::new).collect();
    State { slots, selected: 0, hide: Vec::new(), ..state.clone() }
}

/// An MSE with four significant digits, `6.040e−4`.
pub fn fmt_mse(v: f64) -> String {
    if v == 0.0 || !v.is_finite() { qscope_plot::fmt_number(v) } else { format!("{v:.3e}").replace('-', "−") }
}

/// The mean square of the finite values: the signal power that SQNR divides by.
pub fn signal(values: &[f32]) -> f64 {
    let (sum, _, n) = super::metrics::sums(values, None);
    if n == 0 { 0.0 } else { sum / n as f64 }
}

/// What the comparison ran on, for its subtitle: the synthetic sample and its seed, or the
/// user's tensor.
pub fn about(sample: &Sample, tensor: Option<&Loaded>, seed: u64, fmt: impl Fn(f64) -> String) -> String {
    match tensor {
        Some(t) => format!("on {}", t.describe()),
        None => format!("on the sample: {}, seed {seed}", sample.describe(fmt)),
    }
}

/// What the scatter draws of `rows` on `values`, described by `about` ([`about`]).
pub fn comparison(rows: &[Row], values: &[f32], about: String) -> Comparison {
    comparison_of(rows, signal(values), about)
}

impl Compared {
    /// The tensor's mean square ([`signal`]) from its sums.
    pub fn mean_square(&self) -> f64 {
        if self.finite == 0 { 0.0 } else { self.signal / self.finite as f64 }
    }
}

/// [`comparison`] of a tensor whose mean square ([`signal`]) is `signal`.
pub fn comparison_of(rows: &[Row], signal: f64, about: String) -> Comparison {
    let points = rows
        .iter()
        .filter_map(|r| {
            r.bits.map(|bits| FormatPoint { label: r.label.clone(), colour: r.slot, bits, sqnr_db: r.sqnr_db })
        })
        .collect();
    Comparison { points, signal, subtitle: about }
}

/// The comparison of `state`'s shown quantizers on its sample tensor (or the user's `tensor`), as
/// a figure of `size` whose link is `link` (the page's address and the state's hash; the CLI's
/// hash alone), in `theme` whatever the reader's colour scheme (the CLI may set
/// [`FormatFigure::scheme`]).
pub fn figure(state: &State, tensor: Option<&Loaded>, link: String, size: (u32, u32), theme: Theme) -> FormatFigure {
    let generated;
    let values: &[f32] = match tensor {
        Some(t) => &t.values,
        None => {
            generated = state.sample_spec().generate();
            &generated
        }
    };
    let shape = crate::tensor::sample_shape(state, tensor);
    let compared = compare_in(&state.slots, state.mode.training(), state.seed, values, &shape, &mut Vec::new());
    figure_of(state, tensor, &compared, link, size, theme)
}

/// [`figure`] of a comparison already made (the page's, which its worker may have made).
pub fn figure_of(
    state: &State,
    tensor: Option<&Loaded>,
    compared: &Compared,
    link: String,
    size: (u32, u32),
    theme: Theme,
) -> FormatFigure {
    let rows = &compared.rows;
    let about = about(&state.sample, tensor, state.seed, qscope_plot::fmt_number);
    let comparison = comparison_of(rows, compared.mean_square(), about);
    let mode = if state.mode == Mode::Infer { ", inference" } else { "" };
    let words = Words {
        title: format!(
            "qscope: which format? {}",
            rows.iter().map(|r| r.label.as_str()).collect::<Vec<_>>().join("; ")
        ),
        description: format!(
            "SQNR and MSE against bits per element (scales included) of {} {}{mode}. Open in qscope: {link}",
            rows.iter().map(|r| r.spec.as_str()).collect::<Vec<_>>().join("; "),
            comparison.subtitle
        ),
        specs: rows.iter().map(|r| r.spec.clone()).collect(),
        link,
    };
    FormatFigure { comparison, words, size, theme, scheme: Scheme::Fixed }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(specs: &[&str]) -> State {
        let slots = specs.iter().map(|s| Slot::new(parse(s).unwrap())).collect();
        State { slots, ..State::default() }
    }

    fn rows(st: &State) -> Vec<Row> {
        compare(&st.slots, st.mode.training(), st.seed, &st.sample_spec().generate(), &Shape::new(vec![1000]))
    }

    #[test]
    fn each_shown_quantizer_gets_its_bits_and_errors_on_the_sample() {
        let mut st = state(&["qkeras.quantized_bits(8,0,1,alpha='auto')", "ml_dtypes.float8_e4m3fn", "larq.ste_sign"]);
        st.toggle_hidden(2);
        let r = rows(&st);
        assert_eq!(r.iter().map(|r| (r.slot, r.bits)).collect::<Vec<_>>(), vec![(0, Some(8.0)), (1, Some(8.0))]);
        assert_eq!(r[1].label, "float8_e4m3fn");
        assert!(r.iter().all(|r| r.mse > 0.0 && r.sqnr_db > 20.0 && r.not_finite == 0), "{r:?}");
    }

    #[test]
    fn more_bits_of_the_same_kind_give_a_higher_sqnr_and_lower_mse() {
        let r =
            rows(&state(&["qkeras.quantized_bits(4,0,1,alpha='auto')", "qkeras.quantized_bits(8,0,1,alpha='auto')"]));
        assert!(r[1].sqnr_db > r[0].sqnr_db + 15.0 && r[1].mse < r[0].mse, "{r:?}");
    }

    #[test]
    fn sqnr_and_mse_agree_through_the_signal_power() {
        let st = state(&["ml_dtypes.float6_e2m3fn"]);
        let values = st.sample_spec().generate();
        let r = &compare(&st.slots, true, 0, &values, &Shape::new(vec![values.len()]))[0];
        let from_mse = 10.0 * (signal(&values) / r.mse).log10();
        assert!((from_mse - r.sqnr_db).abs() < 1e-9, "{from_mse} {}", r.sqnr_db);
    }

    #[test]
    fn outputs_that_overflow_to_nan_are_counted_and_left_out() {
        let mut st = state(&["ml_dtypes.float8_e4m3fn"]);
        st.sample = Sample { spread: 100.0, outliers: 0.01, ..Sample::default() };
        let r = &rows(&st)[0];
        assert_eq!(r.not_finite, 10, "outliers at 1000 to 2000 are beyond e4m3fn's 464");
    }

    #[test]
    fn a_comparisons_own_sums_give_the_signal_of_one_pass() {
        let values: Vec<f32> = (0..45 * 37).map(|i| ((i * 7919 % 1013) as f32 - 506.0) * 1e-3).collect();
        for (spec, dims) in
            [("torchao.nvfp4", vec![45, 37]), ("bnb.nf4", vec![45 * 37]), ("torchao.float8", vec![37, 45])]
        {
            let slots = vec![Slot::new(parse(spec).unwrap())];
            let c = compare_in(&slots, false, 0, &values, &Shape::new(dims), &mut Vec::new());
            assert_eq!(c.mean_square().to_bits(), signal(&values).to_bits(), "{spec}");
        }
    }

    #[test]
    fn labels_drop_the_namespace_and_the_arguments_a_family_shares() {
        let specs = [
            "qkeras.quantized_bits(symmetric=True, alpha='auto')",
            "qkeras.quantized_bits(bits=4, symmetric=True, alpha='auto')",
            "torchao.float8",
            "torchao.float8(float8_dtype='float8_e5m2')",
            "torchao.mx(elem_dtype='fp4_e2m1', block_size=16)",
        ];
        let specs: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            labels(&specs),
            [
                "quantized_bits",
                "quantized_bits(bits=4)",
                "float8",
                "float8(float8_dtype='float8_e5m2')",
                "mx(elem_dtype='fp4_e2m1',block_size=16)"
            ]
        );
        assert_eq!(split("f(a=(1,2),b='x,y')").1, ["a=(1,2)", "b='x,y'"]);
    }

    #[test]
    fn the_preset_takes_the_formats_this_catalogue_has() {
        let p = preset();
        assert!(!p.is_empty() && p.len() <= MAX_QUANTIZERS);
        let available = PRESET.iter().filter(|s| parse(s).is_ok()).count();
        assert_eq!(p.len(), available.min(MAX_QUANTIZERS));
        assert_eq!(p[0].to_string(), "torchao.float8");
        let st = with_preset(&State { seed: 9, ..State::default() });
        assert_eq!((st.slots.len(), st.selected, st.seed), (p.len(), 0, 9));
    }

    #[test]
    fn the_figure_carries_every_spec_and_the_link() {
        let st = state(&["ml_dtypes.float4_e2m1fn", "torchao.float8"]);
        let fig = figure(&st, None, st.to_hash(), (720, 440), Theme::LIGHT);
        assert_eq!(fig.words.specs, vec!["ml_dtypes.float4_e2m1fn", "torchao.float8"]);
        assert_eq!(fig.comparison.points.len(), 2);
        assert!(fig.words.description.ends_with(&st.to_hash()), "{}", fig.words.description);
        assert!(fig.svg().unwrap().contains("float4_e2m1fn"));
    }
}
