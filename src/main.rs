//! `qscope`, the native command-line tool: evaluate, list, plot and compare quantizers, print them as
//! code, train small quantized networks, check and export classroom lessons. One file per subcommand, each a
//! table of its options ([`args::Command`]) that parses its arguments and writes its `--help`.
//!
//! The tool is native; under wasm32 (where the test harness still builds every binary) it is
//! an empty stub.

#[cfg(not(target_arch = "wasm32"))]
mod args;
#[cfg(not(target_arch = "wasm32"))]
mod bench;
#[cfg(not(target_arch = "wasm32"))]
mod code;
#[cfg(not(target_arch = "wasm32"))]
mod compare;
#[cfg(not(target_arch = "wasm32"))]
mod docs;
#[cfg(not(target_arch = "wasm32"))]
mod eval;
#[cfg(not(target_arch = "wasm32"))]
mod gallery;
#[cfg(not(target_arch = "wasm32"))]
mod handout;
#[cfg(not(target_arch = "wasm32"))]
mod lesson;
#[cfg(not(target_arch = "wasm32"))]
mod list;
#[cfg(not(target_arch = "wasm32"))]
mod open;
#[cfg(not(target_arch = "wasm32"))]
mod plot;
#[cfg(not(target_arch = "wasm32"))]
mod sample;
#[cfg(not(target_arch = "wasm32"))]
mod scan;
#[cfg(not(target_arch = "wasm32"))]
mod tensors;
#[cfg(not(target_arch = "wasm32"))]
mod train;

#[cfg(target_arch = "wasm32")]
fn main() {}

/// A subcommand: its name, what runs it, its usage lines and its `--help` section.
#[cfg(not(target_arch = "wasm32"))]
struct Subcommand {
    name: &'static str,
    run: fn(&[String]) -> Result<(), String>,
    usage: &'static [(&'static str, &'static str)],
    help: fn() -> String,
}

#[cfg(not(target_arch = "wasm32"))]
const SUBCOMMANDS: [Subcommand; 13] = [
    Subcommand { name: "eval", run: eval::run, usage: eval::USAGE, help: eval::help },
    Subcommand { name: "list", run: list::run, usage: list::USAGE, help: list::help },
    Subcommand { name: "code", run: code::run, usage: code::USAGE, help: code::help },
    Subcommand { name: "plot", run: plot::run, usage: plot::USAGE, help: plot::help },
    Subcommand { name: "compare", run: compare::run, usage: compare::USAGE, help: compare::help },
    Subcommand { name: "sample", run: sample::run, usage: sample::USAGE, help: sample::help },
    Subcommand { name: "tensors", run: tensors::run, usage: tensors::USAGE, help: tensors::help },
    Subcommand { name: "scan", run: scan::run, usage: scan::USAGE, help: scan::help },
    Subcommand { name: "gallery", run: gallery::run, usage: gallery::USAGE, help: gallery::help },
    Subcommand { name: "bench", run: bench::run, usage: bench::USAGE, help: bench::help },
    Subcommand { name: "train", run: train::run, usage: train::USAGE, help: train::help },
    Subcommand { name: "lesson", run: lesson::run, usage: lesson::USAGE, help: lesson::help },
    Subcommand { name: "docs", run: docs::run, usage: docs::USAGE, help: docs::help },
];

#[cfg(not(target_arch = "wasm32"))]
const SPECS: &str = "\
SPEC examples:
    'qkeras.quantized_bits(4,0,1,alpha=1)'   'larq.SteTern(threshold_value=0.1)'
    'larq.ste_sign'   'softround'   'lsq(bits=4, step=0.1)'
    'quantized_bits(4,0,1)'   '{\"class_name\": \"quantized_bits\", \"config\": {\"bits\": 4}}'
";

/// `qscope --help`: every subcommand's usage, the spec syntax, then every subcommand's section.
#[cfg(not(target_arch = "wasm32"))]
fn usage() -> String {
    let mut lines: Vec<(&str, &str)> = SUBCOMMANDS.iter().flat_map(|s| s.usage.iter().copied()).collect();
    lines.push(("COMMAND --help", "that command's options"));
    lines.push(("help | --help | --version", ""));
    let mut out = format!(
        "qscope — what a quantizer really computes, forward and backward\n\nUSAGE:\n{}\n{SPECS}",
        args::usage_lines(&lines)
    );
    for s in &SUBCOMMANDS {
        let section = (s.help)();
        if !section.is_empty() {
            out += &format!("\n{section}");
        }
    }
    out
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    use std::process::ExitCode;
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        // Already reported (e.g. `lesson check`'s one line per problem).
        Err(e) if e.is_empty() => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("qscope: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn run(args: &[String]) -> Result<(), String> {
    let Some(name) = args.first() else {
        print!("{}", usage());
        return Ok(());
    };
    match name.as_str() {
        "help" | "--help" | "-h" => print!("{}", usage()),
        "--version" | "-V" => println!("qscope {}", env!("CARGO_PKG_VERSION")),
        name => {
            let sub = SUBCOMMANDS.iter().find(|s| s.name == name);
            let sub = sub.ok_or_else(|| format!("unknown command '{name}' (try `qscope --help`)"))?;
            let rest = &args[1..];
            if rest.iter().any(|a| a == "--help" || a == "-h") {
                print!("{}\n{}", args::usage_lines(sub.usage), (sub.help)());
            } else {
                (sub.run)(rest)?;
            }
        }
    }
    Ok(())
}
