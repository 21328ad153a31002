//! `qscope plot`: one figure, SVG or PNG, of up to six quantizers forward and backward.

use std::io::{self, BufWriter, Write};

use qscope_quant::spec::fmt_f32;

use crate::args::{Command, Opt, evaluation, extension, figure_options, finite, x_range};

pub(crate) const USAGE: &[(&str, &str)] =
    &[("plot SPEC... -o FILE.svg|FILE.png [options]", "forward + backward figure, up to 6 specs")];

/// What `qscope plot` was asked for.
struct PlotOptions {
    out: Option<String>,
    x: (f32, f32),
    size: (u32, u32),
    seed: u64,
    infer: bool,
    crosshair: Option<f32>,
    identity: bool,
    dark: bool,
}

fn command() -> Command<PlotOptions> {
    let mut options = vec![
        Opt::value("--output", "FILE", "output file, .svg or .png (required)", |o: &mut PlotOptions, v| {
            o.out = Some(v.to_string());
            Ok(())
        })
        .alias("-o"),
        Opt::value(
            "--crosshair",
            "X",
            "draw a vertical line at X and print every curve's y and dy/dx there",
            |o: &mut PlotOptions, v| {
                o.crosshair = Some(finite("--crosshair", v)?);
                Ok(())
            },
        ),
        Opt::switch("--identity", "draw y = x faintly in the forward panel", |o: &mut PlotOptions| o.identity = true),
    ];
    options.extend(x_range(|o: &mut PlotOptions| &mut o.x));
    options.extend(figure_options((720, 640), |o: &mut PlotOptions| &mut o.size, |o| &mut o.dark));
    options.extend(evaluation(|o: &mut PlotOptions| &mut o.seed, |o| &mut o.infer));
    Command {
        name: "plot",
        about: "\
plot draws the forward panel y = q(x) above the backward panel dy/dx, the specs compared in
one figure (Okabe–Ito colours and dash patterns), as SVG or as PNG at 2×; the specs, the
permalink and the version are embedded in the file."
            .into(),
        options,
        max_free: None,
        extra: "".into(),
    }
}

pub(crate) fn help() -> String {
    command().help()
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    use qscope_explore::figure::from_specs;
    use qscope_explore::state::Mode;
    use qscope_plot::svg::Scheme;
    use qscope_plot::{Crosshair, Theme, read_at};
    let mut o = PlotOptions {
        out: None,
        x: (-2.0, 2.0),
        size: (720, 640),
        seed: 0,
        infer: false,
        crosshair: None,
        identity: false,
        dark: false,
    };
    let specs = command().parse(args, &mut o)?;
    let out = o.out.ok_or("plot needs an output file: -o FILE.svg or -o FILE.png")?;
    if specs.is_empty() {
        return Err("plot needs a SPEC, e.g. qscope plot 'qkeras.quantized_bits(4,0,1)' -o q.svg".into());
    }
    let ext = extension(&out);
    if ext != "svg" && ext != "png" {
        return Err(format!("-o {out}: expected a file name ending in .svg or .png"));
    }
    let mut fig = from_specs(&specs, o.x, Mode::from_training(!o.infer), o.seed)?;
    fig.size = o.size;
    if o.dark {
        (fig.theme, fig.scheme) = (Theme::DARK, Scheme::Fixed);
    }
    fig.view.identity = o.identity;
    fig.view.crosshair = o.crosshair.map(|x| Crosshair { x });
    let bytes = if ext == "svg" { fig.svg()?.into_bytes() } else { fig.png()? };
    std::fs::write(&out, bytes).map_err(|e| format!("writing {out}: {e}"))?;
    if let Some(x) = o.crosshair {
        let mut out = BufWriter::new(io::stdout().lock());
        let _ = writeln!(out, "x {}", fmt_f32(x));
        for r in read_at(&fig.curves, x) {
            let _ = writeln!(out, "{} y {} dydx {}", fig.specs[r.index], fmt_f32(r.y), fmt_f32(r.dydx));
        }
        out.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}
