//! `qscope tensors FILE`: the tensors of a safetensors, `.npy` or `.npz` file — name, dtype, shape,
//! elements — from its header alone.

use std::io::{self, BufWriter, Write};

use qscope_explore::tensor::{json_string, listing_rows};

use crate::args::{Command, Opt};
use crate::open::open;

pub(crate) const USAGE: &[(&str, &str)] = &[("tensors FILE [--json]", "the tensors of a safetensors/.npy/.npz file")];

#[derive(Default)]
struct TensorsOptions {
    json: bool,
}

fn command() -> Command<TensorsOptions> {
    Command {
        name: "tensors",
        about: "\
tensors lists the tensors of a safetensors, .npy or .npz file, one line each: name, dtype,
shape and elements (a .npy file's one array is named -). Only the header is read, so a
checkpoint of many gigabytes lists at once. safetensors' __metadata__ is printed first, as
# comments; tensors listed in the file that qscope cannot read are printed last, with why."
            .into(),
        options: vec![Opt::switch(
            "--json",
            "one JSON object per tensor and line instead",
            |o: &mut TensorsOptions| o.json = true,
        )],
        max_free: Some(1),
        extra: "tensors takes one FILE".into(),
    }
}

pub(crate) fn help() -> String {
    command().help()
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut o = TensorsOptions::default();
    let free = command().parse(args, &mut o)?;
    let path = free.first().ok_or("tensors needs a FILE, e.g. qscope tensors model.safetensors")?;
    let opened = open(path)?;
    let l = &opened.listing;
    let mut w = BufWriter::new(io::stdout().lock());
    if o.json {
        for t in &l.tensors {
            let shape: Vec<String> = t.shape.iter().map(usize::to_string).collect();
            let _ = writeln!(
                w,
                "{{\"name\": {}, \"dtype\": {}, \"shape\": [{}], \"elements\": {}}}",
                json_string(&t.name),
                json_string(&t.stored),
                shape.join(", "),
                t.elements
            );
        }
    } else {
        let _ = writeln!(w, "# {}: {}, {}", path, l.format.name(), crate::tensors::count(l.tensors.len()));
        for (k, v) in &l.metadata {
            let _ = writeln!(w, "# {k}: {v}");
        }
        for row in listing_rows(l) {
            let _ = writeln!(w, "{row}");
        }
    }
    for (name, why) in &l.skipped {
        eprintln!("{path}: {name}: not read: {why}");
    }
    w.flush().map_err(|e| e.to_string())
}

fn count(n: usize) -> String {
    if n == 1 { "1 tensor".into() } else { format!("{n} tensors") }
}
