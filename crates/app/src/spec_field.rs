//! The spec field: the canonical spec of the selected quantizer, and where any spec (qscope
//! form, a QKeras string, a Keras config dict) is typed or pasted. It applies on Enter or blur;
//! a spec that does not parse shows the parser's message and the figure stays.

use leptos::ev;
use leptos::prelude::*;

use super::model::Model;
use qscope_quant::parse;

#[component]
pub fn SpecField(model: Model) -> impl IntoView {
    let canonical = Memo::new(move |_| model.current.with(|q| q.to_string()));
    let field = NodeRef::<leptos::html::Textarea>::new();
    // Shows the canonical spec again (after an empty field, or a spec equal to the current one).
    let restore = move || {
        if let Some(el) = field.get_untracked() {
            el.set_value(&canonical.get_untracked());
        }
    };
    let commit = move |text: String| {
        if text.trim().is_empty() || canonical.with_untracked(|c| *c == text) {
            model.spec_error.set(None);
            restore();
            return;
        }
        match parse(&text) {
            Ok(q) => {
                let same = model.current.with_untracked(|c| *c == q);
                model.set_current(q);
                if same {
                    restore();
                }
            }
            Err(e) => model.spec_error.set(Some(e.message)),
        }
    };
    let error = move || model.spec_error.get();
    let invalid = move || model.spec_error.with(Option::is_some);
    let hidden = model.hides("spec");
    view! {
        <div class="spec-box" class:hidden=move || hidden.get()>
            <label class="field-label" for="spec">
                "spec " <span class="muted">"(QKeras string or config dict too; Enter to apply)"</span>
            </label>
            <textarea
                id="spec"
                node_ref=field
                class="spec"
                class:invalid=invalid
                rows="2"
                data-testid="spec-input"
                spellcheck="false"
                autocomplete="off"
                autocapitalize="off"
                aria-describedby="spec-error"
                aria-invalid=move || if invalid() { "true" } else { "false" }
                prop:value=move || canonical.get()
                on:keydown=move |ev: ev::KeyboardEvent| {
                    if ev.key() == "Enter" && !ev.shift_key() {
                        ev.prevent_default();
                        commit(event_target_value(&ev));
                    }
                }
                on:blur=move |ev: ev::FocusEvent| commit(event_target_value(&ev))
            ></textarea>
            <p id="spec-error" class="spec-error" data-testid="spec-error" aria-live="polite">
                {error}
            </p>
            <p class="kept" class:shown=invalid>
                "Still showing the last spec that parsed."
            </p>
        </div>
    }
}
