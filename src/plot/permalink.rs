//! The permalink of a figure: the URL hash the explorer opens it from,
//! `#q=<spec>&q=<spec>&x=<lo>,<hi>`.

/// Percent-encodes `s` for a URL fragment value: letters, digits and `-._~()',:@!*/;$` stay
/// as they are (specs read well), everything else — space, `=`, `&`, `+`, `#`, `%`, quotes,
/// brackets, non-ASCII — becomes `%XX` per UTF-8 byte.
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for b in s.bytes() {
        let keep = b.is_ascii_alphanumeric() || b"-._~()',:@!*/;$".contains(&b);
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The hash of a figure of `specs` over `x`: `#q=…&q=…&x=lo,hi` (numbers in their shortest
/// exact form), then `&infer=1` and `&seed=N` when they differ from the defaults (training,
/// seed 0).
pub fn permalink(specs: &[String], x: (f32, f32), infer: bool, seed: u64) -> String {
    let mut parts: Vec<String> = specs.iter().map(|s| format!("q={}", percent_encode(s))).collect();
    parts.push(format!("x={},{}", x.0, x.1));
    if infer {
        parts.push("infer=1".into());
    }
    if seed != 0 {
        parts.push(format!("seed={seed}"));
    }
    format!("#{}", parts.join("&"))
}
