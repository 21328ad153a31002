//! The block view of a block format (MX, NVFP4, int-k groups, NF4…) on the sample tensor: the
//! chooser of the block the curves are drawn at ("the sweep's own block" or a sample block,
//! the hash's `block=k`) and one row per block — length, amax, scale (its stored code in hex,
//! the zero point where there is one), codes used out of the block's levels, and the block's
//! MSE (with a bar) and SQNR. Clicking a row draws the curves at that block.
//! [`qscope_explore::blocks`] holds the numbers.

use leptos::prelude::*;

use super::figure::{fmt_db, fmt_number};
use super::model::Model;
use qscope_explore::formats::fmt_mse;
use qscope_explore::state::State;
use qscope_explore::tensor::fmt_count;
use qscope_quant::Block;

fn n(v: f32) -> String {
    fmt_number(v as f64)
}

/// The block's scale with its stored code and zero point, as one cell says it.
pub fn scale_text(block: &Block) -> String {
    let mut s = n(block.scale);
    if let Some(c) = block.code {
        s.push_str(&format!(" (0x{c:02X})"));
    }
    if let Some(z) = block.zero_point {
        s.push_str(&format!(", zero point {}", n(z)));
    }
    s
}

#[component]
pub fn BlocksPanel(model: Model) -> impl IntoView {
    let count = Memo::new(move |_| model.state.with(State::block_count));
    let worst = Memo::new(move |_| model.run.with(|r| r.block_worst));
    let choose = move |k: Option<usize>| model.update(|s| s.block = k);
    view! {
        <section class="card blocks" aria-labelledby="blocks-h" data-testid="blocks-panel" class:stale=model.run_pending>
            <div class="blocks-head">
                <h2 id="blocks-h">"Blocks of the sample"</h2>
                <label class="small" for="block-choice">"curves drawn at"</label>
                <select id="block-choice" class="select" data-testid="block-choice" on:change=move |ev| {
                    choose(event_target_value(&ev).parse().ok());
                }>
                    <option value="sweep" prop:selected=move || model.block.get().is_none()>"the sweep's own block"</option>
                    {move || (1..=count.get()).map(|k| view! {
                        <option value=k.to_string() prop:selected=move || model.block.get() == Some(k)>
                            {format!("sample block {k}")}
                        </option>
                    }).collect_view()}
                </select>
            </div>
            <p class="small muted">
                "Each block of the selected format on the sample tensor: its scale (stored code in hex), the distinct codes it uses of the levels one block has, and its error (MSE, SQNR in dB). Click a row to draw the curves at that block."
            </p>
            <p class="small muted" data-testid="blocks-more" class:hidden=move || model.run.with(|r| r.block_total <= r.blocks.len())>
                {move || model.run.with(|r| format!(
                    "The first {} of {} blocks; the Quality panel's median and the bars cover them all.",
                    r.blocks.len(),
                    fmt_count(r.block_total as u64),
                ))}
            </p>
            <div class="blocks-scroll" data-testid="blocks-list">
                <table class="blocks-table">
                    <thead>
                        <tr>
                            <th scope="col" class="num">"block"</th>
                            <th scope="col" class="num">"len"</th>
                            <th scope="col" class="num">"amax"</th>
                            <th scope="col" class="num">"scale (code)"</th>
                            <th scope="col" class="num" title="distinct codes the block uses, of the levels one block has">"codes"</th>
                            <th scope="col" class="num" title="the block's mean squared error">"MSE"</th>
                            <th scope="col" class="num" title="the block's SQNR in dB">"dB"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || model.run.with(|r| r.blocks.clone()).into_iter().map(|r| {
                            let k = r.index;
                            let chosen = move || model.block.get() == Some(k);
                            let share = if worst.get() > 0.0 { r.quality.mse / worst.get() } else { 0.0 };
                            let codes = match r.codes {
                                Some(c) => format!("{} of {c}", r.codes_used),
                                None => r.codes_used.to_string(),
                            };
                            view! {
                                <tr
                                    class:chosen=chosen
                                    data-testid="block-row"
                                    tabindex="0"
                                    aria-selected=move || chosen().to_string()
                                    on:click=move |_| choose(Some(k))
                                    on:keydown=move |ev| if ev.key() == "Enter" { choose(Some(k)) }
                                >
                                    <td class="num">{k}</td>
                                    <td class="num">{r.block.len}</td>
                                    <td class="num">{n(r.block.amax)}</td>
                                    <td class="num">{scale_text(&r.block)}</td>
                                    <td class="num">{codes}</td>
                                    <td class="num">
                                        <span class="bar-cell" style:width=format!("{:.0}%", share.clamp(0.0, 1.0) * 100.0)></span>
                                        {fmt_mse(r.quality.mse)}
                                    </td>
                                    <td class="num">{fmt_db(r.quality.sqnr_db)}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        </section>
    }
}
