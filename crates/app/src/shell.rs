//! The page: the title bar (views, share link, exports, theme), the banner for a link's
//! problems, and the explorer's columns.

use leptos::prelude::*;

use super::blocks::BlocksPanel;
use super::busy::BusyLine;
use super::code::CodePanel;
use super::compare::CompareList;
use super::dom::{copy_text, prefers_dark, resize_ticks, set_page_theme};
use super::explain::ExplainPanel;
use super::export::{save_png, save_svg};
use super::follow::FollowButton;
use super::formats::FormatsPanel;
use super::hash::{self, HashBanner};
use super::lesson::{self, LessonBar, LessonDrop, LessonErrors, LessonMenu, LessonStage, Player};
use super::model::{Model, ThemeChoice};
use super::modes::{EmbedButton, EmbedFooter, Modes, PresenterToggle};
use super::picker::Picker;
use super::plots::Plots;
use super::quality::Quality;
use super::route::Router;
use super::sample::SamplePanel;
use super::selected::SelectedPanel;
use super::train::{Train, TrainView};
use qscope_explore::page::View;
use qscope_explore::state::State;

/// The app: the route (view and page keys), the lesson player and, under them, the mounted
/// view. A change of view (or of a lesson's step) mounts the view afresh; the old one's
/// listeners and loops go with it. The app wires the pieces: each view gets presenter mode as a
/// signal, and the trainer shows the lesson player what it measures; no view reads the modes
/// from the page or knows the lesson player.
#[component]
pub fn App() -> impl IntoView {
    let router = Router::new(lesson::settle);
    provide_context(router);
    let presenter = Signal::from(Modes::install().present);
    let player = Player::new(router);
    provide_context(player);
    provide_context(super::tensor::Handoff::default());
    let mounted = router.mounted();
    view! {
        <div class="app">
            {move || match mounted.get().0 {
                View::Explorer => view! { <Explorer router=router presenter=presenter /> }.into_any(),
                View::Train => view! {
                    <TrainHeader router=router />
                    <LessonStage>
                        <TrainView presenter=presenter mounted=watch_train />
                    </LessonStage>
                }
                .into_any(),
            }}
            // After the title bar (the stylesheet orders them), outside the remounts.
            <LessonBar player=player />
            <LessonErrors player=player />
            <LessonDrop player=player />
        </div>
    }
}

/// The title bar's view switch: [Explorer] [Train].
#[component]
fn Views(router: Router, train: bool) -> impl IntoView {
    let tab = move |name: &'static str, current: bool, view: View| {
        let testid = format!("view-{}", name.to_lowercase());
        if current {
            view! { <span class="view current" aria-current="page" data-testid=testid>{name}</span> }.into_any()
        } else {
            view! { <button type="button" class="view" data-testid=testid on:click=move |_| router.switch(view)>{name}</button> }.into_any()
        }
    };
    view! {
        <nav class="views" aria-label="Views">
            {tab("Explorer", !train, View::Explorer)}
            {tab("Train", train, View::Train)}
        </nav>
    }
}

/// The rest of the site, served beside the app (`scripts/dev serve`): the book and the quantizer
/// reference, as plain links (they are pages of their own, offline like the app).
#[component]
fn SiteLinks() -> impl IntoView {
    view! {
        <nav class="views site" aria-label="Documentation">
            <a class="view" href="docs/" data-testid="link-docs">"Guide"</a>
            <a class="view" href="reference/" data-testid="link-reference">"Reference"</a>
        </nav>
    }
}

/// Copies the permalink of the current state, saying so in `status` (or showing the link when
/// the clipboard refuses).
fn share_link(status: RwSignal<String>) {
    let link = hash::permalink();
    let shown = link.clone();
    copy_text(&link, move |ok| status.set(if ok { "link copied".into() } else { format!("copy this link: {shown}") }));
}

#[component]
fn TrainHeader(router: Router) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let share = move |_| share_link(status);
    view! {
        <header class="bar">
            <h1 class="brand">"qscope"</h1>
            <Views router=router train=true />
            <SiteLinks />
            <span class="tagline">"a small quantized MLP, trained live beside its float twin"</span>
            <span class="status muted" role="status" data-testid="status">{move || status.get()}</span>
            <div class="actions">
                <LessonMenu />
                <button type="button" class="button" data-testid="share-link" on:click=share>"Copy link"</button>
                <EmbedButton />
                <FollowButton />
                <PresenterToggle />
            </div>
        </header>
        <EmbedFooter />
    }
}

/// Shows a lesson's task what the mounted trainer measures.
fn watch_train(train: Train) {
    if let Some(player) = lesson::player() {
        player.watch_train(train.observer());
    }
}

/// The explorer: the title bar, the banner and the three columns.
#[component]
fn Explorer(router: Router, presenter: Signal<bool>) -> impl IntoView {
    let (initial, state_problems) = State::parse(&hash::view_hash());
    let problems = [hash::page_problems(), state_problems].concat();
    let model = Model::new(initial, prefers_dark().into(), presenter);
    super::tensor::Handoff::receive(model);
    model.notices.set(problems);
    hash::sync(model);
    // A pinned x (a lesson step's `pin`) is where the readout and the Explain panel look.
    Effect::new(move |_| {
        if let Some(x) = model.state.with(|s| s.pin) {
            model.probe.set(x);
        }
    });
    if let Some(player) = lesson::player() {
        player.watch_explorer(model.state);
    }
    Effect::new(move |_| {
        set_page_theme(match model.theme.get() {
            ThemeChoice::System => None,
            ThemeChoice::Light => Some("light"),
            ThemeChoice::Dark => Some("dark"),
        })
    });
    let resized = resize_ticks();
    let picker_hidden = model.hides("picker");
    view! {
        <Header router=router model=model />
        <HashBanner notices=model.notices />
        <BusyLine model=model />
        <LessonStage>
        <main class="explorer">
            <div class="column left">
                <Show when=move || !picker_hidden.get()>
                    <Picker model=model />
                </Show>
                <CompareList model=model />
            </div>
            <div class="column middle">
                <Plots model=model resized=resized />
                <SamplePanel model=model resized=resized />
                <Show when=move || model.current.with(|q| q.block_size().is_some())>
                    <BlocksPanel model=model />
                </Show>
                <FormatsPanel model=model resized=resized />
            </div>
            <div class="column right">
                <SelectedPanel model=model />
                <Quality model=model />
                <ExplainPanel model=model />
                <CodePanel model=model />
            </div>
        </main>
        </LessonStage>
    }
}

#[component]
fn Header(router: Router, model: Model) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let share = move |_| share_link(status);
    let theme_label = move || match model.theme.get() {
        ThemeChoice::System => "theme: system",
        ThemeChoice::Light => "theme: light",
        ThemeChoice::Dark => "theme: dark",
    };
    let next_theme = move |_| {
        model.theme.update(|t| {
            *t = match t {
                ThemeChoice::System => ThemeChoice::Light,
                ThemeChoice::Light => ThemeChoice::Dark,
                ThemeChoice::Dark => ThemeChoice::System,
            }
        })
    };
    view! {
        <header class="bar">
            <h1 class="brand">"qscope"</h1>
            <Views router=router train=false />
            <SiteLinks />
            <span class="tagline">"what a quantizer computes, forward and backward"</span>
            <span class="status muted" role="status" data-testid="status">{move || status.get()}</span>
            <div class="actions">
                <LessonMenu />
                <button type="button" class="button" data-testid="share-link" on:click=share>"Copy link"</button>
                <button type="button" class="button" data-testid="export-png" title="the figure at 2×, with the specs and link inside" on:click=move |_| save_png(model, status)>
                    "PNG"
                </button>
                <button type="button" class="button" data-testid="export-svg" title="the figure with the specs and link in its metadata" on:click=move |_| save_svg(model, status)>
                    "SVG"
                </button>
                <button type="button" class="button" data-testid="theme" aria-label=theme_label on:click=next_theme>
                    {move || match model.theme.get() {
                        ThemeChoice::System => "◐",
                        ThemeChoice::Light => "☀",
                        ThemeChoice::Dark => "☾",
                    }}
                </button>
                <EmbedButton />
                <FollowButton />
                <PresenterToggle />
            </div>
        </header>
        <EmbedFooter />
    }
}
