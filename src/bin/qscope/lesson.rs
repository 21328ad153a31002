//! `qscope lesson check|link|export`: validate a lesson file, print the link that carries it,
//! write its printable handout.
//!
//! A problem is one line, `FILE:LINE: step K "title": message`, as the lesson parser finds it
//! (structure, settings, quantizers, tasks, and formulas the text renderer cannot read: unknown
//! TeX commands, unbalanced braces). `FILE` may be `-` for standard input.

use std::io::{self, Read};

use qscope::explore::lesson::{Lesson, LessonError, link};

const HELP: &str = "lesson needs a command: check FILE, link FILE [--step K] or export FILE -o DIR";

pub(crate) fn lesson(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("check") => check(&args[1..]),
        Some("link") => link_cmd(&args[1..]),
        Some("export") => export(&args[1..]),
        Some(other) => Err(format!("unknown lesson command '{other}': {HELP}")),
        None => Err(HELP.into()),
    }
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

/// A lesson command's arguments: its one FILE and its options' values by name.
struct Invocation<'a> {
    file: &'a str,
    options: Vec<(&'a str, String)>,
}

fn invocation<'a>(args: &'a [String], command: &str, options: &[&str]) -> Result<Invocation<'a>, String> {
    let (mut file, mut values) = (None, Vec::new());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, inline) = crate::args::split_option(a);
        if options.contains(&name) {
            let v = inline.or_else(|| it.next().cloned()).ok_or_else(|| format!("{name} needs a value"))?;
            values.push((name, v));
        } else if a.starts_with('-') && a != "-" {
            return Err(format!("unknown option '{a}' for lesson {command}"));
        } else if file.is_none() {
            file = Some(a.as_str());
        } else {
            return Err(format!("unexpected argument '{a}' (lesson {command} takes one FILE)"));
        }
    }
    let file = file.ok_or_else(|| format!("lesson {command} needs a FILE (or - for stdin)"))?;
    Ok(Invocation { file, options: values })
}

fn check(args: &[String]) -> Result<(), String> {
    let src = read(invocation(args, "check", &[])?.file)?;
    let lesson = checked(&src).map_err(report)?;
    let n = lesson.steps.len();
    println!("ok: {n} step{}", if n == 1 { "" } else { "s" });
    Ok(())
}

fn link_cmd(args: &[String]) -> Result<(), String> {
    let inv = invocation(args, "link", &["--step"])?;
    let src = read(inv.file)?;
    let lesson = checked(&src).map_err(report)?;
    let mut hash = format!("#lesson={}", link::encode(&src.text));
    if let Some((_, k)) = inv.options.last() {
        let n = lesson.steps.len();
        let step = k.trim().parse::<usize>().ok().filter(|k| (1..=n).contains(k));
        let step = step.ok_or_else(|| format!("--step {k}: expected a step from 1 to {n}"))?;
        hash += &format!("&step={step}");
    }
    println!("{hash}");
    Ok(())
}

#[cfg(not(target_arch = "wasm32"))]
fn export(args: &[String]) -> Result<(), String> {
    let inv = invocation(args, "export", &["-o", "--output"])?;
    let dir = inv.options.last().map(|(_, d)| std::path::PathBuf::from(d));
    let dir = dir.ok_or("lesson export needs an output directory: -o DIR")?;
    let src = read(inv.file)?;
    let lesson = checked(&src).map_err(report)?;
    let html = crate::handout::html(&lesson, &src.text)?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let index = dir.join("index.html");
    std::fs::write(&index, html).map_err(|e| format!("writing {}: {e}", index.display()))?;
    let n = lesson.steps.len();
    println!("{}: {n} step{}", index.display(), if n == 1 { "" } else { "s" });
    Ok(())
}

#[cfg(target_arch = "wasm32")]
fn export(_: &[String]) -> Result<(), String> {
    Err("qscope lesson export writes files: run the native binary".into())
}
