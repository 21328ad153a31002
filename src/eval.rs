//! `qscope eval`: numbers on stdin → `x y dydx` lines, and the data-dependent report.

use std::io::{self, BufWriter, Read, Write};

use qscope_quant::numbers::parse_numbers;
use qscope_quant::spec::fmt_f32;
use qscope_quant::{Ctx, Levels, parse};

use crate::args::{Command, Opt, evaluation};

pub(crate) const USAGE: &[(&str, &str)] = &[(
    "eval SPEC [--tensor FILE[:NAME]] [--seed N] [--infer] [--report]",
    "numbers on stdin (or a tensor) → `x y dydx` lines",
)];

#[derive(Default)]
struct EvalOptions {
    seed: u64,
    infer: bool,
    report: bool,
    tensor: Option<String>,
}

fn command() -> Command<EvalOptions> {
    let mut options = evaluation(|o: &mut EvalOptions| &mut o.seed, |o| &mut o.infer);
    options.push(Opt::switch(
        "--report",
        "print data-dependent numbers (scale, threshold, parameter gradients) to stderr",
        |o: &mut EvalOptions| o.report = true,
    ));
    options.push(Opt::value(
        "--tensor",
        "FILE[:NAME]",
        "read the tensor NAME (or the file's only one) of a safetensors, .npy or .npz file instead of stdin, row-major",
        |o: &mut EvalOptions, v| {
            o.tensor = Some(v.to_string());
            Ok(())
        },
    ));
    Command {
        name: "eval",
        about: "\
eval reads whitespace-separated numbers (nan, inf, -inf accepted) as one tensor and prints
one line per input: x, y = q(x), and dydx = ∂(Σy)/∂x as the library's autodiff gives it."
            .into(),
        options,
        max_free: Some(1),
        extra: "quote the spec: qscope eval 'SPEC'".into(),
    }
}

pub(crate) fn help() -> String {
    command().help()
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut o = EvalOptions::default();
    let free = command().parse(args, &mut o)?;
    let spec = free.first().ok_or("eval needs a SPEC, e.g. qscope eval 'qkeras.quantized_bits(4,0,1)'")?;
    let q = parse(spec).map_err(|e| e.to_string())?;
    if let Some(why) = q.unsupported(!o.infer) {
        return Err(why);
    }
    let x = match &o.tensor {
        Some(arg) => crate::open::tensor(arg)?.values.to_vec(),
        None => {
            let mut input = String::new();
            io::stdin().read_to_string(&mut input).map_err(|e| format!("reading stdin: {e}"))?;
            parse_numbers(&input)?
        }
    };
    let mut ctx = if o.infer { Ctx::inference(o.seed) } else { Ctx::training(o.seed) };
    let (y, g, report) = q.eval(&x, &mut ctx);
    let mut out = BufWriter::new(io::stdout().lock());
    for i in 0..x.len() {
        writeln!(out, "{} {} {}", fmt_f32(x[i]), fmt_f32(y[i]), fmt_f32(g[i])).map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())?;
    if o.report {
        eprintln!("# spec {q}");
        if let Some(a) = report.amax {
            eprintln!("# amax {}", fmt_f32(a));
        }
        if let Some(s) = report.scale {
            eprintln!("# scale {}", fmt_f32(s));
        }
        if let Some(t) = report.threshold {
            eprintln!("# threshold {}", fmt_f32(t));
        }
        for (i, b) in report.blocks.iter().enumerate() {
            let code = b.code.map(|c| format!(" (code 0x{c:02x})")).unwrap_or_default();
            let zero = b.zero_point.map(|z| format!(", zero point {}", fmt_f32(z))).unwrap_or_default();
            eprintln!(
                "# block {i}: {} elements, amax {}, scale {}{code}{zero}",
                b.len,
                fmt_f32(b.amax),
                fmt_f32(b.scale)
            );
        }
        for (name, v) in &report.param_grads {
            eprintln!("# d(sum y)/d{name} {}", fmt_f32(*v));
        }
        match q.levels(&report) {
            Levels::Continuous => eprintln!("# levels continuous"),
            Levels::Grid { step } => eprintln!("# levels every multiple of {}", fmt_f32(step)),
            l => match l.bounds() {
                Some((lo, hi)) => {
                    eprintln!("# levels {} from {} to {}", l.count().unwrap_or(0), fmt_f32(lo), fmt_f32(hi))
                }
                None => eprintln!("# levels none"),
            },
        }
    }
    Ok(())
}
