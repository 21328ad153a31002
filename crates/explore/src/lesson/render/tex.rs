//! The TeX commands a lesson's formulas may use, by kind, with the characters they stand for.

/// What a command without arguments stands for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Symbol {
    /// An identifier: a letter (italic) or an upright symbol.
    Ident(&'static str, bool),
    /// An operator, relation, fence or punctuation.
    Op(&'static str),
    /// A function name (`\max`, `\log`), upright.
    Function(&'static str),
    /// Horizontal space of this width.
    Space(&'static str),
    /// Nothing (`\!`, `\displaystyle`, `\limits`).
    Nothing,
}

/// Greek letters: lower-case italic, upper-case upright (as TeX sets them).
const GREEK: [(&str, &str); 40] = [
    ("alpha", "α"),
    ("beta", "β"),
    ("gamma", "γ"),
    ("delta", "δ"),
    ("epsilon", "ϵ"),
    ("varepsilon", "ε"),
    ("zeta", "ζ"),
    ("eta", "η"),
    ("theta", "θ"),
    ("vartheta", "ϑ"),
    ("iota", "ι"),
    ("kappa", "κ"),
    ("lambda", "λ"),
    ("mu", "μ"),
    ("nu", "ν"),
    ("xi", "ξ"),
    ("pi", "π"),
    ("rho", "ρ"),
    ("sigma", "σ"),
    ("tau", "τ"),
    ("upsilon", "υ"),
    ("phi", "ϕ"),
    ("varphi", "φ"),
    ("chi", "χ"),
    ("psi", "ψ"),
    ("omega", "ω"),
    ("ell", "ℓ"),
    ("Gamma", "Γ"),
    ("Delta", "Δ"),
    ("Theta", "Θ"),
    ("Lambda", "Λ"),
    ("Xi", "Ξ"),
    ("Pi", "Π"),
    ("Sigma", "Σ"),
    ("Upsilon", "Υ"),
    ("Phi", "Φ"),
    ("Psi", "Ψ"),
    ("Omega", "Ω"),
    ("partial", "∂"),
    ("nabla", "∇"),
];

/// Operators, relations, arrows, fences and big operators.
const OPERATORS: [(&str, &str); 58] = [
    ("cdot", "·"),
    ("times", "×"),
    ("div", "÷"),
    ("pm", "±"),
    ("mp", "∓"),
    ("ast", "∗"),
    ("star", "⋆"),
    ("circ", "∘"),
    ("le", "≤"),
    ("leq", "≤"),
    ("ge", "≥"),
    ("geq", "≥"),
    ("ne", "≠"),
    ("neq", "≠"),
    ("lt", "<"),
    ("gt", ">"),
    ("ll", "≪"),
    ("gg", "≫"),
    ("approx", "≈"),
    ("sim", "∼"),
    ("simeq", "≃"),
    ("equiv", "≡"),
    ("propto", "∝"),
    ("in", "∈"),
    ("notin", "∉"),
    ("subset", "⊂"),
    ("subseteq", "⊆"),
    ("cup", "∪"),
    ("cap", "∩"),
    ("setminus", "∖"),
    ("to", "→"),
    ("rightarrow", "→"),
    ("leftarrow", "←"),
    ("gets", "←"),
    ("Rightarrow", "⇒"),
    ("Leftrightarrow", "⇔"),
    ("implies", "⟹"),
    ("mapsto", "↦"),
    ("forall", "∀"),
    ("exists", "∃"),
    ("neg", "¬"),
    ("land", "∧"),
    ("lor", "∨"),
    ("mid", "∣"),
    ("vert", "|"),
    ("Vert", "‖"),
    ("lvert", "|"),
    ("rvert", "|"),
    ("langle", "⟨"),
    ("rangle", "⟩"),
    ("lfloor", "⌊"),
    ("rfloor", "⌋"),
    ("lceil", "⌈"),
    ("rceil", "⌉"),
    ("sum", "∑"),
    ("prod", "∏"),
    ("int", "∫"),
    ("colon", ":"),
];

/// Upright function names.
const FUNCTIONS: [&str; 23] = [
    "max", "min", "log", "ln", "exp", "tanh", "sinh", "cosh", "sin", "cos", "tan", "arg", "lim", "sup", "inf", "det",
    "sgn", "dim", "ker", "deg", "gcd", "Pr", "bmod",
];

/// Dots and other symbols that are neither letters nor operators.
const OTHERS: [(&str, Symbol); 16] = [
    ("infty", Symbol::Ident("∞", true)),
    ("ldots", Symbol::Op("…")),
    ("dots", Symbol::Op("…")),
    ("cdots", Symbol::Op("⋯")),
    ("vdots", Symbol::Op("⋮")),
    ("prime", Symbol::Op("′")),
    ("quad", Symbol::Space("1em")),
    ("qquad", Symbol::Space("2em")),
    (",", Symbol::Space("0.1667em")),
    (":", Symbol::Space("0.2222em")),
    (";", Symbol::Space("0.2778em")),
    (" ", Symbol::Space("0.25em")),
    ("!", Symbol::Nothing),
    ("displaystyle", Symbol::Nothing),
    ("textstyle", Symbol::Nothing),
    ("limits", Symbol::Nothing),
];

/// What `\name` stands for, when it takes no argument.
pub(super) fn symbol(name: &str) -> Option<Symbol> {
    if let Some((_, s)) = GREEK.iter().find(|(n, _)| *n == name) {
        let upright = name.starts_with(|c: char| c.is_ascii_uppercase()) || matches!(name, "partial" | "nabla");
        return Some(Symbol::Ident(s, upright));
    }
    if let Some((_, s)) = OPERATORS.iter().find(|(n, _)| *n == name) {
        return Some(Symbol::Op(s));
    }
    if let Some(f) = FUNCTIONS.iter().find(|f| **f == name) {
        return Some(Symbol::Function(if *f == "bmod" { "mod" } else { f }));
    }
    if let Some((_, s)) = OTHERS.iter().find(|(n, _)| *n == name) {
        return Some(*s);
    }
    match name {
        "{" => Some(Symbol::Op("{")),
        "}" => Some(Symbol::Op("}")),
        "|" => Some(Symbol::Op("‖")),
        "$" => Some(Symbol::Ident("$", true)),
        "%" => Some(Symbol::Op("%")),
        "#" => Some(Symbol::Op("#")),
        "&" => Some(Symbol::Op("&")),
        "_" => Some(Symbol::Ident("_", true)),
        _ => None,
    }
}

/// The accents over a base: the command, its mark, and whether the mark stretches over the whole
/// base (`\overline{|x|}` spans the bars too; `\bar{x}` is a letter's accent).
pub(super) const ACCENTS: [(&str, &str, bool); 8] = [
    ("hat", "^", false),
    ("widehat", "^", true),
    ("tilde", "~", false),
    ("widetilde", "~", true),
    ("bar", "‾", false),
    ("overline", "‾", true),
    ("vec", "→", false),
    ("dot", "˙", false),
];

/// A letter or digit of `\mathbb{…}` (double-struck: ℝ, 𝔼, 𝟙) or `\mathcal{…}` (script
/// capitals: 𝓛 is ℒ, 𝒩), from Unicode's mathematical alphanumeric symbols and the older letters
/// that fill their holes; `None` for any other character.
pub(super) fn styled(c: char, calligraphic: bool) -> Option<char> {
    let offset = |base: u32, first: char| char::from_u32(base + (c as u32 - first as u32));
    if calligraphic {
        let hole = [('B', 'ℬ'), ('E', 'ℰ'), ('F', 'ℱ'), ('H', 'ℋ'), ('I', 'ℐ'), ('L', 'ℒ'), ('M', 'ℳ'), ('R', 'ℛ')];
        return match c {
            _ if hole.iter().any(|h| h.0 == c) => hole.iter().find(|h| h.0 == c).map(|h| h.1),
            'A'..='Z' => offset(0x1D49C, 'A'),
            _ => None,
        };
    }
    let hole = [('C', 'ℂ'), ('H', 'ℍ'), ('N', 'ℕ'), ('P', 'ℙ'), ('Q', 'ℚ'), ('R', 'ℝ'), ('Z', 'ℤ')];
    match c {
        _ if hole.iter().any(|h| h.0 == c) => hole.iter().find(|h| h.0 == c).map(|h| h.1),
        'A'..='Z' => offset(0x1D538, 'A'),
        'a'..='z' => offset(0x1D552, 'a'),
        '0'..='9' => offset(0x1D7D8, '0'),
        _ => None,
    }
}

/// The commands with arguments (handled by the parser), for "did you mean".
pub(super) const WITH_ARGUMENTS: [&str; 20] = [
    "frac",
    "dfrac",
    "tfrac",
    "sqrt",
    "operatorname",
    "text",
    "textrm",
    "mathrm",
    "mbox",
    "mathbb",
    "mathcal",
    "left",
    "right",
    "big",
    "Big",
    "bigl",
    "bigr",
    "Bigl",
    "Bigr",
    "middle",
];

/// Every command name, for "did you mean".
pub(super) fn all_names() -> impl Iterator<Item = &'static str> {
    GREEK
        .iter()
        .map(|(n, _)| *n)
        .chain(OPERATORS.iter().map(|(n, _)| *n))
        .chain(FUNCTIONS.iter().copied())
        .chain(OTHERS.iter().map(|(n, _)| *n).filter(|n| n.len() > 1))
        .chain(ACCENTS.iter().map(|(n, _, _)| *n))
        .chain(WITH_ARGUMENTS.iter().copied())
}

/// The book's page of the TeX subset (docs/src/generated/tex.md), from the tables above.
pub fn markdown() -> String {
    let cmds = |names: &mut dyn Iterator<Item = String>| names.collect::<Vec<_>>().join(" ");
    let pairs = |t: &[(&str, &str)]| cmds(&mut t.iter().map(|(n, s)| format!("`\\{n}` {s}")));
    let others = cmds(&mut OTHERS.iter().filter(|(n, _)| n.len() > 1).map(|(n, s)| match s {
        Symbol::Ident(c, _) | Symbol::Op(c) | Symbol::Function(c) => format!("`\\{n}` {c}"),
        Symbol::Space(w) => format!("`\\{n}` (space {w})"),
        Symbol::Nothing => format!("`\\{n}` (ignored)"),
    }));
    let accents = cmds(
        &mut ACCENTS
            .iter()
            .map(|(n, m, wide)| format!("`\\{n}{{x}}` {m}{}", if *wide { " (over the whole base)" } else { "" })),
    );
    let mut out = String::from("<!-- generated by `qscope docs`: do not edit (CONTRIBUTING.md) -->\n\n");
    out += "| kind | commands |\n|---|---|\n";
    out += "| structure | `^` and `_` scripts (one character or `{…}`), `\\frac{a}{b}` (`\\dfrac`, `\\tfrac`), `\\sqrt{x}`, `{…}` groups |\n";
    out += "| text | `\\text{…}`, `\\textrm{…}`, `\\mathrm{…}`, `\\mbox{…}` (upright text), `\\operatorname{name}` |\n";
    out += "| letters | `\\mathbb{…}` (double-struck letters and digits: ℝ, 𝔼, 𝟙), `\\mathcal{…}` (script capitals: ℒ, 𝒩) |\n";
    out += "| fences | `\\left` … `\\right`, `\\middle`, `\\big`, `\\Big`, `\\bigl`, `\\bigr`, `\\Bigl`, `\\Bigr` before `( ) [ ] / < > \\|`, `\\{ \\}`, `\\lfloor \\rfloor \\lceil \\rceil \\langle \\rangle \\\\|` or `.` (none) |\n";
    out += &format!("| Greek | {} |\n", pairs(&GREEK));
    out += &format!("| operators and relations | {} |\n", pairs(&OPERATORS).replace('|', "\\|"));
    out += &format!("| functions (upright) | {} |\n", cmds(&mut FUNCTIONS.iter().map(|f| format!("`\\{f}`"))));
    out += &format!("| accents | {accents} |\n");
    out += &format!("| other symbols and spaces | {others} |\n");
    out += "| escapes | `\\{` `\\}` `\\\\|` (‖) `\\$` `\\%` `\\#` `\\&` `\\_` |\n";
    out
}
