//! The Train view's data that is read rather than generated: a bundled real dataset, fetched
//! from the site when it is chosen (`datasets/NAME.safetensors`; the first load carries none,
//! and the service worker keeps them for offline use), or the user's CSV, read in the page and
//! never sent anywhere. Decoded rows go into [`TrainParams::table`], which rebuilds the
//! trainers; a problem is named and the previous data stays.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, HtmlInputElement};

use super::Train;
use qscope_explore::train::csv::{columns, parse_csv};
use qscope_explore::train::{TrainParams, bundled};
use qscope_nn::DatasetKind;
use qscope_nn::table::Table;

/// What the data panel is doing or last said.
#[derive(Clone, Debug, PartialEq)]
pub enum DataStatus {
    Idle,
    Busy(String),
    Problem(String),
}

/// Whether the chosen dataset is a table whose rows are not (yet) the ones held.
pub fn wants_rows(p: &TrainParams) -> bool {
    p.dataset.is_table() && p.table.as_ref().is_none_or(|t| p.dataset != DatasetKind::Csv && t.name != p.dataset.name())
}

async fn fetch_bytes(path: &str) -> Result<Vec<u8>, String> {
    let response = JsFuture::from(window().fetch_with_str(path))
        .await
        .map_err(|_| format!("{path} could not be fetched (offline before the site was cached?)"))?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| format!("{path}: not a response"))?;
    if !response.ok() {
        return Err(format!("{path}: HTTP {}", response.status()));
    }
    let promise = response.array_buffer().map_err(|_| format!("{path}: the body could not be read"))?;
    let buffer = JsFuture::from(promise).await.map_err(|_| format!("{path}: the body could not be read"))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Fetches a bundled dataset's file whenever one is chosen and not held, and hands its rows
/// to the trainers (unless the choice changed meanwhile).
pub fn fetch_bundled(train: Train) {
    // The dataset being fetched: settings that change meanwhile do not fetch it again.
    let fetching = StoredValue::new(None::<DatasetKind>);
    Effect::new(move |_| {
        let (kind, wanted) = train.params.with(|p| (p.dataset, wants_rows(p)));
        let Some(path) = bundled::path(kind).filter(|_| wanted) else { return };
        if fetching.get_value() == Some(kind) {
            return;
        }
        fetching.set_value(Some(kind));
        train.data.set(DataStatus::Busy(format!("loading {}…", kind.name())));
        spawn_local(async move {
            let table = fetch_bytes(&path).await.and_then(|bytes| bundled::decode(kind.name(), &bytes));
            fetching.set_value(None);
            match table {
                Ok(t) => {
                    train.data.set(DataStatus::Idle);
                    let t = Arc::new(t);
                    train.params.update(|p| {
                        if p.dataset == kind {
                            p.use_table(t);
                        }
                    });
                }
                Err(e) => train.data.set(DataStatus::Problem(e)),
            }
        });
    });
}

/// The CSV read last (its name and bytes): the label column can change without reading the
/// file again.
#[derive(Clone, Default)]
pub struct CsvFile {
    pub name: String,
    pub bytes: Arc<Vec<u8>>,
    pub columns: Vec<String>,
}

/// Parses `file` with the label column `label` ("" : the last) and, when it reads, trains on it.
fn use_csv(train: Train, held: RwSignal<Option<CsvFile>, LocalStorage>, file: CsvFile, label: String) {
    let wanted = (!label.is_empty()).then_some(label.as_str());
    match parse_csv(&file.name, &file.bytes, wanted) {
        Ok(table) => {
            let (name, table) = (file.name.clone(), Arc::new(table));
            held.set(Some(file));
            train.data.set(DataStatus::Idle);
            train.playing.set(false);
            train.params.update(|p| {
                p.set_dataset(DatasetKind::Csv);
                p.csv = name;
                p.label = label;
                p.use_table(table);
            });
        }
        Err(e) => train.data.set(DataStatus::Problem(e)),
    }
}

/// Reads a dropped or chosen file whole (a CSV is at most [`qscope_explore::train::csv::MAX_BYTES`]).
fn read_file(train: Train, held: RwSignal<Option<CsvFile>, LocalStorage>, file: File) {
    let name = file.name();
    if file.size() > qscope_explore::train::csv::MAX_BYTES as f64 {
        let mb = file.size() / 1e6;
        train.data.set(DataStatus::Problem(format!(
            "{name}: {mb:.0} MB; the page reads CSVs up to 256 MiB (qscope train --data reads any)"
        )));
        return;
    }
    train.data.set(DataStatus::Busy(format!("reading {name}…")));
    spawn_local(async move {
        let bytes = match JsFuture::from(file.array_buffer()).await {
            Ok(b) => js_sys::Uint8Array::new(&b).to_vec(),
            Err(_) => return train.data.set(DataStatus::Problem(format!("{name}: the browser could not read it"))),
        };
        let columns = columns(&bytes).unwrap_or_default();
        let label = train.params.with_untracked(|p| if p.csv == name { p.label.clone() } else { String::new() });
        let label = if columns.contains(&label) { label } else { String::new() };
        use_csv(train, held, CsvFile { name, bytes: Arc::new(bytes), columns }, label);
    });
}

/// The CSV controls: a file input (a file can be dropped on it), a text area to paste one, and
/// the label column once a file is read.
#[component]
pub fn CsvInput(train: Train) -> impl IntoView {
    let held = RwSignal::new_local(None::<CsvFile>);
    let pasted = RwSignal::new(String::new());
    let on_file = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            read_file(train, held, file);
        }
        input.set_value("");
    };
    let use_pasted = move |_| {
        let text = pasted.get_untracked();
        let bytes = text.into_bytes();
        let columns = columns(&bytes).unwrap_or_default();
        use_csv(train, held, CsvFile { name: "pasted.csv".into(), bytes: Arc::new(bytes), columns }, String::new());
    };
    let choose_label = move |ev| {
        let label = event_target_value(&ev);
        if let Some(file) = held.get_untracked() {
            use_csv(train, held, file, label);
        }
    };
    let expected = move || {
        let name = train.params.with(|p| p.csv.clone());
        let waiting = train.params.with(|p| p.dataset == DatasetKind::Csv && p.table.is_none() && !name.is_empty());
        waiting.then(|| {
            format!("This link trained on {name}: choose or drop that file here (a link never carries the data).")
        })
    };
    view! {
        <div class="csv-input">
            <label class="row">"CSV file "
                <input type="file" accept=".csv,.tsv,.txt,text/csv" data-testid="train-csv" on:change=on_file />
            </label>
            <p class="muted small" data-testid="train-csv-expected">{expected}</p>
            <Show when=move || held.with(|h| h.as_ref().is_some_and(|f| !f.columns.is_empty()))>
                <label class="row">"label column "
                    <select class="select" data-testid="train-csv-label" on:change=choose_label>
                        {move || held.with(|h| {
                            let f = h.clone().unwrap_or_default();
                            let chosen = train.params.with_untracked(|p| p.label.clone());
                            let last = f.columns.last().cloned().unwrap_or_default();
                            f.columns.into_iter().map(|c| {
                                let selected = if chosen.is_empty() { c == last } else { c == chosen };
                                view! { <option value=c.clone() selected=selected>{c.clone()}</option> }
                            }).collect_view()
                        })}
                    </select>
                </label>
            </Show>
            <details class="csv-paste">
                <summary>"or paste CSV text"</summary>
                <textarea rows="5" data-testid="train-csv-paste" placeholder="x1,x2,label&#10;0.5,1.2,a&#10;…"
                    prop:value=move || pasted.get() on:input=move |ev| pasted.set(event_target_value(&ev))></textarea>
                <button type="button" class="button" data-testid="train-csv-use" on:click=use_pasted>"Train on this"</button>
            </details>
            <p class="muted small">"A header row, numeric feature columns and one label column (numbers or names as classes); up to 100,000 rows, 64 features and 10 classes. Read here, never uploaded; the link keeps only the file's name."</p>
        </div>
    }
}

/// The data panel's status line: loading, or the last problem (the previous data stays).
#[component]
pub fn DataStatusLine(train: Train) -> impl IntoView {
    move || match train.data.get() {
        DataStatus::Idle => None,
        DataStatus::Busy(what) => {
            Some(view! { <p class="muted small" data-testid="train-data-status">{what}</p> }.into_any())
        }
        DataStatus::Problem(e) => {
            Some(view! { <p class="error small" role="alert" data-testid="train-data-status">{e}</p> }.into_any())
        }
    }
}

/// A table's size, for the panel: "1797 rows · 64 features · 10 classes".
pub fn describe(t: &Table) -> String {
    let s = if t.dims() == 1 { "" } else { "s" };
    format!("{} rows · {} feature{s} · {} classes", t.rows(), t.dims(), t.classes.len())
}
