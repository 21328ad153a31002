//! Lessons (`qscope::explore::lesson`): a lesson file read into its steps with their lines and
//! settings, every kind of malformed lesson named by step and line, the task language (parse,
//! print, evaluation on known quantizers and on trainer figures), and lesson links.

use proptest::prelude::*;
use qscope::explore::lesson::link::{self, MAX_BYTES};
use qscope::explore::lesson::task::{Clause, Condition, Measure, Op, TrainObservation, explorer_value, weight_levels};
use qscope::explore::lesson::{BUILTIN, Highlight, Lesson, LessonError, load};
use qscope::explore::page::View;
use qscope::explore::state::State;
use qscope::explore::train::TrainParams;

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
fn a_trainer_steps_task_is_parsed_for_the_trainer() {
    let task = lesson(SMALL).steps[2].settings.task.clone().unwrap();
    assert_eq!(task.done.to_string(), "test_acc >= 90% and weight_levels == 2");
}
