//! Lesson files: never a panic. Any text renders to HTML holding only the allowed tags, every
//! opened tag closed; a lesson that parses packs into a link that unpacks to the same text
//! and lesson, each step's hash reads back without a complaint as the step's state, and each
//! explorer step's task condition evaluates on its state.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qscope::explore::lesson::render::{ALLOWED_TAGS, render_lenient};
use qscope::explore::lesson::{Lesson, link};
use qscope::explore::state::State;
use qscope::explore::train::TrainParams;

/// Every `<` begins an allowed tag (or its end tag) followed by `>` or a space.
fn only_allowed_tags(html: &str) -> Result<(), String> {
    for (i, _) in html.match_indices('<') {
        let rest = html[i + 1..].strip_prefix('/').unwrap_or(&html[i + 1..]);
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        let after = rest[name.len()..].chars().next();
        if !ALLOWED_TAGS.contains(&name.as_str()) || !matches!(after, Some('>' | ' ')) {
            return Err(format!("'<' at {i} does not begin an allowed tag"));
        }
    }
    Ok(())
}

/// Every opened tag closes, in order.
fn balanced(html: &str) -> Result<(), String> {
    let mut open: Vec<&str> = Vec::new();
    for (i, _) in html.match_indices('<') {
        let rest = &html[i + 1..];
        let (closing, rest) = rest.strip_prefix('/').map_or((false, rest), |r| (true, r));
        let name = &rest[..rest.find([' ', '>']).unwrap_or(rest.len())];
        match (closing, open.last()) {
            (false, _) => open.push(name),
            (true, Some(top)) if *top == name => {
                open.pop();
            }
            _ => return Err(format!("</{name}> at {i} closes {:?}", open.last())),
        }
    }
    if open.is_empty() { Ok(()) } else { Err(format!("unclosed: {open:?}")) }
}

fn safe(md: &str) {
    let html = render_lenient(md);
    if let Err(e) = only_allowed_tags(&html).and_then(|()| balanced(&html)) {
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
