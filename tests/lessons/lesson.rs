//! Lessons (`qscope_explore::lesson`): a lesson file read into its steps with their lines and
//! settings, every kind of malformed lesson named by step and line, the task language (parse,
//! print, evaluation on known quantizers and on trainer figures), and lesson links.

use proptest::prelude::*;
use qscope_explore::lesson::MAX_BYTES;
use qscope_explore::lesson::task::Condition;
use qscope_explore::lesson::{BUILTIN, Highlight, Lesson, LessonError, builtin, load};
use qscope_explore::page::View;
use qscope_explore::state::State;
use qscope_explore::train::TrainParams;

const SMALL: &str = "\u{feff}
# Why rounding stops learning

The summary: round has no gradient, and the STE sends one anyway.

## Round has no gradient

Rounding is flat: $\\frac{\\partial q}{\\partial x} = 0$ almost everywhere. A display formula:

$$q(x) = \\Delta \\cdot \\operatorname{round}(x / \\Delta)$$

```qscope
# the 4-bit staircase
q=qkeras.quantized_bits(4,0,1)
x=-2,2
pin=0.3
highlight=backward
task=Make the gradient at x = 1.5 vanish.
done=dydx(1.5) == 0
```

## Same figure, more words

No block here: the figure stays, the task goes.

## Train it

~~~qscope
view=train
dataset=xor
hidden=8
highlight=boundary
task=Reach 90 % test accuracy with binary weights.
done=test_acc >= 90% and weight_levels == 2
~~~
";

fn lesson(text: &str) -> Lesson {
    Lesson::parse(text).unwrap_or_else(|e| panic!("{}", messages(&e)))
}

fn messages(errors: &[LessonError]) -> String {
    errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
}

/// The errors of a lesson that must not parse.
fn errors(text: &str) -> Vec<LessonError> {
    match Lesson::parse(text) {
        Ok(l) => panic!("parsed, expected errors: {l:?}"),
        Err(e) => e,
    }
}

/// A one-step lesson around a qscope block.
fn with_block(block: &str) -> String {
    format!("# T\n\n## Only step\n\nText.\n\n```qscope\n{block}\n```\n")
}

/// The single error of a one-step lesson around `block`, as printed.
fn block_error(block: &str) -> String {
    let e = errors(&with_block(block));
    assert_eq!(e.len(), 1, "{}", messages(&e));
    e[0].to_string()
}

fn condition(text: &str) -> Condition {
    Condition::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn explorer(hash: &str) -> State {
    let (st, problems) = State::parse(hash);
    assert!(problems.is_empty(), "{problems:?}");
    st
}

#[test]
fn a_complete_lesson_parses_into_its_steps_with_their_lines() {
    let l = lesson(SMALL);
    assert_eq!(l.title, "Why rounding stops learning");
    assert_eq!(l.summary, "The summary: round has no gradient, and the STE sends one anyway.");
    let titles: Vec<&str> = l.steps.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(titles, ["Round has no gradient", "Same figure, more words", "Train it"]);
    let lines: Vec<usize> = l.steps.iter().map(|s| s.line).collect();
    assert_eq!(lines, [6, 22, 26]);
}

#[test]
fn a_steps_text_is_its_markdown_without_the_qscope_block() {
    let l = lesson(SMALL);
    assert!(l.steps[0].text.starts_with("Rounding is flat: $\\frac"));
    assert!(l.steps[0].text.ends_with("\\operatorname{round}(x / \\Delta)$$"));
    assert!(!l.steps[0].text.contains("qscope") && !l.steps[0].text.contains("q=qkeras"));
}

#[test]
fn a_block_gives_the_view_its_keys_in_order_and_the_lesson_keys_parsed() {
    let s = &lesson(SMALL).steps[0].settings;
    assert_eq!(s.view, View::Explorer);
    let pairs: Vec<(&str, &str)> = s.pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(pairs, [("q", "qkeras.quantized_bits(4,0,1)"), ("x", "-2,2"), ("pin", "0.3")]);
    assert_eq!(s.highlight, Some(Highlight::Part("backward".into())));
    let task = s.task.as_ref().expect("a task");
    assert_eq!(task.text, "Make the gradient at x = 1.5 vanish.");
    assert_eq!(task.done, condition("dydx(1.5) == 0"));
}

#[test]
fn a_step_without_a_block_inherits_the_view_keys_but_not_task_or_highlight() {
    let l = lesson(SMALL);
    let (first, second) = (&l.steps[0].settings, &l.steps[1].settings);
    assert_eq!(second.view, first.view);
    assert_eq!(second.pairs, first.pairs);
    assert_eq!(second.highlight, None);
    assert_eq!(second.task, None);
    assert_eq!(l.steps[1].hash(), l.steps[0].hash());
}

#[test]
fn a_first_step_without_a_block_shows_the_explorers_defaults() {
    let l = lesson("# T\n\n## One\n\nJust words.\n");
    assert_eq!(l.steps[0].explorer(), Some(State::default()));
    assert_eq!(l.steps[0].hash(), State::default().to_hash());
}

#[test]
fn a_steps_hash_is_the_views_canonical_link() {
    let l = lesson(SMALL);
    assert_eq!(l.steps[0].hash(), "#q=qkeras.quantized_bits(bits=4,symmetric=True)&x=-2,2&pin=0.3");
    let train = l.steps[2].hash();
    assert!(train.starts_with("#view=train&dataset=xor&hidden=8&"), "{train}");
    assert_eq!(TrainParams::parse(&train).0, l.steps[2].trainer().unwrap());
}

#[test]
fn a_trainer_step_without_pace_gets_pace_20() {
    let s = &lesson(SMALL).steps[2].settings;
    assert_eq!(s.view, View::Train);
    assert_eq!(s.pairs.last(), Some(&("pace".to_string(), "20".to_string())));
    assert!(s.view_hash().starts_with("#view=train&dataset=xor&hidden=8&pace=20"), "{}", s.view_hash());
}

#[test]
fn a_trainer_steps_link_carries_pace_20_unless_the_step_sets_it() {
    let l = lesson(SMALL);
    assert!(l.steps[2].hash().contains("&pace=20"), "{}", l.steps[2].hash());
    let own = lesson(&with_block("view=train\npace=max"));
    assert_eq!(own.steps[0].settings.pairs, [("pace".to_string(), "max".to_string())]);
    assert!(!own.steps[0].hash().contains("pace="), "{}", own.steps[0].hash());
}

#[test]
fn a_trainer_steps_task_is_parsed_for_the_trainer() {
    let task = lesson(SMALL).steps[2].settings.task.clone().unwrap();
    assert_eq!(task.done.to_string(), "test_acc >= 90% and weight_levels == 2");
}

// ---- malformed lessons: each error names the step and the line ----

#[test]
fn an_unknown_quantizer_is_named_with_its_step_line_and_a_suggestion() {
    let e = block_error("x=-1,1\nq=qkeras.quantized_bit(4)");
    assert!(e.starts_with("step 1 \"Only step\", line 9: q=qkeras.quantized_bit(4): "), "{e}");
    assert!(e.contains("did you mean"), "{e}");
}

#[test]
fn a_bad_setting_is_named_with_the_views_message() {
    let e = block_error("q=larq.ste_sign\nx=2,1");
    assert_eq!(e, "step 1 \"Only step\", line 9: x=2,1: expected lo < hi, got 2 ≥ 1");
}

#[test]
fn a_bad_trainer_setting_is_named_with_the_trainers_message() {
    let e = block_error("view=train\nlr=99");
    assert_eq!(e, "step 1 \"Only step\", line 9: lr=99: expected a learning rate from 0.00001 to 10");
}

#[test]
fn a_setting_that_needs_the_others_is_checked_against_them() {
    let e = block_error("q=larq.ste_sign\nsel=1");
    assert!(e.starts_with("step 1 \"Only step\", line 9: sel=1: there is only 1 quantizer"), "{e}");
    let e = block_error("view=train\nhidden=8\nwq2=larq.ste_sign");
    assert!(e.starts_with("step 1 \"Only step\", line 10: wq2=larq.ste_sign: the network has 1 hidden layers"), "{e}");
}

#[test]
fn a_trainer_key_in_an_explorer_step_says_to_add_view_train() {
    let e = block_error("q=larq.ste_sign\ndataset=xor");
    assert!(e.starts_with("step 1 \"Only step\", line 9: unknown key 'dataset'"), "{e}");
    assert!(e.ends_with("('dataset' is a trainer key: add view=train to this step)"), "{e}");
}

#[test]
fn a_misspelt_lesson_key_gets_a_did_you_mean_and_the_lesson_keys_listed() {
    let e = block_error("q=ste\nhilight=forward");
    assert!(e.starts_with("step 1 \"Only step\", line 9: unknown key 'hilight'; did you mean 'highlight'?"), "{e}");
    assert!(e.contains("(lesson keys: view, highlight, task, done, predict, why; explorer keys: q, x,"), "{e}");
    let e = block_error("q=ste\nprediction=Q? | *a | b");
    assert!(e.contains("unknown key 'prediction'; did you mean 'predict'?"), "{e}");
    let e = block_error("view=train\ntsk=Train it.");
    assert!(e.contains("tsk=Train it.: unknown key; did you mean 'task'?"), "{e}");
    assert!(e.contains("; trainer keys: "), "{e}");
}

#[test]
fn an_explorer_key_in_a_trainer_step_is_named_as_such() {
    let e = block_error("view=train\nx=-1,1");
    assert!(e.starts_with("step 1 \"Only step\", line 9: x=-1,1: unknown key"), "{e}");
    assert!(e.ends_with("('x' is an explorer key; this step has view=train)"), "{e}");
}

#[test]
fn a_key_given_twice_is_an_error_except_q() {
    let e = block_error("x=-1,1\nq=larq.ste_sign\nq=ste\nx=-2,2");
    assert_eq!(e, "step 1 \"Only step\", line 11: x is given twice (first on line 8)");
}

#[test]
fn a_line_without_equals_is_an_error() {
    assert_eq!(
        block_error("q=ste\nlarq.ste_sign"),
        "step 1 \"Only step\", line 9: 'larq.ste_sign': expected key=value"
    );
}

#[test]
fn an_unknown_view_is_an_error() {
    assert_eq!(block_error("view=trainer"), "step 1 \"Only step\", line 8: view=trainer: expected explorer or train");
}

#[test]
fn a_highlight_must_name_an_element_of_the_steps_view() {
    let e = block_error("highlight=boundary");
    assert!(
        e.starts_with("step 1 \"Only step\", line 8: highlight=boundary: expected one of forward, backward"),
        "{e}"
    );
    let e = block_error("view=train\nhighlight=forward");
    assert!(e.contains("highlight=forward: expected one of boundary, curves"), "{e}");
    let e = block_error("highlight=bakward");
    assert!(e.contains("did you mean 'backward'?"), "{e}");
}

#[test]
fn a_highlighted_curve_must_exist() {
    let e = block_error("q=ste\nq=larq.ste_sign\nhighlight=curve:3");
    assert_eq!(
        e,
        "step 1 \"Only step\", line 10: highlight=curve:3: this step compares 2 quantizers: curve:1 to curve:2"
    );
    let l = lesson(&with_block("q=ste\nq=larq.ste_sign\nhighlight=curve:2"));
    assert_eq!(l.steps[0].settings.highlight, Some(Highlight::Curve(2)));
}

#[test]
fn a_highlighted_control_must_be_a_parameter_or_a_trainer_setting() {
    let e = block_error("highlight=control:bitz");
    assert!(
        e.ends_with("highlight=control:bitz: no parameter of the catalogue is called 'bitz'; did you mean 'bits'?"),
        "{e}"
    );
    let l = lesson(&with_block("view=train\nhighlight=control:lr"));
    assert_eq!(l.steps[0].settings.highlight, Some(Highlight::Control("lr".into())));
    let e = block_error("view=train\nhighlight=control:bits");
    assert!(e.contains("no trainer setting is called 'bits'"), "{e}");
}

#[test]
fn task_and_done_go_together() {
    let e = block_error("task=Do it.");
    assert!(e.starts_with("step 1 \"Only step\", line 8: task= needs its condition"), "{e}");
    let e = block_error("done=levels == 2");
    assert!(e.starts_with("step 1 \"Only step\", line 8: done= needs its instruction"), "{e}");
}

#[test]
fn a_done_condition_must_parse() {
    let e = block_error("task=Do it.\ndone=dydx(1.5) = 0");
    assert_eq!(e, "step 1 \"Only step\", line 9: done=dydx(1.5) = 0: '=' at character 11: compare with '=='");
}

#[test]
fn a_done_condition_uses_only_its_views_measures() {
    let e = block_error("task=Do it.\ndone=test_acc > 0.9");
    assert!(e.ends_with("'test_acc' is a trainer measure; this step shows the explorer"), "{e}");
    let e = block_error("view=train\ntask=Do it.\ndone=dydx(0) == 1");
    assert!(e.ends_with("'dydx' is an explorer measure; this step shows the trainer"), "{e}");
}

#[test]
fn a_lesson_without_a_title_first_is_named_at_its_first_line() {
    let e = errors("\n\nSome words.\n# Title\n\n## Step\n\nText.\n");
    assert_eq!(messages(&e), "line 3: a lesson starts with its '# Title' line");
}

#[test]
fn a_second_title_is_an_error_at_its_line() {
    let e = errors("# One\n\n## Step\n\nText.\n\n# Two\n");
    assert_eq!(messages(&e), "line 7: a lesson has one '# title' (line 1); write '## Two' for a step");
}

#[test]
fn a_lesson_without_steps_is_an_error() {
    assert_eq!(
        messages(&errors("# Title\n\nOnly a summary.\n")),
        "a lesson has at least one step: a '## Step title' line and its text"
    );
}

#[test]
fn more_than_forty_steps_is_an_error_at_the_41st() {
    let steps: String = (1..=41).map(|k| format!("## S{k}\n\nText.\n\n")).collect();
    let e = errors(&format!("# T\n\n{steps}"));
    assert_eq!(messages(&e), "step 41 \"S41\", line 163: a lesson has at most 40 steps; this one has 41");
}

#[test]
fn an_empty_step_title_is_an_error() {
    assert_eq!(messages(&errors("# T\n\n##\n\nText.\n")), "step 1 \"\", line 3: the step's '## title' is empty");
}

#[test]
fn an_unclosed_qscope_block_is_named_at_its_opening_fence() {
    let e = errors("# T\n\n## Step\n\nText.\n\n```qscope\nq=ste\n\n## Next\n\nMore.\n");
    assert_eq!(messages(&e), "step 1 \"Step\", line 7: the qscope block opened with ``` never closes");
}

#[test]
fn an_unclosed_code_block_is_named_at_its_opening_fence() {
    let e = errors("# T\n\n## A\n\nText.\n\n## B\n\n~~~~python\nx = 1\n~~~\n");
    assert_eq!(messages(&e), "step 2 \"B\", line 9: the code block opened with ~~~~ never closes");
}

#[test]
fn a_second_qscope_block_in_a_step_is_an_error() {
    let e = errors("# T\n\n## A\n\n```qscope\nq=ste\n```\n\n```qscope\nx=-1,1\n```\n");
    assert_eq!(messages(&e), "step 1 \"A\", line 9: a step has one qscope block; this one repeats the block of line 5");
}

#[test]
fn a_qscope_block_before_the_title_is_an_error() {
    let e = errors("```qscope\nq=ste\n```\n\n# T\n\n## A\n\nText.\n");
    assert_eq!(messages(&e), "line 1: a qscope block belongs after the '# Title' (the lesson's defaults) or in a step");
}

#[test]
fn an_unclosed_inline_formula_is_named_at_its_line() {
    let e = errors("# T\n\n## Dollars\n\nIt costs $5 and\nmore.\n\nFine: \\$5.\n");
    assert_eq!(messages(&e).lines().count(), 1, "{}", messages(&e));
    assert!(messages(&e).starts_with("step 1 \"Dollars\", line 5: an inline formula opened with $ does not close"));
}

#[test]
fn an_unclosed_display_formula_is_named_at_its_line() {
    let e = errors("# T\n\n## Display\n\nText.\n\n$$x^2\n\nAfter.\n");
    assert_eq!(
        messages(&e),
        "step 1 \"Display\", line 7: a display formula opened with $$ does not close (end it with $$)"
    );
}

#[test]
fn dollars_in_code_spans_code_blocks_and_escapes_are_text() {
    let l = lesson("# T\n\n## S\n\nSpans: `a $ b` and ``c ` $ d``, \\$3, $x$ and $$y$$.\n\n```sh\necho $HOME\n```\n");
    assert!(l.steps[0].text.contains("echo $HOME"));
}

#[test]
fn a_formula_the_renderer_cannot_read_is_named_at_its_line_in_the_file() {
    let e = errors("# T\n\n## S\n\nFine $x$.\n\n```qscope\nq=ste\n```\n\nThen\n$\\foo{x}$ and $x^{2$.\n");
    assert_eq!(
        messages(&e),
        "step 1 \"S\", line 12: unknown command \\foo in a formula\nstep 1 \"S\", line 12: unbalanced braces: this '{' never closes"
    );
}

#[test]
fn a_summary_with_an_unclosed_formula_is_an_error() {
    let e = errors("# T\n\nCosts $5.\n\n## S\n\nText.\n");
    assert!(messages(&e).starts_with("line 3: the summary: an inline formula"), "{}", messages(&e));
}

#[test]
fn a_step_text_longer_than_the_limit_is_an_error_at_its_heading() {
    let long = "word ".repeat(420);
    let e = errors(&format!("# T\n\n## Long\n\n{long}\n"));
    assert_eq!(messages(&e), "step 1 \"Long\", line 3: the text has 2100 characters; at most 2000");
}

#[test]
fn a_file_larger_than_one_megabyte_is_refused_whole() {
    let text = format!("# T\n\n## S\n\n{}", "a".repeat(MAX_BYTES));
    assert_eq!(messages(&errors(&text)), format!("the lesson has {} bytes; at most 1 MB", text.len()));
}

#[test]
fn every_error_of_every_step_is_reported() {
    let text = "# T\n\n## A\n\n```qscope\nq=nope\nmode=fast\n```\n\n## B\n\n```qscope\nview=train\nbatch=0\n```\n";
    let e = errors(text);
    let places: Vec<(Option<usize>, Option<usize>)> =
        e.iter().map(|e| (e.step.as_ref().map(|s| s.0), e.line)).collect();
    assert_eq!(places, [(Some(1), Some(6)), (Some(1), Some(7)), (Some(2), Some(14))], "{}", messages(&e));
}

#[test]
fn check_lists_the_errors_and_nothing_for_a_good_lesson() {
    assert!(Lesson::check(SMALL).is_empty());
    assert_eq!(Lesson::check(&with_block("x=2,1")).len(), 1);
}

#[test]
fn headings_inside_code_blocks_are_code_and_deeper_headings_are_text() {
    let l = lesson("# T\n\n## S\n\n### A sub-heading\n\n```md\n## not a step\n# not a title\n```\n");
    assert_eq!(l.steps.len(), 1);
    assert!(l.steps[0].text.contains("### A sub-heading") && l.steps[0].text.contains("## not a step"));
}

#[test]
fn closing_hashes_and_crlf_line_ends_are_read() {
    let l = lesson("# Title #\r\n\r\n## Step one ##\r\n\r\nText.\r\n");
    assert_eq!((l.title.as_str(), l.steps[0].title.as_str(), l.steps[0].text.as_str()), ("Title", "Step one", "Text."));
}
// ---- built-in lessons ----

#[test]
fn every_built_in_lesson_parses_without_an_error() {
    assert_eq!(
        BUILTIN.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        ["ste", "quantized_bits", "binary", "soft", "bias", "stochastic"]
    );
    for (name, text) in BUILTIN {
        if let Err(e) = Lesson::parse(text) {
            panic!("lesson {name}:\n{}", messages(&e));
        }
    }
}

#[test]
fn a_built_in_lesson_opens_by_name() {
    assert_eq!(load("ste"), Ok(lesson(builtin("ste").unwrap())));
    let e = load("stee").unwrap_err();
    assert_eq!(
        e[0].message,
        "no built-in lesson is called 'stee'; did you mean 'ste'? (built-in: ste, quantized_bits, binary, soft, bias, stochastic)"
    );
}

// ---- properties ----

proptest! {
    #[test]
    fn lesson_like_text_never_panics(
        lines in prop::collection::vec(
            prop_oneof![
                Just("# Title".to_string()), Just("## Step".to_string()), Just("```qscope".to_string()),
                Just("```".to_string()), Just("~~~".to_string()), Just("view=train".to_string()),
                Just("done=dydx(1) == 0".to_string()), Just("task=Go.".to_string()), Just("$$".to_string()),
                "[-a-z0-9=$`#(),.:!% ]{0,24}",
            ],
            0..30,
        )
    ) {
        let _ = Lesson::parse(&lines.join("\n"));
    }

    #[test]
    fn arbitrary_text_and_links_never_panic(text in ".{0,300}") {
        let _ = Lesson::parse(&text);
        let _ = Condition::parse(&text);
        let _ = load(&format!("~{text}"));
    }
}

/// A lesson of 1 to 4 steps, each with or without a block of settings that may be refused.
fn lesson_text() -> impl Strategy<Value = String> {
    let line = prop::sample::select(vec![
        "q=qkeras.quantized_bits(4,0,1)",
        "q=larq.ste_sign",
        "q=bnb.nf4(blocksize=64)",
        "x=-1,1",
        "x=2,1",
        "seed=3",
        "mode=infer",
        "pin=0.5",
        "sample=laplace,0.2",
        "hide=alpha",
        "sel=1",
        "view=train",
        "dataset=xor",
        "hidden=8,8",
        "wq=larq.ste_sign",
        "highlight=forward",
        "highlight=boundary",
        "task=Try.",
        "done=dydx(1.5) == 0",
        "done=levels < 8",
    ]);
    let step = (prop::collection::vec(line, 0..6), any::<bool>()).prop_map(|(lines, block)| {
        let block = if block { format!("```qscope\n{}\n```\n", lines.join("\n")) } else { String::new() };
        format!("## Step\n\nText with $x^2$.\n\n{block}\n")
    });
    prop::collection::vec(step, 1..5).prop_map(|steps| format!("# Title\n\nSummary.\n\n{}", steps.concat()))
}

proptest! {
    #[test]
    fn a_lesson_that_opens_opens_the_same_from_its_link_and_its_steps_hashes_read_back(text in lesson_text()) {
        if let Ok(lesson) = Lesson::parse(&text) {
            prop_assert_eq!(load(&qscope_explore::lesson::link::encode(&text)), Ok(lesson.clone()));
            for step in &lesson.steps {
                let hash = step.hash();
                match step.settings.view {
                    View::Explorer => {
                        let (st, problems) = State::parse(&hash);
                        prop_assert!(problems.is_empty(), "{}: {:?}", hash, problems);
                        prop_assert_eq!(Some(st), step.explorer());
                    }
                    View::Train => {
                        let (p, problems) = TrainParams::parse(&hash);
                        prop_assert!(problems.is_empty(), "{}: {:?}", hash, problems);
                        prop_assert_eq!(Some(p), step.trainer());
                    }
                }
            }
        }
    }
}

mod links;
mod task;
