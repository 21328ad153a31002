//! The page's own hash keys (`lesson`, `step`, `embed`, `present`) around a view's keys.

use proptest::prelude::*;
use qscope_explore::page::{MAX_STEPS, Page, View};
use qscope_explore::state::State;

#[test]
fn a_plain_view_link_has_default_page_keys_and_passes_through_unchanged() {
    let (page, view, problems) = Page::split("#q=larq.ste_sign&x=-2,2");
    assert_eq!(page, Page { step: 1, ..Page::default() });
    assert_eq!(view, "#q=larq.ste_sign&x=-2,2");
    assert!(problems.is_empty());
}

#[test]
fn page_keys_are_taken_out_wherever_they_stand() {
    let (page, view, problems) = Page::split("#q=ste&lesson=ste&x=-1,1&step=3&embed=1&present=1");
    assert_eq!(page.lesson.as_deref(), Some("ste"));
    assert_eq!((page.step, page.embed, page.present), (3, true, true));
    assert_eq!(view, "#q=ste&x=-1,1");
    assert!(problems.is_empty());
}

#[test]
fn the_view_hash_parses_without_complaint_about_page_keys() {
    let (_, view, _) = Page::split("#lesson=ste&step=2&q=larq.ste_sign");
    let (state, problems) = State::parse(&view);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(state.slots.len(), 1);
}

#[test]
fn the_view_is_read_from_the_view_keys() {
    assert_eq!(View::of(&Page::split("#lesson=ste&view=train&dataset=xor").1), View::Train);
    assert_eq!(View::of(&Page::split("#lesson=ste&q=ste").1), View::Explorer);
}

#[test]
fn bad_page_values_are_named_and_take_their_defaults() {
    let (page, _, problems) = Page::split("#step=0&embed=yes&lesson=");
    assert_eq!(page, Page { step: 1, ..Page::default() });
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(problems[0].contains(&format!("1 to {MAX_STEPS}")));
    assert!(problems[1].contains("embed=yes"));
    assert!(problems[2].contains("lesson"));
}

#[test]
fn compose_puts_the_page_keys_first_and_omits_defaults() {
    let page = Page { lesson: Some("binary".into()), step: 4, embed: false, present: true };
    assert_eq!(page.compose("#view=train&dataset=xor"), "#lesson=binary&step=4&present=1&view=train&dataset=xor");
    assert_eq!(Page { step: 1, ..Page::default() }.compose("#q=ste"), "#q=ste");
}

#[test]
fn a_step_without_a_lesson_is_not_written() {
    let page = Page { lesson: None, step: 5, embed: true, present: false };
    assert_eq!(page.compose("#q=ste"), "#embed=1&q=ste");
}

#[test]
fn closing_a_lesson_keeps_the_modes() {
    let page = Page { lesson: Some("ste".into()), step: 3, embed: false, present: true };
    assert_eq!(page.without_lesson(), Page { lesson: None, step: 1, embed: false, present: true });
}

proptest! {
    #[test]
    fn compose_then_split_gives_the_page_and_the_view_back(
        lesson in proptest::option::of("~?[A-Za-z0-9_-]{1,40}"),
        step in 1usize..=MAX_STEPS,
        embed: bool,
        present: bool,
        view in "(#q=[a-z_.]{1,12}(&x=-1,1)?)?",
    ) {
        let step = if lesson.is_some() { step } else { 1 };
        let page = Page { lesson, step, embed, present };
        let (back, rest, problems) = Page::split(&page.compose(&view));
        prop_assert_eq!(back, page);
        prop_assert_eq!(rest.trim_start_matches('#'), view.trim_start_matches('#'));
        prop_assert!(problems.is_empty());
    }

    #[test]
    fn split_never_panics(hash in ".{0,200}") {
        let _ = Page::split(&hash);
    }
}
