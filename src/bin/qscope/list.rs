//! `qscope list`: every quantizer with its parameters and defaults, by family.

use std::io::{self, BufWriter, Write};

use qscope::quant::{ENTRIES, Family};

pub(crate) fn list(family: Option<&str>) -> Result<(), String> {
    let filter = match family.map(str::to_ascii_lowercase).as_deref() {
        None => None,
        Some("qkeras") => Some(Family::QKeras),
        Some("larq") => Some(Family::Larq),
        Some("beyond") => Some(Family::Beyond),
        Some(f) => {
            return Err(format!("unknown family '{f}'; expected qkeras, larq or beyond"));
        }
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let mut current = None;
    for e in ENTRIES.iter().filter(|e| filter.is_none_or(|f| f == e.info.family)) {
        if current != Some(e.info.family) {
            current = Some(e.info.family);
            let _ = writeln!(out, "\n{}", e.info.family.title());
        }
        let default = (e.default)();
        let aliases =
            if e.info.aliases.is_empty() { String::new() } else { format!("  (also: {})", e.info.aliases.join(", ")) };
        let _ = writeln!(out, "  {}{aliases}\n      {}", e.info.qualified(), e.info.summary);
        let _ = writeln!(out, "      forward:  {}\n      backward: {}", e.info.forward, e.info.backward);
        for p in e.params {
            let d = default.get(p.name).map(|l| l.to_string()).unwrap_or_default();
            let _ = writeln!(out, "      {:<26} = {:<10} {} [{}]", p.name, d, p.doc, p.kind.describe());
        }
    }
    out.flush().map_err(|e| e.to_string())
}
