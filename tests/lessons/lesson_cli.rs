//! `qscope lesson check | link | export`, run as the built binary on the lessons in
//! tests/fixtures/lessons/ and on every built-in lesson in lessons/.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use qscope_explore::lesson::link;

use crate::common::cli;

use cli::{qscope, stderr, stdout};

const FIXTURES: &str = "tests/fixtures/lessons";

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// A fresh directory under the system's temporary directory (one per call: tests run in parallel).
fn temp_dir(name: &str) -> PathBuf {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("qscope-lesson-cli-{}-{n}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Checks a malformed fixture: it fails with exactly the expected `FILE:LINE: …` lines.
fn rejects(name: &str, expected: &[(usize, &str)]) {
    let file = fixture(name);
    let o = qscope(&["lesson", "check", &file], "");
    assert!(!o.status.success(), "{name} passed");
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), expected.len(), "{err}");
    for (line, (n, text)) in lines.iter().zip(expected) {
        let prefix = format!("{file}:{n}: ");
        assert!(line.starts_with(&prefix), "expected {prefix}…: {line}");
        assert!(line.contains(text), "expected '{text}': {line}");
    }
    assert!(stdout(&o).is_empty());
}

/// Every element opened is closed in order (void HTML elements and `/>` aside; comments,
/// the doctype and the style sheet skipped).
fn balanced(html: &str) -> Result<(), String> {
    const VOID: [&str; 7] = ["meta", "link", "br", "hr", "img", "input", "wbr"];
    let mut open: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i..];
        if rest.starts_with("<!") {
            let end =
                if rest.starts_with("<!--") { rest.find("-->").map(|e| e + 3) } else { rest.find('>').map(|e| e + 1) };
            rest = &rest[end.ok_or("an unclosed comment or doctype")?..];
            continue;
        }
        let end = rest.find('>').ok_or("an unclosed tag")?;
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        let closing = tag.starts_with('/');
        let name: String =
            tag.trim_start_matches('/').chars().take_while(|c| !c.is_whitespace() && *c != '/').collect();
        if closing {
            match open.pop() {
                Some(top) if top == name => {}
                top => return Err(format!("</{name}> closes {top:?}")),
            }
        } else if !tag.ends_with('/') && !VOID.contains(&name.as_str()) {
            if name == "style" {
                rest = &rest[rest.find("</style>").ok_or("an unclosed style")?..];
            }
            open.push(name);
        }
    }
    if open.is_empty() { Ok(()) } else { Err(format!("never closed: {open:?}")) }
}

#[test]
fn check_accepts_a_good_lesson() {
    let o = qscope(&["lesson", "check", &fixture("good.md")], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "ok: 4 steps\n");
}

#[test]
fn check_reads_standard_input_for_a_dash() {
    let o = qscope(&["lesson", "check", "-"], &read(&fixture("good.md")));
    assert_eq!(stdout(&o), "ok: 4 steps\n", "{}", stderr(&o));
    let o = qscope(&["lesson", "check", "-"], &read(&fixture("bad_quantizer.md")));
    assert!(!o.status.success());
    assert!(stderr(&o).starts_with("<stdin>:8: step 1 \"One\": "), "{}", stderr(&o));
}

#[test]
fn check_warns_of_a_task_that_already_holds_and_still_succeeds() {
    let text = "# T\n\n## One\n\nText.\n\n```qscope\nq=larq.ste_sign\ntask=Find it.\ndone=y(0.5) == 1\n```\n";
    let o = qscope(&["lesson", "check", "-"], text);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "ok: 1 step, 1 warning\n");
    assert!(
        stderr(&o).starts_with("<stdin>:3: step 1 \"One\": warning: the task's condition (y(0.5) == 1) already holds"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn check_names_an_unknown_quantizer_with_its_line() {
    rejects("bad_quantizer.md", &[(8, "did you mean 'qkeras.quantized_bits'")]);
}

#[test]
fn check_names_an_unknown_key() {
    rejects("bad_key.md", &[(9, "unknown key 'zoom'")]);
}

#[test]
fn check_names_a_task_measuring_the_other_view() {
    rejects("bad_task.md", &[(10, "'test_acc' is a trainer measure")]);
}

#[test]
fn check_names_a_bad_highlight() {
    rejects("bad_highlight.md", &[(9, "did you mean 'backward'")]);
}

#[test]
fn check_names_a_lesson_without_its_title() {
    rejects("bad_structure.md", &[(1, "starts with its '# Title'")]);
}

#[test]
fn check_names_an_unclosed_formula() {
    rejects("bad_unclosed.md", &[(5, "step 1 \"One\": an inline formula opened with $ does not close")]);
}

#[test]
fn check_names_every_bad_formula_on_its_own_line_after_the_block() {
    rejects(
        "bad_formula.md",
        &[(15, "step 2 \"Broken\": unknown command \\lamda"), (17, "step 2 \"Broken\": unbalanced braces")],
    );
}

#[test]
fn check_fails_cleanly_on_a_missing_file() {
    let o = qscope(&["lesson", "check", "no/such/lesson.md"], "");
    assert!(!o.status.success());
    assert!(stderr(&o).starts_with("qscope: reading no/such/lesson.md: "), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1);
}

#[test]
fn link_carries_the_whole_file() {
    let file = fixture("good.md");
    let o = qscope(&["lesson", "link", &file], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let value = out.trim_end().strip_prefix("#lesson=").expect("a #lesson= hash");
    assert!(value.starts_with('~'), "{value}");
    assert_eq!(link::decode(value).unwrap(), read(&file));
}

#[test]
fn link_with_a_step_appends_it() {
    let o = qscope(&["lesson", "link", &fixture("good.md"), "--step", "3"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).trim_end().ends_with("&step=3"), "{}", stdout(&o));
    let o = qscope(&["lesson", "link", &fixture("good.md"), "--step", "5"], "");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--step 5: expected a step from 1 to 4"), "{}", stderr(&o));
}

#[test]
fn link_with_a_base_prints_a_whole_url() {
    let o =
        qscope(&["lesson", "link", &fixture("good.md"), "--step", "2", "--base", "https://example.org/qscope/#"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("https://example.org/qscope/#lesson=~") && out.trim_end().ends_with("&step=2"), "{out}");
    for bad in ["example.org", "https://", "https://a.org/#x", "https://a b.org/"] {
        let o = qscope(&["lesson", "link", &fixture("good.md"), "--base", bad], "");
        assert!(!o.status.success(), "{bad}");
        assert!(stderr(&o).contains("expected the page's address, http:// or https://"), "{bad}: {}", stderr(&o));
    }
}

#[test]
fn link_refuses_a_malformed_lesson() {
    let o = qscope(&["lesson", "link", &fixture("bad_key.md")], "");
    assert!(!o.status.success());
    assert!(stdout(&o).is_empty());
    assert!(stderr(&o).contains("bad_key.md:9:"), "{}", stderr(&o));
}

/// Exports `name` and returns the handout's HTML.
fn export(name: &str) -> String {
    let dir = temp_dir(name);
    let o = qscope(&["lesson", "export", &fixture(name), "-o", dir.to_str().unwrap()], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(dir.join("index.html")).expect("index.html written");
    std::fs::remove_dir_all(&dir).unwrap();
    html
}

#[test]
fn export_writes_a_well_formed_static_handout_with_a_figure_per_step_and_per_trained_net() {
    let html = export("good.md");
    balanced(&html).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    // Three explorer steps, and a trainer step's quantized net beside its float twin.
    assert_eq!(html.matches("<svg").count(), 5);
    assert_eq!(html.matches("<section class=\"step\"").count(), 4);
    let lower = html.to_ascii_lowercase();
    assert!(!lower.contains("<script"), "no script");
    assert!(!lower.contains("src=\"http") && !lower.contains("<link"), "nothing fetched");
}

#[test]
fn export_shows_text_formulas_tasks_and_links() {
    let html = export("good.md");
    assert!(html.contains("<h2>1. Round has no gradient</h2>"));
    assert!(html.contains("<math display=\"block\">"), "display formula as MathML");
    assert!(html.contains("<mfrac>"), "inline fraction as MathML");
    assert!(html.contains("<strong>Try it:</strong> Find an x where the gradient vanishes."));
    assert!(html.contains("Open live: <code>#q=qkeras.quantized_bits"), "the step's state as a link");
    assert!(html.contains("At x = 0.3:"), "the pinned x is read out");
}

#[test]
fn export_draws_every_net_of_a_trainer_step_with_its_accuracy_and_command() {
    let html = export("good.md");
    let caption = html.split("<figcaption>").nth(4).expect("a fourth caption");
    assert!(caption.contains("The step&#39;s net") && caption.contains("after 200 epochs of training: test accuracy"));
    assert!(caption.contains("40 × 40 grid"), "{caption}");
    assert!(caption.contains("The same run: <code>qscope train --dataset"), "{caption}");
    let twin = html.split("<figcaption>").nth(5).expect("the float twin's caption");
    assert!(twin.starts_with("Its float twin") && twin.contains("test accuracy"), "{twin}");
    assert!(!twin.contains("--wq"), "the float twin's command has no quantizer: {twin}");
}

#[test]
fn export_with_an_explorer_address_makes_every_link_a_whole_url() {
    let dir = temp_dir("explorer");
    let args =
        ["lesson", "export", &fixture("good.md"), "-o", dir.to_str().unwrap(), "--explorer", "https://example.org/q/"];
    let o = qscope(&args, "");
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    balanced(&html).unwrap();
    assert_eq!(html.matches("Open live: <a href=\"https://example.org/q/#").count(), 4, "one per step");
    assert!(html.contains("open step K): <a href=\"https://example.org/q/#lesson=~"), "the whole lesson's link");
    assert!(!html.contains("Open live: <code>"), "no bare hash left");
    assert_eq!(html.matches("<svg class=\"qr\"").count(), 4, "a QR code per step");
}

#[test]
fn export_escapes_a_hostile_lesson() {
    let html = export("hostile.md");
    balanced(&html).unwrap();
    let lower = html.to_ascii_lowercase();
    assert!(!lower.contains("<script"), "no script");
    assert!(!lower.contains("<img"), "no image");
    assert!(!lower.contains("href=\"javascript"), "no script link");
    assert!(html.contains("<title>Safe &lt;b&gt;title&lt;/b&gt; &amp; &quot;quotes&quot;</title>"));
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("Do &lt;script&gt;alert(6)&lt;/script&gt; now."));
    assert!(html.contains("href=\"https://example.org/&quot;onmouseover=&quot;alert(4)\""));
}

#[test]
fn export_captions_read_the_curves_at_the_pinned_x_itself() {
    // ste step 4 pins x = 0.5, where its why= quotes SwishSign's gradient −0.08462162.
    let dir = temp_dir("caption");
    let ste = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons/ste.md");
    let o = qscope(&["lesson", "export", ste.to_str().unwrap(), "-o", dir.to_str().unwrap()], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let html = read(dir.join("index.html").to_str().unwrap());
    let step = &html[html.find("id=\"step-4\"").expect("step 4")..];
    let caption = &step[step.find("<figcaption>").unwrap()..step.find("</figcaption>").unwrap()];
    assert!(caption.contains("At x = 0.5: ") && caption.contains("y = 1, dy/dx = -0.08462162"), "{caption}");
    // A built-in lesson's step opens as itself, by a short link.
    assert!(step.contains("Open live: <code>#lesson=ste&amp;step=4</code>"), "{step}");
}

#[test]
fn export_needs_an_output_directory() {
    let o = qscope(&["lesson", "export", &fixture("good.md")], "");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("-o DIR"), "{}", stderr(&o));
}

#[test]
fn help_lists_the_lesson_commands() {
    let out = stdout(&qscope(&["--help"], ""));
    for usage in ["qscope lesson check FILE", "qscope lesson link FILE [--step K]", "qscope lesson export FILE -o DIR"]
    {
        assert!(out.contains(usage), "{usage}");
    }
}

#[test]
fn every_built_in_lesson_passes_check() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "md")).collect()
        })
        .unwrap_or_default();
    files.sort();
    assert!(files.len() >= 4, "expected at least 4 built-in lessons in {}, found {}", dir.display(), files.len());
    for f in &files {
        let o = qscope(&["lesson", "check", f.to_str().unwrap()], "");
        assert!(o.status.success(), "{}:\n{}", f.display(), stderr(&o));
        assert!(stdout(&o).starts_with("ok: ") && !stdout(&o).contains("warning"), "{}", stdout(&o));
        assert_eq!(stderr(&o), "", "{}: no warnings", f.display());
    }
}

#[test]
fn the_books_example_lesson_passes_check() {
    let readme = read("docs/src/teaching.md");
    let start = readme.find("````markdown\n").expect("the book has a lesson example") + "````markdown\n".len();
    let end = start + readme[start..].find("````\n").expect("the example is closed");
    let out = qscope(&["lesson", "check", "-"], &readme[start..end]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "ok: 2 steps");
}

#[test]
fn export_asks_each_prediction_in_its_step_and_answers_them_all_at_the_end() {
    let html = export("predict.md");
    balanced(&html).unwrap();
    assert!(html.contains(
        "<p class=\"predict\"><strong>Predict:</strong> What gradient reaches x = 1.5? \
         <span class=\"choices\">(a) 1 &nbsp; (b) 0 &nbsp; (c) &lt;b&gt;0.5&lt;/b&gt;</span></p>"
    ));
    let answers = html.split("<h2>Answers</h2>").nth(1).expect("an answers section");
    assert!(answers.contains("<li>Step 1: (b) 0. The band is |x| ≤ 1: at 1.5 the gradient is 0 &amp; stays 0.</li>"));
    assert!(html.find("<h2>Answers</h2>") > html.rfind("<section class=\"step\""), "after the last step");
    assert!(!export("good.md").contains("Answers"), "no predictions, no answers");
}
