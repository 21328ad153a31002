//! The lesson bar under the title bar — the lesson's title, `K / N`, Back, Next, the presenter
//! switch and its phones' QR code, copying the lesson's link, closing — and the messages of a lesson that cannot be opened. Both live as
//! long as the app (a step's remount leaves them, and the focus on Next, in place). Everything
//! from a lesson here is text, never markup.

use std::time::Duration;

use leptos::prelude::*;

use super::Player;
use crate::dom::copy_text;
use crate::follow::FollowButton;
use crate::modes::PresenterToggle;

#[component]
pub fn LessonBar(player: Player) -> impl IntoView {
    let title = move || player.with(|l| l.map(|l| l.title.clone()).unwrap_or_default());
    let progress = move || format!("{} / {}", player.step(), player.count());
    let status = RwSignal::new(String::new());
    let copy = move |_| {
        if let Some(link) = player.lesson_link() {
            let shown = link.clone();
            copy_text(&link, move |ok| {
                status.set(if ok { "lesson link copied".into() } else { format!("copy this link: {shown}") });
                if ok {
                    set_timeout(move || drop(status.try_set(String::new())), Duration::from_secs(4));
                }
            });
        }
    };
    view! {
        <Show when=move || player.is_open()>
            <nav class="lesson-bar" aria-label="Lesson" data-testid="lesson-bar">
                <span class="lesson-kind">"lesson"</span>
                <strong class="lesson-title" data-testid="lesson-title">{title}</strong>
                <span class="lesson-progress" data-testid="lesson-progress" aria-live="polite" aria-label=move || format!("step {}", progress())>
                    {progress}
                </span>
                <span class="lesson-status muted" role="status">{move || status.get()}</span>
                <div class="lesson-nav">
                    <button
                        type="button"
                        class="button"
                        data-testid="lesson-prev"
                        title="the previous step (←)"
                        prop:disabled=move || { player.step() <= 1 }
                        on:click=move |_| player.prev()
                    >
                        "◀ Back"
                    </button>
                    <button
                        type="button"
                        class="button primary"
                        data-testid="lesson-next"
                        title="the next step (→)"
                        prop:disabled=move || { player.step() >= player.count() }
                        on:click=move |_| player.next()
                    >
                        "Next ▶"
                    </button>
                    <FollowButton />
                    <PresenterToggle />
                    <button type="button" class="button" data-testid="lesson-copy" title="a link that carries this lesson" on:click=copy>
                        "Copy lesson link"
                    </button>
                    <button
                        type="button"
                        class="icon-button lesson-close"
                        data-testid="lesson-close"
                        aria-label="Close the lesson (Esc): keep this view"
                        title="close the lesson (Esc): keep this view"
                        on:click=move |_| player.close()
                    >
                        "✕"
                    </button>
                </div>
            </nav>
        </Show>
    }
}

/// Why a lesson (a file, or the link's) cannot be opened: each problem with its step and line.
#[component]
pub fn LessonErrors(player: Player) -> impl IntoView {
    let problems = Memo::new(move |_| player.problems());
    view! {
        <Show when=move || problems.with(|p| !p.is_empty())>
            <div class="banner lesson-error" role="alert" data-testid="lesson-error">
                <div class="banner-text">
                    {move || {
                        problems
                            .get()
                            .into_iter()
                            .map(|(what, lines)| {
                                view! {
                                    <strong>{format!("{what}:")}</strong>
                                    <ul>{lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
                                }
                            })
                            .collect_view()
                    }}
                    <p class="muted small">"The page keeps working with the view as it is."</p>
                </div>
                <button
                    type="button"
                    class="icon-button"
                    aria-label="Dismiss these messages"
                    data-testid="dismiss-lesson-error"
                    on:click=move |_| player.dismiss()
                >
                    "✕"
                </button>
            </div>
        </Show>
    }
}
