//! The only way the renderer writes HTML: an [`Html`] buffer that opens and closes tags from a
//! closed set ([`Tag`]), takes attribute names from the code and escapes every attribute value
//! and every piece of text with [`escape`]. Text from a lesson cannot become a tag because no
//! method writes it unescaped.

/// Every tag the renderer writes: Markdown's and MathML's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tag {
    P,
    Ul,
    Ol,
    Li,
    Table,
    Tr,
    Th,
    Td,
    Strong,
    Em,
    Code,
    Pre,
    A,
    Math,
    Mrow,
    Mi,
    Mn,
    Mo,
    Mfrac,
    Msup,
    Msub,
    Msubsup,
    Msqrt,
    Mover,
    Munder,
    Mtext,
    Mspace,
    /// A line-break opportunity (void: never closed).
    Wbr,
}

/// The names of the tags the renderer can write (nothing else ever starts with `<` in its output).
pub const ALLOWED_TAGS: [&str; 28] = [
    "p", "ul", "ol", "li", "table", "tr", "th", "td", "strong", "em", "code", "pre", "a", "math", "mrow", "mi", "mn",
    "mo", "mfrac", "msup", "msub", "msubsup", "msqrt", "mover", "munder", "mtext", "mspace", "wbr",
];

/// The tags that have no closing tag.
pub const VOID_TAGS: [&str; 1] = ["wbr"];

impl Tag {
    pub(super) fn name(self) -> &'static str {
        use Tag::*;
        let i = match self {
            P => 0,
            Ul => 1,
            Ol => 2,
            Li => 3,
            Table => 4,
            Tr => 5,
            Th => 6,
            Td => 7,
            Strong => 8,
            Em => 9,
            Code => 10,
            Pre => 11,
            A => 12,
            Math => 13,
            Mrow => 14,
            Mi => 15,
            Mn => 16,
            Mo => 17,
            Mfrac => 18,
            Msup => 19,
            Msub => 20,
            Msubsup => 21,
            Msqrt => 22,
            Mover => 23,
            Munder => 24,
            Mtext => 25,
            Mspace => 26,
            Wbr => 27,
        };
        ALLOWED_TAGS[i]
    }
}

/// `&`, `<`, `>`, `"` and `'` as character references: the text is safe between tags and inside
/// a quoted attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Whether a link target may become an `href`: `http://…`, `https://…` (with a host) or `#…`, with
/// no whitespace or control character. Anything else (`javascript:`, `data:`, relative paths) is
/// shown as text.
pub fn safe_href(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let scheme_ok = ["http://", "https://"].iter().any(|s| lower.strip_prefix(s).is_some_and(|rest| !rest.is_empty()))
        || url.starts_with('#');
    scheme_ok && !url.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// An HTML fragment under construction.
#[derive(Default)]
pub(super) struct Html {
    out: String,
}

impl Html {
    /// `<tag name="value"…>` with every value escaped.
    pub(super) fn open(&mut self, tag: Tag, attrs: &[(&'static str, &str)]) {
        self.out.push('<');
        self.out.push_str(tag.name());
        for (name, value) in attrs {
            self.out.push(' ');
            self.out.push_str(name);
            self.out.push_str("=\"");
            self.out.push_str(&escape(value));
            self.out.push('"');
        }
        self.out.push('>');
    }

    pub(super) fn close(&mut self, tag: Tag) {
        self.out.push_str("</");
        self.out.push_str(tag.name());
        self.out.push('>');
    }

    /// Escaped text.
    pub(super) fn text(&mut self, text: &str) {
        self.out.push_str(&escape(text));
    }

    /// `<tag>text</tag>`.
    pub(super) fn leaf(&mut self, tag: Tag, attrs: &[(&'static str, &str)], text: &str) {
        self.open(tag, attrs);
        self.text(text);
        self.close(tag);
    }

    /// Inline code, `<code>text</code>`, with a line-break opportunity (`<wbr>`) after each `(`,
    /// `,` and `_` and before each `.`, so that a long spec such as
    /// `qkeras.stochastic_binary(temperature=1,use_real_sigmoid=False)` wraps between its parts
    /// in a narrow column instead of mid-word. `<wbr>` adds no character: copied text is the code.
    pub(super) fn code(&mut self, text: &str) {
        self.open(Tag::Code, &[]);
        let mut part = 0;
        for (i, c) in text.char_indices() {
            let cut = match c {
                '.' => i,
                '(' | ',' | '_' => i + 1,
                _ => continue,
            };
            if cut > part && cut < text.len() {
                self.text(&text[part..cut]);
                self.open(Tag::Wbr, &[]);
                part = cut;
            }
        }
        self.text(&text[part..]);
        self.close(Tag::Code);
    }

    /// Another fragment built the same way.
    pub(super) fn append(&mut self, other: Html) {
        self.out.push_str(&other.out);
    }

    pub(super) fn newline(&mut self) {
        self.out.push('\n');
    }

    pub(super) fn into_string(self) -> String {
        self.out
    }
}
