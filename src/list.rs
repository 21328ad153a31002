//! `qscope list`: every quantizer with its parameters and defaults, by family.

use std::io::{self, BufWriter, Write};

use qscope_quant::{ENTRIES, Family};

use crate::args::Command;

pub(crate) const USAGE: &[(&str, &str)] = &[("list [FAMILY]", "every quantizer, parameters, defaults")];

fn command() -> Command<()> {
    Command {
        name: "list",
        about: format!(
            "list prints every quantizer of the catalogue, or of one FAMILY ({}): its name and aliases,\n\
             what it does, its forward and backward formulas, and each parameter with its default and range.",
            families()
        ),
        options: Vec::new(),
        max_free: Some(1),
        extra: format!("list takes one FAMILY: {}", families()),
    }
}

/// `qkeras, larq, beyond, ml_dtypes, torchao or bnb`: every family's key, in catalogue order.
fn families() -> String {
    let keys: Vec<&str> = Family::ALL.iter().map(|f| f.key()).collect();
    qscope_nn::named::or_list(&keys)
}

pub(crate) fn help() -> String {
    command().help()
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let free = command().parse(args, &mut ())?;
    let filter = match free.first() {
        None => None,
        Some(f) => Some(Family::parse(f).ok_or_else(|| format!("unknown family '{f}'; expected {}", families()))?),
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
