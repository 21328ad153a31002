//! What `qscope lesson check` warns of in a lesson that opens: a step that would mislead a class
//! without being wrong. A task is evaluated at its step's starting state, as the page evaluates
//! it the moment the step opens (the explorer's settings; the trainer's nets before their first
//! epoch), and a warning says when it already holds there, or when it cannot hold with the
//! step's set-up: an accuracy beyond 0–1 (`test_acc >= 90` is 9000 %), the twin's accuracy
//! without a twin, a level count the step's quantizer reaches for no value of any one of its
//! parameters (unless the step points at the quantizer's choice itself: `picker`, `spec`,
//! `compare`, `curve:N`, `control:wq`). Also a `highlight=control:NAME` that the selected
//! quantizer has no control for, a `pin` outside the plotted x range, and an inline formula too
//! wide for a narrow text column (a phone's, the presenter's), which cannot wrap.

use super::task::{Clause, Comparison, Measure, TrainObservation, explorer_value, weight_levels};
use super::{Highlight, Lesson, LessonError, Step};
use crate::page::View;
use crate::runs::Runs;
use crate::slider::{float_window, int_window};
use crate::state::State;
use crate::train::TrainParams;
use qscope_quant::{Kind, Literal, Quantizer};

/// Every warning of a lesson, step by step.
pub fn warnings(lesson: &Lesson) -> Vec<LessonError> {
    let mut out = Vec::new();
    for (k, step) in lesson.steps.iter().enumerate() {
        let mut warn = |message: String| {
            out.push(LessonError { step: Some((k + 1, step.title.clone())), line: Some(step.line), message })
        };
        match step.settings.view {
            View::Explorer => explorer(step, &mut warn),
            View::Train => trainer(step, &mut warn),
        }
        for tex in wide_formulas(&step.text) {
            warn(format!(
                "the inline formula ${tex}$ is wider than a phone's or the presenter's text column \
                 ({WIDE_FORMULA} characters) and cannot wrap there: set it apart as $${tex}$$"
            ));
        }
    }
    out
}

/// The most characters an inline formula may show: about what the presenter's text column at
/// 1280×720 and a 390 px phone hold on one line. A formula is one unbreakable box.
pub const WIDE_FORMULA: usize = 22;

/// The inline formulas (`$…$`, not `$$…$$`) of `text` that show more than [`WIDE_FORMULA`]
/// characters once rendered (a command such as `\operatorname{clip}` shows as `clip`).
fn wide_formulas(text: &str) -> Vec<&str> {
    let mut wide = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('$') {
        let escaped = open > 0 && rest.as_bytes()[open - 1] == b'\\';
        let after = &rest[open + 1..];
        if escaped {
            rest = after;
            continue;
        }
        if let Some(display) = after.strip_prefix('$') {
            rest = display.find("$$").map_or("", |end| &display[end + 2..]);
            continue;
        }
        let Some(end) = after.find('$') else { break };
        let tex = &after[..end];
        if shown_width(tex) > WIDE_FORMULA {
            wide.push(tex);
        }
        rest = &after[end + 1..];
    }
    wide
}

/// How many characters the rendered formula shows (spaces left out).
fn shown_width(tex: &str) -> usize {
    let html = super::render::render_lenient(&format!("${tex}$"));
    let (mut width, mut in_tag, mut in_entity) = (0, false, false);
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            '&' if !in_tag => in_entity = true,
            ';' if in_entity => {
                in_entity = false;
                width += 1;
            }
            c if !in_tag && !in_entity && !c.is_whitespace() => width += 1,
            _ => {}
        }
    }
    width
}

fn explorer(step: &Step, warn: &mut impl FnMut(String)) {
    let Some(state) = step.explorer() else { return };
    let q = &state.selected_slot().quantizer;
    if let Some(Highlight::Control(name)) = &step.settings.highlight
        && !q.params().iter().any(|p| p.name == name)
    {
        let names: Vec<&str> = q.params().iter().map(|p| p.name).collect();
        let has = if names.is_empty() { "none".to_string() } else { names.join(", ") };
        warn(format!(
            "highlight=control:{name}: the selected quantizer, {q}, has no control '{name}' (its parameters: {has})"
        ));
    }
    if let Some(pin) = state.pin.filter(|p| !(state.x.0..=state.x.1).contains(p)) {
        warn(format!(
            "pin={pin} lies outside the plotted x range, {} to {}: the figure shows no crosshair",
            state.x.0, state.x.1
        ));
    }
    let Some(task) = &step.settings.task else { return };
    if task.done.observe(&state) == Ok(true) {
        warn(format!(
            "the task's condition ({}) already holds when the step opens: it ticks before the class does anything",
            task.done
        ));
    }
    let quantizer_may_change = matches!(
        &step.settings.highlight,
        Some(Highlight::Part(p)) if ["picker", "spec", "compare"].contains(&p.as_str())
    ) || matches!(step.settings.highlight, Some(Highlight::Curve(_)));
    for clause in &task.done.clauses {
        if let Some(why) = never(clause, None) {
            warn(why);
        } else if clause.measure == Measure::Levels && !quantizer_may_change {
            let only = match &step.settings.highlight {
                Some(Highlight::Control(name)) => Some(name.as_str()),
                _ => None,
            };
            let counts = reachable_levels(&state, only);
            if !counts.iter().any(|&n| clause.test(n)) {
                let seen: Vec<String> = counts.iter().map(|n| levels_text(*n)).collect();
                let what = only.map_or("any one of its parameters".to_string(), |n| format!("its {n}"));
                warn(format!("'{clause}' cannot hold: changing {what}, {q} gives {} level counts", seen.join(", ")));
            }
        }
    }
}

fn trainer(step: &Step, warn: &mut impl FnMut(String)) {
    let Some(params) = step.trainer() else { return };
    let Some(task) = &step.settings.task else { return };
    let levels = weight_levels(&params);
    if let Ok(runs) = Runs::new(&params) {
        let start = TrainObservation::of(Some(&runs), levels);
        if task.done.holds(&start) {
            warn(format!(
                "the task's condition ({}) already holds before the first epoch: it ticks before the class does anything",
                task.done
            ));
        }
    }
    let wq_may_change =
        matches!(&step.settings.highlight, Some(Highlight::Control(c)) if c.starts_with("wq") || c == "hidden");
    for clause in &task.done.clauses {
        if let Some(why) = never(clause, Some(&params)) {
            warn(why);
        } else if clause.measure == Measure::WeightLevels && !wq_may_change && !clause.test(levels) {
            warn(format!(
                "'{clause}' cannot hold: the step's weight quantizers give {} levels and the step points at no control that changes them",
                levels_text(levels)
            ));
        }
    }
}

/// Why a clause can never hold whatever the class does, if it cannot.
fn never(clause: &Clause, params: Option<&TrainParams>) -> Option<String> {
    let t = clause.threshold();
    let possible = |lo: f64, hi: f64| match clause.op {
        Comparison::Eq => (lo..=hi).contains(&t),
        Comparison::Ne => true,
        Comparison::Lt => t > lo,
        Comparison::Le => t >= lo,
        Comparison::Gt => t < hi,
        Comparison::Ge => t <= hi,
    };
    match clause.measure {
        Measure::TestAcc | Measure::TrainAcc | Measure::FloatTestAcc | Measure::TwinTestAcc if !possible(0.0, 1.0) => {
            let hint = if clause.percent { "" } else { " (write 90% or 0.9 for ninety percent)" };
            Some(format!("'{clause}' can never hold: an accuracy runs from 0 to 1{hint}"))
        }
        Measure::TwinTestAcc if params.is_some_and(|p| !p.has_twin()) => {
            Some(format!("'{clause}' can never hold: this step trains no STE twin (set twin_wq or twin_aq)"))
        }
        Measure::Levels | Measure::WeightLevels if clause.op == Comparison::Eq && (t.fract() != 0.0 || t < 1.0) => {
            Some(format!("'{clause}' can never hold: a level count is a whole number from 1"))
        }
        Measure::Mse | Measure::TestLoss | Measure::TrainLoss | Measure::Epoch | Measure::LatentMax
            if !possible(0.0, f64::INFINITY) =>
        {
            Some(format!("'{clause}' can never hold: {} is never negative", clause.measure.name()))
        }
        _ => None,
    }
}

/// The level counts the selected quantizer gives as each of its parameters (or only `only`)
/// takes the values its control offers, the others at the step's; its count at the step's own
/// settings first.
fn reachable_levels(state: &State, only: Option<&str>) -> Vec<f64> {
    let q = state.selected_slot().quantizer.clone();
    let count = |q: &Quantizer| {
        let mut s = state.clone();
        s.set_selected(q.clone());
        explorer_value(Measure::Levels, &s).unwrap_or(f64::NAN)
    };
    let mut counts = vec![count(&q)];
    for p in q.params().iter().filter(|p| only.is_none_or(|n| n == p.name)) {
        for lit in candidates(p.kind, q.get(p.name).unwrap_or_default()) {
            let mut v = q.clone();
            if v.set(p.name, &lit).is_ok() && v.validate().is_ok() {
                let n = count(&v);
                if !counts.contains(&n) {
                    counts.push(n);
                }
            }
        }
    }
    counts
}

/// The values a parameter's control offers: every integer of its slider, nine points along a
/// float's, both booleans, every choice, and None where it is allowed.
fn candidates(kind: Kind, current: Literal) -> Vec<Literal> {
    let current = crate::slider::number(&current);
    let floats = |min: f64, max: f64, log: bool| {
        let (lo, hi) = float_window(min, max, log, current.unwrap_or(if log { 1.0 } else { (min + max) / 2.0 }));
        (0..9).map(move |i| {
            let f = f64::from(i) / 8.0;
            Literal::Float(if log && lo > 0.0 { lo * (hi / lo).powf(f) } else { lo + (hi - lo) * f })
        })
    };
    let ints = |min: i64, max: i64| {
        let (lo, hi) = int_window(min, max, current.map_or(min, |c| c as i64));
        (lo..=hi).map(Literal::Int)
    };
    match kind {
        Kind::Int { min, max } => ints(min, max).collect(),
        Kind::OptInt { min, max } => std::iter::once(Literal::None).chain(ints(min, max)).collect(),
        Kind::Float { min, max, log } => floats(min, max, log).collect(),
        Kind::OptFloat { min, max } => std::iter::once(Literal::None).chain(floats(min, max, false)).collect(),
        Kind::AutoScale { min, max } => {
            [Literal::None, Literal::Str("auto".into())].into_iter().chain(floats(min, max, true)).collect()
        }
        Kind::Bool => vec![Literal::Bool(false), Literal::Bool(true)],
        Kind::Choice(names) => names.iter().map(|n| Literal::Str((*n).into())).collect(),
        Kind::Alpha => [Literal::None, Literal::Str("auto".into()), Literal::Str("auto_po2".into())]
            .into_iter()
            .chain([0.25, 0.5, 1.0, 2.0].map(Literal::Float))
            .collect(),
        Kind::Axis | Kind::Text => Vec::new(),
    }
}

fn levels_text(n: f64) -> String {
    if n.is_infinite() { "∞ (continuous)".into() } else { format!("{n}") }
}
