//! Presenter mode's "follow on your phone": a button beside the presenter switch opens a large
//! QR code of the page as the projector shows it — the same lesson, step and view, without
//! presenter mode — with the link as text, and why a phone cannot open it when it cannot (this
//! computer's own address, a link too long for a code). The link and its code are
//! [`Follow`]'s; the code follows the lesson's steps while it is open.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;

use super::dom::capture_while_mounted;
use super::modes::Modes;
use super::route::Router;
use qscope_explore::qr::Follow;

/// The page's whole address now.
fn href() -> String {
    window().location().href().unwrap_or_default()
}

/// The button (shown in presenter mode only) and its dialog.
#[component]
pub fn FollowButton() -> impl IntoView {
    let modes = Modes::get();
    let open = RwSignal::new(false);
    view! {
        <span class="follow-action">
        <Show when=move || modes.present.get()>
            <button
                type="button"
                class="button follow-toggle"
                data-testid="follow-open"
                aria-expanded=move || open.get().to_string()
                title="a QR code of this page for the students' phones"
                on:click=move |_| open.update(|o| *o = !*o)
            >
                "Phones"
            </button>
        </Show>
        <Show when=move || open.get() && modes.present.get()>
            <div class="follow-backdrop" on:click=move |_| open.set(false)></div>
            <FollowDialog open=open />
        </Show>
        </span>
    }
}

/// The dialog while it is open: Esc closes it before anything else hears the key (the lesson
/// would close too), and the focus goes to its Close button.
#[component]
fn FollowDialog(open: RwSignal<bool>) -> impl IntoView {
    let close = NodeRef::<leptos::html::Button>::new();
    let router = use_context::<Router>();
    capture_while_mounted(&window(), "keydown", move |e| {
        if let Some(e) = e.dyn_ref::<KeyboardEvent>()
            && e.key() == "Escape"
        {
            e.prevent_default();
            e.stop_propagation();
            open.set(false);
        }
    });
    close.on_load(|b| drop(b.focus()));
    view! {
        <div class="follow-dialog card" role="dialog" aria-modal="true" aria-labelledby="follow-h" data-testid="follow-dialog">
            <h2 id="follow-h">"Follow on your phone"</h2>
            // Remade when the lesson's step (or any page key) changes under it.
            {move || {
                if let Some(router) = router {
                    router.page();
                }
                view! { <FollowCode follow=Follow::of(&href()) /> }
            }}
            <button type="button" class="button" data-testid="follow-close" node_ref=close on:click=move |_| open.set(false)>
                "Close (Esc)"
            </button>
        </div>
    }
}

/// The code of `follow`, its link and its problem.
#[component]
fn FollowCode(follow: Follow) -> impl IntoView {
    let code = follow.qr.map(|qr| {
        let side = qr.side();
        view! {
            <svg
                class="qr"
                data-testid="follow-qr"
                viewBox=format!("0 0 {side} {side}")
                shape-rendering="crispEdges"
                role="img"
                aria-label="QR code of this page's link"
            >
                <rect width=side.to_string() height=side.to_string() fill="#fff" />
                <path fill="#000" d=qr.path() />
            </svg>
        }
    });
    view! {
        {code}
        <p class="follow-url" data-testid="follow-url">{follow.url}</p>
        {follow.problem.map(|p| view! { <p class="follow-problem" role="note" data-testid="follow-problem">{p}</p> })}
    }
}
