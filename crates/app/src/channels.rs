//! The sample tensor channel by channel, when it is a tensor of two or more dimensions: a strip of
//! each channel's SQNR under the selected quantizer (and its scale, for a per-channel one), the
//! worst channels and the outlier channels named. A click on the strip (or the number beside it)
//! picks the channel a per-channel quantizer is drawn for.

use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

use super::dom::observed_size;
use super::figure::{self, Look, fmt_db, fmt_number};
use super::model::Model;
use qscope_explore::channels::{ChannelStat, OUTLIER_RATIO, channel_at, median_amax, outliers, per_bar, worst};

/// Channels named in the worst list.
const WORST: usize = 3;

#[component]
pub fn ChannelStrip(model: Model, resized: ReadSignal<u32>) -> impl IntoView {
    let shown = Memo::new(move |_| model.tensor.get().is_some() && model.shape.with(|s| s.dims.len() >= 2));
    let channels = Memo::new(move |_| {
        if !shown.get() {
            return Vec::new();
        }
        model.run.with(|run| run.channel_stats.clone())
    });
    let node = NodeRef::<leptos::html::Canvas>::new();
    let size = observed_size(node);
    Effect::new(move |_| {
        resized.track();
        let look = model.look();
        let colour = figure::colour(model.selected.get(), look);
        let drawn = model.channel.get();
        let (Some(canvas), Some(css)) = (node.get(), size.get()) else { return };
        channels.with(|c| draw(&canvas, css, c, drawn, &colour, look));
    });
    let pick = move |c: usize| model.update(|s| s.channel = (c != 0).then_some(c));
    let click = move |ev: web_sys::MouseEvent| {
        let Some((w, _)) = size.get_untracked() else { return };
        let at = channels.with_untracked(|c| channel_at(c, w, f64::from(ev.offset_x())));
        if let Some(c) = at {
            pick(c);
        }
    };
    let typed = move |ev: leptos::ev::Event| {
        let last = channels.with_untracked(Vec::len).saturating_sub(1);
        if let Ok(c) = event_target_value(&ev).trim().parse::<usize>() {
            pick(c.min(last));
        }
    };
    let drawn_text = move || {
        let c = model.channel.get();
        channels.with(|all| all.get(c).map(describe)).unwrap_or_default()
    };
    let heading = move || {
        let n = channels.with(Vec::len);
        let axis = model.shape.with(|s| s.axis);
        let scaled = model.run.with(|r| !r.channels.is_empty());
        let what = if scaled { "SQNR and scale" } else { "SQNR" };
        format!("{n} channels along axis {axis}: {what} of each")
    };
    let worst_text = move || {
        channels.with(|c| {
            let w: Vec<String> = worst(c, WORST).iter().map(|s| describe(s)).collect();
            format!("worst: {}", w.join("; "))
        })
    };
    let outlier_text = move || {
        channels.with(|c| {
            let o = outliers(c);
            let median = median_amax(c);
            if o.is_empty() {
                return format!(
                    "no outlier channel (none has {OUTLIER_RATIO}× the median max |x|, {})",
                    fmt_number(median as f64)
                );
            }
            let named: Vec<String> = o.iter().take(8).map(|(i, r)| format!("{i} ({r:.1}×)")).collect();
            let more = if o.len() > 8 { format!(" and {} more", o.len() - 8) } else { String::new() };
            format!(
                "outlier channels (max |x| against the median's {}): {}{more}",
                fmt_number(median as f64),
                named.join(", ")
            )
        })
    };
    view! {
        <div class="channel-strip" class:hidden=move || !shown.get() class:stale=model.run_pending data-testid="channel-strip">
            <p class="small muted">{heading}</p>
            <canvas
                node_ref=node
                role="img"
                data-testid="channel-canvas"
                aria-label="each channel's SQNR under the selected quantizer, one bar per channel; a click picks the drawn channel"
                on:click=click
            ></canvas>
            <p class="small num channel-pick">
                <label>
                    "drawn channel "
                    <input
                        type="number"
                        class="num-input"
                        min="0"
                        max=move || channels.with(Vec::len).saturating_sub(1).to_string()
                        step="1"
                        data-testid="sample-channel"
                        title="the channel a per-channel quantizer's curve, levels and Explain steps are drawn for"
                        prop:value=move || model.channel.get().to_string()
                        on:change=typed
                    />
                </label>
                " "
                <span data-testid="channel-drawn">{drawn_text}</span>
            </p>
            <p class="small num" data-testid="channel-worst">{worst_text}</p>
            <p class="small num" data-testid="channel-outliers">{outlier_text}</p>
        </div>
    }
}

fn describe(s: &ChannelStat) -> String {
    let scale = s.scale.map(|v| format!(", scale {}", fmt_number(v as f64))).unwrap_or_default();
    format!("channel {} {} dB (max |x| {}{scale})", s.index, fmt_db(s.sqnr_db), fmt_number(s.amax as f64))
}

/// One bar per channel (the lowest SQNR of each bin when there are more channels than pixels),
/// its height the SQNR from 0 to the highest finite one; the drawn channel's bar marked below.
fn draw(
    canvas: &HtmlCanvasElement,
    (w, h): (f64, f64),
    channels: &[ChannelStat],
    drawn: usize,
    colour: &str,
    look: Look,
) {
    let Some(ctx) = figure::cleared(canvas, (w, h), look) else { return };
    let theme = look.theme();
    if channels.is_empty() {
        return;
    }
    let finite = |v: f64| if v.is_finite() { v.max(0.0) } else { 0.0 };
    let top =
        channels.iter().map(|c| if c.sqnr_db == f64::INFINITY { 0.0 } else { finite(c.sqnr_db) }).fold(1.0, f64::max);
    let per = per_bar(channels.len(), w);
    let bar = w / channels.len().div_ceil(per) as f64;
    ctx.set_fill_style_str(colour);
    for (b, chunk) in channels.chunks(per).enumerate() {
        let low = chunk
            .iter()
            .map(|c| if c.sqnr_db == f64::INFINITY { top } else { finite(c.sqnr_db) })
            .fold(f64::INFINITY, f64::min);
        let height = (h - 20.0) * (low / top);
        ctx.fill_rect(b as f64 * bar, h - 6.0 - height, (bar - 0.5).max(0.5), height);
    }
    // The drawn channel: a tick under its bar.
    ctx.set_fill_style_str(&figure::css(theme.text));
    let mid = (drawn.min(channels.len() - 1) / per) as f64 * bar + bar / 2.0;
    ctx.fill_rect(mid - bar.max(3.0) / 2.0, h - 4.0, bar.max(3.0), 4.0);
    ctx.set_fill_style_str(&figure::css(theme.muted));
    ctx.set_font("10px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif");
    ctx.set_text_baseline("top");
    ctx.set_text_align("left");
    let _ = ctx.fill_text(&format!("{} dB", fmt_db(top)), 2.0, 1.0);
}
