//! The page's worker: the page's own WebAssembly module, started in a dedicated worker by
//! `assets/worker.js`, holding a copy of the user's large tensor and answering the page's
//! questions about it ([`qscope_explore::analysis::answer`]) off the page's thread.
//!
//! Messages are plain objects with a type `t`. In: `tensor` (serial, dims, total) then `part`s
//! of its float32 values in order; `ask` (id, serial, the question's bytes). Out: `ready` once,
//! then for each question `progress` (done, total) and `answer` (its bytes) or `error`.
//! A scan ("Scan all tensors") runs in a worker of its own: in, `scan` (the user's `File` and the
//! job's bytes, [`Job`]); out, `scanned` (a row's bytes) or `error` per tensor, then `done`. The
//! worker reads the file itself, tensor by tensor. The trainer's CSV is read in one too: in, `csv`
//! (the `File` and the label column's name); out, `table` (the header's names and the table, as
//! bytes) or `error`.

use std::cell::RefCell;

use js_sys::{Array, Float32Array, Object, Reflect, Uint8Array};
use qscope_explore::analysis::{Ask, answer};
use qscope_explore::scan::{Buffers, Job, read_and_scan};
use qscope_explore::train::csv::{columns, parse_csv};
use qscope_explore::wire::{decode, encode};
use qscope_tensors::list;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{JsFuture, spawn_local};
use web_sys::{DedicatedWorkerGlobalScope, File, MessageEvent};

use super::tensor::FileSource;

/// The tensor the worker holds.
struct Held {
    serial: u64,
    dims: Vec<usize>,
    values: Vec<f32>,
    total: usize,
}

thread_local! {
    static HELD: RefCell<Option<Held>> = const { RefCell::new(None) };
}

/// Field `name` of a message.
pub fn field(message: &JsValue, name: &str) -> JsValue {
    Reflect::get(message, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// A message of type `t` with `fields`.
pub fn message(t: &str, fields: &[(&str, JsValue)]) -> Object {
    let o = Object::new();
    let _ = Reflect::set(&o, &"t".into(), &t.into());
    for (k, v) in fields {
        let _ = Reflect::set(&o, &(*k).into(), v);
    }
    o
}

fn number(message: &JsValue, name: &str) -> u64 {
    field(message, name).as_f64().filter(|v| v.is_finite() && *v >= 0.0).unwrap_or(0.0) as u64
}

/// Starts answering the page (called by `assets/worker.js` once the module is loaded).
#[wasm_bindgen]
pub fn worker_start() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let post = scope.clone();
    let on = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| receive(&post, &e.data()));
    scope.set_onmessage(Some(on.as_ref().unchecked_ref()));
    on.forget();
    let _ = scope.post_message(&message("ready", &[]));
}

fn receive(scope: &DedicatedWorkerGlobalScope, m: &JsValue) {
    match field(m, "t").as_string().as_deref() {
        Some("tensor") => {
            let dims = Array::from(&field(m, "dims")).iter().map(|d| d.as_f64().unwrap_or(0.0) as usize).collect();
            let total = number(m, "total") as usize;
            HELD.with(|h| {
                // The old tensor goes first: two large tensors need not fit at once.
                *h.borrow_mut() = None;
                *h.borrow_mut() =
                    Some(Held { serial: number(m, "serial"), dims, values: Vec::with_capacity(total), total });
            });
        }
        Some("part") => {
            let part = Float32Array::from(field(m, "values"));
            HELD.with(|h| {
                if let Some(held) = h.borrow_mut().as_mut().filter(|held| held.serial == number(m, "serial")) {
                    let at = held.values.len();
                    let n = (part.length() as usize).min(held.total - at);
                    held.values.resize(at + n, 0.0);
                    part.subarray(0, n as u32).copy_to(&mut held.values[at..]);
                }
            });
        }
        Some("scan") => {
            let (file, job) = (
                field(m, "file").unchecked_into::<File>(),
                decode::<Job>(&Uint8Array::from(field(m, "bytes")).to_vec()),
            );
            let scope = scope.clone();
            spawn_local(async move {
                if let Err(e) = scan_file(&scope, file, job).await {
                    let _ = scope.post_message(&message("error", &[("message", e.into())]));
                }
                let _ = scope.post_message(&message("done", &[]));
            });
        }
        Some("csv") => {
            let (file, label) = (field(m, "file").unchecked_into::<File>(), field(m, "label").as_string());
            let scope = scope.clone();
            spawn_local(async move {
                let reply = match read_csv(file, label).await {
                    Ok(bytes) => message("table", &[("bytes", Uint8Array::from(&bytes[..]).into())]),
                    Err(e) => message("error", &[("message", e.into())]),
                };
                let _ = scope.post_message(&reply);
            });
        }
        Some("ask") => {
            let id = field(m, "id");
            let reply = ask(scope, m, &id);
            let out = match reply {
                Ok(bytes) => {
                    let array = Uint8Array::from(&bytes[..]);
                    let transfer = Array::of1(&array.buffer());
                    let _ = scope.post_message_with_transfer(
                        &message("answer", &[("id", id), ("bytes", array.into())]),
                        &transfer,
                    );
                    return;
                }
                Err(e) => message("error", &[("id", id), ("message", e.into())]),
            };
            let _ = scope.post_message(&out);
        }
        _ => {}
    }
}

fn ask(scope: &DedicatedWorkerGlobalScope, m: &JsValue, id: &JsValue) -> Result<Vec<u8>, String> {
    let bytes = Uint8Array::from(field(m, "bytes")).to_vec();
    let question: Ask = decode(&bytes)?;
    HELD.with(|h| {
        let held = h.borrow();
        let held = held.as_ref().filter(|held| held.serial == number(m, "serial")).ok_or("the tensor is not here")?;
        if held.values.len() != held.total {
            return Err(format!("the tensor arrived incomplete: {} of {} values", held.values.len(), held.total));
        }
        let mut progress = |done: usize, total: usize| {
            let fields = [("id", id.clone()), ("done", (done as f64).into()), ("total", (total as f64).into())];
            let _ = scope.post_message(&message("progress", &fields));
        };
        answer(&question, &held.dims, &held.values, &mut progress).map(|a| encode(&a))
    })
}

/// The user's CSV `file` read whole and parsed with the label column `label` (None or empty:
/// the last): its header's names and its table, as bytes for the page.
async fn read_csv(file: File, label: Option<String>) -> Result<Vec<u8>, String> {
    let name = file.name();
    let buffer =
        JsFuture::from(file.array_buffer()).await.map_err(|_| format!("{name}: the browser could not read it"))?;
    let bytes = Uint8Array::new(&buffer).to_vec();
    let label = label.filter(|l| !l.is_empty());
    let table = parse_csv(&name, &bytes, label.as_deref())?;
    Ok(encode(&(columns(&bytes)?, table)))
}

/// Scans the tensors `job` names in `file`, posting a row (or a problem) per tensor.
async fn scan_file(scope: &DedicatedWorkerGlobalScope, file: File, job: Result<Job, String>) -> Result<(), String> {
    let job = job?;
    let slots = job.slots()?;
    let src = FileSource(file);
    let listing = list(&src).await?;
    let mut buffers = Buffers::default();
    for name in &job.names {
        let Some(info) = listing.find(name) else {
            let _ = scope.post_message(&message("error", &[("message", format!("{name}: not in the file").into())]));
            continue;
        };
        match read_and_scan(&src, info, &slots, (job.training, job.seed), &mut buffers).await {
            Ok(row) => {
                let _ =
                    scope.post_message(&message("scanned", &[("bytes", Uint8Array::from(&encode(&row)[..]).into())]));
            }
            Err(e) => {
                let _ = scope.post_message(&message("error", &[("message", format!("{name}: {e}").into())]));
            }
        }
    }
    Ok(())
}
