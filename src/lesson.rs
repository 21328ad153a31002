//! `qscope lesson check|link|export`: validate a lesson file, print the link that carries it,
//! write its printable handout.
//!
//! A problem is one line, `FILE:LINE: step K "title": message`, as the lesson parser finds it
//! (structure, settings, quantizers, tasks, and formulas the text renderer cannot read: unknown
//! TeX commands, unbalanced braces). `FILE` may be `-` for standard input.

use std::io::{self, Read};

use qscope_explore::lesson::{Lesson, LessonError, link, lint};

use crate::args::{Command, Opt};

pub(crate) const USAGE: &[(&str, &str)] = &[
    ("lesson check FILE", "validate a lesson (FILE or - for stdin)"),
    ("lesson link FILE [--step K] [--base URL]", "the #lesson=~… link that carries it"),
    ("lesson export FILE -o DIR [--explorer URL]", "DIR/index.html: a printable handout"),
];

const ABOUT: &str = "\
lesson works on a classroom lesson (Markdown: `# Title`, `## Step` sections, a ```qscope block
of key=value settings per step; see the book, Teaching with qscope).
  check    prints `ok: N steps`, or one line per problem, `FILE:LINE: step K \"title\": message`
           (settings, quantizers, tasks, formulas), and fails; warnings (`warning: …`) name
           what opens but misleads: a task that holds when its step opens or cannot hold, a
           highlighted control the quantizer lacks, a pin outside the x range
  link     prints `#lesson=~…` (the lesson's text, DEFLATE, base64url); --step K adds `&step=K`;
           --base URL prints a whole URL (the page's address, then the hash)
  export   writes DIR/index.html: each step's text (formulas as MathML), task and figure (SVG;
           a trainer step's nets trained for 200 epochs, their decision boundaries), no script;
           --explorer URL makes every link a whole URL (the page's address, then the hash) and
           gives each step a QR code of its link";

const NEEDS: &str = "lesson needs a command: check FILE, link FILE [--step K] or export FILE -o DIR";

/// A lesson command's options.
#[derive(Default)]
struct LessonOptions {
    step: Option<String>,
    out: Option<String>,
    /// The page's address: links become whole URLs.
    base: Option<String>,
}

/// What runs a lesson command.
type Run = fn(&Invocation) -> Result<(), String>;

/// `lesson check`, `lesson link` or `lesson export`: its one FILE and options, and what runs it.
fn command(sub: &str) -> Option<(Command<LessonOptions>, Run)> {
    let (name, extra, options, run): (_, _, _, Run) = match sub {
        "check" => ("lesson check", "lesson check takes one FILE", Vec::new(), check),
        "link" => (
            "lesson link",
            "lesson link takes one FILE",
            vec![
                Opt::value("--step", "K", "open the link at step K", |o: &mut LessonOptions, v| {
                    o.step = Some(v.to_string());
                    Ok(())
                }),
                page_address("--base", "print a whole URL: the page's address, then the hash"),
            ],
            link_cmd,
        ),
        "export" => (
            "lesson export",
            "lesson export takes one FILE",
            vec![
                Opt::value("--output", "DIR", "the handout's directory (required)", |o: &mut LessonOptions, v| {
                    o.out = Some(v.to_string());
                    Ok(())
                })
                .alias("-o"),
                page_address("--explorer", "the page's address: whole URLs and a QR code per step"),
            ],
            export,
        ),
        _ => return None,
    };
    Some((Command { name, about: String::new(), options, max_free: Some(1), extra: extra.into() }, run))
}

pub(crate) fn help() -> String {
    let options: String = ["link", "export"].into_iter().filter_map(command).map(|(c, _)| c.help()).collect();
    format!("{ABOUT}\n{options}")
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let sub = args.first().ok_or(NEEDS)?;
    let (command, run) = command(sub).ok_or_else(|| format!("unknown lesson command '{sub}': {NEEDS}"))?;
    let mut options = LessonOptions::default();
    let free = command.parse(&args[1..], &mut options)?;
    let file = free.into_iter().next().ok_or_else(|| format!("{} needs a FILE (or - for stdin)", command.name))?;
    run(&Invocation { file, options })
}

/// A lesson file's name (as messages show it) and text.
pub(crate) struct Source {
    pub name: String,
    pub text: String,
}

/// Reads `path` (`-`: standard input) as UTF-8.
fn read(path: &str) -> Result<Source, String> {
    let (name, bytes) = if path == "-" {
        let mut bytes = Vec::new();
        io::stdin().read_to_end(&mut bytes).map_err(|e| format!("reading stdin: {e}"))?;
        ("<stdin>".to_string(), bytes)
    } else {
        (path.to_string(), std::fs::read(path).map_err(|e| format!("reading {path}: {e}"))?)
    };
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("{name}: not UTF-8 text (byte {} is not)", e.utf8_error().valid_up_to() + 1))?;
    Ok(Source { name, text })
}

/// The lesson, or every problem as a `FILE:LINE: …` line (the parser runs the text renderer
/// too, so formulas it cannot read are among them).
fn checked(src: &Source) -> Result<Lesson, Vec<String>> {
    Lesson::parse(&src.text).map_err(|errors| errors.iter().map(|e| locate(&src.name, e)).collect())
}

/// `FILE:LINE: step K "title": message` (the parts that apply).
fn locate(file: &str, e: &LessonError) -> String {
    let mut s = match e.line {
        Some(line) => format!("{file}:{line}: "),
        None => format!("{file}: "),
    };
    if let Some((k, title)) = &e.step {
        s += &format!("step {k} \"{title}\": ");
    }
    s + &e.message
}

/// Prints the problems to stderr; the error is then empty (nothing more to say).
fn report(problems: Vec<String>) -> String {
    for p in problems {
        eprintln!("{p}");
    }
    String::new()
}

/// A lesson command's FILE and options.
struct Invocation {
    file: String,
    options: LessonOptions,
}

fn check(inv: &Invocation) -> Result<(), String> {
    let src = read(&inv.file)?;
    let lesson = checked(&src).map_err(report)?;
    let warnings = lint::warnings(&lesson);
    for w in &warnings {
        eprintln!("{}", locate(&src.name, &LessonError { message: format!("warning: {}", w.message), ..w.clone() }));
    }
    let n = lesson.steps.len();
    let w = warnings.len();
    let also = if w == 0 { String::new() } else { format!(", {w} warning{}", if w == 1 { "" } else { "s" }) };
    println!("ok: {n} step{}{also}", if n == 1 { "" } else { "s" });
    Ok(())
}

fn link_cmd(inv: &Invocation) -> Result<(), String> {
    let src = read(&inv.file)?;
    let lesson = checked(&src).map_err(report)?;
    let mut hash = format!("#lesson={}", link::encode(&src.text));
    if let Some(k) = &inv.options.step {
        let n = lesson.steps.len();
        let step = k.trim().parse::<usize>().ok().filter(|k| (1..=n).contains(k));
        let step = step.ok_or_else(|| format!("--step {k}: expected a step from 1 to {n}"))?;
        hash += &format!("&step={step}");
    }
    println!("{}{hash}", inv.options.base.as_deref().unwrap_or_default());
    Ok(())
}

/// An option taking the page's address ([`base_url`]).
fn page_address(name: &str, help: &str) -> Opt<LessonOptions> {
    Opt::value(name, "URL", help, |o: &mut LessonOptions, v| {
        o.base = Some(base_url(v)?);
        Ok(())
    })
}

/// The page's address a link starts with: `http://` or `https://`, without a `#` part (a
/// trailing `#` is dropped), e.g. `https://example.org/qscope/`.
pub(crate) fn base_url(v: &str) -> Result<String, String> {
    let v = v.trim().trim_end_matches('#');
    let scheme = v.strip_prefix("https://").or_else(|| v.strip_prefix("http://"));
    match scheme {
        Some(rest) if !rest.is_empty() && !v.contains('#') && !v.chars().any(char::is_whitespace) => Ok(v.to_string()),
        _ => Err(format!(
            "--base {}: expected the page's address, http:// or https://, without a # part (e.g. https://example.org/qscope/)",
            qscope_quant::text::shorten(v, 60)
        )),
    }
}

fn export(inv: &Invocation) -> Result<(), String> {
    let dir = inv.options.out.as_ref().map(std::path::PathBuf::from);
    let dir = dir.ok_or("lesson export needs an output directory: -o DIR")?;
    let src = read(&inv.file)?;
    let lesson = checked(&src).map_err(report)?;
    let html = crate::handout::html(&lesson, &src.text, inv.options.base.as_deref())?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let index = dir.join("index.html");
    std::fs::write(&index, html).map_err(|e| format!("writing {}: {e}", index.display()))?;
    let n = lesson.steps.len();
    println!("{}: {n} step{}", index.display(), if n == 1 { "" } else { "s" });
    Ok(())
}
