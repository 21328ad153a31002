use proptest::prelude::*;

use super::{HINTED, RenderError, balanced, escape, only_allowed_tags, problems, render, render_lenient};

/// The text as HTML, or its first problem.
fn render_text(md: &str) -> Result<String, RenderError> {
    let (html, mut problems) = render(md, HINTED);
    if problems.is_empty() { Ok(html) } else { Err(problems.swap_remove(0)) }
}

fn html(md: &str) -> String {
    render_text(md).unwrap_or_else(|e| panic!("{md:?}: {e}"))
}

/// The first formula's MathML inside `<math…>` (without the math element).
fn math(tex: &str) -> String {
    let h = html(&format!("${tex}$"));
    let start = h.find("<math>").expect("a math element") + "<math>".len();
    h[start..h.rfind("</math>").expect("closed")].to_string()
}

fn error(md: &str) -> RenderError {
    render_text(md).expect_err(md)
}

#[test]
fn paragraphs_lists_and_emphasis() {
    assert_eq!(html("One\nline.\n\nTwo."), "<p>One\nline.</p>\n<p>Two.</p>\n");
    assert_eq!(html("- a\n- **b**\n  more"), "<ul><li>a</li><li><strong>b</strong>\nmore</li></ul>\n");
    assert_eq!(html("*it* and `x*y`"), "<p><em>it</em> and <code>x*y</code></p>\n");
}

#[test]
fn numbered_lists_are_ordered_lists_and_a_change_of_kind_starts_a_new_list() {
    assert_eq!(html("1. one\n2) **two**\n  more"), "<ol><li>one</li><li><strong>two</strong>\nmore</li></ol>\n");
    assert_eq!(html("1. a\n- b"), "<ol><li>a</li></ol>\n<ul><li>b</li></ul>\n");
    assert_eq!(html("1.5 is a number"), "<p>1.5 is a number</p>\n");
    assert_eq!(html("1234567890. too long"), "<p>1234567890. too long</p>\n");
}

#[test]
fn tables_have_a_header_row_and_cells_keep_formulas_and_code_whole() {
    let t = html("| bits | levels |\n|---|:--:|\n| 2 | $|x|$ |\n| `a|b` | 4 \\| 5 |\nafter");
    assert_eq!(
        t,
        "<table><tr><th>bits</th><th>levels</th></tr><tr><td>2</td><td><math><mo stretchy=\"false\">|</mo><mi>x</mi><mo stretchy=\"false\">|</mo></math></td></tr><tr><td><code>a|b</code></td><td>4 | 5</td></tr></table>\n<p>after</p>\n"
    );
    assert_eq!(html("| a | b |\nno rule"), "<p>| a | b |\nno rule</p>\n", "without its rule a bar is text");
    assert_eq!(html("| a | b |\n|---|\n"), "<p>| a | b |\n|---|</p>\n", "a rule of another width is not one");
}

#[test]
fn an_image_is_a_problem_named_on_its_line() {
    let e = error("Text.\n\n![a plot](plot.png)");
    assert_eq!(e.line_in_text, 3);
    assert!(e.message.contains("an image"), "{e}");
    assert_eq!(
        html("Wow! [a link](https://example.com)"),
        "<p>Wow! <a href=\"https://example.com\" rel=\"noopener noreferrer\" target=\"_blank\">a link</a></p>\n"
    );
}

#[test]
fn emphasis_nests_either_way() {
    assert_eq!(html("**bold *both* bold**"), "<p><strong>bold <em>both</em> bold</strong></p>\n");
    assert_eq!(html("*it **both** it*"), "<p><em>it <strong>both</strong> it</em></p>\n");
    assert_eq!(html("***both***"), "<p><em><strong>both</strong></em></p>\n");
    assert_eq!(html("2 * 3 * 4 and *open"), "<p>2 * 3 * 4 and *open</p>\n");
}

#[test]
fn inline_code_may_wrap_after_parentheses_commas_and_underscores_and_before_dots() {
    assert_eq!(
        html("`qkeras.binary(alpha=1,use_01=True)`"),
        "<p><code>qkeras<wbr>.binary(<wbr>alpha=1,<wbr>use_<wbr>01=True)</code></p>\n"
    );
    assert_eq!(html("`f(x)` and `.5,`"), "<p><code>f(<wbr>x)</code> and <code>.5,</code></p>\n");
    assert!(balanced("<p>a<wbr>b</p>").is_ok() && balanced("<p>a</wbr></p>").is_err());
}

#[test]
fn headings_inside_a_step_are_bold_and_code_blocks_are_code() {
    assert_eq!(html("### Note\ntext"), "<p><strong>Note</strong></p>\n<p>text</p>\n");
    assert_eq!(html("```python\nx = '<b>'\n```"), "<pre><code>x = &#39;&lt;b&gt;&#39;</code></pre>\n");
}

#[test]
fn raw_html_and_scripts_are_text() {
    let h = html("<script>alert(1)</script> and <img src=x onerror=alert(1)>");
    assert_eq!(h, "<p>&lt;script&gt;alert(1)&lt;/script&gt; and &lt;img src=x onerror=alert(1)&gt;</p>\n");
    assert!(only_allowed_tags(&h).is_ok());
}

#[test]
fn only_web_and_fragment_links_become_links() {
    let a = r#"<a href="https://example.org/a?b=1&amp;c=2" rel="noopener noreferrer" target="_blank">"#;
    assert_eq!(html("[see](https://example.org/a?b=1&c=2)"), format!("<p>{a}see</a></p>\n"));
    assert!(html("[step](#lesson=ste&step=2)").contains(r##"href="#lesson=ste&amp;step=2""##));
    for bad in ["[x](javascript:alert(1))", "[x](JavaScript:alert(1))", "[x](data:text/html,hi)", "[x](page.html)"] {
        let h = html(bad);
        assert!(!h.contains("<a"), "{bad} → {h}");
        assert!(h.contains("(1)") || h.contains("data:") || h.contains("page.html"), "shown as text: {h}");
    }
}

#[test]
fn quotes_cannot_leave_an_attribute() {
    let h = html(r#"[x](https://e.org/"onmouseover="alert(1)) [y](https://e.org/'x')"#);
    assert!(h.contains(r#"href="https://e.org/&quot;onmouseover=&quot;alert(1)""#), "{h}");
    assert!(h.contains("href=\"https://e.org/&#39;x&#39;\""), "{h}");
    assert!(only_allowed_tags(&h).is_ok());
}

#[test]
fn escape_covers_the_five_characters() {
    assert_eq!(escape(r#"<a href='x'>&"#), "&lt;a href=&#39;x&#39;&gt;&amp;");
}

#[test]
fn markup_inside_formulas_and_code_is_text() {
    let h = html("$\\text{<b>}$ and `<i>` and $x<y$");
    assert!(h.contains("<mtext>&lt;b&gt;</mtext>"), "{h}");
    assert!(h.contains("<code>&lt;i&gt;</code>"), "{h}");
    assert!(h.contains("<mi>x</mi><mo>&lt;</mo><mi>y</mi>"), "{h}");
}

#[test]
fn numbers_letters_and_operators() {
    assert_eq!(math("x + 1.5 = y"), "<mi>x</mi><mo>+</mo><mn>1.5</mn><mo>=</mo><mi>y</mi>");
    assert_eq!(math("a-b \\le c"), "<mi>a</mi><mo>−</mo><mi>b</mi><mo>≤</mo><mi>c</mi>");
    assert_eq!(math("a := 1"), "<mi>a</mi><mo>≔</mo><mn>1</mn>");
    assert_eq!(math("\\Delta \\cdot \\alpha"), r#"<mi mathvariant="normal">Δ</mi><mo>·</mo><mi>α</mi>"#);
}

#[test]
fn fractions_roots_and_scripts() {
    assert_eq!(
        math("\\frac{\\partial q}{\\partial x}"),
        concat!(
            r#"<mfrac><mrow><mi mathvariant="normal">∂</mi><mi>q</mi></mrow>"#,
            r#"<mrow><mi mathvariant="normal">∂</mi><mi>x</mi></mrow></mfrac>"#
        )
    );
    assert_eq!(math("2^{k-1}"), "<msup><mn>2</mn><mrow><mi>k</mi><mo>−</mo><mn>1</mn></mrow></msup>");
    assert_eq!(math("x_i^2"), "<msubsup><mi>x</mi><mi>i</mi><mn>2</mn></msubsup>");
    assert_eq!(math("x^23"), "<msup><mi>x</mi><mn>2</mn></msup><mn>3</mn>");
    assert_eq!(math("\\sqrt{x}"), "<msqrt><mi>x</mi></msqrt>");
}

#[test]
fn operator_names_text_fences_and_accents() {
    assert_eq!(
        math("\\operatorname{round}\\left(x / \\Delta\\right)"),
        r#"<mi>round</mi><mo>(</mo><mi>x</mi><mo stretchy="false">/</mo><mi mathvariant="normal">Δ</mi><mo>)</mo>"#
    );
    assert_eq!(math("\\text{if } x"), "<mtext>if\u{a0}</mtext><mi>x</mi>");
    assert_eq!(math("\\lfloor x \\rceil"), r#"<mo stretchy="false">⌊</mo><mi>x</mi><mo stretchy="false">⌉</mo>"#);
    assert_eq!(math("\\hat{x}"), r#"<mover accent="true"><mi>x</mi><mo>^</mo></mover>"#);
    // An overline spans its whole base, the bars of |x| too (a border the stylesheets draw);
    // \bar stays a letter's accent.
    assert_eq!(
        math("\\overline{|x|}"),
        r#"<mrow class="overline"><mrow><mo stretchy="false">|</mo><mi>x</mi><mo stretchy="false">|</mo></mrow></mrow>"#
    );
    assert_eq!(math("\\bar{x}"), r#"<mover accent="true"><mi>x</mi><mo>‾</mo></mover>"#);
    assert_eq!(math("\\mathbb{1}"), r#"<mi mathvariant="normal">𝟙</mi>"#);
    assert_eq!(math("\\mathbb{E}"), r#"<mi mathvariant="normal">𝔼</mi>"#);
    assert_eq!(math("\\mathbb{R}"), r#"<mi mathvariant="normal">ℝ</mi>"#);
    assert_eq!(math("\\mathcal{L}"), r#"<mi mathvariant="normal">ℒ</mi>"#);
    assert_eq!(math("\\mathcal{N}"), r#"<mi mathvariant="normal">𝒩</mi>"#);
    assert!(error("$\\mathcal{x}$").message.contains("only capital letters A–Z"));
    assert!(error("$\\mathbb{+}$").message.contains("only letters and digits"));
    assert_eq!(
        math("\\max(a, b)"),
        r#"<mi>max</mi><mo stretchy="false">(</mo><mi>a</mi><mo>,</mo><mi>b</mi><mo stretchy="false">)</mo>"#
    );
}

#[test]
fn plain_fences_keep_their_size_and_left_right_stretch() {
    assert_eq!(math("(x)"), r#"<mo stretchy="false">(</mo><mi>x</mi><mo stretchy="false">)</mo>"#);
    assert_eq!(math("\\left[x\\right\\rfloor"), "<mo>[</mo><mi>x</mi><mo>⌋</mo>");
    assert_eq!(math("\\left. x \\right|"), "<mi>x</mi><mo>|</mo>");
}

#[test]
fn display_formulas_are_blocks_with_limits_underneath() {
    let h = html("$$\\sum_i x_i$$");
    assert!(h.starts_with(r#"<p><math display="block"><munder><mo>∑</mo><mi>i</mi></munder>"#), "{h}");
}

#[test]
fn a_literal_dollar_is_escaped_with_a_backslash() {
    assert_eq!(html("costs \\$5, not $5$"), "<p>costs $5, not <math><mn>5</mn></math></p>\n");
}

#[test]
fn unknown_commands_are_errors_with_their_line() {
    let e = error("ok\n\n$\\lamda$");
    assert_eq!(e.line_in_text, 3);
    assert!(e.message.contains("unknown command \\lamda") && e.message.contains("did you mean \\lambda"), "{e}");
    let lenient = render_lenient("$\\alpah + 1$");
    assert!(lenient.contains("<mtext>\\alpah</mtext><mo>+</mo><mn>1</mn>"), "{lenient}");
}

#[test]
fn unclosed_formulas_and_braces_are_errors() {
    assert!(error("a\nb $x + 1").message.contains("opened with $ does not close"));
    assert_eq!(error("a\nb $x + 1").line_in_text, 2);
    assert!(error("$$x").message.contains("$$ does not close"));
    assert!(error("$\\frac{a}{b$").message.contains("never closes"));
    assert!(error("$a}$").message.contains("'}' without a '{'"));
    assert!(error("$x^$").message.contains("needs an argument"));
    assert!(error("$x^a^b$").message.contains("double superscript"));
    assert_eq!(render_lenient("a $b"), "<p>a $b</p>\n");
}

#[test]
fn an_extra_script_is_drawn_on_an_empty_base_after_the_scripted_one() {
    let lenient = render_lenient("$x^a^b_c$");
    assert!(
        lenient.contains("<msup><mi>x</mi><mi>a</mi></msup><msubsup><mrow></mrow><mi>c</mi><mi>b</mi></msubsup>"),
        "{lenient}"
    );
    // However many there are, the scripts stay one level deep (each would nest the last).
    let long = render_lenient(&format!("$x{}$", "^1".repeat(100_000)));
    assert!(!long.contains("<msup><msup>") && long.matches("<msup>").count() == 100_000);
}

#[test]
fn problems_lists_every_one_in_order() {
    let all = problems("$\\foo$\n\n- $\\bar{x} \\baz$\n\n$a");
    let lines: Vec<usize> = all.iter().map(|e| e.line_in_text).collect();
    assert_eq!(lines, [1, 3, 5], "{all:?}");
}

#[test]
fn hostile_text_yields_only_allowed_tags() {
    for md in [
        "<svg onload=alert(1)>",
        "</p><script>",
        "$<script>$",
        "$\\text{</math><script>}$",
        "[<b>](https://x.org/<b>)",
        "`</code><script>`",
        "```\n</pre><script>\n```",
        "### <h1>x</h1>",
        "- <li onclick=x>",
    ] {
        let h = render_lenient(md);
        only_allowed_tags(&h).unwrap_or_else(|e| panic!("{md:?} → {h}: {e}"));
        balanced(&h).unwrap_or_else(|e| panic!("{md:?} → {h}: {e}"));
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("${}x{}$", "{".repeat(5000), "}".repeat(5000));
    assert!(error(&deep).message.contains("nests deeper than"));
    assert!(render_lenient(&deep).contains("<mtext>"));
    let fracs = format!("${}$", "\\frac{1}".repeat(3000));
    assert!(error(&fracs).message.contains("nests deeper than"));
}

/// Pieces of lesson text that exercise every rule when strung together.
const PIECES: [&str; 34] = [
    "$",
    "$$",
    "\\frac",
    "{",
    "}",
    "^",
    "_",
    "**",
    "*",
    "`",
    "[a](https://x.y/\"q)",
    "[b](javascript:x)",
    "<b>",
    "</p>",
    "\n",
    "\n\n",
    "- ",
    "### ",
    "```\n",
    "\\left(",
    "\\right)",
    "\\text{",
    "x",
    "12",
    " ",
    "\\mathbb{1}",
    "\\hat",
    "&",
    "\"",
    "\\alpha",
    "\\foo",
    "\\",
    "'",
    "~",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_text_renders_with_only_allowed_tags(md in "(?s)[-a-z0-9 \\n*_`$\\\\{}^\\[\\]()<>&\"'#!/:~.=]{0,120}") {
        let h = render_lenient(&md);
        prop_assert!(only_allowed_tags(&h).is_ok(), "{:?} → {}", md, h);
        prop_assert!(balanced(&h).is_ok(), "{:?} → {}: {:?}", md, h, balanced(&h));
        let _ = render_text(&md);
    }

    #[test]
    fn any_string_of_markup_renders_with_only_allowed_tags(pieces in proptest::collection::vec(0..PIECES.len(), 0..40)) {
        let md: String = pieces.iter().map(|&i| PIECES[i]).collect();
        let h = render_lenient(&md);
        prop_assert!(only_allowed_tags(&h).is_ok(), "{:?} → {}", md, h);
        prop_assert!(balanced(&h).is_ok(), "{:?} → {}: {:?}", md, h, balanced(&h));
        let _ = render_text(&md);
    }

    #[test]
    fn any_unicode_renders_with_only_allowed_tags(md in "\\PC{0,80}") {
        let h = render_lenient(&md);
        prop_assert!(only_allowed_tags(&h).is_ok(), "{:?} → {}", md, h);
        prop_assert!(balanced(&h).is_ok(), "{:?} → {}: {:?}", md, h, balanced(&h));
        let _ = problems(&md);
    }
}
