//! The error panel: what the selected quantizer loses on the sample tensor (SQNR, MSE, levels
//! used — for a block format the median of the codes each block uses —, clipped inputs).

use leptos::prelude::*;

use super::figure::{fmt_db, fmt_number};
use super::model::Model;

/// The SQNR with its unit ("∞ dB (lossless)" where the output is exact).
fn sqnr(v: f64) -> String {
    if v == f64::INFINITY { "∞ dB (lossless)".into() } else { format!("{} dB", fmt_db(v)) }
}

#[component]
pub fn Quality(model: Model) -> impl IntoView {
    let metrics = Memo::new(move |_| model.run.with(|r| r.metrics.clone()));
    let total = Memo::new(move |_| model.run.with(|r| r.levels.count()));
    // A block format's levels differ from block to block: counted per block (see explore::blocks).
    let per_block = Memo::new(move |_| model.run.with(|r| r.block_median));
    let per_channel = Memo::new(move |_| model.run.with(|r| !r.channels.is_empty()));
    let sample = move || model.sample_about();
    view! {
        <section class="card side" aria-labelledby="quality-h" class:stale=model.run_pending aria-busy=move || model.run_pending.get().to_string()>
            <h2 id="quality-h">"Error on the sample"</h2>
            <dl class="facts" data-testid="sqnr">
                <dt>"SQNR"</dt>
                <dd class="num big">{move || sqnr(metrics.get().sqnr_db)}</dd>
                <dt>"MSE"</dt>
                <dd class="num">{move || fmt_number(metrics.get().mse)}</dd>
                <dt>{move || if per_block.get().is_some() {
                    "codes used per block"
                } else if per_channel.get() {
                    "levels used in a channel (most)"
                } else {
                    "levels used"
                }}</dt>
                <dd class="num" data-testid="levels-used">
                    {move || match (per_block.get(), total.get()) {
                        (Some((median, Some(of))), _) => format!("median {median} of {of}"),
                        (Some((median, None)), _) => format!("median {median}"),
                        (None, Some(t)) => format!("{} of {t}", metrics.get().levels_used),
                        (None, None) => metrics.get().levels_used.to_string(),
                    }}
                </dd>
                <dt>"clipped"</dt>
                <dd class="num">{move || format!("{} %", fmt_number(metrics.get().clip_fraction * 100.0))}</dd>
            </dl>
            <p class="muted small">{sample}</p>
        </section>
    }
}
