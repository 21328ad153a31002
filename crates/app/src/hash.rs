//! The URL hash ⇄ the state: read on load and on `hashchange`, rewritten with
//! `history.replaceState` (no history entry, no scroll) right after the change, or once a drag rests. Problems in a hash
//! show in a dismissable banner; the page keeps working with defaults for the bad parts.
//!
//! A view reads and writes only its own keys ([`view_hash`], [`write_view`]); the page's keys
//! (lesson, step, embed, present: [`Page`]) stay in front of them as they are. Which view is
//! mounted is the [`route`](super::route)'s business: a view's listener ignores another view's hash.

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsValue;

use super::model::Model;
use qscope_explore::page::{Page, View};
use qscope_explore::state::State;

/// The current hash, `#…` (empty when there is none).
pub fn current() -> String {
    window().location().hash().unwrap_or_default()
}

/// The page keys of the current hash.
pub fn page() -> Page {
    Page::split(&current()).0
}

/// The problems met in the current hash's page keys.
pub fn page_problems() -> Vec<String> {
    Page::split(&current()).2
}

/// The current view's own part of the hash (`#…`, the page keys taken out).
pub fn view_hash() -> String {
    Page::split(&current()).1
}

/// Writes `page`'s keys followed by a view's hash, with `replaceState` (no history entry, no
/// scroll, no `hashchange`), unless the URL says so already.
pub fn write(page: &Page, view_hash: &str) {
    replace(&page.compose(view_hash));
}

/// Replaces the whole hash (`#…`) with `replaceState`, unless the URL says so already.
pub fn replace(hash: &str) {
    if current() != hash
        && let Ok(history) = window().history()
    {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(hash));
    }
}

/// Rewrites the view's part of the hash, keeping the page keys in front of it.
pub fn write_view(view_hash: &str) {
    write(&page(), view_hash);
}

/// The page's address without its hash.
fn address() -> String {
    let href = window().location().href().unwrap_or_default();
    href.split('#').next().unwrap_or_default().to_string()
}

/// A link to this page opening `hash` (`#…`, written by a view's state: the explorer's
/// [`State::to_hash`], the trainer's `TrainParams::to_hash`).
pub fn link_to(hash: &str) -> String {
    address() + hash
}

/// The permalink of the page as it is now: its address, the page keys and the mounted view's
/// hash, as [`write`] put them in the URL.
pub fn permalink() -> String {
    link_to(&current())
}

/// The URL is rewritten right after the frame that changed the state unless it was rewritten
/// less than this long ago; then once the state rests this long (a drag rewrites it at its start
/// and every so often, not on every frame: replaceState takes milliseconds, and never inside the
/// frame that draws the change).
const URL_DELAY_MS: u64 = 80;

/// Keeps the hash in step with the state, both ways, while the explorer is mounted.
pub fn sync(model: Model) {
    let pending = StoredValue::new_local(None::<TimeoutHandle>);
    let last = StoredValue::new_local(f64::NEG_INFINITY);
    // The view's hash as this view last read or wrote it. A write is deferred, so a navigation
    // (a link, back, forward) can come first: then the URL holds another hash, the navigation's
    // `hashchange` brings its state, and the stale write is dropped rather than undo it.
    let known = StoredValue::new_local(view_hash());
    let write = move |hash: &str| {
        if known.try_with_value(|k| *k != view_hash()).unwrap_or(true) {
            return;
        }
        last.try_update_value(|t| *t = js_sys::Date::now());
        write_view(hash);
        known.try_set_value(view_hash());
    };
    Effect::new(move |_| {
        let hash = model.state.with(State::to_hash);
        if let Some(h) = pending.try_update_value(Option::take).flatten() {
            h.clear();
        }
        // A timer's task runs after the current one: after the animation frame that draws the
        // change, when the change came in one.
        let rested = js_sys::Date::now() - last.get_value() >= URL_DELAY_MS as f64;
        let delay = std::time::Duration::from_millis(if rested { 0 } else { URL_DELAY_MS });
        pending.set_value(set_timeout_with_handle(move || write(&hash), delay).ok());
    });
    // A write still pending goes with the view (the route may already show another).
    on_cleanup(move || {
        if let Some(h) = pending.try_update_value(Option::take).flatten() {
            h.clear();
        }
    });
    let handle = window_event_listener(ev::hashchange, move |_| {
        let hash = view_hash();
        known.try_set_value(hash.clone());
        if View::of(&hash) != View::Explorer {
            // Another view: the route mounts it.
            return;
        }
        if model.state.with_untracked(State::to_hash) == hash {
            return;
        }
        let (state, problems) = State::parse(&hash);
        model.notices.set(problems);
        model.control_error.set(None);
        model.spec_error.set(None);
        model.state.set(state);
    });
    on_cleanup(move || handle.remove());
}

/// The problems found in a hash, each on its own line, until dismissed.
#[component]
pub fn HashBanner(notices: RwSignal<Vec<String>>) -> impl IntoView {
    let shown = move || notices.with(|n| !n.is_empty());
    view! {
        <Show when=shown>
            <div class="banner" role="alert" data-testid="hash-errors">
                <div class="banner-text">
                    <strong>"Parts of this link could not be read; they were reset to defaults:"</strong>
                    <ul>
                        {move || notices.get().into_iter().map(|m| view! { <li>{m}</li> }).collect_view()}
                    </ul>
                </div>
                <button
                    type="button"
                    class="icon-button"
                    aria-label="Dismiss these messages"
                    data-testid="dismiss-hash-errors"
                    on:click=move |_| notices.set(Vec::new())
                >
                    "✕"
                </button>
            </div>
        </Show>
    }
}
