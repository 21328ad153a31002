//! Training at a pace: the batches a [`PaceClock`] says are due in this frame, within a time
//! budget (a machine too slow for the pace trains what it can and owes nothing), and the pace
//! and step controls of the toolbar.

use leptos::prelude::*;

use super::{Train, now};
use qscope_explore::pace::{Pace, PaceClock, StepBy};

/// Most of a frame that paced training may take, in ms.
const BUDGET_MS: f64 = 14.0;

impl Train {
    /// One frame at `pace` epochs per second, `gap` ms after the last.
    pub(super) fn paced(self, clock: &mut PaceClock, gap: f64, pace: u32) {
        let start = now();
        let (mut trained, mut evaluated) = (0, false);
        let stop = self.params.with_untracked(|p| p.stop);
        let result = self.runs.try_update_value(|r| -> Result<Option<String>, String> {
            let Some(r) = r else { return Ok(None) };
            let due = clock.due(gap, pace, r.q.batches_per_epoch());
            let chunk = r.chunk();
            while trained < due && now() - start < BUDGET_MS {
                let (steps, why) = r.work(chunk.min(due - trained), &stop)?;
                trained += steps;
                evaluated |= steps == 0;
                if why.is_some() {
                    return Ok(why);
                }
            }
            Ok(None)
        });
        if trained > 0 || evaluated || matches!(result, Some(Err(_))) {
            self.trained(result);
        } else {
            // Nothing due this frame (a slow pace): nothing to redraw.
            self.count_rate();
        }
    }
}

/// The pace select: the choices, plus a link's own number when it is not one of them.
#[component]
pub fn PaceSelect(train: Train) -> impl IntoView {
    let params = train.params;
    let current = Memo::new(move |_| params.with(|p| p.pace));
    let options = move || {
        let mut paces = Pace::CHOICES.to_vec();
        let now = current.get();
        if !paces.contains(&now) {
            paces.insert(paces.len() - 1, now);
        }
        paces
            .into_iter()
            .map(|pace| view! { <option value=pace.name() selected=move || current.get() == pace>{pace.label()}</option> })
            .collect_view()
    };
    let change = move |ev| {
        if let Ok(pace) = Pace::parse(&event_target_value(&ev)) {
            params.update(|p| p.pace = pace);
        }
    };
    view! {
        <label class="pace" title="epochs per second while playing; max: as fast as the page stays smooth">"pace "
            <select class="select" data-testid="train-pace" on:change=change>{options}</select>
        </label>
    }
}

/// What the Step button takes: the rest of the epoch, or one batch.
#[component]
pub fn StepBySelect(train: Train) -> impl IntoView {
    let params = train.params;
    let change = move |ev| {
        if let Ok(by) = StepBy::parse(&event_target_value(&ev)) {
            params.update(|p| p.stepby = by);
        }
    };
    let option = move |by: StepBy, label: &'static str| {
        view! { <option value=by.name() selected=move || params.with(|p| p.stepby == by)>{label}</option> }
    };
    view! {
        <label class="stepby" title="what Step trains">"step by "
            <select class="select" data-testid="train-stepby" on:change=change>
                {option(StepBy::Epoch, "epoch")}
                {option(StepBy::Batch, "batch")}
            </select>
        </label>
    }
}
