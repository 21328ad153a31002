//! `qscope lesson export`: a lesson as one static, printable HTML page — no script, nothing
//! fetched, inline CSS. Each step: its title, its text (formulas as MathML, which the browser
//! renders itself), its task as "Try it: …", its figure as inline SVG drawn by `qscope-plot` (the
//! code behind `qscope plot` and the page's canvases), and its state as a link hash.
//!
//! An explorer step's figure is the explorer's: every compared quantizer evaluated as the page
//! evaluates it ([`qscope_explore::figure`]: a data-dependent one frozen on the sample tensor),
//! over the step's x range, in its mode and seed, with the pinned x as the crosshair, and the
//! step's explorer link embedded, and the caption's readings computed at the pinned x itself. A
//! trainer step shows every net it trains (the quantized net, the float twin, the STE twin) as
//! its decision boundary after [`EPOCHS`] epochs, each with its accuracy and the `qscope train`
//! command that reproduces it.

use qscope_explore::drawn;
use qscope_explore::figure::{Setting, curves, evaluate_all};
use qscope_explore::lesson::predict::Prediction;
use qscope_explore::lesson::render::{escape, render_lenient};
use qscope_explore::lesson::{BUILTIN, Lesson, Step, link};
use qscope_explore::qr::Qr;
use qscope_explore::state::State;
use qscope_explore::train::boundary::boundary;
use qscope_explore::train::{Net, TrainParams};
use qscope_nn::Trainer;
use qscope_plot::boundary::{RES, boundary_svg};
use qscope_plot::export::{Figure, software};
use qscope_plot::svg::Scheme;
use qscope_plot::{Crosshair, Theme, Viewport};
use qscope_quant::spec::fmt_f32;

/// Epochs a trainer step's net trains before its boundary is drawn.
pub const EPOCHS: usize = 200;

/// The explorer figure's size in layout pixels, and the boundary's side.
const FIGURE: (u32, u32) = (640, 560);
const BOUNDARY: u32 = 420;

/// Light, print-friendly, no external font.
const CSS: &str = "\
:root { color: #1f2328; background: #fff; font: 16px/1.55 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; }
body { max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.8rem; margin: 0 0 .5rem; }
h2 { font-size: 1.3rem; margin: 0 0 .5rem; }
.summary { color: #3a3f45; }
.step { border-top: 1px solid #d0d4d9; padding-top: 1.2rem; margin-top: 1.6rem; }
.task { border-left: 4px solid #0072b2; background: #f2f7fb; padding: .4rem .8rem; }
.predict { border-left: 4px solid #e69f00; background: #fdf6e8; padding: .4rem .8rem; }
.answers { border-top: 1px solid #d0d4d9; padding-top: 1.2rem; margin-top: 1.6rem; }
figure { margin: 1rem 0; break-inside: avoid; page-break-inside: avoid; }
figure svg { display: block; max-width: 100%; height: auto; margin: 0 auto; }
.figures { display: flex; flex-wrap: wrap; gap: 0 1.2rem; }
.figures figure { flex: 1 1 12rem; }
.step { display: flow-root; }
figcaption { font-size: .9rem; color: #3a3f45; margin-top: .4rem; }
code, pre { font-family: ui-monospace, 'SF Mono', Menlo, Consolas, monospace; font-size: .9em; }
code { background: #f3f4f6; padding: 0 .2em; border-radius: 3px; }
table { border-collapse: collapse; margin: 0 0 .8rem; }
th, td { border: 1px solid #d0d4d9; padding: .15rem .5rem; text-align: left; }
pre { background: #f3f4f6; padding: .6rem .8rem; overflow-x: auto; }
pre code { padding: 0; }
math[display=block] { margin: .6rem 0; }
mrow.overline { border-top: .07em solid currentColor; padding-top: .08em; }
.link { font-size: .85rem; color: #5c636e; overflow-wrap: anywhere; }
.link code { background: none; }
.link a { overflow-wrap: anywhere; }
.link svg.qr { float: right; margin: 0 0 .5rem 1rem; }
footer { margin-top: 2rem; font-size: .8rem; color: #5c636e; }
@media print {
  :root { font-size: 11pt; }
  body { margin: 0; max-width: none; }
  .step { break-before: auto; }
  h2 { break-after: avoid; }
  .task, .predict { background: none; }
  footer .link { display: none; }
}
";

/// A link on the handout: the hash as code, or with the page's address `base` a whole URL that
/// a reader can follow (and type from paper).
fn live(base: Option<&str>, hash: &str) -> String {
    match base {
        Some(base) => format!("<a href=\"{0}\">{0}</a>", escape(&format!("{base}{hash}"))),
        None => format!("<code>{}</code>", escape(hash)),
    }
}

/// The handout of `lesson`, whose file is `text` (for the lesson's own link); `explorer`, the
/// page's address, makes every link a whole URL.
pub(crate) fn html(lesson: &Lesson, text: &str, explorer: Option<&str>) -> Result<String, String> {
    let title = escape(&lesson.title);
    let mut page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"{}\">\n<title>{title}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n\
         <header>\n<h1>{title}</h1>\n",
        escape(&software())
    );
    if !lesson.summary.is_empty() {
        page += &format!("<div class=\"summary\">\n{}</div>\n", render_lenient(&lesson.summary));
    }
    page += "</header>\n";
    let builtin = builtin_name(text);
    for (k, step) in lesson.steps.iter().enumerate() {
        // A built-in lesson's step opens as itself, text and task included, by a short link.
        let link = match builtin {
            Some(name) => format!("#lesson={name}&step={}", k + 1),
            None => step.hash(),
        };
        page +=
            &section(k + 1, step, &link, explorer).map_err(|e| format!("step {} \"{}\": {e}", k + 1, step.title))?;
    }
    page += &answers(lesson);
    page += &format!(
        "<footer>\n<p>Made with {} (<code>qscope lesson export</code>).</p>\n\
         <p class=\"link\">The whole lesson, live in qscope (add <code>&amp;step=K</code> to open step K): \
         {}</p>\n</footer>\n</body>\n</html>\n",
        escape(&software()),
        live(explorer, &lesson_hash(builtin, text))
    );
    Ok(page)
}

/// The name of the built-in lesson whose text is `text`, if it is one.
fn builtin_name(text: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(_, t)| *t == text).map(|(name, _)| *name)
}

/// `#lesson=NAME` for a built-in lesson (`builtin`), else `#lesson=~…` carrying the text.
fn lesson_hash(builtin: Option<&str>, text: &str) -> String {
    match builtin {
        Some(name) => format!("#lesson={name}"),
        None => format!("#lesson={}", link::encode(text)),
    }
}

/// The predictions' answers, after the last step (on paper the figure beside a question would
/// give it away, so the answers come at the end); empty without predictions.
fn answers(lesson: &Lesson) -> String {
    let items: Vec<String> = lesson
        .steps
        .iter()
        .enumerate()
        .filter_map(|(k, step)| {
            let p = step.settings.predict.as_ref()?;
            Some(format!(
                "<li>Step {}: ({}) {}. {}</li>",
                k + 1,
                Prediction::letter(p.answer),
                escape(&p.choices[p.answer]),
                escape(&p.why)
            ))
        })
        .collect();
    if items.is_empty() {
        return String::new();
    }
    format!(
        "<section class=\"answers\" id=\"answers\">\n<h2>Answers</h2>\n<ul>\n{}\n</ul>\n</section>\n",
        items.join("\n")
    )
}

/// One step's section; `link` is the hash that opens it live.
fn section(k: usize, step: &Step, link: &str, explorer: Option<&str>) -> Result<String, String> {
    let mut s = format!("<section class=\"step\" id=\"step-{k}\">\n<h2>{k}. {}</h2>\n", escape(&step.title));
    s += &render_lenient(&step.text);
    if let Some(p) = &step.settings.predict {
        let choices: Vec<String> =
            p.choices.iter().enumerate().map(|(i, c)| format!("({}) {}", Prediction::letter(i), escape(c))).collect();
        s += &format!(
            "<p class=\"predict\"><strong>Predict:</strong> {} <span class=\"choices\">{}</span></p>\n",
            escape(&p.question),
            choices.join(" &nbsp; ")
        );
    }
    if let Some(task) = &step.settings.task {
        s += &format!("<p class=\"task\"><strong>Try it:</strong> {}</p>\n", escape(&task.text));
    }
    let figures = match (step.explorer(), step.trainer()) {
        (Some(state), _) => vec![explorer_figure(&state)?],
        (None, Some(params)) => trainer_figures(&params)?,
        (None, None) => return Err("the step has neither an explorer nor a trainer state".into()),
    };
    s += "<div class=\"figures\">\n";
    for (svg, caption) in figures {
        s += &format!("<figure>\n{svg}\n<figcaption>{caption}</figcaption>\n</figure>\n");
    }
    s += "</div>\n";
    // With the page's address, a QR code a student scans from paper.
    let qr = explorer.and_then(|base| Qr::encode(&format!("{base}{link}"))).map(|q| q.svg(112)).unwrap_or_default();
    s += &format!("<p class=\"link\">{qr}Open live: {}</p>\n</section>\n", live(explorer, link));
    Ok(s)
}

/// The explorer's figure of `state` as SVG, and its caption (HTML).
fn explorer_figure(state: &State) -> Result<(String, String), String> {
    let training = state.mode.training();
    let (lo, hi) = state.x;
    let setting = Setting::of(state);
    let sample = setting.sample.generate();
    let evaluated = evaluate_all(&state.slots, &setting, &sample, &[]);
    let fig = Figure {
        specs: state.slots.iter().map(|s| s.quantizer.to_string()).collect(),
        curves: curves(&state.slots, &evaluated),
        view: Viewport { x: Some(state.x), crosshair: state.pin.map(|x| Crosshair { x }), ..Viewport::default() },
        infer: !training,
        seed: state.seed,
        link: state.to_hash(),
        size: FIGURE,
        theme: Theme::LIGHT,
        scheme: Scheme::Fixed,
    };
    let svg = fig.svg()?;
    let shown: Vec<&str> =
        state.slots.iter().zip(&fig.specs).filter(|(s, _)| !s.hidden).map(|(_, spec)| spec.as_str()).collect();
    let mode = if training { "training" } else { "inference" };
    let mut caption = format!(
        "Forward y = q(x) (top) and the gradient dy/dx sent back (bottom) of {} for x from {} to {} ({mode} mode, seed {}).",
        shown.join("; "),
        fmt_f32(lo),
        fmt_f32(hi),
        state.seed
    );
    if let Some(x) = state.pin {
        // Computed at the pinned x itself, as the task language measures it (the drawn curve's
        // nearest sample can be a neighbour: 1.0009999 beside a text's 1).
        let readings: Vec<String> = state
            .slots
            .iter()
            .zip(&fig.specs)
            .filter(|(s, _)| !s.hidden)
            .map(|(s, spec)| {
                let q = &s.quantizer;
                let (y, dydx) = drawn::at(q, training, state.seed, &drawn::basis(q, state.x, &sample), x);
                format!("{spec}: y = {}, dy/dx = {}", fmt_f32(y), fmt_f32(dydx))
            })
            .collect();
        caption += &format!(" At x = {}: {}.", fmt_f32(x), readings.join("; "));
    }
    Ok((svg, escape(&caption)))
}

/// Every net the step trains — the quantized net, the float twin, the STE twin when there is
/// one — after [`EPOCHS`] epochs: each one's decision boundary, and its caption with its accuracy
/// and the `qscope train` command that reproduces it.
fn trainer_figures(params: &TrainParams) -> Result<Vec<(String, String)>, String> {
    let nets = [Net::Quantized, Net::Float, Net::Twin].into_iter().filter(|n| *n != Net::Twin || params.has_twin());
    nets.map(|net| net_figure(params, net)).collect()
}

fn net_figure(params: &TrainParams, net: Net) -> Result<(String, String), String> {
    let config = params.config(net)?;
    let arch: Vec<String> = config.widths().iter().map(usize::to_string).collect();
    let quantizers = match config.hidden.first() {
        Some(h) if net != Net::Float => {
            let q = |q: &Option<qscope_quant::Quantizer>| q.as_ref().map_or("float".to_string(), |q| q.to_string());
            format!(", weights {}, activations {}", q(&h.weights), q(&h.output))
        }
        _ => String::new(),
    };
    let name = match net {
        Net::Quantized => "The step's net",
        Net::Float => "Its float twin",
        Net::Twin => "Its STE twin",
    };
    let what = format!("{} {}{quantizers}", config.dataset.name(), arch.join("-"));
    let mut trainer = Trainer::new(config)?;
    let mut outcome = format!("after {EPOCHS} epochs of training");
    let mut last = None;
    for _ in 0..EPOCHS {
        match trainer.step_epoch() {
            Ok(m) => last = Some(m),
            Err(e) => {
                outcome = format!("when training stopped at epoch {}: {e}", trainer.epoch());
                break;
            }
        }
    }
    let boundary = boundary(&mut trainer, RES);
    let svg = boundary_svg(&boundary, BOUNDARY)?;
    let score = match last {
        Some(m) => match m.test_acc {
            Some(acc) => format!("test accuracy {:.1} %", 100.0 * acc),
            None => format!("test loss {:.4}", m.test_loss),
        },
        None => "not trained".into(),
    };
    let reading = if boundary.two_d {
        format!(
            "the net's answer on a {RES} × {RES} grid (blue +1, orange −1); filled dots: training points, rings: test points"
        )
    } else {
        "the net's output along x1 (line) over the training and test points".to_string()
    };
    let command = params.cli_command(net, EPOCHS);
    let caption = escape(&format!("{name} ({what}) {outcome}: {score}. Shown: {reading}. The same run:"));
    Ok((svg, format!("{caption} <code>{}</code>", escape(&command))))
}
