//! `qscope code`: the snippet the explorer's "Copy as code" offers for a spec, on stdout.

use qscope_explore::code::{Framework, snippet_in};
use qscope_quant::parse;

use crate::args::{Command, Opt};

pub(crate) const USAGE: &[(&str, &str)] =
    &[("code SPEC [--lang pytorch|qkeras|larq|cli]", "the quantizer as code you can paste")];

#[derive(Default)]
struct CodeOptions {
    lang: Option<Framework>,
}

fn command() -> Command<CodeOptions> {
    let keys: Vec<&str> = Framework::ALL.iter().map(|f| f.key()).collect();
    Command {
        name: "code",
        about: "\
code prints the snippet \"Copy as code\" offers: it runs unchanged after one line defining x
(PyTorch: a float32 tensor with requires_grad=True; TensorFlow: a float32 tensor) and defines y
(or q, a quantizer to call on x). Exits non-zero with the reason when the language cannot
express the spec."
            .into(),
        options: vec![Opt::value(
            "--lang",
            "LANG",
            format!("{}; default the spec's own library (QKeras, Larq, else PyTorch)", keys.join("|")),
            move |o: &mut CodeOptions, v| {
                let lang = Framework::parse(v)
                    .ok_or_else(|| format!("--lang {v}: unknown language; expected {}", key_list()))?;
                o.lang = Some(lang);
                Ok(())
            },
        )],
        max_free: Some(1),
        extra: "quote the spec: qscope code 'SPEC'".into(),
    }
}

/// `pytorch, qkeras, larq or cli`.
fn key_list() -> String {
    let keys: Vec<&str> = Framework::ALL.iter().map(|f| f.key()).collect();
    let (last, rest) = keys.split_last().expect("frameworks");
    format!("{} or {last}", rest.join(", "))
}

pub(crate) fn help() -> String {
    command().help()
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut o = CodeOptions::default();
    let free = command().parse(args, &mut o)?;
    let spec = free.first().ok_or("code needs a SPEC, e.g. qscope code 'qkeras.quantized_bits(4,0,1)'")?;
    let q = parse(spec).map_err(|e| e.to_string())?;
    let lang = o.lang.unwrap_or_else(|| Framework::native(&q));
    let text = snippet_in(&q, lang)?;
    // Exactly the snippet, then one newline: what a user copies.
    println!("{text}");
    Ok(())
}
