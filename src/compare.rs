//! `qscope compare`: the format comparison ("which format?") — each spec's MSE and SQNR on the
//! sample tensor against its bits per element, scales included — as a table on stdout and,
//! with `-o`, as the explorer's scatter in SVG or PNG. Without specs it compares the preset.
//! The sample's options come from the sample settings table, as the explorer's hash does.

use std::io::{self, BufWriter, Write};

use qscope_explore::formats::{PRESET, compare, figure, fmt_mse, preset};
use qscope_explore::sample::settings::{SETTINGS, Sample};
use qscope_explore::state::{AXIS, MAX_QUANTIZERS, Mode, Slot, State};
use qscope_plot::svg::Scheme;
use qscope_plot::{Theme, fmt_number};
use qscope_quant::parse;
use qscope_quant::shaped::Shape;

use crate::args::{Command, Opt, evaluation, extension, figure_options, setting};

pub(crate) const USAGE: &[(&str, &str)] = &[(
    "compare [SPEC...] [--tensor FILE[:NAME]] [-o FILE.svg|FILE.png] [options]",
    "SQNR and MSE against bits per element",
)];

/// What `qscope compare` was asked for.
struct CompareOptions {
    out: Option<String>,
    sample: Sample,
    size: (u32, u32),
    seed: u64,
    infer: bool,
    dark: bool,
    tensor: Option<String>,
    axis: Option<usize>,
}

fn command() -> Command<CompareOptions> {
    let mut options = vec![
        Opt::value(
            "--output",
            "FILE",
            "also draw the comparison to FILE, .svg or .png",
            |o: &mut CompareOptions, v| {
                o.out = Some(v.to_string());
                Ok(())
            },
        )
        .alias("-o"),
        Opt::value(
            "--tensor",
            "FILE[:NAME]",
            "compare on the tensor NAME (or the file's only one) of a safetensors, .npy or .npz file instead of the sample",
            |o: &mut CompareOptions, v| {
                o.tensor = Some(v.to_string());
                Ok(())
            },
        ),
    ];
    let defaults = Sample::default();
    for row in SETTINGS {
        options.extend(setting(row, &defaults, move |o: &mut CompareOptions, v| row.read_flag(&mut o.sample, v)));
    }
    options.extend(setting(&AXIS, &State::default(), |o: &mut CompareOptions, v| {
        let mut st = State::default();
        AXIS.read_flag(&mut st, v)?;
        o.axis = st.axis;
        Ok(())
    }));
    options.extend(figure_options((720, 440), |o: &mut CompareOptions| &mut o.size, |o| &mut o.dark));
    options.extend(evaluation(|o: &mut CompareOptions| &mut o.seed, |o| &mut o.infer));
    Command {
        name: "compare",
        about: "\
compare runs each spec (up to 6) on the explorer's sample tensor and prints its bits per element
(block and group scales included), MSE and SQNR; with -o it draws them as the explorer's
\"which format?\" scatter (SQNR against bits, MSE on the right axis), the specs and the link in
the file. Without specs it compares the preset (listed below), as the explorer's \"compare
formats\" button does."
            .into(),
        options,
        max_free: Some(MAX_QUANTIZERS),
        extra: "at most 6 specs are compared".into(),
    }
}

pub(crate) fn help() -> String {
    let specs: String = PRESET.iter().map(|s| format!("    {s}\n")).collect();
    format!("{}the preset, the first 6 of these that this qscope has:\n{specs}", command().help())
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut o = CompareOptions {
        out: None,
        sample: Sample::default(),
        size: (720, 440),
        seed: 0,
        infer: false,
        dark: false,
        tensor: None,
        axis: None,
    };
    let specs = command().parse(args, &mut o)?;
    let quantizers = if specs.is_empty() {
        preset()
    } else {
        specs.iter().map(|s| parse(s).map_err(|e| e.to_string())).collect::<Result<Vec<_>, _>>()?
    };
    let tensor = o.tensor.as_deref().map(crate::open::tensor).transpose()?;
    let shape = match &tensor {
        Some(t) => {
            let shape = Shape::new(t.shape.clone());
            match o.axis {
                Some(a) => shape.with_axis(a).map_err(|e| format!("--axis {e}"))?,
                None => shape,
            }
        }
        None if o.axis.is_some() => return Err("--axis needs --tensor: the sample is one channel".into()),
        None => Shape::new(vec![o.sample.spec(o.seed).n]),
    };
    let state = State {
        slots: quantizers.into_iter().map(Slot::new).collect(),
        mode: Mode::from_training(!o.infer),
        seed: o.seed,
        sample: o.sample,
        axis: o.axis,
        ..State::default()
    };
    let (values, about) = match &tensor {
        Some(t) => (t.values.to_vec(), format!("{} ({} elements)", t.describe(), t.values.len())),
        None => (state.sample_spec().generate(), state.sample.describe(fmt_number)),
    };
    if let Some(out) = &o.out {
        let ext = extension(out);
        if ext != "svg" && ext != "png" {
            return Err(format!("-o {out}: expected a file name ending in .svg or .png"));
        }
        let theme = if o.dark { Theme::DARK } else { Theme::LIGHT };
        let mut fig = figure(&state, tensor.as_ref(), state.to_hash(), o.size, theme);
        if !o.dark {
            fig.scheme = Scheme::FollowReader;
        }
        let bytes = if ext == "svg" { fig.svg()?.into_bytes() } else { fig.png()? };
        std::fs::write(out, bytes).map_err(|e| format!("writing {out}: {e}"))?;
    }
    let rows = compare(&state.slots, state.mode.training(), state.seed, &values, &shape);
    let mut w = BufWriter::new(io::stdout().lock());
    let _ = writeln!(w, "# {about}, seed {}", state.seed);
    for note in tensor.iter().flat_map(|t| t.notes()) {
        let _ = writeln!(w, "# {note}");
    }
    let _ = writeln!(w, "bits\tMSE\tSQNR_dB\tspec");
    for r in rows {
        let bits = r.bits.map_or("-".to_string(), |b| fmt_number(b as f64));
        let left_out =
            if r.not_finite > 0 { format!("\t# {} outputs not finite, left out", r.not_finite) } else { String::new() };
        let _ = writeln!(w, "{bits}\t{}\t{}\t{}{left_out}", fmt_mse(r.mse), fmt_number(r.sqnr_db), r.spec);
    }
    w.flush().map_err(|e| e.to_string())
}
