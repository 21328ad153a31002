//! One input widget per parameter kind: `Int` → slider + number, `Float` → slider (log scale
//! when the schema says so) + number, `Bool` → checkbox, `Choice` → select, `Alpha` → select
//! None / number / 'auto' / 'auto_po2' + number, `OptFloat` / `OptInt` → a "None" checkbox +
//! number. Sliders apply on the next animation frame while dragged; number fields apply on
//! Enter or blur (typing "0." must not be rewritten to "0").

use leptos::prelude::*;

use super::controls::Apply;
use crate::quant::{Kind, Literal, ParamDef};

/// A number as a literal's value, if it is one.
fn number(lit: &Literal) -> Option<f64> {
    match lit {
        Literal::Int(v) => Some(*v as f64),
        Literal::Float(v) => Some(*v),
        _ => None,
    }
}

/// A number as typed in a field: short, exact enough to read back.
fn show(v: f64) -> String {
    if v != 0.0 && !(1e-4..1e6).contains(&v.abs()) { format!("{v:e}") } else { format!("{v}") }
}

/// What a field shows for a literal (empty for None or a string).
fn field_text(lit: &Literal) -> String {
    number(lit).map(show).unwrap_or_default()
}

/// `v` rounded to 3 significant digits (log sliders give round numbers).
fn significant(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let p = 10f64.powi(2 - v.abs().log10().floor() as i32);
    (v * p).round() / p
}

/// A slider step of about a 200th of `span`: 1, 2 or 5 times a power of ten.
fn nice_step(span: f64) -> f64 {
    let raw = (span / 200.0).max(1e-9);
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * p).find(|s| *s >= raw).unwrap_or(10.0 * p)
}

/// The slider's range for an integer: the schema's when it is short, else 64 values around
/// the default.
fn int_window(min: i64, max: i64, default: i64) -> (i64, i64) {
    if max - min <= 64 {
        return (min, max);
    }
    let lo = (default - 32).max(min);
    (lo, (lo + 64).min(max))
}

/// The slider's range for a float: the schema's when it is short, else a window around the
/// default (three decades each way on a log scale).
fn float_window(min: f64, max: f64, log: bool, default: f64) -> (f64, f64) {
    if log {
        let d = if default > 0.0 { default } else { 1.0 };
        return ((d / 1e3).max(min), (d * 1e3).min(max));
    }
    if max - min <= 16.0 {
        return (min, max);
    }
    let w = (4.0 * default.abs()).max(4.0);
    (min.max(-w), max.min(w))
}

#[component]
pub fn Widget(apply: Apply, def: ParamDef, default: Literal, id: String) -> impl IntoView {
    let name = def.name;
    let d = number(&default).unwrap_or(0.0);
    match def.kind {
        Kind::Int { min, max } => {
            view! { <IntSlider apply=apply name=name min=min max=max default=d as i64 id=id /> }.into_any()
        }
        Kind::Float { min, max, log } => {
            view! { <FloatSlider apply=apply name=name min=min max=max log=log default=d id=id /> }.into_any()
        }
        Kind::Bool => view! { <Check apply=apply name=name id=id /> }.into_any(),
        Kind::Choice(choices) => view! { <Choose apply=apply name=name choices=choices id=id /> }.into_any(),
        Kind::Alpha => view! { <AlphaField apply=apply name=name id=id /> }.into_any(),
        Kind::OptFloat { min, max } => {
            let fallback = Literal::Float(1f64.clamp(min, max));
            view! { <Optional apply=apply name=name integer=false fallback=fallback id=id /> }.into_any()
        }
        Kind::OptInt { min, max } => {
            let fallback = Literal::Int(0i64.clamp(min, max));
            view! { <Optional apply=apply name=name integer=true fallback=fallback id=id /> }.into_any()
        }
        Kind::Axis | Kind::Text => ().into_any(),
    }
}

/// A number field applying on change (Enter or blur).
#[component]
fn NumberField(
    apply: Apply,
    name: &'static str,
    integer: bool,
    label: String,
    #[prop(optional)] id: Option<String>,
    #[prop(into, optional)] disabled: Signal<bool>,
) -> impl IntoView {
    let value = apply.value(name);
    let commit = move |text: String| {
        let t = text.trim().replace('−', "-");
        let parsed = if integer {
            t.parse::<i64>().ok().map(Literal::Int)
        } else {
            t.parse::<f64>().ok().filter(|v| v.is_finite()).map(Literal::Float)
        };
        match parsed {
            Some(lit) => apply.now(name, lit),
            None if integer => apply.refuse(name, format!("'{t}' is not a whole number")),
            None => apply.refuse(name, format!("'{t}' is not a number")),
        }
    };
    view! {
        <input
            type="number"
            class="num-input"
            id=id
            step=if integer { "1" } else { "any" }
            aria-label=label
            prop:disabled=disabled
            prop:value=move || value.with(field_text)
            on:change=move |ev| commit(event_target_value(&ev))
        />
    }
}

#[component]
fn IntSlider(apply: Apply, name: &'static str, min: i64, max: i64, default: i64, id: String) -> impl IntoView {
    let value = apply.value(name);
    let current = move || value.with(|v| number(v).map(|v| v as i64).unwrap_or(default));
    let (lo, hi) = int_window(min, max, default);
    view! {
        <div class="slider-row">
            <input
                type="range"
                id=id
                min=move || lo.min(current()).to_string()
                max=move || hi.max(current()).to_string()
                step="1"
                prop:value=move || current().to_string()
                aria-valuetext=move || format!("{name} = {}", current())
                on:input=move |ev| {
                    if let Ok(v) = event_target_value(&ev).parse::<i64>() {
                        apply.on_frame(name, Literal::Int(v));
                    }
                }
            />
            <NumberField apply=apply name=name integer=true label=format!("{name}, exact value") />
        </div>
    }
}

#[component]
fn FloatSlider(
    apply: Apply,
    name: &'static str,
    min: f64,
    max: f64,
    log: bool,
    default: f64,
    id: String,
) -> impl IntoView {
    let value = apply.value(name);
    let current = move || value.with(|v| number(v).unwrap_or(default));
    let (lo, hi) = float_window(min, max, log, default);
    let pos = move |v: f64| if log { v.max(f64::MIN_POSITIVE).log10() } else { v };
    let step = nice_step(hi - lo);
    let from_pos = move |p: f64| {
        if log { significant(10f64.powf(p)).clamp(min, max) } else { ((p / step).round() * step).clamp(min, max) }
    };
    view! {
        <div class="slider-row">
            <input
                type="range"
                id=id
                min=move || pos(lo.min(current())).to_string()
                max=move || pos(hi.max(current())).to_string()
                step=if log { "any".to_string() } else { step.to_string() }
                prop:value=move || pos(current()).to_string()
                aria-valuetext=move || format!("{name} = {}{}", show(current()), if log { " (log scale)" } else { "" })
                on:input=move |ev| {
                    if let Ok(p) = event_target_value(&ev).parse::<f64>() {
                        apply.on_frame(name, Literal::Float(from_pos(p)));
                    }
                }
            />
            <NumberField apply=apply name=name integer=false label=format!("{name}, exact value") />
        </div>
    }
}

#[component]
fn Check(apply: Apply, name: &'static str, id: String) -> impl IntoView {
    let value = apply.value(name);
    let on = move || value.with(|v| matches!(v, Literal::Bool(true)));
    view! {
        <label class="check">
            <input
                type="checkbox"
                id=id
                prop:checked=on
                on:change=move |ev| apply.now(name, Literal::Bool(event_target_checked(&ev)))
            />
            <span>{move || if on() { "True" } else { "False" }}</span>
        </label>
    }
}

#[component]
fn Choose(apply: Apply, name: &'static str, choices: &'static [&'static str], id: String) -> impl IntoView {
    let value = apply.value(name);
    let selected = move || value.with(|v| if let Literal::Str(s) = v { s.clone() } else { String::new() });
    view! {
        <select id=id class="select" on:change=move |ev| apply.now(name, Literal::Str(event_target_value(&ev)))>
            {choices
                .iter()
                .map(|c| view! { <option value=*c prop:selected=move || selected() == *c>{format!("'{c}'")}</option> })
                .collect_view()}
        </select>
    }
}

#[component]
fn AlphaField(apply: Apply, name: &'static str, id: String) -> impl IntoView {
    let value = apply.value(name);
    let mode = move || {
        value.with(|v| match v {
            Literal::Str(s) => s.clone(),
            Literal::Int(_) | Literal::Float(_) => "number".into(),
            _ => "none".into(),
        })
    };
    let choose = move |m: String| {
        let lit = match m.as_str() {
            "number" => Literal::Float(1.0),
            "auto" | "auto_po2" => Literal::Str(m),
            _ => Literal::None,
        };
        apply.now(name, lit);
    };
    let not_number = Signal::derive(move || mode() != "number");
    view! {
        <div class="slider-row">
            <select id=id class="select" on:change=move |ev| choose(event_target_value(&ev))>
                {[("none", "None"), ("number", "a number"), ("auto", "'auto'"), ("auto_po2", "'auto_po2'")]
                    .into_iter()
                    .map(|(v, text)| view! { <option value=v prop:selected=move || mode() == v>{text}</option> })
                    .collect_view()}
            </select>
            <NumberField apply=apply name=name integer=false label=format!("{name}, a number") disabled=not_number />
        </div>
    }
}

#[component]
fn Optional(apply: Apply, name: &'static str, integer: bool, fallback: Literal, id: String) -> impl IntoView {
    let value = apply.value(name);
    let none = Signal::derive(move || value.with(|v| matches!(v, Literal::None)));
    let toggle = move |is_none: bool| apply.now(name, if is_none { Literal::None } else { fallback.clone() });
    view! {
        <div class="slider-row">
            <label class="check">
                <input
                    type="checkbox"
                    prop:checked=none
                    aria-label=format!("{name} is None")
                    on:change=move |ev| toggle(event_target_checked(&ev))
                />
                <span>"None"</span>
            </label>
            <NumberField apply=apply name=name integer=integer label=format!("{name}, a number") id=id disabled=none />
        </div>
    }
}
