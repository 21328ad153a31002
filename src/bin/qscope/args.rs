//! Option reading shared by the subcommands: `--opt=value` or `--opt value`, numbers and lists.

/// `--opt=value` → (`--opt`, Some(value)); anything else → (itself, None), its value (if any)
/// being the next argument, which may start with '-' (`--x -2,2`).
pub(crate) fn split_option(a: &str) -> (&str, Option<String>) {
    match a.split_once('=') {
        Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
        _ => (a, None),
    }
}

/// The value of option `name`: its inline `=value`, or else the next argument.
pub(crate) fn value<'a>(
    name: &str,
    inline: Option<String>,
    rest: &mut impl Iterator<Item = &'a String>,
    what: &str,
) -> Result<String, String> {
    inline.or_else(|| rest.next().cloned()).ok_or_else(|| format!("{name} needs a value ({what})"))
}

/// A finite number for option `opt`.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn parse_f32(opt: &str, v: &str) -> Result<f32, String> {
    v.trim().parse::<f32>().ok().filter(|x| x.is_finite()).ok_or_else(|| format!("{opt} {v}: expected a finite number"))
}

/// A comma-separated list (empty text: none).
pub(crate) fn parse_list<T>(opt: &str, v: &str, f: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| f(s).map_err(|e| format!("{opt} {v}: {e}"))).collect()
}

pub(crate) fn parse_num<T: std::str::FromStr>(opt: &str, v: &str, what: &str) -> Result<T, String> {
    v.trim().parse().map_err(|_| format!("{opt} {v}: expected {what}"))
}
