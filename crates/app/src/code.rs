//! "Copy as code": the selected quantizer as QKeras, Larq, PyTorch or `qscope` CLI text, a
//! framework selector, and a copy button with a visible confirmation (and, when the browser
//! refuses the clipboard, the text selected in a field for Ctrl+C).

use leptos::prelude::*;

use super::dom::copy_text;
use super::model::Model;
use qscope_explore::code::{Framework, agreement, snippet};

/// What the last copy did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Copied {
    Not,
    Done,
    Refused,
}

fn status(last: &Option<(String, Copied)>, text: &str) -> Copied {
    match last {
        Some((t, c)) if t == text => *c,
        _ => Copied::Not,
    }
}

#[component]
pub fn CodePanel(model: Model) -> impl IntoView {
    let snippets = Memo::new(move |_| model.current.with(snippet));
    let wanted = RwSignal::new(Framework::QKeras);
    // The wanted framework when the quantizer has it, else its first snippet's.
    let shown = Memo::new(move |_| {
        let want = wanted.get();
        snippets.with(|s| s.iter().find(|(f, _)| *f == want).or(s.first()).cloned())
    });
    let text = move || shown.with(|s| s.as_ref().map(|(_, t)| t.clone()).unwrap_or_default());
    // Where the snippet cannot promise qscope's bits, say so under it too (the comment may scroll).
    let note = Memo::new(move |_| {
        let framework = shown.with(|s| s.as_ref().map(|(f, _)| *f))?;
        model.current.with(|q| agreement(q, framework))?.sentence()
    });
    // The last text copied and how it went: a confirmation is about that text only.
    let last = RwSignal::new(None::<(String, Copied)>);
    let copied = Memo::new(move |_| last.with(|l| status(l, &text())));
    let fallback = NodeRef::<leptos::html::Textarea>::new();
    Effect::new(move |_| {
        if copied.get() == Copied::Refused
            && let Some(t) = fallback.get()
        {
            let _ = t.focus();
            t.select();
        }
    });
    let copy = move |_| {
        if let Some((_, text)) = shown.get_untracked() {
            let copy = text.clone();
            copy_text(&text, move |ok| last.set(Some((copy, if ok { Copied::Done } else { Copied::Refused }))));
        }
    };
    let hidden = model.hides("code");
    view! {
        <section class="card side" class:hidden=move || hidden.get() aria-labelledby="code-h">
            <h2 id="code-h">"Copy as code"</h2>
            <div class="code-head">
                <label class="sr-only" for="framework">"framework"</label>
                <select id="framework" class="select" data-testid="framework" on:change=move |ev| {
                    let v = event_target_value(&ev);
                    if let Some((f, _)) = snippets.with_untracked(|s| s.iter().find(|(f, _)| f.name() == v).cloned()) {
                        wanted.set(f);
                    }
                }>
                    {move || {
                        let current = shown.get().map(|(f, _)| f);
                        snippets
                            .get()
                            .into_iter()
                            .map(|(f, _)| view! { <option value=f.name() prop:selected=current == Some(f)>{f.name()}</option> })
                            .collect_view()
                    }}
                </select>
                <button type="button" class="button primary" data-testid="copy-code" on:click=copy>
                    "Copy"
                </button>
                <span class="copied" role="status" data-testid="copied">
                    {move || match copied.get() {
                        Copied::Done => "✓ copied",
                        Copied::Refused => "press Ctrl+C to copy",
                        Copied::Not => "",
                    }}
                </span>
            </div>
            <pre class="code" data-testid="code" tabindex="0"><code>{text}</code></pre>
            {move || note.get().map(|n| view! { <p class="code-note" data-testid="code-note">{n}</p> })}
            <Show when=move || copied.get() == Copied::Refused>
                <textarea class="fallback" node_ref=fallback readonly rows="4" aria-label="The code, selected: press Ctrl+C to copy" prop:value=text></textarea>
            </Show>
        </section>
    }
}
