//! `qscope eval`: numbers on stdin → `x y dydx` lines, and the data-dependent report.

use std::io::{self, BufWriter, Read, Write};

use qscope::quant::spec::fmt_f32;
use qscope::quant::{Ctx, Levels, parse};

struct EvalOptions {
    spec: String,
    seed: u64,
    infer: bool,
    report: bool,
}

fn eval_options(args: &[String]) -> Result<EvalOptions, String> {
    let mut spec = None;
    let mut o = EvalOptions { spec: String::new(), seed: 0, infer: false, report: false };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seed" => {
                let v = it.next().ok_or("--seed needs a value (a non-negative integer)")?;
                o.seed = v.parse().map_err(|_| format!("--seed {v}: expected a non-negative integer"))?;
            }
            "--infer" => o.infer = true,
            "--train" => o.infer = false,
            "--report" => o.report = true,
            s if s.starts_with("--") => return Err(format!("unknown option '{s}' for eval")),
            s if spec.is_none() => spec = Some(s.to_string()),
            s => {
                return Err(format!("unexpected argument '{s}' (quote the spec: qscope eval 'SPEC')"));
            }
        }
    }
    o.spec = spec.ok_or("eval needs a SPEC, e.g. qscope eval 'qkeras.quantized_bits(4,0,1)'")?;
    Ok(o)
}

/// Parses one input token as an f32 (nan, inf, -inf and +inf accepted).
fn parse_number(tok: &str, index: usize) -> Result<f32, String> {
    let t = tok.to_ascii_lowercase();
    let t = t.strip_prefix('+').unwrap_or(&t);
    match t {
        "nan" | "-nan" => return Ok(f32::NAN),
        "inf" | "infinity" => return Ok(f32::INFINITY),
        "-inf" | "-infinity" => return Ok(f32::NEG_INFINITY),
        _ => {}
    }
    t.parse::<f32>().map_err(|_| format!("input value {} ('{tok}') is not a number", index + 1))
}

pub(crate) fn eval(args: &[String]) -> Result<(), String> {
    let o = eval_options(args)?;
    let q = parse(&o.spec).map_err(|e| e.to_string())?;
    if let Some(why) = q.unsupported(!o.infer) {
        return Err(why);
    }
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).map_err(|e| format!("reading stdin: {e}"))?;
    let x = input.split_whitespace().enumerate().map(|(i, t)| parse_number(t, i)).collect::<Result<Vec<f32>, _>>()?;
    let mut ctx = if o.infer { Ctx::inference(o.seed) } else { Ctx::new(o.seed) };
    let (y, g, report) = q.eval(&x, &mut ctx);
    let mut out = BufWriter::new(io::stdout().lock());
    for i in 0..x.len() {
        writeln!(out, "{} {} {}", fmt_f32(x[i]), fmt_f32(y[i]), fmt_f32(g[i])).map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())?;
    if o.report {
        eprintln!("# spec {q}");
        if let Some(s) = report.scale {
            eprintln!("# scale {}", fmt_f32(s));
        }
        if let Some(t) = report.threshold {
            eprintln!("# threshold {}", fmt_f32(t));
        }
        for (name, v) in &report.param_grads {
            eprintln!("# d(sum y)/d{name} {}", fmt_f32(*v));
        }
        match q.levels(&report) {
            Levels::Continuous => eprintln!("# levels continuous"),
            Levels::Grid { step } => eprintln!("# levels every multiple of {}", fmt_f32(step)),
            l => eprintln!("# levels {} from {:?}", l.count().unwrap_or(0), l.bounds()),
        }
    }
    Ok(())
}
