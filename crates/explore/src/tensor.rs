//! A tensor from the user's own file as the explorer's sample: what it is (file, name, shape,
//! dtype), what reading it met (rounding casts, NaN and infinities), how a listing is shown, and
//! the page's size limit. The bytes are read by `qscope_tensors`; the page and the CLI share this.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::hash::quote;
use crate::state::State;
use qscope_plot::fmt_number;
use qscope_quant::shaped::Shape;
use qscope_quant::{Layout, Quantizer};
use qscope_tensors::{Info, Listing, Tensor};

/// The most elements the page takes as its sample: 64 M float32 values are 256 MB, and every
/// compared quantizer needs its output and gradient beside them. The CLI has no limit.
pub const PAGE_LIMIT: u64 = 64 << 20;

/// A tensor read from a file, ready to be the sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Loaded {
    /// The file's name (no folders): what a link records.
    pub file: String,
    /// The tensor's name in the file (`-` for a `.npy`).
    pub name: String,
    /// The dtype as the file writes it.
    pub dtype: String,
    /// Whether the cast to float32 can round (float64, wide integers).
    pub cast_rounds: bool,
    pub shape: Vec<usize>,
    /// Row-major float32 values, shared (the page hands them to several views).
    pub values: Arc<Vec<f32>>,
    pub rounded: usize,
    pub nan: usize,
    pub pos_inf: usize,
    pub neg_inf: usize,
    /// A number no other tensor read in this program has: what tells an evaluation on this
    /// tensor from one on another of the same name.
    pub serial: u64,
}

/// The next [`Loaded::serial`].
fn next_serial() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Loaded {
    pub fn new(file: String, info: &Info, t: Tensor) -> Loaded {
        Loaded {
            file,
            name: info.name.clone(),
            dtype: info.stored.clone(),
            cast_rounds: info.dtype.cast_rounds(),
            shape: t.shape,
            values: Arc::new(t.values),
            rounded: t.rounded,
            nan: t.nan,
            pos_inf: t.pos_inf,
            neg_inf: t.neg_inf,
            serial: next_serial(),
        }
    }

    /// A tensor of the trainer's (or any) float32 numbers, as if read from a file.
    pub fn from_values(file: &str, name: &str, shape: Vec<usize>, values: Vec<f32>) -> Loaded {
        let count = |f: fn(&f32) -> bool| values.iter().filter(|v| f(v)).count();
        Loaded {
            file: file.into(),
            name: name.into(),
            dtype: "F32".into(),
            cast_rounds: false,
            shape,
            nan: count(|v| v.is_nan()),
            pos_inf: count(|v| *v == f32::INFINITY),
            neg_inf: count(|v| *v == f32::NEG_INFINITY),
            rounded: 0,
            values: Arc::new(values),
            serial: next_serial(),
        }
    }

    /// Whether this is the tensor a state's `file=` and `tensor=` name.
    pub fn is(&self, file: Option<&str>, name: Option<&str>) -> bool {
        file == Some(self.file.as_str()) && name == Some(self.name.as_str())
    }

    /// `model.safetensors · layers.0.w · [768, 3072] · BF16`: what the sample is.
    pub fn describe(&self) -> String {
        format!("{} · {} · {} · {}", self.file, self.name, shape_text(&self.shape), self.dtype)
    }

    /// What reading met, for a note under the source: elements the cast rounded and values
    /// that are not finite (quantizers treat them as their library does; the error statistics
    /// leave them out). Empty when there is nothing to say.
    pub fn notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.rounded > 0 {
            out.push(format!(
                "{} of {} elements rounded by the cast from {} to float32",
                self.rounded,
                self.values.len(),
                self.dtype
            ));
        }
        let parts: Vec<String> = [(self.nan, "NaN"), (self.pos_inf, "+inf"), (self.neg_inf, "−inf")]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect();
        if !parts.is_empty() {
            out.push(format!("{} in the data (left out of MSE and SQNR)", parts.join(", ")));
        }
        out
    }
}

/// The sample's shape: the user's tensor's, with the state's channel axis (the last unless
/// `axis=` names another it has), or the synthetic sample's `[n]` (one channel).
pub fn sample_shape(state: &State, tensor: Option<&Loaded>) -> Shape {
    match tensor {
        Some(t) => {
            let shape = Shape::new(t.shape.clone());
            match state.axis {
                Some(a) => shape.clone().with_axis(a).unwrap_or(shape),
                None => shape,
            }
        }
        None => Shape::new(vec![state.sample_spec().n]),
    }
}

/// `state` with tensor `name` of `file` as the sample. The tensor its link names keeps the
/// link's block, channel axis and drawn channel (opening the file a link asked for restores the
/// whole view); another tensor starts from its own defaults.
pub fn pick(state: &mut State, file: String, name: String) {
    if !(state.file.as_ref() == Some(&file) && state.tensor.as_ref() == Some(&name)) {
        state.block = None;
        state.axis = None;
        state.channel = None;
    }
    state.file = Some(file);
    state.tensor = Some(name);
}

/// The channel a per-channel quantizer is drawn for on `shape`: the state's `channel=`, the
/// last channel when it names one beyond the tensor's (a link opened on another tensor).
pub fn drawn_channel(state: &State, shape: &Shape) -> usize {
    state.channel.unwrap_or(0).min(shape.channels() - 1)
}

/// How `q` takes its statistics from a tensor of `shape`, as its library does
/// ([`Quantizer::layout`]), and the parameter that changes it — the granularity, in words.
pub fn granularity(q: &Quantizer, shape: &Shape) -> String {
    let shape = q.seen_shape(shape);
    let set_by = |names: &[&str]| {
        let p = q.params().iter().find(|p| names.contains(&p.name));
        p.map(|p| format!(" ({} sets it)", p.name)).unwrap_or_default()
    };
    let blocks = ["group_size", "block_size", "blocksize"];
    let shaped = shape.dims.len() >= 2;
    match (q.layout(), q.block_size()) {
        (Layout::Elementwise, _) => "element by element: nothing is taken from the tensor".into(),
        (Layout::Flat, Some(b)) => format!("blocks of {b} over the flattened tensor{}", set_by(&blocks)),
        (Layout::Flat, None) => "one statistic for the whole tensor".into(),
        (Layout::Rows, Some(b)) if shaped => {
            format!("blocks of {b} along axis {}, row by row{}", shape.axis, set_by(&blocks))
        }
        (Layout::Rows, Some(b)) => format!("blocks of {b} along the tensor{}", set_by(&blocks)),
        (Layout::Rows, None) if shaped => format!("row by row along axis {}", shape.axis),
        (Layout::Rows, None) => "one row: the whole tensor".into(),
        (Layout::Channels, _) if shape.channels() > 1 => format!(
            "per channel: one scale for each of the {} channels of axis {}{}",
            shape.channels(),
            shape.axis,
            set_by(&["alpha"])
        ),
        (Layout::Channels, _) => "one scale for the whole tensor (one channel)".into(),
    }
}

/// The `file=` of a tensor handed over by the Train view's "Inspect weights".
pub const TRAINER_FILE: &str = "trainer";

/// A trained layer's latent weights (`n_in × n_out`, row-major, as a Keras Dense kernel: the
/// last axis is the output channel) as the sample, named for the layer.
pub fn trained_layer(layer: &str, n_in: usize, n_out: usize, weights: &[f32]) -> Loaded {
    Loaded::from_values(TRAINER_FILE, &format!("{layer} weights"), vec![n_in, n_out], weights.to_vec())
}

/// What the page says when a link names a tensor it has not read.
pub fn missing_message(file: &str, tensor: &str) -> String {
    if file == TRAINER_FILE {
        format!(
            "This link's sample was the {} of a net trained in the Train view: train it again and use Inspect weights; the synthetic sample is shown meanwhile.",
            quote(tensor)
        )
    } else {
        format!(
            "This link's sample is tensor {} of {}: open that file again to see it; the synthetic sample is shown meanwhile.",
            quote(tensor),
            quote(file)
        )
    }
}

/// `[768, 3072]`.
pub fn shape_text(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("[{}]", dims.join(", "))
}

/// `Err` with a message naming the size and the limit when a tensor is too large for the page.
pub fn check_page_limit(info: &Info) -> Result<(), String> {
    if info.elements <= PAGE_LIMIT {
        return Ok(());
    }
    Err(format!(
        "{} has {} elements, above the page's limit of {} ({} M). The command line has no limit: qscope compare --tensor FILE:{}",
        info.name,
        fmt_count(info.elements),
        fmt_count(PAGE_LIMIT),
        PAGE_LIMIT >> 20,
        info.name
    ))
}

/// `12,582,912`.
pub fn fmt_count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The first `max` tensor names of a listing, and how many more.
pub fn describe_listing(l: &Listing, max: usize) -> String {
    let names: Vec<&str> = l.tensors.iter().take(max).map(|t| t.name.as_str()).collect();
    let more = l.tensors.len().saturating_sub(max);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    if names.is_empty() { "no tensor qscope reads".into() } else { format!("{}{more}", names.join(", ")) }
}

/// One tab-separated line per tensor: name, dtype, shape, elements (`qscope tensors`).
pub fn listing_rows(l: &Listing) -> Vec<String> {
    l.tensors.iter().map(|t| format!("{}\t{}\t{}\t{}", t.name, t.stored, shape_text(&t.shape), t.elements)).collect()
}

/// A string as a JSON string literal.
pub fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out += "\\\"",
            '\\' => out += "\\\\",
            c if (c as u32) < 0x20 => out += &format!("\\u{:04x}", c as u32),
            c => out.push(c),
        }
    }
    out + "\""
}

/// `1.5 M elements`, for the listing's size column.
pub fn fmt_size(elements: u64) -> String {
    match elements {
        n if n >= 1 << 20 => format!("{} M", fmt_number(n as f64 / f64::from(1u32 << 20))),
        n if n >= 1 << 10 => format!("{} K", fmt_number(n as f64 / 1024.0)),
        n => n.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qscope_tensors::{Dtype, Endian, Location};

    fn info(elements: u64) -> Info {
        Info {
            name: "w".into(),
            dtype: Dtype::BF16,
            endian: Endian::Little,
            stored: "BF16".into(),
            shape: vec![elements as usize],
            fortran: false,
            elements,
            location: Location::Raw { offset: 0 },
        }
    }

    #[test]
    fn a_tensor_above_the_page_limit_is_refused_naming_both_sizes_and_the_cli() {
        assert!(check_page_limit(&info(PAGE_LIMIT)).is_ok());
        let e = check_page_limit(&info(PAGE_LIMIT + 1)).unwrap_err();
        assert!(e.contains("67,108,865") && e.contains("67,108,864") && e.contains("qscope compare --tensor"), "{e}");
    }

    #[test]
    fn the_source_line_names_file_tensor_shape_and_dtype() {
        let l = Loaded::new(
            "m.safetensors".into(),
            &info(2),
            Tensor { values: vec![1.0, f32::NAN], shape: vec![2], nan: 1, ..Tensor::default() },
        );
        assert_eq!(l.describe(), "m.safetensors · w · [2] · BF16");
        assert_eq!(l.notes(), ["1 NaN in the data (left out of MSE and SQNR)"]);
    }

    #[test]
    fn the_granularity_names_the_libraries_grouping_and_the_parameter_that_sets_it() {
        let q = |s: &str| qscope_quant::parse(s).unwrap();
        let w = Shape::new(vec![64, 48]);
        let g = |spec: &str, shape: &Shape| granularity(&q(spec), shape);
        assert_eq!(
            g("torchao.affine(group_size=32)", &w),
            "blocks of 32 along axis 1, row by row (group_size sets it)"
        );
        assert_eq!(
            g("torchao.affine(group_size=32)", &w.clone().with_axis(0).unwrap()),
            "blocks of 32 along axis 0, row by row (group_size sets it)"
        );
        assert_eq!(g("bnb.nf4", &w), "blocks of 64 over the flattened tensor (blocksize sets it)");
        assert_eq!(g("torchao.float8", &w), "one statistic for the whole tensor");
        assert_eq!(
            g("qkeras.quantized_bits(4,0,1,alpha='auto')", &w),
            "per channel: one scale for each of the 48 channels of axis 1 (alpha sets it)"
        );
        assert_eq!(
            g("qkeras.quantized_bits(4,0,1,alpha='auto',scale_axis=0)", &w),
            "per channel: one scale for each of the 64 channels of axis 0 (alpha sets it)"
        );
        assert_eq!(g("ml_dtypes.float8_e4m3fn", &w), "element by element: nothing is taken from the tensor");
        assert_eq!(
            g("qkeras.quantized_bits(4,0,1,alpha='auto')", &Shape::new(vec![100])),
            "one scale for the whole tensor (one channel)"
        );
    }

    #[test]
    fn the_links_own_tensor_keeps_its_axis_and_channel_and_another_starts_afresh() {
        let named = State {
            file: Some("w.safetensors".into()),
            tensor: Some("fc1".into()),
            axis: Some(0),
            channel: Some(5),
            block: Some(2),
            ..State::default()
        };
        let mut same = named.clone();
        pick(&mut same, "w.safetensors".into(), "fc1".into());
        assert_eq!(same, named);
        let mut other = named.clone();
        pick(&mut other, "w.safetensors".into(), "fc2".into());
        assert_eq!((other.axis, other.channel, other.block), (None, None, None));
        assert_eq!(other.tensor.as_deref(), Some("fc2"));
    }

    #[test]
    fn the_drawn_channel_stays_within_the_tensors_channels() {
        let st = |c| State { channel: c, ..State::default() };
        let w = Shape::new(vec![64, 48]);
        assert_eq!(drawn_channel(&st(None), &w), 0);
        assert_eq!(drawn_channel(&st(Some(7)), &w), 7);
        assert_eq!(drawn_channel(&st(Some(480)), &w), 47);
        assert_eq!(drawn_channel(&st(Some(3)), &Shape::new(vec![100])), 0, "a 1-D tensor is one channel");
    }

    #[test]
    fn a_trained_layer_is_a_dense_kernel_named_for_its_layer() {
        let l = trained_layer("hidden 1", 2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(l.describe(), "trainer · hidden 1 weights · [2, 3] · F32");
        assert!(missing_message(&l.file, &l.name).contains("Inspect weights"));
        assert!(missing_message("m.safetensors", "w").contains("open that file again"));
    }

    #[test]
    fn json_strings_escape_quotes_and_controls() {
        assert_eq!(json_string("a\"b\\c\n"), r#""a\"b\\c\u000a""#);
    }
}
