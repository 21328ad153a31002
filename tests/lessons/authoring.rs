//! Writing lessons: the lesson-wide defaults block, and the warnings `qscope lesson check`
//! prints for a lesson that opens but would mislead a class (`lesson::lint`).

use qscope_explore::lesson::{BUILTIN, Lesson, LessonError, lint};

fn lesson(text: &str) -> Lesson {
    Lesson::parse(text).unwrap_or_else(|e| panic!("{}", messages(&e)))
}

fn messages(errors: &[LessonError]) -> String {
    errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
}

/// The warnings of a one-step lesson around a qscope block.
fn warnings(block: &str) -> Vec<String> {
    let text = format!("# T\n\n## Only step\n\nText.\n\n```qscope\n{block}\n```\n");
    lint::warnings(&lesson(&text)).iter().map(|w| w.message.clone()).collect()
}

fn one_warning(block: &str) -> String {
    let w = warnings(block);
    assert_eq!(w.len(), 1, "{w:#?}");
    w[0].clone()
}

const DEFAULTS: &str = "# Defaults

```qscope
hide=code,alpha
x=-1,1
dataset=xor
q=larq.ste_sign
```

## Inherits everything

No block: the defaults alone.

## Overrides x and q

```qscope
q=qkeras.quantized_bits(4,0,1)
x=-2,2
```

## A trainer step

```qscope
view=train
hidden=4
```
";

#[test]
fn the_first_step_starts_from_the_defaults_without_a_block() {
    let st = lesson(DEFAULTS).steps[0].explorer().unwrap();
    assert_eq!(st.x, (-1.0, 1.0));
    assert!(st.hides("code") && st.hides("alpha"));
    assert_eq!(st.selected_slot().quantizer.to_string(), "larq.SteSign");
}

#[test]
fn a_steps_own_lines_win_and_its_q_lines_replace_the_defaults_q() {
    let st = lesson(DEFAULTS).steps[1].explorer().unwrap();
    assert_eq!(st.x, (-2.0, 2.0));
    assert_eq!(st.slots.len(), 1);
    assert!(st.selected_slot().quantizer.to_string().starts_with("qkeras.quantized_bits"));
    assert!(st.hides("code"), "the defaults it does not set still apply");
}

#[test]
fn a_trainer_step_takes_the_defaults_trainer_keys_only() {
    let p = lesson(DEFAULTS).steps[2].trainer().unwrap();
    assert_eq!(p.dataset.name(), "xor");
    assert_eq!(p.hidden, vec![4]);
}

#[test]
fn a_step_key_or_an_unknown_key_in_the_defaults_is_an_error_at_its_line() {
    let text = "# T\n\n```qscope\ntask=Do it.\nhid=code\n```\n\n## S\n\nText.\n";
    let e = Lesson::parse(text).expect_err("errors");
    let m = messages(&e);
    assert!(m.contains("line 4: the lesson's defaults: task belongs to a step"), "{m}");
    assert!(m.contains("line 5: the lesson's defaults: unknown key 'hid'; did you mean 'hide'?"), "{m}");
}

#[test]
fn a_second_block_before_the_first_step_is_an_error() {
    let text = "# T\n\n```qscope\nx=-1,1\n```\n\n```qscope\nx=-2,2\n```\n\n## S\n\nText.\n";
    let m = messages(&Lesson::parse(text).expect_err("errors"));
    assert!(m.contains("line 7: a lesson has one qscope block of defaults (line 3)"), "{m}");
}

#[test]
fn the_built_in_lessons_have_no_warnings() {
    for (name, text) in BUILTIN {
        let w = lint::warnings(&lesson(text));
        assert!(w.is_empty(), "{name}: {}", messages(&w));
    }
}

#[test]
fn a_task_that_holds_when_the_step_opens_is_named() {
    let w = one_warning("q=larq.ste_sign\ntask=Find it.\ndone=y(0.5) == 1");
    assert!(w.contains("already holds when the step opens"), "{w}");
}

#[test]
fn a_trainer_task_is_evaluated_before_the_first_epoch() {
    let w = one_warning("view=train\ndataset=circle\ntask=Train.\ndone=test_acc >= 0%");
    assert!(w.contains("already holds before the first epoch"), "{w}");
    assert!(warnings("view=train\ndataset=circle\ntask=Train.\ndone=test_acc >= 90%").is_empty());
}

#[test]
fn an_accuracy_beyond_one_can_never_hold() {
    let w = one_warning("view=train\ntask=Train.\ndone=test_acc >= 90");
    assert!(w.contains("an accuracy runs from 0 to 1 (write 90% or 0.9"), "{w}");
    assert!(one_warning("view=train\ntask=Train.\ndone=test_acc >= 120%").contains("runs from 0 to 1"));
}

#[test]
fn the_twins_accuracy_without_a_twin_can_never_hold() {
    let w = one_warning("view=train\ntask=Train.\ndone=twin_test_acc >= 0.9");
    assert!(w.contains("trains no STE twin"), "{w}");
}

#[test]
fn a_level_count_the_quantizer_cannot_reach_is_named() {
    let w = one_warning("q=larq.ste_sign\ntask=Three levels.\ndone=levels == 3");
    assert!(w.contains("cannot hold") && w.contains("larq.SteSign gives 2 level counts"), "{w}");
    // quantized_bits reaches 3 levels at some bit width: no warning.
    assert!(
        warnings("q=qkeras.quantized_bits(4,0,1)\nhighlight=control:bits\ntask=Three.\ndone=levels == 3").is_empty()
    );
    // Pointing at the picker: any quantizer may be chosen.
    assert!(warnings("q=larq.ste_sign\nhighlight=picker\ntask=Three.\ndone=levels == 3").is_empty());
}

#[test]
fn weight_levels_the_steps_quantizer_cannot_give_are_named_unless_it_points_at_wq() {
    let w = one_warning("view=train\nwq=larq.ste_sign\ntask=Ternary.\ndone=weight_levels == 3");
    assert!(w.contains("give 2 levels"), "{w}");
    assert!(
        warnings("view=train\nwq=larq.ste_sign\nhighlight=control:wq\ntask=Ternary.\ndone=weight_levels == 3")
            .is_empty()
    );
}

#[test]
fn a_highlighted_control_the_quantizer_lacks_is_named_with_its_controls() {
    let w = one_warning("q=larq.ste_sign\nhighlight=control:alpha");
    assert!(w.contains("larq.SteSign, has no control 'alpha' (its parameters: clip_value)"), "{w}");
}

#[test]
fn a_pin_outside_the_x_range_is_named() {
    let w = one_warning("q=larq.ste_sign\nx=-1,1\npin=1.5");
    assert!(w.contains("pin=1.5 lies outside the plotted x range, -1 to 1"), "{w}");
}

#[test]
fn an_inline_formula_wider_than_a_narrow_column_is_named_with_its_display_form() {
    let text = |body: &str| format!("# T\n\n## Only step\n\n{body}\n\n```qscope\nq=larq.ste_sign\n```\n");
    let w = |body: &str| -> Vec<String> {
        lint::warnings(&lesson(&text(body))).iter().map(|w| w.message.clone()).collect()
    };
    let wide = w(r"LSQ: $q(v) = s \cdot \operatorname{round}(\operatorname{clip}(v/s, -Q_n, Q_p))$.");
    assert_eq!(wide.len(), 1, "{wide:#?}");
    assert!(wide[0].contains("set it apart as $$q(v) = s"), "{}", wide[0]);
    // Commands count as what they show: \operatorname{clip}(x) is 7 characters, not 21.
    assert!(w(r"Short: $\operatorname{clip}(x, -1, 1)$ and \$5 and $$q(v) = s \cdot \operatorname{round}(\operatorname{clip}(v/s, -Q_n, Q_p))$$.").is_empty());
}
