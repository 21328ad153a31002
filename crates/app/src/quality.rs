//! The error panel: what the selected quantizer loses on the sample tensor (SQNR, MSE, levels
//! used — for a block format the median of the codes each block uses —, clipped inputs).

use leptos::prelude::*;

use super::model::Model;
use qscope_explore::analysis::error_rows;

#[component]
pub fn Quality(model: Model) -> impl IntoView {
    let rows = Memo::new(move |_| model.run.with(error_rows));
    let sample = move || model.sample_about();
    view! {
        <section class="card side" aria-labelledby="quality-h" class:stale=model.run_pending aria-busy=move || model.run_pending.get().to_string()>
            <h2 id="quality-h">"Error on the sample"</h2>
            <dl class="facts" data-testid="sqnr">
                {move || {
                    rows.get()
                        .into_iter()
                        .enumerate()
                        .map(|(i, row)| {
                            // The SQNR is the panel's headline; the levels used have their test id.
                            let class = if i == 0 { "num big" } else { "num" };
                            let testid = (i == 2).then_some("levels-used");
                            view! { <dt>{row.label}</dt><dd class=class data-testid=testid>{row.shown}</dd> }
                        })
                        .collect_view()
                }}
            </dl>
            <p class="muted small">{sample}</p>
        </section>
    }
}
