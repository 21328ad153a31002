//! The page's display modes, the page keys `present` and `embed`:
//!
//! - presenter mode (`present=1`, the title bar's button or the `p` key): large type, thick
//!   lines, the high-contrast theme, only the figure, the selected quantizer's controls and the
//!   lesson on screen; `f` toggles fullscreen;
//! - embed mode (`embed=1`): only the figure, sized to its frame, for an `<iframe>`, with a
//!   one-line footer linking to the full view; the title bar's "Embed" gives the code.
//!
//! The URL is the truth: the modes are read from the hash (also when it is typed), a toggle
//! rewrites its page keys through the route (`Router::set_page`: `replaceState`, no remount).
//! The classes `presenter` / `embed` on `<html>`
//! let the stylesheet do the layout, and a window `resize` makes the canvases redraw at their
//! new sizes. The canvases learn presenter mode from the signal (the app hands it to each view),
//! never from the page. The keys are not taken while typing in a field.

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::KeyboardEvent;

use super::dom::copy_text;
use super::hash;
use super::route::Router;
use qscope_explore::page::{Page, View};

/// The two modes, as signals; provided as context by [`Modes::install`].
#[derive(Clone, Copy)]
pub struct Modes {
    pub present: RwSignal<bool>,
    pub embed: RwSignal<bool>,
}

/// Sets or clears `class` on `<html>`.
fn set_root_class(class: &str, on: bool) {
    let Some(root) = document().document_element() else { return };
    let Ok(list) = js_sys::Reflect::get(&root, &JsValue::from_str("classList")) else { return };
    let toggle = js_sys::Reflect::get(&list, &JsValue::from_str("toggle")).ok();
    if let Some(toggle) = toggle.and_then(|f| f.dyn_into::<js_sys::Function>().ok()) {
        let _ = toggle.call2(&list, &JsValue::from_str(class), &JsValue::from_bool(on));
    }
}

/// Tells whoever follows the window's size (the canvases) that the layout changed.
fn relayout() {
    if let Ok(e) = web_sys::Event::new("resize") {
        let _ = window().dispatch_event(&e);
    }
}

/// Whether a key press belongs to a text field (or a control that takes letters).
fn typing(e: &KeyboardEvent) -> bool {
    let Some(el) = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return false };
    let tag = el.tag_name().to_ascii_lowercase();
    matches!(tag.as_str(), "input" | "textarea" | "select")
        || el.get_attribute("contenteditable").is_some_and(|v| v != "false")
}

/// Enters fullscreen, or leaves it.
fn toggle_fullscreen() {
    let doc = document();
    if doc.fullscreen_element().is_some() {
        doc.exit_fullscreen();
    } else if let Some(root) = doc.document_element() {
        let _ = root.request_fullscreen();
    }
}

impl Modes {
    /// Reads the modes from the hash, applies them to the page at once (before any canvas is
    /// drawn), keeps the hash and `<html>` in step with them, follows hash edits and the keys
    /// `p` and `f` as long as the calling owner lives, and provides them as context.
    pub fn install() -> Modes {
        let page = hash::page();
        let modes = Modes { present: RwSignal::new(page.present), embed: RwSignal::new(page.embed) };
        set_root_class("presenter", page.present);
        set_root_class("embed", page.embed);
        Effect::new(move |before: Option<(bool, bool)>| {
            let now = (modes.present.get(), modes.embed.get());
            if before.is_some_and(|b| b != now) {
                set_root_class("presenter", now.0);
                set_root_class("embed", now.1);
                write_modes(now);
                relayout();
            }
            now
        });
        let follow = window_event_listener(ev::hashchange, move |_| {
            let page = hash::page();
            if modes.present.get_untracked() != page.present {
                modes.present.set(page.present);
            }
            if modes.embed.get_untracked() != page.embed {
                modes.embed.set(page.embed);
            }
        });
        let keys = window_event_listener(ev::keydown, move |e: KeyboardEvent| {
            if e.ctrl_key() || e.meta_key() || e.alt_key() || e.default_prevented() || typing(&e) {
                return;
            }
            match e.key().as_str() {
                "p" | "P" if !modes.embed.get_untracked() => modes.present.update(|p| *p = !*p),
                "f" | "F" => toggle_fullscreen(),
                _ => return,
            }
            e.prevent_default();
        });
        on_cleanup(move || {
            follow.remove();
            keys.remove();
        });
        provide_context(modes);
        modes
    }

    /// The modes provided by the app (or, outside it, the hash's, unfollowed).
    pub fn get() -> Modes {
        use_context::<Modes>().unwrap_or_else(|| {
            let page = hash::page();
            Modes { present: RwSignal::new(page.present), embed: RwSignal::new(page.embed) }
        })
    }
}

/// Writes the modes into the hash's page keys, through the route when the app has one (it
/// keeps the mounted view and its state).
fn write_modes((present, embed): (bool, bool)) {
    let page = hash::page();
    if page.present == present && page.embed == embed {
        return;
    }
    let page = Page { present, embed, ..page };
    match use_context::<Router>() {
        Some(router) => router.set_page(page),
        None => hash::write(&page, &hash::view_hash()),
    }
}

/// The title bar's presenter switch (`p` does the same).
#[component]
pub fn PresenterToggle() -> impl IntoView {
    let modes = Modes::get();
    view! {
        <button
            type="button"
            class="button presenter-toggle"
            data-testid="presenter-toggle"
            title="presenter mode: large type, thick lines, high contrast (key p; f: fullscreen)"
            aria-pressed=move || modes.present.get().to_string()
            on:click=move |_| modes.present.update(|p| *p = !*p)
        >
            {move || if modes.present.get() { "Exit presenter" } else { "Present" }}
        </button>
    }
}

/// What a view's figure is called, for an iframe's title.
fn figure_title(view: View) -> &'static str {
    match view {
        View::Explorer => "qscope: a quantizer, forward and backward",
        View::Train => "qscope: a quantized MLP training beside its float twin",
    }
}

/// `s` as the value of a double-quoted HTML attribute.
fn attr(s: &str) -> String {
    s.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The page's address without its hash.
fn base_url() -> String {
    let loc = window().location();
    format!("{}{}", loc.origin().unwrap_or_default(), loc.pathname().unwrap_or_default())
}

/// The `<iframe>` code of the current view's figure: its state, embedded (no lesson, no
/// presenter), 720 × 480.
pub fn iframe_code() -> String {
    let view_hash = hash::view_hash();
    let page = Page { embed: true, ..Page::default() };
    let src = format!("{}{}", base_url(), page.compose(&view_hash));
    format!(
        r#"<iframe src="{}" width="720" height="480" style="border:0" title="{}" loading="lazy"></iframe>"#,
        attr(&src),
        attr(figure_title(View::of(&view_hash)))
    )
}

/// The title bar's "Embed": a small dialog with the `<iframe>` code of what is on screen and a
/// copy button. The code is made when the dialog opens, from the hash as it is then.
#[component]
pub fn EmbedButton() -> impl IntoView {
    let open = RwSignal::new(false);
    let code = RwSignal::new(String::new());
    let copied = RwSignal::new(String::new());
    let toggle = move |_| {
        if !open.get_untracked() {
            code.set(iframe_code());
            copied.set(String::new());
        }
        open.update(|o| *o = !*o);
    };
    let copy = move |_| {
        copy_text(&code.get_untracked(), move |ok| {
            copied.set(if ok { "copied".into() } else { "select the code and copy it".into() })
        })
    };
    let close_on_escape = move |e: KeyboardEvent| {
        if e.key() == "Escape" {
            open.set(false);
        }
    };
    view! {
        <span class="embed-action">
            <button
                type="button"
                class="button"
                data-testid="embed-open"
                aria-expanded=move || open.get().to_string()
                aria-controls="embed-dialog"
                title="the figure alone, for a slide deck or a documentation page"
                on:click=toggle
            >
                "Embed"
            </button>
            <Show when=move || open.get()>
                <div id="embed-dialog" class="embed-dialog card" role="dialog" aria-label="Embed this figure" on:keydown=close_on_escape>
                    <p class="embed-head">
                        <strong>"Embed this figure"</strong>
                        <button type="button" class="icon-button" aria-label="Close" on:click=move |_| open.set(false)>"✕"</button>
                    </p>
                    <p class="muted small">"Paste into a slide deck or a page: the figure alone, as it is now, with a link to the full view."</p>
                    <textarea class="spec embed-code" readonly rows="4" data-testid="embed-code" aria-label="iframe code"
                        prop:value=move || code.get()
                        on:focus=move |e| {
                            if let Some(t) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) {
                                t.select();
                            }
                        }
                    ></textarea>
                    <p class="embed-copy">
                        <button type="button" class="button primary" data-testid="embed-copy" on:click=copy>"Copy"</button>
                        <span class="copied" role="status">{move || copied.get()}</span>
                    </p>
                </div>
            </Show>
        </span>
    }
}

/// The address of the full view of what an embed shows: the same hash without `embed`.
fn full_view_url() -> String {
    let (page, view_hash, _) = Page::split(&hash::current());
    format!("{}{}", base_url(), Page { embed: false, ..page }.compose(&view_hash))
}

/// An embed's one-line footer: "open in qscope ↗", to the same state without `embed` (made when
/// it is pointed at, so panning in the embed is kept).
#[component]
pub fn EmbedFooter() -> impl IntoView {
    let modes = Modes::get();
    let refresh = move |e: web_sys::Event| {
        if let Some(a) = e.current_target().and_then(|t| t.dyn_into::<web_sys::HtmlAnchorElement>().ok()) {
            a.set_href(&full_view_url());
        }
    };
    view! {
        <Show when=move || modes.embed.get()>
            <footer class="embed-footer">
                // The title bar (and its heading) is hidden in an embed: the page keeps a level-one heading.
                <h1 class="sr-only">"qscope"</h1>
                <a
                    href=full_view_url()
                    target="_blank"
                    rel="noopener"
                    data-testid="embed-open-full"
                    on:pointerdown=move |e| refresh(e.into())
                    on:focus=move |e| refresh(e.into())
                    on:click=move |e| refresh(e.into())
                >
                    "open in qscope ↗"
                </a>
            </footer>
        </Show>
    }
}
