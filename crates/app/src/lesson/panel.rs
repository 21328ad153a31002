//! The stage of a view in a lesson: the step's panel (title, text, task) beside the view on a
//! wide screen, above it on a phone. The panel is mounted with the view, so a step's remount
//! renews it; a swipe on it turns the page (left: next, right: back).
//!
//! The text is the lesson renderer's HTML ([`render_lenient`]): it writes every tag itself from
//! a closed set and escapes every piece of the lesson, so it is set as it is (escaping it again
//! would show entities). The title, the prediction and the task are text nodes.

use leptos::ev;
use leptos::html::Div;
use leptos::prelude::*;

use super::{Player, fit, highlight, player};
use qscope_explore::lesson::predict::Prediction;
use qscope_explore::lesson::render::render_lenient;

/// Wraps a view: with a lesson open, the step's panel comes first; without one, the view alone.
#[component]
pub fn LessonStage(children: Children) -> impl IntoView {
    let player = player();
    let open = move || player.is_some_and(|p| p.is_open());
    view! {
        <div class="lesson-stage" class:open=open>
            {player.map(|p| view! { <Show when=move || p.is_open()><LessonPanel player=p /></Show> })}
            <div class="lesson-view">{children()}</div>
        </div>
    }
}

/// The fewest pixels a swipe travels sideways.
const SWIPE_PX: f64 = 60.0;

#[component]
fn LessonPanel(player: Player) -> impl IntoView {
    let title = move || player.with_step(|s| s.map(|s| format!("{}. {}", player.step(), s.title)).unwrap_or_default());
    let html = Memo::new(move |_| player.with_step(|s| s.map(|s| render_lenient(&s.text)).unwrap_or_default()));
    let task = move || player.with_step(|s| s.and_then(|s| s.settings.task.as_ref().map(|t| t.text.clone())));
    let predict = move || player.with_step(|s| s.and_then(|s| s.settings.predict.clone()));
    // Predict, then observe: a step that asks shows its task once a choice is picked.
    let picked = RwSignal::new(None::<usize>);
    let asked = move || player.with_step(|s| s.is_some_and(|s| s.settings.predict.is_some()));
    let done = move || player.done.get() == Some(true);
    highlight::follow(player);
    let text = NodeRef::<Div>::new();
    fit::formulas(text, html);
    let start = StoredValue::new(None::<(f64, f64)>);
    let down = move |e: ev::PointerEvent| {
        if e.pointer_type() == "touch" {
            start.set_value(Some((e.client_x() as f64, e.client_y() as f64)));
        }
    };
    let up = move |e: ev::PointerEvent| {
        let Some((x0, y0)) = start.get_value() else { return };
        start.set_value(None);
        let (dx, dy) = (e.client_x() as f64 - x0, e.client_y() as f64 - y0);
        if dx.abs() >= SWIPE_PX && dy.abs() < dx.abs() / 2.0 {
            if dx < 0.0 { player.next() } else { player.prev() }
        }
    };
    view! {
        <aside
            class="lesson-panel card"
            aria-label="Lesson step"
            data-testid="lesson-panel"
            on:pointerdown=down
            on:pointerup=up
            on:pointercancel=move |_| start.set_value(None)
        >
            <h2 class="lesson-step-title" data-testid="lesson-step-title">{title}</h2>
            // Focusable and named: on a phone the text scrolls within its box, and keys must reach it.
            <div class="lesson-text" data-testid="lesson-text" node_ref=text tabindex="0" role="region" aria-label="Step text" inner_html=move || html.get()></div>
            {move || predict().map(|p| view! { <Predict p=p picked=picked /> })}
            {move || {
                task()
                    .filter(|_| !asked() || picked.get().is_some())
                    .map(|text| {
                        view! {
                            <p class="lesson-task" class:done=done data-testid="lesson-task" data-done=move || done().to_string()>
                                <span class="lesson-tick" aria-hidden="true">{move || if done() { "☑" } else { "☐" }}</span>
                                <span class="sr-only">{move || if done() { "Done: " } else { "Not done yet: " }}</span>
                                <strong>"Try it: "</strong>
                                <span class="lesson-task-text">{text}</span>
                            </p>
                        }
                    })
            }}
            <p class="lesson-hint muted small">"Next and Back: the buttons, ← →, or a swipe here."</p>
        </aside>
    }
}

/// "Predict, then observe": the question and its choices; a pick (`picked`, the panel's: it
/// shows the task then) shows whether it was right, the answer and why. The panel remounts with
/// each step, so each step asks afresh.
#[component]
fn Predict(p: Prediction, picked: RwSignal<Option<usize>>) -> impl IntoView {
    let answer = p.answer;
    let verdict = {
        let right = p.choices[answer].clone();
        move || match picked.get() {
            Some(i) if i == answer => "Right. ".to_string(),
            Some(_) => format!("Not quite: the answer is {right}. "),
            None => String::new(),
        }
    };
    let choices = p
        .choices
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            view! {
                <button
                    type="button"
                    class="button lesson-choice"
                    class:right=move || picked.get().is_some() && i == answer
                    class:wrong=move || picked.get() == Some(i) && i != answer
                    data-testid="lesson-choice"
                    data-index=i
                    aria-pressed=move || (picked.get() == Some(i)).to_string()
                    prop:disabled=move || picked.get().is_some()
                    on:click=move |_| picked.set(Some(i))
                >
                    {c}
                </button>
            }
        })
        .collect_view();
    view! {
        <div class="lesson-predict" data-testid="lesson-predict" data-picked=move || picked.get().map(|i| i.to_string())>
            <p class="lesson-question"><strong>"Predict: "</strong>{p.question}</p>
            <div class="lesson-choices" role="group" aria-label="Your prediction">{choices}</div>
            <Show when=move || picked.get().is_some()>
                <p class="lesson-why" data-testid="lesson-why" role="status">
                    <strong>{verdict.clone()}</strong>
                    {p.why.clone()}
                </p>
            </Show>
        </div>
    }
}
