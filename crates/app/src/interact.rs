//! Pointer, wheel and keyboard on a plot canvas: hover moves the crosshair, a drag pans, the
//! wheel zooms around the pointer (a non-passive listener, so the page does not scroll), a
//! click pins the Explain panel's x, a double-click resets the range; focused, ← and → move the
//! pinned x by a step (Shift: ten), the range following it, +/− zoom around it, 0 resets the
//! range and Escape clears the pin. By touch: one finger drags sideways to pan (an upward or
//! downward drag scrolls the page: the canvas allows `pan-y`), two fingers pinch to zoom, a
//! tap pins. Every change is applied on the next animation frame.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use web_sys::{HtmlCanvasElement, KeyboardEvent, PointerEvent, WheelEvent};

use super::dom::NextFrame;
use super::figure::{self, Look};
use super::model::Model;
use qscope_explore::state::{DEFAULT_X, X_LIMIT, pan, zoom};

/// A drag in progress: where it started, in pixels and as an x range.
#[derive(Clone, Copy)]
struct Drag {
    px: f64,
    x: (f32, f32),
    moved: bool,
}

/// A two-finger pinch in progress: the fingers' distance and midpoint at its start, the x
/// range then and the x under the midpoint.
#[derive(Clone, Copy)]
struct Pinch {
    distance: f64,
    mid: f64,
    x: (f32, f32),
    at: f32,
}

/// The pointers down on a canvas (id, position in pixels): two make a pinch.
type Touches = Vec<(i32, (f64, f64))>;

/// Pixels a pointer may move before a press counts as a drag, not a click (a finger gets more).
const CLICK_SLOP: f64 = 3.0;
const TAP_SLOP: f64 = 10.0;

fn slop(e: &PointerEvent) -> f64 {
    if e.pointer_type() == "touch" { TAP_SLOP } else { CLICK_SLOP }
}

fn at(e: &PointerEvent) -> (f64, f64) {
    (e.offset_x() as f64, e.offset_y() as f64)
}

/// The distance between the first two pointers and their midpoint's x.
fn spread(touches: &Touches) -> Option<(f64, f64)> {
    let [(_, a), (_, b), ..] = touches.as_slice() else { return None };
    Some((((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt().max(1.0), (a.0 + b.0) / 2.0))
}

/// The x range a pinch gives: zoomed around the x first under the fingers by how much they
/// spread, and moved with their midpoint.
fn pinched(p: Pinch, now: (f64, f64), width: f64, look: Look) -> (f32, f32) {
    let zoomed = zoom(p.x, p.at, (p.distance / now.0) as f32);
    pan(zoomed, -((now.1 - p.mid) as f32) * figure::x_per_px(width, zoomed, look))
}

fn set_x(model: Model, x: (f32, f32)) {
    if model.x.get_untracked() != x {
        model.update(|s| {
            // Zoom and pan only produce valid ranges; a refused one leaves the range as it is.
            let _ = s.set_x(x);
        });
    }
}

/// Listens to `name` on the canvas until the view that drew it is unmounted (a lesson's step, a
/// view switch): a removed canvas can still hear a pointer leaving it, and its handlers must not
/// outlive the state they read.
fn listen<E: JsCast + 'static>(
    canvas: &HtmlCanvasElement,
    name: &'static str,
    passive: bool,
    f: impl FnMut(E) + 'static,
) {
    let closure = Closure::<dyn FnMut(web_sys::Event)>::new({
        let mut f = f;
        move |e: web_sys::Event| {
            if let Ok(e) = e.dyn_into::<E>() {
                f(e)
            }
        }
    })
    .into_js_value();
    let options = web_sys::AddEventListenerOptions::new();
    options.set_passive(passive);
    let _ =
        canvas.add_event_listener_with_callback_and_add_event_listener_options(name, closure.unchecked_ref(), &options);
    let held = StoredValue::new_local((canvas.clone(), closure));
    on_cleanup(move || {
        held.try_with_value(|(canvas, closure)| {
            canvas.remove_event_listener_with_callback(name, closure.unchecked_ref())
        });
    });
}

/// Attaches the handlers once the canvas exists.
pub fn attach(model: Model, node: NodeRef<leptos::html::Canvas>, frame: NextFrame) {
    let drag = StoredValue::new(None::<Drag>);
    let pinch = StoredValue::new(None::<Pinch>);
    let touches = StoredValue::new(Touches::new());
    let wheel = StoredValue::new((1.0f32, 0.0f32));
    // Presenter mode draws the panels larger: their margins, and so the x under a pixel, change.
    let look = move || model.look_untracked();
    node.on_load(move |canvas: HtmlCanvasElement| {
        let width = {
            let c = canvas.clone();
            move || c.client_width() as f64
        };
        let w = width.clone();
        listen(&canvas, "pointerdown", true, move |e: PointerEvent| {
            if e.button() != 0 {
                return;
            }
            touches.update_value(|t| {
                t.retain(|(id, _)| *id != e.pointer_id());
                t.push((e.pointer_id(), at(&e)));
            });
            if let Some((distance, mid)) = touches.with_value(spread) {
                // A second finger: the drag becomes a pinch (and never a tap).
                let x = model.x.get_untracked();
                pinch.set_value(Some(Pinch { distance, mid, x, at: figure::x_at(mid, w(), x, look()) }));
                drag.set_value(None);
                model.hover.set(None);
            } else {
                drag.set_value(Some(Drag { px: e.offset_x() as f64, x: model.x.get_untracked(), moved: false }));
            }
            if let Some(t) = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) {
                let _ = t.set_pointer_capture(e.pointer_id());
            }
        });
        let w = width.clone();
        listen(&canvas, "pointermove", true, move |e: PointerEvent| {
            touches.update_value(|t| {
                if let Some(p) = t.iter_mut().find(|(id, _)| *id == e.pointer_id()) {
                    p.1 = at(&e);
                }
            });
            if let (Some(p), Some(now)) = (pinch.get_value(), touches.with_value(spread)) {
                let to = pinched(p, now, w(), look());
                frame.schedule(move || set_x(model, to));
                return;
            }
            let px = e.offset_x() as f64;
            match drag.get_value() {
                Some(d) => {
                    let dx = px - d.px;
                    if !d.moved && dx.abs() <= slop(&e) {
                        return;
                    }
                    drag.set_value(Some(Drag { moved: true, ..d }));
                    let to = pan(d.x, -(dx as f32) * figure::x_per_px(w(), d.x, look()));
                    model.hover.set(None);
                    frame.schedule(move || set_x(model, to));
                }
                None if e.pointer_type() != "touch" && pinch.get_value().is_none() => {
                    let x = figure::x_at(px, w(), model.x.get_untracked(), look());
                    frame.schedule(move || model.hover.set(Some(x)));
                }
                None => {}
            }
        });
        let lift = move |e: &PointerEvent| {
            touches.update_value(|t| t.retain(|(id, _)| *id != e.pointer_id()));
            if pinch.get_value().is_some() {
                pinch.set_value(None);
                // The finger left on the glass goes on panning from here, as a drag, not a tap.
                drag.set_value(touches.with_value(|t| t.first().map(|(_, p)| p.0)).map(|px| Drag {
                    px,
                    x: model.x.get_untracked(),
                    moved: true,
                }));
                return false;
            }
            let tap = drag.get_value().is_some_and(|d| !d.moved);
            drag.set_value(None);
            tap
        };
        let w = width.clone();
        listen(&canvas, "pointerup", true, move |e: PointerEvent| {
            if lift(&e) {
                model.probe.set(figure::x_at(e.offset_x() as f64, w(), model.x.get_untracked(), look()));
            }
        });
        listen(&canvas, "pointercancel", true, move |e: PointerEvent| {
            lift(&e);
        });
        listen(&canvas, "pointerleave", true, move |_: PointerEvent| {
            if drag.get_value().is_none() {
                frame.schedule(move || model.hover.set(None));
            }
        });
        let w = width.clone();
        listen(&canvas, "wheel", false, move |e: WheelEvent| {
            e.prevent_default();
            let lines = match e.delta_mode() {
                1 => 16.0,
                2 => 400.0,
                _ => 1.0,
            };
            let factor = ((e.delta_y() * lines * 0.0015).exp() as f32).clamp(0.5, 2.0);
            let at = figure::x_at(e.offset_x() as f64, w(), model.x.get_untracked(), look());
            wheel.update_value(|(f, a)| {
                *f *= factor;
                *a = at;
            });
            frame.schedule(move || {
                let (f, at) = wheel.get_value();
                wheel.set_value((1.0, 0.0));
                set_x(model, zoom(model.x.get_untracked(), at, f));
            });
        });
        listen(&canvas, "dblclick", true, move |_: web_sys::MouseEvent| set_x(model, DEFAULT_X));
        listen(&canvas, "keydown", false, move |e: KeyboardEvent| {
            if e.ctrl_key() || e.meta_key() || e.alt_key() {
                return;
            }
            if !key(model, &e.key(), e.shift_key()) {
                return;
            }
            e.prevent_default();
        });
    });
}

/// The keyboard step of the pinned x over the range `x`: the power of ten that cuts the range
/// into 20 to 200 steps (so a pin moved by keys reads as a short decimal).
fn key_step((lo, hi): (f32, f32)) -> (i32, f64) {
    let exponent = ((hi as f64 - lo as f64) / 20.0).log10().floor() as i32;
    (exponent, 10f64.powi(exponent))
}

/// `x` moved by `steps` keyboard steps of the range, on the grid of the step (written as the
/// nearest float to a short decimal), within ±[`X_LIMIT`].
fn stepped(x: f32, steps: i32, range: (f32, f32)) -> f32 {
    let (exponent, step) = key_step(range);
    let k = (x as f64 / step).round() + steps as f64;
    // k × 10^e, formed as a division for negative e so that 0.1 steps land on the float nearest 0.1·k.
    let v = if exponent < 0 { k / 10f64.powi(-exponent) } else { k * step };
    (v as f32).clamp(-X_LIMIT, X_LIMIT)
}

/// A key on a focused plot: ←/→ move the pinned x (starting from the probe; the range pans to
/// keep it in view), +/− zoom around it (or the middle), 0 and Home reset the range, Escape
/// clears the pin. Returns whether the key was used.
fn key(model: Model, key: &str, shift: bool) -> bool {
    let x = model.x.get_untracked();
    let pin = model.state.with_untracked(|s| s.pin);
    let steps = if shift { 10 } else { 1 };
    match key {
        "ArrowLeft" | "ArrowRight" => {
            let from = pin.unwrap_or_else(|| model.probe.get_untracked());
            let to = stepped(from, if key == "ArrowLeft" { -steps } else { steps }, x);
            let span = x.1 - x.0;
            let range = if to < x.0 {
                pan(x, to - x.0 - 0.05 * span)
            } else if to > x.1 {
                pan(x, to - x.1 + 0.05 * span)
            } else {
                x
            };
            model.update(|s| {
                let _ = s.set_x(range);
                s.pin = Some(to);
            });
        }
        "+" | "=" | "-" | "_" => {
            let at = pin.unwrap_or((x.0 + x.1) / 2.0);
            set_x(model, zoom(x, at, if matches!(key, "+" | "=") { 0.8 } else { 1.25 }));
        }
        "0" | "Home" => set_x(model, DEFAULT_X),
        "Escape" if pin.is_some() => model.update(|s| s.pin = None),
        _ => return false,
    }
    true
}
