//! The Train view's data that is read rather than generated: a bundled real dataset, fetched
//! from the site when it is chosen (`datasets/NAME.safetensors`; the first load carries none,
//! and the service worker keeps them for offline use), or the user's CSV ([`super::csv_input`]).
//! Decoded rows go into [`TrainParams::table`], which rebuilds the trainers; a problem is named
//! and the previous data stays.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::Train;
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
