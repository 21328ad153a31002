//! Display formulas that fit the text column: a formula is one unbreakable box, and the
//! presenter's text column (a quarter of the screen) or a phone holds fewer characters than a
//! desk. A formula wider than its column is set a size smaller (a class, `fit-90` … `fit-60`:
//! the stylesheet gives the sizes, the CSP allows no inline style) until it fits, and scrolls
//! sideways below 60 %. Measured after each step's text is set and when the window resizes.

use leptos::ev;
use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// The sizes a formula may take, largest first, in percent (the stylesheet's `fit-N` classes).
const SIZES: [u32; 4] = [90, 80, 70, 60];

/// Keeps the display formulas of `text` within its width as `html` changes.
pub fn formulas(text: NodeRef<Div>, html: Memo<String>) {
    let fit = move || {
        request_animation_frame(move || {
            // The step may have moved on (and its panel gone) by the next frame.
            if let Some(el) = text.try_get_untracked().flatten() {
                fit_all(&el);
            }
        })
    };
    Effect::new(move |_| {
        html.track();
        fit();
    });
    let handle = window_event_listener(ev::resize, move |_| fit());
    on_cleanup(move || handle.remove());
}

fn fit_all(text: &Element) {
    let Ok(list) = text.query_selector_all("math[display=\"block\"]") else { return };
    for i in 0..list.length() {
        if let Some(m) = list.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
            fit_one(&m);
        }
    }
}

/// The largest size at which `m` fits (measured at full size), or the smallest.
fn fit_one(m: &Element) {
    let _ = m.remove_attribute("class");
    let (wide, room) = (m.scroll_width(), m.client_width());
    if room <= 0 || wide <= room {
        return;
    }
    let ratio = f64::from(room) / f64::from(wide);
    let size = SIZES.iter().find(|&&s| f64::from(s) / 100.0 <= ratio).unwrap_or(&SIZES[SIZES.len() - 1]);
    let _ = m.set_attribute("class", &format!("fit-{size}"));
}
