//! The one argument parser: each subcommand is a table of options ([`Command`]), each option
//! its name, the name its value goes by in --help, its help and what it does; the table parses the
//! arguments (`--opt value`, `--opt=value`, switches, free arguments) and writes `--help`.
//! An option that is also a link's key comes from that key's settings row ([`setting`]): the
//! same words, range, default and message as the link's.

use qscope_explore::settings::{Range, Setting};
use qscope_explore::state::{self, Mode, State};

/// What an option does: with the name as given and its value ("" for a switch).
pub(crate) type Apply<T> = Box<dyn Fn(&mut T, &str, &str) -> Result<(), String>>;

/// One option of a command.
pub(crate) struct Opt<T> {
    /// `--seed`; for a numbered family, how `--help` shows it (`--wqN`).
    pub name: String,
    /// Another name (`-o` for `--output`).
    pub alias: Option<&'static str>,
    /// The name the value goes by in `--help` (`N`, `SPEC`); None: a switch, which takes none.
    pub arg: Option<&'static str>,
    pub help: String,
    /// A numbered family (`--wq1`, `--wq2`…): which names it takes, instead of `name`.
    pub family: Option<fn(&str) -> bool>,
    pub apply: Apply<T>,
}

impl<T> Opt<T> {
    /// An option with a value.
    pub fn value(
        name: &str,
        arg: &'static str,
        help: impl Into<String>,
        apply: impl Fn(&mut T, &str) -> Result<(), String> + 'static,
    ) -> Opt<T> {
        let apply = Box::new(move |o: &mut T, _: &str, v: &str| apply(o, v));
        Opt { name: name.into(), alias: None, arg: Some(arg), help: help.into(), family: None, apply }
    }

    /// A switch.
    pub fn switch(name: &str, help: impl Into<String>, apply: impl Fn(&mut T) + 'static) -> Opt<T> {
        let apply = Box::new(move |o: &mut T, _: &str, _: &str| {
            apply(o);
            Ok(())
        });
        Opt { name: name.into(), alias: None, arg: None, help: help.into(), family: None, apply }
    }

    pub fn alias(self, alias: &'static str) -> Opt<T> {
        Opt { alias: Some(alias), ..self }
    }

    fn takes(&self, name: &str) -> bool {
        match self.family {
            Some(takes) => takes(name),
            None => self.name == name || self.alias == Some(name),
        }
    }

    /// `-o, --output FILE`.
    fn synopsis(&self) -> String {
        let alias = self.alias.map_or(String::new(), |a| format!("{a}, "));
        let arg = self.arg.map_or(String::new(), |a| format!(" {a}"));
        format!("{alias}{}{arg}", self.name)
    }
}

/// A command: its name, what it does, its options and its free arguments.
pub(crate) struct Command<T> {
    /// `eval`, `lesson link`.
    pub name: &'static str,
    /// What it does, before its options in `--help`.
    pub about: String,
    pub options: Vec<Opt<T>>,
    /// How many free arguments it takes at most (None: any number)…
    pub max_free: Option<usize>,
    /// …and what an extra one is told (`quote the spec: …`).
    pub extra: String,
}

/// An option (`-o`, `--seed`, `--seed=3`), not a free argument (`-` is standard input).
fn is_option(a: &str) -> bool {
    a.starts_with('-') && a != "-"
}

impl<T> Command<T> {
    /// Reads `args` into `into` in order: each option does what it does with its value (its
    /// inline `=value`, or else the next argument, which may start with '-': `--x -2,2`); the
    /// free arguments are returned.
    pub fn parse(&self, args: &[String], into: &mut T) -> Result<Vec<String>, String> {
        let mut free = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if !is_option(a) {
                if self.max_free.is_some_and(|max| free.len() >= max) {
                    return Err(format!("unexpected argument '{a}' ({})", self.extra));
                }
                free.push(a.clone());
                continue;
            }
            let (name, inline) = match a.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
                _ => (a.as_str(), None),
            };
            let opt = self.options.iter().find(|o| o.takes(name));
            let opt = opt.ok_or_else(|| format!("unknown option '{name}' for {}", self.name))?;
            let value = match opt.arg {
                Some(arg) => {
                    inline.or_else(|| it.next().cloned()).ok_or_else(|| format!("{name} needs a value ({arg})"))?
                }
                None if inline.is_some() => return Err(format!("{name} takes no value")),
                None => String::new(),
            };
            (opt.apply)(into, name, &value)?;
        }
        Ok(free)
    }

    /// Its section of `--help`: what it does, then one line per option.
    pub fn help(&self) -> String {
        let mut out = if self.about.is_empty() { String::new() } else { format!("{}\n", self.about.trim_end()) };
        let width = self.options.iter().map(|o| o.synopsis().chars().count()).max().unwrap_or(0).min(22);
        for o in &self.options {
            out += &option_line(&o.synopsis(), width, &o.help);
        }
        out
    }
}

/// `  --seed N   help…`, the help folded at 100 columns under itself.
fn option_line(synopsis: &str, width: usize, help: &str) -> String {
    let mut out = String::new();
    let mut line = format!("  {synopsis:<width$}  ");
    let mut first = true;
    for word in help.split_whitespace() {
        if !first && line.chars().count() + 1 + word.chars().count() > 100 {
            out += line.trim_end();
            out.push('\n');
            line = " ".repeat(width + 4);
            first = true;
        }
        if !first {
            line.push(' ');
        }
        line += word;
        first = false;
    }
    out + line.trim_end() + "\n"
}

/// The usage lines of commands, aligned: `    qscope eval SPEC …   numbers on stdin → …`.
pub(crate) fn usage_lines(usage: &[(&str, &str)]) -> String {
    let width = usage.iter().map(|(u, _)| u.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (synopsis, what) in usage {
        let pad = width - synopsis.chars().count();
        out += format!("    qscope {synopsis}{}  {what}", " ".repeat(pad)).trim_end();
        out.push('\n');
    }
    out
}

/// A number for option `opt`, or `--reps x: expected a count`.
pub(crate) fn number<T: std::str::FromStr>(opt: &str, v: &str, what: &str) -> Result<T, String> {
    v.trim().parse().map_err(|_| format!("{opt} {v}: expected {what}"))
}

/// A finite number for option `opt`.
pub(crate) fn finite(opt: &str, v: &str) -> Result<f32, String> {
    v.trim().parse::<f32>().ok().filter(|x| x.is_finite()).ok_or_else(|| format!("{opt} {v}: expected a finite number"))
}

/// A comma-separated list (empty text: none).
pub(crate) fn list<T>(opt: &str, v: &str, f: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| f(s).map_err(|e| format!("{opt} {v}: {e}"))).collect()
}

/// A settings row's option: its flag, its value's name, its `--help` (what it takes, its default
/// in `defaults`), and `apply`, which reads a value with the row (`Setting::read_flag`).
pub(crate) fn setting<T, S>(
    row: &'static Setting<S>,
    defaults: &S,
    apply: impl Fn(&mut T, &str) -> Result<(), String> + 'static,
) -> Option<Opt<T>> {
    let flag = row.flag?;
    let arg = match row.range {
        Range::Switch => None,
        _ => Some(row.arg),
    };
    // A switch is on when given.
    let apply: Apply<T> = Box::new(move |o: &mut T, _: &str, v: &str| apply(o, if arg.is_none() { "1" } else { v }));
    Some(Opt { name: flag.into(), alias: None, arg, help: row.cli_help(defaults), family: None, apply })
}

/// `--seed N`, `--infer` (the explorer's rows) and `--train`: how `eval`, `plot` and `compare`
/// evaluate a quantizer.
pub(crate) fn evaluation<T: 'static>(seed: fn(&mut T) -> &mut u64, infer: fn(&mut T) -> &mut bool) -> Vec<Opt<T>> {
    let read = move |row: &'static Setting<State>| {
        move |o: &mut T, v: &str| {
            let mut st = State { seed: *seed(o), mode: Mode::from_training(!*infer(o)), ..State::default() };
            row.read_flag(&mut st, v)?;
            (*seed(o), *infer(o)) = (st.seed, !st.mode.training());
            Ok(())
        }
    };
    let defaults = State::default();
    let mut options: Vec<Opt<T>> =
        [&state::SEED, &state::INFER].into_iter().filter_map(|row| setting(row, &defaults, read(row))).collect();
    options.push(Opt::switch("--train", "training behaviour (the default)", move |o| *infer(o) = false));
    options
}

/// `--x LO,HI`, the explorer's row, into `x`.
pub(crate) fn x_range<T: 'static>(x: fn(&mut T) -> &mut (f32, f32)) -> Option<Opt<T>> {
    setting(&state::X, &State::default(), move |o: &mut T, v: &str| {
        let mut st = State { x: *x(o), ..State::default() };
        state::X.read_flag(&mut st, v)?;
        *x(o) = st.x;
        Ok(())
    })
}

/// `--width W`, `--height H` (whole pixels from 200 to 4000; `default` in the help) and
/// `--dark`: a figure's size and theme.
pub(crate) fn figure_options<T: 'static>(
    default: (u32, u32),
    size: fn(&mut T) -> &mut (u32, u32),
    dark: fn(&mut T) -> &mut bool,
) -> [Opt<T>; 3] {
    let pixels = |name: &str, v: &str| {
        let n = v.parse::<u32>().ok().filter(|n| (200..=4000).contains(n));
        n.ok_or_else(|| format!("{name} {v}: expected a whole number of pixels from 200 to 4000"))
    };
    [
        Opt::value(
            "--width",
            "W",
            format!("figure width in pixels (default {}; the PNG has 2×)", default.0),
            move |o, v| {
                size(o).0 = pixels("--width", v)?;
                Ok(())
            },
        ),
        Opt::value("--height", "H", format!("figure height in pixels (default {})", default.1), move |o, v| {
            size(o).1 = pixels("--height", v)?;
            Ok(())
        }),
        Opt::switch("--dark", "dark theme", move |o| *dark(o) = true),
    ]
}

/// The lower-case extension of a file name.
pub(crate) fn extension(path: &str) -> String {
    std::path::Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Seen {
        x: String,
        on: bool,
    }

    fn command() -> Command<Seen> {
        Command {
            name: "try",
            about: "try reads --x and --on.".into(),
            options: vec![
                Opt::value("--x", "LO,HI", "a range", |s: &mut Seen, v| {
                    s.x = v.to_string();
                    Ok(())
                })
                .alias("-x"),
                Opt::switch("--on", "a switch", |s: &mut Seen| s.on = true),
            ],
            max_free: Some(1),
            extra: "try takes one FILE".into(),
        }
    }

    fn parse(args: &[&str]) -> Result<(Seen, Vec<String>), String> {
        let mut seen = Seen::default();
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        command().parse(&args, &mut seen).map(|free| (seen, free))
    }

    #[test]
    fn a_value_is_inline_or_the_next_argument_even_if_it_starts_with_a_dash() {
        assert_eq!(parse(&["--x=-2,2"]).unwrap().0.x, "-2,2");
        assert_eq!(parse(&["--x", "-2,2"]).unwrap().0.x, "-2,2");
        assert_eq!(
            parse(&["-x", "1,3", "--on", "-"]).map(|(s, free)| (s.x, s.on, free)).unwrap(),
            ("1,3".into(), true, vec!["-".into()])
        );
    }

    #[test]
    fn a_bad_argument_is_named() {
        let err = |args: &[&str]| parse(args).err().unwrap();
        assert_eq!(err(&["--y"]), "unknown option '--y' for try");
        assert_eq!(err(&["--x"]), "--x needs a value (LO,HI)");
        assert_eq!(err(&["--on=1"]), "--on takes no value");
        assert_eq!(err(&["a", "b"]), "unexpected argument 'b' (try takes one FILE)");
    }

    #[test]
    fn help_lists_every_option_after_what_the_command_does() {
        let help = command().help();
        assert!(help.starts_with("try reads --x and --on.\n"), "{help}");
        assert!(help.contains("  -x, --x LO,HI  a range\n") && help.contains("  --on           a switch\n"), "{help}");
    }
}
