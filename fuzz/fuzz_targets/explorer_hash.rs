//! A page link as the browser opens it: the page's keys split off, then the explorer's or the
//! trainer's hash read. Never a panic; the state read prints to a hash that reads back to the
//! same state without a complaint and prints the same again, and the page's keys compose and
//! split back to themselves.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qscope_explore::page::{Page, View};
use qscope_explore::state::State;
use qscope_explore::train::TrainParams;

fuzz_target!(|hash: &str| {
    let (page, view_hash, _) = Page::split(hash);
    let printed = match View::of(&view_hash) {
        View::Explorer => {
            let (st, _) = State::parse(&view_hash);
            let printed = st.to_hash();
            let (again, problems) = State::parse(&printed);
            assert!(problems.is_empty(), "{hash:?} prints as {printed:?}, which reads with {problems:?}");
            assert_eq!(again, st, "{hash:?} prints as {printed:?}, which reads as another state");
            assert_eq!(again.to_hash(), printed, "the hash of {hash:?} is not stable");
            let _ = (st.sample_spec(), st.selected_slot(), st.drawn_block());
            printed
        }
        View::Train => TrainParams::parse(&view_hash).0.to_hash(),
    };
    // A step without a lesson is not written.
    let page = if page.lesson.is_some() { page } else { page.without_lesson() };
    let composed = page.compose(&printed);
    let (page2, view2, problems) = Page::split(&composed);
    assert!(problems.is_empty(), "{hash:?}: the page keys compose as {composed:?}, which reads with {problems:?}");
    assert_eq!((page2, view2), (page, printed), "{hash:?}: the page keys do not compose and split back");
});
