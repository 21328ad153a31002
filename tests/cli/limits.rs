//! Limits at the native entry points: NaN, ±inf and huge parameters, empty tensors, ten million
//! numbers on `qscope eval`'s stdin, a 100 KB hash, a 1 MB lesson. Each gives a clear message or
//! a defined result, never a panic or a hang.

use crate::common::cli;

use cli::{qscope, stderr, stdout};
use qscope_explore::hash::MAX_PROBLEMS;
use qscope_explore::lesson::render::{render_lenient, safe_html};
use qscope_explore::lesson::{Lesson, MAX_BYTES, MAX_ENTRIES, MAX_ERRORS, link};
use qscope_explore::page::Page;
use qscope_explore::state::State;
use qscope_explore::train::TrainParams;
use qscope_quant::{Ctx, ENTRIES, Kind, Literal, Quantizer, parse};

/// The longest message a limit may produce: the user's text is shortened in it (a message may
/// still list a quantizer's parameters).
const LONGEST_MESSAGE: usize = 500;

fn extremes(kind: &Kind) -> Vec<Literal> {
    let floats = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e308, -1e308, 1e-320, f64::MAX, f64::MIN];
    let ints = [i64::MAX, i64::MIN, 1 << 40, -(1 << 40)];
    match kind {
        Kind::Bool | Kind::Choice(_) | Kind::Text => Vec::new(),
        _ => floats.map(Literal::Float).into_iter().chain(ints.map(Literal::Int)).collect(),
    }
}

/// Forward, gradient, levels and the frozen form on inputs that include NaN and ±inf.
fn evaluate(q: &Quantizer, x: &[f32]) {
    for training in [true, false] {
        if q.unsupported(training).is_some() {
            continue;
        }
        let mut ctx = if training { Ctx::training(1) } else { Ctx::inference(1) };
        let (y, g, report) = q.eval(x, &mut ctx);
        assert_eq!((y.len(), g.len()), (x.len(), x.len()), "{q}");
        let levels = q.levels(&report);
        let _ = (levels.count(), levels.bounds(), levels.list(16));
        let (fy, _) = q.freeze(&report).eval(x, &mut ctx);
        assert_eq!(fy.len(), x.len(), "{q}");
    }
}

#[test]
fn nan_infinite_and_huge_parameters_are_refused_with_a_message_or_evaluate() {
    let x = [f32::NAN, f32::NEG_INFINITY, -1e30, -1.0, -0.0, 0.0, 0.3, 1.0, 1e30, f32::INFINITY];
    for entry in ENTRIES {
        for p in entry.params {
            for lit in extremes(&p.kind) {
                let spec = format!("{}({}={lit})", entry.info.qualified(), p.name);
                match parse(&spec) {
                    Err(e) => {
                        assert!(e.message.contains(p.name), "{spec}: {}", e.message);
                        assert!(e.message.len() <= LONGEST_MESSAGE, "{spec}: {}", e.message);
                    }
                    Ok(q) => {
                        assert_eq!(parse(&q.to_string()).as_ref(), Ok(&q), "{spec} prints as {q}");
                        evaluate(&q, &x);
                    }
                }
                let mut q = (entry.default)();
                if q.set(p.name, &lit).is_ok() && q.validate().is_ok() {
                    evaluate(&q, &x);
                }
            }
        }
    }
}

#[test]
fn every_quantizer_evaluates_an_empty_tensor_to_nothing() {
    for entry in ENTRIES {
        let q = (entry.default)();
        evaluate(&q, &[]);
        let report = q.apply_rows(&[], 4, &mut [], Some(&mut []), &mut Ctx::training(0));
        assert!(report.blocks.is_empty(), "{q}");
    }
}

#[test]
fn eval_of_an_empty_stdin_prints_nothing() {
    for spec in ["qkeras.quantized_bits(4,0,1,alpha='auto')", "torchao.mx", "bnb.nf4", "lsq"] {
        let o = qscope(&["eval", spec, "--report"], " \n\t");
        assert!(o.status.success(), "{spec}: {}", stderr(&o));
        assert_eq!(stdout(&o), "", "{spec}");
    }
}

#[test]
fn eval_reads_ten_million_numbers_from_stdin() {
    let n = 10_000_000;
    let input = "0.3 -2 nan inf 1e-45\n".repeat(n / 5);
    let o = qscope(&["eval", "qkeras.quantized_bits(4,0,1)"], &input);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), n);
    assert_eq!(out.lines().next(), Some("0.3 0.25 1"), "{}", &out[..200]);
}

#[test]
fn eval_names_a_100_kb_bad_number_by_its_start() {
    let o = qscope(&["eval", "ste"], &format!("1 2 {}", "x".repeat(100_000)));
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("input value 3 ('xxxxxxxx"), "{e}");
    assert!(e.len() <= LONGEST_MESSAGE, "{} bytes: {}", e.len(), &e[..200]);
}

#[test]
fn a_100_kb_spec_is_named_by_its_start() {
    for spec in [
        "a".repeat(100_000),
        format!("quantized_bits({}=4)", "b".repeat(100_000)),
        format!("quantized_bits(var_name=[{}])", "1,".repeat(50_000)),
        format!("quantized_bits(4) {}", "c".repeat(100_000)),
        format!("quantized_bits({})", "9".repeat(100_000)),
        format!("{{\"class_name\": \"quantized_bits\", \"config\": {{\"{}\": {{}}}}}}", "d".repeat(100_000)),
    ] {
        let e = parse(&spec).expect_err("not a spec");
        assert!(e.message.len() <= LONGEST_MESSAGE, "{}…: {} bytes: {}", &spec[..30], e.message.len(), e.message);
    }
}

fn hashes_of_100_kb() -> Vec<String> {
    vec![
        format!("#q={}", "a".repeat(100_000)),
        "&".repeat(100_000),
        "a&".repeat(50_000),
        "q=ste&".repeat(16_000),
        format!("#x=1,{}", "9".repeat(100_000)),
        format!("#lesson={}", "~".repeat(100_000)),
        format!("#{}=1", "k".repeat(100_000)),
        format!("#view=train&hidden={}", "8,".repeat(50_000)),
        format!("#view=train&wq={}", "a".repeat(100_000)),
        format!("#view=train&{}", "wq9=ste&".repeat(12_000)),
        format!("#q=quantized_bits({})", "(".repeat(100_000)),
        format!("#q={}", "%7B%22a%22:".repeat(9_000)),
    ]
}

#[test]
fn a_100_kb_hash_gives_its_defaults_and_at_most_twenty_one_short_messages() {
    for hash in hashes_of_100_kb() {
        let start = &hash[..20];
        let (page, view, page_problems) = Page::split(&hash);
        let (state, problems) = State::parse(&view);
        let (params, train_problems) = TrainParams::parse(&view);
        for p in [&page_problems, &problems, &train_problems] {
            assert!(p.len() <= MAX_PROBLEMS + 1, "{start}…: {} problems", p.len());
            assert!(p.iter().all(|m| m.len() <= LONGEST_MESSAGE), "{start}…: {p:?}");
        }
        // What was read still prints as a link that reads back as itself.
        assert_eq!(State::parse(&state.to_hash()).0, state, "{start}…");
        assert_eq!(TrainParams::parse(&params.to_hash()).0, params, "{start}…");
        assert_eq!(Page::split(&page.compose("")).0.lesson, page.lesson, "{start}…");
    }
}

#[test]
fn more_than_twenty_problems_are_counted_in_one_message() {
    let (_, problems) = State::parse(&"a&".repeat(50_000));
    assert_eq!(problems.len(), MAX_PROBLEMS + 1);
    assert_eq!(problems[MAX_PROBLEMS], "49980 more problems are not listed");
    let (_, problems) = TrainParams::parse(&"b=1&".repeat(22));
    assert_eq!(problems[MAX_PROBLEMS], "2 more problems are not listed");
}

/// Lessons of about 1 MB (at most [`MAX_BYTES`]), each shaped to stress one part of the reader.
fn lessons_of_1_mb() -> Vec<String> {
    let step = "## S\n\nText.\n\n```qscope\nq=ste\n```\n\n";
    let one = |body: String| format!("# T\n\n## S\n\n{body}");
    vec![
        format!("# T\n\n{}", step.repeat(MAX_BYTES / step.len() - 1)),
        format!("# T\n\n{}", "## \n".repeat(250_000)),
        one("$x$ ".repeat(250_000)),
        one("$\n\n".repeat(330_000)),
        one(format!("```qscope\n{}```\n", "q=nope\n".repeat(140_000))),
        one(format!("```qscope\n{}```\n", "x=2,1\n".repeat(160_000))),
        one(format!("${}$", "{".repeat(999_000))),
        one(format!("$\\{}$", "a".repeat(999_000))),
        one("`".repeat(999_000)),
        one("**a *b ".repeat(120_000)),
        one("[a](".repeat(240_000)),
        one("[".repeat(999_000)),
        one(format!("$${}$$", "\\frac{1}{2}".repeat(80_000))),
        one("- a\n".repeat(240_000)),
        // 1,400 runs of backticks of different lengths: a code span's closing run is looked up,
        // not scanned for from every opening run (4 s).
        one((1..=1400).map(|n| "`".repeat(n)).collect::<Vec<_>>().join(" ")),
        // 499,000 unknown commands in one formula, 200,000 formulas of one, 100,000 steps of one:
        // only the problems that can be listed suggest a command (each compared with every name,
        // 6 s).
        one(format!("${}$", "\\a".repeat(499_000))),
        one("$\\a$ ".repeat(199_000)),
        // Scripts on scripts (the lesson_link fuzzer's one crash): the lenient renderer put each
        // extra script around the scripted node, a chain 499,000 deep that overflowed the stack.
        one(format!("$x{}$", "^1".repeat(499_000))),
        one(format!("$x{}$", "_1^2".repeat(249_000))),
        format!("# T\n\n{}", "## S\n$\\a$\n".repeat(MAX_BYTES / 11 - 1)),
    ]
}

#[test]
fn a_1_mb_lesson_renders_to_allowed_and_balanced_tags() {
    for text in lessons_of_1_mb() {
        let start = &text[..30.min(text.len())];
        safe_html(&render_lenient(&text)).unwrap_or_else(|e| panic!("{start:?}…: {e}"));
    }
}

#[test]
fn a_1_mb_lesson_gives_at_most_a_hundred_and_one_short_errors() {
    for text in lessons_of_1_mb() {
        assert!(text.len() <= MAX_BYTES, "{} bytes", text.len());
        let start = &text[..30.min(text.len())];
        let errors = Lesson::check(&text);
        assert!(!errors.is_empty(), "{start:?}… opens");
        assert!(errors.len() <= MAX_ERRORS + 1, "{start:?}…: {} errors", errors.len());
        for e in &errors {
            assert!(e.to_string().len() <= LONGEST_MESSAGE, "{start:?}…: {e}");
        }
    }
}

#[test]
fn a_1_mb_lesson_packs_into_a_link_that_unpacks_to_it() {
    for text in lessons_of_1_mb() {
        let packed = link::encode(&text);
        assert_eq!(link::decode(&packed).as_ref(), Ok(&text));
    }
}

#[test]
fn more_than_a_hundred_errors_are_counted_in_one_more() {
    let errors = Lesson::check(&format!("# T\n\n{}", "## \n".repeat(150)));
    assert_eq!(errors.len(), MAX_ERRORS + 1);
    // 150 empty titles and the 41st step's error.
    assert_eq!(errors[MAX_ERRORS].to_string(), "51 more errors are not listed");
}

#[test]
fn a_qscope_block_reads_at_most_64_settings_and_names_the_first_line_past_them() {
    let block = "seed=1\n".repeat(MAX_ENTRIES + 30);
    let text = format!("# T\n\n## S\n\nText.\n\n```qscope\n{block}```\n");
    let errors = Lesson::check(&text);
    let past: Vec<_> = errors.iter().filter(|e| e.message.contains("at most 64 settings")).collect();
    assert_eq!(past.len(), 1, "{errors:?}");
    assert_eq!(past[0].line, Some(8 + MAX_ENTRIES));
}

#[test]
fn a_set_of_more_than_a_million_levels_is_reported_continuous_not_enumerated() {
    for spec in [
        "qkeras.quantized_relu(bits=28, use_sigmoid=True, negative_slope=0.77)",
        "qkeras.quantized_relu(bits=32, negative_slope=0.5)",
        "qkeras.quantized_relu(bits=29, integer=13, use_sigmoid=True)",
        "qkeras.quantized_ulaw(bits=32)",
        "clipped_ste(step=1e-6, min_value=-1e6, max_value=1e6)",
        "pact(bits=24)",
        "larq.DoReFa(k_bit=24, mode='weights')",
    ] {
        let q = parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let (_, _, report) = q.eval(&[0.5], &mut Ctx::inference(0));
        assert_eq!(q.levels(&report), qscope_quant::Levels::Continuous, "{spec}");
    }
    // A plain ReLU's levels are uniform codes, never listed (29 bits listed took 2 GB).
    let q = parse("qkeras.quantized_relu(bits=29, integer=13)").unwrap();
    let (_, _, report) = q.eval(&[0.5], &mut Ctx::inference(0));
    assert_eq!(q.levels(&report).count(), Some(1 << 29));
}

#[test]
fn the_union_of_more_than_a_million_group_levels_is_reported_continuous_not_enumerated() {
    // 2^21 elements in groups of 2: a million groups, each its own scale (the union listed 16
    // million floats and more).
    let distinct: Vec<f32> = (0..1 << 21).map(|k| k as f32).collect();
    // The same 500 groups over and over: they count once.
    let repeated: Vec<f32> = (0..1 << 21).map(|k| (k % 1000) as f32).collect();
    for spec in ["torchao.intx_fake_quantize(group_size=2)", "torchao.affine(group_size=2)"] {
        let q = parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let (_, _, report) = q.eval(&distinct, &mut Ctx::inference(0));
        assert_eq!(q.levels(&report), qscope_quant::Levels::Continuous, "{spec}");
        let (_, _, report) = q.eval(&repeated, &mut Ctx::inference(0));
        assert!(q.levels(&report).count().is_some_and(|n| n <= 500 * 256), "{spec}");
    }
}

#[test]
fn the_nearest_of_a_million_levels_is_found_without_a_scan() {
    let q = parse("pact(bits=20, alpha=1.0)").unwrap();
    let (_, _, report) = q.eval(&[0.5], &mut Ctx::inference(0));
    let levels = q.levels(&report);
    assert_eq!(levels.count(), Some(1 << 20));
    // A scan compared a million levels per value (24 million per fuzzer input, half a second).
    for k in 0..100_000 {
        let v = k as f32 / 100_000.0;
        let near = levels.nearest(v).unwrap();
        assert!((near - v).abs() <= 0.5 / ((1 << 20) - 1) as f32 + f32::EPSILON, "{v} → {near}");
        assert!(levels.contains(near));
    }
}
