//! Opening a lesson: the title bar's Lessons menu (the built-in lessons by title, and "Open
//! lesson…" for a teacher's file through a hidden file input) and a `.md` file dropped anywhere on the page.
//! A file is read as text and handed to [`Player::open_text`]: it opens at its first step with
//! the whole text in the hash, or its problems are shown and the view stays as it is.

use std::sync::OnceLock;

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DragEvent, File, HtmlInputElement};

use super::Player;
use crate::dom::{listen_while_mounted, settle};
use qscope_explore::lesson::{self, BUILTIN, MAX_BYTES};

/// `(name, title)` of every built-in lesson, read once.
fn builtins() -> &'static [(&'static str, String)] {
    static TITLES: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    TITLES.get_or_init(|| {
        BUILTIN
            .iter()
            .map(|(name, _)| (*name, lesson::load(name).map_or_else(|_| name.to_string(), |l| l.title)))
            .collect()
    })
}

/// Reads `file` as text and opens it as a lesson (or says why not).
fn read(player: Player, file: File) {
    let name = file.name();
    if file.size() > MAX_BYTES as f64 {
        player.file_problem(
            &name,
            format!("the file has {} bytes; a lesson has at most {} MB", file.size(), MAX_BYTES >> 20),
        );
        return;
    }
    let (n1, n2) = (name.clone(), name);
    settle(
        &file.text(),
        move |text| match text.as_string() {
            Some(text) => player.open_text(&n1, &text),
            None => player.file_problem(&n1, "the file is not text".into()),
        },
        move |_| player.file_problem(&n2, "the browser could not read the file".into()),
    );
}

/// The title bar's Lessons menu: the built-in lessons, then "Open lesson…".
#[component]
pub fn LessonMenu() -> impl IntoView {
    let Some(player) = super::player() else { return ().into_any() };
    let menu = NodeRef::<leptos::html::Details>::new();
    let input = NodeRef::<leptos::html::Input>::new();
    let close_menu = move || {
        if let Some(d) = menu.get_untracked() {
            d.set_open(false);
        }
    };
    let items = builtins()
        .iter()
        .map(|(name, title)| {
            let name = *name;
            view! {
                <li>
                    <button
                        type="button"
                        class="menu-item"
                        data-testid=format!("lesson-menu-{name}")
                        on:click=move |_| {
                            close_menu();
                            player.open_builtin(name);
                        }
                    >
                        {title.clone()}
                        <span class="muted small">{format!(" · {name}")}</span>
                    </button>
                </li>
            }
        })
        .collect_view();
    let chosen = move |ev: ev::Event| {
        let Some(el) = ev.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
        if let Some(file) = el.files().and_then(|f| f.get(0)) {
            read(player, file);
        }
        // The same file chosen again must fire `change` again.
        el.set_value("");
    };
    view! {
        <details class="lesson-menu" node_ref=menu>
            <summary class="button" data-testid="lesson-menu">"Lessons"</summary>
            <ul class="menu" aria-label="Lessons">
                {items}
                // A rule above it (CSS): a list holds only list items.
                <li class="menu-separated">
                    <button
                        type="button"
                        class="menu-item"
                        data-testid="lesson-open"
                        title="a lesson file (.md) — or drop one on the page"
                        on:click=move |_| {
                            close_menu();
                            if let Some(i) = input.get_untracked() {
                                i.click();
                            }
                        }
                    >
                        "Open lesson…"
                        <span class="muted small">" a file (.md), or drop one on the page"</span>
                    </button>
                </li>
            </ul>
        </details>
        <input
                type="file"
                class="file-input"
                accept=".md,text/markdown,text/plain"
                node_ref=input
                data-testid="lesson-file"
                tabindex="-1"
                aria-hidden="true"
            on:change=chosen
        />
    }
    .into_any()
}

/// Whether a dropped file looks like a lesson (Markdown or plain text).
fn is_lesson_file(file: &File) -> bool {
    let name = file.name().to_lowercase();
    [".md", ".markdown", ".txt"].iter().any(|ext| name.ends_with(ext)) || file.type_().starts_with("text/")
}

/// A lesson file dropped anywhere on the page opens; while one is dragged over, a hint says so.
#[component]
pub fn LessonDrop(player: Player) -> impl IntoView {
    let dragging = RwSignal::new(false);
    let files = |e: &web_sys::Event| e.dyn_ref::<DragEvent>().and_then(DragEvent::data_transfer);
    listen_while_mounted(&window(), "dragover", move |e| {
        let carries_files = files(&e).is_some_and(|d| d.types().includes(&"Files".into(), 0));
        if carries_files {
            e.prevent_default();
            dragging.set(true);
        }
    });
    listen_while_mounted(&window(), "dragleave", move |e| {
        let left = e.dyn_ref::<DragEvent>().is_some_and(|d| d.related_target().is_none());
        if left {
            dragging.set(false);
        }
    });
    listen_while_mounted(&window(), "drop", move |e| {
        dragging.set(false);
        let Some(file) = files(&e).and_then(|d| d.files()).and_then(|f| f.get(0)) else { return };
        e.prevent_default();
        if is_lesson_file(&file) {
            read(player, file);
        } else if crate::tensor::is_tensor_file(&file.name()) {
            // The explorer's sample card reads it (crate::tensor).
        } else {
            player.file_problem(&file.name(), "a lesson is a Markdown text file (.md)".into());
        }
    });
    view! {
        <Show when=move || dragging.get()>
            <div class="lesson-drop" aria-hidden="true">"Drop a lesson file (.md) to open it"</div>
        </Show>
    }
}
