//! Lesson files: never a panic. Any text renders to HTML holding only the allowed tags, every
//! opened tag closed; a lesson that parses packs into a link that unpacks to the same text
//! and lesson, each step's hash reads back without a complaint as the step's state, and each
//! explorer step's task condition evaluates on its state.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qscope_explore::lesson::render::{render_lenient, safe_html};
use qscope_explore::lesson::{Lesson, link};
use qscope_explore::state::State;
use qscope_explore::train::TrainParams;

fn safe(md: &str) {
    let html = render_lenient(md);
    if let Err(e) = safe_html(&html) {
        panic!("{md:?} renders as {html:?}: {e}");
    }
}

fuzz_target!(|text: &str| {
    safe(text);
    let lesson = match Lesson::parse(text) {
        Ok(lesson) => lesson,
        Err(errors) => {
            assert!(!errors.is_empty(), "{text:?} is refused without an error");
            return;
        }
    };
    let packed = link::encode(text);
    assert_eq!(link::decode(&packed).as_deref(), Ok(text), "{text:?} does not unpack from its link");
    safe(&lesson.summary);
    for step in &lesson.steps {
        safe(&step.text);
        let hash = step.hash();
        if let Some(st) = step.explorer() {
            let (again, problems) = State::parse(&hash);
            assert!(
                problems.is_empty(),
                "{text:?}: step {:?} has the hash {hash:?}, read with {problems:?}",
                step.title
            );
            assert_eq!(again, st, "{text:?}: step {:?} has the hash {hash:?} of another state", step.title);
            if let Some(task) = &step.settings.task {
                let _ = task.done.observe(&st);
            }
        }
        if let Some(p) = step.trainer() {
            let (again, problems) = TrainParams::parse(&hash);
            assert!(
                problems.is_empty(),
                "{text:?}: step {:?} has the hash {hash:?}, read with {problems:?}",
                step.title
            );
            assert_eq!(again, p, "{text:?}: step {:?} has the hash {hash:?} of other settings", step.title);
        }
    }
});
