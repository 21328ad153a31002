//! "Open a tensor…": the user's own tensor as the sample. A safetensors, `.npy` or `.npz` file
//! (chosen, or dropped on the page) is read in the page — its header, then only the chosen
//! tensor's bytes (`File.slice`) — and never leaves it; the link records the file's and the
//! tensor's names, and a link naming a file the page has not read says which to open again.

use leptos::ev;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DragEvent, File, HtmlInputElement};

use super::dom::listen_while_mounted;
use super::model::Model;
use qscope_explore::hash::quote;
use qscope_explore::state::AXIS;
use qscope_explore::tensor::{Loaded, check_page_limit, fmt_count, fmt_size, granularity, missing_message, shape_text};
use qscope_tensors::{Info, Listing, Source, list, read};

/// A tensor handed from one view to the next (the Train view's "Inspect weights" to the
/// explorer), provided by the app: the explorer takes it when it mounts.
#[derive(Clone, Copy)]
pub struct Handoff(pub RwSignal<Option<Loaded>, LocalStorage>);

impl Default for Handoff {
    fn default() -> Handoff {
        Handoff(RwSignal::new_local(None))
    }
}

impl Handoff {
    /// Gives the handed tensor, if any, to the explorer's model.
    pub fn receive(model: Model) {
        if let Some(h) = use_context::<Handoff>()
            && let Some(t) = h.0.try_update(Option::take).flatten()
        {
            model.loaded.set(Some(t));
        }
    }
}

/// A `File` of the page, read a slice at a time.
pub(crate) struct FileSource(pub File);

impl Source for FileSource {
    fn len(&self) -> u64 {
        self.0.size() as u64
    }

    async fn read(&self, offset: u64, len: usize) -> Result<Vec<u8>, String> {
        let end = offset + len as u64;
        let blob = self
            .0
            .slice_with_f64_and_f64(offset as f64, end as f64)
            .map_err(|_| "the browser could not slice the file")?;
        let buffer = JsFuture::from(blob.array_buffer()).await.map_err(|_| "the browser could not read the file")?;
        Ok(js_sys::Uint8Array::new(&buffer).to_vec())
    }
}

/// Names of files this panel takes (and the lesson drop leaves alone): the formats read, and
/// those it names with a line of Python.
pub fn is_tensor_file(name: &str) -> bool {
    let name = name.to_lowercase();
    [".safetensors", ".npy", ".npz", ".pt", ".pth", ".bin", ".ckpt", ".gguf", ".onnx", ".h5", ".keras"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// What the panel is doing or last said.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Status {
    Idle,
    Busy(String),
    Problem(String),
}

/// The open file: its `File` and what its header lists.
#[derive(Clone)]
pub(crate) struct Opened {
    pub file: File,
    pub listing: Listing,
}

/// Reads `info` of the open file and makes it the sample.
pub(crate) fn pick(model: Model, opened: Opened, info: Info, status: RwSignal<Status>) {
    if let Err(e) = check_page_limit(&info) {
        status.set(Status::Problem(e));
        return;
    }
    status.set(Status::Busy(format!("reading {} ({} elements)…", quote(&info.name), fmt_count(info.elements))));
    spawn_local(async move {
        let src = FileSource(opened.file.clone());
        match read(&src, &info).await {
            Ok(t) => {
                let loaded = Loaded::new(opened.file.name(), &info, t);
                let (file, name) = (loaded.file.clone(), loaded.name.clone());
                model.loaded.set(Some(loaded));
                model.update(|s| qscope_explore::tensor::pick(s, file, name));
                status.set(Status::Idle);
            }
            Err(e) => status.set(Status::Problem(format!("{}: {e}", opened.file.name()))),
        }
    });
}

/// Reads `file`'s header; the previous sample stays until a tensor is picked. A file named by the
/// link opens at the tensor the link names.
fn open(model: Model, file: File, opened: RwSignal<Option<Opened>, LocalStorage>, status: RwSignal<Status>) {
    let name = file.name();
    status.set(Status::Busy(format!("reading the header of {}…", quote(&name))));
    spawn_local(async move {
        let src = FileSource(file.clone());
        match list(&src).await {
            Ok(listing) => {
                let o = Opened { file, listing };
                opened.set(Some(o.clone()));
                status.set(Status::Idle);
                let wanted = model
                    .state
                    .with_untracked(|s| (s.file.as_deref() == Some(name.as_str())).then(|| s.tensor.clone()).flatten());
                match wanted.and_then(|t| o.listing.find(&t).cloned()) {
                    Some(info) => pick(model, o, info, status),
                    None if o.listing.tensors.len() == 1 => {
                        let info = o.listing.tensors[0].clone();
                        pick(model, o, info, status);
                    }
                    None => {}
                }
            }
            Err(e) => status.set(Status::Problem(format!("{}: {e}", quote(&name)))),
        }
    });
}

/// The tensor controls of the sample card: open, the list of the file's tensors, what the
/// sample is, and the way back to the synthetic sample.
#[component]
pub fn TensorSource(
    model: Model,
    opened: RwSignal<Option<Opened>, LocalStorage>,
    status: RwSignal<Status>,
) -> impl IntoView {
    let filter = RwSignal::new(String::new());
    let input = NodeRef::<leptos::html::Input>::new();
    let chosen = move |ev: ev::Event| {
        let Some(el) = ev.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
        if let Some(file) = el.files().and_then(|f| f.get(0)) {
            open(model, file, opened, status);
        }
        el.set_value("");
    };
    listen_while_mounted(&window(), "drop", move |e| {
        let file =
            e.dyn_ref::<DragEvent>().and_then(DragEvent::data_transfer).and_then(|d| d.files()).and_then(|f| f.get(0));
        if let Some(file) = file.filter(|f| is_tensor_file(&f.name())) {
            e.prevent_default();
            open(model, file, opened, status);
        }
    });
    let missing = Memo::new(move |_| {
        let named = model.state.with(|s| s.file.clone().zip(s.tensor.clone()));
        named.filter(|_| model.tensor.get().is_none())
    });
    let source = move || {
        let about = model.sample_about();
        if model.tensor.get().is_some() { about } else { format!("synthetic: {about}") }
    };
    // The channel axis of a tensor of two or more dimensions.
    let dims = Memo::new(move |_| model.shape.with(|s| (s.dims.len() >= 2).then(|| (s.dims.clone(), s.axis))));
    let set_axis = move |ev: ev::Event| {
        let Ok(a) = event_target_value(&ev).parse::<usize>() else { return };
        let last = dims.with_untracked(|d| d.as_ref().map_or(0, |(d, _)| d.len() - 1));
        model.update(|s| s.axis = (a != last).then_some(a));
    };
    let axes = move || {
        dims.get().map(|(d, axis)| {
            let last = d.len() - 1;
            d.iter()
                .enumerate()
                .map(|(a, n)| {
                    let what =
                        if a == last { format!("{a} ({n}, the last: the libraries')") } else { format!("{a} ({n})") };
                    view! { <option value=a.to_string() selected=a == axis>{what}</option> }
                })
                .collect_view()
        })
    };
    let notes = move || model.active_tensor().map(|t| t.notes().join("; ")).unwrap_or_default();
    let rows = move || {
        let needle = filter.get().to_lowercase();
        let current = model.active_tensor().map(|t| t.name);
        opened.get().map(|o| {
            let shown: Vec<Info> =
                o.listing.tensors.iter().filter(|t| t.name.to_lowercase().contains(&needle)).take(500).cloned().collect();
            shown
                .into_iter()
                .map(|info| {
                    let is_current = current.as_deref() == Some(info.name.as_str());
                    let o = o.clone();
                    let i2 = info.clone();
                    view! {
                        <li data-name=info.name.clone() class:current=is_current>
                            <button type="button" class="tensor-row" aria-pressed=is_current.to_string()
                                on:click=move |_| pick(model, o.clone(), i2.clone(), status)>
                                <span class="tensor-name">{info.name.clone()}</span>
                                <span class="muted small num">
                                    {format!("{} · {} · {}", info.stored, shape_text(&info.shape), fmt_size(info.elements))}
                                </span>
                            </button>
                        </li>
                    }
                })
                .collect_view()
        })
    };
    let count = move || {
        opened.with(|o| {
            o.as_ref().map(|o| {
                let l = &o.listing;
                let skipped =
                    if l.skipped.is_empty() { String::new() } else { format!(", {} not readable", l.skipped.len()) };
                format!("{}: {} tensors{skipped}", o.file.name(), l.tensors.len())
            })
        })
    };
    view! {
        <div class="tensor-source">
            <p class="small" data-testid="sample-source">
                <span class="muted">"Sample: "</span>{source}
                <span class="muted" class:hidden=move || model.tensor.get().is_none()>{move || {
                    let n = notes();
                    if n.is_empty() { String::new() } else { format!(" ({n})") }
                }}</span>
            </p>
            <label class="field-label axis-row" class:hidden=move || dims.with(Option::is_none) title=AXIS.doc>
                {AXIS.label}
                <select class="select" data-testid="tensor-axis" on:change=set_axis>{axes}</select>
            </label>
            <p class="small" data-testid="tensor-granularity" class:hidden=move || model.tensor.get().is_none()>
                <span class="muted">{move || format!("{}: ", model.current.with(|q| q.info().qualified()))}</span>
                {move || model.current.with(|q| model.shape.with(|s| granularity(q, s)))}
            </p>
            <p class="notice small" role="status" data-testid="tensor-missing" class:hidden=move || missing.with(Option::is_none)>
                {move || missing.get().map(|(f, t)| missing_message(&f, &t))}
            </p>
            <div class="tensor-buttons">
                <button type="button" class="button" data-testid="tensor-open"
                    title="a safetensors, .npy or .npz file — or drop one on the page; it is read here and never leaves the page"
                    on:click=move |_| if let Some(i) = input.get_untracked() { i.click() }>
                    "Open a tensor…"
                </button>
                <button type="button" class="button" data-testid="tensor-back"
                    class:hidden=move || model.tensor.get().is_none() && missing.with(Option::is_none)
                    on:click=move |_| {
                        model.update(|s| {
                            s.file = None;
                            s.tensor = None;
                            s.block = None;
                            s.channel = None;
                        });
                        status.set(Status::Idle);
                    }>
                    "Back to the synthetic sample"
                </button>
            </div>
            <input type="file" class="file-input" node_ref=input data-testid="tensor-file" tabindex="-1" aria-hidden="true"
                accept=".safetensors,.npy,.npz" on:change=chosen />
            <p class="small muted" role="status" class:hidden=move || !matches!(status.get(), Status::Busy(_))>
                {move || match status.get() { Status::Busy(s) => s, _ => String::new() }}
            </p>
            <p class="tool-error" role="alert" data-testid="tensor-error" class:hidden=move || !matches!(status.get(), Status::Problem(_))>
                {move || match status.get() { Status::Problem(s) => s, _ => String::new() }}
            </p>
            <div class="tensor-picker" class:hidden=move || opened.with(Option::is_none)>
                <p class="small muted">{count}</p>
                <input type="search" class="search" placeholder="filter tensors by name" aria-label="filter tensors by name"
                    data-testid="tensor-filter" prop:value=move || filter.get()
                    on:input=move |ev| filter.set(event_target_value(&ev)) />
                <ul class="tensor-list" data-testid="tensor-list" aria-label="the file's tensors">{rows}</ul>

            </div>
        </div>
    }
}
