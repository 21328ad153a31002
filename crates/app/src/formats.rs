//! The format comparison, "which format?": every shown quantizer's SQNR on the sample tensor
//! against its bits per element (scales included) as a labelled scatter, with a table of bits,
//! MSE and SQNR beside it, PNG/SVG export, and the "compare formats" preset that fills the
//! comparison with a useful default set ([`qscope_explore::formats`] holds the numbers).

use leptos::prelude::*;

use super::dom::observed_size;
use super::export::{save_formats_png, save_formats_svg};
use super::figure::{self, fmt_db, fmt_number};
use super::model::Model;
use qscope_explore::formats::{about, comparison_of, fmt_mse, with_preset};

#[component]
pub fn FormatsPanel(model: Model, resized: ReadSignal<u32>) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let node = NodeRef::<leptos::html::Canvas>::new();
    let points = Memo::new(move |_| {
        model.formats.with(|c| {
            let tensor = model.active_tensor();
            model.state.with(|s| {
                comparison_of(&c.rows, c.mean_square(), about(&s.sample, tensor.as_ref(), s.seed, fmt_number))
            })
        })
    });
    let size = observed_size(node);
    Effect::new(move |_| {
        resized.track();
        let look = model.look();
        let (Some(canvas), Some(css)) = (node.get(), size.get()) else { return };
        points.with(|c| {
            if let Err(e) = figure::draw_comparison(&canvas, css, c, look) {
                web_sys::console::error_1(&e.into());
            }
        });
    });
    let preset = move |_| {
        model.control_error.set(None);
        model.update(|s| *s = with_preset(s));
        status.set("compared the preset formats".into());
    };
    view! {
        <section class="card formats" aria-labelledby="formats-h" data-testid="formats-panel" class:stale=model.formats_pending aria-busy=move || model.formats_pending.get().to_string()>
            <div class="formats-head">
                <h2 id="formats-h">"Which format?"</h2>
                <span class="status muted small" role="status" data-testid="formats-status">{move || status.get()}</span>
                <div class="actions">
                    <button type="button" class="button" data-testid="compare-formats" title="compare a default set of formats: FP8, int8, MXFP4, NVFP4, NF4, int4 groups… (those this qscope has)" on:click=preset>
                        "Compare formats"
                    </button>
                    <button type="button" class="button" data-testid="formats-png" on:click=move |_| save_formats_png(model, status)>"PNG"</button>
                    <button type="button" class="button" data-testid="formats-svg" on:click=move |_| save_formats_svg(model, status)>"SVG"</button>
                </div>
            </div>
            <p class="small muted">
                "Each compared quantizer on the sample tensor: SQNR and MSE against the bits stored per element, block and group scales included. Higher and further left is better."
            </p>
            <div class="formats-body">
                <canvas
                    node_ref=node
                    data-testid="formats-plot"
                    role="img"
                    aria-label="SQNR on the sample tensor against bits per element, one labelled dot per compared quantizer"
                ></canvas>
                <table class="formats-table" data-testid="formats-table">
                    <thead>
                        <tr>
                            <th scope="col">"quantizer"</th>
                            <th scope="col" class="num" title="bits per element, scales included">"bits"</th>
                            <th scope="col" class="num">"SQNR dB"</th>
                            <th scope="col" class="num">"MSE"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || model.formats.with(|c| c.rows.clone()).into_iter().map(|r| {
                            let colour = figure::colour(r.slot, model.look());
                            let bits = r.bits.map_or("—".to_string(), |b| fmt_number(b as f64));
                            let note = (r.not_finite > 0).then(|| format!("{} outputs NaN or ±inf, left out", r.not_finite));
                            view! {
                                <tr>
                                    <td>
                                        <span class="dot" style:background=colour></span>
                                        <code title=r.spec.clone()>{r.label.clone()}</code>
                                        {note.map(|n| view! { <div class="warn small">{n}</div> })}
                                    </td>
                                    <td class="num">{bits}</td>
                                    <td class="num">{fmt_db(r.sqnr_db)}</td>
                                    <td class="num">{fmt_mse(r.mse)}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        </section>
    }
}
