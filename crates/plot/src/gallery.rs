//! The gallery's figures (native only): one per catalogue entry at its library defaults
//! (`qscope gallery --defaults`), and a few notable configurations and comparisons; the pages
//! around them are `explore::reference`'s.

use qscope_quant::{Ctx, ENTRIES, Literal, parse};

/// The x range of the library-defaults and notable figures (an illustrative one names its own).
pub const X: (f32, f32) = (-2.0, 2.0);

/// The tensor a notable data-dependent figure takes its scale from: its numbers, and in words
/// (the reference passes the explorer's sample tensor, so its pages and index agree).
#[derive(Clone, Copy, Debug)]
pub struct Tensor<'a> {
    pub values: &'a [f32],
    pub name: &'a str,
}

/// One gallery figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// The SVG's file name.
    pub file: String,
    /// The section of the index it appears in.
    pub section: &'static str,
    /// The specs it compares, canonical.
    pub specs: Vec<String>,
    /// One line about it.
    pub caption: String,
    /// Drawn in inference mode (the library refuses training for this configuration).
    pub infer: bool,
}

/// `qkeras.quantized_bits(4,0,1,alpha='auto')` with the scale `tensor` gives, frozen as
/// `post_training_scale` (QKeras' own way to fix an 'auto' scale).
pub fn frozen_auto_bits(tensor: Tensor) -> Result<String, String> {
    let mut q = parse("qkeras.quantized_bits(4,0,1,alpha='auto')").map_err(|e| e.to_string())?;
    let (_, _, report) = q.eval(tensor.values, &mut Ctx::training(0));
    let scale = report.scale.ok_or("quantized_bits(alpha='auto') reported no scale")?;
    q.set("post_training_scale", &Literal::Float(scale as f64))?;
    Ok(q.to_string())
}

/// A file name for `name`: lowercase letters, digits, dots, underscores and dashes.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// One figure per catalogue entry at its library defaults (inference mode where training is
/// refused).
pub fn defaults() -> Vec<Item> {
    let mut out = Vec::new();
    for e in ENTRIES {
        let q = (e.default)();
        out.push(Item {
            file: format!("{}.svg", slug(&e.info.qualified())),
            section: e.info.family.title(),
            specs: vec![q.to_string()],
            caption: e.info.summary.to_string(),
            infer: q.unsupported(true).is_some(),
        });
    }
    out
}

/// The notable configurations and comparisons, after the catalogue's figures; a data-dependent
/// one frozen at `tensor`'s scale.
pub fn notable(tensor: Tensor) -> Result<Vec<Item>, String> {
    let mut out = Vec::new();
    let notable = |file: &str, specs: Vec<String>, caption: &str| Item {
        file: format!("{file}.svg"),
        section: "Notable configurations",
        specs,
        caption: caption.to_string(),
        infer: false,
    };
    // Specs in their canonical form, as the figures embed them.
    let s = |v: &str| parse(v).map(|q| q.to_string()).unwrap_or_else(|e| format!("{v} ({e})"));
    out.push(notable(
        "quantized_bits-4-0-1",
        vec![s("qkeras.quantized_bits(4,0,1)")],
        "4 bits, symmetric: ties round half to even, so the jumps alternate which side owns them",
    ));
    out.push(notable(
        "quantized_bits-4-0-1-auto",
        vec![frozen_auto_bits(tensor)?],
        &format!("alpha='auto' with the scale {} gives (frozen as post_training_scale)", tensor.name),
    ));
    out.push(notable(
        "quantized_relu-3-1",
        vec![s("qkeras.quantized_relu(3,1)")],
        "3-bit ReLU up to 2: the STE stops passing gradient above the top code",
    ));
    out.push(notable(
        "larq-signs",
        vec![s("larq.ste_sign"), s("larq.ApproxSign"), s("larq.SwishSign"), s("qkeras.binary_tanh")],
        "the same sign forward, four pseudo-gradients; sign(0) = +1 in Larq, −1 in binary_tanh",
    ));
    out.push(notable(
        "rounding-estimators",
        vec![s("ste"), s("softround"), s("soft_round(alpha=8)"), s("lsq(bits=4, step=0.25)")],
        "rounding with four estimators: identity STE, SoftRound, temperature soft rounding, LSQ",
    ));
    out.push(notable(
        "stochastic-rounding",
        vec![s("qkeras.quantized_bits(4,0,1)"), s("qkeras.stochastic_round")],
        "deterministic against stochastic rounding: the mean of the draws follows x, the band shows their spread",
    ));
    Ok(out)
}
