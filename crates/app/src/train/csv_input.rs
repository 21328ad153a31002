//! The user's CSV on the Train view: chosen or dropped on the file input, or pasted. A file is
//! read and parsed in a worker ([`super::super::worker`]), so a large one never freezes the
//! page, and can be cancelled; pasted text is parsed here. The file stays in the page (never
//! uploaded; the link keeps only its name), so the label column can be changed without choosing
//! it again. A problem is named with its line and column, and the previous data stays.

use std::sync::Arc;

use js_sys::Uint8Array;
use leptos::prelude::*;
use web_sys::{File, HtmlInputElement, Worker};

use super::Train;
use super::data::DataStatus;
use crate::offpage::spawn_worker;
use crate::worker::{field, message};
use qscope_explore::train::csv::{MAX_BYTES, columns, parse_csv};
use qscope_explore::wire::decode;
use qscope_nn::DatasetKind;
use qscope_nn::table::Table;

/// Where the CSV's bytes are.
#[derive(Clone)]
enum Source {
    /// A file of the user's, read (again) by the worker.
    File(File),
    /// Pasted text.
    Text(Arc<Vec<u8>>),
}

/// The CSV read last: its name, where its bytes are, and its header's names.
#[derive(Clone)]
struct CsvFile {
    name: String,
    source: Source,
    columns: Vec<String>,
}

/// The CSV controls' state, all `Copy`.
#[derive(Clone, Copy)]
struct Csv {
    train: Train,
    held: RwSignal<Option<CsvFile>, LocalStorage>,
    /// The worker reading a file, while it does.
    worker: StoredValue<Option<Worker>, LocalStorage>,
    reading: RwSignal<bool>,
}

impl Csv {
    /// Trains on `table`, read from `file` with the label column `label` ("" : the last).
    fn take(self, file: CsvFile, label: String, table: Table) {
        let (name, table) = (file.name.clone(), Arc::new(table));
        self.held.set(Some(file));
        self.train.data.set(DataStatus::Idle);
        self.train.playing.set(false);
        self.train.params.update(|p| {
            p.set_dataset(DatasetKind::Csv);
            p.csv = name;
            p.label = label;
            p.use_table(table);
        });
    }

    fn fail(self, why: String) {
        self.stop();
        self.train.data.set(DataStatus::Problem(why));
    }

    /// Ends the worker, if one is reading.
    fn stop(self) {
        if let Some(w) = self.worker.try_update_value(Option::take).flatten() {
            w.terminate();
        }
        self.reading.set(false);
    }

    /// Reads `name` from `source` with the label column `label`: a file in a worker (here where
    /// no worker starts), text at once.
    fn read(self, name: String, source: Source, label: String) {
        self.stop();
        let file = match source {
            Source::Text(bytes) => return self.parse_here(name, Source::Text(bytes.clone()), &bytes, label),
            Source::File(file) => file,
        };
        if file.size() > MAX_BYTES as f64 {
            let mib = file.size() / f64::from(1 << 20);
            return self.fail(format!("{name}: {mib:.0} MiB; a CSV may have at most {} MiB", MAX_BYTES >> 20));
        }
        self.train.data.set(DataStatus::Busy(format!("reading {name}…")));
        self.reading.set(true);
        let (posted, wanted) = (file.clone(), label.clone());
        let receive = move |m: wasm_bindgen::JsValue| match field(&m, "t").as_string().as_deref() {
            Some("ready") => {
                let ask = message("csv", &[("file", posted.clone().into()), ("label", wanted.clone().into())]);
                self.worker.with_value(|w| w.as_ref().map(|w| w.post_message(&ask)));
            }
            Some("table") => {
                self.stop();
                match decode::<(Vec<String>, Table)>(&Uint8Array::from(field(&m, "bytes")).to_vec()) {
                    Ok((columns, table)) => {
                        let file = CsvFile { name: name.clone(), source: Source::File(posted.clone()), columns };
                        self.take(file, wanted.clone(), table);
                    }
                    Err(e) => self.fail(format!("{name}: {e}")),
                }
            }
            Some("error") => self.fail(field(&m, "message").as_string().unwrap_or_default()),
            _ => {}
        };
        let stopped = move || self.fail("the worker reading the CSV stopped".into());
        match spawn_worker(receive, stopped) {
            Some(w) => self.worker.set_value(Some(w)),
            None => self.read_here(file, label),
        }
    }

    /// Reads and parses a file on the page's thread (where no worker starts).
    fn read_here(self, file: File, label: String) {
        leptos::task::spawn_local(async move {
            let name = file.name();
            match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                Ok(b) => self.parse_here(name, Source::File(file), &Uint8Array::new(&b).to_vec(), label),
                Err(_) => self.fail(format!("{name}: the browser could not read it")),
            }
        });
    }

    fn parse_here(self, name: String, source: Source, bytes: &[u8], label: String) {
        let wanted = (!label.is_empty()).then_some(label.as_str());
        match parse_csv(&name, bytes, wanted) {
            Ok(table) => {
                let columns = columns(bytes).unwrap_or_default();
                self.take(CsvFile { name, source, columns }, label, table);
            }
            Err(e) => self.fail(e),
        }
    }
}

/// The CSV controls: a file input (a file can be dropped on it), a text area to paste one, the
/// label column once a file is read, and Cancel while one is being read.
#[component]
pub fn CsvInput(train: Train) -> impl IntoView {
    let csv = Csv {
        train,
        held: RwSignal::new_local(None),
        worker: StoredValue::new_local(None),
        reading: RwSignal::new(false),
    };
    on_cleanup(move || csv.stop());
    let pasted = RwSignal::new(String::new());
    let on_file = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            let name = file.name();
            // The label the link names, when this is the file it names.
            let label = train.params.with_untracked(|p| if p.csv == name { p.label.clone() } else { String::new() });
            csv.read(name, Source::File(file), label);
        }
        input.set_value("");
    };
    let use_pasted = move |_| {
        let bytes = Arc::new(pasted.get_untracked().into_bytes());
        csv.read("pasted.csv".into(), Source::Text(bytes), String::new());
    };
    let choose_label = move |ev| {
        let label = event_target_value(&ev);
        if let Some(f) = csv.held.get_untracked() {
            csv.read(f.name, f.source, label);
        }
    };
    let expected = move || {
        let name = train.params.with(|p| p.csv.clone());
        let waiting = train.params.with(|p| p.dataset == DatasetKind::Csv && p.table.is_none() && !name.is_empty());
        waiting.then(|| {
            format!("This link trained on {name}: choose or drop that file here (a link never carries the data).")
        })
    };
    let options = move || {
        let columns = csv.held.with(|h| h.as_ref().map(|f| f.columns.clone()).unwrap_or_default());
        let chosen = train.params.with_untracked(|p| p.label.clone());
        let last = columns.last().cloned().unwrap_or_default();
        columns
            .into_iter()
            .map(|c| {
                let selected = if chosen.is_empty() { c == last } else { c == chosen };
                view! { <option value=c.clone() selected=selected>{c.clone()}</option> }
            })
            .collect_view()
    };
    view! {
        <div class="csv-input">
            <label class="row">"CSV file "
                <input type="file" accept=".csv,.tsv,.txt,text/csv" data-testid="train-csv" on:change=on_file />
            </label>
            <button type="button" class="button" data-testid="train-csv-cancel" class:hidden=move || !csv.reading.get()
                on:click=move |_| { csv.stop(); train.data.set(DataStatus::Problem("reading the CSV was cancelled; the previous data stays".into())) }>"Cancel"</button>
            <p class="muted small" data-testid="train-csv-expected">{expected}</p>
            <Show when=move || csv.held.with(|h| h.as_ref().is_some_and(|f| !f.columns.is_empty()))>
                <label class="row">"label column "
                    <select class="select" data-testid="train-csv-label" on:change=choose_label>{options}</select>
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
