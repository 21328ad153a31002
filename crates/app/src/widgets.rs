//! One input widget per parameter kind: `Int` → slider + number, `Float` → slider (log scale
//! when the schema says so) + number, `Bool` → checkbox, `Choice` → select, `Alpha` → select
//! None / number / 'auto' / 'auto_po2' + number, `OptFloat` / `OptInt` → a "None" checkbox +
//! number (`AutoScale`: None / number / 'auto' + number). Sliders apply on the next animation frame while dragged; number fields apply on
//! Enter or blur (typing "0." must not be rewritten to "0"). Where a value sits on a slider is
//! [`qscope_explore::slider`]'s; every widget applies through [`Apply`].

use leptos::prelude::*;

use super::dom::NextFrame;
use super::model::Model;
use qscope_explore::slider::{Scale, field_text, int_window, number, show};
use qscope_quant::{Kind, Literal, ParamDef};

/// How a control applies a value: set, validate, keep or refuse.
#[derive(Clone, Copy)]
pub struct Apply {
    model: Model,
    frame: NextFrame,
}

impl Apply {
    /// How the controls of `model`'s selected quantizer apply values.
    pub fn new(model: Model) -> Apply {
        Apply { model, frame: NextFrame::new() }
    }

    /// Applies `value` to parameter `name` now.
    pub fn now(&self, name: &'static str, value: Literal) {
        let model = self.model;
        let mut q = model.current.get_untracked();
        if q.get(name).as_ref() == Some(&value) {
            model.control_error.set(None);
            return;
        }
        let refused = match q.set(name, &value) {
            Err(m) => Some(format!("{name}={value}: {m}")),
            Ok(()) => q.validate().err().map(|(p, m)| {
                let v = q.get(p).map(|v| format!("={v}")).unwrap_or_default();
                format!("{p}{v}: {m}")
            }),
        };
        match refused {
            Some(m) => model.control_error.set(Some((name.to_string(), m))),
            None => model.set_current(q),
        }
    }

    /// Applies `value` on the next animation frame (the latest value of a drag wins).
    pub fn on_frame(&self, name: &'static str, value: Literal) {
        let this = *self;
        self.frame.schedule(move || this.now(name, value));
    }

    /// Refuses text that is not a value of the right kind.
    pub fn refuse(&self, name: &'static str, message: String) {
        self.model.control_error.set(Some((name.to_string(), format!("{name}: {message}"))));
    }

    /// The parameter's current value.
    pub fn value(&self, name: &'static str) -> Signal<Literal> {
        let current = self.model.current;
        Signal::derive(move || current.with(|q| q.get(name)).unwrap_or_default())
    }
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
        Kind::Alpha => view! { <AlphaField apply=apply name=name modes=&["auto", "auto_po2"] id=id /> }.into_any(),
        Kind::AutoScale { .. } => view! { <AlphaField apply=apply name=name modes=&["auto"] id=id /> }.into_any(),
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
    let scale = Scale::new(min, max, log, default);
    view! {
        <div class="slider-row">
            <input
                type="range"
                id=id
                min=move || scale.ends(current()).0.to_string()
                max=move || scale.ends(current()).1.to_string()
                step=scale.step_attr()
                prop:value=move || scale.position(current()).to_string()
                aria-valuetext=move || format!("{name} = {}{}", show(current()), if log { " (log scale)" } else { "" })
                on:input=move |ev| {
                    if let Ok(p) = event_target_value(&ev).parse::<f64>() {
                        apply.on_frame(name, Literal::Float(scale.value(p)));
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
fn AlphaField(apply: Apply, name: &'static str, modes: &'static [&'static str], id: String) -> impl IntoView {
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
            m if modes.contains(&m) => Literal::Str(m.to_string()),
            _ => Literal::None,
        };
        apply.now(name, lit);
    };
    let not_number = Signal::derive(move || mode() != "number");
    view! {
        <div class="slider-row">
            <select id=id class="select" on:change=move |ev| choose(event_target_value(&ev))>
                {[("none", "None".to_string()), ("number", "a number".to_string())]
                    .into_iter()
                    .chain(modes.iter().map(|&m| (m, format!("'{m}'"))))
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
