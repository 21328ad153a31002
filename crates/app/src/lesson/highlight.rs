//! The step's highlighted element: found in the mounted view by its `data-testid`, class or
//! `data-param`, and marked with a `data-lesson-highlight` attribute whose value is a short
//! label; the stylesheet draws a thick outline and the label (never colour alone). Only an
//! attribute is added — the view's own classes and children stay the view's.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

use super::Player;
use qscope_explore::lesson::Highlight;

/// The attribute that marks the highlighted element (its value is the label).
const MARK: &str = "data-lesson-highlight";

/// Frames to wait for the element to appear (a panel drawn after the first frame).
const TRIES: u32 = 90;

/// Marks the current step's element while the panel is mounted.
pub fn follow(player: Player) {
    let target = Memo::new(move |_| player.with_step(|s| s.and_then(|s| s.settings.highlight.clone())));
    let alive = StoredValue::new(());
    Effect::new(move |_| {
        clear();
        if let Some(h) = target.get() {
            mark_when_ready(h, alive, 0);
        }
    });
    on_cleanup(clear);
}

fn mark_when_ready(h: Highlight, alive: StoredValue<()>, tries: u32) {
    request_animation_frame(move || {
        if alive.try_get_value().is_some() && !mark(&h) && tries < TRIES {
            mark_when_ready(h, alive, tries + 1);
        }
    });
}

/// Removes every mark.
fn clear() {
    let Ok(marked) = document().query_selector_all(&format!("[{MARK}]")) else { return };
    for i in 0..marked.length() {
        if let Some(el) = marked.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
            let _ = el.remove_attribute(MARK);
        }
    }
}

/// Marks the element of `h`; false when it is not on the page (yet). In presenter mode a
/// trainer panel below the column's edge (the flip chart under the boundaries at 720p) is
/// scrolled up into the column: the projector has no reader to scroll for it. Elsewhere the page
/// stays where the reader put it.
fn mark(h: &Highlight) -> bool {
    let Some((el, label)) = find(h) else { return false };
    let _ = el.set_attribute(MARK, &label);
    if el.closest(".presenter").ok().flatten().is_some() {
        reveal(&el);
    }
    true
}

/// Scrolls the trainer's figure column (only it: the presenter's screen itself never scrolls)
/// until `el`'s bottom is in view, or its top when it is taller than the column.
fn reveal(el: &Element) {
    let Some(column) = el.closest(".train-view > .column.middle").ok().flatten() else { return };
    let (r, c) = (el.get_bounding_client_rect(), column.get_bounding_client_rect());
    let by = (r.bottom() - c.bottom()).min(r.top() - c.top());
    if by > 0.0 {
        column.set_scroll_top(column.scroll_top() + by.ceil() as i32);
    }
}

/// The first element matching `selector`, or its closest ancestor matching `up` (if given;
/// the first of its `;`-separated selectors that has one).
fn first(selector: &str, up: Option<&str>) -> Option<Element> {
    let el = document().query_selector(selector).ok().flatten()?;
    let ancestor = up.and_then(|up| up.split(';').find_map(|s| el.closest(s).ok().flatten()));
    Some(ancestor.unwrap_or(el))
}

fn testid(id: &str) -> String {
    format!("[data-testid=\"{id}\"]")
}

/// The element a highlight names and its label.
fn find(h: &Highlight) -> Option<(Element, String)> {
    match h {
        Highlight::Part(part) => part_of(part),
        Highlight::Curve(n) => {
            let items = document().query_selector_all(&testid("compare-item")).ok()?;
            let el = items.item(n.checked_sub(1)? as u32)?.dyn_into::<Element>().ok()?;
            Some((el, format!("curve {n}")))
        }
        Highlight::Control(name) => control(name),
    }
}

/// A panel or section of the explorer or the trainer.
fn part_of(part: &str) -> Option<(Element, String)> {
    let (selector, up, label): (String, Option<&str>, &str) = match part {
        "forward" => (testid("plot-forward"), Some("figure"), "forward y(x)"),
        "backward" => (testid("plot-backward"), Some("figure"), "backward dy/dx"),
        "selected" => ("section.selected".into(), None, "selected"),
        "quality" => ("section[aria-labelledby=\"quality-h\"]".into(), None, "quality"),
        "explain" => (testid("explain"), None, "explain"),
        "code" => ("section[aria-labelledby=\"code-h\"]".into(), None, "code"),
        "sample" => (testid("sample-panel"), None, "sample tensor"),
        "picker" => (testid("picker"), None, "quantizers"),
        "spec" => (testid("spec-input"), Some(".spec-box"), "spec"),
        "compare" => ("section.compare".into(), None, "compared"),
        "boundary" => (".boundaries".into(), None, "decision boundaries"),
        "curves" => (".curves".into(), None, "loss and accuracy"),
        "network" => (testid("train-diagram"), Some("figure"), "network"),
        "weights" => (".histograms".into(), None, "weights"),
        "flips" => (testid("train-flip-chart"), Some("figure"), "flips"),
        "pace" => (testid("train-pace"), Some("label"), "pace"),
        "batch" => (testid("train-batch"), None, "one batch"),
        "controls" => (".train-view .column.left".into(), None, "settings"),
        _ => return None,
    };
    Some((first(&selector, up)?, label.to_string()))
}

/// A control: an explorer parameter (`data-param`) or a trainer setting (`train-KEY`, `wqN`:
/// `train-wq-N`, `batch`: `train-batch-size`).
fn control(name: &str) -> Option<(Element, String)> {
    let label = name.to_string();
    if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && let Some(el) = first(&format!("[data-param=\"{name}\"]"), None)
    {
        return Some((el, label));
    }
    let id = match name {
        "batch" => "train-batch-size".to_string(),
        _ => match name.strip_prefix("wq").or(name.strip_prefix("aq")) {
            Some(n) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => format!("train-{}-{n}", &name[..2]),
            _ => format!("train-{}", name.replace('_', "-")),
        },
    };
    let up = Some(".quantizer-setting;.row, label, .pace");
    let el = first(&testid(&id), up).or_else(|| first(&format!("[data-testid^=\"{id}\"]"), up))?;
    Some((el, label))
}
