//! "Scan all tensors": every tensor of the open file (up to the page's size limit) through the
//! compared quantizers, in a worker of its own that reads the file tensor by tensor (on the page,
//! one tensor per frame, where no worker starts), with a progress bar and Cancel; the rows
//! sortable, the worst tensors first, and the SQNR over every element scanned. The figures are
//! `qscope scan`'s (`qscope_explore::scan`).

use super::dom::next_frame;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::figure::fmt_db;
use super::model::Model;
use super::tensor::{FileSource, Opened, Status, pick};
use js_sys::Uint8Array;
use qscope_explore::formats::labels;
use qscope_explore::scan::{Buffers, Job, Scanned, SortBy, pooled, read_and_scan, sorted};
use qscope_explore::wire::{decode, encode};
use wasm_bindgen::JsValue;
use web_sys::Worker;

use super::offpage::spawn_worker;
use super::worker::{field, message};
use qscope_explore::tensor::{PAGE_LIMIT, fmt_count, shape_text};

/// The scan's progress: tensors done of those scanned.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Progress {
    done: usize,
    of: usize,
}

#[component]
pub fn TensorScan(
    model: Model,
    opened: RwSignal<Option<Opened>, LocalStorage>,
    status: RwSignal<Status>,
) -> impl IntoView {
    let rows = RwSignal::new(Vec::<Scanned>::new());
    let specs = RwSignal::new(Vec::<String>::new());
    let progress = RwSignal::new(None::<Progress>);
    let cancel = RwSignal::new(false);
    let sort = RwSignal::new(SortBy::Sqnr(0));
    let left_out = RwSignal::new(0usize);
    // The scan's worker, while it runs.
    let worker = StoredValue::new_local(None::<Worker>);
    on_cleanup(move || {
        if let Some(w) = worker.try_update_value(Option::take).flatten() {
            w.terminate();
        }
    });
    // A new file: the last file's rows go.
    Effect::new(move |_| {
        opened.track();
        rows.set(Vec::new());
        cancel.set(true);
        if let Some(w) = worker.try_update_value(Option::take).flatten() {
            w.terminate();
            progress.set(None);
        }
    });
    let start = move |_| {
        let Some(o) = opened.get_untracked() else { return };
        let slots: Vec<_> = model.slots.get_untracked().into_iter().filter(|s| !s.hidden).collect();
        let names: Vec<String> = slots.iter().map(|s| s.quantizer.to_string()).collect();
        let (training, seed) = (model.mode.get_untracked().training(), model.seed.get_untracked());
        let tensors: Vec<_> = o.listing.tensors.iter().filter(|t| t.elements <= PAGE_LIMIT).cloned().collect();
        left_out.set(o.listing.tensors.len() - tensors.len());
        specs.set(labels(&names));
        rows.set(Vec::new());
        cancel.set(false);
        sort.set(SortBy::Sqnr(0));
        progress.set(Some(Progress { done: 0, of: tensors.len() }));
        let of = tensors.len();
        // In a worker of its own, which reads the file itself: the page stays responsive whatever
        // the tensors' size. Where no worker starts, here, one tensor per frame.
        let job = Job {
            names: tensors.iter().map(|t| t.name.clone()).collect(),
            slots: slots.iter().map(|s| (s.quantizer.to_string(), s.hidden)).collect(),
            training,
            seed,
        };
        let (file, file_name) = (o.file.clone(), o.file.name());
        let done = move || {
            progress.set(None);
            if let Some(w) = worker.try_update_value(Option::take).flatten() {
                w.terminate();
            }
        };
        let receive = move |m: JsValue| match field(&m, "t").as_string().as_deref() {
            Some("ready") => {
                let bytes = Uint8Array::from(&encode(&job)[..]);
                let scan = message("scan", &[("file", file.clone().into()), ("bytes", bytes.into())]);
                worker.with_value(|w| w.as_ref().map(|w| w.post_message(&scan)));
            }
            Some("scanned") => {
                if let Ok(row) = decode::<Scanned>(&Uint8Array::from(field(&m, "bytes")).to_vec()) {
                    rows.update(|r| r.push(row));
                }
                progress.update(|p| *p = p.map(|p| Progress { done: (p.done + 1).min(of), of }));
            }
            Some("error") => {
                let problem = field(&m, "message").as_string().unwrap_or_default();
                status.set(Status::Problem(format!("{file_name}: {problem}")));
                progress.update(|p| *p = p.map(|p| Progress { done: (p.done + 1).min(of), of }));
            }
            Some("done") => done(),
            _ => {}
        };
        let failed = move || {
            status.set(Status::Problem("the scan's worker stopped".into()));
            done();
        };
        if let Some(w) = spawn_worker(receive, failed) {
            worker.set_value(Some(w));
            return;
        }
        spawn_local(async move {
            let src = FileSource(o.file.clone());
            // One set of buffers for every tensor: wasm memory only grows.
            let mut buffers = Buffers::default();
            for (k, info) in tensors.iter().enumerate() {
                next_frame().await;
                if cancel.get_untracked() {
                    break;
                }
                match read_and_scan(&src, info, &slots, (training, seed), &mut buffers).await {
                    Ok(s) => rows.update(|r| r.push(s)),
                    Err(e) => status.set(Status::Problem(format!("{}: {e}", o.file.name()))),
                }
                progress.set(Some(Progress { done: k + 1, of: tensors.len() }));
            }
            progress.set(None);
        });
    };
    let stop = move || {
        cancel.set(true);
        progress.set(None);
        if let Some(w) = worker.try_update_value(Option::take).flatten() {
            w.terminate();
        }
    };
    let header = move || {
        let labels = specs.get();
        let button = move |text: String, by: SortBy| {
            view! {
                <th scope="col" aria-sort=move || if sort.get() == by { "ascending" } else { "none" }>
                    <button type="button" class="sort" on:click=move |_| sort.set(by)>{text}</button>
                </th>
            }
        };
        view! {
            <tr>
                {button("tensor".into(), SortBy::Name)}
                {button("elements".into(), SortBy::Elements)}
                {labels.into_iter().enumerate().map(|(i, l)| button(format!("{l} dB"), SortBy::Sqnr(i))).collect_view()}
            </tr>
        }
    };
    let body = move || {
        rows.with(|r| {
            let all = pooled(r);
            let count: usize = r.iter().map(|s| s.count).sum();
            let lines = sorted(r, sort.get())
                .into_iter()
                .map(|s| {
                    let name = s.name.clone();
                    let choose = move |_| {
                        let Some(o) = opened.get_untracked() else { return };
                        if let Some(info) = o.listing.find(&name).cloned() {
                            pick(model, o, info, status);
                        }
                    };
                    view! {
                        <tr data-name=s.name.clone()>
                            <td><button type="button" class="link-button" title="make it the sample" on:click=choose>{s.name.clone()}</button>
                                <span class="muted small">{format!(" {} {}", shape_text(&s.shape), s.dtype)}</span></td>
                            <td class="num">{fmt_count(s.elements)}</td>
                            {s.sqnr.iter().map(|v| view! { <td class="num">{fmt_db(*v)}</td> }).collect_view()}
                        </tr>
                    }
                })
                .collect_view();
            let total = (!r.is_empty()).then(|| view! {
                <tr class="total" data-name="all">
                    <td>"all scanned"</td>
                    <td class="num">{fmt_count(count as u64)}</td>
                    {all.iter().map(|v| view! { <td class="num">{fmt_db(*v)}</td> }).collect_view()}
                </tr>
            });
            (lines, total)
        })
    };
    view! {
        <div class="tensor-scan" class:hidden=move || opened.with(Option::is_none)>
            <div class="tensor-buttons">
                <button type="button" class="button" data-testid="tensor-scan"
                    title="every tensor of the file through the compared quantizers, as qscope scan does"
                    disabled=move || progress.get().is_some() on:click=start>"Scan all tensors"</button>
                <button type="button" class="button" data-testid="tensor-scan-cancel"
                    class:hidden=move || progress.get().is_none() on:click=move |_| stop()>"Cancel"</button>
            </div>
            <p class="small muted" role="status" class:hidden=move || progress.get().is_none()>
                <progress data-testid="tensor-scan-progress"
                    max=move || progress.get().map_or(1, |p| p.of.max(1))
                    value=move || progress.get().map_or(0, |p| p.done)></progress>
                {move || progress.get().map(|p| format!(" {} of {} tensors", p.done, p.of))}
            </p>
            <p class="small muted" class:hidden=move || left_out.get() == 0>
                {move || format!("{} tensors above the page's limit left out; qscope scan has none", left_out.get())}
            </p>
            <div class="scan-table-wrap" class:hidden=move || rows.with(Vec::is_empty)>
                <table class="formats-table" data-testid="tensor-scan-table">
                    <thead>{header}</thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
        </div>
    }
}
