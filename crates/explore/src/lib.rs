//! The explorer's analysis model: pure Rust, no web dependency, shared by the browser UI and
//! the CLI.
//!
//! - [`sample`] — the sample tensor that data-dependent quantizers (`alpha='auto'`, TWN,
//!   magnitude-aware signs, DoReFa weights, LSQ's initial step…) see, and its histogram; such a
//!   quantizer is frozen at the numbers it gives ([`Quantizer::freeze`](qscope_quant::Quantizer::freeze)),
//!   so a transfer curve over an x sweep is "the curve for that scale".
//! - [`metrics`] — MSE, SQNR, levels used and clip fraction of a quantized sample.
//! - [`analysis`] — what the panels compute on the sample, as questions and answers: answered on
//!   the page for a small sample, in the page's worker for a large tensor; [`wire`] — their bytes
//!   between the two (lengths checked, a malformed message an error).
//! - [`hardware`] — the fixed-point type (`ap_fixed`/`ac_fixed`) behind a quantizer, and
//!   warnings about configurations that surprise users.
//! - [`explain`] — the computation at one x, step by step, with the numbers the kernels give.
//! - [`code`] — "copy as code": QKeras, Larq, PyTorch and `qscope` CLI snippets.
//! - [`channels`] — a shaped tensor channel by channel: each channel's SQNR, amax and scale; the
//!   worst and the outlier channels.
//! - [`blocks`] — a block format on the sample, block by block: the block its curve is drawn
//!   at (`block=k`) and the block view's rows (scale, code, codes used, error per block).
//! - [`drawn`] — a quantizer as the figure draws it: its value and gradient at one x, its
//!   levels, its run on the sample tensor.
//! - [`figure`] — the figure before drawing: every compared quantizer evaluated into a curve
//!   (unchanged ones reused), the Selected panel's numbers, and the figure `qscope plot`
//!   writes, with the link its state writes.
//! - [`layout`] — a small float format's bit layout (sign, exponent, mantissa), bias, edge
//!   values and special codes, for the Selected panel.
//! - [`formats`] — the format comparison, "which format?": MSE and SQNR on the sample against
//!   bits per element (scales included), and the preset that fills the comparison.
//! - [`hash`] — how a link's hash is written: parts, encoding, switches, bounded messages.
//! - [`settings`] — one table per set of settings (key, flag, range, label, doc, read, show),
//!   driving hashes, messages, controls, the CLI's options and the book; [`keys`] writes the
//!   book's page of every table.
//! - [`learned`] — a trained net's learned quantizer parameters (LSQ's step, PACT's clip), named
//!   for the weight histograms and `qscope train`.
//! - [`lesson`] — classroom lessons: Markdown steps, each a state of a view, with "try it"
//!   tasks checked live, opened from a file, a built-in name or a link carrying the lesson.
//! - [`one_batch`] — "show one batch": one training step told from one weight's side.
//! - [`pace`] — the Train view's pace (epochs per second) and what its Step button takes.
//! - [`page`] — the page's own hash keys around a view's: the open lesson and step, embed
//!   and presenter modes.
//! - [`qr`] — links for phones: a link as a QR code, and what the presenter's "follow on your
//!   phone" code carries.
//! - `reference` (native only) — `qscope gallery`'s browsable reference: the index by library and
//!   one page per quantizer (formulas, parameters, levels, code, live and embed links).
//! - [`scan`] — a checkpoint tensor by tensor: each tensor's SQNR per quantizer, pooled, sorted.
//! - [`runs`] — the Train view's networks trained in lockstep, and quantizers swapped into them
//!   mid-run, marked on the curves.
//! - [`slider`] — a number on a slider and back (linear steps or a log scale) and in a field.
//! - [`state`] — the whole explorer state as readable `key=value` pairs in the URL hash.
//! - [`tensor`] — a tensor from the user's own file (safetensors, `.npy`, `.npz`) as the sample:
//!   what it is, what reading it met, the page's size limit.
//! - [`train`] — the Train view's settings, their hash, the networks' configs and the
//!   equivalent `qscope train` command.

pub mod analysis;
pub mod blocks;
pub mod channels;
pub mod code;
pub mod drawn;
pub mod explain;
pub mod figure;
pub mod formats;
pub mod hardware;
pub mod hash;
pub mod keys;
pub mod layout;
pub mod learned;
pub mod lesson;
pub mod metrics;
pub mod one_batch;
pub mod pace;
pub mod page;
pub mod qr;
#[cfg(not(target_arch = "wasm32"))]
pub mod reference;
pub mod runs;
pub mod sample;
pub mod scan;
pub mod settings;
pub mod slider;
pub mod state;
pub mod tensor;
pub mod train;
pub mod wire;
