//! A table's classifier seen without a decision boundary: the test confusion matrix of a net
//! (rows true, columns predicted, each cell shaded by its share of its row) and, for `digits`,
//! the test images the quantized net gets wrong with its answers. Both redraw once per epoch.

use leptos::html::Canvas;
use leptos::prelude::*;

use super::Train;
use super::draw::context;
use qscope_explore::train::Net;
use qscope_explore::train::confusion::{Confusion, DIGIT_SIDE, Miss, misclassified};

/// The latest confusion of `net`, re-read only when its epoch changes.
fn latest(train: Train, net: Net) -> Memo<Option<Confusion>> {
    Memo::new(move |_| {
        train.tick.track();
        train.runs.with_value(|r| r.as_ref().and_then(|r| r.get(net)).and_then(Confusion::of))
    })
}

/// One net's test confusion matrix as a table; `suffix` tells the nets' test ids apart.
#[component]
pub fn ConfusionMatrix(train: Train, net: Net, suffix: &'static str) -> impl IntoView {
    let confusion = latest(train, net);
    let testid = format!("train-confusion{suffix}");
    view! {
        <div class="confusion-wrap">
            {move || match confusion.get() {
                Some(c) => matrix(c, testid.clone()).into_any(),
                None => view! {
                    <p class="muted small confusion-empty" data-testid=testid.clone()>"No confusion matrix yet: the nets are built once the data is read."</p>
                }.into_any(),
            }}
        </div>
    }
}

fn matrix(c: Confusion, testid: String) -> impl IntoView {
    let k = c.k();
    let head = c.classes.iter().map(|n| view! { <th scope="col">{n.clone()}</th> }).collect_view();
    let rows = (0..k)
        .map(|r| {
            let cells = (0..k)
                .map(|col| {
                    let (n, share) = c.cell(r, col);
                    // Blue on the diagonal, vermillion off it, as strong as the cell's share of its row.
                    let rgb = if r == col { "0 114 178" } else { "213 94 0" };
                    let fill = format!("rgb({rgb} / {:.3})", if n == 0 { 0.0 } else { 0.08 + 0.5 * share });
                    let title = format!("{n} of class {} predicted {}", c.classes[r], c.classes[col]);
                    view! { <td style:background-color=fill title=title>{n}</td> }
                })
                .collect_view();
            view! { <tr><th scope="row">{c.classes[r].clone()}</th>{cells}</tr> }
        })
        .collect_view();
    let (n, right) = c.totals();
    view! {
        <table class="confusion" class:many={k > 4} data-testid=testid data-total=n.to_string() data-right=right.to_string() data-epoch=c.epoch.to_string()>
            <caption class="muted small">"rows: true class · columns: predicted · test split, epoch "{c.epoch}</caption>
            <thead><tr><th scope="col"><span class="sr-only">"true class ↓, predicted →"</span></th>{head}</tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// Most misclassified images shown.
const MAX_MISSES: usize = 16;

/// Pixels per image pixel on the strip.
const SCALE: f64 = 4.0;

/// The `digits` test images the quantized net gets wrong: each 8×8 image in grey (0 white, 16
/// black) with "true→predicted" under it.
#[component]
pub fn Misclassified(train: Train) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let misses = Memo::new(move |_| {
        train.tick.track();
        let epoch = train.runs.with_value(|r| r.as_ref().map_or(0, |r| r.q.epoch()));
        (epoch, train.runs.with_value(|r| r.as_ref().map(|r| misclassified(&r.q, MAX_MISSES)).unwrap_or_default()))
    });
    Effect::new(move |_| {
        let Some(c) = canvas.get() else { return };
        misses.with(|(_, m)| draw(&c, m));
    });
    let count = move || misses.with(|(_, m)| m.len());
    view! {
        <figure class="misclassified" class:hidden=move || count() == 0>
            <figcaption>"Test digits the quantized net gets wrong "<span class="muted">"(true → predicted; the first "{MAX_MISSES}")"</span></figcaption>
            <canvas node_ref=canvas data-testid="train-misclassified" data-count=move || count().to_string()
                aria-label=move || misses.with(|(_, m)| m.iter().map(|x| format!("{} read as {}", x.truth, x.predicted)).collect::<Vec<_>>().join(", "))></canvas>
        </figure>
    }
}

fn draw(c: &web_sys::HtmlCanvasElement, misses: &[Miss]) {
    let cell = DIGIT_SIDE as f64 * SCALE;
    let (w, h) = (misses.len().max(1) as f64 * (cell + 10.0), cell + 22.0);
    let Some(ctx) = context(c, w as u32, h as u32) else { return };
    ctx.clear_rect(0.0, 0.0, w, h);
    for (i, m) in misses.iter().enumerate() {
        let x0 = i as f64 * (cell + 10.0) + 5.0;
        for (p, &v) in m.pixels.iter().enumerate() {
            let level = 255 - (v.clamp(0.0, 16.0) * 255.0 / 16.0) as u8;
            ctx.set_fill_style_str(&format!("rgb({level},{level},{level})"));
            let (px, py) = ((p % DIGIT_SIDE) as f64, (p / DIGIT_SIDE) as f64);
            ctx.fill_rect(x0 + px * SCALE, 2.0 + py * SCALE, SCALE, SCALE);
        }
        ctx.set_fill_style_str("#c0392b");
        ctx.set_font("12px system-ui, sans-serif");
        let _ = ctx.fill_text(&format!("{}→{}", m.truth, m.predicted), x0, cell + 16.0);
    }
}
