//! `qscope list`: every quantizer with its parameters and defaults, by family.

use std::io::{self, BufWriter, Write};

use qscope::quant::{ENTRIES, Family};

use crate::args::Command;

pub(crate) const USAGE: &[(&str, &str)] = &[("list [FAMILY]", "every quantizer, parameters, defaults")];

fn command() -> Command<()> {
    Command {
        name: "list",
        about: "\
list prints every quantizer of the catalogue, or of one FAMILY (qkeras, larq, beyond,
ml_dtypes, torchao or bnb): its name and aliases, what it does, its forward and backward formulas, and each parameter with its
default and range.",
        options: Vec::new(),
        max_free: Some(1),
        extra: "list takes one FAMILY: qkeras, larq, beyond, ml_dtypes, torchao or bnb",
    }
}

pub(crate) fn help() -> String {
    command().help()
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let free = command().parse(args, &mut ())?;
    let filter = match free.first() {
        None => None,
        Some(f) => Some(Family::parse(f).ok_or_else(|| {
            format!("unknown family '{f}'; expected qkeras, larq, beyond, ml_dtypes, torchao or bnb")
        })?),
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let mut current = None;
    for e in ENTRIES.iter().filter(|e| filter.is_none_or(|f| f == e.info.family)) {
        if current != Some(e.info.family) {
            current = Some(e.info.family);
            let _ = writeln!(out, "\n{}", e.info.family.title());
        }
        let aliases =
            if e.info.aliases.is_empty() { String::new() } else { format!("  (also: {})", e.info.aliases.join(", ")) };
        let _ = writeln!(out, "  {}{aliases}\n      {}", e.info.qualified(), e.info.summary);
        let _ = writeln!(out, "      forward:  {}\n      backward: {}", e.info.forward, e.info.backward);
        for p in e.param_rows() {
            let _ = writeln!(out, "      {:<26} = {:<10}  {} [{}]", p.name, p.default, p.meaning, p.allowed);
        }
    }
    out.flush().map_err(|e| e.to_string())
}
