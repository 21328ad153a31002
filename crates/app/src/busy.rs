//! The status line of the page's worker ([`super::offpage`]): while a large tensor is being
//! quantized, what for, a progress bar and Cancel; after Cancel, that the panels show the
//! numbers from before, and Resume; what went wrong, if the worker reported a problem.

use leptos::prelude::*;

use super::model::Model;
use qscope_explore::tensor::fmt_count;

#[component]
pub fn BusyLine(model: Model) -> impl IntoView {
    let offload = model.offload;
    let shown = move || {
        model.off_page.get().is_some()
            && (offload.progress.with(Option::is_some) || offload.stopped.get() || offload.error.with(Option::is_some))
    };
    let fraction = move || offload.progress.with(|p| p.as_ref().map_or(0.0, |p| p.fraction()));
    let what = move || {
        let tensor = model.active_tensor();
        let about =
            tensor.map(|t| format!("{} ({} elements)", t.name, fmt_count(t.values.len() as u64))).unwrap_or_default();
        if offload.stopped.get() {
            format!("Stopped: the panels show the numbers from before for {about}.")
        } else if let Some(e) = offload.error.get().filter(|_| offload.progress.with(Option::is_none)) {
            format!("The worker reported: {e}")
        } else {
            format!("Quantizing {about} in the background: {:.0} %", fraction() * 100.0)
        }
    };
    view! {
        <Show when=shown>
            <div class="busy" role="status" data-testid="offpage-status">
                <progress max="1" prop:value=fraction class:hidden=move || offload.progress.with(Option::is_none)></progress>
                <span class="busy-text">{what}</span>
                <Show
                    when=move || offload.stopped.get()
                    fallback=move || view! {
                        <button class="btn" data-testid="offpage-cancel" on:click=move |_| offload.cancel()
                            class:hidden=move || offload.progress.with(Option::is_none)>"Cancel"</button>
                    }
                >
                    <button class="btn" data-testid="offpage-resume" on:click=move |_| offload.resume()>"Resume"</button>
                </Show>
            </div>
        </Show>
    }
}
