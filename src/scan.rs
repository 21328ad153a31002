//! `qscope scan FILE [SPEC...]`: every tensor of a checkpoint (or those a pattern matches) run
//! through each spec, one row per tensor with its SQNR per spec, and a last row over every
//! element scanned. Tensors are read one at a time by seeking, on `--jobs` threads, so memory is
//! bounded by the tensors in flight, not the file.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use qscope_explore::formats::preset;
use qscope_explore::scan::{Buffers, Scanned, pooled, read_and_scan};
use qscope_explore::state::{MAX_QUANTIZERS, Slot};
use qscope_explore::tensor::{fmt_count, json_string, shape_text};
use qscope_plot::fmt_number;
use qscope_quant::{Quantizer, parse};
use qscope_tensors::{Info, block_on};

use crate::args::{Command, Opt, evaluation, number};
use crate::open::open;

pub(crate) const USAGE: &[(&str, &str)] =
    &[("scan FILE [SPEC...] [--json|--csv] [--filter REGEX] [--jobs N]", "every tensor's SQNR per format")];

/// How rows are printed.
#[derive(Clone, Copy, PartialEq)]
enum Output {
    Table,
    Json,
    Csv,
}

struct ScanOptions {
    output: Output,
    filter: Option<regex::Regex>,
    jobs: usize,
    seed: u64,
    infer: bool,
}

fn command() -> Command<ScanOptions> {
    let mut options = vec![
        Opt::switch(
            "--json",
            "one JSON object per tensor and line (SQNR null where lossless)",
            |o: &mut ScanOptions| o.output = Output::Json,
        ),
        Opt::switch("--csv", "comma-separated values with a header row", |o: &mut ScanOptions| o.output = Output::Csv),
        Opt::value(
            "--filter",
            "REGEX",
            "only the tensors whose name the regular expression matches",
            |o: &mut ScanOptions, v| {
                o.filter = Some(regex::Regex::new(v).map_err(|e| format!("--filter {v}: {e}"))?);
                Ok(())
            },
        ),
        Opt::value(
            "--jobs",
            "N",
            "tensors scanned at once (default: the machine's cores)",
            |o: &mut ScanOptions, v| {
                o.jobs = number::<usize>("--jobs", v, "a whole number from 1")?.max(1);
                Ok(())
            },
        ),
    ];
    options.extend(evaluation(|o: &mut ScanOptions| &mut o.seed, |o| &mut o.infer));
    Command {
        name: "scan",
        about: "\
scan runs each spec (up to 6; without specs the preset of `qscope compare`) on every tensor of a
safetensors, .npy or .npz file that qscope reads, each tensor given as its library sees a weight
of its shape, and prints one row per tensor: name, shape, dtype, elements and each spec's SQNR in
dB; the last row, `all`, is the SQNR over every element scanned (its signal and noise summed over
the tensors). Tensors are read one at a time by seeking, --jobs at once; a progress line goes to
standard error when it is a terminal."
            .into(),
        options,
        max_free: Some(1 + MAX_QUANTIZERS),
        extra: "scan takes a FILE and at most 6 specs".into(),
    }
}

pub(crate) fn help() -> String {
    command().help()
}

fn scan_one(path: &str, info: &Info, slots: &[Slot], run: (bool, u64), b: &mut Buffers) -> Result<Scanned, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    block_on(read_and_scan(&file, info, slots, run, b)).map_err(|e| format!("{path}: {e}"))
}

fn db(v: f64, output: Output) -> String {
    match output {
        Output::Json if !v.is_finite() => "null".into(),
        Output::Csv if v == f64::INFINITY => "inf".into(),
        _ if v == f64::INFINITY => "∞".into(),
        _ => fmt_number(v),
    }
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut o = ScanOptions { output: Output::Table, filter: None, jobs: cores, seed: 0, infer: false };
    let free = command().parse(args, &mut o)?;
    let (path, specs) = free.split_first().ok_or("scan needs a FILE, e.g. qscope scan model.safetensors")?;
    let quantizers: Vec<Quantizer> = if specs.is_empty() {
        preset()
    } else {
        specs.iter().map(|s| parse(s).map_err(|e| e.to_string())).collect::<Result<_, _>>()?
    };
    let slots: Vec<Slot> = quantizers.into_iter().map(Slot::new).collect();
    let opened = open(path)?;
    let tensors: Vec<&Info> =
        opened.listing.tensors.iter().filter(|t| o.filter.as_ref().is_none_or(|f| f.is_match(&t.name))).collect();
    if tensors.is_empty() {
        return Err(format!("{path}: no tensor to scan{}", if o.filter.is_some() { " matches --filter" } else { "" }));
    }
    let total_bytes: u64 = tensors.iter().map(|t| t.bytes()).sum();
    let progress = io::stderr().is_terminal();
    let next = AtomicUsize::new(0);
    let done = Mutex::new((0usize, 0u64));
    let results: Mutex<Vec<Option<Result<Scanned, String>>>> = Mutex::new((0..tensors.len()).map(|_| None).collect());
    let (training, seed) = (!o.infer, o.seed);
    std::thread::scope(|scope| {
        for _ in 0..o.jobs.min(tensors.len()) {
            scope.spawn(|| {
                let mut buffers = Buffers::default();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(info) = tensors.get(i) else { break };
                    let r = scan_one(path, info, &slots, (training, seed), &mut buffers);
                    results.lock().expect("no panic while holding the lock")[i] = Some(r);
                    let mut d = done.lock().expect("no panic while holding the lock");
                    d.0 += 1;
                    d.1 += info.bytes();
                    if progress {
                        eprint!(
                            "\rscan: {} of {} tensors, {} of {} MB ",
                            d.0,
                            tensors.len(),
                            d.1 >> 20,
                            total_bytes >> 20
                        );
                    }
                }
            });
        }
    });
    if progress {
        eprintln!();
    }
    let results = results.into_inner().expect("no panic while holding the lock");
    let names: Vec<String> = slots.iter().map(|s| s.quantizer.to_string()).collect();
    let mut w = BufWriter::new(io::stdout().lock());
    match o.output {
        Output::Table => {
            let _ = writeln!(w, "# {path}: {} of {} tensors", tensors.len(), opened.listing.tensors.len());
            let _ = writeln!(
                w,
                "name\tshape\tdtype\telements\t{}",
                names.iter().map(|n| format!("SQNR_dB {n}")).collect::<Vec<_>>().join("\t")
            );
        }
        Output::Csv => {
            let quoted: Vec<String> = names.iter().map(|n| csv(&format!("sqnr_db {n}"))).collect();
            let _ = writeln!(w, "name,shape,dtype,elements,{}", quoted.join(","));
        }
        Output::Json => {}
    }
    let mut scanned = Vec::new();
    let mut failed = 0;
    for r in results {
        match r.expect("every tensor was scanned") {
            Ok(s) => {
                row(&mut w, o.output, &s.name, &shape_text(&s.shape), &s.dtype, s.elements, &names, &s.sqnr);
                scanned.push(s);
            }
            Err(e) => {
                eprintln!("{e}");
                failed += 1;
            }
        }
    }
    let count: usize = scanned.iter().map(|s| s.count).sum();
    row(&mut w, o.output, "all", "-", "-", count as u64, &names, &pooled(&scanned));
    w.flush().map_err(|e| e.to_string())?;
    if failed > 0 {
        return Err(format!("{failed} of {} tensors could not be read (above)", fmt_count(tensors.len() as u64)));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn row(
    w: &mut impl Write,
    output: Output,
    name: &str,
    shape: &str,
    dtype: &str,
    elements: u64,
    specs: &[String],
    sqnr: &[f64],
) {
    let _ = match output {
        Output::Table => {
            let cells: Vec<String> = sqnr.iter().map(|v| db(*v, output)).collect();
            writeln!(w, "{name}\t{shape}\t{dtype}\t{elements}\t{}", cells.join("\t"))
        }
        Output::Csv => {
            let cells: Vec<String> = sqnr.iter().map(|v| db(*v, output)).collect();
            writeln!(w, "{},{},{},{elements},{}", csv(name), csv(shape), csv(dtype), cells.join(","))
        }
        Output::Json => {
            let pairs: Vec<String> =
                specs.iter().zip(sqnr).map(|(s, v)| format!("{}: {}", json_string(s), db(*v, output))).collect();
            writeln!(
                w,
                "{{\"name\": {}, \"shape\": {}, \"dtype\": {}, \"elements\": {elements}, \"sqnr_db\": {{{}}}}}",
                json_string(name),
                if shape == "-" { "null".to_string() } else { shape.to_string() },
                json_string(dtype),
                pairs.join(", ")
            )
        }
    };
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}
