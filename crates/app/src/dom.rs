//! Small browser helpers: one-per-frame coalescing, downloads, the clipboard, the system
//! theme, window resizes and canvas sizes, and listeners that go when the view that installed them goes.

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::{Closure, JsValue};

/// Runs the latest of the closures scheduled during a frame on the next animation frame:
/// a slider drag or a pan applies once per frame, never queues work.
#[derive(Clone, Copy)]
pub struct NextFrame {
    pending: StoredValue<Option<Box<dyn FnOnce()>>, LocalStorage>,
}

impl NextFrame {
    pub fn new() -> NextFrame {
        NextFrame { pending: StoredValue::new_local(None) }
    }

    /// Replaces whatever is pending with `f`, and asks for a frame if none is asked for yet.
    pub fn schedule(&self, f: impl FnOnce() + 'static) {
        let asked = self.pending.with_value(Option::is_some);
        self.pending.set_value(Some(Box::new(f)));
        if !asked {
            let pending = self.pending;
            request_animation_frame(move || {
                if let Some(f) = pending.try_update_value(Option::take).flatten() {
                    f();
                }
            });
        }
    }
}

/// Offers `bytes` as a file download named `name` (a Blob URL and a temporary `<a download>`).
pub fn download(bytes: &[u8], mime: &str, name: &str) -> Result<(), String> {
    let array = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&array);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(|_| "the browser refused to make a file".to_string())?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| "no object URL".to_string())?;
    let anchor: web_sys::HtmlAnchorElement =
        document().create_element("a").map_err(|_| "cannot create a link".to_string())?.unchecked_into();
    anchor.set_href(&url);
    anchor.set_download(name);
    let _ = anchor.set_attribute("hidden", "");
    let body = document().body().ok_or("the page has no body")?;
    let _ = body.append_child(&anchor);
    anchor.click();
    anchor.remove();
    // Give the download time to start before the URL goes.
    set_timeout(move || drop(web_sys::Url::revoke_object_url(&url)), std::time::Duration::from_secs(30));
    Ok(())
}

/// Calls `ok` with the value of `promise` once it resolves, or `err` with the reason it fails.
pub fn settle(promise: &js_sys::Promise, ok: impl FnOnce(JsValue) + 'static, err: impl FnOnce(JsValue) + 'static) {
    let then = js_sys::Reflect::get(promise, &JsValue::from_str("then"))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(then) = then {
        let _ = then.call2(promise, &Closure::once_into_js(ok), &Closure::once_into_js(err));
    }
}

/// Copies `text` with the asynchronous clipboard API; `done(true)` once copied, `done(false)`
/// when the browser refuses (no permission, an insecure page) so a fallback can be shown.
pub fn copy_text(text: &str, done: impl FnOnce(bool) + 'static) {
    let promise = window().navigator().clipboard().write_text(text);
    let done = std::rc::Rc::new(std::cell::Cell::new(Some(done)));
    let other = done.clone();
    settle(
        &promise,
        move |_| {
            if let Some(f) = done.take() {
                f(true)
            }
        },
        move |_| {
            if let Some(f) = other.take() {
                f(false)
            }
        },
    );
}

/// Whether the system asks for a dark theme, following changes.
pub fn prefers_dark() -> ReadSignal<bool> {
    let query = window().match_media("(prefers-color-scheme: dark)").ok().flatten();
    let (dark, set_dark) = signal(query.as_ref().is_some_and(|q| q.matches()));
    if let Some(query) = query {
        listen_while_mounted(&query, "change", move |e| {
            if let Ok(e) = e.dyn_into::<web_sys::MediaQueryListEvent>() {
                set_dark.set(e.matches())
            }
        });
    }
    dark
}

/// A counter bumped at most once per animation frame while the window is resized.
pub fn resize_ticks() -> ReadSignal<u32> {
    let (ticks, set_ticks) = signal(0u32);
    let frame = NextFrame::new();
    let handle = window_event_listener(ev::resize, move |_| {
        frame.schedule(move || set_ticks.update(|n| *n = n.wrapping_add(1)));
    });
    on_cleanup(move || handle.remove());
    ticks
}

/// The CSS size (layout pixels, whole) of the canvas behind `node`, kept up to date by a
/// `ResizeObserver`. It reports after the browser's own layout, so a draw that reads this never
/// forces a layout in the middle of a frame (reading `clientWidth` after the panels' text
/// changed did, once per canvas and change). `None` until the canvas is laid out with an area.
pub fn observed_size(node: NodeRef<leptos::html::Canvas>) -> ReadSignal<Option<(f64, f64)>> {
    let (size, set_size) = signal(None::<(f64, f64)>);
    let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        let Some(entry) = entries.iter().last().and_then(|e| e.dyn_into::<web_sys::ResizeObserverEntry>().ok()) else {
            return;
        };
        let rect = entry.content_rect();
        let (w, h) = (rect.width().round(), rect.height().round());
        let next = (w > 0.0 && h > 0.0).then_some((w, h));
        if size.get_untracked() != next {
            set_size.set(next);
        }
    });
    let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) else { return size };
    let held = StoredValue::new_local((observer, callback));
    node.on_load(move |canvas| held.with_value(|(observer, _)| observer.observe(&canvas)));
    on_cleanup(move || {
        held.try_with_value(|(observer, _)| observer.disconnect());
    });
    size
}

/// Listens to `name` events on `target` until the reactive owner that calls this is cleaned
/// up (the view that installed the listener is unmounted).
pub fn listen_while_mounted(
    target: &web_sys::EventTarget,
    name: &'static str,
    f: impl FnMut(web_sys::Event) + 'static,
) {
    listen(target, name, false, f);
}

/// [`listen_while_mounted`] in the capture phase: on the window, before any element or any
/// other window listener hears the event (so a dialog takes Esc before the lesson does).
pub fn capture_while_mounted(
    target: &web_sys::EventTarget,
    name: &'static str,
    f: impl FnMut(web_sys::Event) + 'static,
) {
    listen(target, name, true, f);
}

fn listen(target: &web_sys::EventTarget, name: &'static str, capture: bool, f: impl FnMut(web_sys::Event) + 'static) {
    let closure = Closure::<dyn FnMut(web_sys::Event)>::new(f).into_js_value();
    let options = web_sys::AddEventListenerOptions::new();
    options.set_capture(capture);
    let _ =
        target.add_event_listener_with_callback_and_add_event_listener_options(name, closure.unchecked_ref(), &options);
    let held = StoredValue::new_local((target.clone(), closure));
    on_cleanup(move || {
        held.try_with_value(|(target, closure)| {
            target.remove_event_listener_with_callback_and_bool(name, closure.unchecked_ref(), capture)
        });
    });
}

/// Marks the page's theme (`data-theme` on `<html>`) so the CSS follows a manual choice.
pub fn set_page_theme(choice: Option<&str>) {
    if let Some(root) = document().document_element() {
        let _ = match choice {
            Some(t) => root.set_attribute("data-theme", t),
            None => root.remove_attribute("data-theme"),
        };
    }
}

/// Sets the performance mark `name` (a user-timing entry benchmarks read) if no mark was set
/// by this function since the page loaded.
pub fn mark_once(name: &str) {
    use std::sync::atomic::{AtomicBool, Ordering};
    static MARKED: AtomicBool = AtomicBool::new(false);
    if !MARKED.swap(true, Ordering::Relaxed)
        && let Some(p) = window().performance()
    {
        let _ = p.mark(name);
    }
}

/// Milliseconds since the page started.
pub fn now_ms() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or(0.0)
}

/// Resolves at the next animation frame: the page paints between two pieces of long work.
pub async fn next_frame() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = window().request_animation_frame(&resolve);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
